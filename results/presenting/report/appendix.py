"""The report's materials, in each format: the consent form and the instructions verbatim, and the
item page's screenshot (or the one sentence that says there is none), after the methods
(`results.presenting.report.materials.appendix` says what each part holds)."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape as html_escape

from results.presenting.report.materials import NO_SHOT, SCREENSHOT, SHOT_SAID, Materials, appendix
from results.presenting.table_writers import markdown_text

HEADING = "Materials"


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def latex_lines(materials: Materials | None, escape: Callable[[str], str]) -> list[str]:
    """Subsections of the methods: each text in a quote, its lines kept (a blank line a new
    paragraph), every character escaped; the screenshot included where `SCREENSHOT` lies beside the
    .tex when it is compiled, else the sentence that says there is none."""
    if materials is None:
        return []
    out = []
    for part in appendix(materials):
        out += [f"\\subsection*{{{escape(part.heading)}}}"]
        if part.heading == "Interface" and not materials.imported:
            out += [
                f"\\IfFileExists{{{SCREENSHOT}}}{{",
                r"\begin{figure}[H]",
                r"\centering",
                f"\\includegraphics[width=\\linewidth,height=0.55\\textheight,keepaspectratio]{{{SCREENSHOT}}}",
                f"\\caption{{{escape(SHOT_SAID)}}}",
                r"\label{fig:interface}",
                r"\end{figure}",
                f"}}{{{escape(NO_SHOT)}}}",
                "",
            ]
            continue
        out += [escape(part.said), ""]
        if part.verbatim.strip():
            out += [r"\begin{quote}", r"\small", *_latex_verbatim(part.verbatim, escape), r"\end{quote}", ""]
    return out


def _latex_verbatim(text: str, escape: Callable[[str], str]) -> list[str]:
    """The text's lines, each ended by `\\\\` within its paragraph (never first in one, where LaTeX
    would find no line to end), a blank line between paragraphs."""
    paragraphs: list[list[str]] = [[]]
    for line in _lines(text):
        written = escape(line).strip()
        if written:
            paragraphs[-1].append(written)
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join("\\\\\n".join(lines) for lines in paragraphs if lines).split("\n")


def markdown_lines(materials: Materials | None) -> list[str]:
    """Headed parts of the methods, each text in a fence longer than any run of backticks in it."""
    if materials is None:
        return []
    out = [f"### {HEADING}", ""]
    for part in appendix(materials):
        out += [f"#### {part.heading}", ""]
        if part.heading == "Interface" and materials.screenshot:
            out += [markdown_text(SHOT_SAID), "", f"![{markdown_text(SHOT_SAID)}]({SCREENSHOT})", ""]
            continue
        out += [markdown_text(part.said), ""]
        if part.verbatim.strip():
            fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", part.verbatim)), default=0))
            out += [f"{fence}text", *_lines(part.verbatim.strip("\n")), fence, ""]
    return out


def html_lines(materials: Materials | None) -> list[str]:
    """A section after the methods: each text as written, its lines kept."""
    if materials is None:
        return []
    out = [f'<section id="materials"><h2>{HEADING}</h2>']
    for part in appendix(materials):
        out.append(f"<h3>{html_escape(part.heading)}</h3>")
        if part.heading == "Interface" and materials.screenshot:
            out += [
                '<figure id="interface">',
                f'<img src="{SCREENSHOT}" alt="{html_escape(SHOT_SAID)}" style="max-width:100%">',
                f"<figcaption>{html_escape(SHOT_SAID)}</figcaption></figure>",
            ]
            continue
        out.append(f"<p>{html_escape(part.said)}</p>")
        if part.verbatim.strip():
            text = "\n".join(_lines(part.verbatim)).strip()
            out.append(f'<blockquote class="verbatim">{html_escape(text)}</blockquote>')
    return [*out, "</section>"]
