"""Reading implicature's labels and exchanges as the authors do: the published yes/no parser, the
text kept from a cell, the content key of an exchange."""

from __future__ import annotations

from ..rows import content_key

#: the registry key
NAME = "implicature"


def parse_label(text: str) -> str | None:
    """The published rule: 'yes' in the first 5 lower-cased chars, else 'no' in the first 4."""
    lowered = text.strip().lower()
    if "yes" in lowered[:5]:
        return "yes"
    if "no" in lowered[:4]:
        return "no"
    return None


def clean_text(text: str) -> str:
    """An utterance or response as the authors' loader keeps it, byte for byte: only "\n" is
    stripped from the ends (`_process_text` in do-pigs-fly's src/dataset.py); spaces stay, and so
    does every "\r" their reader (`open(path, newline="")`, the csv module) keeps: a cell ending in
    a Windows line break ends in "\r", one with a line break inside keeps "\r\n". The model reads
    these bytes in the authors' prompts, so Parity's prompts carry them too."""
    return text.strip("\n")


def shown_text(text: str) -> str:
    """An utterance or response as a participant reads it: a Windows line break is a line break,
    and one at an end (which would put the closing quote on a line of its own) is dropped. A
    model's prompt keeps the authors' bytes (`clean_text`)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")


def type_label_key(utterance: str) -> str:
    """A type_labels.csv utterance as the authors key it: `type_label_analysis` (do-pigs-fly,
    src/error_analysis.py) reads the file in Python's universal-newline mode, which turns every
    "\r\n" and lone "\r" into "\n", then drops any "\r"; nothing is stripped, so a cell that ends
    in a line break keeps it and matches no test utterance."""
    return utterance.replace("\r\n", "\n").replace("\r", "\n")


def item_type_key(utterance: str) -> str:
    """A test utterance as the same analysis keys it: the loader's text (line breaks stripped from
    the ends, a Windows "\r" kept), with every "\r" then dropped."""
    return utterance.strip("\n").replace("\r", "")


def item_key(split: str, utterance: str, response: str) -> str:
    """An implicature is its exchange: the key hashes utterance and response (not the label, which a
    corrected file may change), so a row inserted above it does not give it another item's key."""
    return f"{split}-{content_key(utterance, response)}"
