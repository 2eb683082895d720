"""What Parity already did as Prolific documents it, pinned: the bytes a webhook's signature covers,
and the no-consent code's action."""

from __future__ import annotations

import json
import time

from prolific.hooks import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign
from prolific.models import ProlificEvent
from prolific.services import prolific_study_create, study_fields
from tests.prolific.helpers import WEBHOOK, prolific_study

#: a body as a sender may write it: spacing, key order and escapes that a JSON round trip changes
RAW = b'{"status":"PAUSED",  "event_type": "study.status.change", "resource_id": "s-1", "note": "caf\\u00e9"}'


def test_the_signature_covers_the_raw_body_as_sent(client, settings, db):
    """https://docs.prolific.com/api-reference/webhooks/verifying: the HMAC-SHA256 of the timestamp
    followed by the body, as it arrives. The same JSON written another way is another body: its
    signature does not carry over."""
    settings.PROLIFIC_WEBHOOK_SECRET = "the-secret"
    stamp = str(int(time.time()))
    headers = {SIGNATURE_HEADER: sign("the-secret", stamp, RAW), TIMESTAMP_HEADER: stamp}
    rewritten = json.dumps(json.loads(RAW)).encode()
    assert rewritten != RAW
    refused = client.post(WEBHOOK, data=rewritten, content_type="application/json", headers=headers)
    assert refused.status_code == 403 and not ProlificEvent.objects.exists()
    accepted = client.post(WEBHOOK, data=RAW, content_type="application/json", headers=headers)
    assert accepted.status_code == 200 and ProlificEvent.objects.get().payload["note"] == "café"


def test_declining_consent_asks_for_a_return_and_never_rejects(implicature, standin):
    """The NO_CONSENT code's action is REQUEST_RETURN (https://docs.prolific.com/api-reference/studies/the-study-object,
    completion codes): a participant who declines is asked to return the study, not reviewed."""
    study = prolific_study()
    study.no_consent_code = "NOCONSENT1"
    study.save(update_fields=["no_consent_code"])
    codes = {code["code_type"]: code for code in study_fields(study, 4)["completion_codes"]}
    assert codes["NO_CONSENT"]["code"] == "NOCONSENT1"
    assert [action["action"] for action in codes["NO_CONSENT"]["actions"]] == ["REQUEST_RETURN"]
    assert codes["COMPLETED"]["actions"] == [{"action": "MANUALLY_REVIEW"}]
    found = prolific_study_create(study=study)
    sent = {code["code_type"]: code["actions"] for code in standin.studies[found.prolific_id]["completion_codes"]}
    assert sent["NO_CONSENT"] == codes["NO_CONSENT"]["actions"]
