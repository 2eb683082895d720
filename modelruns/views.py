"""The researcher's model-run pages: a study's runs (page or htmx partial) and starting runs."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from modelruns import selectors, services
from modelruns.forms import RunStartForm
from studies.models import Study
from studies.results.selectors import get_study_for_researcher

PARTIAL = "modelruns/partials/_runs.html"
PAGE = "modelruns/study_runs.html"


def _render_runs(request: HttpRequest, study: Study, form: RunStartForm, status: int = 200) -> HttpResponse:
    runs = list(selectors.runs_for_study(study))
    context = {"study": study, "runs": runs, "form": form, "specs": selectors.known_specs(),
               "polling": any(run.is_active for run in runs)}
    return render(request, PARTIAL if request.htmx else PAGE, context, status=status)


@login_required
@require_GET
def study_runs(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    return _render_runs(request, study, RunStartForm(study=study))


@login_required
@require_POST
def start(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id)
    form = RunStartForm(request.POST, study=study)
    if form.is_valid():
        data = form.cleaned_data
        try:
            spec = services.modelspec_get_or_create(model=data["model"], revision=data["revision"], dtype=data["dtype"],
                                                    device=data["device"], kind=data["kind"])
            services.modelruns_start(study=study, spec=spec, overrides=data["setting"], sweep=data["sweep"])
        except services.ModelRunError as exc:
            form.add_error(None, str(exc))
        else:
            if not request.htmx:
                return redirect("modelruns:study_runs", study_id=study.pk)
            return _render_runs(request, study, RunStartForm(study=study))
    # htmx swaps only 2xx responses: the partial with the form's errors comes back as 200 there
    return _render_runs(request, study, form, status=200 if request.htmx else 400)
