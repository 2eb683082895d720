"""The training a researcher sets up: practice questions and a comprehension check typed on the
new-study form or read from files by `create_study`, stored as questions, shown back as written, and
refused whole with the block that is wrong."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item
from studies.models import Study
from studies.preregistration.document import preregistration_export
from tests.participation.test_training import CHECK, PRACTICE
from tests.studies.workflow.helpers import create

pytestmark = pytest.mark.django_db


def test_the_form_stores_the_training_and_shows_it_back_as_written(researcher_client, implicature):
    page = create(
        researcher_client,
        "implicature",
        name="trained",
        units=2,
        unit_size=5,
        practice_questions=PRACTICE,
        comprehension_questions=CHECK,
        comprehension_tries=3,
    )
    assert page.status_code == 302, page.context["form"].errors
    study = Study.objects.get(name="trained")
    assert [q["text"] for q in study.comprehension_questions] == [
        "What do you do on each page?",
        "Can you change an answer once it is sent?",
    ]
    assert study.comprehension_tries == 3 and len(study.practice_questions) == 2
    edit = researcher_client.get(f"/studies/{study.pk}/edit/").content.decode()
    assert "= Say whether the answer means yes or no" in edit and "Having to work means he cannot come." in edit


def test_the_form_names_the_wrong_block_and_keeps_nothing(researcher_client, implicature):
    page = create(
        researcher_client,
        "implicature",
        name="untrained",
        units=2,
        unit_size=5,
        practice_questions="Yes or no?\n- yes\n- no\n= no\n\nAnd this one?",
    )
    errors = page.context["form"].errors["practice_questions"]
    assert errors == ['question 2: give the right answer on one line that begins with "= "']
    assert not Study.objects.filter(name="untrained").exists()


def test_no_training_by_default(researcher_client, implicature):
    assert create(researcher_client, "implicature", name="plain", units=2, unit_size=5).status_code == 302
    study = Study.objects.get(name="plain")
    assert (study.practice_questions, study.comprehension_questions, study.comprehension_tries) == ([], [], 2)


def test_the_command_reads_the_training_from_files(implicature, tmp_path):
    (tmp_path / "practice.txt").write_text(PRACTICE, encoding="utf-8")
    (tmp_path / "check.txt").write_text(CHECK, encoding="utf-8")
    call_command(
        "create_study",
        "--benchmark=implicature",
        "--name=trained by command",
        "--units=2",
        "--unit-size=4",
        f"--practice={tmp_path / 'practice.txt'}",
        f"--comprehension={tmp_path / 'check.txt'}",
        "--comprehension-tries=1",
        stdout=StringIO(),
    )
    study = Study.objects.get(name="trained by command")
    assert (len(study.practice_questions), len(study.comprehension_questions), study.comprehension_tries) == (2, 2, 1)
    with pytest.raises(CommandError, match="cannot be read"):
        call_command(
            "create_study",
            "--benchmark=implicature",
            "--name=x",
            f"--practice={tmp_path / 'none.txt'}",
            stdout=StringIO(),
        )
    with pytest.raises(CommandError, match="comprehension tries: give 1 to 5"):
        call_command(
            "create_study", "--benchmark=implicature", "--name=y", "--comprehension-tries=9", stdout=StringIO()
        )


def test_practice_questions_are_drawn_from_the_benchmarks_dev_set_never_the_studys_items(implicature):
    call_command(
        "create_study",
        "--benchmark=implicature",
        "--name=drawn practice",
        "--units=2",
        "--unit-size=4",
        "--practice-drawn=3",
        "--seed=7",
        stdout=StringIO(),
    )
    study = Study.objects.get(name="drawn practice")
    dev = {
        item.prompt["utterance"]: item.gold
        for item in Item.objects.filter(benchmark="implicature", split="dev", is_attention_check=False)
    }
    assert len(study.practice_questions) == 3
    for question in study.practice_questions:
        assert question["choices"] == ["Yes", "No"] and question["answer"] in ("Yes", "No")
        (utterance,) = [text for text in dev if f'"{text}"' in question["text"]]
        assert question["answer"].lower() == dev[utterance], "the answer is the dev item's gold"
        assert question["text"].endswith(Study.objects.get(pk=study.pk).definition.question_line)
    same = create_drawn("drawn again", seed=7)
    assert same.practice_questions == study.practice_questions, "the same seed draws the same questions"
    with pytest.raises(CommandError, match="no split of its own"):
        call_command(
            "create_study",
            "--benchmark=implicature",
            "--name=dev study",
            "--set=split=dev",
            "--units=2",
            "--unit-size=4",
            "--practice-drawn=2",
            stdout=StringIO(),
        )


def create_drawn(name: str, *, seed: int) -> Study:
    call_command(
        "create_study",
        "--benchmark=implicature",
        f"--name={name}",
        "--units=2",
        "--unit-size=4",
        "--practice-drawn=3",
        f"--seed={seed}",
        stdout=StringIO(),
    )
    return Study.objects.get(name=name)


def test_the_form_offers_the_draw_only_where_the_benchmark_has_practice_items(researcher_client, implicature):
    page = create(researcher_client, "implicature", name="form drawn", units=2, unit_size=5, practice_drawn=2)
    assert page.status_code == 302, page.context["form"].errors
    assert len(Study.objects.get(name="form drawn").practice_questions) == 2


def test_the_frozen_preregistration_holds_the_training(implicature):
    study = create_drawn("preregistered training", seed=3)  # created live: frozen at launch
    found = preregistration_export(study)
    training = found["document"]["texts"]["training"]
    assert training["practice_questions"] == 3 and training["comprehension_questions"] == 0
    assert training["comprehension_tries"] == 2 and len(training["practice_sha256"]) == 64
    assert "- **Training:** 3 practice questions with feedback\n" in found["markdown"]
    plain = preregistration_export(create_drawn_without_training("preregistered plain"))
    assert "training" not in plain["document"]["texts"] and "Training:" not in plain["markdown"]


def create_drawn_without_training(name: str) -> Study:
    call_command(
        "create_study", "--benchmark=implicature", f"--name={name}", "--units=2", "--unit-size=4", stdout=StringIO()
    )
    return Study.objects.get(name=name)
