"""The page "Import your own items": who may use it, a good file, a broken one (nothing written,
the line and field named), and a study created on the imported set."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import Item
from studies.models import Response, Study
from tests import personas
from tests.factories import Bot, pid
from tests.paths import REPO
from tests.studies.workflow.helpers import Previewer, create

pytestmark = pytest.mark.django_db

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"
URL = "/studies/items/import/"


def upload(client: Client, content: bytes, filename: str = "mine.csv", name: str = "pilot"):
    return client.post(URL, {"benchmark": "custom", "name": name, "file": SimpleUploadedFile(filename, content)})


@pytest.mark.usefixtures("without_session_benchmarks")
def test_only_researchers_who_may_create_studies_may_import(researcher_client):
    content = EXAMPLE.read_bytes()
    assert Client().get(URL).status_code == 302  # to the login
    assert upload(Client(), content).status_code == 302
    assert upload(personas.signed_in(personas.member()), content).status_code == 403
    viewer = personas.user_with("viewer", ["studies.view_study"])
    assert upload(personas.signed_in(viewer), content).status_code == 403
    assert not Item.objects.exists()
    page = researcher_client.get(URL)
    assert page.status_code == 200 and 'enctype="multipart/form-data"' in page.content.decode()
    assert URL in researcher_client.get("/studies/").content.decode()  # reachable from the study pages
    assert URL in researcher_client.get("/studies/new/").content.decode()


def test_a_researcher_imports_a_file_and_creates_a_study_on_that_set(researcher_client, researcher):
    page = upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "example")
    html = page.content.decode()
    assert page.status_code == 200 and "9 created, 0 updated, 0 unchanged" in html
    assert Item.objects.filter(benchmark="custom", key__startswith="example/").count() == 9
    link = "/studies/new/?benchmark=custom&amp;item_set=example"
    assert link in html
    form = researcher_client.get(link.replace("&amp;", "&")).context["form"]
    assert form["design_item_set"].value() == "example"
    again = upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "example")
    assert "0 created, 0 updated, 9 unchanged" in again.content.decode()
    created = create(
        researcher_client,
        "custom",
        name="own items",
        item_set="example",
        unit_size=0,
        per_unit=2,
        attention_checks=1,
        exclude_at=0,
    )
    assert created.status_code == 302, created.content.decode()[:2000]
    study = Study.objects.get(name="own items")
    assert study.owner == researcher and study.units.count() == 1 and study.units.get().unit_items.count() == 8


@pytest.mark.usefixtures("without_session_benchmarks")
def test_a_broken_file_writes_nothing_and_names_the_line_and_field(researcher_client):
    broken = EXAMPLE.read_text(encoding="utf-8").replace(",8,science", ",eight,science").encode()
    page = upload(researcher_client, broken)
    html = page.content.decode()
    assert page.status_code == 400
    assert "Refused, nothing was written: mine.csv, row 6: field &#x27;gold&#x27;: must be a number" in html
    assert not Item.objects.exists()
    page = upload(researcher_client, b'{"id": 1, "text": "x", "kind": "shout"}\n', "mine.jsonl")
    assert page.status_code == 400 and "mine.jsonl, row 1: field &#x27;kind&#x27;" in page.content.decode()
    assert upload(researcher_client, b"id,text,kind\n", "mine.txt").status_code == 400
    assert upload(researcher_client, EXAMPLE.read_bytes(), name="Not A Slug").status_code == 400
    assert not Item.objects.exists()


@pytest.mark.usefixtures("without_session_benchmarks")
def test_a_98_byte_file_whose_template_pads_to_2_mb_is_refused_naming_the_line_and_field(researcher_client):
    content = b'{"id": "a", "text": "x", "kind": "free_text", "prompt_template": "{text:>2000000}"}\n'
    assert len(content) < 100
    page = upload(researcher_client, content, "mine.jsonl")
    html = page.content.decode()
    assert page.status_code == 400
    assert (
        "mine.jsonl, row 1: field &#x27;prompt_template&#x27;: {text:&gt;2000000} is not a plain substitution" in html
    )
    conversion = upload(researcher_client, content.replace(b"{text:>2000000}", b"Q: {text!r}"), "mine.jsonl")
    assert conversion.status_code == 400 and "{text!r} is not a plain substitution" in conversion.content.decode()
    assert not Item.objects.exists()
    plain = upload(researcher_client, content.replace(b"{text:>2000000}", b"Q: {text}"), "mine.jsonl")
    assert plain.status_code == 200
    assert Item.objects.get(key="pilot/a").meta["model"]["context"] == "Q: x"


@pytest.mark.usefixtures("without_session_benchmarks")
def test_a_prompt_longer_than_the_sites_limit_is_refused_naming_the_line(researcher_client, settings):
    settings.MAX_MODEL_CONTEXT_CHARS = 1000
    rows = (
        "id,text,kind,prompt_template\na,short,free_text,{text}\nb," + "y" * 400 + ",free_text,{text} {text} {text}\n"
    )
    page = upload(researcher_client, rows.encode())
    assert page.status_code == 400
    assert (
        "mine.csv, row 3: field &#x27;prompt_template&#x27;: fills in to 1,202 characters; "
        "a model&#x27;s context has at most 1,000" in page.content.decode()
    )
    assert not Item.objects.exists()


def test_a_study_on_a_set_without_items_is_refused_in_words(researcher_client):
    upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "example")
    page = create(researcher_client, "custom", name="nothing", item_set="missing")
    assert (
        page.status_code == 400
        and "no item set named &#x27;missing&#x27; that you may use: import it first" in page.content.decode()
    )
    page = create(researcher_client, "custom", name="nameless", item_set="")
    assert page.status_code == 400 and "Name the item set" in page.content.decode()


def test_the_researchers_preview_walks_the_set_refusing_a_number_that_does_not_parse(researcher_client):
    upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "example")
    create(
        researcher_client,
        "custom",
        name="previewed",
        item_set="example",
        unit_size=0,
        per_unit=1,
        attention_checks=1,
        exclude_at=0,
        shuffle_items=False,
    )
    walker = Previewer(researcher_client, Study.objects.get(name="previewed"))
    html = walker.start_items()
    kinds = []
    while 'name="item"' in html:
        item = walker.item(html)
        kinds.append(item.meta["kind"])
        if item.meta["kind"] == "number":
            assert "Please type a number" in walker.answer(html, lambda item: "lots")
        html = walker.answer(html, lambda item: item.gold or (item.prompt.get("options") or ["Fine."])[0])
    assert set(kinds) == {"choice", "yes_no", "short_text", "number", "rating", "free_text"} and len(kinds) == 9
    assert not Response.objects.exists()


def test_a_set_is_its_importers_alone(researcher_client, researcher):
    """Another researcher can neither overwrite a researcher's set nor build a study on it (and so
    read its items and right answers in their results); the owner can."""
    assert upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "pilot").status_code == 200
    before = {item.key: (item.prompt, item.gold) for item in Item.objects.filter(benchmark="custom")}
    other = personas.signed_in(personas.researcher(username="other"))
    changed = EXAMPLE.read_text(encoding="utf-8").replace("Canberra,geography", "Sydney,geography").encode()
    refused = upload(other, changed, "example.csv", "pilot")
    assert refused.status_code == 400
    assert "the name &#x27;pilot&#x27; is not free for you to import into" in refused.content.decode()
    assert {item.key: (item.prompt, item.gold) for item in Item.objects.filter(benchmark="custom")} == before
    page = create(
        other, "custom", name="borrowed", item_set="pilot", unit_size=0, per_unit=1, attention_checks=0, exclude_at=0
    )
    assert page.status_code == 400 and "no item set named &#x27;pilot&#x27; that you may use" in page.content.decode()
    assert not Study.objects.filter(name="borrowed").exists()
    assert upload(other, changed, "example.csv", "theirs").status_code == 200  # under a name of their own
    assert (
        create(
            other,
            "custom",
            name="their own",
            item_set="theirs",
            unit_size=0,
            per_unit=1,
            attention_checks=0,
            exclude_at=0,
        ).status_code
        == 302
    )
    assert (
        create(
            researcher_client,
            "custom",
            name="mine",
            item_set="pilot",
            unit_size=0,
            per_unit=1,
            attention_checks=0,
            exclude_at=0,
        ).status_code
        == 302
    )


def test_a_set_imported_on_the_command_line_is_open_to_every_researcher_but_theirs_to_change(researcher_client):
    from django.core.management import call_command

    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "shared")
    assert (
        create(
            researcher_client,
            "custom",
            name="on shared",
            item_set="shared",
            unit_size=0,
            per_unit=1,
            attention_checks=0,
            exclude_at=0,
        ).status_code
        == 302
    )
    refused = upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "shared")
    assert refused.status_code == 400 and "not free for you to import into" in refused.content.decode()
    owner = personas.researcher(username="owner")
    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "owned", "--owner", "owner")
    assert (
        create(
            researcher_client,
            "custom",
            name="on owned",
            item_set="owned",
            unit_size=0,
            per_unit=1,
            attention_checks=0,
            exclude_at=0,
        ).status_code
        == 400
    )
    assert (
        create(
            personas.signed_in(owner),
            "custom",
            name="owner's",
            item_set="owned",
            unit_size=0,
            per_unit=1,
            attention_checks=0,
            exclude_at=0,
        ).status_code
        == 302
    )


def test_a_change_of_what_counts_as_right_is_refused_once_people_have_answered(researcher_client, researcher):
    """The tolerance of a number item lives in the item's details, not its gold: re-importing a
    wider one after an answer would score that answer and later model runs by different rules."""
    upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "example")
    item = Item.objects.get(key="example/pi")
    assert (
        create(
            researcher_client,
            "custom",
            name="answered",
            item_set="example",
            unit_size=0,
            per_unit=1,
            attention_checks=0,
            exclude_at=0,
        ).status_code
        == 302
    )
    study = Study.objects.get(name="answered")
    study.status = Study.Status.LIVE  # launched
    study.save(update_fields=["status"])
    Bot(study, pid(801)).complete(choose=lambda item: item.gold or "3")
    assert Response.objects.filter(item=item).exists()
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    pi = next(index for index, line in enumerate(lines) if line.startswith("pi,"))
    before = lines[pi]
    assert ",0.005," in before, before
    lines[pi] = before.replace(",0.005,", ",0.5,")
    refused = upload(researcher_client, ("\n".join(lines) + "\n").encode(), "example.csv", "example")
    html = refused.content.decode()
    assert refused.status_code == 400 and "example/pi (tolerance changed" in html, html[-3000:]
    item.refresh_from_db()
    assert item.meta["tolerance"] == 0.005


def test_the_import_page_points_to_the_docs_page_that_lists_every_field(researcher_client):
    page = researcher_client.get("/studies/items/import/").content.decode()
    assert "docs/own-items.md" in page and "README" not in page
    assert (REPO / "docs" / "own-items.md").exists()


def test_a_launched_studys_items_cannot_change_even_where_nobody_answered(researcher_client, researcher):
    """Launch froze the plan, the items' hash with it: a re-import that changes the gold of an item
    nobody answered yet is refused as for an answered one, and the frozen hash still holds."""
    from studies.preregistration.document import items_serialisation
    from studies.setup.studies import study_set_status

    upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "example")
    created = create(
        researcher_client,
        "custom",
        name="frozen",
        item_set="example",
        unit_size=0,
        per_unit=1,
        attention_checks=0,
        exclude_at=0,
    )
    assert created.status_code == 302
    study = Study.objects.get(name="frozen")
    changed = EXAMPLE.read_text(encoding="utf-8").replace(
        ",Sydney|Canberra|Melbourne,Canberra,", ",Sydney|Canberra|Melbourne,Sydney,"
    )
    # a draft's items may still be corrected
    assert "1 updated" in upload(researcher_client, changed.encode(), "example.csv", "example").content.decode()
    upload(researcher_client, EXAMPLE.read_bytes(), "example.csv", "example")
    study_set_status(study=study, status=Study.Status.LIVE, actor=researcher)
    frozen = study.preregistration.document["items"]["sha256"]
    assert not Response.objects.exists()
    refused = upload(researcher_client, changed.encode(), "example.csv", "example")
    html = refused.content.decode()
    assert refused.status_code == 400 and "example/capital (gold" in html and "launched study" in html, html[-3000:]
    assert "&#x27;frozen&#x27;" in html
    assert Item.objects.get(key="example/capital").gold == "Canberra"
    from parity.preregistration_plan import sha256_of

    assert sha256_of(items_serialisation(study)) == frozen
    # an attention check of the set's pool, drawn from whatever the study's units hold
    check = EXAMPLE.read_text(encoding="utf-8").replace(
        'choose Blue.",plain,,Red|Blue|Green,Blue,', 'choose Blue.",plain,,Red|Blue|Green,Red,'
    )
    assert check != EXAMPLE.read_text(encoding="utf-8")
    refused = upload(researcher_client, check.encode(), "example.csv", "example")
    assert refused.status_code == 400 and "example/check (gold" in refused.content.decode()
    study_set_status(study=study, status=Study.Status.CLOSED, actor=researcher)
    assert upload(researcher_client, changed.encode(), "example.csv", "example").status_code == 400


INSPECT_URL = "/studies/items/import/inspect/"
INSPECT_EXAMPLE = REPO / "docs" / "examples" / "inspect_implicature.py"


@pytest.mark.usefixtures("without_session_benchmarks")
def test_an_inspect_task_file_is_imported_only_from_a_folder_the_operator_allowed(researcher_client, settings):
    spec = f"{INSPECT_EXAMPLE}@implicature"
    settings.PARITY_INSPECT_TASK_DIRS = []
    page = researcher_client.post(INSPECT_URL, {"task": spec, "limit": "3"})
    assert page.status_code == 400 and "not in a folder the operator allowed" in page.content.decode()
    assert Client().post(INSPECT_URL, {"task": spec}).status_code == 302  # to the login
    assert personas.signed_in(personas.member()).post(INSPECT_URL, {"task": spec}).status_code == 403
    assert not Item.objects.exists()
    settings.PARITY_INSPECT_TASK_DIRS = [str(INSPECT_EXAMPLE.parent)]
    page = researcher_client.post(INSPECT_URL, {"task": spec, "limit": "3", "inspect_name": "implicature-dev"})
    html = page.content.decode()
    assert page.status_code == 200 and "3 created, 0 updated, 0 unchanged" in html
    assert "/studies/new/?benchmark=custom&amp;item_set=implicature-dev" in html
    assert Item.objects.get(key="implicature-dev/1").prompt["options"] == ["A) yes", "B) no"]
    # a path that climbs out of the allowed folder is not in it
    climbing = f"{INSPECT_EXAMPLE.parent}/../../tests/paths.py@x"
    assert (
        "not in a folder the operator allowed"
        in researcher_client.post(INSPECT_URL, {"task": climbing}).content.decode()
    )


@pytest.mark.usefixtures("without_session_benchmarks")
def test_an_installed_packages_task_that_needs_a_sandbox_is_refused_in_words(researcher_client):
    page = researcher_client.post(INSPECT_URL, {"task": "inspect_evals/mind2web_sc"})
    html = page.content.decode()
    assert page.status_code == 400 and "Refused, nothing was written" in html and "sandbox (docker)" in html
    page = researcher_client.post(INSPECT_URL, {"task": "not a task"})
    assert page.status_code == 400 and "Give package/name, or file.py@name" in page.content.decode()
    assert not Item.objects.exists()
