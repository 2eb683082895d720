"""What a study's preregistration says of recruiting on Prolific: the precision target (recruit until
the CI is narrow enough, or every unit has enough completions, within a budget) when one is set, and
the audit trail's record of what Parity did on Prolific after launch. Registered as the document's
"recruitment" section in `ProlificConfig.ready()`."""

from __future__ import annotations

from typing import Any

from parity.stats.recruitment import Target, describe
from prolific.models import ProlificStudy
from studies.models import Study, StudyEvent
from studies.preregistration.events import study_event_record


def recruitment_plan(prolific_study: ProlificStudy) -> dict[str, Any] | None:
    """The precision target as the document and the trail name it (compared as is); None without one."""
    if not prolific_study.target_kind:
        return None
    target = Target(
        kind=prolific_study.target_kind,
        value=float(prolific_study.target_value or 0),
        step=prolific_study.target_step,
        max_spend_pence=int(prolific_study.max_spend_pence or 0),
        reward_pence=prolific_study.study.reward_pence,
        rule=prolific_study.target_rule,
    )
    return {
        "kind": target.kind,
        "value": target.value,
        "step": target.step,
        "max_spend_pence": target.max_spend_pence,
        "rule": describe(target),
        **({"by": target.rule} if target.kind == "ci_width" else {}),
    }


def study_recruitment(study: Study) -> dict[str, Any] | None:
    found = ProlificStudy.objects.filter(study=study).select_related("study").first()
    return recruitment_plan(found) if found is not None else None


def prolific_change_record(
    *, prolific_study: ProlificStudy, summary: str, data: dict[str, Any], actor: Any = None
) -> StudyEvent | None:
    """Record an action on Prolific that changes the study (never a Prolific id of a person)."""
    return study_event_record(
        study=prolific_study.study, kind=StudyEvent.Kind.PROLIFIC, summary=summary, data=data, actor=actor
    )
