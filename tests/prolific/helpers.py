from __future__ import annotations

from annotation.models import Item
from tests.factories import Bot, pid, small_study

WEBHOOK = "/prolific/hooks/"


def wrong(item: Item) -> str:
    return "no" if item.gold == "yes" else "yes"


def failing_checks(item: Item) -> str:
    """Answers the items right and the attention checks wrong."""
    return wrong(item) if item.is_attention_check else item.gold


def deliver(client, standin, payload: dict, secret: str | None = None, **signing):
    """POST `payload` to the webhook as Prolific would (`signing`: the delivery's timestamp, event id)."""
    body, headers = standin.delivery(payload, secret, **signing)
    return client.post(WEBHOOK, data=body, content_type="application/json", headers=headers)


def prolific_study(name: str = "on prolific", **fields):
    """A small implicature study: 2 units of 3 items, 2 people each, 2 attention checks, excluded at 2."""
    fields.setdefault("estimated_minutes", 10)
    return small_study(name, unit_size=3, units=2, per_unit=2, attention_checks=2, exclude_at=2, **fields)


def arrive(standin, study, prolific_id: str, n: int) -> tuple[Bot, str]:
    """Participant `n` takes a place on Prolific and opens the study link it gives them."""
    submission = standin.submission_add(prolific_id, pid(n))
    return Bot(study, pid(n), session=submission), submission
