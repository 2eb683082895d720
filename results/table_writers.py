"""The paper tables written out as Markdown and LaTeX (the `study_results` command, the exports)."""

from __future__ import annotations

from typing import Any

from results.tables import Table

#: what a Markdown renderer would read as markup in a text of ours: raw HTML (`<script>`, `<img>`),
#: links and images (`[`, `]`), code spans, a table's cell separator, and the escape itself
_MARKDOWN_ESCAPES = str.maketrans(
    {
        "\\": "\\\\",
        "|": "\\|",
        "[": "\\[",
        "]": "\\]",
        "`": "\\`",
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "\n": " ",
        "\r": " ",
    }
)


def _md_cell(text: str) -> str:
    """A text as Markdown shows it, never as markup: a study's, category's or model's name is
    written by people, and the table is read where Markdown becomes HTML."""
    return str(text).translate(_MARKDOWN_ESCAPES)


def to_markdown(results: dict[str, Any], tables: list[Table]) -> str:
    lines = [f"# {_md_cell(results['study'])} ({_md_cell(results['benchmark'])})", ""]
    for table in tables:
        lines += [
            f"## {_md_cell(table.title)}",
            "",
            "| " + " | ".join(_md_cell(c) for c in table.columns) + " |",
            "|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.columns))) + "|",
        ]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
        lines.append("")
        for note in table.notes:
            lines += [_md_cell(note), ""]
    return "\n".join(lines)


_LATEX = {
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
    "κ": r"$\kappa$",
    "±": r"$\pm$",
    "—": "--",
    "−": "$-$",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX.get(char, char) for char in text)


def to_latex(results: dict[str, Any], tables: list[Table]) -> str:
    """booktabs tables, one `table` environment each."""
    out = [f"% {latex_escape(results['study'])} ({latex_escape(results['benchmark'])}); needs \\usepackage{{booktabs}}"]
    for table in tables:
        out += [
            r"\begin{table}[ht]",
            r"\centering",
            f"\\caption{{{latex_escape(table.title)}}}",
            f"\\label{{tab:{table.key}}}",
            r"\begin{tabular}{l" + "r" * (len(table.columns) - 1) + "}",
            r"\toprule",
            " & ".join(latex_escape(c) for c in table.columns) + r" \\",
            r"\midrule",
        ]
        for index, row in enumerate(table.rows):
            if table.summary_from is not None and index == table.summary_from:
                out.append(r"\midrule")
            out.append(" & ".join(latex_escape(c) for c in row) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}"]
        out += [f"\\par\\footnotesize {latex_escape(note)}" for note in table.notes]
        out += [r"\end{table}", ""]
    return "\n".join(out)
