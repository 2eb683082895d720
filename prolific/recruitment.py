"""Recruiting until precise: raise a Prolific study's places in steps until its target is met (the
95% CI of human accuracy narrow enough, or enough completions in every unit), then stop it, never
spending beyond the researcher's budget. The decision itself is pure (`parity.stats.recruitment`);
here the study's standing is read, a history point recorded and the decision applied through the
Prolific services. `manage.py prolific recruit` runs it (from cron), and so does every `prolific sync`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import transaction

from parity.stats.looks import planned_looks
from parity.stats.recruitment import (
    CI_WIDTH,
    PLANNED_LOOKS,
    RAISE,
    STOP,
    Decision,
    Standing,
    Target,
    affordable_places,
    describe,
    interval_width,
    next_action,
    precision_interval,
)
from prolific.client import ProlificClient
from prolific.currency import money
from prolific.models import ProlificFlag, ProlificStudy, RecruitmentPoint, RecruitRule, RecruitTarget
from prolific.preregistration import prolific_change_record, recruitment_plan
from prolific.services import ProlificStudyError, prolific_places_raise, prolific_study_transition, study_places
from studies.models import Participant, Response, StudyEvent, Unit

Status = Participant.Status


def prolific_recruit_configure(
    *,
    prolific_study: ProlificStudy,
    kind: str,
    value: float,
    max_spend_pence: int,
    step: int | None = None,
    rule: str | None = None,
    actor: Any = None,
) -> ProlificStudy:
    """Set (or, with kind "", clear) the study's recruitment target and budget, and (`rule`) how a
    CI-width target is met; None keeps the rule the study has."""
    if kind and kind not in RecruitTarget.values:
        raise ProlificStudyError(f"unknown target {kind!r}: use one of {', '.join(RecruitTarget.values)}")
    if rule is not None and rule not in RecruitRule.values:
        raise ProlificStudyError(f"unknown rule {rule!r}: use one of {', '.join(RecruitRule.values)}")
    if kind and (value is None or value <= 0 or not max_spend_pence or max_spend_pence <= 0):
        raise ProlificStudyError("a recruitment target needs a positive value and a maximum spend")
    if step is not None and step < 1:
        raise ProlificStudyError("the step adds at least one place")
    prolific_study.target_kind = kind
    prolific_study.target_value = value if kind else None
    prolific_study.max_spend_pence = max_spend_pence if kind else None
    prolific_study.target_step = step if step is not None else prolific_study.target_step
    prolific_study.target_rule = rule if rule is not None else prolific_study.target_rule
    before = recruitment_plan(ProlificStudy.objects.select_related("study").get(pk=prolific_study.pk))
    prolific_study.save(update_fields=["target_kind", "target_value", "max_spend_pence", "target_step", "target_rule"])
    after = recruitment_plan(prolific_study)
    if after != before:
        prolific_change_record(
            prolific_study=prolific_study,
            summary=f"Recruitment target: {after['rule'] if after else 'none'}",
            data={"action": "target", "target": after},
            actor=actor,
        )
    return prolific_study


def kept_accuracies(study_id: int) -> list[float]:
    """Completed, non-excluded participants' accuracies on real items, in the order they completed:
    what a "ci_width" target is judged on, by either rule."""
    from parity.stats import Rating, participant_accuracy  # numpy: loaded when a standing is computed

    rows = (
        Response.objects.filter(
            participant__study=study_id,
            participant__status=Status.COMPLETED,
            participant__excluded=False,
            is_attention_check=False,
        )
        .order_by("participant__completed_at", "participant_id")
        .values_list("participant__pseudonym", "item__key", "item__gold", "correct", "participant__unit__label")
    )
    ratings = [
        Rating(annotator=who, item=key, correct=correct if gold else None, unit=unit)
        for who, key, gold, correct, unit in rows
    ]
    # participants come first-seen, so in the order they completed
    return [p.accuracy for p in participant_accuracy(ratings) if p.accuracy is not None]


def human_ci_width(study_id: int) -> tuple[int, float | None]:
    """The width in points of the interval a "ci_width" target is judged on by the confidence
    sequence (`precision_interval`, which the results print for such a study): (the number of kept
    participants, the width)."""
    accuracies = kept_accuracies(study_id)
    return len(accuracies), interval_width(precision_interval(accuracies))


def recruitment_standing(prolific_study: ProlificStudy) -> tuple[Standing, int]:
    """The study's standing, and its completed, kept participants."""
    study_id = prolific_study.study_id
    people = Participant.objects.filter(study=study_id, is_imported=False)
    statuses = Counter(people.values_list("status", flat=True))
    kept_per_unit = Counter(people.filter(status=Status.COMPLETED, excluded=False).values_list("unit_id", flat=True))
    units = Unit.objects.filter(study=study_id).values_list("pk", flat=True)
    looks, width = None, None
    if prolific_study.target_kind == CI_WIDTH and prolific_study.target_rule == PLANNED_LOOKS:
        accuracies = kept_accuracies(study_id)
        kept = len(accuracies)
        looks = planned_looks(accuracies, float(prolific_study.target_value or 0))
    else:
        kept, width = human_ci_width(study_id)
    standing = Standing(
        completed=statuses[Status.COMPLETED],
        working=statuses[Status.ACTIVE],
        places=prolific_study.places,
        ci_width=width if kept >= 2 else None,
        least_per_unit=min((kept_per_unit[pk] for pk in units), default=0),
        recruiting=recruiting(prolific_study),
        kept=kept,
        looks=looks,
    )
    return standing, kept


