"""A small client for Prolific's researcher API (https://api.prolific.com/api/v1/).

Every failure — an HTTP error, a time-out, an unreachable host, a body that is not JSON — becomes
one `ProlificError` whose message says which call failed and why. `sent` tells the callers whose
call is not idempotent (paying a bonus) whether Prolific may have acted on it.

Retries follow https://docs.prolific.com/documentation/core-concepts/managing-high-loads: a 429 is
transient ("retry with exponential back-off"), and it is a refusal, so every call but paying a bonus
is tried again after one (paying is retried by `prolific.bonuses`, which first reads its ledger). A
transient 5xx may come after Prolific acted, so only calls that are safe to repeat (reads, setting
the places, a submission's transition, which Prolific documents as idempotent) are tried again
after one. A time-out is not tried again: it already waited the whole time-out.
"""

from __future__ import annotations

import enum
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

#: the statuses of a busy Prolific: 429 (a refusal, nothing done) and the gateway's transient 5xx
RATE_LIMITED = 429
TRANSIENT = frozenset({500, 502, 503, 504})
#: submissions asked for per page (the official CLI's default `limit`, prolific-oss/cli client.go)
PAGE_SIZE = 200
#: ids per bulk approval: https://docs.prolific.com/documentation/core-concepts/managing-high-loads
#: recommends sequential batches of at most this many
BULK_APPROVE_MAX = 1000
#: the longest wait between two tries, whatever the back-off has reached
BACKOFF_CAP_SECONDS = 60.0


class Retry(enum.Enum):
    """What a call may be tried again after."""

    NEVER = "never"  # not idempotent: paying a bulk bonus
    REFUSED = "refused"  # a 429 only: Prolific refused, nothing was done
    SAFE = "safe"  # a 429 or a transient 5xx: repeating the call changes nothing


