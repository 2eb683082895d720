"""The study page's preregistration: written by those who may change the study while it is a draft,
refused once launched, downloadable as Markdown and as a printable page by whoever sees the study,
and shown read-only in the admin with the audit trail."""

from __future__ import annotations

import pytest
from django.test import Client

from studies.models import Preregistration, Study
from studies.setup.studies import study_set_status, unit_set_capacity
from tests.factories import small_study
from tests.personas import member, personas_for, signed_in

pytestmark = pytest.mark.django_db

TEXT = {"hypotheses": "People read the implicature; the model does not.", "notes": "Two units."}


@pytest.fixture
def draft(implicature):
    return small_study("to preregister", status=Study.Status.DRAFT)


def test_the_draft_s_page_offers_the_form_and_a_preview_filled_in(draft):
    people = personas_for(draft)
    html = signed_in(people.owner).get(f"/studies/{draft.pk}/").content.decode()
    assert 'id="preregistration-form"' in html and 'name="hypotheses"' in html
    assert 'id="preregistration-items-sha256"' in html and "10 in 2 units" in html
    preview = signed_in(people.owner).get(f"/studies/{draft.pk}/preregistration.html")
    assert preview.status_code == 200 and "Draft: not frozen yet" in preview.content.decode()


def test_the_owner_and_collaborators_save_it_others_are_refused(draft):
    people = personas_for(draft)
    url = f"/studies/{draft.pk}/preregistration/"
    assert signed_in(people.outsider).post(url, TEXT).status_code == 404
    assert signed_in(people.viewer).post(url, TEXT).status_code == 403
    assert signed_in(member()).post(url, TEXT).status_code == 403
    anonymous = Client().post(url, TEXT)
    assert anonymous.status_code == 302 and "/login" in anonymous["Location"]
    assert not Preregistration.objects.filter(study=draft).exists()
    response = signed_in(people.collaborator).post(url, TEXT)
    assert response.status_code == 302 and response["Location"].endswith("#preregistration")
    saved = Preregistration.objects.get(study=draft)
    assert (saved.hypotheses, saved.notes, saved.is_frozen) == (TEXT["hypotheses"], TEXT["notes"], False)
    assert signed_in(people.collaborator).get(url).status_code == 405


def test_after_launch_the_page_shows_the_frozen_hash_and_edits_are_refused(draft):
    people = personas_for(draft)
    owner = signed_in(people.owner)
    owner.post(f"/studies/{draft.pk}/preregistration/", TEXT)
    owner.post(f"/studies/{draft.pk}/status/", {"status": "live"})
    frozen = Preregistration.objects.get(study=draft)
    assert frozen.is_frozen
    page = owner.post(f"/studies/{draft.pk}/preregistration/", {"hypotheses": "changed", "notes": ""}, follow=True)
    html = page.content.decode()
    assert "frozen when the study was launched" in html
    assert f'<code id="preregistration-sha256">{frozen.sha256}</code>' in html
    assert 'id="preregistration-form"' not in html and 'id="audit-trail"' in html
    frozen.refresh_from_db()
    assert frozen.hypotheses == TEXT["hypotheses"]
    unit_set_capacity(unit=draft.units.first(), capacity=9, actor=people.owner)
    html = owner.get(f"/studies/{draft.pk}/").content.decode()
    assert "places now 11, preregistered 4" in html and "capacity 2 → 9" in html


def test_the_downloads_carry_the_hash_and_time_for_whoever_sees_the_study(draft):
    people = personas_for(draft)
    study_set_status(study=draft, status=Study.Status.LIVE)
    frozen = Preregistration.objects.get(study=draft)
    viewer = signed_in(people.viewer)
    markdown = viewer.get(f"/studies/{draft.pk}/preregistration.md")
    assert markdown["Content-Type"].startswith("text/markdown")
    assert markdown["Content-Disposition"] == f'attachment; filename="preregistration-{draft.link}.md"'
    text = markdown.content.decode()
    assert frozen.sha256 in text and frozen.frozen_at.isoformat() in text
    page = viewer.get(f"/studies/{draft.pk}/preregistration.html").content.decode()
    assert "@media print" in page and f'id="preregistration-sha256">{frozen.sha256}<' in page
    assert '<link rel="stylesheet"' not in page  # standalone: prints the same anywhere
    assert viewer.get(f"/studies/{draft.pk}/preregistration.pdf").status_code == 404
    assert signed_in(people.outsider).get(f"/studies/{draft.pk}/preregistration.md").status_code == 404


def test_the_admin_shows_the_preregistration_and_the_audit_trail_read_only(draft):
    people = personas_for(draft)
    study_set_status(study=draft, status=Study.Status.LIVE, actor=people.owner)
    unit_set_capacity(unit=draft.units.first(), capacity=3, actor=people.owner)
    html = signed_in(people.owner).get(f"/admin/studies/study/{draft.pk}/change/").content.decode()
    frozen = Preregistration.objects.get(study=draft)
    assert frozen.sha256 in html and "capacity 2 → 3" in html
    assert 'name="hypotheses"' not in html and 'name="summary"' not in html
