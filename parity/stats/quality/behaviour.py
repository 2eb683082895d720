"""Integrity signals of one answer: the page's behaviour figures, the canary word, the reading floor.

Pure: plain values in, plain values out. The rules, as the answer service and the flags apply them:

- **Behaviour on the page** (`checked`): counts and durations the page's script sends with an
  answer: pastes, focus losses, times and milliseconds the page was hidden, keys pressed in the
  answer box, and the time to the first input. Nothing of what was typed or pasted. A record that
  cannot be true (a page hidden longer than the item was on the screen) is dropped and marked.
- **Canary** (`canary_word`, `carries_canary`): each study has a made-up word that its written
  items ask an AI, in a line no person sees, to use. An answer containing it as a word came
  through a copy of the item's text.
- **Reading floor** (`reading_floor_ms`): the least time a person needs to read an item and answer.
  Answers sent without the page's behaviour (no script ran: a program posting the form) that came
  sooner than it are a bot's signature.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

#: the figures the page sends, each an integer of at most this value (a day in milliseconds, or a
#: count far beyond anyone's)
FIGURES: dict[str, int] = {
    "pastes": 1000,
    "blurs": 1000,
    "hidden": 1000,
    "hidden_ms": 86_400_000,
    "keys": 100_000,
    "first_input_ms": 86_400_000,
}
#: figures the page leaves empty: keys when the item has no text box, the first input when none came
OPTIONAL = frozenset({"keys", "first_input_ms"})
#: the page's clock starts when the item is on the screen, the server's when it sent it: the
#: page's durations may exceed the server's by the difference of clocks, never by more than this
CLOCK_SLACK_MS = 2000

#: what `extra["behaviour"]["status"]` says
RECORDED, NONE, INVALID = "recorded", "none", "invalid"

#: the reading floor: a choice reaction plus the item's words at the upper end of skimming, three
#: times the average adult's silent reading rate (Brysbaert 2019, Rayner et al. 2016)
FLOOR_BASE_MS = 300
FLOOR_WORDS_PER_SECOND = 12
#: a participant is flagged when at least this share of their answers sent without the page's
#: script came sooner than the reading floor (a program's answers all do; a person without
#: JavaScript may skim an item or two)
BOT_SPEED_SHARE = 0.5
#: the parts of an item's screen (`Screen.shown`) that are read, when they are text
READ_KEYS = ("text", "context", "question", "instruction", "sentence")
_WORD = re.compile(r"\w+")

#: a canary word: consonant-vowel syllables and a closing k, x or z, e.g. "tavorix" (made up, so
#: that no honest answer carries it: English words of this shape end in -ed, -es, -al and the like,
#: not in these letters; pronounceable, so that a model writes it as it is)
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_CLOSING = "kxz"
CANARY_SYLLABLES = 3


def checked(figures: Mapping[str, int | None], *, duration_ms: int) -> dict[str, Any]:
    """The behaviour record to store for an answer whose item was `duration_ms` on the server's
    clock; `figures` already validated one by one (whole numbers within `FIGURES`)."""
    limit = duration_ms + CLOCK_SLACK_MS
    first = figures.get("first_input_ms")
    away = figures.get("hidden_ms") or 0
    if away > limit or (first is not None and first > limit) or (away and not figures.get("hidden")):
        return {"status": INVALID}
    return {"status": RECORDED, **{name: figures.get(name) for name in FIGURES}}


def words(texts: Iterable[str]) -> int:
    return sum(len(_WORD.findall(text)) for text in texts)


def shown_words(shown: Mapping[str, Any], labels: Iterable[str] = ()) -> int:
    """The words a person reads on an item's screen: its texts (`READ_KEYS`) and answer labels."""
    texts = [shown[key] for key in READ_KEYS if isinstance(shown.get(key), str)]
    return words([*texts, *labels])


def reading_floor_ms(word_count: int) -> int:
    return FLOOR_BASE_MS + round(1000 * word_count / FLOOR_WORDS_PER_SECOND)


def canary_word() -> str:
    """A new made-up word, drawn at random (14 x 5 choices per syllable, 3 for the closing letter:
    about a million words), so that one study's word says nothing of another's."""
    syllables = [secrets.choice(_CONSONANTS) + secrets.choice(_VOWELS) for _ in range(CANARY_SYLLABLES)]
    return "".join(syllables) + secrets.choice(_CLOSING)


def carries_canary(answer: str, word: str) -> bool:
    """Whether `answer` holds `word` as a whole word, in any case."""
    return bool(word) and re.search(rf"\b{re.escape(word)}\b", answer, re.IGNORECASE) is not None
