"""The researcher's web workflow: importing one's own items, a new study, the study page, editing
a draft, duplicating a study, launching, pausing and closing it."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.services import inspect_task_import, item_set_import
from parity import panels
from parity.benchmarks.base import DatasetError
from studies.access import get_study_for_researcher, has_permission, require_permission
from studies.bounds import pence_of
from studies.design.pay import PROLIFIC_RECOMMENDED_PENCE_PER_HOUR, hourly_pay
from studies.errors import StudyError
from studies.htmx import HtmxHttpRequest
from studies.models import Study
from studies.preregistration.services import PreregistrationError, preregistration_update
from studies.setup.drafts import study_draft_update, study_duplicate
from studies.setup.settings_form import DESIGN_PREFIX, error_field
from studies.setup.studies import study_create, study_set_status
from studies.workflow.forms import StatusForm, StudyForm
from studies.workflow.forms_items import (
    BenchmarkChoiceForm,
    InspectTaskImportForm,
    ItemSetImportForm,
    named_set_choices,
)
from studies.workflow.forms_preregistration import PreregistrationForm, PreregistrationFormatForm
from studies.workflow.selectors import (
    benchmark_options,
    panel_setup,
    preregistration_panel,
    prolific_settings,
    study_page,
)

ADD_STUDY = "studies.add_study"
CHANGE_STUDY = "studies.change_study"
#: what each button does, as the study page says it
MOVE_LABELS: dict[str, str] = {Study.Status.LIVE: "Launch", Study.Status.PAUSED: "Pause", Study.Status.CLOSED: "Close"}


@login_required
@require_http_methods(["GET", "POST"])
def study_new(request: HtmxHttpRequest) -> HttpResponse:
    """Pick a benchmark, then fill its form; saving goes through `study_create`. The creator owns it.
    The time and reward start from the design's estimate; htmx asks for it again as the design changes."""
    require_permission(request.user, ADD_STUDY)
    choice = BenchmarkChoiceForm(request.GET or None)
    if not choice.is_valid():
        return render(request, "studies/study_new.html", {"benchmarks": benchmark_options()})
    benchmark = choice.cleaned_data["benchmark"]
    prefill = {DESIGN_PREFIX + "item_set": choice.cleaned_data["item_set"]} if choice.cleaned_data["item_set"] else {}
    if _asks_power(request):
        return _power_partial(request, StudyForm(benchmark=benchmark, owner=request.user, initial=prefill))
    if _asks_estimate(request):
        return _estimate_partial(request, StudyForm(_estimate_data(request), benchmark=benchmark, owner=request.user))
    form = StudyForm(request.POST or None, benchmark=benchmark, owner=request.user, initial=prefill)
    if request.method == "POST" and form.is_valid():
        try:
            study = study_create(**form.create_arguments(), owner=request.user)
        except StudyError as exc:
            form.add_error(error_field(form, exc), str(exc))
        else:
            messages.success(request, f"Study “{study.name}” created as a draft: preview it, then launch it.")
            return redirect("studies:detail", study.pk)
    return _form_page(request, form)


