"""The participant's path: entry link → consent → instructions → items → done.

The server keeps each participant's step; every request lands on the current step, which is what
makes refreshes, back buttons, second tabs and replayed POSTs harmless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from annotation.models import Item
from parity import panels
from participation import cookie, training_views
from participation.access import no_participant, participant_view, problem
from participation.exits import exit_context, finished_exit, for_panel, panel_place, study_exit
from participation.forms import (
    AnswerForm,
    BehaviourForm,
    ClosingForm,
    ConsentForm,
    EntryForm,
    PanelEntryForm,
    entry_form,
)
from participation.i18n import study_language, translated, translated_choices
from participation.selectors import (
    browser_entered_as,
    get_participant_for_request,
    known_participant_ids,
)
from prolific.selectors import prolific_study_of
from prolific.signed_links import SignatureError, signing_enabled, verify_signed_link
from studies.design import explanations
from studies.design.closing_questions import asked, study_keys
from studies.htmx import HtmxHttpRequest
from studies.models import Participant, Study
from studies.participants.answer_tokens import answer_token, participant_owner
from studies.participants.answers import Outcome, SubmitResult, response_submit
from studies.participants.entry import Refusal, participant_enter
from studies.participants.reads import (
    answered_responses,
    current_item,
    get_study_by_link,
    participant_at_link,
    screen_for,
)
from studies.participants.steps import (
    item_mark_shown,
    participant_answer_closing,
    participant_begin,
    participant_consent,
)

if TYPE_CHECKING:
    pass

_PROLIFIC_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")


def _step_url(study: Study) -> str:
    return reverse("participation:step", args=[study.link])


@require_http_methods(["GET", "POST"])
def enter(request: HtmxHttpRequest, link: str) -> HttpResponse:
    """The study link. Its GET only checks the link and shows the start page, whose form POSTs
    the link's parameters back (CSRF-protected): only that POST reserves a slot, so a link
    prefetcher, an `<img>` or a crawler holding the link takes no one's place."""
    study = get_study_by_link(link)
    with study_language(study):
        response = _enter(request, study)
    if study.panel == panels.MTURK:
        # MTurk shows the study link in a frame of its own pages (the ExternalQuestion): only there
        response.xframe_options_exempt = True
        response["Content-Security-Policy"] = "frame-ancestors " + " ".join(panels.MTURK_HOSTS.values())
    return response


def _enter(request: HtmxHttpRequest, study: Study) -> HttpResponse:
    known = get_participant_for_request(request, study)
    before = _before_the_form(request, study, known)
    if before is not None:
        return before
    form = entry_form(request.POST if request.method == "POST" else request.GET, study=study)
    if not form.is_valid():
        details = "; ".join(f"{field} {' '.join(map(str, errors))}" for field, errors in form.errors.items())
        return problem(
            request,
            gettext("This link is not valid"),
            for_panel(
                study,
                gettext("Please open the study from Prolific again ({details}).").format(details=details),
                gettext("Please open the study from {panel} again ({details})."),
                details=details,
            ),
        )
    if signing_enabled() and isinstance(form, EntryForm):
        unsigned = _unverified(request, study, form)
        if unsigned is not None:
            return unsigned
    ids = form.ids()
    same_browser = known is not None and bool(ids.pid) and known.prolific_pid == ids.pid
    if request.method == "GET":
        if known is not None and same_browser and known.prolific_session_id == ids.session_id:
            return redirect(_step_url(study))
        # in MTurk's frame this site's cookies are a third party's, which browsers refuse: the study
        # opens in a window of its own, where the start page's form works (`Sec-Fetch-Dest` says where)
        framed = study.panel == panels.MTURK and request.headers.get("Sec-Fetch-Dest") == "iframe"
        context = {
            "study": study,
            "hidden": form.hidden_values(),
            "framed_url": request.get_full_path() if framed else "",
        }
        return render(request, "participation/enter.html", context)
    return _admit(request, study, form, same_browser, known)