class ProlificError(RuntimeError):
    """A call to Prolific failed. `status`: the HTTP status, when there was an answer; `sent`:
    whether the request may have reached Prolific (a time-out or a 5xx: unknown, so True)."""

    def __init__(self, message: str, *, status: int | None = None, sent: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.sent = sent

    @property
    def rate_limited(self) -> bool:
        return self.status == RATE_LIMITED


@dataclass(frozen=True)
class Answer:
    """One answer of Prolific's: its status, its headers (names in lower case) and its JSON body."""

    status: int
    headers: Mapping[str, str]
    data: Any


@dataclass(frozen=True)
class Submission:
    id: str
    participant_id: str
    status: str
    started_at: str | None = None
    completed_at: str | None = None
    study_code: str | None = None

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Submission:
        return cls(
            id=str(data["id"]),
            participant_id=str(data.get("participant_id") or data.get("participant") or ""),
            status=str(data.get("status", "")),
            started_at=data.get("started_at"),
            completed_at=data.get("completed_at"),
            study_code=data.get("study_code"),
        )


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as the error it is: urllib would follow it with the request's headers,
    the API token included, to whatever address the answer names."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        raise urllib.error.HTTPError(req.full_url, code, f"a redirect to {newurl}", headers, fp)


_OPENER = urllib.request.build_opener(_RefuseRedirects)


def subscription_of(data: Any, event_type: str, target_url: str) -> dict[str, Any]:
    """The subscription in the answer to creating one: the object itself, or a list of them under
    `results` (the shape https://docs.prolific.com/api-reference/webhooks/create-subscription
    documents), where the one for this event and URL is taken; {} when there is none."""
    if isinstance(data, dict) and "results" in data and "id" not in data:
        data = data["results"]
    if isinstance(data, list):
        rows = [row for row in data if isinstance(row, dict)]
        matching = [row for row in rows if row.get("event_type", event_type) == event_type]
        matching = [row for row in matching if row.get("target_url", target_url) == target_url] or matching
        return matching[0] if matching else {}
    return data if isinstance(data, dict) else {}


def chunks(ids: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


class ProlificClient:
    """`retries`, `backoff` (the first wait, in seconds, doubled at each try) and `sleep` (how to
    wait) default to the settings and `time.sleep`; tests pass their own `sleep`."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        token: str | None = None,
        timeout: float | None = None,
        retries: int | None = None,
        backoff: float | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.base_url = (base_url if base_url is not None else settings.PROLIFIC_API_URL).rstrip("/") + "/"
        self.token = token if token is not None else settings.PROLIFIC_API_TOKEN
        self.timeout = timeout if timeout is not None else settings.PROLIFIC_TIMEOUT_SECONDS
        self.retries = retries if retries is not None else settings.PROLIFIC_RETRIES
        self.backoff = backoff if backoff is not None else settings.PROLIFIC_BACKOFF_SECONDS
        self.sleep = sleep if sleep is not None else time.sleep

    # -- the transport -------------------------------------------------------------------------

    def wait(self, attempt: int) -> float:
        """Wait before try `attempt + 2`: the back-off doubled `attempt` times, at most the cap."""
        delay = min(self.backoff * 2**attempt, BACKOFF_CAP_SECONDS)
        self.sleep(delay)
        return delay

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        query: dict[str, Any] | None = None,
        retry: Retry | None = None,
    ) -> Any:
        return self.call(method, path, body, query=query, retry=retry).data

    def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        query: dict[str, Any] | None = None,
        retry: Retry | None = None,
    ) -> Answer:
        """The call, tried again with exponential back-off where `retry` allows (by default: a
        read is SAFE, anything else REFUSED)."""
        retry = retry or (Retry.SAFE if method == "GET" else Retry.REFUSED)
        attempt = 0
        while True:
            try:
                return self._send(method, path, body, query)
            except ProlificError as exc:
                again = exc.rate_limited or (exc.status in TRANSIENT and retry is Retry.SAFE)
                if retry is Retry.NEVER or not again or attempt >= self.retries:
                    if attempt:
                        raise ProlificError(
                            f"{exc} (after {attempt + 1} tries with exponential back-off)",
                            status=exc.status,
                            sent=exc.sent,
                        ) from None
                    raise
                self.wait(attempt)
                attempt += 1

    def _send(self, method: str, path: str, body: dict[str, Any] | None, query: dict[str, Any] | None) -> Answer:
        if not self.token:
            raise ProlificError("PROLIFIC_API_TOKEN is not set: Parity cannot call Prolific")
        url = self.base_url + path.lstrip("/") + (f"?{urllib.parse.urlencode(query)}" if query else "")
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            url,
            data=data,
            method=method,
            headers={
                "Authorization": f"Token {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        call = f"{method} {path}"
        try:
            with _OPENER.open(request, timeout=self.timeout) as answer:
                raw = answer.read()
                status, headers = answer.status, {name.lower(): value for name, value in answer.headers.items()}
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                exc.close()
                raise ProlificError(
                    f"Prolific answered {call} with HTTP {exc.code} ({exc.reason}), which is not followed: "
                    "the API token goes to PROLIFIC_API_URL only (set it to the address the API answers at)",
                    status=exc.code,
                ) from None
            detail = exc.read().decode(errors="replace")[:300]
            raise ProlificError(
                f"Prolific refused {call}: HTTP {exc.code} {detail}".rstrip(), status=exc.code, sent=exc.code >= 500
            ) from None
        except TimeoutError:
            raise ProlificError(
                f"Prolific did not answer {call} within {self.timeout:g} s; it may or may not have acted on it",
                sent=True,
            ) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                raise ProlificError(
                    f"Prolific did not answer {call} within {self.timeout:g} s; it may or may not have acted on it",
                    sent=True,
                ) from None
            raise ProlificError(f"Prolific could not be reached for {call} ({exc.reason})") from None
        except OSError as exc:  # a connection reset mid-answer
            raise ProlificError(f"the connection to Prolific failed during {call} ({exc})", sent=True) from None
        if not raw:
            return Answer(status, headers, None)
        try:
            return Answer(status, headers, json.loads(raw))
        except ValueError:
            raise ProlificError(f"Prolific's answer to {call} is not JSON: {raw[:100]!r}", sent=True) from None

    # -- studies ------------------------------------------------------------------------------
    # https://docs.prolific.com/api-reference/studies/create-study, .../studies/get-study,
    # "Transition a study's status" (in https://docs.prolific.com/api-reference/studies), .../studies/update-study

    def study_create(self, fields: dict[str, Any]) -> dict[str, Any]:
        return self.request("POST", "studies/", fields)

    def study_get(self, study_id: str) -> dict[str, Any]:
        return self.request("GET", f"studies/{study_id}/")

    def study_transition(self, study_id: str, action: str) -> dict[str, Any]:
        return self.request("POST", f"studies/{study_id}/transition/", {"action": action})

    def study_update(self, study_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        # setting a value: repeating it changes nothing
        return self.request("PATCH", f"studies/{study_id}/", fields, retry=Retry.SAFE)

    # -- submissions ---------------------------------------------------------------------------

    def submissions(self, study_id: str) -> list[Submission]:
        """Every submission of the study, page after page.

        https://docs.prolific.com/api-reference/studies/get-study-submissions answers a page
        (`results`, with `_links.next` and `meta.count`, as the official CLI reads it); the CLI asks
        with `limit` and `offset`. Pages are read until `meta.count` rows are read or, without a
        count, until `_links.next` is empty. A submission seen on two pages (one started meanwhile
        shifts the offsets) is kept once, as last seen.

        A page that adds nothing new while the count (or the `next` link) says more rows exist is a
        truncated pull: it raises `ProlificError`, and the caller records none of the rows read, since
        acting on part of the list would take the rows not read as absent (a completion flagged as
        having no submission, say)."""
        rows: dict[str, dict[str, Any]] = {}
        offset = 0
        while True:
            answer = self.request(
                "GET", f"studies/{study_id}/submissions/", query={"limit": PAGE_SIZE, "offset": offset}
            )
            if not isinstance(answer, dict):  # an unpaged list
                return [Submission.from_api(row) for row in answer or []]
            page = answer.get("results") or []
            known = len(rows)
            for row in page:
                rows[str(row["id"])] = row
            offset += len(page)
            count = (answer.get("meta") or {}).get("count")
            following = ((answer.get("_links") or {}).get("next") or {}).get("href")
            more = offset < count if isinstance(count, int) else bool(following)
            if not more:
                return [Submission.from_api(row) for row in rows.values()]
            if len(rows) == known:
                # an answer that ignores `offset`, or rows gone from under the count: not a full list
                promised = f"meta.count says {count}" if isinstance(count, int) else "its next link names another page"
                raise ProlificError(
                    f"Prolific's list of the submissions of study {study_id} stopped adding rows after "
                    f"{len(rows)} ({promised}): the pull is incomplete and nothing of it was recorded",
                    sent=True,
                )

    def submission_transition(
        self, submission_id: str, action: str, *, message: str = "", rejection_category: str = ""
    ) -> dict[str, Any]:
        """https://docs.prolific.com/api-reference/submissions/transition-submission: "this endpoint
        is idempotent", so it is tried again after a transient error too."""
        body: dict[str, Any] = {"action": action}
        if action == "REJECT":
            body.update(message=message, rejection_category=rejection_category)
        return self.request("POST", f"submissions/{submission_id}/transition/", body, retry=Retry.SAFE)

    def submissions_bulk_approve(self, submission_ids: list[str]) -> Any:
        """https://docs.prolific.com/api-reference/submissions/bulk-approve-submissions takes either
        `{study_id, participant_ids}` or `{submission_ids}` (the one it recommends), never both; at
        most `BULK_APPROVE_MAX` ids a call (the callers send `chunks`)."""
        if not 0 < len(submission_ids) <= BULK_APPROVE_MAX:
            raise ValueError(f"a bulk approval takes 1 to {BULK_APPROVE_MAX} submission ids, not {len(submission_ids)}")
        return self.request("POST", "submissions/bulk-approve/", {"submission_ids": submission_ids})

    # -- bonuses -------------------------------------------------------------------------------

    def bonus_create(self, study_id: str, csv_bonuses: str) -> dict[str, Any]:
        """A bulk bonus (not yet paid): `csv_bonuses` is "participant_id,amount" lines in the
        workspace's currency (https://docs.prolific.com/api-reference/bonuses/create-bonus-payments)."""
        return self.request("POST", "submissions/bonus-payments/", {"study_id": study_id, "csv_bonuses": csv_bonuses})

    def bonus_pay(self, bulk_id: str) -> Any:
        """Pays the bulk bonus. Not idempotent: paying twice pays twice
        (https://docs.prolific.com/api-reference/bonuses/pay-bonus-payments). Never tried again here."""
        return self.request("POST", f"bulk-bonus-payments/{bulk_id}/pay/", retry=Retry.NEVER)

    # -- the workspace -------------------------------------------------------------------------

    def workspace_balance(self, workspace_id: str) -> dict[str, Any]:
        """https://docs.prolific.com/api-reference/workspaces/get-workspace-balance: its
        `currency_code` is the currency of every amount in the workspace."""
        return self.request("GET", f"workspaces/{workspace_id}/balance/")

    def project_get(self, project_id: str) -> dict[str, Any]:
        """https://docs.prolific.com/api-reference/projects/get-project: its `workspace`."""
        return self.request("GET", f"projects/{project_id}/")

    def workspace_projects(self, workspace_id: str) -> list[dict[str, Any]]:
        """https://docs.prolific.com/api-reference/projects/get-projects: `results`."""
        answer = self.request("GET", f"workspaces/{workspace_id}/projects/")
        rows = answer.get("results") if isinstance(answer, dict) else answer
        return [row for row in rows or [] if isinstance(row, dict)]

    def filters(self) -> list[dict[str, Any]]:
        """Prolific's prescreening filters (https://docs.prolific.com/api-reference/filters/get-filters:
        `results`), each with its `filter_id`, `type` and, for a select filter, its `choices` (choice id:
        label)."""
        answer = self.request("GET", "filters/")
        rows = answer.get("results") if isinstance(answer, dict) else answer
        return [row for row in rows or [] if isinstance(row, dict)]

    # -- webhooks ------------------------------------------------------------------------------
    # https://docs.prolific.com/api-reference/webhooks/subscribing: a secret, a subscription (its
    # answer's X-Hook-Secret header), then the confirmation, without which it stays disabled

    def hook_secret_create(self, workspace_id: str) -> dict[str, Any]:
        return self.request("POST", "hooks/secrets/", {"workspace_id": workspace_id})

    def hook_subscribe(self, *, workspace_id: str, event_type: str, target_url: str) -> tuple[dict[str, Any], str]:
        """The subscription, and the X-Hook-Secret that confirms it ("" when the answer has none)."""
        answer = self.call(
            "POST",
            "hooks/subscriptions/",
            {"workspace_id": workspace_id, "event_type": event_type, "target_url": target_url},
        )
        return subscription_of(answer.data, event_type, target_url), answer.headers.get("x-hook-secret", "")

    def hook_subscriptions(self, workspace_id: str) -> list[dict[str, Any]]:
        """The workspace's subscriptions
        (https://docs.prolific.com/api-reference/webhooks/get-subscriptions: `results`)."""
        answer = self.request("GET", "hooks/subscriptions/", query={"workspace_id": workspace_id})
        rows = answer.get("results") if isinstance(answer, dict) else answer
        return [row for row in rows or [] if isinstance(row, dict)]

    def hook_unsubscribe(self, subscription_id: str) -> None:
        """https://docs.prolific.com/api-reference/webhooks/delete-subscription"""
        self.request("DELETE", f"hooks/subscriptions/{subscription_id}/", retry=Retry.SAFE)

    def hook_confirm(self, subscription_id: str, hook_secret: str) -> dict[str, Any]:
        """https://docs.prolific.com/api-reference/webhooks/confirm-subscription"""
        return self.request("POST", f"hooks/subscriptions/{subscription_id}/", {"secret": hook_secret})
