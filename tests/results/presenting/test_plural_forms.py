"""Counts read as English: one participant, two participants (never "1 participants")."""

from __future__ import annotations

import re
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.template.loader import render_to_string
from django.test import Client

from prolific.review import rejection_message
from studies.models import Participant, Study
from tests.factories import Bot, entry_url, pid, small_study
from tests.personas import researcher

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _fail_the_checks(item) -> str:
    return ("no" if item.gold == "yes" else "yes") if item.is_attention_check else item.gold


def _page(user, url: str) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200, url
    return _text(response.content.decode())


def test_the_results_page_counts_one_annotator_and_one_answer(implicature):
    owner = researcher()
    study = small_study("one item", units=1, unit_size=1, per_unit=2, attention_checks=0, exclude_at=0, owner=owner)
    Bot(study, pid(1)).complete()
    page = _page(owner, f"/studies/{study.pk}/results/")
    assert "Humans: mean over 1 annotator " in page and "1 answer " in page and "1 annotators" not in page
    Bot(study, pid(2)).complete()
    page = _page(owner, f"/studies/{study.pk}/results/")
    assert "Humans: mean over 2 annotators" in page and "2 answers" in page


def test_one_failed_attention_check_is_said_in_the_singular(implicature):
    owner = researcher()
    study = small_study("one check", units=1, unit_size=3, per_unit=2, attention_checks=1, exclude_at=1, owner=owner)
    Bot(study, pid(1)).complete(_fail_the_checks)
    first = Participant.objects.get(study=study)
    assert first.excluded and first.exclusion_reason == "failed 1 attention check (threshold 1)"
    assert "you failed 1 attention check." in rejection_message(Participant(attention_failures=1, exclusion_reason=""))
    assert "you failed 2 attention checks." in rejection_message(Participant(attention_failures=2, exclusion_reason=""))
    monitor = _page(owner, f"/studies/{study.pk}/monitor/")
    assert "Attention checks failed 1 participant, 1 failure (excluded at 1)" in monitor
    Bot(study, pid(2)).complete(_fail_the_checks)
    monitor = _page(owner, f"/studies/{study.pk}/monitor/")
    assert "Attention checks failed 2 participants, 2 failures (excluded at 1)" in monitor


def test_a_one_unit_one_minute_study_says_unit_and_minute(implicature):
    owner = researcher()
    one = small_study("one unit", units=1, unit_size=3, per_unit=1, attention_checks=1, owner=owner)
    Study.objects.filter(pk=one.pk).update(estimated_minutes=1)
    page = _page(owner, f"/studies/{one.pk}/")
    assert " 1 unit, " in page and "the 1 unit holds" in page
    two = small_study("two units", units=2, unit_size=3, per_unit=1, attention_checks=1, owner=owner)
    assert " 2 units, " in _page(owner, f"/studies/{two.pk}/")

    start = _text(Client().get(entry_url(one, pid(3))).content.decode())
    assert "takes about 1 minute;" in start


def test_the_preview_end_counts_answers_and_failed_checks():
    study = SimpleNamespace(name="a study")
    one = _text(
        render_to_string(
            "participation/preview_end.html",
            {"study": study, "participant": {"answered": 1, "failures": 1}, "code": "C"},
        )
    )
    assert "1 answer given, 1 attention check failed" in one
    two = _text(
        render_to_string(
            "participation/preview_end.html",
            {"study": study, "participant": {"answered": 2, "failures": 2}, "code": "C"},
        )
    )
    assert "2 answers given, 2 attention checks failed" in two


def test_create_study_prints_its_design_in_words(implicature):
    out = StringIO()
    call_command(
        "create_study",
        "--benchmark",
        "implicature",
        "--name",
        "One of each",
        "--units",
        "1",
        "--per-unit",
        "1",
        "--attention-checks",
        "1",
        "--exclude-at",
        "1",
        stdout=out,
    )
    assert "Created study 'One of each' (implicature): 1 unit × 1 participant, 1 attention check\n" in out.getvalue()


def test_the_preregistration_of_one_unit_and_one_place_says_unit_and_place(implicature):
    from studies.preregistration.document import preregistration_export

    owner = researcher()
    one = small_study("one place", units=1, unit_size=3, per_unit=1, attention_checks=1, owner=owner)
    exported = preregistration_export(one)
    document = exported["document"]
    assert document["items"]["n_units"] == 1 and document["recruitment"]["places"] == 1
    for text in (_text(exported["html"]), exported["markdown"], _page(owner, f"/studies/{one.pk}/")):
        assert " in 1 unit" in text and "1 place" in text, text
        assert "1 units" not in text and "1 places" not in text
    two = small_study("two places", units=2, unit_size=3, per_unit=1, attention_checks=1, owner=owner)
    assert " in 2 units" in preregistration_export(two)["markdown"]


def test_one_flagged_answer_is_said_in_the_singular():
    from studies.participants.quality import PageBehaviour

    one = PageBehaviour(recorded=4, canary=1, honeypot=1, no_script=1, no_script_fast=1).evidence()
    assert one["canary"]["detail"] == "1 answer carries the canary word"
    assert one["honeypot"]["detail"] == "the hidden field was filled in 1 answer"
    two = PageBehaviour(recorded=4, canary=2, honeypot=2).evidence()
    assert two["canary"]["detail"] == "2 answers carry the canary word"
    assert two["honeypot"]["detail"] == "the hidden field was filled in 2 answers"