def _before_the_form(request: HtmxHttpRequest, study: Study, known: Participant | None) -> HttpResponse | None:
    """What the link shows before its parameters are read: MTurk's preview; this browser's step, or
    what is missing, for a link without the panel's id (a lab's link needs none)."""
    panel = study.recruiting_panel
    params = _PROLIFIC_PARAMS if study.panel == panels.PROLIFIC else panel.params()
    given = request.POST if request.method == "POST" else request.GET
    if study.panel == panels.MTURK and given.get("assignmentId") == panels.MTURK_PREVIEW_ASSIGNMENT:
        # MTurk shows the HIT before the worker accepts it: the instructions, no item, no one enters
        return render(request, "participation/mturk_preview.html", {"study": study})
    if request.method != "GET":
        return None
    if panel.id_optional:
        return redirect(_step_url(study)) if known is not None and not request.GET else None
    if any(name in request.GET for name in params):
        return None
    if known is not None:
        return redirect(_step_url(study))
    return problem(
        request,
        gettext("This link is incomplete"),
        for_panel(
            study,
            gettext("The link has no Prolific ID (PROLIFIC_PID). Please open the study from Prolific."),
            gettext("The link has no participant ID ({param}). Please open the study from {panel}."),
            param=panel.id_param,
        ),
    )


def _unverified(request: HtmxHttpRequest, study: Study, form: EntryForm) -> HttpResponse | None:
    """Prolific's signed link checked (`prolific.signed_links`): the page saying why it is refused, if it is."""
    recruiting = prolific_study_of(study)
    try:
        verify_signed_link(
            form.signed_token,
            pid=form.cleaned_data["PROLIFIC_PID"],
            study_id=form.cleaned_data["STUDY_ID"],
            session_id=form.cleaned_data["SESSION_ID"],
            prolific_study_id=recruiting.prolific_id if recruiting is not None else "",
        )
    except SignatureError as exc:
        return problem(
            request,
            gettext("This link could not be verified"),
            gettext("Please open the study from Prolific again ({details}).").format(details=exc),
        )
    return None


def _admit(
    request: HtmxHttpRequest,
    study: Study,
    form: EntryForm | PanelEntryForm,
    same_browser: bool,
    known: Participant | None = None,
) -> HttpResponse:
    ids = form.ids()
    pid = ids.pid
    if not pid:
        # the lab's link without an id: this browser's participant again, or a new pseudonym
        if known is not None:
            return redirect(_step_url(study))
        pid = panels.generated_id()
    entry = participant_enter(
        study=study,
        pid=pid,
        prolific_study_id=ids.study_id,
        prolific_session_id=ids.session_id,
        same_browser=same_browser,
    )
    if entry.participant is None:
        return _refusal(request, study, entry.refusal, pid=pid)
    if entry.resumed and entry.participant.step == Participant.Step.DONE:
        response = render(request, "participation/done.html", _done_context(entry.participant, already=True))
    else:
        response = redirect(_step_url(study))
    # a write, kept out of the selectors: this browser is this participant from now on
    cookie.remember(request, response, entry.participant.study_id, entry.participant.pk)
    return response


#: refusals that say whether a PID took part: anyone may type a PID into a link, so they are said
#: only to a browser that entered as the PID; any other gets `_NOT_HERE`
_ABOUT_THE_PID = {Refusal.OTHER_STUDY_IN_GROUP, Refusal.OTHER_SESSION}
_NOT_HERE = (
    gettext_lazy("This study cannot be started here"),
    gettext_lazy(
        "If you have already started this study, please continue in the browser where you started "
        "it: your answers so far are saved. Otherwise, please return the study on Prolific; you will "
        "not be penalised."
    ),
)


