"""The researcher's model-run pages: a study's runs (page or htmx partial), starting and cancelling
runs, and importing an Inspect eval log as a run."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from annotation.selectors import inspect_task_file_allowed
from modelruns import selectors, services, services_inspect, services_inspect_eval
from modelruns.forms import InspectLogForm, RunStartForm
from modelruns.models import ModelRun
from studies.access import ADD_STUDY, RUN_MODEL, VIEW_MODELRUN, get_study_for_researcher, require_permission
from studies.htmx import HtmxHttpRequest
from studies.models import Study

PARTIAL = "modelruns/partials/_runs.html"
PAGE = "modelruns/study_runs.html"


def _render_runs(
    request: HtmxHttpRequest,
    study: Study,
    form: RunStartForm,
    status: int = 200,
    *,
    log_form: InspectLogForm | None = None,
    imported: str = "",
    queued: str = "",
) -> HttpResponse:
    runs = selectors.runs_panel(study)
    context = {
        "study": study,
        "runs": runs,
        "form": form,
        "log_form": log_form or InspectLogForm(),
        "imported": imported,
        "queued": queued,
        "specs": selectors.known_specs(request.user),
        "polling": any(run.is_active for run in runs),
    }
    return render(request, PARTIAL if request.htmx else PAGE, context, status=status)


@login_required
@require_GET
def study_runs(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id, VIEW_MODELRUN)
    return _render_runs(request, study, RunStartForm(study=study))


@login_required
@require_POST
def start(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id, RUN_MODEL)
    form = RunStartForm(request.POST, study=study)
    if form.is_valid():
        data = form.cleaned_data
        try:
            spec = services.modelspec_get_or_create(
                model=data["model"],
                revision=data["revision"],
                dtype=data["dtype"],
                device=data["device"],
                kind=data["kind"],
                created_by=request.user,
            )
            queued = ""
            if data.get("through_inspect") and form.inspect_task is not None:
                # a task file runs its code on the worker: only one the operator placed in an allowed folder
                task = services_inspect_eval.modelrun_queue_inspect(
                    study=study, spec=spec, trust_task_code=inspect_task_file_allowed(form.inspect_task.spec)
                )
                queued = (
                    f"Queued {spec.name} through the Inspect task {task.name} on {len(task.sample_ids)} samples: "
                    "its run appears here when a worker has run it and its log is imported."
                )
            else:
                services.modelrun_start_many(
                    study=study, spec=spec, overrides=form.setting_overrides(), sweep=data["sweep"], actor=request.user
                )
        except services.ModelRunError as exc:
            form.add_error(None, str(exc))
        else:
            if not request.htmx:
                if queued:
                    messages.success(request, queued)
                return redirect("modelruns:study_runs", study_id=study.pk)
            return _render_runs(request, study, RunStartForm(study=study), queued=queued)
    # htmx swaps only 2xx responses: the partial with the form's errors comes back as 200 there
    return _render_runs(request, study, form, status=200 if request.htmx else 400)


def _imported_sentence(imported: services_inspect.ImportedLog) -> str:
    run = imported.run
    if not imported.created:
        return f"{run.model_identity.get('file')} was imported before, as run #{run.pk}: nothing changed."
    return f"Imported {imported.answers} answers of {run.spec.name} ({run.setting_label()}) as run #{run.pk}."


@login_required
@require_POST
def import_inspect_log(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """An Inspect eval log uploaded as a done run; a log that does not match the study is refused
    with the service's sentence, and nothing is written."""
    study = get_study_for_researcher(request.user, study_id, RUN_MODEL)
    form = InspectLogForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["log"]
        try:
            imported = services_inspect.modelrun_import_inspect_log(
                study=study, content=upload.read(), file_name=upload.name, scorer=form.cleaned_data["scorer"]
            )
        except services.ModelRunError as exc:
            form.add_error(None, str(exc))
        else:
            if not request.htmx:
                messages.success(request, _imported_sentence(imported))
                return redirect("modelruns:study_runs", study_id=study.pk)
            return _render_runs(request, study, RunStartForm(study=study), imported=_imported_sentence(imported))
    return _render_runs(request, study, RunStartForm(study=study), 200 if request.htmx else 400, log_form=form)


@login_required
@require_POST
def cancel(request: HtmxHttpRequest, study_id: int, run_id: int) -> HttpResponse:
    """The run's Cancel button: a queued run is cancelled at once, a running one asked to stop.
    Who may cancel is who may start; a second click changes nothing."""
    study = get_study_for_researcher(request.user, study_id, RUN_MODEL)
    run = get_object_or_404(ModelRun, pk=run_id, study=study)
    services.modelrun_cancel(run=run, actor=request.user)
    if not request.htmx:
        return redirect("modelruns:study_runs", study_id=study.pk)
    return _render_runs(request, study, RunStartForm(study=study))


@login_required
@require_POST
def rate(request: HtmxHttpRequest, study_id: int, run_id: int) -> HttpResponse:
    """The "Rate these answers" button: a generative MiQA run's answers become a rating study, so
    it needs the permission to add studies (a view-only collaborator sees the run, not the button)."""
    require_permission(request.user, ADD_STUDY)
    study = get_study_for_researcher(request.user, study_id, VIEW_MODELRUN)
    run = get_object_or_404(ModelRun.objects.select_related("spec", "study"), pk=run_id, study=study)
    try:
        rating = services.modelrun_rating_study(run=run)
    except services.ModelRunError as exc:
        return render(
            request, "problem.html", {"title": "These answers cannot be rated", "message": str(exc)}, status=400
        )
    url = reverse("results:study", args=[rating.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