def recruiting(prolific_study: ProlificStudy) -> bool:
    """Whether the study recruits: published, or moved to awaiting review by Prolific itself once every
    place was taken ("All participants submissions are completed",
    https://docs.prolific.com/api-reference/studies/the-study-object), which a raise of the places
    answers. A study Parity stopped (its target met, its budget reached, or a researcher's stop) does
    not recruit."""
    status = prolific_study.status
    if status == ProlificStudy.Status.ACTIVE:
        return True
    return status == ProlificStudy.Status.AWAITING_REVIEW and not stopped_by_parity(prolific_study)


def stopped_by_parity(prolific_study: ProlificStudy) -> bool:
    """Whether Parity ever stopped the study on Prolific (the audit trail records each transition)."""
    return StudyEvent.objects.filter(
        study=prolific_study.study_id, kind=StudyEvent.Kind.PROLIFIC, data__action="stop"
    ).exists()


def recruitment_target(prolific_study: ProlificStudy) -> Target:
    # `recruitment_configure` sets both with a target kind, and clears both without one
    if prolific_study.target_value is None or prolific_study.max_spend_pence is None:
        raise ProlificStudyError(f"{prolific_study.study.name!r} has no recruitment target")
    return Target(
        kind=prolific_study.target_kind,
        value=prolific_study.target_value,
        step=prolific_study.target_step,
        max_spend_pence=prolific_study.max_spend_pence,
        reward_pence=prolific_study.study.reward_pence,
        capacity=study_places(prolific_study.study),
        rule=prolific_study.target_rule,
    )


def budget_reason(target: Target, decision: Decision, currency: str) -> str:
    """Why the budget (or the units' capacity) stopped recruitment, its amounts in the workspace's
    currency (the pure rule's own sentence writes them in pounds, whatever the workspace)."""
    ceiling = affordable_places(target.max_spend_pence, target.reward_pence)
    limit = "units' capacity" if target.capacity is not None and target.capacity < ceiling else "budget"
    spent = decision.places * target.reward_pence
    return (
        f"{limit} reached before the target ({describe(target)}): {decision.places} places, "
        f"{money(spent, currency)} of {money(target.max_spend_pence, currency)}"
    )


def recruitment_step(prolific_study: ProlificStudy, client: ProlificClient | None = None) -> RecruitmentPoint:
    """Record where the study stands and act on it: wait, raise the places, or stop the study.

    The study's row is locked meanwhile, and a raise only happens once every place is taken, so
    running it twice in a row raises once. A call to Prolific that fails leaves no point recorded."""
    with transaction.atomic():
        prolific_study = ProlificStudy.objects.select_for_update().select_related("study").get(pk=prolific_study.pk)
        if not prolific_study.target_kind:
            raise ProlificStudyError(f"{prolific_study.study.name!r} has no recruitment target")
        standing, kept = recruitment_standing(prolific_study)
        target = recruitment_target(prolific_study)
        decision: Decision = next_action(standing, target)
        reason = (
            budget_reason(target, decision, prolific_study.currency) if decision.budget_reached else decision.reason
        )
        if decision.action == RAISE:
            prolific_places_raise(prolific_study=prolific_study, places=decision.places, client=client)
        elif decision.action == STOP:
            prolific_study_transition(prolific_study=prolific_study, action="stop", client=client)
            if decision.budget_reached:
                ProlificFlag.objects.get_or_create(
                    prolific_study=prolific_study,
                    kind=ProlificFlag.Kind.BUDGET_REACHED,
                    subject=prolific_study.prolific_id,
                    defaults={"detail": f"Recruitment stopped: {reason}"},
                )
        return RecruitmentPoint.objects.create(
            prolific_study=prolific_study,
            completed=standing.completed,
            kept=kept,
            ci_width=standing.ci_width,
            places=prolific_study.places,
            action=decision.action,
            reason=reason,
        )