def _refusal(request: HtmxHttpRequest, study: Study, refusal: Refusal | None, *, pid: str) -> HttpResponse:
    if refusal in _ABOUT_THE_PID and not browser_entered_as(request, pid):
        if study.panel != panels.PROLIFIC:
            return problem(request, _NOT_HERE[0], _panel_refusals(study)[None][1], status=403)
        return problem(request, *_NOT_HERE, status=403)
    if study.panel != panels.PROLIFIC:
        title, message = _panel_refusals(study).get(refusal, _panel_refusals(study)["default"])
        return problem(request, title, message, status=403 if refusal is Refusal.OTHER_SESSION else 200)
    messages: dict[Refusal | None, tuple[str, str]] = {
        Refusal.NOT_LIVE: (
            gettext("This study is not open"),
            gettext(
                "The study is not accepting participants at the moment. "
                "Please return it on Prolific; you will not be penalised."
            ),
        ),
        Refusal.PAUSED: (
            gettext("This study is paused"),
            gettext(
                "The researchers have paused this study for a while. Please "
                "come back later, or return it on Prolific; you will not be penalised."
            ),
        ),
        Refusal.FULL: (
            gettext("This study is full"),
            gettext("All places have been taken. Please return the study on Prolific; you will not be penalised."),
        ),
        Refusal.OTHER_STUDY_IN_GROUP: (
            gettext("You have already taken part"),
            gettext(
                "Thank you for your interest. You have "
                "already taken part in a closely related study, so we cannot include you "
                "again. Please return this study on Prolific."
            ),
        ),
        Refusal.OTHER_SESSION: (
            gettext("This Prolific ID is taking part elsewhere"),
            gettext(
                "This Prolific ID has already "
                "started this study in another browser. Please continue in the browser where you "
                "started, or open the study again from your submission on Prolific. Your answers "
                "so far are saved."
            ),
        ),
    }
    title, message = messages.get(
        refusal, (gettext("This study is not available"), gettext("Please return the study on Prolific."))
    )
    return problem(request, title, message, status=403 if refusal is Refusal.OTHER_SESSION else 200)


def _panel_refusals(study: Study) -> dict[Refusal | str | None, tuple[str, str]]:
    """The refusals of a study on another panel than Prolific, naming that panel; under None, the
    neutral page's message (`_NOT_HERE`), under "default" any other refusal's."""
    place = panel_place(study)
    return {
        None: (
            str(_NOT_HERE[0]),
            gettext(
                "If you have already started this study, please continue in the browser where you started "
                "it: your answers so far are saved. Otherwise, please return the study on {panel}; you will "
                "not be penalised."
            ).format(panel=place),
        ),
        Refusal.NOT_LIVE: (
            gettext("This study is not open"),
            gettext(
                "The study is not accepting participants at the moment. "
                "Please return it on {panel}; you will not be penalised."
            ).format(panel=place),
        ),
        Refusal.PAUSED: (
            gettext("This study is paused"),
            gettext(
                "The researchers have paused this study for a while. Please "
                "come back later, or return it on {panel}; you will not be penalised."
            ).format(panel=place),
        ),
        Refusal.FULL: (
            gettext("This study is full"),
            gettext(
                "All places have been taken. Please return the study on {panel}; you will not be penalised."
            ).format(panel=place),
        ),
        Refusal.OTHER_STUDY_IN_GROUP: (
            gettext("You have already taken part"),
            gettext(
                "Thank you for your interest. You have "
                "already taken part in a closely related study, so we cannot include you "
                "again. Please return this study on {panel}."
            ).format(panel=place),
        ),
        Refusal.OTHER_SESSION: (
            gettext("This ID is taking part elsewhere"),
            gettext(
                "This ID has already started this study in another browser. Please continue in the browser "
                "where you started, or open the study again from {panel}. Your answers so far are saved."
            ).format(panel=place),
        ),
        "default": (
            gettext("This study is not available"),
            gettext("Please return the study on {panel}.").format(panel=place),
        ),
    }


def _done_context(participant: Participant, already: bool = False, closing: ClosingForm | None = None) -> dict:
    """The done page: the code first, then the study's closing questions while they are unanswered
    (optional: the page then waits instead of going back to the panel by itself). Where the panel
    goes on is the study's panel's (`participation.exits`)."""
    code = participant.completion_code()
    questions = asked(study_keys(participant.study)) if participant.closing_answered_at is None else []
    return {
        "study": participant.study,
        "participant": participant,
        "code": code,
        "already": already,
        **exit_context(participant.study, finished_exit(participant)),
        "closing": closing if closing is not None else (ClosingForm(questions=questions) if questions else None),
    }


