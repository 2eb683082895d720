"""The items' admin shows a researcher the published benchmarks and the item sets they may use
(their own, the open ones), never another researcher's set: not in the lists, the search, the
filters or the change pages. Superusers see every row."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client

from annotation.models import BenchmarkAsset, Item, ItemSet
from annotation.services import benchmark_import
from studies.access import RESEARCHER_PERMISSIONS
from tests.personas import signed_in, superuser, user_with

pytestmark = pytest.mark.django_db

#: another researcher's items: a key, a prompt, a gold and a split that must not show
SECRET = (
    "id,kind,text,format,options,gold,split\n"
    "launch-code,choice,Which word opens the vault?,plain,swordfish|marlin,swordfish,heldout\n"
)
MINE = "id,kind,text,format,options,gold\nmine-q,yes_no,Is this my own question?,plain,,yes\n"
OPEN = "id,kind,text,format,options,gold\nopen-q,yes_no,Is this an open question?,plain,,no\n"


def _import(tmp_path: Path, name: str, text: str, owner) -> None:
    path = tmp_path / f"{name}.csv"
    path.write_text(text, encoding="utf-8")
    benchmark_import(name="custom", source=path, options={"name": name}, owner=owner)


@pytest.fixture
def sets(tmp_path: Path, implicature):
    ada = user_with("ada", [*RESEARCHER_PERMISSIONS, "annotation.view_benchmarkasset"])
    bo = user_with("bo")
    _import(tmp_path, "bos-set", SECRET, bo)
    _import(tmp_path, "adas-set", MINE, ada)
    _import(tmp_path, "open-set", OPEN, None)
    assert Item.objects.get(key="bos-set/launch-code").split == "heldout"
    BenchmarkAsset.objects.create(benchmark="custom", key="bos-set/template", data={"text": "bo's hidden template"})
    BenchmarkAsset.objects.create(benchmark="custom", key="adas-set/template", data={"text": "ada's template"})
    return signed_in(ada, Client()), bo


def test_searching_for_another_researchers_set_finds_none_of_its_items(sets):
    ada, _ = sets
    found = ada.get("/admin/annotation/item/", {"q": "bos-set"}).content.decode()
    assert "bos-set/" not in found and "swordfish" not in found and "0 results" in found
    for query in ("launch-code", "vault"):  # its key, its prompt
        assert "bos-set/" not in ada.get("/admin/annotation/item/", {"q": query}).content.decode()
    own = ada.get("/admin/annotation/item/", {"q": "adas-set"}).content.decode()
    assert "adas-set/mine-q" in own
    listing = ada.get("/admin/annotation/item/", {"benchmark__exact": "custom"}).content.decode()
    assert "adas-set/mine-q" in listing and "open-set/open-q" in listing and "bos-set/" not in listing
    assert "heldout" not in listing, "the split filter offers only the splits of the items listed"
    assert ada.get("/admin/annotation/item/", {"benchmark__exact": "implicature"}).context["cl"].result_count > 0


def test_another_researchers_item_and_set_pages_do_not_exist_for_them(sets):
    ada, bo = sets
    item = Item.objects.get(key="bos-set/launch-code")
    item_set = ItemSet.objects.get(name="bos-set")
    for url in (
        f"/admin/annotation/item/{item.pk}/change/",
        f"/admin/annotation/item/{item.pk}/history/",
        f"/admin/annotation/itemset/{item_set.pk}/change/",
    ):
        page = ada.get(url, follow=True)
        assert page.redirect_chain[0][1] == 302, url  # the admin's "does not exist", as for a study
        assert "swordfish" not in page.content.decode() and "bos-set" not in page.content.decode(), url
    own = Item.objects.get(key="adas-set/mine-q")
    assert ada.get(f"/admin/annotation/item/{own.pk}/change/").status_code == 200
    assert not LogEntry.objects.exists()


def test_the_item_sets_list_shows_ones_own_and_the_open_sets(sets):
    ada, _ = sets
    listing = ada.get("/admin/annotation/itemset/").content.decode()
    assert "adas-set" in listing and "open-set" in listing and "bos-set" not in listing
    assert "bos-set" not in ada.get("/admin/annotation/itemset/", {"q": "bos"}).content.decode()


def test_the_assets_of_another_researchers_set_are_hidden(sets):
    ada, _ = sets
    listing = ada.get("/admin/annotation/benchmarkasset/").content.decode()
    assert "adas-set/template" in listing and "bos-set/template" not in listing
    hidden = BenchmarkAsset.objects.get(key="bos-set/template")
    page = ada.get(f"/admin/annotation/benchmarkasset/{hidden.pk}/change/", follow=True)
    assert "bo&#x27;s hidden template" not in page.content.decode() and "hidden template" not in page.content.decode()


def test_a_superuser_sees_every_set(sets):
    root = signed_in(superuser())
    found = root.get("/admin/annotation/item/", {"q": "bos-set"}).content.decode()
    assert "bos-set/launch-code" in found
    item = Item.objects.get(key="bos-set/launch-code")
    assert "swordfish" in root.get(f"/admin/annotation/item/{item.pk}/change/").content.decode()
    assert "bos-set" in root.get("/admin/annotation/itemset/").content.decode()
    assert "bos-set/template" in root.get("/admin/annotation/benchmarkasset/").content.decode()
