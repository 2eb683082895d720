"""Every benchmark declares the design options a researcher chooses, with the paper's design as default."""

from __future__ import annotations

import pytest

from parity.benchmarks import REGISTRY
from parity.benchmarks.design import DesignOption, design_errors

OPTIONS = (
    DesignOption("units", "Units", minimum=1),
    DesignOption("attention_checks", "Attention checks", minimum=0, maximum=3),
    DesignOption("exclude_at", "Exclude at", minimum=0),
    DesignOption("format", "Format", kind="choice", choices=(("arrow", "arrow"), ("qa", "Q/A"))),
    DesignOption("shuffle", "Shuffle", kind="bool"),
)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_benchmark_declares_its_options_and_its_default_design_passes_them(name):
    definition = REGISTRY[name]
    assert definition.design_options, f"{name} declares no design options"
    keys = [option.key for option in definition.design_options]
    assert len(keys) == len(set(keys)) and set(keys) <= set(definition.default_design)
    assert "per_unit" in keys
    assert definition.design_errors(definition.design()) == {}


def test_checks_are_offered_only_where_the_benchmark_has_them():
    for definition in REGISTRY.values():
        offered = {option.key: option for option in definition.design_options}
        if definition.attention_checks():
            assert offered["attention_checks"].maximum == len(definition.attention_checks())
        elif not definition.named_sets:  # a named set brings its own checks: counted when a study is built
            assert "attention_checks" not in offered


def test_what_is_wrong_is_said_in_words():
    errors = design_errors(
        OPTIONS, {"units": 0, "attention_checks": 4, "exclude_at": 1, "format": "xml", "shuffle": "yes"}
    )
    assert errors == {
        "units": "Units must be at least 1 (you chose 0).",
        "attention_checks": "Attention checks can be at most 3 (you chose 4).",
        "format": "Format must be one of: arrow, Q/A.",
        "shuffle": "Shuffle must be yes or no.",
    }


def test_an_exclusion_no_one_can_reach_is_refused():
    errors = design_errors(OPTIONS, {"units": 1, "attention_checks": 2, "exclude_at": 3})
    assert errors == {
        "exclude_at": "Exclusion at 3 failed checks can never happen with 2 attention checks per "
        "participant; choose at most 2 (0: never exclude)."
    }
    assert design_errors(OPTIONS, {"attention_checks": 0, "exclude_at": 0}) == {}
    assert design_errors(OPTIONS, {"units": "4"}) == {"units": "Units must be a whole number."}


def test_an_option_must_be_of_a_known_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        DesignOption("x", "X", kind="float")
    with pytest.raises(ValueError, match="needs its choices"):
        DesignOption("x", "X", kind="choice")
