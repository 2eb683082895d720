"""`import_benchmark custom --source FILE --name NAME`: a researcher's own items, atomic and idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item
from tests.paths import REPO

pytestmark = pytest.mark.django_db

EXAMPLE = REPO / "parity" / "benchmarks" / "custom" / "example.csv"


def test_it_imports_the_example_as_a_named_set_and_a_second_import_changes_nothing(capsys) -> None:
    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "example")
    items = Item.objects.filter(benchmark="custom")
    assert items.count() == 9 and all(item.key.startswith("example/") for item in items)
    assert items.get(key="example/capital").gold == "Canberra"
    assert items.get(key="example/check").is_attention_check
    ids = set(items.values_list("id", flat=True))
    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "example")
    assert set(Item.objects.filter(benchmark="custom").values_list("id", flat=True)) == ids
    out = capsys.readouterr().out
    assert "custom: 9 created" in out and "0 created, 0 updated, 9 unchanged" in out


def test_a_second_name_is_a_second_set() -> None:
    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "example")
    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "again")
    assert Item.objects.filter(benchmark="custom", key__startswith="again/").count() == 9


def test_a_broken_file_is_refused_whole_naming_line_and_field(tmp_path: Path) -> None:
    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "example")
    before = list(Item.objects.order_by("pk").values())
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace("Canberra,geography", "Perth,geography")  # first item: now changed
    lines[5] = lines[5].replace(",8,science", ",eight,science")  # fifth item: not a number
    broken = tmp_path / "mine.csv"
    broken.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", "custom", "--source", str(broken), "--name", "example")
    assert "Refused, nothing was written: mine.csv, row 2: field 'gold': 'Perth' is not among" in str(caught.value)
    lines[1] = EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[1]
    broken.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(CommandError, match=r"mine.csv, row 6: field 'gold': must be a number"):
        call_command("import_benchmark", "custom", "--source", str(broken), "--name", "example")
    assert list(Item.objects.order_by("pk").values()) == before


@pytest.mark.usefixtures("without_session_benchmarks")
def test_the_name_is_required_and_must_be_a_slug() -> None:
    with pytest.raises(CommandError, match="give --name NAME"):
        call_command("import_benchmark", "custom", "--source", str(EXAMPLE))
    with pytest.raises(CommandError, match="must be a slug"):
        call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "Not A Slug")
    with pytest.raises(CommandError, match="has no named item sets"):
        call_command("import_benchmark", "miqa_rating", "--source", str(EXAMPLE), "--name", "x")
    assert not Item.objects.exists()


def test_the_readmes_worked_example_imports_creates_a_study_and_reports_per_kind(capsys) -> None:
    from studies.models import Study

    call_command("import_benchmark", "custom", "--source", str(EXAMPLE), "--name", "example")
    call_command(
        "create_study",
        "--benchmark",
        "custom",
        "--name",
        "My items",
        "--set",
        "item_set=example",
        "--per-unit",
        "5",
        "--attention-checks",
        "1",
        "--exclude-at",
        "1",
    )
    study = Study.objects.get(name="My items")
    assert study.design["item_set"] == "example" and study.attention_checks == 1
    assert study.units.get().unit_items.count() == 8
    capsys.readouterr()
    call_command("study_results", "My items")
    assert "Per kind of item" in capsys.readouterr().out
