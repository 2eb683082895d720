"""The training pages between the instructions and the items: practice questions, each followed by its
feedback, and the comprehension check. Like every participant page they land on the participant's
current step, so a refresh or a replayed POST shows the same page and writes nothing twice."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from participation.access import participant_view
from participation.forms import ComprehensionForm, PracticeForm
from studies.htmx import HtmxHttpRequest
from studies.models import Participant
from studies.services_training import (
    comprehension_questions,
    comprehension_submit,
    practice_answer,
    practice_next,
    practice_questions,
)


def _step_url(participant: Participant) -> str:
    return reverse("participation:step", args=[participant.study.link])


def practice_page(request: HtmxHttpRequest, participant: Participant, form: PracticeForm | None = None) -> HttpResponse:
    """The current practice question, or its feedback once it is answered."""
    questions = practice_questions(participant.study)
    position = min(participant.practice_read, len(questions) - 1)
    answered = participant.practice_answers[position] if len(participant.practice_answers) > position else None
    if form is None and answered is None:
        form = PracticeForm()
    context = {
        "study": participant.study,
        "participant": participant,
        "question": questions[position],
        "number": position + 1,
        "total": len(questions),
        "answered": answered,
        "form": form,
    }
    return render(request, "participation/practice.html", context, status=422 if form and form.errors else 200)


def comprehension_page(
    request: HtmxHttpRequest, participant: Participant, form: ComprehensionForm | None = None
) -> HttpResponse:
    """The check's questions; after a wrong try, that it was wrong and how many tries are left (never
    which answer is right: the instructions are shown again instead)."""
    questions = comprehension_questions(participant.study)
    context = {
        "study": participant.study,
        "participant": participant,
        "form": form or ComprehensionForm(questions=questions, initial={"attempt": participant.comprehension_tries}),
        "tries_left": max(0, participant.study.comprehension_tries - participant.comprehension_tries),
        "tries": participant.study.comprehension_tries,
    }
    return render(request, "participation/comprehension.html", context, status=422 if form and form.errors else 200)


def screened_out_page(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    """Asked to return the study; with the study's screened-out code where it has one."""
    study = participant.study
    code = study.no_consent_code
    context = {
        "study": study,
        "code": code,
        "redirect_url": f"{settings.PROLIFIC_COMPLETE_URL}?cc={code}" if code else "",
    }
    return render(request, "participation/screened_out.html", context)


@require_POST
@participant_view
def practice(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    form = PracticeForm(request.POST)
    if participant.step == Participant.Step.PRACTICE and not form.is_valid():
        return practice_page(request, participant, form)
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
        return comprehension_page(request, participant, form)
    comprehension_submit(participant=participant, answers=form.answers(), attempt=form.cleaned_data["attempt"])
    return redirect(_step_url(participant))
