"""The results page's item view: the texts a model read for an item, for the study's researchers only."""

from __future__ import annotations

from html import unescape

import pytest
from django.test import Client

from modelruns.models import ModelRun
from studies.models import Study
from tests.factories import Bot, pid, row_key, small_study
from tests.personas import member, personas_for, signed_in

pytestmark = pytest.mark.django_db

# template 3 (Ruis et al., Table 4) with test row 3 of the published file
TEMPLATE_3 = "Is the implied meaning of the following response yes or no:\n\nquestion: {}\nresponse: {}\nmeaning:"


def _url(built, **query: str) -> str:
    return f"/studies/{built.study_id}/results/item/" + ("?" + "&".join(f"{k}={v}" for k, v in query.items()))


def _run(built, template: int) -> ModelRun:
    return ModelRun.objects.get(study_id=built.study_id, setting__template=template)


def test_a_run_s_texts_are_shown_with_each_continuation_marked_and_the_run_s_answer(staff_client, pilot):
    from annotation.models import Item

    item = Item.objects.get(key=row_key(3))
    run = _run(pilot, 3)
    page = staff_client.get(_url(pilot, item=item.key, run=str(run.pk)))
    assert page.status_code == 200
    html = unescape(page.content.decode())
    context = TEMPLATE_3.format(item.prompt["utterance"], item.prompt["response"])
    assert f"\n{context}<mark> yes</mark></pre>" in html and f"\n{context}<mark> no</mark></pre>" in html
    assert "template 3, k=0 · read by a causal model (run #" in html
    assert f"The run's answer: <strong>{item.gold}</strong> (right)" in " ".join(html.split())


def test_without_a_run_the_default_setting_is_shown_and_the_item_may_be_named_by_position(staff_client, pilot):
    page = staff_client.get(_url(pilot, item="1"))
    html = unescape(page.content.decode())
    assert page.status_code == 200 and "Item 1 of 10" in html and "template 2, k=0" in html
    assert "which means<mark> yes</mark>" in html and "The run's answer" not in html


def test_the_disagreements_table_links_each_item_to_its_view(staff_client, pilot):
    html = staff_client.get(f"/studies/{pilot.study_id}/results/").content.decode()
    run = _run(pilot, 2)
    assert f'href="/studies/{pilot.study_id}/results/item/?item={row_key(3)}&amp;run={run.pk}"' in html


def test_bad_input_is_refused_with_a_message(staff_client, pilot):
    page = staff_client.get(_url(pilot, item="nope"))
    assert page.status_code == 404 and "no item with the key &#x27;nope&#x27;" in page.content.decode()
    assert staff_client.get(_url(pilot, item="1", run="999999")).status_code == 400
    missing = staff_client.get(f"/studies/{pilot.study_id}/results/item/")
    assert missing.status_code == 400 and "This field is required" in missing.content.decode()
    # a run of another study is not a choice here
    other = small_study("other study")
    foreign = ModelRun.objects.create(study=other, spec=_run(pilot, 2).spec, setting={"template": 2}, setting_key="x")
    assert staff_client.get(_url(pilot, item="1", run=str(foreign.pk))).status_code == 400


def test_only_the_study_s_researchers_reach_it_never_participants_or_outsiders(pilot):
    study = Study.objects.get(pk=pilot.study_id)
    people = personas_for(study, prefix="item-")
    url = _url(pilot, item="1")
    for user in (people.owner, people.collaborator, people.viewer, people.superuser):
        assert signed_in(user).get(url).status_code == 200
    assert signed_in(people.outsider).get(url).status_code == 404
    assert signed_in(member("item-member")).get(url).status_code == 403
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/?next=")
    # a participant (the signed participant cookie, no account) is sent to log in, whatever study they are in
    browser = Client()
    Bot(study, pid(0xB0B), client=browser).enter()
    assert browser.get(url).status_code == 302
