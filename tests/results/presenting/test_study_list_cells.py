"""The study list's template reads its cells by name, and a name a template reads that the cells do
not have renders as nothing, silently: every name it reads is a field of `HeadlineCells`, and every
field is read."""

from __future__ import annotations

import re
from dataclasses import fields

from results.presenting.display import HeadlineCells
from tests.paths import REPO


def test_the_study_list_reads_each_cell_by_a_name_the_cells_have() -> None:
    template = (REPO / "templates" / "results" / "study_list.html").read_text()
    read = set(re.findall(r"\bcells\.([a-z_0-9]+)", template))
    assert read == {spec.name for spec in fields(HeadlineCells)}
