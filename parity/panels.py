"""Where a study's participants come from: each recruiting panel's link parameters, the shape of its
ids, where a participant is sent at each way out of the study and with which code, and the panel's
own floor for pay. Every rule is taken from the panel's documentation, whose address stands beside
it (and in docs/panels.md).

A participant leaves the study in one of five ways (`Outcome`); each panel sends them on in one of
three ways (`Exit.kind`): a redirect to a URL carrying the code, a form POSTed back to the panel
(Amazon MTurk's ExternalQuestion), or a page of Parity's own that says what to do.
"""

from __future__ import annotations

import enum
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

PROLIFIC = "prolific"
CONNECT = "connect"
MTURK = "mturk"
SONA = "sona"
LAB = "lab"


class Outcome(enum.StrEnum):
    COMPLETED = "completed"
    #: excluded for failed attention checks: the study's failed-check code
    FAILED_CHECK = "failed_check"
    #: still wrong at the comprehension check after the last try (screened out)
    SCREENED_OUT = "screened_out"
    DECLINED = "declined"
    #: no place left (or not open): the participant never entered
    FULL = "full"


@dataclass(frozen=True)
class Exit:
    """Where a participant goes on: `redirect` (to `url`), `post` (a form of `fields` POSTed to
    `url`) or `page` (Parity's own page, which names the panel; `url` empty)."""

    kind: str
    url: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    #: the code the participant is shown (and that the URL or form carries), if any
    code: str = ""


@dataclass(frozen=True)
class Rule:
    """One rule of a panel and the page of its documentation that states it."""

    text: str
    source: str


SYMBOLS = {"GBP": "£", "USD": "$"}


@dataclass(frozen=True)
class MinimumPay:
    """A panel's floor for pay, and the rate it recommends, in minor units of its currency per hour."""

    minor_per_hour: int
    recommended_per_hour: int
    currency: str  # "GBP", "USD"
    source: str

    @property
    def words(self) -> str:
        return f"{SYMBOLS[self.currency]}{self.minor_per_hour / 100:.2f}/h"


@dataclass(frozen=True)
class Panel:
    key: str
    name: str
    #: the URL parameters that carry the participant's id, the panel's study (project, HIT) and the
    #: assignment or session; "" where the panel sends none
    id_param: str
    study_param: str
    session_param: str
    #: what the panel writes in the link for each parameter (filled in per participant)
    placeholders: Mapping[str, str]
    #: the shape of a participant id, a study id and a session id (full match)
    id_shape: re.Pattern[str]
    id_shape_words: str
    other_shape: re.Pattern[str]
    #: the participant id is stored in lower case (Prolific's ids are hexadecimal in any case)
    lower_case: bool
    #: the settings a study on this panel must give (`PanelSettings`), with their labels
    required: tuple[str, ...]
    minimum_pay: MinimumPay | None
    rules: tuple[Rule, ...] = field(default=())
    #: the currency the study's reward is in (Prolific's: its workspace's, GBP until Parity has read it)
    currency: str = "GBP"
    #: an id may be left out of the link: the participant is given a generated one
    id_optional: bool = False

    def params(self) -> tuple[str, ...]:
        return tuple(name for name in (self.id_param, self.study_param, self.session_param) if name)


PROLIFIC_PAY = "https://researcher-help.prolific.com/hc/en-gb/articles/4407695146002-Prolific-s-payment-principles"
CONNECT_COMPLETION = (
    "https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/5046202939796-Project-Completion"
)
CONNECT_COST = "https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/5046181555732-Project-Cost"
CONNECT_IDS = "https://connect-researcher-help.cloudresearch.com/hc/en-us/articles/20347751644436-IRB-Resources"
CONNECT_PARTIAL = (
    "https://research-help-center.s3.us-west-2.amazonaws.com/researcher/participants/processing-submissions/"
    "handling-partial-completions.html"
)
MTURK_RENDERED = "https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/mturk-hits-defining-questions-html-rendered.html"
MTURK_FORM = "https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/mturk-hits-defining-questions-html-define.html"
MTURK_EXTERNAL = "https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMturkAPI/ApiReference_ExternalQuestionArticle.html"
SONA_SURVEY_CODE = "https://www.sona-systems.com/researcher/using-the-survey-code-feature/"
SONA_CREDIT = "https://www.sona-systems.com/researcher/external-study-credit-granting/"

