"""Reads for results and exports: database rows turned into the plain inputs of `parity.stats`.

Everything a results page, an export or the API needs is loaded by `load_studies_data` in a fixed
number of queries, whatever the number of studies, units, participants or model runs, into a
`StudyData` (`results.loading.study_data`). The human answers, the bulk of a study, are read as
columns by `results.loading.human_answers`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from annotation.models import Item
from modelruns.models import InstructionScore, ModelResponse, ModelRun
from modelruns.selectors import active_run_counts
from prolific.models import ProlificStudy
from results.loading.columns import ItemInfo
from results.loading.human_answers import load_humans
from results.loading.study_data import (
    BaselineScore,
    ChecklistRecords,
    HeadlinesData,
    ModelAnswer,
    Recruitment,
    RunInfo,
    StudyData,
    UnitInfo,
    setting_label,
)
from studies.models import Preregistration, Response, Study, UnitItem


def load_study_data(study: Study, *, answers: bool = True) -> StudyData:
    return load_studies_data([study], answers=answers)[study.pk]


def load_headlines_data(studies: Iterable[Study]) -> HeadlinesData:
    # no methods section here: the Prolific studies are not read
    everything = load_studies_data(studies, recruitment=False)
    # the results read done runs only; the list counts the others too (queued demo runs are no "0")
    return HeadlinesData(studies=everything, active_runs=active_run_counts(list(everything)))


def load_results_records(data: StudyData, *, closing: bool) -> None:
    """Read what the results are computed from besides the answers, before they are computed (the
    computing queries nothing): the participants flagged for review (for data read with its answers),
    their closing answers (with `closing`: the study asks a question the results summarise), the
    explanations they wrote."""
    # each is a cached property of the data, read once here
    if data.participants is not None:
        data.flagged_participants  # noqa: B018
    if closing:
        data.closing_answers  # noqa: B018
    data.explanations  # noqa: B018


def study_found(study_id: int) -> Study | None:
    """The study, or None when it was deleted (a task queued before)."""
    return Study.objects.filter(pk=study_id).first()


def study_answer_count(study_id: int) -> int:
    return Response.objects.filter(participant__study_id=study_id).count()


def load_checklist_records(study: Study) -> ChecklistRecords:
    found = Preregistration.objects.filter(study=study).first()
    return ChecklistRecords(
        item_set_size=study_item_set_size(study),
        preregistration_frozen_at=found.frozen_at if found is not None else None,
        preregistration_sha256=found.sha256 if found is not None else "",
    )


def load_studies_data(
    studies: Iterable[Study], *, answers: bool = True, recruitment: bool = True
) -> dict[int, StudyData]:
    """Units, items, runs, human and model answers of every study, in nine queries at most.
    Without `answers`: units, items and runs only (what the results filters offer), in two; read
    the answers later with `load_answers`. Without `recruitment`, the Prolific studies are not read
    (a page that shows no methods section)."""
    data = {study.pk: StudyData(study=study, answers_read=False) for study in studies}
    if not data:
        return data
    _load_units_and_items(data)
    _load_runs(data)
    if answers:
        load_answers(data, recruitment=recruitment)
    return data


def load_answers(data: dict[int, StudyData], *, recruitment: bool = True) -> None:
    """The human and model answers (and instructions executed) of studies whose units, items and
    runs are read: one query for the participants, one for their answers, one for the items
    answered outside the units (attention checks), one for the model answers, one for the
    instructions (instruction induction only), one for the Prolific studies (with `recruitment`)."""
    load_humans(data)
    _load_model_answers(data)
    _load_baselines(data)
    if recruitment:
        _load_recruitment(data)
    for study_data in data.values():
        study_data.answers_read = True


def _load_recruitment(data: dict[int, StudyData]) -> None:
    for row in ProlificStudy.objects.filter(study_id__in=list(data)).values(
        "study_id",
        "places",
        "status",
        "bonus_per_correct_pence",
        "target_kind",
        "target_value",
        "target_rule",
        "currency",
    ):
        data[row["study_id"]].recruitment = Recruitment(
            places=row["places"],
            status=row["status"],
            bonus_per_correct_pence=row["bonus_per_correct_pence"],
            target_kind=row["target_kind"],
            target_value=row["target_value"],
            target_rule=row["target_rule"],
            currency=row["currency"],
        )


def _load_units_and_items(data: dict[int, StudyData]) -> None:
    rows = (
        UnitItem.objects.filter(unit__study_id__in=list(data))
        .order_by("unit__study_id", "unit__position", "order")
        .values(
            "unit__study_id",
            "unit__label",
            "unit__position",
            "unit__category",
            "unit__capacity",
            "order",
            "item_id",
            "item__key",
            "item__gold",
            "item__meta",
            "item__prompt",
            "item__is_attention_check",
        )
    )
    units: dict[int, dict[str, UnitInfo]] = defaultdict(dict)
    item_units: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    first: dict[int, dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for row in rows:
        study_id, label = row["unit__study_id"], row["unit__label"]
        units[study_id].setdefault(
            label, UnitInfo(label, row["unit__position"], row["unit__category"], row["unit__capacity"])
        )
        item_units[study_id][row["item__key"]].append(label)
        first[study_id].setdefault(row["item__key"], row)
    for study_id, study_data in data.items():
        study_data.units = list(units[study_id].values())
        study_data.items = {
            key: ItemInfo(
                id=row["item_id"],
                key=key,
                gold=row["item__gold"],
                meta=row["item__meta"] or {},
                is_attention_check=row["item__is_attention_check"],
                units=tuple(item_units[study_id][key]),
                order=row["order"],
                prompt=row["item__prompt"] or {},
            )
            for key, row in first[study_id].items()
        }


def _load_baselines(data: dict[int, StudyData]) -> None:
    """Instruction induction's written and gold instructions as executed by chosen models (one
    query, only when instruction-induction studies are asked for)."""
    wanted = [pk for pk, study_data in data.items() if study_data.study.definition.executes_instructions]
    if not wanted:
        return
    rows = (
        InstructionScore.objects.filter(study_id__in=wanted)
        .order_by("study_id", "executor__name", "pk")
        .values(
            "study_id",
            "executor__name",
            "source",
            "task",
            "response__participant_id",
            "response__item__key",
            "execution_accuracy",
            "reference_similarity",
            "similarity_model",
            "similarity_scorer",
            "similarity_layer",
            "similarity_rescaled",
            "similarity_baseline",
            "created_at",
        )
    )
    for row in rows:
        data[row["study_id"]].baseline_scores.append(
            BaselineScore(
                executor=row["executor__name"],
                source=row["source"],
                task=row["task"],
                participant_id=row["response__participant_id"],
                item_key=row["response__item__key"],
                execution_accuracy=row["execution_accuracy"],
                reference_similarity=row["reference_similarity"],
                similarity_model=row["similarity_model"],
                similarity_scorer=row["similarity_scorer"],
                similarity_layer=row["similarity_layer"],
                similarity_rescaled=row["similarity_rescaled"],
                similarity_baseline=row["similarity_baseline"],
                scored_at=row["created_at"],
            )
        )


def _load_runs(data: dict[int, StudyData]) -> None:
    # a run enters the results once it is done; its progress is the model-runs page's business
    runs = (
        ModelRun.objects.filter(study_id__in=list(data), status="done")
        .select_related("spec")
        .order_by("study_id", "spec__name", "pk")
    )
    for run in runs:
        study_data = data[run.study_id]
        setting = run.setting or {}
        study_data.runs.append(
            RunInfo(
                id=run.pk,
                model=str(run.spec),
                setting=setting,
                status=str(run.status),
                setting_label=setting_label(study_data.study, setting),
                model_id=run.spec.model,
                revision=run.spec.revision,
                dtype=run.spec.dtype,
                kind=run.spec.kind,
                identity=run.model_identity or {},
            )
        )


def _load_model_answers(data: dict[int, StudyData]) -> None:
    study_of = {run.id: pk for pk, study_data in data.items() for run in study_data.runs}
    if not study_of:
        return
    rows = (
        ModelResponse.objects.filter(run_id__in=list(study_of))
        .order_by("run_id", "item__key", "variant")
        .values("run_id", "item__key", "variant", "answer", "valid", "correct", "scores")
    )
    for row in rows:
        study_data = data[study_of[row["run_id"]]]
        if row["item__key"] not in study_data.items:
            continue  # only the items humans see are put side by side
        study_data.model_answers.append(
            ModelAnswer(
                run_id=row["run_id"],
                item_key=row["item__key"],
                variant=row["variant"] or "",
                answer=row["answer"] or None,
                valid=bool(row["valid"]),
                # a written answer waiting for people's grades (MiQA's generative task) is not scored
                correct=None if (row["scores"] or {}).get("ungraded") else row["correct"],
                scores=row["scores"] or {},
            )
        )


def study_item_set_size(study: Study) -> int:
    """How many items the study's item set holds, attention checks aside: the benchmark's items in the
    study's scope (a researcher's own set) and of the split its design draws on (the implicature
    test set, not its dev pool), or the benchmark's whole scope where the design names no split that
    holds items (AmbiBench's "split" is how a unit is cut, not a set of items)."""
    items = Item.objects.filter(
        benchmark=study.benchmark,
        key__startswith=study.definition.item_scope(study.design),
        is_attention_check=False,
    )
    split = study.design.get("split")
    if isinstance(split, str) and split and items.filter(split=split).exists():
        return items.filter(split=split).count()
    return items.count()
