"""The training pages between the instructions and the items: practice questions, each followed by its
feedback, and the comprehension check. Like every participant page they land on the participant's
current step, so a refresh or a replayed POST shows the same page and writes nothing twice."""

from __future__ import annotations

from typing import Any, Protocol

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from parity.panels import Outcome
from participation.access import participant_view
from participation.exits import exit_context, study_exit
from participation.forms import ComprehensionForm, PracticeForm
from studies.htmx import HtmxHttpRequest
from studies.models import Participant, Study
from studies.participants.training import (
    comprehension_questions,
    comprehension_submit,
    practice_answer,
    practice_next,
    practice_questions,
)


def _step_url(participant: Participant) -> str:
    return reverse("participation:step", args=[participant.study.link])


class Walker(Protocol):
    """Whoever walks the training: a participant, or the researcher's preview (`participation.preview.Walk`)."""

    practice_answers: list[dict[str, Any]]
    practice_read: int
    comprehension_tries: int


def practice_page(
    request: HtmxHttpRequest,
    study: Study,
    walker: Walker,
    form: PracticeForm | None = None,
    preview: dict[str, str] | None = None,
) -> HttpResponse:
    """The current practice question, or its feedback once it is answered."""
    questions = practice_questions(study)
    position = min(walker.practice_read, len(questions) - 1)
    answered = walker.practice_answers[position] if len(walker.practice_answers) > position else None
    if form is None and answered is None:
        form = PracticeForm()
    context = {
        "study": study,
        "participant": walker,
        "question": questions[position],
        "number": position + 1,
        "total": len(questions),
        "answered": answered,
        "form": form,
        "preview": preview,
    }
    return render(request, "participation/practice.html", context, status=422 if form and form.errors else 200)


def comprehension_page(
    request: HtmxHttpRequest,
    study: Study,
    walker: Walker,
    form: ComprehensionForm | None = None,
    preview: dict[str, str] | None = None,
) -> HttpResponse:
    """The check's questions; after a wrong try, that it was wrong and how many tries are left (never
    which answer is right: the instructions are shown again instead)."""
    questions = comprehension_questions(study)
    context = {
        "study": study,
        "participant": walker,
        "form": form or ComprehensionForm(questions=questions, initial={"attempt": walker.comprehension_tries}),
        "tries_left": max(0, study.comprehension_tries - walker.comprehension_tries),
        "tries": study.comprehension_tries,
        "preview": preview,
    }
    return render(request, "participation/comprehension.html", context, status=422 if form and form.errors else 200)


def screened_out_page(
    request: HtmxHttpRequest,
    study: Study,
    preview: dict[str, str] | None = None,
    participant: Participant | None = None,
) -> HttpResponse:
    """Asked to return the study, with the study's screened-out code where it has one; or sent on
    the way the study's panel takes screen-outs (Connect's partial completes, SONA's credit, MTurk's
    submitted assignment)."""
    found = study_exit(study, Outcome.SCREENED_OUT, participant)
    context = {"study": study, "code": found.code, "preview": preview, **exit_context(study, found)}
    return render(request, "participation/screened_out.html", context)


@require_POST
@participant_view
def practice(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    form = PracticeForm(request.POST)
    if participant.step == Participant.Step.PRACTICE and not form.is_valid():
        return practice_page(request, participant.study, participant, form)
    if form.is_valid():
        practice_answer(participant=participant, answer=form.cleaned_data["answer"])
    return redirect(_step_url(participant))


@require_POST
@participant_view
def practice_continue(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    practice_next(participant=participant)
    return redirect(_step_url(participant))


@require_POST
@participant_view
def comprehension(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    if participant.step != Participant.Step.COMPREHENSION:
        return redirect(_step_url(participant))
    form = ComprehensionForm(request.POST, questions=comprehension_questions(participant.study))
    if not form.is_valid():
        return comprehension_page(request, participant.study, participant, form)
    comprehension_submit(participant=participant, answers=form.answers(), attempt=form.cleaned_data["attempt"])
    return redirect(_step_url(participant))
