"""A study's power analysis (`parity.stats.power`) and where its variance comes from.

The people's mean accuracy and the spreads of people and items are read, in this order, from:
1. a pilot: the latest closed study of the same benchmark run on Parity (not imported), with at
   least two people in a unit;
2. the benchmark's published human study: from its files in DATASETS_DIR, scored by the
   benchmark's own rule, else as imported into Parity;
3. a stated default (`DEFAULT`).
The planned people and items are the design's: the places of its units and their items.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F
from django.db.models.functions import Coalesce

from annotation.selectors import datasets_dir
from parity import benchmarks
from parity.stats.power import PilotComponents, VarianceComponents, pilot_components, power_analysis
from parity.stats.results import JsonResult
from studies.models import Participant, Response, Study

#: the variance used when neither a pilot nor a published study exists: people 75% right, a person
#: SD and an item SD of 1 on the logit scale (the calibration's truth, perf/calibration/truth.py).
#: The published implicature study measures 0.86, 0.25 and 2.60.
DEFAULT = VarianceComponents(baseline=0.75, person_sd=1.0, item_sd=1.0)
DEFAULT_LABEL = (
    "a stated default (people 75% right; person and item SDs of 1 on the logit scale): "
    "no closed study or published human study of this benchmark is at hand"
)


@dataclass(frozen=True)
class VarianceSource(JsonResult):
    #: "pilot", "published" or "default"
    kind: str
    #: in words, for the form and the report
    label: str
    components: VarianceComponents
    study: str = ""
    n_people: int = 0
    n_items: int = 0


def _from_answers(rows: Sequence[tuple[int, int, int, bool]]) -> PilotComponents | None:
    if not rows:
        return None
    person, item, unit, correct = zip(*rows, strict=True)
    found = pilot_components(person, item, unit, [int(value) for value in correct])
    return found if found.components is not None else None


def _study_answers(study_id: int) -> list[tuple[int, int, int, bool]]:
    """The scored answers to real items of a study's completed, kept participants (a researcher's
    mark over the automatic score, as the results take it)."""
    return list(
        Response.objects.filter(
            participant__study_id=study_id,
            participant__status=Participant.Status.COMPLETED,
            participant__excluded=False,
            is_attention_check=False,
        )
        .annotate(score=Coalesce(F("verified_correct"), F("correct")))
        .values_list("participant_id", "item_id", "participant__unit_id", "score")
    )


@functools.lru_cache(maxsize=8)
def _published_files(benchmark: str, source: str) -> PilotComponents | None:
    """The published study read from its files (cached: the files do not change under a running server)."""
    from pathlib import Path

    definition = benchmarks.get(benchmark)
    try:
        study = definition.read_published_study(Path(source))
    except (NotImplementedError, OSError, ValueError):
        return None
    rows: list[tuple[int, int, int, bool]] = []
    item = 0
    for unit, subset in enumerate(study.subsets):
        for row in subset.rows:
            for person, answer in enumerate(row.answers):
                rows.append((unit * 1000 + person, item, unit, bool(definition.score(answer, row.gold).correct)))
            item += 1
    return _from_answers(rows)


def variance_source(benchmark: str, *, exclude: int | None = None) -> VarianceSource:
    """Where the study's variance comes from (see the module doc); `exclude`: the study itself."""
    pilots = Study.objects.filter(benchmark=benchmark, status=Study.Status.CLOSED, is_imported=False)
    if exclude is not None:
        pilots = pilots.exclude(pk=exclude)
    for pilot in pilots.order_by("-created_at")[:3]:
        found = _from_answers(_study_answers(pilot.pk))
        if found is not None and found.components is not None:
            return VarianceSource(
                "pilot",
                f"the closed study “{pilot.name}” ({found.n_people} people, {found.n_items} items)",
                found.components,
                pilot.name,
                found.n_people,
                found.n_items,
            )
    definition = benchmarks.get(benchmark)
    # the files first: the same figures whether or not (and whenever) the study was imported
    folder = datasets_dir(benchmark) if definition.published_study_name else None
    found = _published_files(benchmark, str(folder)) if folder is not None and folder.is_dir() else None
    if found is None:
        published = Study.objects.filter(benchmark=benchmark, is_imported=True).order_by("-created_at").first()
        found = _from_answers(_study_answers(published.pk)) if published is not None else None
    name = definition.published_study_name or definition.title
    if found is not None and found.components is not None:
        return VarianceSource(
            "published",
            f"the published human study “{name}” ({found.n_people} people, {found.n_items} items)",
            found.components,
            name,
            found.n_people,
            found.n_items,
        )
    return VarianceSource("default", DEFAULT_LABEL, DEFAULT)


def design_power(
    *, benchmark: str, places: Sequence[int], unit_sizes: Sequence[int], exclude: int | None = None
) -> dict[str, Any]:
    """The power analysis of a design with these units (their places and items), as the study keeps it."""
    source = variance_source(benchmark, exclude=exclude)
    units = len(unit_sizes)
    people = int(sum(places))
    items = round(sum(unit_sizes) / units) if units else 0
    try:
        analysis = power_analysis(
            people=people, items_per_person=items, units=max(1, units), components=source.components
        ).to_dict()
    except (ValueError, ArithmeticError) as exc:
        # components at the edge of what the model holds (people all right or all wrong)
        analysis = {"people": people, "units": units, "items_per_person": items, "reason": f"not computed: {exc}"}
    return {**analysis, "source": source.to_dict()}


def study_power(study: Study) -> dict[str, Any]:
    """The power analysis of `study`'s units as they are now (its own answers never count as a pilot)."""
    units = list(study.units.annotate(n=Count("unit_items")).order_by("position").values_list("capacity", "n"))
    return design_power(
        benchmark=study.benchmark,
        places=[capacity for capacity, _ in units],
        unit_sizes=[size for _, size in units],
        exclude=study.pk,
    )
