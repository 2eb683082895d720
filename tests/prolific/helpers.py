from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass

from annotation.models import Item
from prolific.bonuses import bonus_batch_compute
from prolific.models import ProlificStudy
from prolific.review import decisions_take
from prolific.services import event_receive
from studies.models import Participant, Study
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


#: one person on Prolific, as the ids Prolific knows them by (a PID starting 5f0, like the guessed prefix
#: of a lookup attack); Prolific's SESSION_ID is the id of their submission
PROLIFIC_PID = "5f0c1d2e3f4a5b6c7d8e9fa1"
SUBMISSION_ID = "64b1c2d3e4f5a6b7c8d9e0f1"


@dataclass(frozen=True)
class Footprint:
    """What one person who took part through Prolific leaves in Parity."""

    participant: Participant
    pid: str
    submission_id: str
    prolific_study: ProlificStudy

    @property
    def identities(self) -> tuple[str, str]:
        return (self.pid, self.submission_id)


def through_prolific(
    study: Study, person: str = PROLIFIC_PID, submission_id: str = SUBMISSION_ID, *, bonus: bool = True
) -> Footprint:
    """`person` takes part in `study` through Prolific and leaves their ids wherever Parity can keep them:
    webhook deliveries, a delivery that came before they opened the study (flagged: no participant), a
    submission sent in before they finished (flagged: unfinished), their submission, and (with `bonus`:
    the batch of everyone owed one so far) their bonus line."""
    found = ProlificStudy.objects.filter(study=study).first() or ProlificStudy.objects.create(
        study=study, prolific_id=f"prolific-{study.link}", places=4, bonus_per_correct_pence=5
    )

    def delivered(status: str) -> None:
        payload = {
            "event_id": secrets.token_hex(16),
            "event_type": "submission.status.change",
            "resource_id": submission_id,
            "status": status,
            "study_id": found.prolific_id,
            "participant_id": person,
        }
        signed = hashlib.sha256(json.dumps(payload).encode()).hexdigest()  # each delivery signed once
        event_receive(event_id=payload["event_id"], signed_digest=signed, payload=payload)

    delivered("AWAITING REVIEW")  # before they opened the study: no participant yet
    bot = Bot(study, person, session=submission_id).start_items()
    bot.answer_items(count=1)
    delivered("AWAITING REVIEW")  # now linked to the participant, who has not finished
    decisions_take(prolific_study=found)
    bot.answer_items()
    bot.step()
    assert bot.participant.status == Participant.Status.COMPLETED
    if bonus:
        assert bonus_batch_compute(prolific_study=found) is not None
    return Footprint(bot.participant, person, submission_id, found)


def previewed_and_confirmed(client, action: str, ids: list[int], *, cautions: bool = False):
    """A Prolific study's action with a preview (review, bonuses) as a researcher runs it: the first POST
    shows what would be sent (and sends nothing), the second confirms what was shown."""
    url = "/admin/prolific/prolificstudy/"
    preview = client.post(url, {"action": action, "_selected_action": ids})
    assert preview.status_code == 200 and "plans" in preview.context, preview.content.decode()[:500]
    form = {"action": action, "_selected_action": ids, "confirm": "1"}
    form |= {f"fingerprint-{found.pk}": plan.fingerprint for found, plan in preview.context["plans"]}
    if cautions:
        form["confirm_cautions"] = "on"
    sent = client.post(url, form, follow=True)
    assert "plans" not in (sent.context or {}), [(found, plan) for found, plan in sent.context["plans"]]
    return preview, sent
