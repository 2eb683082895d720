"""Prolific's webhook deliveries: signed with HMAC-SHA256, refused when stale, applied once.

Following Prolific's documentation (https://docs.prolific.com/api-reference/webhooks/verifying):
the signature, in `X-Prolific-Request-Signature`, is the base64 HMAC-SHA256, under a secret made by
`POST /hooks/secrets/`, of the UNIX time in `X-Prolific-Request-Timestamp` (when the request was
sent) followed by the raw body. A forged, altered or stale delivery gets 403 and nothing is stored.

A replay changes nothing and gets 200. Two things recognise one: Prolific's event id (the body's
`event_id` where there is one, else the `X-Event-ID` header, which stays the same across Prolific's
retries), and the digest of the signed timestamp and body, which is what keeps a captured delivery
sent again under a made-up `X-Event-ID` (a header no signature covers) from being applied again.
Past the window (`PROLIFIC_WEBHOOK_WINDOW_SECONDS`) the timestamp refuses it anyway.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from datetime import UTC, datetime

from django.conf import settings
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from prolific.models import ProlificHookSecret
from prolific.services import event_receive

SIGNATURE_HEADER = "X-Prolific-Request-Signature"
TIMESTAMP_HEADER = "X-Prolific-Request-Timestamp"
#: Prolific's id of the event, the same across its retries (https://docs.prolific.com/api-reference/
#: webhooks/idempotency-and-the-x-event-id-header); not covered by the signature
EVENT_HEADER = "X-Event-ID"
#: when Prolific sent the event, to tell an older delivery from a newer one
#: (https://docs.prolific.com/api-reference/webhooks/handling-event-order-with-x-timestamp)
ORDER_HEADER = "X-Timestamp"
#: a UNIX time in seconds, ASCII digits only (`int()` would also take other scripts' digits)
_UNIX_TIME = re.compile(r"[0-9]{1,12}(\.[0-9]{1,9})?")


def sign(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def signed_digest(timestamp: str, body: bytes) -> str:
    """SHA-256 of exactly what the signature covers: one signed delivery, one digest."""
    return hashlib.sha256(timestamp.encode() + body).hexdigest()


def secrets() -> list[str]:
    """The secrets a delivery may be signed with: the stored ones not retired (a replaced secret is
    accepted for a grace period), and `PROLIFIC_WEBHOOK_SECRET`."""
    current = Q(retired_at__isnull=True) | Q(retired_at__gt=timezone.now())
    stored = list(ProlificHookSecret.objects.filter(current).order_by("-created_at").values_list("secret", flat=True))
    return [*stored, *([settings.PROLIFIC_WEBHOOK_SECRET] if settings.PROLIFIC_WEBHOOK_SECRET else [])]


def signature_valid(*, signature: str, timestamp: str, body: bytes) -> bool:
    # headers arrive as Latin-1 text: a signature outside ASCII is no base64, and comparing it as
    # text would raise instead of answering False
    if not signature or not timestamp or not signature.isascii() or not timestamp.isascii():
        return False
    given = signature.encode()
    return any(hmac.compare_digest(sign(secret, timestamp, body).encode(), given) for secret in secrets())


def timestamp_problem(timestamp: str, *, now: float | None = None) -> str:
    """Why a (validly signed) timestamp is refused, or "" when it is within the window."""
    if not _UNIX_TIME.fullmatch(timestamp):
        return f"the delivery's {TIMESTAMP_HEADER} is not a UNIX time in seconds"
    window = settings.PROLIFIC_WEBHOOK_WINDOW_SECONDS
    skew = (time.time() if now is None else now) - float(timestamp)
    if abs(skew) <= window:
        return ""
    when = f"{skew:.0f} s ago" if skew > 0 else f"{-skew:.0f} s ahead of this server's clock"
    return (
        f"the delivery was signed {when}, outside the {window}-second window "
        "(PROLIFIC_WEBHOOK_WINDOW_SECONDS): a replayed delivery, or a clock that is wrong"
    )


def sent_at(order: str, signed: str) -> datetime:
    """When the event was sent: `X-Timestamp` when it is a UNIX time, else the signed request time
    (already checked to be one), which is no earlier than the sending of the event it carries."""
    stamp = order if _UNIX_TIME.fullmatch(order) else signed
    return datetime.fromtimestamp(float(stamp), tz=UTC)


def _refuse(reason: str, status: int = 403) -> JsonResponse:
    return JsonResponse({"detail": reason}, status=status)


@csrf_exempt
@require_POST
def webhook(request: HttpRequest) -> HttpResponse:
    body = request.body
    timestamp = request.headers.get(TIMESTAMP_HEADER, "")
    if not signature_valid(signature=request.headers.get(SIGNATURE_HEADER, ""), timestamp=timestamp, body=body):
        return _refuse("the delivery's signature is missing or wrong")
    problem = timestamp_problem(timestamp)
    if problem:
        return _refuse(problem)
    try:
        payload = json.loads(body)
    except ValueError:
        return _refuse("the delivery is not JSON", 400)
    if not isinstance(payload, dict):
        return _refuse("the delivery is not a JSON object", 400)
    # the body's own id is signed; the header's is not, and the digest covers for it
    event_id = str(payload.get("event_id") or request.headers.get(EVENT_HEADER, ""))[:100]
    delivery = event_receive(
        event_id=event_id,
        signed_digest=signed_digest(timestamp, body),
        payload=payload,
        sent_at=sent_at(request.headers.get(ORDER_HEADER, ""), timestamp),
    )
    return JsonResponse({"event_id": delivery.event.event_id, "duplicate": delivery.duplicate}, status=200)
