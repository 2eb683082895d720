"""Prolific's signed links, checked against a JWKS served locally (Prolific is outside this machine)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from prolific.services import prolific_study_create
from prolific.signed_links import SignatureError, _jwks_client, verify_signed_link
from studies.models import Participant
from tests.factories import Bot, entry_url, pid, small_study, start
from tests.paths import REPO

pytestmark = pytest.mark.django_db


@pytest.fixture
def signing(settings):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    public.update({"kid": "local-test-key", "alg": "RS256", "use": "sig"})
    body = json.dumps({"keys": [public]}).encode()

    class JWKS(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), JWKS)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.PROLIFIC_JWKS_URL = f"http://127.0.0.1:{server.server_port}/.well-known/study/jwks.json"
    settings.PROLIFIC_JWT_AUDIENCE = "parity.example.org"
    _jwks_client.cache_clear()

    def sign(claims: dict, *, kid: str = "local-test-key") -> str:
        base = {"aud": "parity.example.org", "exp": int(time.time()) + 600}
        return jwt.encode({**base, **claims}, key, algorithm="RS256", headers={"kid": kid})

    sign.key = key  # type: ignore[attr-defined]  # for the tests that forge a token around it
    yield sign
    server.shutdown()
    _jwks_client.cache_clear()


def test_a_correctly_signed_link_enters(implicature, client, signing):
    study = small_study()
    token = signing({"prolific": {"PROLIFIC_PID": pid(1), "SESSION_ID": "SESSION0001"}})
    response = Bot(study, pid(1), client=client).enter(jwt=token)
    assert response.status_code == 200 and Participant.objects.filter(prolific_pid=pid(1)).exists()


@pytest.mark.parametrize(
    "case, reason",
    [
        ("missing", "not signed"),
        ("expired", "expired"),
        ("audience", "signature is not valid"),
        ("other pid", "another participant"),
        ("unknown key", "signature is not valid"),
        ("nobody named", "does not name a participant"),
        ("other session", "SESSION_ID is not the one Prolific signed"),
    ],
)
def test_a_bad_signature_is_refused_with_a_reason_and_nothing_written(implicature, client, signing, case, reason):
    study = small_study()
    tokens = {
        "missing": "",
        "expired": signing({"exp": int(time.time()) - 10}),
        "audience": signing({"aud": "elsewhere.example.org"}),
        "other pid": signing({"prolific": {"PROLIFIC_PID": pid(2)}}),
        "unknown key": signing({}, kid="not-published"),
        "nobody named": signing({"prolific": {"workspace_id": "w1"}}),
        "other session": signing({"prolific": {"PROLIFIC_PID": pid(1), "SESSION_ID": "SESSION0002"}}),
    }
    page = client.get(entry_url(study, pid(1), jwt=tokens[case]))
    assert page.status_code == 400 and reason in page.content.decode()
    # posting the start form directly (skipping the page) is refused the same way
    posted = client.post(
        f"/s/{study.link}/",
        {"PROLIFIC_PID": pid(1), "STUDY_ID": "STUDY0001", "SESSION_ID": "SESSION0001", "jwt": tokens[case]},
    )
    assert posted.status_code == 400 and reason in posted.content.decode()
    assert not Participant.objects.exists()


def test_turning_signing_on_without_an_audience_fails_at_start_up():
    """Prolific's tokens always carry `aud`; without one to compare, every participant would be refused."""
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "PROLIFIC_JWKS_URL": "https://api.prolific.com/.well-known/study/jwks.json",
        "PROLIFIC_JWT_AUDIENCE": "",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode != 0 and "set PROLIFIC_JWT_AUDIENCE" in done.stderr


def _enter(client, study, *, study_id: str, token: str):
    """Open the link as Prolific would fill it in, then press Start."""
    url = f"/s/{study.link}/?PROLIFIC_PID={pid(1)}&STUDY_ID={study_id}&SESSION_ID=SESSION0001&jwt={token}"
    return start(client, client.get(url, follow=True))


