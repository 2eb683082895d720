"""A study's units, built from the imported items as its design says (by `study_create`, and again
by `study_draft_update`), and the time and pay that follow from them: a study's, or a design's
before any study is made (`design_estimate`, which the new-study form and the API show and check)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count
from django.utils.translation import ngettext

from annotation.models import BenchmarkAsset, Item
from annotation.selectors import item_data, item_set_usable
from parity import benchmarks, sampling
from parity.benchmarks.base import ItemData
from parity.benchmarks.design import ShortPool
from studies.design.estimates import DesignEstimate, Training, estimate_of, followed_pay, pay_refusal
from studies.errors import StudyError
from studies.models import Study, Unit, UnitItem


def definition_asset(benchmark: str, key: str) -> Any:
    asset = BenchmarkAsset.objects.filter(benchmark=benchmark, key=key).first()
    return asset.data if asset else None


@dataclass(frozen=True)
class UnitsPlan:
    """A design resolved against the imported items, and the units it makes (lists of item keys)."""

    benchmark: str
    design: dict[str, Any]
    units: list[list[str]]
    items: dict[str, ItemData]
    attention_checks: int
    #: the items there were to draw from (all of them when none are sampled)
    available: int = 0
    #: each item's row, by key
    item_ids: dict[str, int] = field(default_factory=dict)


def units_plan(
    *, benchmark: str, design: dict[str, Any], owner: Any, sample: sampling.ItemSampling | None = None
) -> UnitsPlan:
    """Check `design` against the imported items and split them into units; `StudyError` says in
    words what is missing. `owner` must be allowed the item set the design names. `sample` keeps a
    subset of the items, drawn from its seed, before the units are cut (the same seed, the same items)."""
    definition = benchmarks.get(benchmark)
    set_name = definition.item_set(design)
    if set_name and owner is not None and not item_set_usable(user=owner, benchmark=benchmark, name=set_name):
        raise StudyError(
            f"no item set named {set_name!r} that you may use: import it first "
            "(another researcher's set is theirs alone)"
        )
    scope = definition.item_scope(design)
    scoped = Item.objects.filter(benchmark=benchmark, key__startswith=scope)
    # read as plain values: a benchmark holds thousands of items (AmbiBench 15,840) and the
    # new-study form plans its units on every view; model instances cost more than the plan itself
    rows = scoped.filter(is_attention_check=False).values_list("id", "key", "split", "prompt", "gold", "meta")
    item_ids = {key: pk for pk, key, *_ in rows}
    items = [ItemData(key, split, prompt, gold, meta) for _, key, split, prompt, gold, meta in rows]
    if not items:
        raise StudyError(
            f"no {benchmark} items named {scope}... are imported yet: import them first"
            if scope
            else f"no {benchmark} items are imported yet: run `manage.py import_benchmark {benchmark}` first"
        )
    attention = int(design.get("attention_checks", 0))
    available_checks = scoped.filter(is_attention_check=True).count()
    if attention > available_checks:
        where = f"{benchmark} {scope}..." if scope else benchmark
        asked = ngettext("%(n)d attention check asked for", "%(n)d attention checks asked for", attention)
        raise StudyError(f"{asked % {'n': attention}}, but {where} has {available_checks}")
    # the pool the units are cut from: the design's split (every benchmark's design names one)
    pool = [item for item in items if item.split == design.get("split", item.split)]
    available = len(pool)
    if sample is not None and sample.method != sampling.ALL:
        kept = {item.key for item in _sampled(definition, pool, sample)}
        items = [item for item in items if item.key in kept or item.split != design.get("split", item.split)]
    assets = {key: definition_asset(benchmark, key) for key in definition.design_assets}
    resolved = definition.resolve_design(design, assets)
    try:
        units = definition.build_units(items, resolved)
    except ShortPool as exc:
        if sample is not None and sample.method != sampling.ALL and sample.size is not None and sample.size < available:
            # the items drawn, not the items imported, are what the units lack
            raise StudyError(
                f"{exc.what} need {exc.needed} items; Items to draw is {sample.size} ({available} imported)",
                field="sample_size",
            ) from exc
        raise StudyError(str(exc), design_option=exc.option) from exc
    except (ValueError, KeyError) as exc:
        raise StudyError(str(exc)) from exc
    return UnitsPlan(benchmark, resolved, units, {item.key: item for item in items}, attention, available, item_ids)


def _sampled(definition: benchmarks.Benchmark, items: list[ItemData], sample: sampling.ItemSampling) -> list[ItemData]:
    problems = sample.errors(len(items))
    if problems:
        raise StudyError("; ".join(problems))
    categories = [definition.category_of(item.meta) or "" for item in items]
    if sample.method in sampling.BY_CATEGORY and not definition.category_field:
        raise StudyError(f"{definition.title}'s items have no categories to stratify by: draw at random instead")
    kept = set(sampling.sample([item.key for item in items], categories, sample))
    return [item for item in items if item.key in kept]


def study_sampling(study: Study) -> sampling.ItemSampling:
    """The item sampling a study records."""
    return sampling.ItemSampling(method=study.item_sampling, size=study.sample_size, seed=study.sample_seed)


def plan_estimate(plan: UnitsPlan, training: Training | None = None) -> DesignEstimate | None:
    """How long one participant takes in the units of `plan`, with `training` besides."""
    return estimate_of(benchmarks.get(plan.benchmark), plan.design, plan.units, training)


def pay_checked(
    plan: UnitsPlan,
    minutes: int | None,
    reward_pence: int | None,
    training: Training | None = None,
    panel: str = "prolific",
) -> tuple[int, int]:
    """The minutes and reward for `plan` (and `training`): those given, the design's estimate for
    those not; `StudyError` (with the figure) when the pay falls under the panel's minimum."""
    estimate = plan_estimate(plan, training)
    minutes, reward_pence = followed_pay(estimate, minutes, reward_pence)
    refusal = pay_refusal(reward_pence, minutes, estimate, panel)
    if refusal:
        raise StudyError(refusal)
    return minutes, reward_pence