@require_GET
@never_cache  # Back shows the current step, never a kept copy of an item already answered
@participant_view
def step(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    return _render_step(request, participant)


def _render_step(
    request: HtmxHttpRequest, participant: Participant, shown: Item | None = None, already_answered: bool = False
) -> HttpResponse:
    """The participant's current step. `shown`: the current item, already read and marked shown;
    `already_answered`: the answer just sent was to an item answered before (said with the item)."""
    study = participant.study
    context = {"study": study, "participant": participant}
    match participant.step:
        case Participant.Step.CONSENT:
            return render(request, "participation/consent.html", context)
        case Participant.Step.INSTRUCTIONS:
            return render(request, "participation/instructions.html", context)
        case Participant.Step.PRACTICE:
            return training_views.practice_page(request, study, participant)
        case Participant.Step.COMPREHENSION:
            return training_views.comprehension_page(request, study, participant)
        case Participant.Step.SCREENED_OUT:
            return training_views.screened_out_page(request, study, participant=participant)
        case Participant.Step.ITEMS:
            if shown is None:
                participant = item_mark_shown(participant=participant)
                if participant.step != Participant.Step.ITEMS:  # timed out, and the slot was given away
                    return _render_step(request, participant)
            template = "participation/partials/_item.html" if request.htmx else "participation/item_page.html"
            return render(request, template, _item_context(participant, item=shown, already_answered=already_answered))
        case Participant.Step.DONE:
            if request.htmx:
                return HttpResponseClientRedirect(_step_url(study))
            return render(request, "participation/done.html", _done_context(participant))
        case Participant.Step.DECLINED:
            found = study_exit(study, panels.Outcome.DECLINED, participant)
            return render(
                request,
                "participation/declined.html",
                {**context, "code": found.code, **exit_context(study, found)},
            )
        case _:
            if request.htmx:
                return HttpResponseClientRedirect(_step_url(study))
            return problem(
                request,
                gettext("Your place in this study has ended"),
                for_panel(
                    study,
                    gettext(
                        "Your reserved place timed out or was returned, and it has been given to another "
                        "participant. Please return the study on Prolific."
                    ),
                    gettext(
                        "Your reserved place timed out or was returned, and it has been given to another "
                        "participant. Please return the study on {panel}."
                    ),
                ),
                status=200,
            )


def _item_context(
    participant: Participant,
    error: str = "",
    typed: str = "",
    pasted: bool = False,
    item: Item | None = None,
    typed_explanation: str = "",
    already_answered: bool = False,
) -> dict:
    """`typed`/`pasted`/`typed_explanation`: a refused answer, given back so that the participant can
    complete it; `item`: the current item, when the caller has it; `already_answered`: the answer
    sent was to an item answered before."""
    item = item or current_item(participant)
    definition = participant.study.definition
    screen = screen_for(participant, item) if item else None
    return {
        "study": participant.study,
        "participant": participant,
        "item": item,
        "item_token": answer_token(participant_owner(participant.pk), participant.answered + 1, item.pk)
        if item
        else "",
        "error": error,
        "preview": None,
        "answer_url": reverse("participation:answer", args=[participant.study.link]),
        "step_url": _step_url(participant.study),
        "already_answered": already_answered,
        "position": participant.answered + 1,
        "total": participant.total,
        "percent": round(100 * participant.answered / max(participant.total, 1)),
        "shown": screen.shown if screen else {},
        "choices": translated_choices(screen.choices) if screen else [],
        "item_template": screen.template if screen else definition.item_template,
        "history": _history(participant, item) if item and definition.shows_history else [],
        "typed": typed,
        "pasted": pasted,
        **explanations.box_context(participant.study, participant.answered + 1, typed_explanation),
    }


def _history(participant: Participant, item) -> list[dict]:
    """Earlier answers as plain data, for benchmarks that reveal the correct label after each one."""
    answered = [
        {
            "prompt": response.item.prompt,
            "gold": response.item.gold,
            "raw_answer": response.raw_answer,
            "answer": response.answer,
            "correct": response.correct,
        }
        for response in answered_responses(participant)
    ]
    return participant.study.definition.history(answered, item.prompt)


@require_POST
@participant_view
def consent(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    form = ConsentForm(request.POST)
    if form.is_valid():
        participant_consent(participant=participant, agree=form.cleaned_data["agree"])
    return redirect(_step_url(participant.study))


@require_POST
@participant_view
def closing(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    """The optional closing questions, sent from the done page; then back to Prolific with the code."""
    if participant.step != Participant.Step.DONE:
        return redirect(_step_url(participant.study))
    form = ClosingForm(request.POST, questions=asked(study_keys(participant.study)))
    if not form.is_valid():
        return render(request, "participation/done.html", _done_context(participant, closing=form), status=422)
    participant = participant_answer_closing(participant=participant, answers=form.cleaned_data)
    # a panel that is returned to by a form (MTurk) or not at all (a lab) shows the done page again
    return redirect(_done_context(participant)["redirect_url"] or _step_url(participant.study))


@require_POST
@participant_view
def begin(request: HtmxHttpRequest, participant: Participant) -> HttpResponse:
    participant_begin(participant=participant)
    return redirect(_step_url(participant.study))


@require_POST
@never_cache
def answer(request: HtmxHttpRequest, link: str) -> HttpResponse:
    """An answer to the current item. The participant is read and locked inside the answer's
    transaction (`response_submit`); a form that does not validate reads them as any page does."""
    known = known_participant_ids(request)
    form = AnswerForm(request.POST)
    if not known or not form.is_valid():
        participant = participant_at_link(known, link)
        if participant is None:
            return no_participant(request, link)
        if not request.htmx:
            return redirect(_step_url(participant.study))
        with study_language(participant.study):
            return _render_step(request, participant)
    extra = {key: form.cleaned_data[key] for key in ("pasted", "option_order") if form.cleaned_data[key]}
    if form.cleaned_data["homepage"]:
        extra["honeypot"] = True  # the fact only: what a bot wrote there is no one's data
    result = response_submit(
        link=link,
        known=known,
        item_token=form.cleaned_data["item"],
        position=form.cleaned_data["position"],
        raw_answer=form.cleaned_data["answer"],
        extra=extra,
        behaviour=BehaviourForm(request.POST).record(),
        show_next=bool(request.htmx),
        explanation=form.cleaned_data["explanation"],
    )
    if result is None:
        return no_participant(request, link)
    with study_language(result.participant.study):
        return _answered(request, result, form)


def _answered(request: HtmxHttpRequest, result: SubmitResult, form: AnswerForm) -> HttpResponse:
    """The page after an answer: the item again with the message when it was refused, else the next step."""
    participant = result.participant
    if result.outcome in (Outcome.INVALID, Outcome.TOO_SOON) and participant.step == Participant.Step.ITEMS:
        template = "participation/partials/_item.html" if request.htmx else "participation/item_page.html"
        context = _item_context(
            participant,
            translated(result.message),
            typed=form.cleaned_data["answer"],
            pasted=form.cleaned_data["pasted"],
            typed_explanation=form.cleaned_data["explanation"],
        )
        return render(request, template, context, status=422 if not request.htmx else 200)
    if result.outcome is Outcome.ALREADY_ANSWERED and participant.step == Participant.Step.ITEMS:
        # said on the page and to a screen reader, in place of "Answer saved": nothing was saved
        if request.htmx:
            return _render_step(request, participant, already_answered=True)
        # a page like the step's (200, as the redirect to it was): only its sentence is new
        return render(request, "participation/item_page.html", _item_context(participant, already_answered=True))
    if request.htmx:
        return _render_step(request, participant, shown=result.next_item)
    return redirect(_step_url(participant.study))
