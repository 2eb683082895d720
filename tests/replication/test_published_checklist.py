"""The published implicature study with a model run, as a researcher who imported it would complete
its reporting checklist: Parity answers what its records hold, and the researcher enters the rest
from Ruis et al.'s paper (its Appendix E "Human evaluation" and ethics statement, quoted or
paraphrased below, "not reported" where the paper is silent). Together they answer at least 64 of
the 71 entries; the rest say why they do not apply."""

from __future__ import annotations

import pytest

from parity.reporting.checklist import COMPUTED, ENTERED, Status, counts
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
from studies.models import Study
from studies.setup.checklist import study_checklist_notes_set, study_original_study_set
from tests.replication.conftest import Bundled

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

NOT_REPORTED = "Not reported by Ruis et al. (2023)"
#: the researcher's answers, from the paper
FROM_THE_PAPER = {
    "0.1": "The Goldilocks of Pragmatic Understanding: Fine-Tuning Strategy Matters for Implicature Resolution by LLMs",
    "0.2": "https://arxiv.org/abs/2210.14986",
    "0.3": "2023",
    "0.4": "Advances in Neural Information Processing Systems (NeurIPS 2023)",
    "0.5": "Capabilities",
    "0.7": "English",
    "1.5": "Partial: humans saw prompt template 2 only, models all six templates",
    "1.6": NOT_REPORTED,
    "1.7": "No",
    "1.8": NOT_REPORTED,
    "1.10": NOT_REPORTED,
    "1.9": "Partial: Prolific's ethical standards under UK law; no board review is named",
    "2.1": "Yes: native English speakers",
    "2.1.1": "Native English speakers (Prolific's filter)",
    "2.2": "Crowdsource (Prolific)",
    "2.3": "Yes: prescreened as native English speakers",
    "2.3.1": "Native English speakers",
    "2.3.2": NOT_REPORTED,
    "2.4": "No",
    "2.5": "No",
    "2.6": "No",
    "2.6.1": "No training",
    "2.6.2": "No training",
    "2.6.2.1": "No training",
    "2.7": "Yes",
    "2.7.1": "£15 an hour (the UK living wage at the time)",
    "2.7.2": "No",
    "2.7.3": "Yes: one hourly rate; the participant who failed the attention checks was paid too",
    "3.1.1": NOT_REPORTED,
    "3.2": "Yes: three attention questions (Appendix E)",
    "3.2.1": "Three attention questions at random places; two or more failed: answers removed",
    "3.3.1": NOT_REPORTED,
    "3.3.2": "No",
    "3.4.1": "No",
    "3.5": NOT_REPORTED,
    "3.5.1": NOT_REPORTED,
    "3.6": "No",
    "4.6": "Not analysed: one participant failed the attention checks and their answers were discarded "
    "(not in the published data)",
    "5.1.1": "No: only that all are native English speakers",
    "5.1.3": NOT_REPORTED,
    "5.1.4": NOT_REPORTED,
    # Parity's own instructions were never the original study's, so 5.1.2 is the researcher's to enter
    "5.1.2": "Partial: the published files give the question shown with each item (prompt template 2, their "
    "Question column); the full instructions are not in Parity",
}
#: the original study's exclusions and attrition, from the paper, with where it says them: the import's
#: own records (its 20 people, none excluded) describe the published data, not the original study
ORIGINAL = {
    "exclusions": (
        "one participant failed the attention checks and their answers were discarded (not in the published data)",
        "Appendix E",
    ),
    "attrition": ("Not reported beyond the participant excluded for the attention checks", "Appendix E"),
}
FROM_THE_ORIGINAL = {"3.2.2": "exclusions", "5.1.5": "attrition"}


def test_the_published_study_with_the_papers_answers_answers_at_least_64(bundled: Bundled) -> None:
    study = Study.objects.get(pk=bundled.study_id)
    before = study_checklist(study, study_results_tree(load_study_data(study), n_boot=200))
    study_checklist_notes_set(study=study, notes=FROM_THE_PAPER)
    study_original_study_set(study=study, fields=ORIGINAL)
    study.refresh_from_db()
    try:
        answers = {
            a.entry.id: a for a in study_checklist(study, study_results_tree(load_study_data(study), n_boot=200))
        }
    finally:
        study_checklist_notes_set(study=study, notes={key: "" for key in FROM_THE_PAPER})
        study_original_study_set(study=study, fields={key: ("", "") for key in ORIGINAL})
    tally = counts(list(answers.values()))
    print("published with the paper's answers", tally)
    assert tally[COMPUTED] + tally[ENTERED] >= 64
    computed_before = {a.entry.id for a in before if a.status is Status.ANSWERED}
    for entry_id, answer in answers.items():
        if entry_id in computed_before:
            assert answer.source == COMPUTED, f"{entry_id}: a note never replaces Parity's figure"
        elif entry_id in FROM_THE_ORIGINAL:
            text, page = ORIGINAL[FROM_THE_ORIGINAL[entry_id]]
            assert answer.source == ENTERED and answer.text == f"entered by the researcher ({page}): {text}"
        elif entry_id in FROM_THE_PAPER:
            assert answer.source == ENTERED and answer.text == FROM_THE_PAPER[entry_id]
        elif answer.status is Status.NOT_ANSWERED:
            # what follows from an answer of the paper (a bonus's amount where it paid none, the detectable
            # effect where it reports no power analysis) is the researcher's
            assert entry_id in ("1.8.1", "2.7.2.1", "2.7.3.1"), answer
        else:
            assert answer.status is Status.NOT_APPLICABLE and answer.source.split(": ", 1)[1], answer
