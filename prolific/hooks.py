"""Prolific's webhook deliveries: signed with HMAC-SHA256, de-duplicated by event id.

The signature is the base64 HMAC-SHA256, under a secret made by `POST /hooks/secrets/`, of the
request's timestamp header followed by its raw body. A forged or altered delivery gets 403 and
nothing is stored; a replayed one gets 200 and changes nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from prolific.models import ProlificHookSecret
from prolific.services import event_receive

SIGNATURE_HEADER = "X-Prolific-Request-Signature"
TIMESTAMP_HEADER = "X-Prolific-Request-Timestamp"
EVENT_HEADER = "X-Prolific-Event-Id"


def sign(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def secrets() -> list[str]:
    stored = list(ProlificHookSecret.objects.order_by("-created_at").values_list("secret", flat=True))
    return [*stored, *([settings.PROLIFIC_WEBHOOK_SECRET] if settings.PROLIFIC_WEBHOOK_SECRET else [])]


def signature_valid(*, signature: str, timestamp: str, body: bytes) -> bool:
    if not signature or not timestamp:
        return False
    return any(hmac.compare_digest(sign(secret, timestamp, body), signature) for secret in secrets())


@csrf_exempt
@require_POST
def webhook(request: HttpRequest) -> HttpResponse:
    body = request.body
    if not signature_valid(
        signature=request.headers.get(SIGNATURE_HEADER, ""),
        timestamp=request.headers.get(TIMESTAMP_HEADER, ""),
        body=body,
    ):
        return JsonResponse({"detail": "the delivery's signature is missing or wrong"}, status=403)
    try:
        payload = json.loads(body)
    except ValueError:
        return JsonResponse({"detail": "the delivery is not JSON"}, status=400)
    event_id = str(
        (payload.get("event_id") if isinstance(payload, dict) else "") or request.headers.get(EVENT_HEADER, "")
    )
    if not isinstance(payload, dict) or not event_id:
        return JsonResponse({"detail": "the delivery names no event id"}, status=400)
    delivery = event_receive(event_id=event_id, payload=payload)
    return JsonResponse({"event_id": event_id, "duplicate": delivery.duplicate}, status=200)
