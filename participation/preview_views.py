"""The researcher's preview pages: the participant's templates, driven by a session-only walk
(`participation.preview`); nothing is written to the database."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from annotation.models import Item
from participation import preview, training_views
from participation.forms import ClosingForm, ComprehensionForm, ConsentForm, PracticeForm, PreviewAnswerForm
from participation.i18n import study_language, translated, translated_choices
from studies.access import get_study_for_researcher
from studies.design import explanations
from studies.design.closing_questions import asked, study_keys
from studies.htmx import HtmxHttpRequest
from studies.models import Study
from studies.participants.answer_tokens import answer_token, preview_owner
from studies.participants.training import comprehension_questions


def _context(study: Study, walk: preview.Walk, action: str, **extra: Any) -> dict[str, Any]:
    return {
        "study": study,
        "participant": walk,
        "preview": {
            "action": reverse(f"participation:preview_{action}", args=[study.pk]) if action else "",
            "restart": reverse("participation:preview_restart", args=[study.pk]),
            "study_url": reverse("studies:detail", args=[study.pk]),
            **{name: reverse(f"participation:preview_{name}", args=[study.pk]) for name in TRAINING_ACTIONS},
        },
        **extra,
    }


#: the training's forms post to these preview URLs (`participation:preview_<name>`)
TRAINING_ACTIONS = ("practice", "practice_next", "comprehension")


def _item_context(
    study: Study, walk: preview.Walk, item: Item, error: str = "", typed: str = "", typed_explanation: str = ""
) -> dict[str, Any]:
    screen = preview.screen(study, walk, item)
    context = _context(
        study,
        walk,
        "answer",
        item=item,
        item_token=answer_token(preview_owner(study.pk), walk.answered + 1, item.pk),
        error=error,
        position=walk.answered + 1,
        total=walk.total,
        percent=round(100 * walk.answered / max(walk.total, 1)),
        shown=screen.shown,
        choices=translated_choices(screen.choices),
        item_template=screen.template,
        history=preview.history(study, walk, item),
        typed=typed,
        pasted=False,
        attention_check=item.is_attention_check,
        **explanations.box_context(study, walk.answered + 1, typed_explanation),
    )
    # the item form posts where the preview's answers go (the template names one URL for both paths)
    return {
        **context,
        "answer_url": context["preview"]["action"],
        "step_url": reverse("participation:preview", args=[study.pk]),
    }


def _render(
    request: HtmxHttpRequest,
    study: Study,
    walk: preview.Walk,
    error: str = "",
    typed: str = "",
    typed_explanation: str = "",
) -> HttpResponse:
    """The walk's page in the study's language, as participants see it (the preview's own notes stay English)."""
    with study_language(study):
        return _render_step(request, study, walk, translated(error), typed, typed_explanation)


def _render_step(
    request: HtmxHttpRequest, study: Study, walk: preview.Walk, error: str, typed: str, typed_explanation: str = ""
) -> HttpResponse:
    if walk.step == "consent":
        return render(request, "participation/consent.html", _context(study, walk, "consent"))
    if walk.step == "instructions":
        return render(request, "participation/instructions.html", _context(study, walk, "begin"))
    shown = _context(study, walk, "")["preview"]
    if walk.step == "practice":
        return training_views.practice_page(request, study, walk, preview=shown)
    if walk.step == "comprehension":
        return training_views.comprehension_page(request, study, walk, preview=shown)
    if walk.step == "screened_out":
        return training_views.screened_out_page(request, study, preview=shown)
    # an item is current on the items step until the last answer moves the walk on
    if walk.step == "items" and (item := preview.current_item(walk)) is not None:
        template = "participation/partials/_item.html" if request.htmx else "participation/item_page.html"
        return render(request, template, _item_context(study, walk, item, error, typed, typed_explanation))
    return render(
        request,
        "participation/preview_end.html",
        _context(
            study,
            walk,
            "",
            declined=walk.step == "declined",
            excluded=preview.excluded(study, walk),
            code=study.no_consent_code
            if walk.step == "declined"
            else (
                study.failed_attention_code
                if preview.excluded(study, walk) and study.failed_attention_code
                else study.completion_code
            ),
            closing=_closing_preview(study) if walk.step != "declined" else None,
        ),
    )


def _closing_preview(study: Study) -> ClosingForm | None:
    """The study's closing questions as the done page shows them, for reading only."""
    questions = asked(study_keys(study))
    if not questions:
        return None
    form = ClosingForm(questions=questions)
    for field in form.fields.values():
        field.disabled = True
    return form


@login_required
@require_GET
@never_cache  # as the participant's: Back shows the walk's current step
def preview_step(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    return _render(request, study, preview.walk_for(request, study))


@login_required
@require_POST
def preview_restart(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    preview.walk_start(request, study)
    return redirect("participation:preview", study.pk)


@login_required
@require_POST
def preview_consent(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    form = ConsentForm(request.POST)
    walk = preview.walk_for(request, study)
    if form.is_valid():
        preview.walk_save(request, study, preview.walk_consent(walk, form.cleaned_data["agree"]))
    return redirect("participation:preview", study.pk)


@login_required
@require_POST
def preview_begin(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    preview.walk_save(request, study, preview.walk_begin(study, preview.walk_for(request, study)))
    return redirect("participation:preview", study.pk)


@login_required
@require_POST
def preview_answer(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    walk = preview.walk_for(request, study)
    form = PreviewAnswerForm(request.POST)
    error = ""
    if form.is_valid() and _too_long(study, form.cleaned_data["position"], form.cleaned_data["explanation"]):
        # refused as the participant's page refuses it: nothing recorded, both texts given back
        error = explanations.TOO_LONG_MESSAGE
    elif form.is_valid():
        error = preview.walk_answer(
            study,
            walk,
            item_token=form.cleaned_data["item"],
            position=form.cleaned_data["position"],
            raw=form.cleaned_data["answer"],
        )
        preview.walk_save(request, study, walk)
    if error:
        return _render(
            request,
            study,
            walk,
            error,
            typed=form.cleaned_data["answer"],
            typed_explanation=form.cleaned_data["explanation"],
        )
    if request.htmx:
        # the next item swaps in; the end of the study is a page of its own
        return (
            _render(request, study, walk)
            if walk.step == "items"
            else HttpResponseClientRedirect(reverse("participation:preview", args=[study.pk]))
        )
    return redirect("participation:preview", study.pk)


@login_required
@require_POST
def preview_practice(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    form = PracticeForm(request.POST)
    walk = preview.walk_for(request, study)
    if form.is_valid():
        preview.walk_save(request, study, preview.walk_practice_answer(study, walk, form.cleaned_data["answer"]))
    return redirect("participation:preview", study.pk)


@login_required
@require_POST
def preview_practice_next(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    preview.walk_save(request, study, preview.walk_practice_next(study, preview.walk_for(request, study)))
    return redirect("participation:preview", study.pk)


@login_required
@require_POST
def preview_comprehension(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    walk = preview.walk_for(request, study)
    form = ComprehensionForm(request.POST, questions=comprehension_questions(study))
    if form.is_valid():
        walk = preview.walk_comprehension(study, walk, form.answers(), form.cleaned_data["attempt"])
        preview.walk_save(request, study, walk)
    return redirect("participation:preview", study.pk)


def _too_long(study: Study, position: int, explanation: str) -> bool:
    return len(explanation.strip()) > explanations.MAX_CHARS and explanations.asked_at(study, position)
