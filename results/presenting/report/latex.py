"""The report as a LaTeX document that compiles alone (article, booktabs, graphicx, tikz): every
text escaped, wide tables scaled to the line, the placement plot a plain TikZ picture."""

from __future__ import annotations

from results.presenting.report.build import Report
from results.presenting.report.figures import Figure, Part
from results.presenting.report.plot import tikz
from results.presenting.table_writers import latex_escape, latex_table

#: characters the tables' escape leaves alone that pdflatex with T1 and utf8 cannot typeset
_MORE = {
    "£": r"\pounds{}",
    "–": "--",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "·": r"$\cdot$",
    "×": r"$\times$",
    "…": r"\ldots{}",
    "α": r"$\alpha$",
    "χ": r"$\chi$",
    "²": r"\textsuperscript{2}",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    # a row's `\\` would read a cell that starts with "[" as its optional argument
    "[": "{[}",
    "]": "{]}",
}
#: a wider table is scaled to the line
FIT_COLUMNS = 6


def tex(text: str) -> str:
    """A text as LaTeX typesets it: special characters escaped; a character outside Latin-1 that
    is not mapped above becomes '?' (the document must compile whatever a study or model is named)."""
    out = []
    for char in str(text):
        if char in _MORE:
            out.append(_MORE[char])
            continue
        escaped = latex_escape(char)
        out.append(escaped if escaped != char or ord(char) < 256 else "?")
    return "".join(out)


def paragraph(parts: list[Part]) -> str:
    return "".join(tex(part.text if isinstance(part, Figure) else part) for part in parts).strip()


def write(report: Report) -> str:
    out = [
        r"\documentclass{article}",
        r"\usepackage[T1]{fontenc}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage{textcomp}",
        r"\usepackage{booktabs}",
        r"\usepackage{graphicx}",
        r"\usepackage{tikz}",
        f"\\title{{{tex(report.title)}}}",
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        r"\section*{Methods}",
    ]
    for parts in report.methods:
        out += [paragraph(parts), ""]
    out += [r"\section*{Results}", paragraph(report.findings), ""]
    if report.placement is not None:
        out += [
            r"\begin{figure}[ht]",
            r"\centering",
            tikz(report.placement, tex),
            r"\caption{People's abilities (dots) and each model's, with its 95\% CI, on one scale.}",
            r"\label{fig:placement}",
            r"\end{figure}",
            "",
        ]
    for table in [*report.tables, *report.tests]:
        out += latex_table(table, tex, fit=len(table.columns) > FIT_COLUMNS)
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"
