"""The training a researcher sets up: practice questions and a comprehension check typed on the
new-study form or read from files by `create_study`, stored as questions, shown back as written, and
refused whole with the block that is wrong."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from studies.models import Study
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
