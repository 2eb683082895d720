"""Every study has its own code for participants excluded for failed attention checks, so an excluded
participant is never handed the normal completion code."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from studies.models import Participant, Study
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


def test_a_new_study_has_a_failed_check_code_of_its_own(implicature):
    first, second = small_study("codes one"), small_study("codes two")
    for study in (first, second):
        assert study.failed_attention_code and study.failed_attention_code != study.completion_code
    assert first.failed_attention_code != second.failed_attention_code


def test_a_participant_excluded_by_default_gets_the_failed_check_code(implicature):
    study = small_study("codes excluded", units=1, unit_size=3, per_unit=2, attention_checks=2, exclude_at=2)
    careless = Bot(study, pid(1))
    page = careless.complete(choose=lambda item: "no" if item.gold == "yes" else "yes").content.decode()
    participant = careless.participant
    assert participant.excluded and participant.status == Participant.Status.COMPLETED
    assert study.failed_attention_code in page and study.completion_code not in page
    careful = Bot(study, pid(2))
    assert study.completion_code in careful.complete().content.decode()


@pytest.mark.parametrize("code", ["", "SAME"], ids=["blank", "same-as-completion"])
def test_the_database_refuses_a_study_without_a_distinct_failed_check_code(implicature, code):
    study = small_study("codes refused")
    with pytest.raises(IntegrityError), transaction.atomic():
        Study.objects.filter(pk=study.pk).update(completion_code="SAME", failed_attention_code=code or "")


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_each_existing_study_a_code_of_its_own():
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate([("studies", "0013_answer_floor")])
    try:
        old = MigrationExecutor(connection).loader.project_state([("studies", "0013_answer_floor")]).apps
        OldStudy = old.get_model("studies", "Study")
        common = {"benchmark": "implicature", "consent_text": "c", "instructions_text": "i"}
        OldStudy.objects.create(
            name="blank code", link="blank", completion_code="AAAA", failed_attention_code="", **common
        )
        OldStudy.objects.create(
            name="same code", link="same", completion_code="BBBB", failed_attention_code="BBBB", **common
        )
        OldStudy.objects.create(
            name="own code", link="own", completion_code="CCCC", failed_attention_code="KEEP", **common
        )
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)
    codes = dict(Study.objects.values_list("name", "failed_attention_code"))
    assert codes["own code"] == "KEEP"
    assert codes["blank code"] not in ("", "AAAA") and codes["same code"] not in ("", "BBBB")
