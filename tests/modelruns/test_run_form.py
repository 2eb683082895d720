"""The run form's settings: one typed field per setting the benchmark declares, with its choices,
bounds, label and help, and a clear message for a bad value."""

from __future__ import annotations

import re
from html import unescape as html_unescape

import pytest

from modelruns.forms import RunStartForm
from parity.benchmarks import REGISTRY
from studies.models import Study

SPEC = {"model": "smollm2", "kind": "causal", "dtype": "float32", "device": "auto"}


def _form(benchmark: str, data: dict[str, str] | None = None) -> RunStartForm:
    # the form reads only the study's benchmark: an unsaved study will do
    study = Study(name="settings", benchmark=benchmark)
    return RunStartForm(data, study=study) if data is not None else RunStartForm(study=study)


def _select_options(html: str, name: str) -> list[tuple[str, str, bool]]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert select, f"no <select> named {name}"
    return [
        (value, html_unescape(label), bool(selected))
        for value, selected, label in re.findall(r'<option value="([^"]*)"( selected)?>([^<]*)</option>', select[1])
    ]


@pytest.mark.parametrize("benchmark", sorted(REGISTRY))
def test_each_declared_setting_is_a_typed_field_with_its_default(benchmark):
    definition = REGISTRY[benchmark]
    form = _form(benchmark)
    html = str(form["model"]) + "".join(str(field) for field in form.setting_fields())
    assert [field.name for field in form.setting_fields()] == [
        f"setting_{option.key}" for option in definition.model_setting_options
    ]
    assert "setting" not in form.fields  # no free key=value text any more
    defaults = definition.model_setting()
    for option in definition.model_setting_options:
        name = f"setting_{option.key}"
        if option.kind == "choice":
            options = _select_options(html, name)
            assert [(value, label) for value, label, _ in options] == [
                (str(value), label) for value, label in option.choices
            ]
            assert [value for value, _, selected in options if selected] == [str(defaults[option.key])]
        elif option.kind == "int":
            tag = re.search(rf'<input type="number" name="{name}"[^>]*>', html)
            assert tag and f'value="{defaults[option.key]}"' in tag[0]
            assert option.minimum is None or f'min="{option.minimum}"' in tag[0]
        else:
            # an empty default is an input without a value
            value = f' value="{re.escape(str(defaults[option.key]))}"' if defaults[option.key] != "" else ""
            assert re.search(rf'<input type="text" name="{name}"{value}[ >]', html)
        assert form.fields[name].label == option.label and option.help in form.fields[name].help_text


def test_every_benchmark_with_a_model_side_declares_each_of_its_settings():
    for name, definition in REGISTRY.items():
        assert [option.key for option in definition.model_setting_options] == list(definition.default_model_setting), (
            name
        )
        for option in definition.model_setting_options:
            assert not option.error(definition.default_model_setting[option.key]), (name, option.key)


def test_the_implicature_form_shows_the_papers_protocols_templates_and_shots():
    form = _form("implicature")
    html = "".join(str(field) for field in form.setting_fields())
    assert _select_options(html, "setting_variant") == [
        ("ranking", "ranking: yes or no after the exchange", True),
        ("contrastive", "contrastive: A or B", False),
    ]
    assert [value for value, _, _ in _select_options(html, "setting_template")] == [str(n) for n in range(1, 10)]
    assert 'id="run_setting_template"' in html  # its own ids, apart from the results page's filters
    help_text = form.fields["setting_template"].help_text
    assert "1-6 of Table 4" in help_text and "(default: 2)" in help_text


def test_chosen_settings_reach_the_run_and_unchanged_ones_stay_defaults():
    form = _form("implicature", {**SPEC, "setting_variant": "ranking", "setting_template": "5", "setting_k": "1"})
    assert form.is_valid(), form.errors
    assert form.setting_overrides() == {"template": 5, "k": 1}  # typed: numbers, not text
    blank = _form("implicature", {**SPEC, "setting_template": "2", "setting_k": "", "setting_seed": ""})
    assert blank.is_valid(), blank.errors
    assert blank.setting_overrides() == {}  # blank is the default; a sweep keeps its grid


@pytest.mark.parametrize(
    ("benchmark", "data", "field", "message"),
    [
        (
            "implicature",
            {"setting_template": "99"},
            "setting_template",
            "Prompt template must be one of 1, 2, 3, 4, 5, 6, 7, 8, 9, not 99.",
        ),
        ("implicature", {"setting_k": "-1"}, "setting_k", "Examples (k-shot) must be at least 0."),
        ("implicature", {"setting_k": "five"}, "setting_k", "Examples (k-shot) must be a whole number."),
        (
            "implicature",
            {"setting_variant": "contrastive", "setting_template": "5"},
            None,
            "contrastive template must be one of 1, 2, not 5",
        ),
        (
            "miqa",
            {"setting_wording": "7"},
            "setting_wording",
            "Wording must be one of 1, 2, 3, 4, empty, pick, generative, not 7.",
        ),
        ("miqa", {"setting_wording": "generative", "setting_k": "1"}, None, "generative runs are 0-shot"),
        ("ambibench", {"setting_format": "html"}, "setting_format", "Prompt format must be one of item, arrow, qa"),
        ("instruction_induction", {"setting_mode": "guess"}, "setting_mode", "Mode must be one of induce, in_context"),
        (
            "instruction_induction",
            {"setting_execute_limit": "-3"},
            "setting_execute_limit",
            "Execute inputs per instruction must be at least 0.",
        ),
    ],
)
def test_a_bad_setting_is_refused_with_a_message_naming_it(benchmark, data, field, message):
    form = _form(benchmark, {**SPEC, **data})
    assert not form.is_valid()
    errors = form.errors.get(field or "__all__", [])
    assert any(message in error for error in errors), form.errors
    # what was typed comes back to be corrected, not lost
    assert all(form[name].value() == value for name, value in data.items())
    for name, value in data.items():
        if form.fields[name].widget.input_type != "select":
            assert f'value="{value}"' in str(form[name])


def test_a_benchmark_without_settings_says_there_is_nothing_to_choose():
    form = _form("custom")
    assert form.setting_fields() == [] and form.default_setting_label() == "the items' own prompts"
    assert _form("custom", {**SPEC}).is_valid()
