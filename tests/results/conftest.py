"""Studies with hand-checkable results, built once per test module and wiped at its end.

`pilot`: an implicature study of 2 units × 5 items (golds no, no, no, yes, no in both units), two
attention checks each, completed by scripted Bots through the HTTP views:
  U1: A1 all gold (5/5); A3 fails both attention checks and answers every item wrong (excluded);
      A4 wrong on the item of test row 2 (4/5).
  U2: A2 all gold (5/5); A5 wrong on test rows 6 and 9 (3/5).
and two finished model runs: template 2 (wrong on test row 3 only) and template 3 (all gold).

`ambi`: an AmbiBench study of six one-episode units; two participants answer through the services:
  P1 has "maybe" at position 1 (invalid free text, stored as before AmbiBench asked again for X or
  Y; databases keep such answers) and the wrong label at position 2, then gold;
  P2 types every gold label in lower case.

`baseline`: Ruis et al.'s published human evaluation, imported with `import_annotations`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.conftest import committed_world_wipe, dataset
from tests.factories import Bot, pid, row_key, small_study

PILOT_PIDS = {"A1": pid(0xA1), "A2": pid(0xA2), "A3": pid(0xA3), "A4": pid(0xA4), "A5": pid(0xA5)}
AMBI_PIDS = ("5f0c1a2b3c4d5e6f7a8b9c01", "5f0c1a2b3c4d5e6f7a8b9c02")
FLIP = {"yes": "no", "no": "yes"}


@dataclass
class Built:
    study_id: int
    name: str
    pids: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Unblocks the database for a module's shared data and wipes it at the module's end."""
    with django_db_blocker.unblock():
        yield
        committed_world_wipe()


def _choose_wrong_on(keys: set[str]):
    return lambda item: FLIP[item.gold] if item.key in keys else item.gold


def _excluded_answers(item) -> str:
    return "no" if item.is_attention_check else FLIP[item.gold]


def model_run(study, name: str, setting: dict, answers: dict[str, str]):
    from annotation.models import Item
    from modelruns.models import ModelResponse, ModelRun, ModelSpec
    from modelruns.services import setting_key

    spec, _ = ModelSpec.objects.get_or_create(name=name, defaults={"model": f"local/{name}"})
    run = ModelRun.objects.create(
        study=study,
        spec=spec,
        setting=setting,
        setting_key=setting_key(setting),
        status=ModelRun.Status.DONE,
        progress_done=len(answers),
        progress_total=len(answers),
    )
    items = {item.key: item for item in Item.objects.filter(benchmark=study.benchmark, key__in=answers)}
    ModelResponse.objects.bulk_create(
        [
            ModelResponse(
                run=run,
                item=items[key],
                raw_answer=f" {answer}",
                answer=answer,
                valid=True,
                correct=answer == items[key].gold,
                scores={},
            )
            for key, answer in answers.items()
        ]
    )
    return run


@pytest.fixture(scope="module")
def pilot(world, implicature_source) -> Built:
    from annotation.models import Item

    # 30 minutes and £4.50, not the design's estimate: the report's figures are checked in them
    study = small_study(
        "pilot results",
        unit_size=5,
        units=2,
        per_unit=2,
        attention_checks=2,
        exclude_at=2,
        estimated_minutes=30,
        reward_pence=450,
    )
    plan = [
        ("A1", None),
        ("A2", None),
        ("A3", _excluded_answers),
        ("A4", _choose_wrong_on({row_key(2)})),
        ("A5", _choose_wrong_on({row_key(6), row_key(9)})),
    ]
    for name, choose in plan:
        Bot(study, PILOT_PIDS[name]).complete(choose)
    golds = dict(
        Item.objects.filter(benchmark="implicature", key__in=[row_key(n) for n in range(1, 11)]).values_list(
            "key", "gold"
        )
    )
    base = {"variant": "ranking", "k": 0, "shots_seed": 0}
    model_run(
        study,
        "tiny-lm",
        {**base, "template": 2},
        {key: FLIP[gold] if key == row_key(3) else gold for key, gold in golds.items()},
    )
    model_run(study, "tiny-lm", {**base, "template": 3}, golds)
    return Built(study.pk, study.name, pids=list(PILOT_PIDS.values()), sessions=["SESSION0001"])


@pytest.fixture(scope="module")
def implicature_source():
    return dataset("implicature")


def _answer_all(study, prolific_pid: str, answer_for) -> None:
    from annotation.models import Item
    from studies.participants.answers import response_submit
    from studies.participants.entry import participant_enter
    from studies.participants.steps import item_mark_shown, participant_begin, participant_consent

    participant = participant_enter(study=study, pid=prolific_pid, prolific_session_id="SESSIONAMBI").participant
    participant_consent(participant=participant, agree=True)
    participant = participant_begin(participant=participant)
    items = Item.objects.in_bulk(participant.sequence)
    for position, item_id in enumerate(participant.sequence, start=1):
        item_mark_shown(participant=participant)
        item = items[item_id]
        response_submit(
            participant_id=participant.pk,
            item_id=item_id,
            position=position,
            raw_answer=answer_for(int(item.meta["position"]), item.gold),
        )


@pytest.fixture(scope="module")
def ambi(world) -> Built:
    from annotation.services import benchmark_import
    from studies.models import Response
    from studies.setup.studies import study_create

    benchmark_import(name="ambibench", source=None, options={"episodes": 12, "instruction_prompts": 12})
    study = study_create(name="ambi results", benchmark="ambibench", design={"per_feature": 1})

    def first(position: int, gold: str) -> str:
        return ("Y" if gold == "X" else "X") if position <= 2 else gold

    _answer_all(study, AMBI_PIDS[0], first)
    # today "maybe" is asked again and never stored; an older study's database still holds it
    Response.objects.filter(participant__study=study, participant__prolific_pid=AMBI_PIDS[0], position=1).update(
        raw_answer="maybe", answer="", valid=False, correct=False
    )
    _answer_all(study, AMBI_PIDS[1], lambda position, gold: gold.lower())
    return Built(study.pk, study.name, pids=list(AMBI_PIDS), sessions=["SESSIONAMBI"])


BASELINE_NAME = "Ruis et al. human baseline"


@pytest.fixture(scope="module")
def baseline(world, implicature_source) -> Built:
    from studies.setup.imports import human_baseline_import

    result = human_baseline_import(benchmark="implicature", source=implicature_source, name=BASELINE_NAME)
    return Built(result.study.pk, BASELINE_NAME)


@pytest.fixture
def staff_client(client, django_user_model):
    """A researcher (not a superuser) who collaborates on every study of the module."""
    from studies.models import Study
    from tests.personas import user_with

    user = user_with("staff")
    for study in Study.objects.all():
        study.collaborators.add(user)
    client.force_login(user)
    return client


@pytest.fixture
def member_client(client, django_user_model):
    """Signed in, but not staff."""
    from tests.personas import member

    client.force_login(member())
    return client