@pytest.mark.parametrize(
    "signed_for, link_for, reason",
    [
        ("another", "another", "the link is for another Prolific study"),
        ("another", "ours", "the link was signed for another Prolific study"),
        ("ours", "another", "the link is for another Prolific study"),
        (None, "ours", "the link was signed for another Prolific study"),
    ],
    ids=["token and link for another study", "token for another", "link for another", "token names no study"],
)
def test_a_signed_link_for_another_prolific_study_is_refused(
    implicature, client, signing, standin, signed_for, link_for, reason
):
    study = small_study()
    ours = prolific_study_create(study=study).prolific_id
    ids = {"ours": ours, "another": "5f0c9e3b2a1d4c6e8f7a9b01"}
    named = {"PROLIFIC_PID": pid(1), "SESSION_ID": "SESSION0001"}
    if signed_for is not None:
        named["STUDY_ID"] = ids[signed_for]
    page = _enter(client, study, study_id=ids[link_for], token=signing({"prolific": named}))
    assert page.status_code == 400 and reason in page.content.decode()
    assert not Participant.objects.exists()


def test_a_signed_link_for_the_studys_own_prolific_study_enters(implicature, client, signing, standin):
    study = small_study()
    ours = prolific_study_create(study=study).prolific_id
    token = signing({"prolific": {"PROLIFIC_PID": pid(1), "STUDY_ID": ours, "SESSION_ID": "SESSION0001"}})
    page = _enter(client, study, study_id=ours, token=token)
    assert page.status_code == 200 and Participant.objects.get().prolific_study_id == ours


def test_the_claims_read_are_the_ones_prolific_documents(implicature, signing):
    """https://docs.prolific.com/api-reference/well-known-endpoints/get-study-jwks: RS256 under a key
    of the JWKS chosen by `kid`, `exp`, `aud`, and the `prolific` claim holding the link's parameters
    under their placeholder names (PROLIFIC_PID, STUDY_ID, SESSION_ID). Another spelling names no one."""
    named = {"PROLIFIC_PID": pid(1), "STUDY_ID": "STUDY0001", "SESSION_ID": "SESSION0001", "workspace_id": "w1"}
    claims = verify_signed_link(
        signing({"prolific": named}), pid=pid(1), study_id="STUDY0001", session_id="SESSION0001"
    )
    assert claims["prolific"] == named and claims["aud"] == "parity.example.org"
    for spelling in ({"prolific_pid": pid(1)}, {"participant_id": pid(1)}):
        with pytest.raises(SignatureError, match="does not name a participant"):
            verify_signed_link(signing({"prolific": spelling}), pid=pid(1))
    with pytest.raises(SignatureError, match="does not name a participant"):
        verify_signed_link(signing({"PROLIFIC_PID": pid(1)}), pid=pid(1))  # at the top level, not under `prolific`
    with pytest.raises(SignatureError, match="not valid"):
        verify_signed_link(signing({"exp": None, "prolific": named}), pid=pid(1))  # `exp` is required


def _forged(header: dict, claims: dict, secret: bytes | None) -> str:
    """A token written by hand: signed with HMAC-SHA256 and `secret`, or not signed at all."""

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
    signature = b"" if secret is None else hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(signature)}"


@pytest.mark.parametrize("case", ["alg none", "hs256 with the public key", "no exp", "expired a second ago"])
def test_algorithm_confusion_and_tokens_without_a_live_expiry_are_refused(implicature, client, signing, case):
    """Only RS256 with a published key: a token that names `none`, or HS256 keyed with the public key
    (which anyone may fetch), is refused; so is one with no `exp` or one a second past it."""
    study = small_study()
    claims = {
        "aud": "parity.example.org",
        "exp": int(time.time()) + 600,
        "prolific": {"PROLIFIC_PID": pid(1), "SESSION_ID": "SESSION0001"},
    }
    public_pem = signing.key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    tokens = {
        "alg none": lambda: _forged({"alg": "none", "typ": "JWT", "kid": "local-test-key"}, claims, None),
        "hs256 with the public key": lambda: _forged(
            {"alg": "HS256", "typ": "JWT", "kid": "local-test-key"}, claims, public_pem
        ),
        "no exp": lambda: jwt.encode(
            {k: v for k, v in claims.items() if k != "exp"},
            signing.key,
            algorithm="RS256",
            headers={"kid": "local-test-key"},
        ),
        "expired a second ago": lambda: signing({**claims, "exp": int(time.time()) - 1}),
    }
    page = client.get(entry_url(study, pid(1), jwt=tokens[case]()))
    assert page.status_code == 400
    assert not Participant.objects.exists()
