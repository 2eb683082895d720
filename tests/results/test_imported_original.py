"""An imported study is described as the original study, not with Parity's own materials: Ruis et al.'s
published human evaluation, imported, with a model run beside it. Its instructions (5.1.2) and how
they compare with the model's prompt (3.4) are not known for the original study, and the methods
state none of the design settings Parity gave the import (its "Shuffle items per participant" was
never the original study's)."""

from __future__ import annotations

import pytest

from results.computing.assemble import study_results_tree
from results.computing.checklist import study_checklist
from results.loading.selectors import load_study_data
from results.presenting.report.render import render_report
from studies.models import Study
from tests.results.conftest import model_run

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def with_run(baseline):
    from annotation.models import Item

    study = Study.objects.get(pk=baseline.study_id)
    golds = dict(Item.objects.filter(unititem__unit__study=study).values_list("key", "gold"))
    model_run(study, "tiny-lm", {"variant": "ranking", "k": 0, "shots_seed": 0, "template": 1}, golds)
    return study


def test_the_checklist_says_the_original_instructions_are_not_known(with_run) -> None:
    study = Study.objects.get(pk=with_run.pk)
    assert study.is_imported and study.instructions_text.strip()  # Parity's defaults, never shown to them
    results = study_results_tree(load_study_data(study))
    answers = {answer.entry.id: answer for answer in study_checklist(study, results)}
    assert answers["5.1.2"].verdict == "—"
    assert "not known for the original study" in answers["5.1.2"].source
    assert "instructions.txt" not in answers["5.1.2"].text
    assert answers["3.4"].text.startswith("Partial: the same items; the instructions of the original study are not")
    assert "people read the study's instructions" not in answers["3.4"].text


def test_the_methods_state_no_setting_parity_gave_the_import(with_run) -> None:
    study = Study.objects.get(pk=with_run.pk)
    results = study_results_tree(load_study_data(study))
    keys = {setting.key for setting in results.methods.design.settings}
    assert "shuffle_items" in keys  # the record is there; the methods must not state it as the original's
    for fmt in ("markdown", "html"):
        text = render_report(results, fmt)
        assert "Shuffle items per participant" not in text, fmt
        # the HTML escapes the apostrophe
        assert "other settings (such as the order its items were shown in) are not known." in text, fmt
