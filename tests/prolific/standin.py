"""A local stand-in for Prolific's researcher API: a real HTTP server in a thread, on a free port.

It keeps studies, submissions, bulk bonuses and webhook subscriptions in memory and is strict: it
behaves as Prolific's documentation says, with the page that says so beside each rule, so that a
call Prolific would refuse is refused here too. The token, the placeholders of the study URL, the
`filters` a study must carry, places that only go up, the study's transitions, submissions listed a
page at a time, bulk approvals in one of two bodies and of at most 1,000 ids, one review decision per
submission, a rejection message of 100 characters or more with a category, paying a bulk bonus that
is *not* idempotent (every pay call pays again; `payments` counts them), webhook subscriptions that
stay disabled until confirmed with their `X-Hook-Secret`, and deliveries only for an enabled
subscription. Failures are injected per call: an HTTP 500, 503 or 429, or a time-out, before or after
the call takes effect. Tests script participants' submissions and sign webhook deliveries with it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode

from tests.prolific.standin_rules import (
    BULK_APPROVE_MAX,
    CODE_TYPES,
    DEFAULT_PAGE,
    EVENT_TYPES,
    FILTERS,
    PLACEHOLDERS,
    REJECTION_CATEGORIES,
    STUDY_TRANSITIONS,
    choice_problems,
    filter_problems,
)


class Refused(Exception):
    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass
class Failure:
    method: str
    path: str  # a substring of the path
    kind: str  # "500", "503", "429" (Prolific busy: nothing done) or "timeout"
    after: bool  # the call takes effect first, then fails
    times: int


@dataclass
class StandIn:
    token: str = "test-token"
    timeout_delay: float = 2.0
    studies: dict[str, dict] = field(default_factory=dict)
    submissions: dict[str, dict] = field(default_factory=dict)
    bulk_bonuses: dict[str, dict] = field(default_factory=dict)
    payments: list[str] = field(default_factory=list)  # the bulk id of each pay call that took effect
    rejection_messages: dict[str, str] = field(default_factory=dict)  # each rejection's message, by submission
    decisions: list[tuple[str, str]] = field(default_factory=list)  # (submission id, APPROVE / REJECT)
    secrets: list[str] = field(default_factory=list)
    subscriptions: list[dict] = field(default_factory=list)
    #: each project (https://docs.prolific.com/api-reference/projects/get-project): its `workspace`
    projects: dict[str, dict] = field(
        default_factory=lambda: {"project-1": {"id": "project-1", "title": "Parity", "workspace": "workspace-1"}}
    )
    #: the workspace's currency (https://docs.prolific.com/api-reference/workspaces/create-workspace:
    #: "Must be GBP or USD")
    currency: str = "GBP"
    #: the most rows one page holds, whatever `limit` asks: Prolific documents no maximum, and a
    #: small one here makes a client that trusts its own `limit` read on as it must
    page_cap: int = 200
    bulk_cap: int = BULK_APPROVE_MAX
    #: injected misbehaviour of the submissions list: every page is the first (an answer that ignores
    #: `offset`, so a page adds nothing new), and / or pages without `meta.count` (the CLI reads the
    #: count when there is one, prolific-oss/cli client/responses.go, so it may be absent)
    ignore_offset: bool = False
    count_pages: bool = True
    #: bulk approvals are asynchronous: the answer says the request was accepted ("Bulk approve in
    #: progress", https://docs.prolific.com/api-reference/submissions/bulk-approve-submissions) and the
    #: submissions stay awaiting review until `bulk_apply`; off, they are applied before the answer
    bulk_async: bool = False
    pending_approvals: list[str] = field(default_factory=list)  # accepted, not yet applied
    #: injected fault: approvals of these submissions are accepted and never applied
    never_applied: set[str] = field(default_factory=set)
    #: a publish goes through PUBLISHING ("Study publish has been triggered and is being processed",
    #: https://docs.prolific.com/api-reference/studies/the-study-object) until `study_settle`
    publish_async: bool = False
    bulk_approvals: list[dict] = field(default_factory=list)  # the body of each bulk approval taken
    event_ids: dict[bytes, str] = field(default_factory=dict)  # a delivered body → its X-Event-ID
    calls: list[tuple[str, str]] = field(default_factory=list)
    queries: list[dict[str, str]] = field(default_factory=list)  # each call's query string
    failures: list[Failure] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    # -- running it ----------------------------------------------------------------------------

    def start(self) -> StandIn:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                standin._handle(self)

            do_POST = do_PATCH = do_DELETE = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/api/v1/"

    def fail(self, method: str, path: str, kind: str = "500", *, after: bool = False, times: int = 1) -> None:
        """The next `times` calls of `method` whose path contains `path` fail with `kind`."""
        self.failures.append(Failure(method, path, kind, after, times))

    def _failure(self, method: str, path: str) -> Failure | None:
        with self.lock:
            for failure in self.failures:
                if failure.method == method and failure.path in path and failure.times > 0:
                    failure.times -= 1
                    return failure
        return None

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        method, path = request.command, request.path.split("?")[0]
        query = {name: values[-1] for name, values in parse_qs(request.path.partition("?")[2]).items()}
        length = int(request.headers.get("Content-Length") or 0)
        raw = request.rfile.read(length) if length else b""
        self.calls.append((method, path))
        self.queries.append(query)
        failure = self._failure(method, path)
        if failure and not failure.after:
            return self._fail(request, failure)
        if request.headers.get("Authorization") != f"Token {self.token}":
            return self._answer(request, 401, {"error": "invalid token"})
        try:
            body = json.loads(raw) if raw else {}
            with self.lock:
                status, answer, *headers = self._route(method, path.removeprefix("/api/v1"), body, query)
        except Refused as exc:
            return self._answer(request, exc.status, {"error": exc.detail})
        if failure:
            return self._fail(request, failure)
        self._answer(request, status, answer, headers[0] if headers else None)

    def _fail(self, request: BaseHTTPRequestHandler, failure: Failure) -> None:
        if failure.kind == "timeout":
            time.sleep(self.timeout_delay)
        if failure.kind == "429":
            # "a 429 ... is transient" (https://docs.prolific.com/documentation/core-concepts/managing-high-loads)
            return self._answer(request, 429, {"error": "Too Many Requests"})
        if failure.kind == "503":
            return self._answer(request, 503, {"error": "service unavailable"})
        self._answer(request, 500, {"error": "internal server error"})

    def _answer(
        self, request: BaseHTTPRequestHandler, status: int, answer: Any, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(answer).encode() if answer is not None else b""
        try:
            request.send_response(status)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                request.send_header(name, value)
            request.end_headers()
            request.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting

    # -- the API -------------------------------------------------------------------------------

    def _route(self, method: str, path: str, body: dict, query: dict[str, str]) -> tuple:
        parts = [part for part in path.split("/") if part]
        match (method, parts):
            case ("POST", ["studies"]):
                return 201, self._study_create(body)
            case ("GET", ["studies", study_id]):
                return 200, self._study(study_id)
            case ("PATCH", ["studies", study_id]):
                return 200, self._study_update(self._study(study_id), body)
            case ("POST", ["studies", study_id, "transition"]):
                return 200, self._study_transition(self._study(study_id), body.get("action"))
            case ("GET", ["studies", study_id, "submissions"]):
                return 200, self._submissions_page(self._study(study_id), path, query)
            case ("POST", ["submissions", "bulk-approve"]):
                return 200, self._bulk_approve(body)
            case ("POST", ["submissions", "bonus-payments"]):
                return 201, self._bonus_create(body)
            case ("POST", ["submissions", submission_id, "transition"]):
                return 200, self._submission_transition(submission_id, body)
            case ("POST", ["bulk-bonus-payments", bulk_id, "pay"]):
                # "This endpoint is not idempotent" (https://docs.prolific.com/api-reference/bonuses/pay-bonus-payments)
                if bulk_id not in self.bulk_bonuses:
                    raise Refused(404, "no such bulk bonus")
                self.payments.append(bulk_id)  # paying twice pays twice
                return 202, None
            case ("GET", ["filters"]):
                return 200, {"results": FILTERS}
            case ("GET", ["projects", project_id]):
                if project_id not in self.projects:
                    raise Refused(404, "no such project")
                return 200, self.projects[project_id]
            case ("GET", ["workspaces", workspace_id, "projects"]):
                # https://docs.prolific.com/api-reference/projects/get-projects
                return 200, {"results": [row for row in self.projects.values() if row["workspace"] == workspace_id]}
            case ("GET", ["workspaces", _, "balance"]):
                # https://docs.prolific.com/api-reference/workspaces/get-workspace-balance: amounts in the
                # sub-currency of `currency_code`
                return 200, {"currency_code": self.currency, "total_balance": 0, "available_balance": 0}
            case ("POST", ["hooks", "secrets"]):
                # one active secret per workspace (https://docs.prolific.com/api-reference/webhooks/subscribing):
                # "Create/replace a secret", so deliveries are signed with the newest (`secrets[-1]`)
                secret = secrets.token_urlsafe(32)
                self.secrets.append(secret)
                return 201, {"id": secrets.token_hex(12), "value": secret, "workspace_id": body.get("workspace_id")}
            case ("POST", ["hooks", "subscriptions"]):
                return self._subscribe(body)
            case ("POST", ["hooks", "subscriptions", subscription_id]):
                return 200, self._confirm(subscription_id, body)
            case ("GET", ["hooks", "subscriptions"]):
                # https://docs.prolific.com/api-reference/webhooks/get-subscriptions: `results`
                workspace = query.get("workspace_id")
                rows = [sub for sub in self.subscriptions if workspace in (None, sub.get("workspace_id"))]
                return 200, {"results": [self._public(sub) for sub in rows]}
            case ("DELETE", ["hooks", "subscriptions", subscription_id]):
                # https://docs.prolific.com/api-reference/webhooks/delete-subscription
                kept = [sub for sub in self.subscriptions if sub["id"] != subscription_id]
                if len(kept) == len(self.subscriptions):
                    raise Refused(404, "no such subscription")
                self.subscriptions = kept
                return 204, None
        raise Refused(404, f"no route for {method} {path}")

    def _subscribe(self, body: dict) -> tuple:
        """https://docs.prolific.com/api-reference/webhooks/subscribing: the answer carries the
        subscription's `id` and an `X-Hook-Secret` header; the subscription is disabled until that
        secret confirms it, whatever `is_enabled` the request asked for."""
        if body.get("event_type") not in EVENT_TYPES:
            raise Refused(400, "unknown event type")
        if not str(body.get("target_url") or "").startswith("https://") or not body.get("workspace_id"):
            # "target_url must use https:// and be publicly accessible"
            raise Refused(400, "a subscription needs a workspace_id and an https:// target_url")
        subscription = {
            "id": secrets.token_hex(12),
            "event_type": body["event_type"],
            "target_url": body["target_url"],
            "workspace_id": body["workspace_id"],
            "is_enabled": False,
        }
        hook_secret = secrets.token_hex(16)
        self.subscriptions.append({**subscription, "hook_secret": hook_secret})
        # the answer is a list of subscriptions, `results`, as the API reference shows it
        # (https://docs.prolific.com/api-reference/webhooks/create-subscription)
        return 201, {"results": [subscription]}, {"X-Hook-Secret": hook_secret}

    @staticmethod
    def _public(subscription: dict) -> dict:
        return {key: value for key, value in subscription.items() if key != "hook_secret"}

    def _confirm(self, subscription_id: str, body: dict) -> dict:
        """https://docs.prolific.com/api-reference/webhooks/confirm-subscription: `{"secret": ...}`,
        the subscription's X-Hook-Secret."""
        for subscription in self.subscriptions:
            if subscription["id"] == subscription_id:
                if not body.get("secret") or body["secret"] != subscription["hook_secret"]:
                    raise Refused(400, "the secret is not this subscription's X-Hook-Secret")
                subscription["is_enabled"] = True
                return self._public(subscription)
        raise Refused(404, "no such subscription")

    def subscribed_elsewhere(self, event_type: str) -> None:
        """A subscription made and confirmed outside Parity (with Prolific's own CLI, say)."""
        with self.lock:
            self.subscriptions.append({"id": secrets.token_hex(12), "event_type": event_type, "is_enabled": True})

    def _submissions_page(self, study: dict, path: str, query: dict[str, str]) -> dict:
        """A page, shaped as the official CLI reads it (`results`, `_links`, `meta.count`:
        prolific-oss/cli client/responses.go), of `limit` rows from `offset`
        (https://docs.prolific.com/api-reference/studies/get-study-submissions)."""
        rows = [dict(row) for row in self.submissions.values() if row["study_id"] == study["id"]]
        try:
            limit = min(int(query.get("limit", DEFAULT_PAGE)), self.page_cap)
            offset = 0 if self.ignore_offset else int(query.get("offset", 0))
        except ValueError:
            raise Refused(400, "limit and offset are numbers") from None
        if limit < 1 or offset < 0:
            raise Refused(400, "limit is at least 1 and offset at least 0")

        def link(start: int) -> dict:
            return {"href": f"{self.url.rstrip('/')}{path}?{urlencode({'limit': limit, 'offset': start})}"}

        return {
            "results": rows[offset : offset + limit],
            "_links": {
                "self": link(offset),
                "next": link(offset + limit) if offset + limit < len(rows) else {"href": None},
                "previous": link(max(offset - limit, 0)) if offset else {"href": None},
            },
            "meta": {"count": len(rows)} if self.count_pages else {},
        }

    def _study(self, study_id: str) -> dict:
        if study_id not in self.studies:
            raise Refused(404, "no such study")
        return self.studies[study_id]

    def _study_create(self, body: dict) -> dict:
        problems = [
            name
            for name in (
                "name",
                "description",
                "external_study_url",
                "estimated_completion_time",
                "reward",
                "total_available_places",
                "completion_codes",
            )
            if not body.get(name)
        ]
        url = body.get("external_study_url") or ""
        problems += [
            f"external_study_url lacks {placeholder}" for placeholder in PLACEHOLDERS if placeholder not in url
        ]
        if "project" in body and body["project"] not in self.projects:
            # the study's `project` (https://docs.prolific.com/api-reference/studies/create-study) must exist
            problems.append(f"no such project {body['project']}")
        if not isinstance(body.get("filters"), list):
            # `filters` is required (https://docs.prolific.com/api-reference/studies/the-study-object);
            # the official clients send [] at least (prolific-oss/prolific-mcp tools/studies.py)
            problems.append("filters is required (a list, [] for none)")
        else:
            problems += filter_problems(body["filters"]) + choice_problems(body["filters"])
        for name in ("estimated_completion_time", "reward", "total_available_places"):
            if not isinstance(body.get(name), int) or body[name] < 1:
                problems.append(f"{name} must be a positive integer (the reward in the smallest currency unit)")
        for code in body.get("completion_codes") or []:
            if code.get("code_type") not in CODE_TYPES or not code.get("code"):
                problems.append(f"bad completion code {code}")
        if problems:
            raise Refused(400, problems)
        study_id = secrets.token_hex(12)
        self.studies[study_id] = {**body, "id": study_id, "status": "UNPUBLISHED", "currency_code": self.currency}
        return self.studies[study_id]

    def _study_update(self, study: dict, body: dict) -> dict:
        places = body.get("total_available_places")
        if places is not None and places < study["total_available_places"]:
            raise Refused(400, "total_available_places cannot be decreased")
        study.update(body)
        if places is not None and places > len(self._sent_in(study["id"])) and study["status"] == "AWAITING REVIEW":
            # not confirmed by Prolific's documentation: a study that went to awaiting review when its places
            # were filled recruits again once they are raised (as Mephisto's notes on Prolific observe,
            # https://mephisto.ai/docs/guides/how_to_use/providers/prolific/prolific_api_oddities)
            study["status"] = "ACTIVE"
        return study

    def _sent_in(self, study_id: str) -> list[dict]:
        return [
            row
            for row in self.submissions.values()
            if row["study_id"] == study_id and row["status"] in ("AWAITING REVIEW", "APPROVED")
        ]

    def _study_transition(self, study: dict, action: str | None) -> dict:
        if action not in STUDY_TRANSITIONS or study["status"] not in STUDY_TRANSITIONS[action][0]:
            raise Refused(400, f"cannot {action} a study that is {study['status']}")
        study["status"] = "PUBLISHING" if action == "PUBLISH" and self.publish_async else STUDY_TRANSITIONS[action][1]
        return study

    def study_settle(self, study_id: str) -> dict | None:
        """Prolific moves a study on by itself, by the statuses of
        https://docs.prolific.com/api-reference/studies/the-study-object: PUBLISHING becomes ACTIVE;
        an ACTIVE study whose places are all taken by submissions sent in ("All participants
        submissions are completed and not all have been reviewed yet") becomes AWAITING REVIEW; an
        AWAITING REVIEW study whose places are all approved ("You have approved all participant
        submissions required") becomes COMPLETED. Returns the webhook body of the change (None: none)."""
        with self.lock:
            study = self.studies[study_id]
            rows = [row for row in self.submissions.values() if row["study_id"] == study_id]
            sent_in = [row for row in rows if row["status"] in ("AWAITING REVIEW", "APPROVED")]
            working = [row for row in rows if row["status"] in ("RESERVED", "ACTIVE")]
            approved = [row for row in rows if row["status"] == "APPROVED"]
            places = study["total_available_places"]
            before = study["status"]
            if before == "PUBLISHING":
                study["status"] = "ACTIVE"
            elif before == "ACTIVE" and len(sent_in) >= places and not working:
                study["status"] = "AWAITING REVIEW"
            elif before == "AWAITING REVIEW" and len(approved) >= places:
                study["status"] = "COMPLETED"
            if study["status"] == before:
                return None
            return {
                "resource_id": study_id,
                "event_type": "study.status.change",
                "metadata": {},
                "status": study["status"],
            }

    def _review(self, submission_id: str, action: str) -> None:
        submission = self.submissions.get(submission_id)
        if submission is None:
            raise Refused(404, "no such submission")
        if submission["status"] != "AWAITING REVIEW":
            raise Refused(400, f"submission is {submission['status']}, not awaiting review")

    def _submission_transition(self, submission_id: str, body: dict) -> dict:
        action = body.get("action")
        if action not in ("APPROVE", "REJECT"):
            raise Refused(400, "action must be APPROVE or REJECT")
        done = "APPROVED" if action == "APPROVE" else "REJECTED"
        if self.submissions.get(submission_id, {}).get("status") == done:
            # "this endpoint is idempotent, so if you make the same request twice, the second request will
            # be ignored" (https://docs.prolific.com/api-reference/submissions/transition-submission)
            return self.submissions[submission_id]
        self._review(submission_id, action)
        if action == "APPROVE" and submission_id in self.never_applied:
            return self.submissions[submission_id]  # accepted, and left as it was
        if action == "REJECT":
            if len(body.get("message") or "") < 100:
                raise Refused(400, "a rejection needs a message of at least 100 characters")
            if body.get("rejection_category") not in REJECTION_CATEGORIES:
                raise Refused(400, "a rejection needs a rejection_category")
            self.rejection_messages[submission_id] = body["message"]
        self.submissions[submission_id]["status"] = "APPROVED" if action == "APPROVE" else "REJECTED"
        self.decisions.append((submission_id, action))
        return self.submissions[submission_id]

    def _bulk_approve(self, body: dict) -> str:
        """https://docs.prolific.com/api-reference/submissions/bulk-approve-submissions: either
        `{study_id, participant_ids}` or `{submission_ids}`, never a mix (prolific-oss/cli
        cmd/submission/bulk_approve.go refuses one), and at most `bulk_cap` ids."""
        fields = set(body)
        if fields == {"submission_ids"}:
            ids = body["submission_ids"]
        elif fields == {"study_id", "participant_ids"}:
            study = self._study(str(body["study_id"]))
            by_participant = {
                row["participant_id"]: row["id"] for row in self.submissions.values() if row["study_id"] == study["id"]
            }
            ids = [by_participant.get(pid, f"unknown participant {pid}") for pid in body["participant_ids"] or []]
        else:
            raise Refused(400, "send either study_id and participant_ids, or submission_ids alone")
        if not isinstance(ids, list) or not ids:
            raise Refused(400, "no ids to approve")
        if len(ids) > self.bulk_cap:
            raise Refused(400, f"at most {self.bulk_cap} ids a request")
        for submission_id in ids:
            self._review(submission_id, "APPROVE")
        self.bulk_approvals.append(body)
        self.pending_approvals += ids
        if not self.bulk_async:
            self._apply_approvals()
        return "The request to bulk approve has been made successfully."

    def _apply_approvals(self) -> None:
        for submission_id in self.pending_approvals:
            if (
                self.submissions[submission_id]["status"] == "AWAITING REVIEW"
                and submission_id not in self.never_applied
            ):
                self.submissions[submission_id]["status"] = "APPROVED"
                self.decisions.append((submission_id, "APPROVE"))
        self.pending_approvals = []

    def bulk_apply(self) -> None:
        """Prolific applies the bulk approvals it accepted."""
        with self.lock:
            self._apply_approvals()

    def _bonus_create(self, body: dict) -> dict:
        study = self._study(str(body.get("study_id")))
        takers = {row["participant_id"] for row in self.submissions.values() if row["study_id"] == study["id"]}
        rows = []
        for line in (body.get("csv_bonuses") or "").strip().splitlines():
            pid, _, amount = line.partition(",")
            if pid not in takers:
                raise Refused(400, f"{pid} has no submission in this study")
            rows.append((pid, Decimal(amount)))
        if not rows:
            raise Refused(400, "csv_bonuses is empty")
        bulk_id = secrets.token_hex(12)
        self.bulk_bonuses[bulk_id] = {
            "id": bulk_id,
            "study": study["id"],
            "rows": rows,
            "amount": str(sum(amount for _, amount in rows)),
        }
        return {"id": bulk_id, "study": study["id"], "amount": self.bulk_bonuses[bulk_id]["amount"]}

    # -- scripting participants and deliveries --------------------------------------------------

    def submission_add(self, study_id: str, participant_id: str, status: str = "ACTIVE") -> str:
        submission_id = secrets.token_hex(12)
        with self.lock:
            self.submissions[submission_id] = {
                "id": submission_id,
                "study_id": study_id,
                "participant_id": participant_id,
                "status": status,
                "started_at": "2026-01-01T10:00:00Z",
                "completed_at": None,
                "study_code": None,
            }
        return submission_id

    def submission_set(self, submission_id: str, status: str, study_code: str | None = None) -> dict:
        """Move a submission on (as a participant would), returning the webhook body it makes: the
        fields Prolific documents (https://docs.prolific.com/api-reference/webhooks/receiving), which
        name neither the event nor the study."""
        with self.lock:
            row = self.submissions[submission_id]
            row["status"] = status
            if status == "AWAITING REVIEW":
                row["completed_at"], row["study_code"] = "2026-01-01T10:20:00Z", study_code
        return {
            "resource_id": submission_id,
            "event_type": "submission.status.change",
            "participant_id": row["participant_id"],
            "status": status,
        }

    def time_out(self, submission_id: str) -> dict:
        """Prolific times out a submission not sent in within the study's maximum time: one still
        reserved or active (https://researcher-help.prolific.co/hc/en-gb/articles/360009094694-Setting-the-Maximum-Allowed-Time),
        whatever the participant did in the study itself meanwhile. Returns the webhook body."""
        with self.lock:
            status = self.submissions[submission_id]["status"]
        if status not in ("RESERVED", "ACTIVE"):
            raise AssertionError(f"Prolific times out a reserved or active submission, not one {status}")
        return self.submission_set(submission_id, "TIMED-OUT")

    def give_back(self, submission_id: str) -> dict:
        """The participant returns the study: while reserved, active, or after submitting, while it
        awaits review ("Return and cancel reward",
        https://participant-help.prolific.com/en/articles/445041-how-to-return-a-submission-on-prolific).
        Returns the webhook body."""
        with self.lock:
            status = self.submissions[submission_id]["status"]
        if status not in ("RESERVED", "ACTIVE", "AWAITING REVIEW"):
            raise AssertionError(f"a participant cannot return a submission that is {status}")
        return self.submission_set(submission_id, "RETURNED")

    def delivery(
        self,
        payload: dict,
        secret: str | None = None,
        *,
        timestamp: float | None = None,
        event_id: str | None = None,
        sent: float | None = None,
    ) -> tuple[bytes, dict[str, str]]:
        """A webhook delivery as Prolific sends it: the body, signed with the time of sending, the
        event's id in `X-Event-ID`, the same each time one body is delivered again (a retry), and the
        time the event was sent in `X-Timestamp`.
        Prolific delivers only to an enabled subscription of the event's type
        (https://docs.prolific.com/api-reference/webhooks/subscribing): without one, there is none."""
        event_type = payload.get("event_type")
        with self.lock:
            enabled = any(sub["is_enabled"] and sub["event_type"] == event_type for sub in self.subscriptions)
        if not enabled:
            raise AssertionError(f"Prolific delivers no {event_type}: no enabled subscription (was it confirmed?)")
        body = json.dumps(payload).encode()
        if event_id is None:
            with self.lock:
                event_id = self.event_ids.setdefault(body, secrets.token_hex(12))
        stamp = str(int(time.time() if timestamp is None else timestamp))
        key = (secret or self.secrets[-1]).encode()
        signature = base64.b64encode(hmac.new(key, stamp.encode() + body, hashlib.sha256).digest()).decode()
        return body, {
            "X-Prolific-Request-Signature": signature,
            "X-Prolific-Request-Timestamp": stamp,
            "X-Event-ID": event_id,
            # when the event was sent (`sent`: an event sent earlier and delivered late, as a retry is):
            # Prolific does not deliver in order
            # (https://docs.prolific.com/api-reference/webhooks/handling-event-order-with-x-timestamp)
            "X-Timestamp": str(int(sent if sent is not None else float(stamp))),
        }