@login_required
@require_http_methods(["GET", "POST"])
def study_edit(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """Edit a draft with the new-study form and its checks, through `study_draft_update`: for those
    who may change the study (`studies.change_study`, its owner or a collaborator)."""
    study = get_study_for_researcher(request.user, study_id, CHANGE_STUDY)
    if study.status != Study.Status.DRAFT or study.is_imported:
        messages.error(request, f"Only a draft can be edited; this study is {study.get_status_display().lower()}.")
        return redirect("studies:detail", study.pk)
    if _asks_power(request):
        return _power_partial(request, StudyForm(benchmark=study.benchmark, study=study))
    if _asks_estimate(request):
        return _estimate_partial(request, StudyForm(_estimate_data(request), benchmark=study.benchmark, study=study))
    form = StudyForm(request.POST or None, benchmark=study.benchmark, study=study)
    if request.method == "POST" and form.is_valid():
        try:
            study_draft_update(study=study, **form.study_arguments())
        except StudyError as exc:
            form.add_error(error_field(form, exc), str(exc))
        else:
            messages.success(request, "The draft is saved.")
            return redirect("studies:detail", study.pk)
    return _form_page(request, form)


@login_required
@require_POST
def study_copy(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """Copy a study one may see into a new draft of one's own (`studies.add_study`)."""
    require_permission(request.user, ADD_STUDY)
    study = get_study_for_researcher(request.user, study_id)
    try:
        copy = study_duplicate(study=study, owner=request.user)
    except StudyError as exc:
        messages.error(request, str(exc))
        return redirect("studies:detail", study.pk)
    messages.success(request, f"“{copy.name}” is a new draft copied from “{study.name}”: edit it, then launch it.")
    return redirect("studies:detail", copy.pk)


#: the query parameter of the request for the form's power analysis, which the page asks for once shown
POWER_PARAMETER = "power"


def _asks_power(request: HtmxHttpRequest) -> bool:
    return request.method == "GET" and POWER_PARAMETER in request.GET


def _power_partial(request: HtmxHttpRequest, form: StudyForm) -> HttpResponse:
    """The power analysis of the design the form shows, asked for by the page once it is shown: the
    design's units are planned from every imported item (AmbiBench's 15,840) and the analysis loads
    scipy, which the page itself need not wait for."""
    return render(request, "studies/partials/_power.html", {"power": _described(form.shown_power())})


def _power_context(request: HtmxHttpRequest, form: StudyForm) -> dict[str, Any]:
    """The form's power analysis: a form shown again as typed (refused), with it, its units planned
    already by the form's checks; else the address the page asks it of once shown (`_power_partial`).
    The design's live request brings it again as the design changes."""
    if form.is_bound:
        return {"power": _described(form.shown_power())}
    asked = request.GET.copy()
    asked[POWER_PARAMETER] = "1"
    return {"power_url": f"{request.path}?{asked.urlencode()}"}


def _asks_estimate(request: HtmxHttpRequest) -> bool:
    """An htmx request for the form's estimate: a GET of the design's fields, or the whole form
    posted with `estimate_only` (nothing is saved)."""
    return bool(request.htmx) and (request.method == "GET" or bool(request.POST.get("estimate_only")))


def _estimate_data(request: HtmxHttpRequest) -> Any:
    return request.GET if request.method == "GET" else request.POST


def _estimate_partial(request: HtmxHttpRequest, form: StudyForm) -> HttpResponse:
    """The design's time estimate, and its power analysis swapped in beside it (out of band)."""
    context = {
        "estimate": form.shown_estimate(),
        "design_problem": form.design_problem,
        "recommended": PROLIFIC_RECOMMENDED_PENCE_PER_HOUR,
        "power": _described(form.shown_power()),
        "out_of_band": True,
    }
    return render(request, "studies/partials/_time_estimate.html", context)


def _described(power: dict[str, Any] | None) -> dict[str, Any] | None:
    from parity.stats.power import describe  # numpy: loaded when a design is shown

    return {**power, "text": describe(power)} if power else None


def _form_page(request: HtmxHttpRequest, form: StudyForm) -> HttpResponse:
    """The new-study form, or a draft's: every error listed at the top, the design's estimate of the
    time and reward, and the hourly pay the reward implies."""
    estimate = form.shown_estimate()  # first: a time and reward following it are filled in from it
    minutes = _int(form["estimated_minutes"].value()) or 1
    # participants take the design's time whatever is typed: a shorter time would overstate the pay
    judged = max(minutes, estimate.minutes if estimate is not None else 0)
    chosen = str(form["panel"].value() or panels.PROLIFIC)
    panel = chosen if chosen in panels.PANELS else panels.PROLIFIC
    floor = panels.get(panel).minimum_pay
    context = {
        "form": form,
        "study": form.study,
        "definition": form.definition,
        "benchmark": form.benchmark,
        "estimate": estimate,
        **_power_context(request, form),
        "pay": hourly_pay(pence_of(form["reward"].value()), judged, panel),
        "pay_minutes": judged if judged > minutes else None,
        # the page's live figure is judged against the chosen panel's rates (none: nothing is said)
        "minimum": floor.minor_per_hour if floor else 0,
        "recommended": floor.recommended_per_hour if floor else 0,
        "minimum_words": _rate(floor.minor_per_hour) if floor else "",
        "recommended_words": _rate(floor.recommended_per_hour) if floor else "",
        "symbol": panels.SYMBOLS[panels.get(panel).currency],
        "panel_name": panels.get(panel).name,
        # every panel's rates, for the page's script to judge the pay when another panel is chosen
        "floors": {
            key: {
                "minimum": found.minimum_pay.minor_per_hour if found.minimum_pay else 0,
                "recommended": found.minimum_pay.recommended_per_hour if found.minimum_pay else 0,
                "symbol": panels.SYMBOLS[found.currency],
                "name": found.name,
            }
            for key, found in panels.PANELS.items()
        },
    }
    return render(request, "studies/study_form.html", context, status=400 if form.errors else 200)


def _rate(minor: int) -> str:
    """A rate per hour in major units: 6 for 600, 7.50 for 750."""
    return f"{minor / 100:.0f}" if minor % 100 == 0 else f"{minor / 100:.2f}"


@login_required
@require_http_methods(["GET", "POST"])
def items_import(request: HtmxHttpRequest) -> HttpResponse:
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
    context = {"form": form, "result": result, "inspect_form": InspectTaskImportForm()}
    return render(request, "studies/items_import.html", context, status=status)


@login_required
@require_POST
def items_import_inspect(request: HtmxHttpRequest) -> HttpResponse:
    """Import an Inspect task's samples as a named set (docs/own-items.md, "From Inspect"): a task of
    an installed package, or a task file in a folder the operator allowed; refused whole, with why."""
    require_permission(request.user, ADD_STUDY)
    form = InspectTaskImportForm(request.POST)
    imported = None
    if form.is_valid():
        data = form.cleaned_data
        try:
            imported = inspect_task_import(
                spec=data["task"],
                arguments=data["arguments"],
                name=data["inspect_name"] or "",
                limit=data["limit"],
                importer=request.user,
            )
        except DatasetError as exc:
            form.add_error("task", f"Refused, nothing was written: {exc}")
    context = {"form": ItemSetImportForm(), "inspect_form": form, "inspect": imported}
    return render(request, "studies/items_import.html", context, status=400 if form.errors else 200)


def _int(value: object) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return 0


@login_required
@require_GET
def study_detail(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    page = study_page(study)
    panel = preregistration_panel(study)
    context = {
        "page": page,
        "study": study,
        "may_change": has_permission(request.user, CHANGE_STUDY),
        "may_duplicate": has_permission(request.user, ADD_STUDY) and not study.is_imported,
        "moves": [(status, MOVE_LABELS[status]) for status in page.moves],
        # a draft's too: its Prolific study may be set up before the launch here
        "prolific": prolific_settings(study) if not study.is_imported and study.panel == panels.PROLIFIC else [],
        # another panel's setup: its steps and what to paste there
        "panel_setup": panel_setup(study) if not study.is_imported and study.panel != panels.PROLIFIC else None,
        "preregistration": panel,
        "preregistration_form": PreregistrationForm(initial=panel.initial) if panel else None,
    }
    return render(request, "studies/study_detail.html", context)


@login_required
@require_POST
def preregistration_save(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """Write a draft's hypotheses and notes: those who may change the study; refused once launched."""
    study = get_study_for_researcher(request.user, study_id, CHANGE_STUDY)
    form = PreregistrationForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(error) for errors in form.errors.values() for error in errors))
        return redirect("studies:detail", study.pk)
    try:
        preregistration_update(study=study, **form.cleaned_data)
    except PreregistrationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "The preregistration is saved; it freezes when you launch the study.")
    return redirect(reverse("studies:detail", args=[study.pk]) + "#preregistration")


@login_required
@require_GET
def preregistration_download(request: HtmxHttpRequest, study_id: int, fmt: str) -> HttpResponse:
    """The preregistration as Markdown (a file) or as a standalone printable HTML page (print it to
    PDF); a draft's shows what would freeze now."""
    study = get_study_for_researcher(request.user, study_id)
    form = PreregistrationFormatForm({"fmt": fmt})
    shown = preregistration_panel(study)
    if not form.is_valid() or shown is None:
        raise Http404("This study has no preregistration.")
    if form.cleaned_data["fmt"] == "html":
        return HttpResponse(shown.rendered["html"], content_type="text/html; charset=utf-8")
    response = HttpResponse(shown.rendered["markdown"], content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="preregistration-{study.link}.md"'
    return response


@login_required
@require_POST
def study_status(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """Launch, pause, resume or close: the owner and collaborators holding `studies.change_study`."""
    study = get_study_for_researcher(request.user, study_id, CHANGE_STUDY)
    form = StatusForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose what to do with the study.")
        return redirect("studies:detail", study.pk)
    try:
        study_set_status(study=study, status=form.cleaned_data["status"], actor=request.user)
    except StudyError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"The study is now {study.get_status_display().lower()}.")
    return redirect("studies:detail", study.pk)