#: MTurk's preview: the worker has not accepted the HIT yet (MTURK_EXTERNAL)
MTURK_PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"
#: where a HIT's form is submitted: the sandbox's and the marketplace's hosts (MTURK_FORM, MTURK_EXTERNAL)
MTURK_HOSTS = {True: "https://workersandbox.mturk.com", False: "https://www.mturk.com"}
MTURK_SUBMIT_PATH = "/mturk/externalSubmit"
#: SONA's credit URL: the survey code goes in `survey_code` (SONA_CREDIT)
SONA_CODE_PARAM = "survey_code"

_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")

PANELS: dict[str, Panel] = {
    PROLIFIC: Panel(
        key=PROLIFIC,
        name="Prolific",
        id_param="PROLIFIC_PID",
        study_param="STUDY_ID",
        session_param="SESSION_ID",
        placeholders={
            "PROLIFIC_PID": "{{%PROLIFIC_PID%}}",
            "STUDY_ID": "{{%STUDY_ID%}}",
            "SESSION_ID": "{{%SESSION_ID%}}",
        },
        id_shape=re.compile(r"[0-9a-fA-F]{24}"),
        id_shape_words="24 hexadecimal characters",
        other_shape=_TOKEN,
        lower_case=True,
        required=(),
        # "the minimum pay allowed is £6.00 / $8.00 per hour" (PROLIFIC_PAY)
        minimum_pay=MinimumPay(600, 900, "GBP", PROLIFIC_PAY),
    ),
    CONNECT: Panel(
        key=CONNECT,
        name="CloudResearch Connect",
        # the placeholders of Connect's study link; no Connect help page naming them was found to cite
        # (docs/panels.md asks the researcher to check them against the link Connect's wizard shows)
        id_param="participantId",
        study_param="projectId",
        session_param="assignmentId",
        placeholders={
            "participantId": "{{participantId}}",
            "projectId": "{{projectId}}",
            "assignmentId": "{{assignmentId}}",
        },
        # "Connect IDs consist of a random string of numbers and letters" (CONNECT_IDS)
        id_shape=re.compile(r"[A-Za-z0-9]{1,64}"),
        id_shape_words="letters and digits",
        other_shape=_TOKEN,
        lower_case=False,
        required=("complete_url", "partial_url"),
        # "the site minimum is $7.50/hour" and "our baseline for fast data collection is $10/hour" (CONNECT_COST)
        minimum_pay=MinimumPay(750, 1000, "USD", CONNECT_COST),
        currency="USD",
        rules=(
            Rule("the end-of-study redirect URL, copied from the end of the Create a Study wizard", CONNECT_COMPLETION),
            Rule(
                "the completion redirect only at the end; screen-outs and failed checks through Partial Completes "
                "(partial payment)",
                CONNECT_COMPLETION,
            ),
            Rule(
                "a code other than the completion code: paid nothing until the researcher bonuses it", CONNECT_PARTIAL
            ),
        ),
    ),
    MTURK: Panel(
        key=MTURK,
        name="Amazon Mechanical Turk",
        id_param="workerId",
        study_param="hitId",
        session_param="assignmentId",
        placeholders={},  # MTurk appends its four parameters itself (MTURK_RENDERED)
        # "AZ3456EXAMPLE" (MTURK_RENDERED): upper-case letters and digits
        id_shape=re.compile(r"[A-Z0-9]{1,64}"),
        id_shape_words="upper-case letters and digits",
        other_shape=re.compile(r"[A-Z0-9_]{1,64}"),
        lower_case=False,
        required=(),
        minimum_pay=None,  # MTurk sets none
        currency="USD",  # MTurk pays in US dollars
        rules=(
            Rule("hitId, assignmentId, turkSubmitTo and workerId appended to the ExternalQuestion URL", MTURK_RENDERED),
            Rule("assignmentId ASSIGNMENT_ID_NOT_AVAILABLE while the worker previews the HIT", MTURK_EXTERNAL),
            Rule("the answer form POSTed to /mturk/externalSubmit with the assignmentId", MTURK_FORM),
        ),
    ),
    SONA: Panel(
        key=SONA,
        name="SONA",
        id_param="id",
        study_param="",
        session_param="",
        placeholders={"id": "%SURVEY_CODE%"},
        # "anywhere from 2-7 characters in length ... not ... leading with zeroes" (SONA_SURVEY_CODE)
        id_shape=re.compile(r"[1-9][0-9]{1,6}"),
        id_shape_words="a number of 2 to 7 digits",
        other_shape=_TOKEN,
        lower_case=False,
        required=("credit_url",),
        minimum_pay=None,  # course credit, or the institution's own rate
        rules=(
            Rule("?id=%SURVEY_CODE% in the Study URL: a unique number per sign-up", SONA_SURVEY_CODE),
            Rule(
                "the client-side completion URL grants credit; survey_code carries the participant's code", SONA_CREDIT
            ),
        ),
    ),
    LAB: Panel(
        key=LAB,
        name="the lab's own link",
        id_param="participant",
        study_param="",
        session_param="",
        placeholders={"participant": "<the participant's id>"},
        id_shape=_TOKEN,
        id_shape_words="1–64 letters, digits, '-' or '_'",
        other_shape=_TOKEN,
        lower_case=False,
        required=(),
        minimum_pay=None,
        id_optional=True,
    ),
}

