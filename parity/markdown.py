"""Writing Markdown that Parity produces (the preregistration, the reporting checklist, the report,
the paper tables): every text that came from a person (a study's name, hypotheses, an ethics body, a
category, a model's name, an exclusion's reason) is written as text, never as markup, because these
files are read where Markdown becomes HTML (OSF, GitHub, a journal's system). Parity's own markup (a
code span around a hash, emphasis on a label) is built with `code` and `Markdown` and left as it is.
"""

from __future__ import annotations

import re

#: what a Markdown renderer would read as markup in a person's text: raw HTML (`<script>`, `<img>`),
#: links and images (`[`, `]`), code spans, a table's cell separator, entities, and the escape itself
#: (CommonMark takes a backslash before any ASCII punctuation as that character)
_ESCAPES = str.maketrans(
    {
        "\\": "\\\\",
        "|": "\\|",
        "[": "\\[",
        "]": "\\]",
        "`": "\\`",
        "&": "\\&",
        "<": "\\<",
        ">": "\\>",
        "\n": " ",
        "\r": " ",
    }
)


class Markdown(str):
    """Markdown written by Parity (`code`, a label in bold): `text` leaves it as it is."""


def text(value: object) -> str:
    """A value as Markdown shows it, on one line; Parity's own `Markdown` as it is."""
    if isinstance(value, Markdown):
        return value
    return str("" if value is None else value).translate(_ESCAPES)


def cell(value: object) -> str:
    """A table cell: `text`, whose `|` never ends the cell and whose newline never ends the row (a
    table row is split at every unescaped `|`, one inside Parity's code span included)."""
    return value.replace("|", "\\|") if isinstance(value, Markdown) else text(value)


def row(*cells: object) -> str:
    """A table row of `cell`s."""
    return "| " + " | ".join(cell(value) for value in cells) + " |"


def block(value: object) -> list[str]:
    """A person's paragraphs (hypotheses, notes), each line written as text, the line breaks kept."""
    return [str(line).translate(_ESCAPES) for line in str(value or "").strip().splitlines()]


def code(value: object) -> Markdown:
    """A code span of `value` (a hash, a JSON setting): a backtick inside cannot close it, as its
    fence is longer than any run of backticks in it; inside a code span nothing is markup."""
    content = " ".join(str("" if value is None else value).splitlines())
    longest = max((len(run) for run in re.findall("`+", content)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {content} " if content.startswith("`") or content.endswith("`") else content
    return Markdown(f"{fence}{padded}{fence}")
