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

from parity import panels
from studies.models import Participant, Study

#: an identity string shorter than this is not searched for inside words (a short token such as "p1"
#: would match ordinary text); Prolific's IDs are 24 characters
MIN_IDENTITY_CHARS = 8
#: a shorter id of a panel whose ids may be short (SONA's survey codes have 2 to 7 digits, a lab's own
#: ids are what the lab gives) is withheld where it stands as a word of its own, from this length:
#: "48213" in "my code is 48213." but not in "1482130"; shorter ones are not searched for at all
MIN_WORD_IDENTITY_CHARS = 3
_WORD = re.compile(r"[A-Za-z0-9]+")
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
    """The study's participants' Prolific IDs, study ids and session ids (or their panel's participant,
    study and assignment ids), the changed sessions' too, and what the registered sources know of it
    (`register_identities`). A study on another panel than Prolific keeps its ids from
    `MIN_WORD_IDENTITY_CHARS` characters (withheld as words, `Withholder`)."""
    found: set[str] = set()
    for source in _SOURCES:
        found |= set(source(study))
    for pid, prolific_study, session, changes in Participant.objects.filter(study=study).values_list(
        *Participant.IDENTITY_FIELDS
    ):
        found |= {pid, prolific_study, session}
        for change in changes or []:
            found |= {str(value) for value in (change or {}).values() if isinstance(value, str)}
    return {value for value in found if len(value.strip()) >= shortest_identity(study)}


@dataclass(frozen=True)
class Withholder:
    """Replaces every one of a set of identity strings, in any case, by `[withheld]`.

    An export runs it over every answer, and a study may hold thousands of ids. Up to
    `REGEX_MAX_IDENTITIES` of them, one case-insensitive regular expression of them all is fastest.
    Past that, trying every id at every position costs more than reading the text once in Python:
    each id is filed under its first `MIN_IDENTITY_CHARS` characters in lower case, and the text's
    windows are looked up. Where lower case changes a length (a few Unicode letters), the regular
    expression is used whatever the number. An id shorter than `MIN_IDENTITY_CHARS` (from
    `MIN_WORD_IDENTITY_CHARS`) is withheld where it is a word of its own: the text's words of letters
    and digits are looked up in a set (`words`), ids with '-' or '_' by a regular expression of them
    bounded by what is not a letter or digit (`word_pattern`)."""

    by_prefix: dict[str, tuple[str, ...]]
    pattern: re.Pattern[str] | None
    words: frozenset[str] = frozenset()
    word_pattern: re.Pattern[str] | None = None

    @classmethod
    def of(cls, identities: set[str], *, short_words: bool = False) -> Withholder:
        """`short_words`: ids shorter than `MIN_IDENTITY_CHARS` are withheld as words (else left alone)."""
        long = cls.of_long({value for value in identities if len(value) >= MIN_IDENTITY_CHARS})
        short = {value for value in identities if MIN_WORD_IDENTITY_CHARS <= len(value) < MIN_IDENTITY_CHARS}
        if not short or not short_words:
            return long
        words = frozenset(value.lower() for value in short if _WORD.fullmatch(value))
        joined = sorted(
            (value for value in short if not _WORD.fullmatch(value)), key=lambda value: (-len(value), value)
        )
        word_pattern = (
            re.compile(
                "(?<![A-Za-z0-9])(?:" + "|".join(re.escape(value) for value in joined) + ")(?![A-Za-z0-9])",
                re.IGNORECASE,
            )
            if joined
            else None
        )
        return cls(long.by_prefix, long.pattern, words, word_pattern)

    @classmethod
    def of_long(cls, kept: set[str]) -> Withholder:
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

    @property
    def empty(self) -> bool:
        """Whether it withholds nothing."""
        return self.pattern is None and not self.words and self.word_pattern is None

    def text(self, value: str) -> str:
        if self.word_pattern is not None:
            value = self.word_pattern.sub(WITHHELD, value)
        if self.words:
            value = _WORD.sub(lambda found: WITHHELD if found.group().lower() in self.words else found.group(), value)
        return self.long_text(value)

    def long_text(self, value: str) -> str:
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
        if self.empty:
            return value
        return self.text(value.decode("utf-8", errors="surrogateescape")).encode("utf-8", errors="surrogateescape")

    def cell(self, value: Any) -> Any:
        """A table cell: text withheld, anything else (a number, a flag) as it is."""
        return self.text(value) if isinstance(value, str) else value


def shortest_identity(study: Study) -> int:
    """The shortest id of the study that is withheld: Prolific's are long; another panel's may be short."""
    return MIN_IDENTITY_CHARS if study.panel == panels.PROLIFIC else MIN_WORD_IDENTITY_CHARS


def study_withholder(study: Study) -> Withholder:
    return Withholder.of(identity_strings(study), short_words=study.panel != panels.PROLIFIC)


def withhold(content: bytes, identities: set[str]) -> bytes:
    """`content` with every identity string replaced, whatever its case."""
    return Withholder.of(identities).content(content)
