"""The demo's researcher account: staff in the researchers' group, not a superuser, so the demo shows
participants under pseudonyms, as the docs say a researcher sees them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from results.demo import DEMO_USERNAME, RESEARCHER_GROUP, DemoReport, demo_researcher
from studies.access import RESEARCHER_PERMISSIONS
from studies.participants.identity import IDENTITY_PERMISSION, can_see_identities
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def var_dir(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    # the demo sets a real password: a fast hasher keeps the test short
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return tmp_path


def _demo_user():
    report = DemoReport()
    demo_researcher(report)
    return get_user_model().objects.get(username=DEMO_USERNAME), report


def test_the_demo_researcher_is_staff_in_the_researchers_group_and_not_a_superuser(var_dir):
    user, report = _demo_user()
    assert user.is_staff and not user.is_superuser
    assert list(user.groups.values_list("name", flat=True)) == [RESEARCHER_GROUP]
    assert all(user.has_perm(name) for name in RESEARCHER_PERMISSIONS)
    assert not user.has_perm(IDENTITY_PERMISSION) and not can_see_identities(user)
    password = (var_dir / "demo-login.txt").read_text().strip()
    assert user.check_password(password)
    assert report.lines == [
        f"Researcher login: {DEMO_USERNAME} / {password} "
        f"(in the {RESEARCHER_GROUP} group, not a superuser: participants show as pseudonyms)"
    ]


def test_the_demo_researcher_sees_pseudonyms_not_prolific_ids(var_dir, implicature):
    user, _ = _demo_user()
    study = small_study("demo pseudonyms", owner=user)
    Bot(study, pid(0xD1)).complete()
    client = Client()
    client.force_login(user)
    for url in ("/admin/studies/participant/", f"/studies/{study.pk}/monitor/", "/admin/studies/response/"):
        html = client.get(url).content.decode()
        assert "A1" in html, url
        assert pid(0xD1) not in html, url


def test_setting_up_again_keeps_the_password_and_makes_an_earlier_superuser_demo_researcher_a_researcher(var_dir):
    first, _ = _demo_user()
    first.is_superuser = True  # as the demo of earlier versions made it
    first.save(update_fields=["is_superuser"])
    again, report = _demo_user()
    assert again.pk == first.pk and not again.is_superuser and again.is_staff
    assert again.check_password((var_dir / "demo-login.txt").read_text().strip())
    assert again.groups.count() == 1
