"""Item identity across re-imports: a key is the source's own id or a hash of the item's text, never
its row; an import that would change what answered items ask or count as right is refused whole;
duplicate rows and conflicting type labels are refused with their row numbers."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item
from annotation.services import AnsweredItemsChanged, benchmark_import
from parity.benchmarks.base import DatasetError
from studies.models import Response
from tests.annotation.helpers import AMBIBENCH_OPTIONS, ambibench_study, import_ambibench
from tests.conftest import datasets_dir
from tests.factories import Bot, pid, row_key, small_study

pytestmark = pytest.mark.django_db

TEST_FILE = "test_conversational_implicatures.csv"
FLIP = {"yes": "No.", "no": "Yes."}  # the label written into the file to flip a gold
OTHER = {"yes": "no", "no": "yes"}


def _read(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _write(path: Path, rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)


@pytest.fixture
def copy(implicature_source, tmp_path) -> Path:
    target = tmp_path / "implicature"
    shutil.copytree(implicature_source, target)
    return target


@pytest.fixture
def answered(implicature):
    """Rows 1-5 of the test file answered by one participant (unit U1 of a small study)."""
    study = small_study(units=2, unit_size=5, per_unit=2)
    Bot(study, pid(1)).complete()
    return study


def _snapshot() -> dict[int, tuple]:
    return {row[0]: row[1:] for row in Item.objects.values_list("pk", "key", "split", "prompt", "gold", "meta")}


def _import(source: Path, capsys) -> str:
    call_command("import_benchmark", "implicature", "--source", str(source))
    return capsys.readouterr().out


def _refused(source: Path) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", "implicature", "--source", str(source))
    return str(caught.value)


def test_a_row_inserted_at_the_top_leaves_every_answered_item_as_it_was(answered, copy, capsys):
    answered_items = {response.item_id for response in Response.objects.all()}
    before = {pk: fields for pk, fields in _snapshot().items() if pk in answered_items}
    rows = _read(copy / TEST_FILE)
    rows.insert(1, ["Are you coming to the party tonight?", "I have to work late.", "No."])
    _write(copy / TEST_FILE, rows)

    out = _import(copy, capsys)

    assert "1 created, 0 updated, 123 unchanged, 600 with new row numbers or labels only" in out
    after = _snapshot()
    for pk, (key, split, prompt, gold, meta) in before.items():
        assert after[pk][:4] == (key, split, prompt, gold), "an answered item changed what it asks"
        if split == "test":  # attention checks have no row
            assert after[pk][4]["row"] == meta["row"] + 1
    new = Item.objects.get(benchmark="implicature", split="test", meta__row=1)
    assert new.prompt["utterance"] == "Are you coming to the party tonight?" and not new.responses.exists()
    # and importing the same (changed) file again is a no-op
    assert "0 created, 0 updated, 724 unchanged (" in _import(copy, capsys)


def test_the_unchanged_file_imported_again_writes_nothing(answered, implicature_source, capsys):
    before = _snapshot()
    assert "0 created, 0 updated, 723 unchanged (" in _import(implicature_source, capsys)
    assert _snapshot() == before


def test_changing_the_gold_of_answered_items_is_refused_naming_them_and_nothing_is_written(answered, copy):
    rows = _read(copy / TEST_FILE)
    first, far = Item.objects.get(key=row_key(1)), Item.objects.get(key=row_key(300))
    rows[1][2], rows[300][2] = FLIP[first.gold], FLIP[far.gold]  # row 300 has no answers
    _write(copy / TEST_FILE, rows)
    before = _snapshot()

    message = _refused(copy)

    assert "Refused, nothing was written" in message and "1 item(s) that already have answers" in message
    assert f"{first.key} (gold {first.gold!r} -> {OTHER[first.gold]!r}; 1 human and 0 model answers)" in message
    assert far.key not in message
    assert _snapshot() == before, "the refused import changed something"


def test_changing_the_text_of_an_answered_item_is_refused(answered, copy):
    rows = _read(copy / TEST_FILE)
    rows[2][0] = rows[2][0].replace(" ", "  ", 1)  # same content key, different text
    _write(copy / TEST_FILE, rows)
    assert f"{row_key(2)} (text changed; 1 human" in _refused(copy)


def test_a_gold_fix_on_an_item_nobody_answered_is_applied(answered, copy, capsys):
    rows = _read(copy / TEST_FILE)
    far = Item.objects.get(key=row_key(300))
    rows[300][2] = FLIP[far.gold]
    _write(copy / TEST_FILE, rows)
    assert "0 created, 1 updated, 722 unchanged (" in _import(copy, capsys)
    assert Item.objects.get(pk=far.pk).gold == OTHER[far.gold]


def test_duplicate_rows_are_refused_with_their_row_numbers(implicature, copy):
    rows = _read(copy / TEST_FILE)
    rows.append(list(rows[2]))  # spreadsheet row 3 again, as row 602
    _write(copy / TEST_FILE, rows)
    message = _refused(copy)
    assert f"{TEST_FILE}: duplicate rows, each the same utterance and response: rows 3 and 602" in message


@pytest.mark.usefixtures("without_session_benchmarks")
def test_conflicting_type_labels_are_refused_naming_both_rows(db, copy):
    rows = _read(copy / "type_labels.csv")
    header, first = rows[0], rows[1]
    other = "Idiom" if first[header.index("Type")] != "Idiom" else "Hyperbole"
    clash = list(first)
    clash[header.index("Type")] = other
    rows.append(clash)
    _write(copy / "type_labels.csv", rows)
    message = _refused(copy)
    assert f"type_labels.csv, row {len(rows)}: conflicting type labels" in message
    assert f"row 2 says {first[header.index('Type')]!r}, row {len(rows)} says {other!r}" in message
    assert Item.objects.count() == 0


def test_miqa_duplicate_rows_are_refused_with_their_row_numbers(db, tmp_path):
    source = tmp_path / "miqa"
    shutil.copytree(datasets_dir() / "miqa", source)
    path = source / "metaphor_inference_qa.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[-1] = lines[5]  # row 6 replaces the last row (151): still 150 rows
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="duplicate rows, each the same question: rows 6 and 151"):
        benchmark_import(name="miqa", source=source)
    assert not Item.objects.filter(benchmark="miqa").exists()


@pytest.mark.usefixtures("without_session_benchmarks")
def test_an_instruction_induction_example_id_given_twice_is_refused(db, tmp_path):
    source = tmp_path / "instruction_induction"
    shutil.copytree(datasets_dir() / "instruction_induction", source)
    path = source / "induction_input" / "antonyms.json"
    text = path.read_text(encoding="utf-8")
    first = json.loads(text)["examples"]["1"]
    # a second "1" (json.loads alone keeps the last of the two and drops the other silently)
    path.write_text(text.replace('"examples": {', f'"examples": {{"1": {json.dumps(first)}, ', 1), encoding="utf-8")
    with pytest.raises(DatasetError, match=r"induction_input/antonyms.json: the name '1' appears twice"):
        benchmark_import(name="instruction_induction", source=source)
    assert not Item.objects.filter(benchmark="instruction_induction").exists()


def test_generating_ambibench_again_with_another_seed_cannot_rewrite_answered_episodes(db):
    import_ambibench()
    study = ambibench_study()
    bot = Bot(study, pid(2))
    bot.enter()
    bot.post("consent", {"agree": "yes"})
    bot.post("begin", {})
    bot.answer_current()
    response = Response.objects.select_related("item").get()
    before = _snapshot()
    with pytest.raises(AnsweredItemsChanged, match=rf"{response.item.key} \(text changed"):
        benchmark_import(name="ambibench", source=None, options={**AMBIBENCH_OPTIONS, "seed": 1})
    assert _snapshot() == before


@pytest.mark.usefixtures("without_session_benchmarks")
def test_the_migration_rekeys_items_keyed_by_row_to_the_keys_an_import_now_gives(implicature):
    import importlib

    from django.apps import apps

    benchmark_import(name="miqa", source=datasets_dir() / "miqa")
    migration = importlib.import_module("annotation.migrations.0004_item_content_keys")
    current = dict(Item.objects.filter(is_attention_check=False).values_list("pk", "key"))
    for item in Item.objects.filter(is_attention_check=False):  # keyed as imported before content keys
        item.key = (
            f"{item.split}-{item.meta['row']:04d}"
            if item.benchmark == "implicature"
            else f"miqa-{item.meta['row']:03d}-{item.meta['direction']}"
        )
        item.save(update_fields=["key"])
    migration.rekey_by_content(apps, None)
    assert dict(Item.objects.filter(is_attention_check=False).values_list("pk", "key")) == current
