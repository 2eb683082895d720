"""Subscribing Parity's webhook URL to Prolific's events, as often as it is run, nothing made twice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from prolific.client import ProlificClient, ProlificError
from prolific.models import ProlificHookSecret
from prolific.services import ProlificStudyError, client_default

#: the events Parity applies (https://docs.prolific.com/api-reference/webhooks/receiving)
HOOK_EVENTS = ("submission.status.change", "study.status.change")


#: how long a replaced signing secret is still accepted: Prolific retries a delivery for up to 24 hours
#: (https://docs.prolific.com/api-reference/webhooks/event-delivery-and-retry-logic), and whether a
#: retry is signed anew with the newer secret is not documented
SECRET_GRACE = timedelta(hours=24)


@dataclass(frozen=True)
class HooksResult:
    secret: ProlificHookSecret
    secret_made: bool  # a new secret (the first, or a replacement asked for)
    reused: list[str]  # event types whose enabled subscription to this URL was kept
    subscribed: list[str]  # event types subscribed now (confirmed)
    replaced: int  # disabled subscriptions to this URL deleted before subscribing again


def prolific_hooks_subscribe(
    *,
    target_url: str,
    workspace_id: str | None = None,
    client: ProlificClient | None = None,
    new_secret: bool = False,
) -> HooksResult:
    """Subscribe `target_url` to submission and study status changes, as often as it is run: nothing is
    made twice.

    Prolific's three steps (https://docs.prolific.com/api-reference/webhooks/subscribing): the
    workspace's signing secret, each subscription (its answer's `X-Hook-Secret` header), and the
    confirmation with that header (https://docs.prolific.com/api-reference/webhooks/confirm-subscription),
    without which the subscription exists but is disabled and nothing is delivered. The secret Parity
    holds for the workspace is kept unless `new_secret`: a new one replaces the workspace's ("Create/
    replace a secret"), and the older ones Parity holds are retired after `SECRET_GRACE`. The workspace's
    subscriptions are listed (https://docs.prolific.com/api-reference/webhooks/get-subscriptions): an
    enabled one of this URL and event is kept; a disabled one cannot be confirmed again (its
    X-Hook-Secret came with its creation) and is deleted
    (https://docs.prolific.com/api-reference/webhooks/delete-subscription), then made anew."""
    workspace_id = workspace_id or settings.PROLIFIC_WORKSPACE_ID
    if not workspace_id:
        raise ProlificStudyError("set PROLIFIC_WORKSPACE_ID (or pass the workspace) to subscribe to webhooks")
    client = client_default(client)
    held = ProlificHookSecret.objects.filter(workspace_id=workspace_id, retired_at__isnull=True)
    secret = held.order_by("-created_at").first()
    made = secret is None or new_secret
    if made:
        answer = client.hook_secret_create(workspace_id)
        secret = ProlificHookSecret.objects.create(secret=answer["value"], workspace_id=workspace_id)
        held.exclude(pk=secret.pk).update(retired_at=timezone.now() + SECRET_GRACE)
    assert secret is not None  # held, or made just now
    existing = client.hook_subscriptions(workspace_id)
    reused, subscribed, replaced = [], [], 0
    for event_type in HOOK_EVENTS:
        ours = [row for row in existing if row.get("event_type") == event_type and row.get("target_url") == target_url]
        if any(row.get("is_enabled") for row in ours):
            reused.append(event_type)
            continue
        for row in ours:
            client.hook_unsubscribe(str(row["id"]))
            replaced += 1
        subscription, hook_secret = client.hook_subscribe(
            workspace_id=workspace_id, event_type=event_type, target_url=target_url
        )
        subscription_id = str(subscription.get("id") or "")
        if not subscription_id or not hook_secret:
            raise ProlificError(
                f"Prolific's answer to the {event_type} subscription names no id or carries no X-Hook-Secret "
                "header: the subscription cannot be confirmed and stays disabled; run `prolific hooks` again"
            )
        confirmed = client.hook_confirm(subscription_id, hook_secret)
        if isinstance(confirmed, dict) and confirmed.get("is_enabled") is False:
            raise ProlificError(f"Prolific kept the {event_type} subscription {subscription_id} disabled")
        subscribed.append(event_type)
    return HooksResult(secret, made, reused, subscribed, replaced)
