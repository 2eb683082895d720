"""The researcher's web workflow: importing one's own items, a new study, the study page, launching,
pausing and closing it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation.services import item_set_import
from parity import benchmarks
from parity.benchmarks.base import DatasetError
from studies.access import get_study_for_researcher, has_permission, require_permission
from studies.models import Study
from studies.pay import PROLIFIC_MINIMUM_PENCE_PER_HOUR, PROLIFIC_RECOMMENDED_PENCE_PER_HOUR, hourly_pay
from studies.services import StudyError, study_create, study_set_status
from studies.workflow.forms import (
    DESIGN_PREFIX,
    BenchmarkChoiceForm,
    ItemSetImportForm,
    StatusForm,
    StudyCreateForm,
    named_set_choices,
)
from studies.workflow.selectors import benchmark_options, prolific_settings, study_page

ADD_STUDY = "studies.add_study"
CHANGE_STUDY = "studies.change_study"
#: what each button does, as the study page says it
MOVE_LABELS = {Study.Status.LIVE: "Launch", Study.Status.PAUSED: "Pause", Study.Status.CLOSED: "Close"}


@login_required
@require_http_methods(["GET", "POST"])
def study_new(request: HttpRequest) -> HttpResponse:
    """Pick a benchmark, then fill its form; saving goes through `study_create`. The creator owns it."""
    require_permission(request.user, ADD_STUDY)
    choice = BenchmarkChoiceForm(request.GET or None)
    if not choice.is_valid():
        return render(request, "studies/study_new.html", {"benchmarks": benchmark_options()})
    benchmark = choice.cleaned_data["benchmark"]
    prefill = {DESIGN_PREFIX + "item_set": choice.cleaned_data["item_set"]} if choice.cleaned_data["item_set"] else {}
    form = StudyCreateForm(request.POST or None, benchmark=benchmark, initial=prefill)
    if request.method == "POST" and form.is_valid():
        try:
            study = study_create(**form.create_arguments(), owner=request.user)
        except StudyError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Study “{study.name}” created as a draft: preview it, then launch it.")
            return redirect("studies:detail", study.pk)
    pay = hourly_pay(_pence(form["reward"].value()), _int(form["estimated_minutes"].value()) or 1)
    context = {
        "form": form,
        "definition": benchmarks.get(benchmark),
        "benchmark": benchmark,
        "pay": pay,
        "minimum": PROLIFIC_MINIMUM_PENCE_PER_HOUR,
        "recommended": PROLIFIC_RECOMMENDED_PENCE_PER_HOUR,
    }
    return render(request, "studies/study_form.html", context, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def items_import(request: HttpRequest) -> HttpResponse:
    """Import your own items (a CSV or JSONL file) as a named set, for researchers who may create
    studies; a broken file is refused whole, with the file, line and field of the problem."""
    require_permission(request.user, ADD_STUDY)
    choices = named_set_choices()
    form = ItemSetImportForm(
        request.POST or None, request.FILES or None, initial={"benchmark": choices[0][0] if choices else ""}
    )
    result = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            result = item_set_import(
                benchmark=data["benchmark"],
                name=data["name"],
                upload=data["file"],
                filename=data["file"].name,
                importer=request.user,
            )
        except DatasetError as exc:
            form.add_error("file", f"Refused, nothing was written: {exc}")
    status = 400 if form.errors else 200
    return render(request, "studies/items_import.html", {"form": form, "result": result}, status=status)


def _int(value: object) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return 0


def _pence(value: object) -> int:
    try:
        return round(float(str(value)) * 100)
    except (TypeError, ValueError):
        return 0


@login_required
def study_detail(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    page = study_page(study)
    context = {
        "page": page,
        "study": study,
        "may_change": has_permission(request.user, CHANGE_STUDY),
        "moves": [(status, MOVE_LABELS[status]) for status in page.moves],
        "prolific": prolific_settings(study) if study.status != Study.Status.DRAFT else [],
    }
    return render(request, "studies/study_detail.html", context)


@login_required
@require_POST
def study_status(request: HttpRequest, study_id: int) -> HttpResponse:
    """Launch, pause, resume or close: the owner and collaborators holding `studies.change_study`."""
    study = get_study_for_researcher(request.user, study_id, CHANGE_STUDY)
    form = StatusForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose what to do with the study.")
        return redirect("studies:detail", study.pk)
    try:
        study_set_status(study=study, status=form.cleaned_data["status"])
    except StudyError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"The study is now {study.get_status_display().lower()}.")
    return redirect("studies:detail", study.pk)