CHOICES = [(key, panel.name if key != LAB else "A lab's own link") for key, panel in PANELS.items()]

#: the settings a panel may need, with their meaning
SETTING_LABELS = {
    "complete_url": "Connect's completion redirect URL",
    "partial_url": "Connect's partial-complete redirect URL (screen-outs and failed checks)",
    "credit_url": "SONA's client-side completion URL (with survey_code=XXXX)",
    "sandbox": "MTurk's sandbox (workersandbox.mturk.com) rather than the marketplace",
}


@dataclass(frozen=True)
class PanelSettings:
    """A study's settings for its panel (stored as `Study.panel_settings`)."""

    complete_url: str = ""
    partial_url: str = ""
    credit_url: str = ""
    sandbox: bool = False

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> PanelSettings:
        return cls(
            complete_url=str(given.get("complete_url") or ""),
            partial_url=str(given.get("partial_url") or ""),
            credit_url=str(given.get("credit_url") or ""),
            sandbox=bool(given.get("sandbox")),
        )

    def to_json(self, panel: str) -> dict[str, Any]:
        """What the panel uses, and nothing of another panel's."""
        if panel == CONNECT:
            return {"complete_url": self.complete_url, "partial_url": self.partial_url}
        if panel == SONA:
            return {"credit_url": self.credit_url}
        if panel == MTURK:
            return {"sandbox": self.sandbox}
        return {}


def get(key: str) -> Panel:
    return PANELS[key]


def settings_errors(panel: str, given: Mapping[str, Any] | None) -> dict[str, str]:
    """What is wrong with a panel's settings, by setting."""
    if panel not in PANELS:
        return {"panel": f"no panel {panel!r}; known: {', '.join(PANELS)}"}
    found = PanelSettings.of(given or {})
    errors: dict[str, str] = {}
    for name in PANELS[panel].required:
        value = getattr(found, name)
        if not value:
            errors[name] = f"{PANELS[panel].name} needs {SETTING_LABELS[name]}."
        elif not _https(value):
            errors[name] = f"{SETTING_LABELS[name]} must be an https:// address."
    if panel == SONA and found.credit_url and _https(found.credit_url):
        if SONA_CODE_PARAM not in dict(parse_qsl(urlsplit(found.credit_url).query)):
            errors["credit_url"] = (
                f"SONA's completion URL carries the survey code as {SONA_CODE_PARAM}= (copy it from the study's "
                "page on SONA)."
            )
    return errors


def _https(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme == "https" and bool(parts.netloc) and not any(c.isspace() for c in value)


def with_param(url: str, name: str, value: str) -> str:
    """`url` with its query parameter `name` set to `value` (added when it has none)."""
    parts = urlsplit(url)
    query = [(key, old) for key, old in parse_qsl(parts.query, keep_blank_values=True) if key != name]
    return urlunsplit(parts._replace(query=urlencode([*query, (name, value)])))


#: the ExternalQuestion schema's namespace (MTURK_EXTERNAL)
EXTERNAL_QUESTION_SCHEMA = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
)


