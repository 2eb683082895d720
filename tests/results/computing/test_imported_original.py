"""An imported study is described as the original study, not with Parity's own materials: Ruis et al.'s
published human evaluation, imported, with a model run beside it. Its instructions (5.1.2) and how
they compare with the model's prompt (3.4) are not known for the original study, and the methods
state none of the design settings Parity gave the import (its "Shuffle items per participant" was
never the original study's)."""

from __future__ import annotations

import pytest

from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
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


#: what the researcher enters of Ruis et al.'s paper: their Appendix E "Human evaluation" (the
#: pay and the exclusion as tests/replication/test_published_checklist.py enters them); the attrition's
#: page is a number only to show how a page is printed (the appendix reports no attrition)
ORIGINAL = {
    "materials": (
        "the question shown with each item was prompt template 2; the full instructions are not given",
        "Appendix E",
    ),
    "pay": ("Yes: £15 an hour (the UK living wage at the time)", "Appendix E"),
    "exclusions": ("one participant failed the attention checks and their answers were discarded", "Appendix E"),
    "attrition": ("none is reported beyond the participant excluded", "21"),
}
ENTRIES = {"5.1.2": "materials", "3.4": "materials", "2.7": "pay", "2.7.1": "pay",
           "3.2.2": "exclusions", "5.1.5": "attrition"}  # fmt: skip


def test_the_original_study_is_described_as_the_researcher_entered_it(with_run) -> None:
    from studies.setup.checklist import study_original_study_set

    study = Study.objects.get(pk=with_run.pk)
    results = study_results_tree(load_study_data(study))
    before = {answer.entry.id: answer for answer in study_checklist(study, results)}
    for entry_id in ENTRIES:
        if entry_id != "3.4":
            # not the import's records (its 20 people, none excluded, Parity's default reward)
            assert before[entry_id].verdict == "—", entry_id
            assert "not known for the original study" in before[entry_id].source, entry_id
    study = study_original_study_set(study=study, fields=ORIGINAL)
    answers = {answer.entry.id: answer for answer in study_checklist(study, results)}
    for entry_id, field in ENTRIES.items():
        answer = answers[entry_id]
        text, page = ORIGINAL[field]
        assert answer.source == "entered by the researcher", entry_id
        assert answer.record(f"original_study.{field}") == text
        assert answer.record(f"original_study.{field}.page") == page
        assert f"entered by the researcher ({page if page == 'Appendix E' else 'p. ' + page}): " in answer.text
    assert answers["5.1.2"].text == f"entered by the researcher (Appendix E): {ORIGINAL['materials'][0]}"
    assert answers["2.7"].verdict == "Yes"
    assert (
        answers["2.7"].text
        == "Yes: entered by the researcher (Appendix E): £15 an hour (the UK living wage at the time)"
    )
    assert answers["5.1.5"].text == f"entered by the researcher (p. 21): {ORIGINAL['attrition'][0]}"
    assert answers["3.4"].text.startswith(
        f"Partial: the same items; the original study's instructions, entered by the researcher (Appendix E): "
        f"{ORIGINAL['materials'][0]}; models read the prompt of their setting ("
    )
    assert answers["3.2.2"].text.endswith(ORIGINAL["exclusions"][0])
    assert answers["5.1.5"].text.endswith(ORIGINAL["attrition"][0])


def test_the_original_study_refuses_a_text_without_its_page_and_keeps_what_was_there(with_run) -> None:
    from studies.errors import StudyError
    from studies.setup.checklist import study_original_study_set

    study = Study.objects.get(pk=with_run.pk)
    study = study_original_study_set(study=study, fields={"pay": ("No: volunteers", "7")})
    results = study_results_tree(load_study_data(study))
    paid = {answer.entry.id: answer for answer in study_checklist(study, results)}["2.7"]
    assert (paid.verdict, paid.text) == ("No", "No: entered by the researcher (p. 7): volunteers")
    for fields, said in (
        ({"pay": ("unpaid", "")}, "Give the original paper's page"),
        ({"pay": ("", "7")}, "Write what the original paper says"),
        ({"pay": ("x" * 1001, "7")}, "under 1000 characters"),
        ({"pay": ("unpaid", "p" * 21)}, "under 20 characters"),
        ({"funding": ("a grant", "1")}, "no field 'funding'"),
    ):
        with pytest.raises(StudyError, match=said):
            study_original_study_set(study=study, fields=fields)
    assert Study.objects.get(pk=study.pk).original_study == {"pay": {"text": "No: volunteers", "page": "7"}}
    study_original_study_set(study=study, fields={"pay": ("", "")})
    assert Study.objects.get(pk=study.pk).original_study == {}


