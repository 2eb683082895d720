"""The report as a LaTeX document that compiles alone with pdflatex and the packages of TeX Live's
latex-base, latex-recommended and pictures collections (Debian's texlive-latex-base,
texlive-latex-recommended, texlive-pictures), without an Overfull \\hbox.

Every text is escaped, and a long word in it may break (a name has no hyphenation pattern). Each
table is set at the widths its cells need, measured here from the characters' widths in Latin Modern:
on the page at \\small or \\footnotesize if it fits, else split on the page into parts that each
repeat the first column, else on a landscape page (split there too if need be); its notes are set
under it at its width. The placement plot is a
TikZ picture whose labels stand in a column of their own, clear of the data.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from results.presenting.report import appendix
from results.presenting.report.build import Report
from results.presenting.report.checklist_section import latex_lines
from results.presenting.report.figures import Figure, Part
from results.presenting.report.plot import tikz
from results.presenting.table_writers import LATEX_SPECIALS
from results.presenting.tables import Table

# -- characters ---------------------------------------------------------------------------------

_MATH = r"\ensuremath{%s}"
#: characters written as LaTeX writes them (math symbols by \ensuremath, so two never make `$$`)
_CHARS = {
    **LATEX_SPECIALS,
    # a row's `\\` would read a cell that starts with "[" as its optional argument
    "[": "{[}",
    "]": "{]}",
    "£": r"\pounds{}",
    "–": "--",
    "—": "--",
    "−": _MATH % "-",
    "±": _MATH % r"\pm",
    "≥": _MATH % r"\geq",
    "≤": _MATH % r"\leq",
    "·": _MATH % r"\cdot",
    "×": _MATH % r"\times",
    "…": r"\ldots{}",
    "²": r"\textsuperscript{2}",
    "`": r"\textasciigrave{}",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "†": r"\textdagger{}",
    "‡": r"\textdaggerdbl{}",
    "•": r"\textbullet{}",
    "€": r"\texteuro{}",
    "‰": r"\textperthousand{}",
    "™": r"\texttrademark{}",
    "→": _MATH % r"\rightarrow",
    "≈": _MATH % r"\approx",
    "≠": _MATH % r"\neq",
    "∞": _MATH % r"\infty",
    "ł": r"\l{}",
    "Ł": r"\L{}",
    "đ": r"\dj{}",
    "Đ": r"\DJ{}",
    "ı": r"\i{}",
    "ŋ": r"\ng{}",
    "Ŋ": r"\NG{}",
    "œ": r"\oe{}",
    "Œ": r"\OE{}",
}
#: Latin letters with diacritics beyond Latin-1: the base letter under LaTeX's accent commands
_ACCENTS = {
    "\u0300": "`",
    "\u0301": "'",
    "\u0302": "^",
    "\u0303": "~",
    "\u0304": "=",
    "\u0306": "u",
    "\u0307": ".",
    "\u0308": '"',
    "\u030a": "r",
    "\u030b": "H",
    "\u030c": "v",
    "\u0323": "d",
    "\u0327": "c",
    "\u0328": "k",
    "\u0331": "b",
}
#: Greek letters by their Unicode names: math symbols, or the Latin letter a capital looks like
_GREEK = {
    name: f"\\{name.lower()}" if name.lower() != "omicron" else "o"
    for name in (
        "ALPHA BETA GAMMA DELTA EPSILON ZETA ETA THETA IOTA KAPPA LAMDA MU NU XI OMICRON PI RHO SIGMA TAU "
        "UPSILON PHI CHI PSI OMEGA"
    ).split()
} | {"LAMDA": r"\lambda", "FINAL SIGMA": r"\varsigma"}
_GREEK_CAPITALS = dict(zip("ALPHA BETA EPSILON ZETA ETA IOTA KAPPA MU NU OMICRON RHO TAU CHI".split(), "ABEZHIKMNOPTX"))
#: Cyrillic transliterated (pdflatex's T1 fonts have no Cyrillic letters)
_CYRILLIC = dict(
    zip(
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґў",
        "a b v g d e ë zh z i j k l m n o p r s t u f kh ts ch sh shch '' y ' è yu ya i ï ye g w".split(),
    )
)
CODE_POINT = r"\texttt{<U+%04X>}"
#: a word longer than this may break after punctuation, and after every BREAK_EVERY characters
LONG_WORD, BREAK_EVERY = 20, 12
_BREAK_AFTER = set("/-_.:,;)]|@")


def _greek(char: str) -> str | None:
    name = unicodedata.name(char, "")
    if not name.startswith("GREEK") or " LETTER " not in name:
        return None
    letter = name.split(" LETTER ", 1)[1].split(" WITH ")[0]
    if letter not in _GREEK:
        return None
    if "CAPITAL" in name:
        return _GREEK_CAPITALS.get(letter) or _MATH % ("\\" + _GREEK[letter][1:].capitalize())
    return _MATH % _GREEK[letter] if _GREEK[letter].startswith("\\") else _GREEK[letter]


def _char(char: str, substituted: set[str]) -> str:
    """One character as LaTeX typesets it; what pdflatex cannot typeset is substituted (and
    `substituted` says how, for the document's note)."""
    if char in _CHARS:
        return _CHARS[char]
    if char in "\t\n\r\f\v":
        return " "
    category = unicodedata.category(char)
    if category in {"Cc", "Cf", "Mn", "Me"}:
        return ""  # controls, joiners, variation selectors and lone combining marks typeset nothing
    if ord(char) < 256:
        return char
    greek = _greek(char)
    if greek is not None:
        return greek
    cyrillic = _CYRILLIC.get(char.lower())
    if cyrillic is not None:
        substituted.add("transliterated")
        return cyrillic.capitalize() if char.isupper() else cyrillic
    decomposed = unicodedata.normalize("NFD", char)
    base, marks = decomposed[0], list(decomposed[1:])
    if marks and all(mark in _ACCENTS for mark in marks) and (ord(base) < 256 and base.isalpha() or base in _CHARS):
        out = _CHARS.get(base, base)
        # the accents above first: TeX sets an accent above a letter, not above a letter with a
        # dot or cedilla below it (\\^{\\d{e}} would print the circumflex beside)
        for mark in sorted(marks, key=lambda mark: _ACCENTS[mark] in "dckb"):
            out = f"\\{_ACCENTS[mark]}{{{out}}}"
        return out
    substituted.add("code points")
    return CODE_POINT % ord(char) + r"\allowbreak{}"


def tex(text: str, substituted: set[str] | None = None) -> str:
    """A text as LaTeX typesets it: special characters escaped, Greek letters as math symbols,
    Latin letters with diacritics by LaTeX's accents, Cyrillic transliterated, any other character
    pdflatex cannot typeset as its code point (`<U+4E2D>`); a word longer than LONG_WORD may break
    after punctuation and every BREAK_EVERY characters (the document must compile, and stay inside
    its margins, whatever a study or model is named)."""
    seen = set() if substituted is None else substituted
    out = []
    for word in str(text).replace("\r", " ").replace("\n", " ").split(" "):
        if len(word) <= LONG_WORD:
            out.append("".join(_char(char, seen) for char in word))
            continue
        pieces, run = [], 0
        for index, char in enumerate(word):
            pieces.append(_char(char, seen))
            run += 1
            if index < len(word) - 1 and (char in _BREAK_AFTER or run >= BREAK_EVERY):
                pieces.append(r"\allowbreak{}")
                run = 0
        out.append("".join(pieces))
    return " ".join(out)


def paragraph(parts: list[Part], escape: Callable[[str], str] = tex) -> str:
    return "".join(escape(part.text if isinstance(part, Figure) else part) for part in parts).strip()


# -- widths -------------------------------------------------------------------------------------

#: widths in ems of Latin Modern Roman at 10pt (a character not listed: LOWER, or UPPER for a capital)
_EM = (
    dict.fromkeys("0123456789", 0.5)
    | dict.fromkeys(" ", 0.333)
    | dict.fromkeys(".,:;'!|ijl[]`", 0.278)
    | dict.fromkeys("()ftr-", 0.39)
    | dict.fromkeys("%mMW—", 0.9)
    | dict.fromkeys("w", 0.722)
    | dict.fromkeys("+−=<>±×≥≤κ", 0.778)
    | dict.fromkeys("sz", 0.45)
)
LOWER, UPPER, OTHER = 0.556, 0.75, 4.5
#: the width of an em at each size a table may take, in points (smaller sizes are drawn wider)
SIZES = {"small": 9.25, "footnotesize": 8.5}
#: the text block (A4, 2.5 cm margins), portrait and landscape, in points
PORTRAIT, LANDSCAPE = 455.0, 702.0
#: the space either side of a column, in points
COLUMN_SEP = 4.0
#: a margin kept for the estimate's errors
SAFETY = 1.06


def _em(char: str) -> float:
    if char in _EM:
        return _EM[char]
    if ord(char) > 255 and char not in _CHARS and _greek(char) is None:
        cyrillic = _CYRILLIC.get(char.lower())
        return LOWER * len(cyrillic) if cyrillic else OTHER
    return UPPER if char.isupper() else LOWER


def width(text: str, size: str) -> float:
    """An estimate, in points and on the generous side, of `text` set on one line at `size`."""
    return sum(_em(char) for char in str(text)) * SIZES[size] * SAFETY


def _longest_piece(text: str, size: str) -> float:
    """The widest part of `text` that cannot break: a word, a long word's piece, or a character
    written as its code point (`tex` lets a line break after each)."""
    pieces = [""]
    for word in str(text).split():
        step = BREAK_EVERY if len(word) > LONG_WORD else len(word)
        for start in range(0, len(word), step):
            pieces.append("")
            for char in word[start : start + step]:
                if _em(char) == OTHER:
                    pieces += [char, ""]
                else:
                    pieces[-1] += char
    return max(width(piece, size) for piece in pieces)


def _numeric(cell: str) -> bool:
    return not cell or cell[0] in "0123456789+-−—–<>[(.±"


@dataclass(frozen=True)
class Layout:
    """How one table is set: its size, its page, its columns' widths, and the parts its columns
    are split into (each repeats the first column)."""

    size: str
    landscape: bool
    widths: list[float]
    parts: list[list[int]]

    def total(self, columns: list[int]) -> float:
        return sum(self.widths[c] for c in columns) + 2 * COLUMN_SEP * (len(columns) - 1)


def _number_width(cell: str, size: str, wrap: bool) -> float:
    """A figure's cell on one line, or with `wrap` its bracketed count or remark on a line of its own
    ("100.0% (T3 only)"); a CI ("[85.5, 92.6]") never breaks."""
    if not wrap:
        return width(cell, size)
    return max(width(piece, size) for piece in re.split(r" (?=\()", cell))


def _widths(table: Table, size: str, line: float, header_lines: int, wrap: bool = False) -> list[float]:
    out = []
    for column, header in enumerate(table.columns):
        cells = [row[column] for row in table.rows]
        header_min = max(_longest_piece(header, size), width(header, size) / header_lines)
        if column and all(_numeric(cell) for cell in cells):
            out.append(max([header_min, *(_number_width(cell, size, wrap) for cell in cells)]))
            continue
        # a text column wraps: at most to a third of the line for the first (a model's label), a
        # quarter for another; with `wrap`, to half that
        natural = max([header_min, *(width(cell, size) for cell in cells)])
        floor = max([header_min if header_lines > 1 else 0.0, *(_longest_piece(cell, size) for cell in cells)])
        cap = line / (3 if column == 0 else 4) / (2 if wrap else 1)
        out.append(max(floor, min(natural, cap)))
    return out


def _split(fitted: Layout, line: float) -> list[list[int]]:
    """The columns in parts that each repeat the first column, filled in order up to `line` (a part
    of the first column and one other may still be wider)."""
    parts: list[list[int]] = [[0]]
    for column in range(1, len(fitted.widths)):
        if fitted.total([*parts[-1], column]) > line and len(parts[-1]) > 1:
            parts.append([0])
        parts[-1].append(column)
    return parts


#: the most parts a table is split into on the page: more repeat the first column too often to read
PORTRAIT_PARTS = 3


def layout(table: Table) -> Layout:
    """The first that fits of: the page at \\small, at \\footnotesize (each with the headers on one
    line, else on up to three, else with a figure's bracketed remark on a line of its own and the text
    columns narrower); then the columns split into at most PORTRAIT_PARTS parts on the page, each
    repeating the first column, at \\small, else at \\footnotesize, in as few parts as may be; last, a
    landscape page, split as needed. The page comes before a landscape one: a landscape page ends the
    page before it and begins the page after it, and both were left part empty."""
    everything = list(range(len(table.columns)))
    compact = ((1, False), (2, False), (3, False), (3, True))
    for size in ("small", "footnotesize"):
        for header_lines, wrap in compact:
            fitted = Layout(size, False, _widths(table, size, PORTRAIT, header_lines, wrap), [everything])
            if fitted.total(everything) <= PORTRAIT:
                return fitted
    for landscape, size in ((False, "small"), (False, "footnotesize"), (True, "small"), (True, "footnotesize")):
        line = LANDSCAPE if landscape else PORTRAIT
        candidates = []
        for header_lines, wrap in compact:
            fitted = Layout(size, landscape, _widths(table, size, line, header_lines, wrap), [everything])
            parts = _split(fitted, line)
            if all(fitted.total(part) <= line for part in parts):
                candidates.append(Layout(size, landscape, fitted.widths, parts))
        best = min(candidates, key=lambda candidate: len(candidate.parts), default=None)
        if best is not None and (landscape or len(best.parts) <= PORTRAIT_PARTS):
            return best
    return Layout(fitted.size, True, fitted.widths, _split(fitted, LANDSCAPE))


# -- tables -------------------------------------------------------------------------------------


def _table(table: Table, escape: Callable[[str], str]) -> list[str]:
    """The table as a longtable, one per part: it stays where it is written, in its section, and a
    table taller than what is left of a page breaks there, its caption and heading row repeated, rather
    than move whole to the next page and leave this one part empty. A part after the first keeps the
    first's number."""
    fitted = layout(table)
    out = [r"\begin{landscape}"] if fitted.landscape else []
    for number, columns in enumerate(fitted.parts):
        spec = "".join(
            (
                r">{\raggedright\arraybackslash}"
                if column == 0 or not all(_numeric(row[column]) for row in table.rows)
                else r">{\raggedleft\arraybackslash}"
            )
            + f"p{{{fitted.widths[column]:.1f}pt}}"
            for column in columns
        )
        title = escape(table.title) + (" (continued)" if number else "")
        heading = [r"\toprule", " & ".join(escape(table.columns[c]) for c in columns) + r" \\", r"\midrule"]
        out += [
            *([r"\addtocounter{table}{-1}"] if number else []),
            f"{{\\{fitted.size}",
            f"\\setlength{{\\tabcolsep}}{{{COLUMN_SEP:.0f}pt}}",
            f"\\begin{{longtable}}{{@{{}}{spec}@{{}}}}",
            f"\\caption{{{title}}}" + (f"\\label{{tab:{table.key}}}" if not number else "") + r" \\",
            *heading,
            r"\endfirsthead",
            f"\\caption[]{{{escape(table.title)} (continued)}} \\\\",
            *heading,
            r"\endhead",
            r"\bottomrule",
            # the notes under the table, at its width: the last foot, so never on a page of their own
            *(_notes(table, fitted.total(columns), len(columns), escape) if number == len(fitted.parts) - 1 else []),
            r"\endlastfoot",
        ]
        for index, row in enumerate(table.rows):
            if table.summary_from is not None and index == table.summary_from:
                out.append(r"\midrule")
            out.append(" & ".join(escape(row[c]) for c in columns) + r" \\")
        out += [r"\end{longtable}", "}"]
    if fitted.landscape:
        out.append(r"\end{landscape}")
    return [*out, ""]


def _notes(table: Table, width: float, columns: int, escape: Callable[[str], str]) -> list[str]:
    """The table's notes as one cell across its columns (no wider than they are, or the table would
    widen), in \\footnotesize, a strut's height below the rule."""
    if not table.notes:
        return []
    spec = f"@{{}}>{{\\footnotesize\\raggedright\\arraybackslash}}p{{{width:.1f}pt}}@{{}}"
    said = "\\par\\smallskip ".join(escape(note) for note in table.notes)
    return [f"\\multicolumn{{{columns}}}{{{spec}}}{{\\rule{{0pt}}{{3ex}}{said}}} \\\\"]


# -- the document -------------------------------------------------------------------------------

PREAMBLE = [
    r"\documentclass[a4paper]{article}",
    r"\usepackage[T1]{fontenc}",
    r"\usepackage[utf8]{inputenc}",
    r"\usepackage{lmodern}",
    r"\usepackage{textcomp}",
    r"\usepackage[margin=2.5cm]{geometry}",
    r"\usepackage{microtype}",
    r"\usepackage{array}",
    r"\usepackage{booktabs}",
    r"\usepackage{longtable}",
    r"\usepackage{float}",
    r"\usepackage[font=small,labelfont=bf]{caption}",
    r"\usepackage{pdflscape}",
    r"\usepackage{tikz}",
    r"\usepackage{graphicx}",
    # a paragraph with a name that breaks badly stretches its spaces rather than run into the margin
    r"\setlength{\emergencystretch}{3em}",
    # tables share a page with text and with each other rather than each take a page of its own
    r"\renewcommand{\topfraction}{0.9}",
    r"\renewcommand{\bottomfraction}{0.8}",
    r"\renewcommand{\textfraction}{0.07}",
    r"\renewcommand{\floatpagefraction}{0.7}",
    r"\setcounter{topnumber}{4}",
    r"\setcounter{bottomnumber}{4}",
    r"\setcounter{totalnumber}{8}",
]
#: how characters pdflatex cannot typeset were written, for the note under the title
SUBSTITUTIONS = {
    "transliterated": "Cyrillic letters are transliterated",
    "code points": "other characters pdflatex cannot typeset are written as their Unicode code points (<U+...>)",
}


def _bibliography(references: tuple[str, ...]) -> list[str]:
    """The references for BibTeX: references.bib written beside the .tex by LaTeX's own
    filecontents (so the file alone compiles, with pdflatex, bibtex, pdflatex, pdflatex), and the
    same file the replication bundle ships beside its report.tex."""
    if not references:
        return []
    return [r"\begin{filecontents*}[overwrite]{references.bib}", "\n\n".join(references), r"\end{filecontents*}"]


def write(report: Report) -> str:
    substituted: set[str] = set()
    escape = partial(tex, substituted=substituted)
    body = [r"\section*{Methods}"]
    for heading, parts in report.method_sections:
        body += [f"\\subsection*{{{escape(heading)}}}", paragraph(parts, escape), ""]
    body += appendix.latex_lines(report.materials, escape)
    body += [r"\section*{Results}", paragraph(report.findings, escape), ""]
    if report.placement is not None:
        body += [
            r"\begin{figure}[H]",
            r"\centering",
            tikz(report.placement, escape),
            r"\caption{People's abilities (dots) and each model's, with its 95\% CI, on one scale.}",
            r"\label{fig:placement}",
            r"\end{figure}",
            "",
        ]
    for table in [*report.tables, *report.tests]:
        body += _table(table, escape)
    body += [r"\section*{Limitations}", paragraph(report.limitations, escape), ""]
    body += latex_lines(report.checklist, escape)
    if report.references:
        keys = ",".join(re.findall(r"^@\w+\{([^,]+),", "\n".join(report.references), re.M))
        body += [f"\\nocite{{{keys}}}", r"\bibliographystyle{plain}", r"\bibliography{references}", ""]
    title = escape(report.title)
    note = []
    if substituted:
        said = [SUBSTITUTIONS[kind] for kind in sorted(substituted, reverse=True)]
        sentence = "; ".join(said)
        note = [r"\noindent{\footnotesize " + tex(f"In names, {sentence}.") + "}", ""]
    out = [*PREAMBLE, *_bibliography(report.references), f"\\title{{{title}}}", r"\date{}", r"\begin{document}"]
    out += [r"\maketitle", *note, *body, r"\end{document}"]
    return "\n".join(out) + "\n"
