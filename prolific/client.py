"""A small client for Prolific's researcher API (https://api.prolific.com/api/v1/).

Every failure — an HTTP error, a time-out, an unreachable host, a body that is not JSON — becomes
one `ProlificError` whose message says which call failed and why. `sent` tells the callers whose
call is not idempotent (paying a bonus) whether Prolific may have acted on it.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from django.conf import settings


class ProlificError(RuntimeError):
    """A call to Prolific failed. `status`: the HTTP status, when there was an answer; `sent`:
    whether the request may have reached Prolific (a time-out or a 5xx: unknown, so True)."""

    def __init__(self, message: str, *, status: int | None = None, sent: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.sent = sent


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


class ProlificClient:
    def __init__(self, *, base_url: str | None = None, token: str | None = None, timeout: float | None = None) -> None:
        self.base_url = (base_url if base_url is not None else settings.PROLIFIC_API_URL).rstrip("/") + "/"
        self.token = token if token is not None else settings.PROLIFIC_API_TOKEN
        self.timeout = timeout if timeout is not None else settings.PROLIFIC_TIMEOUT_SECONDS

    # -- the transport -------------------------------------------------------------------------

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        if not self.token:
            raise ProlificError("PROLIFIC_API_TOKEN is not set: Parity cannot call Prolific")
        url = self.base_url + path.lstrip("/")
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
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise ProlificError(f"Prolific's answer to {call} is not JSON: {raw[:100]!r}", sent=True) from None

    # -- studies -------------------------------------------------------------------------------

    def study_create(self, fields: dict[str, Any]) -> dict[str, Any]:
        return self.request("POST", "studies/", fields)

    def study_get(self, study_id: str) -> dict[str, Any]:
        return self.request("GET", f"studies/{study_id}/")

    def study_transition(self, study_id: str, action: str) -> dict[str, Any]:
        return self.request("POST", f"studies/{study_id}/transition/", {"action": action})

    def study_update(self, study_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        return self.request("PATCH", f"studies/{study_id}/", fields)

    # -- submissions ---------------------------------------------------------------------------

    def submissions(self, study_id: str) -> list[Submission]:
        answer = self.request("GET", f"studies/{study_id}/submissions/")
        rows = answer.get("results", []) if isinstance(answer, dict) else answer or []
        return [Submission.from_api(row) for row in rows]

    def submission_transition(
        self, submission_id: str, action: str, *, message: str = "", rejection_category: str = ""
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"action": action}
        if action == "REJECT":
            body.update(message=message, rejection_category=rejection_category)
        return self.request("POST", f"submissions/{submission_id}/transition/", body)

    def submissions_bulk_approve(self, study_id: str, submission_ids: list[str]) -> Any:
        return self.request(
            "POST", "submissions/bulk-approve/", {"study_id": study_id, "submission_ids": submission_ids}
        )

    # -- bonuses -------------------------------------------------------------------------------

    def bonus_create(self, study_id: str, csv_bonuses: str) -> dict[str, Any]:
        """A bulk bonus (not yet paid): `csv_bonuses` is "participant_id,amount" lines in pounds."""
        return self.request("POST", "submissions/bonus-payments/", {"study_id": study_id, "csv_bonuses": csv_bonuses})

    def bonus_pay(self, bulk_id: str) -> Any:
        """Pays the bulk bonus. Not idempotent: paying twice pays twice."""
        return self.request("POST", f"bulk-bonus-payments/{bulk_id}/pay/")

    # -- webhooks ------------------------------------------------------------------------------

    def hook_secret_create(self, workspace_id: str) -> dict[str, Any]:
        return self.request("POST", "hooks/secrets/", {"workspace_id": workspace_id})

    def hook_subscribe(self, *, workspace_id: str, event_type: str, target_url: str) -> dict[str, Any]:
        return self.request(
            "POST",
            "hooks/subscriptions/",
            {"workspace_id": workspace_id, "event_type": event_type, "target_url": target_url, "is_enabled": True},
        )
