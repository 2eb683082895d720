"""Messages the pure library shows participants, in English and translatable (no Django import).

A message is marked with `gettext_noop` where it is written, so that `makemessages` collects it into
the catalogues, and is returned as a `Message`: the English text (a `str`, so every caller that
stores or compares it keeps working) that also carries its template and parameters. The
participant's page translates the template in the study's language and fills the parameters in
again (`participation.i18n.translated`).
"""

from __future__ import annotations

from typing import Any


def gettext_noop(message: str) -> str:
    """Marks `message` for the catalogues; returns it unchanged (Django's own is not importable here)."""
    return message


class Message(str):
    """An English message formatted from `template` with `params` (`str.format` fields)."""

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, **params: Any) -> Message:
        message = super().__new__(cls, template.format(**params) if params else template)
        message.template = template
        message.params = params
        return message


#: an answer that came sooner after its item was shown than the study's floor allows
TOO_SOON_MESSAGE = Message(
    gettext_noop(
        "Your answer came before this item could have been read, so it was not saved. "
        "Please read the item and answer again."
    )
)
