"""The BibTeX a study's report cites: Parity itself, the reporting checklist, and the paper of the
study's benchmark (kept in the benchmark's own package, `parity/benchmarks/<name>/citation.py`)."""

from __future__ import annotations

from parity.benchmarks.ambibench import citation as ambibench
from parity.benchmarks.implicature import citation as implicature
from parity.benchmarks.instruction_induction import citation as instruction_induction
from parity.benchmarks.miqa import citation as miqa

#: @misc, not biblatex's @software: BibTeX's standard styles (plain) know no @software entry
PARITY = """@misc{parity,
  author = {{Parity}},
  title = {Parity: people and language models on the same items},
  note = {A platform for human baselines of model evaluations: studies on Prolific, model runs, and their comparison},
  year = {2026}
}"""

CHECKLIST = """@inproceedings{wei2025baselines,
  title = {Position: Human Baselines in Model Evaluations Need Rigor and Transparency
    (With Recommendations \\& Reporting Checklist)},
  author = {Wei, Kevin L. and Paskov, Patricia and others},
  booktitle = {Proceedings of the 42nd International Conference on Machine Learning},
  year = {2025}
}"""

#: a benchmark's name -> its paper's BibTeX (the MiQA rating task rates MiQA's items)
BENCHMARK_PAPERS: dict[str, str] = {
    "implicature": implicature.BIBTEX,
    "ambibench": ambibench.BIBTEX,
    "instruction_induction": instruction_induction.BIBTEX,
    "miqa": miqa.BIBTEX,
    "miqa_rating": miqa.BIBTEX,
}


def references(benchmark: str) -> list[str]:
    """Parity, the checklist and the benchmark's paper (where it has one), as BibTeX entries."""
    found = BENCHMARK_PAPERS.get(benchmark)
    return [PARITY, CHECKLIST, *([found] if found else [])]


def references_bib(benchmark: str) -> str:
    return "\n\n".join(references(benchmark)) + "\n"
