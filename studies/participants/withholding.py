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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from studies.models import Participant, Study

#: an identity string shorter than this is not searched for (a short token such as "p1" would
#: match ordinary text); Prolific's IDs are 24 characters
MIN_IDENTITY_CHARS = 8
WITHHELD = "[withheld]"
#: up to this many ids, one regular expression of them all; past it, a look-up by prefix (see Withholder)
REGEX_MAX_IDENTITIES = 400


#: other apps' identity strings of a study, which this app cannot read itself (Prolific's submissions,
#: those of people who never entered the study included): `register_identities`
_SOURCES: list[Callable[[Study], Iterable[str]]] = []


def register_identities(source: Callable[[Study], Iterable[str]]) -> None:
    """Add `source` (study -> identity strings) to what every `Withholder` of a study withholds."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def identity_strings(study: Study) -> set[str]:
    """The study's participants' Prolific IDs, study ids and session ids, the changed sessions' too,
    and what the registered sources know of it (`register_identities`)."""
    found: set[str] = set()
    for source in _SOURCES:
        found |= set(source(study))
    for pid, prolific_study, session, changes in Participant.objects.filter(study=study).values_list(
        *Participant.IDENTITY_FIELDS
    ):
        found |= {pid, prolific_study, session}
        for change in changes or []:
            found |= {str(value) for value in (change or {}).values() if isinstance(value, str)}
    return {value for value in found if len(value.strip()) >= MIN_IDENTITY_CHARS}


@dataclass(frozen=True)
class Withholder:
    """Replaces every one of a set of identity strings, in any case, by `[withheld]`.

    An export runs it over every answer, and a study may hold thousands of ids. Up to
    `REGEX_MAX_IDENTITIES` of them, one case-insensitive regular expression of them all is fastest.
    Past that, trying every id at every position costs more than reading the text once in Python:
    each id is filed under its first `MIN_IDENTITY_CHARS` characters in lower case, and the text's
    windows are looked up. Where lower case changes a length (a few Unicode letters), the regular
    expression is used whatever the number."""

    by_prefix: dict[str, tuple[str, ...]]
    pattern: re.Pattern[str] | None

    @classmethod
    def of(cls, identities: set[str]) -> Withholder:
        kept = {value for value in identities if len(value) >= MIN_IDENTITY_CHARS}
        if not kept:
            return cls({}, None)
        # longest first, so that an identity containing another is replaced whole
        ordered = sorted(kept, key=lambda value: (-len(value), value))
        pattern = re.compile("|".join(re.escape(value) for value in ordered), re.IGNORECASE)
        if len(ordered) <= REGEX_MAX_IDENTITIES or any(len(value.lower()) != len(value) for value in ordered):
            return cls({}, pattern)
        by_prefix: dict[str, list[str]] = {}
        for value in ordered:
            by_prefix.setdefault(value[:MIN_IDENTITY_CHARS].lower(), []).append(value.lower())
        return cls({key: tuple(values) for key, values in by_prefix.items()}, pattern)

    def text(self, value: str) -> str:
        if self.pattern is None or len(value) < MIN_IDENTITY_CHARS:
            return value
        lower = value.lower() if self.by_prefix else ""
        if len(lower) != len(value):  # no look-up by prefix, or lower case changed a length
            return self.pattern.sub(WITHHELD, value)
        parts: list[str] = []
        start = position = 0
        while position <= len(lower) - MIN_IDENTITY_CHARS:
            found = next(
                (
                    identity
                    for identity in self.by_prefix.get(lower[position : position + MIN_IDENTITY_CHARS], ())
                    if lower.startswith(identity, position)
                ),
                None,
            )
            if found is None:
                position += 1
                continue
            parts += [value[start:position], WITHHELD]
            position = start = position + len(found)
        return value if not parts else "".join([*parts, value[start:]])

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
