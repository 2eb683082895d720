"""The reviewer's pages: one participant's answers in context, and the queue of written answers to
verify. Each view: the access helper, a form, one service, render or redirect."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from review.forms import FILTERS, DecisionForm, ListFiltersForm, MarkForm, QueueForm
from review.selectors import (
    STATES,
    next_flagged,
    participant_for_review,
    participant_review,
    queue_answer,
    queue_counts,
    queue_step,
    study_written_answers,
    verifier_agreement,
)
from studies.access import (
    EXCLUDE_PARTICIPANT,
    VERIFY_RESPONSE,
    VIEW_PARTICIPANT,
    VIEW_RESPONSE,
    get_study_for_researcher,
    has_permission,
    require_permission,
)
from studies.models import Participant, Study, VerificationMark
from studies.participants import decisions
from studies.participants.answers import responses_verify
from studies.participants.identity import can_see_identities
from studies.participants.withholding import Withholder, study_withholder


def _participant(request: HttpRequest, study_id: int, participant_id: int, permission: str) -> Participant:
    study = get_study_for_researcher(request.user, study_id, permission)
    require_permission(request.user, VIEW_RESPONSE)
    participant = participant_for_review(study, participant_id)
    if participant is None:
        raise Http404("No participant of this study has this id.")
    return participant


def _withholder(request: HttpRequest, study: Study) -> Withholder | None:
    """A participant may type their own id into an answer: shown only to those who may see identities."""
    return None if can_see_identities(request.user) else study_withholder(study)


def _review_url(participant: Participant, filters: str) -> str:
    url = reverse("review:participant", args=[participant.study_id, participant.pk])
    return f"{url}?{urlencode({FILTERS: filters})}" if filters else url


@login_required
@require_GET
def participant_page(request: HttpRequest, study_id: int, participant_id: int) -> HttpResponse:
    """Every answer in order with the item, the gold, the answer and its evidence; the flags with
    their figures; the Prolific submission; exclude / include and the next flagged participant."""
    participant = _participant(request, study_id, participant_id, VIEW_PARTICIPANT)
    filters = ListFiltersForm(request.GET).filters()
    following = next_flagged(participant)
    review = participant_review(participant, _withholder(request, participant.study))
    context = {
        "study": participant.study,
        "review": review,
        "filters": filters,
        "list_url": reverse("admin:studies_participant_changelist") + (f"?{filters}" if filters else ""),
        "next_url": _review_url(following, filters) if following else None,
        "may_exclude": has_permission(request.user, EXCLUDE_PARTICIPANT),
        "form": DecisionForm(initial={"reason": review.suggested_reason}),
    }
    return render(request, "review/participant.html", context)


@login_required
@require_POST
def participant_decide(request: HttpRequest, study_id: int, participant_id: int) -> HttpResponse:
    participant = _participant(request, study_id, participant_id, EXCLUDE_PARTICIPANT)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(map(str, errors)))
        return redirect(_review_url(participant, ListFiltersForm(request.POST).filters()))
    if form.cleaned_data["decision"] == "exclude":
        decisions.participants_exclude(
            participant_ids=[participant.pk], reason=form.cleaned_data["reason"].strip(), actor=request.user
        )
        messages.success(request, f"{participant.pseudonym} excluded from the results.")
    else:
        decisions.participants_include(participant_ids=[participant.pk], actor=request.user)
        messages.success(request, f"{participant.pseudonym} included in the results again.")
    return redirect(_review_url(participant, form.cleaned_data[FILTERS]))


def _queue_url(study: Study, role: str, state: str, at: int | None) -> str:
    query = {"role": role, "state": state, **({"at": at} if at else {})}
    return f"{reverse('review:verify', args=[study.pk])}?{urlencode(query)}"


@login_required
@require_GET
def verify_queue(request: HttpRequest, study_id: int) -> HttpResponse:
    """One written answer at a time beside its task's demonstrations and references; right, wrong
    or skip (keys r, w, s), its marks' history, and the verifiers' agreement."""
    study = get_study_for_researcher(request.user, study_id, VIEW_RESPONSE)
    if not study.definition.manual_verification:
        raise Http404("This study's answers are not verified by hand.")
    role, state, at = QueueForm(request.GET).choice()
    previous, here, following = queue_step(study, role, state, at)
    counts = queue_counts(study, role)
    context = {
        "study": study,
        "role": role,
        "state": state,
        "states": [(key, label, _queue_url(study, role, key, None), counts[key]) for key, label in STATES.items()],
        "roles": [(key, label, _queue_url(study, key, state, None)) for key, label in VerificationMark.Role.choices],
        "answer": queue_answer(study, here, role, _withholder(request, study)) if here else None,
        "previous_url": _queue_url(study, role, state, previous) if previous else None,
        "next_url": _queue_url(study, role, state, following) if following else None,
        "agreement": verifier_agreement(study),
        "may_verify": has_permission(request.user, VERIFY_RESPONSE),
    }
    return render(request, "review/verify.html", context)


@login_required
@require_POST
def verify_mark(request: HttpRequest, study_id: int, response_id: int) -> HttpResponse:
    """Right, wrong or cleared (a new mark in the history), or skipped (none); then the next answer."""
    study = get_study_for_researcher(request.user, study_id, VERIFY_RESPONSE)
    form = MarkForm(request.POST)
    if not form.is_valid():
        return redirect(_queue_url(study, VerificationMark.Role.FIRST, "unverified", response_id))
    if not study_written_answers(study).filter(pk=response_id).exists():
        raise Http404("No written answer of this study has this id.")
    role, state, verdict = form.cleaned_data["role"], form.cleaned_data["state"], form.cleaned_data["verdict"]
    if verdict != "skip":
        responses_verify(response_ids=[response_id], correct=MarkForm.CORRECT[verdict], user=request.user, role=role)
    # the next answer: the one after this, or, when marking took this one out of the queue, the
    # one now in its place
    _previous, here, following = queue_step(study, role, state, response_id)
    return redirect(_queue_url(study, role, state, (following if here == response_id else here) or response_id))