def external_question(url: str, frame_height: int = 800) -> str:
    """The HIT's Question: an ExternalQuestion naming the study's address (MTURK_EXTERNAL)."""
    escaped = url.replace("&", "&amp;").replace("<", "&lt;")
    return (
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_SCHEMA}"><ExternalURL>{escaped}</ExternalURL>'
        f"<FrameHeight>{frame_height}</FrameHeight></ExternalQuestion>"
    )


def mturk_submit_url(sandbox: bool) -> str:
    return MTURK_HOSTS[sandbox] + MTURK_SUBMIT_PATH


def mturk_host_matches(turk_submit_to: str, sandbox: bool) -> bool:
    """MTurk's `turkSubmitTo` names the host the study's setting expects (never another address)."""
    return turk_submit_to.rstrip("/") == MTURK_HOSTS[sandbox]


@dataclass(frozen=True)
class Codes:
    completion: str
    failed: str
    screened_out: str  # the no-consent code, given also to those screened out; may be ""


def panel_exit(
    panel: str,
    given: Mapping[str, Any] | None,
    outcome: Outcome,
    codes: Codes,
    *,
    participant_id: str = "",
    session_id: str = "",
    prolific_complete_url: str = "",
) -> Exit:
    """Where a participant of `panel` goes on after `outcome`, and with which code."""
    found = PanelSettings.of(given or {})
    code = {
        Outcome.COMPLETED: codes.completion,
        Outcome.FAILED_CHECK: codes.failed,
        Outcome.SCREENED_OUT: codes.screened_out,
        Outcome.DECLINED: codes.screened_out,
        Outcome.FULL: "",
    }[outcome]
    if panel == PROLIFIC:
        # Prolific: every code has its redirect (https://docs.prolific.com/api-reference/studies/get-study)
        if outcome is Outcome.FULL or not code:
            return Exit("page")
        return Exit("redirect", f"{prolific_complete_url}?cc={code}", code=code)
    if panel == CONNECT:
        # the completion redirect only for those who finished; Partial Completes for screen-outs and
        # failed checks (CONNECT_COMPLETION); declining and a full study: return the project
        if outcome is Outcome.COMPLETED:
            return Exit("redirect", found.complete_url, code=code)
        if outcome in (Outcome.FAILED_CHECK, Outcome.SCREENED_OUT):
            return Exit("redirect", found.partial_url, code=code)
        return Exit("page", code=code)
    if panel == MTURK:
        # the assignment is submitted with its id, whatever the code (MTURK_FORM); declining and a
        # full study: the worker returns the HIT
        if outcome in (Outcome.COMPLETED, Outcome.FAILED_CHECK, Outcome.SCREENED_OUT) and session_id:
            fields = (("assignmentId", session_id), ("completion_code", code or outcome.value))
            return Exit("post", mturk_submit_url(found.sandbox), fields=fields, code=code)
        return Exit("page", code=code)
    if panel == SONA:
        # the credit URL with the participant's survey code (SONA_CREDIT); SONA has no partial credit,
        # so whoever took part until a check or the comprehension check is credited the same way
        if outcome in (Outcome.COMPLETED, Outcome.FAILED_CHECK, Outcome.SCREENED_OUT) and participant_id:
            return Exit("redirect", with_param(found.credit_url, SONA_CODE_PARAM, participant_id), code=code)
        return Exit("page", code=code)
    return Exit("page", code=code)  # the lab's own link: Parity's thank-you page


def generated_id() -> str:
    """An id for a lab participant who came without one: 16 characters no one can guess."""
    return "lab-" + secrets.token_hex(6)


def participant_url(panel: str, base: str, lab_id_placeholder: bool = True) -> str:
    """The link a researcher pastes into the panel: `base` (the study's address) with the panel's
    placeholders; MTurk's own parameters are appended by MTurk, the lab's id is optional."""
    found = PANELS[panel]
    if not found.placeholders or (panel == LAB and not lab_id_placeholder):
        return base
    query = "&".join(f"{name}={value}" for name, value in found.placeholders.items())
    return f"{base}?{query}"
