"""The bounds of every number and text a researcher gives a study: the study form, its edit page,
the API's serializers (and so the OpenAPI schema) and the model fields take them from here, so a
value out of bounds is refused by its field with a message before anything is estimated, built
or saved (docs/api.md lists them)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.core.validators import MaxValueValidator

#: the largest whole number a study keeps: PostgreSQL's `integer`, the column of a
#: PositiveIntegerField (SQLite's is wider, but a study moves between the two), and far past any
#: count, seed or size a study needs
MAX_INTEGER = 2_147_483_647
#: the largest reward, £9,999.99: the form's six digits in pounds and pence
MAX_PENCE = 999_999
#: a text design option (an item set's name, a split, a list of models): it is matched against item
#: keys in the database, and far longer patterns are refused by SQLite
MAX_DESIGN_TEXT = 500
#: a study's Markdown texts (consent, instructions), as the preregistration's
MAX_TEXT = 20_000

#: what a researcher enters of an imported study's original paper (its materials, pay, exclusions,
#: attrition): a paragraph, as a checklist's cell holds; and the paper's page it is on ("4", "4-5", "A.2")
MAX_ORIGINAL_TEXT = 1000
MAX_PAGE = 20

#: the model fields' validators (the database would refuse past its column; these say why first)
INTEGER_VALIDATORS = [MaxValueValidator(MAX_INTEGER)]
PENCE_VALIDATORS = [MaxValueValidator(MAX_PENCE)]


def pence_of(pounds: object) -> int:
    """The pence of a reward as typed in pounds, 0 when it is not a finite amount within bounds
    (the page's pay line is shown for what the form holds, checked or not)."""
    try:
        amount = Decimal(str(pounds))
    except (InvalidOperation, ValueError):
        return 0
    if not amount.is_finite() or not 0 <= amount * 100 <= MAX_PENCE:
        return 0
    return int((amount * 100).to_integral_value())
