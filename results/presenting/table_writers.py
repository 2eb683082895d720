"""The paper tables written out as Markdown and LaTeX (the `study_results` command, the exports)."""

from __future__ import annotations

from parity import markdown
from results.computing.tree import StudyResults
from results.presenting.tables import Table


def markdown_text(text: str) -> str:
    """A text as Markdown shows it, never as markup: a study's, category's or model's name is
    written by people, and the table is read where Markdown becomes HTML (`parity.markdown`)."""
    return markdown.text(text)


def markdown_table(table: Table, *, level: int = 2) -> list[str]:
    """One table under its title (a heading of `level`), then its notes."""
    lines = [
        f"{'#' * level} {markdown_text(table.title)}",
        "",
        markdown.row(*table.columns),
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.columns))) + "|",
    ]
    lines += [markdown.row(*row) for row in table.rows]
    lines.append("")
    for note in table.notes:
        lines += [markdown_text(note), ""]
    return lines


def to_markdown(results: StudyResults, tables: list[Table]) -> str:
    lines = [f"# {markdown_text(results.study)} ({markdown_text(results.benchmark)})", ""]
    for table in tables:
        lines += markdown_table(table)
    return "\n".join(lines)


#: the characters LaTeX reads as its own, written as text
LATEX_SPECIALS = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}
_LATEX = {
    **LATEX_SPECIALS,
    "κ": r"$\kappa$",
    "±": r"$\pm$",
    "—": "--",
    "−": "$-$",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX.get(char, char) for char in text)


def latex_table(table: Table) -> list[str]:
    """One booktabs table in a `table` environment."""
    escape = latex_escape
    tabular = [
        r"\begin{tabular}{l" + "r" * (len(table.columns) - 1) + "}",
        r"\toprule",
        " & ".join(escape(c) for c in table.columns) + r" \\",
        r"\midrule",
    ]
    for index, row in enumerate(table.rows):
        if table.summary_from is not None and index == table.summary_from:
            tabular.append(r"\midrule")
        tabular.append(" & ".join(escape(c) for c in row) + r" \\")
    tabular += [r"\bottomrule", r"\end{tabular}"]
    return [
        r"\begin{table}[ht]",
        r"\centering",
        f"\\caption{{{escape(table.title)}}}",
        f"\\label{{tab:{table.key}}}",
        *tabular,
        *[f"\\par\\footnotesize {escape(note)}" for note in table.notes],
        r"\end{table}",
        "",
    ]


def to_latex(results: StudyResults, tables: list[Table]) -> str:
    """booktabs tables, one `table` environment each."""
    out = [f"% {latex_escape(results.study)} ({latex_escape(results.benchmark)}); needs \\usepackage{{booktabs}}"]
    for table in tables:
        out += latex_table(table)
    return "\n".join(out)
