"""Amounts in the Prolific workspace's currency.

Prolific's amounts (a study's reward, a balance, a bonus line) are in the currency of the workspace,
GBP or USD (https://docs.prolific.com/api-reference/workspaces/create-workspace: "Must be GBP or
USD"); integers are in its smallest unit, pence or cents
(https://docs.prolific.com/api-reference/workspaces/get-workspace-balance). Parity stores integers in
that smallest unit (the fields named `*_pence` keep their names) and reads the currency from Prolific
when a study is created there (`ProlificStudy.currency`). Until it has read it (a study not created
through Parity, say) it takes Prolific's default, GBP, as Prolific's own CLI does when a study names
no currency (prolific-oss/cli model/model.go, `DefaultCurrency`).
"""

from __future__ import annotations

#: the currency of a workspace Parity has not read
DEFAULT_CURRENCY = "GBP"
#: how an amount in each currency is written; another currency's code goes before the amount
SYMBOLS = {"GBP": "£", "USD": "$", "EUR": "€"}


def currency_or_default(currency: str | None) -> str:
    return (currency or DEFAULT_CURRENCY).upper()


def symbol(currency: str | None) -> str:
    """What goes before an amount: "£" for GBP, "$" for USD, "CHF " for a code not listed."""
    code = currency_or_default(currency)
    return SYMBOLS.get(code, f"{code} ")


def money(minor_units: float | None, currency: str | None) -> str:
    """An amount in the smallest unit (pence, cents) written in its currency: `money(450, "USD")` is
    "$4.50"; "—" for none."""
    if minor_units is None:
        return "—"
    return f"{symbol(currency)}{minor_units / 100:.2f}"
