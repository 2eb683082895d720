"""Models among people: the joint IRT placement, the paired tests and the human band of a study's
results (`study_results`' "irt", "paired" and "human_band"), from `parity.stats`' placement,
paired and band modules. A rating study (people grade model answers) has no ability to place nor
answers to pair: these sections are then None or empty, with the reason in "irt_reason"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from parity.stats import label_matrix
from parity.stats.band import Band, ModelInBand, model_in_band, people_band
from parity.stats.paired import McNemar, PairedTest, item_rates, paired_test
from parity.stats.placement import joint_placement
from parity.stats.table import RatingTable
from results.computing.rows import model_item_scores, model_ratings
from results.computing.tree import Irt, RunInBand, RunPaired
from results.loading.study_data import ModelAnswer, RunInfo, StudyData

#: an item's text in the divergent items' list is cut at this many characters
ITEM_TEXT_CHARACTERS = 300


def item_text(prompt: Mapping[str, Any]) -> str:
    """An item's words, whatever the benchmark's prompt fields: its texts joined, in field order."""
    parts = [value.strip() for value in prompt.values() if isinstance(value, str) and value.strip()]
    text = " / ".join(parts)
    return text if len(text) <= ITEM_TEXT_CHARACTERS else text[: ITEM_TEXT_CHARACTERS - 1] + "…"


def _scores(data: StudyData, runs: list[RunInfo], rows_by_run: Mapping[int, list[ModelAnswer]]) -> dict[int, dict]:
    return {run.id: model_item_scores(data, rows_by_run[run.id]) for run in runs}


def irt_section(
    data: StudyData, humans: RatingTable, runs: list[RunInfo], scores: Mapping[int, Mapping[str, float]]
) -> tuple[Irt | None, str | None]:
    """The joint placement of people and runs, or None and why not."""
    if data.is_graded:
        return None, "a rating study: people grade model answers, they do not answer items to be right"
    scored_items = {humans.items[i] for i in set(humans.item[humans.correct >= 0].tolist())}
    placed = [run for run in runs if any(key in scored_items for key in scores[run.id])]
    placement = joint_placement(humans, {str(run.id): scores[run.id] for run in placed})
    if placement is None:
        return None, "fewer than two people with scored answers, or no item some got right and some wrong"
    # the numbers as the JSON gives them (None, never NaN), each run named by its id and label
    section = placement.to_dict()
    by_name = {str(run.id): run for run in placed}
    section["models"] = [
        {"run": by_name[entry["name"]].id, "label": by_name[entry["name"]].label, **entry}
        for entry in section["models"]
    ]
    for entry in section["models"]:
        del entry["name"]
    for item in (*section["items"], *section["divergent_items"]):
        item["text"] = item_text(data.items[item["item"]].prompt) if item["item"] in data.items else ""
    return Irt.from_json(section), None


def paired_section(
    humans: RatingTable, runs: list[RunInfo], scores: Mapping[int, Mapping[str, float]]
) -> list[RunPaired]:
    """Each run against the people on the items both answered (runs sharing none are left out)."""
    rates = item_rates(humans)
    rows = []
    for run in runs:
        test = paired_test(scores[run.id], humans, rates=rates)
        if not test.n_items:
            continue
        # the numbers as the JSON gives them: None where undefined, never NaN
        plain = test.to_dict()
        test = PairedTest(**{**plain, "mcnemar": McNemar(**plain["mcnemar"])})
        rows.append(RunPaired(run=run.id, label=run.label, test=test))
    return rows


def band_section(
    data: StudyData, humans: RatingTable, runs: list[RunInfo], rows_by_run: Mapping[int, list[ModelAnswer]]
) -> list[RunInBand]:
    """Each run's mean kappa with the people against the people's band (runs whose kappa is
    defined with no one, and every run when no two people share an item, are left out)."""
    if data.is_graded:
        return []
    matrix = label_matrix(humans)
    band = people_band(matrix)
    if band is None:
        return []
    rows = []
    for run in runs:
        answers = {r.item: r.answer for r in model_ratings(data, run, rows_by_run[run.id]) if r.answer is not None}
        placed = model_in_band(matrix, band, answers)
        if placed is not None:
            plain = placed.to_dict()
            placed = ModelInBand(**{**plain, "human_kappa": Band(**plain["human_kappa"])})
            rows.append(RunInBand(run=run.id, label=run.label, placed=placed))
    return rows


@dataclass(frozen=True)
class AmongPeople:
    """The models among people: the joint IRT placement or why not, the paired tests and the human band
    (the fields of `StudyResults` of the same names)."""

    irt: Irt | None
    irt_reason: str | None
    paired: list[RunPaired]
    human_band: list[RunInBand]


def comparison_sections(
    data: StudyData,
    humans: RatingTable,
    runs: list[RunInfo],
    rows_by_run: Mapping[int, list[ModelAnswer]],
    *,
    seed: int,
) -> AmongPeople:
    scores = _scores(data, runs, rows_by_run)
    irt, reason = irt_section(data, humans, runs, scores)
    return AmongPeople(
        irt=irt,
        irt_reason=reason,
        paired=[] if data.is_graded else paired_section(humans, runs, scores),
        human_band=band_section(data, humans, runs, rows_by_run),
    )
