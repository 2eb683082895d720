"""A LaTeX document's structure, checked without TeX: what pdflatex would stop at.

A document that begins and ends as one; environments closed in order; braces balanced; no special
character unescaped in text (`%` would comment out the rest of a line, `#`, `_`, a lone `$`, and `&`
outside a table); every table row with as many cells as its column spec (array's `p{..}`, `>{..}`
and `@{..}` understood); only Latin-1 characters (what `inputenc` with `utf8` and T1 fonts typeset
without more packages).
"""

from __future__ import annotations

import re

_ESCAPED = re.compile(r"\\([^A-Za-z])")
_ENVIRONMENT = re.compile(r"\\(begin|end)\{([^}]*)\}")
_TABULAR = re.compile(r"\\begin\{(?:tabular|longtable)\}(.*?)\\end\{(?:tabular|longtable)\}", re.S)
_MULTICOLUMN = re.compile(r"\\multicolumn\{(\d+)\}")
#: a row's end in the masked text
ROW_END = "\x00"


def _mask(document: str) -> str:
    """Escaped characters out of the way: `\\\\` (a row's end) becomes ROW_END, `\\&` and the like
    two spaces; labels (which may hold `_`) emptied."""
    document = re.sub(r"\\label\{[^}]*\}", "", document)
    return _ESCAPED.sub(lambda m: ROW_END if m.group(1) == "\\" else "  ", document)


def _environments(document: str) -> None:
    stack: list[str] = []
    for kind, name in _ENVIRONMENT.findall(document):
        if kind == "begin":
            stack.append(name)
        else:
            assert stack and stack[-1] == name, f"\\end{{{name}}} closes {stack[-1:] or 'nothing'}"
            stack.pop()
    assert not stack, f"never closed: {stack}"


def _braces(masked: str) -> None:
    depth = 0
    for line_number, line in enumerate(masked.splitlines(), start=1):
        for char in line:
            depth += {"{": 1, "}": -1}.get(char, 0)
            assert depth >= 0, f"line {line_number}: a closing brace with none open"
    assert depth == 0, f"{depth} braces never closed"


def _specials(masked: str) -> None:
    outside_tables = _TABULAR.sub("", masked)
    for line_number, line in enumerate(outside_tables.splitlines(), start=1):
        for char in "%#_&":
            assert char not in line, f"line {line_number}: an unescaped {char!r} in {line!r}"
    for line_number, line in enumerate(masked.splitlines(), start=1):
        assert line.count("$") % 2 == 0, f"line {line_number}: a lone '$' in {line!r}"
        for char in "%#_":
            assert char not in line, f"line {line_number}: an unescaped {char!r} in {line!r}"


def _group(text: str) -> tuple[str, str]:
    """A brace group at the start of `text` (balanced) and what follows it."""
    assert text.startswith("{"), f"no brace group at {text[:40]!r}"
    depth = 0
    for index, char in enumerate(text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return text[1:index], text[index + 1 :]
    raise AssertionError(f"a brace group never closed: {text[:40]!r}")


def _columns(spec: str) -> int:
    """The columns of a tabular's spec: `l`, `r`, `c`, `p{..}`, with `>{..}`, `<{..}` and `@{..}`
    (array's code before and after a column, and a column's separator) left out."""
    count = 0
    while spec:
        char, spec = spec[0], spec[1:]
        if char in "><@":
            _, spec = _group(spec)
        elif char in "pmb":
            _, spec = _group(spec)
            count += 1
        elif char in "lrc":
            count += 1
    return count


def _tables(masked: str) -> None:
    for tabular in _TABULAR.findall(masked):
        spec, body = _group(tabular)
        columns = _columns(spec)
        for row in body.split(ROW_END):
            # longtable's head and foot markers and a row's `*` (no page break after it) are no cells
            cells = re.sub(r"\\(toprule|midrule|bottomrule|endfirsthead|endhead|endlastfoot)", "", row)
            cells = cells.strip().removeprefix("*").strip()
            if cells and not cells.startswith("\\caption"):  # a longtable's caption spans the table
                spanned = sum(int(n) - 1 for n in _MULTICOLUMN.findall(cells))
                assert cells.count("&") + spanned == columns - 1, f"{columns} columns, but the row {cells!r}"


_FILECONTENTS = re.compile(r"\\begin\{filecontents\*\}.*?\\end\{filecontents\*\}", re.S)


def check_latex(document: str) -> None:
    """Raises AssertionError naming what would not compile (a filecontents file, the references'
    BibTeX, is written out verbatim: it is not checked as LaTeX)."""
    document = _FILECONTENTS.sub("", document)
    assert document.startswith("\\documentclass"), "the document does not begin with \\documentclass"
    assert document.count("\\begin{document}") == 1, "not one \\begin{document}"
    assert document.rstrip().endswith("\\end{document}"), "the document does not end with \\end{document}"
    outside = sorted({char for char in document if ord(char) > 255})
    assert not outside, f"characters pdflatex cannot typeset here: {outside}"
    _environments(document)
    masked = _mask(document)
    _braces(masked)
    _specials(masked)
    _tables(masked)