def test_the_checklist_page_takes_the_original_study_with_its_pages(with_run) -> None:
    from tests.personas import personas_for, signed_in

    study = Study.objects.get(pk=with_run.pk)
    people = personas_for(study, prefix="original-")
    owner = signed_in(people.owner)
    url = f"/studies/{study.pk}/checklist/"
    assert 'id="checklist-original"' in owner.get(url).content.decode()
    posted = {"action": "original", **{name: text for name, (text, _) in ORIGINAL.items()}}
    posted.update({f"{name}_page": page for name, (_, page) in ORIGINAL.items()})
    # a text without its page writes nothing and says why
    refused = owner.post(url, {**posted, "pay_page": ""})
    assert refused.status_code == 200 and "pay: Give the original paper&#x27;s page" in refused.content.decode()
    assert Study.objects.get(pk=study.pk).original_study == {}
    assert owner.post(url, posted).status_code == 302
    saved = Study.objects.get(pk=study.pk)
    assert saved.original_study == {name: {"text": text, "page": page} for name, (text, page) in ORIGINAL.items()}
    page = owner.get(url).content.decode()
    assert f"entered by the researcher (p. 21): {ORIGINAL['attrition'][0]}" in page
    assert signed_in(people.viewer).post(url, {**posted, "pay": "changed"}).status_code in (403, 404)
    assert Study.objects.get(pk=study.pk).original_study == saved.original_study


def _report(study: Study, fmt: str) -> str:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("study_report", study.name, "--format", fmt, stdout=out)
    return out.getvalue()


#: the report's sentence for each field of the original study, by field: what it is of the original study
SUBJECTS = {
    "attrition": "The original study's attrition",
    "exclusions": "The original study's exclusions",
    "pay": "The original study's pay",
    "materials": "The original study's instructions and interface",
}


def test_the_reports_methods_and_materials_describe_the_original_study_as_entered(with_run) -> None:
    from results.presenting.report.latex import tex
    from studies.setup.checklist import study_original_study_set

    study = Study.objects.get(pk=with_run.pk)
    parity_reward = f"{study.reward_pence / 100:.2f}"
    for fmt in ("markdown", "html", "latex"):
        text = _report(study, fmt)
        for subject in SUBJECTS.values():
            said = f"{subject}: not known for the original study (not entered from the original paper)."
            assert (tex(said) if fmt == "latex" else said.replace("'", "&#x27;") if fmt == "html" else said) in text
        # neither Parity's reward nor its default instructions were ever the original study's
        assert "The reward was" not in text and parity_reward not in text, fmt
        assert study.instructions_text.strip().splitlines()[0] not in text, fmt
    study = study_original_study_set(study=study, fields=ORIGINAL)
    try:
        record = Study.objects.get(pk=study.pk).original_study
        for fmt in ("markdown", "latex"):
            text = _report(study, fmt)
            write = tex if fmt == "latex" else str
            for field, subject in SUBJECTS.items():
                entered = record[field]
                page = entered["page"] if not entered["page"][0].isdigit() else f"p. {entered['page']}"
                # the checklist's verdict ("Yes:") left to the checklist: the methods state the fact
                fact = entered["text"].removeprefix("Yes: ")
                assert write(f"{subject}, entered by the researcher ({page}): {fact}.") in text, (fmt, field)
                assert "not known for the original study (not entered" not in text
            # the materials part: the original's instructions as entered, the rest not known
            assert (
                write("The original study's instructions and interface, entered by the researcher (Appendix E):")
                in text
            )
            assert (
                write("The original study's consent form is not known; its participants never read Parity's.") in text
            )
            assert write("No screenshot: the original study's participants did not answer on Parity.") in text
            assert "The reward was" not in text and study.instructions_text.strip().splitlines()[0] not in text
    finally:
        study_original_study_set(study=study, fields={name: ("", "") for name in ORIGINAL})
