"""What every default consent text says of what the page records while a participant answers
(see docs/integrity.md): counts and times, never what is typed or pasted."""

from __future__ import annotations

RECORDED_ON_THE_PAGE = (
    " While you answer, the page records how, not what: how many times you paste, how often and for "
    "how long you leave the page, how many keys you press, and how long you take. It never records "
    "which keys you press or what you paste."
)
