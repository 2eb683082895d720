"""A study with a training phase bundled and re-analysed: the practice and comprehension questions and
each participant's training (its length, the practice answers, the tries) travel with the bundle, so a
fresh database states the same training figures."""

from __future__ import annotations

import json
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command

from tests.results.computing.test_training_results import _study_with_training

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_the_training_travels_with_the_bundle_and_is_reproduced(implicature, tmp_path) -> None:
    study = _study_with_training()
    path = tmp_path / "trained.zip"
    call_command("bundle", study.name, "--out", str(path), stdout=StringIO())
    with zipfile.ZipFile(path) as archive:
        settings = json.loads(archive.read("study/settings.json"))
        people = [json.loads(line) for line in archive.read("humans/participants.jsonl").splitlines()]
        analysis = json.loads(archive.read("analysis/study_results.json"))
    assert [q["answer"] for q in settings["practice_questions"]] == ["no", "ready"]
    assert settings["comprehension_tries"] == 2
    assert sorted(person["training"]["took_us"] for person in people) == [40_000_000, 90_000_000, 150_000_000]
    assert analysis["methods"]["training"]["screened_out"] == 1
    out = StringIO()
    call_command("reanalyse", str(path), stdout=out)
    assert out.getvalue().startswith("reproduced:"), out.getvalue()
