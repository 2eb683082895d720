"""Where a participant goes on from the study, through the study's panel (`parity.panels`), and the
panel's name as the participant's pages say it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.utils.translation import gettext_lazy

from parity import panels
from parity.panels import Exit, Outcome
from studies.models import Participant, Study

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

#: the lab's own link has no site to go back to: its sentences name the page the participant came from
_LAB_PLACE = gettext_lazy("the lab's study page")


def panel_place(study: Study) -> StrOrPromise:
    """The panel as the participant's sentences name it ("return the study on …")."""
    return _LAB_PLACE if study.panel == panels.LAB else study.recruiting_panel.name


def study_exit(study: Study, outcome: Outcome, participant: Participant | None = None) -> Exit:
    codes = panels.Codes(study.completion_code, study.failed_attention_code, study.no_consent_code)
    return panels.panel_exit(
        study.panel,
        study.panel_settings,
        outcome,
        codes,
        participant_id=participant.prolific_pid if participant is not None else "",
        session_id=participant.prolific_session_id if participant is not None else "",
        prolific_complete_url=settings.PROLIFIC_COMPLETE_URL,
    )


def finished_exit(participant: Participant) -> Exit:
    """The done page's: the failed-check code's way out for a participant excluded for failed checks."""
    excluded = participant.excluded and bool(participant.study.failed_attention_code)
    return study_exit(participant.study, Outcome.FAILED_CHECK if excluded else Outcome.COMPLETED, participant)


def exit_context(study: Study, found: Exit) -> dict:
    """What the done, declined and screened-out pages need of the way out."""
    return {
        "exit": found,
        "redirect_url": found.url if found.kind == "redirect" else "",
        "panel_place": panel_place(study),
        "is_prolific": study.panel == panels.PROLIFIC,
    }


def for_panel(study: Study | None, prolific: str, other: str, **params: str) -> str:
    """`prolific` (translated) for Prolific's studies, their sentences as they always were; else
    `other` (translated) with the panel's place put in for `{panel}` and `params` for theirs."""
    if study is None or study.panel == panels.PROLIFIC:
        return prolific
    return other.format(panel=panel_place(study), **params)
