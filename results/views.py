"""Researcher pages: every study's headline numbers, one study's results (htmx filters), an item as
a model reads it, its live monitor (an htmx fragment refreshing itself), exports."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods

from modelruns.prompts import PromptError, item_prompts
from modelruns.selectors import item_answers, study_runs
from parity.reporting.checklist import contradictions, counts
from prolific.currency import money
from results.forms import (
    ChecklistCorrectionForm,
    ChecklistNotesForm,
    ItemPromptForm,
    OriginalStudyForm,
    ReportForm,
    ResultFilters,
    ResultsFilterForm,
)
from results.pipeline import (
    current_results,
    results_data,
    results_lookup,
    study_checklist,
    study_export,
    study_headlines,
    study_monitor,
    study_report,
)
from results.presenting.cache import Computed
from results.presenting.charts import arrivals_chart
from results.presenting.display import (
    CEILING_MARK,
    among_people_rows,
    disagreement_rows,
    headline_cells,
    summary_cards,
)
from results.presenting.exports import FORMATS, ExportForm
from results.presenting.report import FORMATS as REPORT_FORMATS
from results.presenting.tables import paper_tables
from studies.access import CHANGE_STUDY, EXPORT_STUDY, get_study_for_researcher, researcher_studies
from studies.design.closing_questions import asked, study_keys
from studies.errors import StudyError
from studies.htmx import HtmxHttpRequest
from studies.models import Study
from studies.setup.checklist import (
    study_checklist_correction_remove,
    study_checklist_correction_set,
    study_checklist_notes_set,
    study_original_study_set,
)


def _model_runs_url(study: Study) -> str:
    """The model-runs partial of this study (loaded by htmx into the results page)."""
    return reverse("modelruns:study_runs", args=[study.pk])


@login_required
@require_GET
def study_list(request: HtmxHttpRequest) -> HttpResponse:
    rows = study_headlines(researcher_studies(request.user))
    return render(
        request,
        "results/study_list.html",
        {"rows": [(row, headline_cells(row)) for row in rows], "ceiling_mark": CEILING_MARK},
    )


#: how often a page waiting for its results asks for them again
RESULTS_REFRESH_SECONDS = 3


def _numbers(computed: Computed | None) -> dict[str, object]:
    """What the page shows of computed results (nothing yet while a large study's are computed)."""
    if computed is None:
        return {"results": None, "has_free_text": False}
    numbers = computed.results
    asked = numbers.methods.explanations
    # the long export's free text: typed answers, and the explanations written with the items
    explained = asked is not None and asked.mode in ("nth", "every") and asked.given > 0
    free_text = [
        part for part, given in (("written answers", computed.has_free_text), ("explanations", explained)) if given
    ]
    return {
        "results": numbers,
        "cards": summary_cards(numbers),
        "tables": paper_tables(numbers),
        "disagreements": [(model, disagreement_rows(model)) for model in numbers.models if model.disagreements],
        "among_people": among_people_rows(numbers),
        "charts": computed.charts,
        "has_free_text": bool(free_text),
        "free_text_parts": " and ".join(free_text),
    }


@login_required
@require_GET
def results(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """The results kept for the study as it is now, or computed now; a large study's are computed in
    the task queue while the page says so and asks again every `RESULTS_REFRESH_SECONDS`."""
    study = get_study_for_researcher(request.user, study_id)
    # units, items and runs: the filters' choices (the answers are read only if the results are computed here)
    data = results_data(study, answers=False)
    form = ResultsFilterForm(request.GET, data_for=data)
    valid = form.is_valid()
    lookup = results_lookup(study, form.filters() if valid else ResultFilters(), data)
    context = {
        "study": study,
        "form": form,
        "lookup": lookup,
        "refresh_seconds": RESULTS_REFRESH_SECONDS,
        **_numbers(lookup.computed),
        "formats": list(FORMATS),
        "report_formats": list(REPORT_FORMATS),
        "model_runs_url": _model_runs_url(study),
        "closing_free_text": any(question.free_text for question in asked(study_keys(study))),
    }
    if request.htmx:
        # htmx swaps only successful responses: the partial carries the filters' error message
        return render(request, "results/partials/_results.html", context)
    return render(request, "results/results.html", context, status=200 if valid else 400)


@login_required
@require_GET
def item(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """The texts a model reads for one of the study's items, under a run's setting and kind of model
    (or the benchmark's default setting), built as the run builds them; with the run's answers."""
    study = get_study_for_researcher(request.user, study_id)
    form = ItemPromptForm(request.GET, runs=study_runs(study))
    context: dict[str, object] = {"study": study, "form": form}
    if not form.is_valid():
        return render(request, "results/item.html", context, status=400)
    run = form.chosen_run()
    try:
        context["prompts"] = found = item_prompts(
            item=form.cleaned_data["item"],
            study=study,
            setting=run.setting if run else None,
            kind=run.spec.scored_as if run else study.definition.model_kinds[0],
        )
    except PromptError as exc:
        context["problem"] = str(exc)
        return render(request, "results/item.html", context, status=404)
    context.update(run=run, answers=list(item_answers(run, found.item_key)) if run else [])
    return render(request, "results/item.html", context)


@login_required
@require_GET
def export(request: HtmxHttpRequest, study_id: int, fmt: str) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id, EXPORT_STUDY)
    form = ExportForm({"format": fmt, "include_free_text": request.GET.get("include_free_text")})
    if not form.is_valid():
        raise Http404(f"No export format {fmt!r}.")
    exported = study_export(
        study, form.cleaned_data["format"], include_free_text=form.cleaned_data["include_free_text"]
    )
    response = HttpResponse(exported.content, content_type=exported.content_type)
    response["Content-Disposition"] = f'attachment; filename="{exported.filename}"'
    return response


@login_required
@require_GET
def report(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """The study's report for a paper (whole study, no filters), from the results the page shows:
    those kept when they are the study's current ones, else computed now."""
    study = get_study_for_researcher(request.user, study_id, EXPORT_STUDY)
    form = ReportForm(request.GET)
    if not form.is_valid():
        known = ", ".join(REPORT_FORMATS)
        asked = request.GET.get("format", "")
        return HttpResponseBadRequest(f"No report format {asked!r}; known: {known}.", content_type="text/plain")
    fmt = form.cleaned_data["format"]
    numbers = current_results(study)
    content_type, suffix = REPORT_FORMATS[fmt]
    report = study_report(study, fmt, numbers)
    response = HttpResponse(report, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{slugify(study.name) or f"study-{study.pk}"}-{suffix}"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def checklist(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """The study's reporting checklist as the report states it, with a box for the researcher's answer
    to each entry Parity cannot answer from its records, and a form to correct an answer Parity
    computed (with a reason) or remove a correction, and, for an imported study, what the original
    paper says of its study; saved, the page is shown again (POST, redirect)."""
    study = get_study_for_researcher(request.user, study_id, CHANGE_STUDY)
    answers = study_checklist(study, current_results(study))
    action = request.POST.get("action", "notes") if request.method == "POST" else None
    form = ChecklistNotesForm(request.POST if action == "notes" else None, answers=answers, notes=study.checklist_notes)
    correction = ChecklistCorrectionForm(request.POST if action == "correct" else None, answers=answers)
    original = OriginalStudyForm(request.POST if action == "original" else None, original=study.original_study)
    if action == "uncorrect":
        study_checklist_correction_remove(study=study, entry_id=request.POST.get("entry", ""), actor=request.user)
        return redirect("results:checklist", study_id=study.pk)
    if action == "notes" and form.is_valid():
        try:
            study_checklist_notes_set(study=study, notes=form.notes(), actor=request.user)
        except StudyError as error:
            form.add_error(None, str(error))
        else:
            return redirect("results:checklist", study_id=study.pk)
    if action == "original" and study.is_imported and original.is_valid():
        try:
            study_original_study_set(study=study, fields=original.original(), actor=request.user)
        except StudyError as error:
            original.add_error(None, str(error))
        else:
            return redirect("results:checklist", study_id=study.pk)
    if action == "correct" and correction.is_valid():
        try:
            study_checklist_correction_set(
                study=study,
                entry_id=correction.cleaned_data["entry"],
                text=correction.cleaned_data["text"],
                reason=correction.cleaned_data["reason"],
                actor=request.user,
            )
        except StudyError as error:
            correction.add_error(None, str(error))
        else:
            return redirect("results:checklist", study_id=study.pk)
    context = {
        "study": study,
        "answers": answers,
        "form": form,
        "correction": correction,
        "original": original,
        "contradictions": contradictions(answers),
        "tally": counts(answers),
    }
    return render(request, "results/checklist.html", context)


#: how often the monitor's fragment asks for itself again
MONITOR_REFRESH_SECONDS = 10


@login_required
@require_GET
def monitor(request: HtmxHttpRequest, study_id: int) -> HttpResponse:
    """The live monitor; htmx asks for its fragment again every `MONITOR_REFRESH_SECONDS`."""
    study = get_study_for_researcher(request.user, study_id)
    shown = study_monitor(study)
    pay = shown.pay
    # the study's amounts in its Prolific workspace's currency (another panel's: its own); the
    # minimum and recommended rates in the currency the panel states them in (Prolific's in pounds)
    floor = study.recruiting_panel.minimum_pay
    rates = floor.currency if floor else pay.currency
    amounts = {
        "reward_pence": money(pay.reward_pence, pay.currency),
        "hourly_pence": money(pay.hourly_pence, pay.currency),
        "minimum_pence": money(pay.minimum_pence, rates),
        "recommended_pence": money(pay.recommended_pence, rates),
        "panel": study.recruiting_panel.name,
        "has_minimum": floor is not None,
    }
    context = {
        "study": study,
        "monitor": shown,
        "amounts": amounts,
        "chart": arrivals_chart(shown.timeline),
        "refresh_seconds": MONITOR_REFRESH_SECONDS,
    }
    if request.htmx:
        return render(request, "results/partials/_monitor.html", context)
    return render(request, "results/monitor.html", context)
