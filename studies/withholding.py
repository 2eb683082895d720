"""Identity strings withheld from whatever leaves the platform with answers in it.

A participant may type their Prolific ID or session id into a free-text answer, in any case
(`5F0C…` as readily as `5f0c…`). Everything that carries answers out (the replication bundle, the
long, wide and participants' exports in every format, the API's rows and downloads) passes its text
through one `Withholder` built from the study's identities, which replaces each of them, whatever
its case, by `[withheld]`. Nobody's permission lifts it: the admin shows an identity to those who
may see one; a file, once out, does not ask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from studies.models import Participant, Study

#: an identity string shorter than this is not searched for (a short token such as "p1" would
#: match ordinary text); Prolific's IDs are 24 characters
MIN_IDENTITY_CHARS = 8
WITHHELD = "[withheld]"


def identity_strings(study: Study) -> set[str]:
    """The study's participants' Prolific IDs, study ids and session ids, the changed sessions' too."""
    found: set[str] = set()
    for pid, prolific_study, session, changes in Participant.objects.filter(study=study).values_list(
        *Participant.IDENTITY_FIELDS
    ):
        found |= {pid, prolific_study, session}
        for change in changes or []:
            found |= {str(value) for value in (change or {}).values() if isinstance(value, str)}
    return {value for value in found if len(value.strip()) >= MIN_IDENTITY_CHARS}


@dataclass(frozen=True)
class Withholder:
    """Replaces every one of a set of identity strings, in any case, by `[withheld]`."""

    pattern: re.Pattern[str] | None

    @classmethod
    def of(cls, identities: set[str]) -> Withholder:
        if not identities:
            return cls(None)
        # longest first, so that an identity containing another is replaced whole
        ordered = sorted(identities, key=lambda value: (-len(value), value))
        return cls(re.compile("|".join(re.escape(value) for value in ordered), re.IGNORECASE))

    def text(self, value: str) -> str:
        return value if self.pattern is None else self.pattern.sub(WITHHELD, value)

    def content(self, value: bytes) -> bytes:
        """UTF-8 content with the identities withheld (bytes that are not UTF-8 pass unchanged)."""
        if self.pattern is None:
            return value
        return self.text(value.decode("utf-8", errors="surrogateescape")).encode("utf-8", errors="surrogateescape")

    def cell(self, value: Any) -> Any:
        """A table cell: text withheld, anything else (a number, a flag) as it is."""
        return self.text(value) if isinstance(value, str) else value


def study_withholder(study: Study) -> Withholder:
    return Withholder.of(identity_strings(study))


def withhold(content: bytes, identities: set[str]) -> bytes:
    """`content` with every identity string replaced, whatever its case."""
    return Withholder.of(identities).content(content)
