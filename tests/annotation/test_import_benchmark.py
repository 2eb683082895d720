from __future__ import annotations

import shutil

import pytest
from django.core.management import CommandError, call_command

from annotation.models import BenchmarkAsset, Item
from tests.factories import row_key


def test_it_imports_the_published_implicature_files(implicature_source, db, capsys):
    call_command("import_benchmark", "implicature", "--source", str(implicature_source))
    test = Item.objects.filter(benchmark="implicature", split="test")
    dev = Item.objects.filter(benchmark="implicature", split="dev")
    assert test.count() == 600 and dev.count() == 118
    # the published parser's counts (datasets/README.md)
    assert test.filter(gold="yes").count() == 320 and test.filter(gold="no").count() == 280
    assert dev.filter(gold="yes").count() == 52 and dev.filter(gold="no").count() == 66
    assert test.exclude(meta__type="Other").count() > 200
    assert test.filter(meta__type="Idiom").count() == 44
    elaborate = test.get(meta__row=4)
    assert elaborate.gold == "yes" and elaborate.meta["implicature"].startswith("Yes. But")
    templates = BenchmarkAsset.objects.get(benchmark="implicature", key="templates").data
    assert sorted(templates, key=int) == [str(n) for n in range(1, 10)]
    assert templates["2"]["example_template_text"].startswith('Esther asked "%s"')
    promptsource = BenchmarkAsset.objects.get(benchmark="implicature", key="promptsource").data
    assert sorted(promptsource, key=int) == ["0", "1", "5", "10", "15", "30"]
    assert Item.objects.filter(benchmark="implicature", is_attention_check=True).count() == 5
    assert "600" in capsys.readouterr().out


def test_a_second_import_changes_nothing(implicature_source, db, capsys):
    call_command("import_benchmark", "implicature", "--source", str(implicature_source))
    ids = set(Item.objects.values_list("id", flat=True))
    call_command("import_benchmark", "implicature", "--source", str(implicature_source))
    assert set(Item.objects.values_list("id", flat=True)) == ids
    assert "0 created, 0 updated, 723 unchanged" in capsys.readouterr().out


@pytest.fixture
def broken_copy(implicature_source, tmp_path):
    target = tmp_path / "implicature"
    shutil.copytree(implicature_source, target)
    return target


def _refused(source) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", "implicature", "--source", str(source))
    return str(caught.value)


@pytest.mark.usefixtures("without_session_benchmarks")
def test_a_label_without_yes_or_no_is_refused_naming_file_and_row(broken_copy, db):
    path = broken_copy / "test_conversational_implicatures.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = lines[5].rsplit(",", 1)[0] + ",Maybe.\n"
    path.write_text("".join(lines), encoding="utf-8")
    message = _refused(broken_copy)
    assert "test_conversational_implicatures.csv, row 6" in message and "Maybe." in message
    assert Item.objects.count() == 0 and BenchmarkAsset.objects.count() == 0


def test_a_truncated_file_is_refused_and_leaves_the_database_as_it_was(broken_copy, implicature_source, db):
    call_command("import_benchmark", "implicature", "--source", str(implicature_source))
    before = list(Item.objects.order_by("id").values_list("id", "gold", "prompt"))
    path = broken_copy / "dev_conversational_implicatures.csv"
    data = path.read_text(encoding="utf-8")
    path.write_text(data[: len(data) // 2].rsplit(",", 1)[0], encoding="utf-8")  # cut mid-row
    message = _refused(broken_copy)
    assert "dev_conversational_implicatures.csv" in message and "row" in message
    assert list(Item.objects.order_by("id").values_list("id", "gold", "prompt")) == before


@pytest.mark.usefixtures("without_session_benchmarks")
def test_a_missing_column_and_a_missing_file_are_named(broken_copy, db):
    (broken_copy / "type_labels.csv").write_text("Utterance,Reply\nx,y\n", encoding="utf-8")
    assert "type_labels.csv" in _refused(broken_copy) and "Response" in _refused(broken_copy)
    (broken_copy / "type_labels.csv").unlink()
    assert "type_labels.csv: file not found" in _refused(broken_copy)
    assert Item.objects.count() == 0


def test_a_template_file_with_a_broken_line_is_refused(broken_copy, db):
    path = broken_copy / "prompt_templates.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3][:-1]  # drop the closing quote
    path.write_text("\n".join(lines), encoding="utf-8")
    assert "prompt_templates.txt, row 4" in _refused(broken_copy)


@pytest.mark.usefixtures("without_session_benchmarks")
def test_without_a_source_or_datasets_dir_it_downloads_and_checks_the_sha256(
    db, tmp_path, monkeypatch, implicature_source
):
    """The pinned URLs cannot be reached here: a local stand-in serves the files by URL."""
    import io
    import urllib.request

    from parity import benchmarks

    by_url = {
        spec.url: (implicature_source / spec.path).read_bytes() for spec in benchmarks.get("implicature").source_files()
    }
    tampered = next(iter(by_url))
    served = dict(by_url)
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout=None: io.BytesIO(served[url]))
    monkeypatch.setenv("DATASETS_DIR", "")
    monkeypatch.setattr("django.conf.settings.DATASETS_DIR", "")
    served[tampered] = by_url[tampered] + b"extra"
    with pytest.raises(CommandError, match="sha256"):
        call_command("import_benchmark", "implicature", "--download-to", str(tmp_path / "dl"))
    assert Item.objects.count() == 0
    served[tampered] = by_url[tampered]
    call_command("import_benchmark", "implicature", "--download-to", str(tmp_path / "dl"))
    assert Item.objects.filter(split="test").count() == 600


def test_a_re_import_updates_texts_in_place(implicature_source, db, capsys):
    """Items stored with their ends' spaces trimmed (as earlier imports did) get the published text back."""
    call_command("import_benchmark", "implicature", "--source", str(implicature_source))
    item = Item.objects.get(benchmark="implicature", key=row_key(28))
    Item.objects.filter(pk=item.pk).update(prompt={key: value.strip() for key, value in item.prompt.items()})
    ids = set(Item.objects.values_list("id", flat=True))
    capsys.readouterr()
    call_command("import_benchmark", "implicature", "--source", str(implicature_source))
    assert "0 created, 1 updated, 722 unchanged" in capsys.readouterr().out
    assert set(Item.objects.values_list("id", flat=True)) == ids
    item.refresh_from_db()
    assert item.prompt == {"utterance": "you got anything to sell? ", "response": " I can get it."}
