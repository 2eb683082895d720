"""`perf/results.py`'s study and its page timings, on a small size: the study is the published design
(4 units of 150 items) with every person complete and one excluded per unit, three finished runs;
the timings come from the page and the API answering as a researcher."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from annotation.models import Item
from perf.results import build, page_timings, write_answers
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from studies.models import Participant, Response, Study
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


def test_the_study_is_the_published_design_with_runs_beside_it(implicature, capsys):
    build(name="perf small", per_unit=3)
    built = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (built["answers"], built["people"]) == (4 * 150 * 3, 12)
    results = study_results_tree(load_study_data(Study.objects.get(name="perf small"))).to_json()
    assert results["participants"] == {"included": 8, "excluded": 4, "in_progress": 0, "imported": 0}
    assert results["human"]["n_answers"] == 8 * 150 and len(results["models"]) == 3
    assert results["human"]["cohen_kappa_mean_pairwise"] is not None


@pytest.mark.django_db(transaction=True)  # the database worker closes its connection between tasks
def test_the_page_and_the_api_are_timed_once_their_results_are_kept(implicature, capsys, settings):
    settings.RESULTS_INLINE_ANSWERS = 0  # computed in the task queue, as a large study's
    build(name="perf timed", per_unit=2)
    capsys.readouterr()
    page_timings(name="perf timed", repeat=2)
    timings = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert timings["queued"] and timings["ready_s"] >= timings["cold_s"] > 0
    assert timings["warm_ms"] > 0 and timings["api_warm_ms"] > 0


@pytest.mark.both_databases
def test_answers_written_in_bulk_are_the_rows_the_orm_writes(implicature):
    """On PostgreSQL `write_answers` loads the answers with COPY: each column, the defaults included,
    as the model's own `bulk_create` writes it (elsewhere it is `bulk_create`)."""
    study = small_study("bulk", unit_size=3, units=1, per_unit=2, attention_checks=0, exclude_at=0)
    for n in (1, 2):
        Bot(study, pid(n)).enter()
    first, second = (Participant.objects.get(study=study, prolific_pid=pid(n)) for n in (1, 2))
    items = list(Item.objects.filter(unititem__unit__study=study).order_by("pk"))
    at = timezone.now()
    answers = [
        (position, item.pk, "yes" if position % 2 else "no", position != 2, 1000 * position)
        for position, item in enumerate(items, start=1)
    ]
    write_answers([(first.pk, item, position, answer, ok, ms) for position, item, answer, ok, ms in answers], at=at)
    Response.objects.bulk_create(
        Response(
            participant=second,
            item_id=item,
            position=position,
            raw_answer=answer,
            answer=answer,
            valid=True,
            correct=ok,
            shown_at=at,
            answered_at=at,
            duration_ms=ms,
        )
        for position, item, answer, ok, ms in answers
    )
    columns = [f.name for f in Response._meta.get_fields() if f.concrete and f.name not in ("id", "participant")]

    def stored(participant) -> list[tuple]:
        return list(Response.objects.filter(participant=participant).order_by("position").values_list(*columns))

    assert len(stored(first)) == 3 and stored(first) == stored(second)