def units_create(*, study: Study, plan: UnitsPlan) -> None:
    definition = benchmarks.get(plan.benchmark)
    capacity = int(plan.design.get("per_unit", 1))
    for position, keys in enumerate(plan.units, start=1):
        category = definition.unit_category([plan.items[key] for key in keys]) if keys else ""
        unit = Unit.objects.create(
            study=study, label=f"U{position}", position=position, capacity=capacity, category=category
        )
        UnitItem.objects.bulk_create(
            [UnitItem(unit=unit, item_id=plan.item_ids[key], order=order) for order, key in enumerate(keys, start=1)]
        )


def study_estimate(study: Study) -> DesignEstimate | None:
    """How long one participant takes in the units `study` has now, its training and explanations included."""
    sizes = study.units.annotate(n=Count("unit_items")).values_list("n", flat=True)
    return estimate_of(
        benchmarks.get(study.benchmark), study.design, [range(n) for n in sizes], Training.of_study(study)
    )


def follows_estimate(study: Study) -> bool:
    """Whether the study's minutes and reward are its design's estimate (none typed by a researcher)."""
    estimate = study_estimate(study)
    return estimate is not None and (study.estimated_minutes, study.reward_pence) == (
        estimate.minutes,
        estimate.reward_pence,
    )


def design_estimate(
    benchmark: str, design: Mapping[str, Any], training: Training | None = None
) -> DesignEstimate | None:
    """The estimate for `design` of `benchmark` (and `training`): from the design alone where it says
    how many answers a participant gives, else from the longest unit the imported items make; None
    when neither can tell (no items yet, or a design the items cannot fill)."""
    definition = benchmarks.get(benchmark)
    merged = definition.design(design)
    try:
        found = estimate_of(definition, merged, training=training)
        if found is not None:
            return found
        return estimate_of(definition, merged, _imported_units(benchmark, merged), training)
    except (TypeError, ValueError, KeyError):
        return None


def _imported_units(benchmark: str, design: dict[str, Any]) -> list[list[str]]:
    """The units the imported items make under `design` (lists of item keys)."""
    definition = benchmarks.get(benchmark)
    items = Item.objects.filter(
        benchmark=benchmark, key__startswith=definition.item_scope(design), is_attention_check=False
    )
    assets = {key: definition_asset(benchmark, key) for key in definition.design_assets}
    return definition.build_units([item_data(item) for item in items], definition.resolve_design(design, assets))
