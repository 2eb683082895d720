"""Model-likeness on real data: Ruis et al.'s 20 published implicature annotators beside a real run of
the bundled smollm2 over the study's 600 items, run once for the module: about 0.6 s of CPU per item
and 40 s to load, some 7 CPU minutes (21 minutes on a busy two-core machine).

No published annotator is flagged; ten simulated participants who copy the run's answers, with 10% of
them changed (seeded), all are, and every surface shows them: the kept flags, the admin's reading of
them, the monitor, the exports, and the results without flagged participants. Run with `-s` to see
each person's figures (the docs quote them, docs/integrity.md).
"""

from __future__ import annotations

import csv
import io
import json
import random
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from results.computing.quality import label_likeness
from results.loading.selectors import load_study_data
from results.pipeline import data_export, review_signals_refresh, study_monitor
from studies.models import Participant, Response, Study
from studies.participants.quality import participant_flags

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

COPIERS = 10
#: the share of a copier's answers changed from the run's
NOISE = 0.1
SEED = 2026
FLIP = {"yes": "no", "no": "yes"}


@pytest.fixture(scope="module")
def run_beside_baseline(baseline, tmp_path_factory):
    """The published study with a finished smollm2 run (the default setting) over all its items."""
    from modelruns import services, shards
    from modelruns.models import ModelResponse, ModelRun

    study = Study.objects.get(pk=baseline.study_id)
    with override_settings(PARITY_MODEL_SOURCES=["smollm2"], MODEL_CACHE_DIR=str(tmp_path_factory.mktemp("smollm2"))):
        spec = services.modelspec_get_or_create(model="smollm2", device="cpu")
        run = services.modelrun_start(study=study, spec=spec, enqueue=False).run
        shards.modelrun_work(run=run, worker="likeness")
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE, run.error
    answers = dict(ModelResponse.objects.filter(run=run).values_list("item__key", "answer"))
    assert len(answers) == 600
    return study, answers


def _figures(rows) -> str:
    lines = ["who   items  same   AC1 model  AC1 people  band (p5, median, p95)"]
    for row in sorted(rows, key=lambda r: int(r.annotator[1:]) + (100 if r.annotator[0] == "C" else 0)):
        band, model, people = row.band, row.agreement_model, row.agreement_people
        lines.append(
            f"{row.annotator:<4}  {row.n_items:>5}  {row.same_answers:>4.0%}  {model:>9.3f}  {people:>10.3f}  "
            f"{band.low:.3f}, {band.median:.3f}, {band.high:.3f}{'  FLAGGED' if row.flagged else ''}"
        )
    return "\n".join(lines)


def _add_copiers(study: Study, answers: dict[str, str]) -> list[Participant]:
    """Ten participants, spread over the four units, who give the run's answer to every item of their
    unit except on exactly 10% of them (chosen with a seeded generator), where they give the other."""
    rng = random.Random(SEED)
    now = timezone.now()
    units = list(study.units.order_by("position"))
    copiers = []
    for n in range(COPIERS):
        unit = units[n % len(units)]
        items = [unit_item.item for unit_item in unit.unit_items.select_related("item").order_by("order")]
        changed = set(rng.sample(range(len(items)), round(NOISE * len(items))))
        copier = Participant.objects.create(
            study=study,
            unit=unit,
            prolific_pid=f"{0xC0 + n:024x}",
            pseudonym=f"C{n + 1}",
            status=Participant.Status.COMPLETED,
            step=Participant.Step.DONE,
            sequence=[item.pk for item in items],
            answered=len(items),
            started_at=now,
            last_seen_at=now,
            completed_at=now,
        )
        given = [FLIP[answers[item.key]] if i in changed else answers[item.key] for i, item in enumerate(items)]
        Response.objects.bulk_create(
            [
                Response(
                    participant=copier,
                    item=item,
                    position=position,
                    raw_answer=answer,
                    answer=answer,
                    valid=True,
                    correct=answer == item.gold,
                    shown_at=now,
                    answered_at=now,
                    duration_ms=4000,
                )
                for position, (item, answer) in enumerate(zip(items, given), start=1)
            ]
        )
        copiers.append(copier)
    return copiers


def test_no_published_annotator_answers_like_smollm2(run_beside_baseline):
    study, _answers = run_beside_baseline
    rows = label_likeness(load_study_data(study))
    print("\nThe 20 published annotators beside smollm2:\n" + _figures(rows))
    assert len(rows) == 20 and all(row.n_items == 150 for row in rows)
    assert [row.annotator for row in rows if row.flagged] == []
    # the band: the 40 pairs of people sharing a unit (pairs across units share no item)
    assert rows[0].band.n_pairs == 40
    assert review_signals_refresh(load_study_data(study)) == 0
    assert not Participant.objects.filter(study=study).exclude(review_signals={}).exists()


def test_ten_participants_copying_the_run_with_ten_percent_noise_are_all_flagged(run_beside_baseline, client):
    study, answers = run_beside_baseline
    copiers = {p.pk: p.pseudonym for p in _add_copiers(study, answers)}
    data = load_study_data(study)
    rows = label_likeness(data)
    print("\nThe published annotators and ten copiers beside smollm2:\n" + _figures(rows))
    assert sorted(row.annotator for row in rows if row.flagged) == sorted(copiers.values())

    assert review_signals_refresh(data) == COPIERS
    kept = dict(Participant.objects.filter(study=study).exclude(review_signals={}).values_list("pk", "review_signals"))
    assert set(kept) == set(copiers)
    figures = next(iter(kept.values()))["model_like"]
    assert figures["model"].startswith("smollm2") and figures["n_items"] == 150
    assert figures["agreement_model"] > figures["band"]["median"] and "people with each other" in figures["evidence"]
    everyone = participant_flags(Participant.objects.filter(study=study))
    assert {pk for pk, names in everyone.items() if "model_like" in names} == set(copiers)

    # the monitor lists the copiers (live participants; the published ones are not monitored) with figures
    flagged = study_monitor(study).flagged
    assert sorted(row.pseudonym for row in flagged) == sorted(copiers.values())
    # smollm2 answers nearly always "no": a copier may carry the straight-lining flag beside this one
    assert all(any("AC1" in said and "smollm2" in said for said in row.reasons) for row in flagged)

    # one column per flag in the exports
    people = list(csv.DictReader(io.StringIO(data_export(data, "participants-csv").content.decode())))
    marked = {row["annotator"] for row in people if row["flag_model_like"] == "true"}
    assert marked == set(copiers.values()) and all(
        "AC1" in row["flag_evidence"] for row in people if row["annotator"] in marked
    )
    long = list(csv.DictReader(io.StringIO(data_export(data, "csv").content.decode())))
    assert sum(row["flag_model_like"] == "true" for row in long) == COPIERS * 150

    # the results with and without the flagged participants
    out = StringIO()
    call_command("study_results", study.name, "--json", stdout=out)
    with_them = json.loads(out.getvalue())
    out = StringIO()
    call_command("study_results", study.name, "--json", "--flagged", "exclude", stdout=out)
    without = json.loads(out.getvalue())
    assert with_them["human"]["n_annotators"] == 30 and without["human"]["n_annotators"] == 20
    assert without["participants"]["flagged_left_out"] == COPIERS and without["filters"] == {"flagged": "exclude"}
    model_with = with_them["models"][0]
    model_without = without["models"][0]
    print(
        "\nmean pairwise kappa: with the copiers",
        with_them["human"]["cohen_kappa_mean_pairwise"],
        "without",
        without["human"]["cohen_kappa_mean_pairwise"],
    )
    assert model_with.keys() == model_without.keys()
