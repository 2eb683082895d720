"""The report's limitations paragraph and its reporting checklist, in each format.

The limitations are written from the study's own figures (how many people, how wide the human CI,
who they were, how many of the benchmark's items, how many were excluded) and from the checklist
entries the study leaves unanswered, so a reader sees what the comparison cannot claim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from parity.reporting.checklist import CITATION, COMPUTED, SECTIONS, Answer, Status
from results.computing.checklist.answering import DATASET_ITEMS
from results.computing.tree import StudyResults
from results.presenting.report.figures import Part
from results.presenting.table_writers import markdown_text


def limitations(results: StudyResults, checklist: Sequence[Answer]) -> list[Part]:
    """The limitations as sentences, from the results tree and the checklist's answers."""
    human = results.human
    people = "1 person" if human.n_annotators == 1 else f"{human.n_annotators} people"
    sentences = [f"The human baseline rests on {people}."]
    ci = human.accuracy.ci95
    if ci and ci[0] is not None and ci[1] is not None:
        level = f"{results.methods.statistics.ci_level:.0%}"
        sentences.append(
            f"The {level} CI of their mean accuracy is {100 * (ci[1] - ci[0]):.1f} points wide, "
            "so smaller gaps to a model are not resolved."
        )
    platform = results.methods.platform
    population = results.methods.reporting.population
    if platform == "imported":
        sentences.append("Their answers were imported from a published study; Parity did not recruit them.")
    elif platform == "prolific":
        sentences.append(
            "They were Prolific workers who took the study first come first served"
            + (f" ({population})" if population else ", not a sample of a wider population")
            + "."
        )
    elif results.methods.panel:
        sentences.append(
            f"They were recruited through {results.methods.panel}, first come first served"
            + (f" ({population})" if population else ", not a sample of a wider population")
            + "."
        )
    elif population:
        sentences.append(f"The population of interest is {population}.")
    dataset = next((answer for answer in checklist if answer.entry.id == "0.8"), None)
    size = _dataset_items(dataset)
    if dataset is not None and size is not None and human.n_items < size:
        # a claim only where the study's item set (0.8's record) holds items people did not answer
        sentences.append(
            f"People answered {human.n_items} of the dataset's {size} items ({dataset.text}); "
            "the comparison holds for those items."
        )
    excluded = results.methods.participants.excluded
    if excluded:
        sentences.append(
            f"{excluded} of {results.methods.participants.entered} who entered were excluded "
            "(attention checks or the researcher's review); the results leave them out."
        )
    missing = [answer.entry.id for answer in checklist if answer.status is Status.NOT_ANSWERED]
    if missing:
        sentences.append(
            f"{len(missing)} of the reporting checklist's {len(checklist)} entries are not answered "
            f"by the study's records ({', '.join(missing)})."
        )
    return [" ".join(sentences)]


def _dataset_items(dataset: Answer | None) -> int | None:
    """The size of the study's item set 0.8 rests on, where Parity computed it."""
    if dataset is None or dataset.source != COMPUTED:
        return None
    size = dataset.record(DATASET_ITEMS)
    return size if isinstance(size, int) else None


def _rows(checklist: Sequence[Answer], section: str) -> list[Answer]:
    return [answer for answer in checklist if answer.entry.section == section]


def _answer_text(answer: Answer) -> str:
    return answer.shown_text


def markdown_lines(checklist: Sequence[Answer]) -> list[str]:
    if not checklist:
        return []
    lines = ["## Reporting checklist", "", markdown_text(f"The human-baselines reporting checklist ({CITATION})."), ""]
    for section in SECTIONS:
        lines += [f"### {section}", "", "| # | Question | Answer | Source |", "|---|---|---|---|"]
        for answer in _rows(checklist, section):
            cells = (answer.entry.id, answer.entry.question, _answer_text(answer), answer.shown_source)
            lines.append("| " + " | ".join(markdown_text(cell).replace("|", "\\|") for cell in cells) + " |")
        lines.append("")
    return lines


def html_section(checklist: Sequence[Answer]) -> str:
    if not checklist:
        return ""
    parts = ['<section id="checklist"><h2>Reporting checklist</h2>', f"<p>{escape(CITATION)}.</p>"]
    for section in SECTIONS:
        rows = "".join(
            f'<tr data-entry="{escape(answer.entry.id)}" data-status="{escape(str(answer.status))}"'
            f"{' data-contradicted' if answer.contradicting_note else ''}>"
            f"<td>{escape(answer.entry.id)}</td><td>{escape(answer.entry.question)}</td>"
            f"<td>{escape(_answer_text(answer))}</td><td>{escape(answer.shown_source)}</td></tr>"
            for answer in _rows(checklist, section)
        )
        parts.append(
            f"<table><caption>{escape(section)}</caption><thead><tr><th>#</th><th>Question</th>"
            f"<th>Answer</th><th>Source</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    parts.append("</section>")
    return "\n".join(parts)


#: the checklist's columns in LaTeX: p{} columns that wrap, together the text block's width
LATEX_COLUMNS = (
    r"@{}>{\raggedright\arraybackslash}p{0.06\linewidth}>{\raggedright\arraybackslash}p{0.32\linewidth}"
    r">{\raggedright\arraybackslash}p{0.36\linewidth}>{\raggedright\arraybackslash}p{0.18\linewidth}@{}"
)


def latex_lines(checklist: Sequence[Answer], escape_tex: Callable[[str], str]) -> list[str]:
    """One captioned longtable (it breaks across pages, its caption and heading row repeated on each),
    a heading row per section kept with the section's first entry."""
    if not checklist:
        return []
    heading = [r"\toprule", r"\# & Question & Answer & Source \\", r"\midrule"]
    out = [
        r"{\footnotesize",
        rf"\begin{{longtable}}{{{LATEX_COLUMNS}}}",
        # the section's heading is the table's first row: longtable, finding too little room on a page
        # for its first rows, begins on the next page, and left a heading of its own alone at this one's foot
        r"\multicolumn{4}{@{}l}{\normalsize\Large\bfseries Reporting checklist\rule[-1.5ex]{0pt}{0pt}} \\",
        r"\caption{The human-baselines reporting checklist \cite{wei2025baselines}, answered for this study.}"
        r"\label{tab:checklist} \\",
        *heading,
        r"\endfirsthead",
        r"\caption[]{Reporting checklist (continued)} \\",
        *heading,
        r"\endhead",
    ]
    for section in SECTIONS:
        # `\\*`: no page break between a section's heading row and its first entry
        out.append(r"\multicolumn{4}{@{}l}{\textbf{" + escape_tex(section) + r"}} \\*")
        for answer in _rows(checklist, section):
            cells = (answer.entry.id, answer.entry.question, _answer_text(answer), answer.shown_source)
            out.append(" & ".join(escape_tex(cell) for cell in cells) + r" \\")
    # the closing rule kept with the last entry (`\\*`), not a last foot: with one, an entry that
    # fell to a page of its own was set there without the repeated caption and heading
    out[-1] += "*"
    out += [r"\bottomrule", r"\end{longtable}", "}", ""]
    return out


def markdown_references(references: Sequence[str]) -> list[str]:
    if not references:
        return []
    return ["## References", "", "```bibtex", "\n\n".join(references), "```", ""]


def html_references(references: Sequence[str]) -> str:
    if not references:
        return ""
    text = "\n\n".join(references)
    return f'<section id="references"><h2>References</h2><pre>{escape(text)}</pre></section>'
