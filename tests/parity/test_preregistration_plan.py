"""The pure part of the preregistration (`parity.preregistration_plan`): canonical JSON, and which changes
after launch depart from the plan, against hand-written documents."""

from __future__ import annotations

import hashlib

from parity.preregistration_plan import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    Event,
    canonical_json,
    deviation_of,
    render_markdown,
    sha256_of,
)
from results.computing import assemble

DOCUMENT = {
    "recruitment": {"places": 10, "precision": None},
    "runs": [{"model": "smollm2", "setting_key": '{"k":0}'}],
}
PRECISE = {**DOCUMENT, "recruitment": {"places": 10, "precision": {"kind": "per_unit", "value": 3.0}}}


def event(kind: str, **data) -> Event:
    return Event(at="2026-01-01T00:00:00+00:00", kind=kind, summary=kind, data=data)


def test_canonical_json_sorts_keys_drops_whitespace_and_keeps_unicode():
    assert canonical_json({"b": [1, "é"], "a": {"d": 1, "c": None}}) == '{"a":{"c":null,"d":1},"b":[1,"é"]}'.encode()
    assert sha256_of({"a": 1}) == hashlib.sha256(b'{"a":1}').hexdigest()


def test_the_statistics_stated_are_those_the_results_page_computes():
    assert (BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED) == (
        assemble.N_BOOT,
        assemble.SEED,
    )


def test_closing_before_the_places_are_filled_departs_unless_recruiting_until_precise():
    closed = event("status", to="closed", kept=7)
    assert deviation_of(DOCUMENT, closed) == "closed with 7 of 10 places filled"
    assert deviation_of(DOCUMENT, event("status", to="closed", kept=10)) is None
    assert deviation_of(DOCUMENT, event("status", to="paused", kept=3)) is None
    assert deviation_of(PRECISE, closed) is None


def test_prolific_raises_depart_only_beyond_a_fixed_target():
    assert deviation_of(DOCUMENT, event("prolific", places=10)) is None
    assert deviation_of(DOCUMENT, event("prolific", places=12)) is not None
    assert deviation_of(PRECISE, event("prolific", places=40)) is None  # the preregistered stopping rule
    assert deviation_of(DOCUMENT, event("prolific", action="publish", status="ACTIVE")) is None


def test_runs_depart_when_added_unplanned_or_cancelled_planned():
    planned = {"model": "smollm2", "setting_key": '{"k":0}'}
    other = {"model": "smollm2", "setting_key": '{"k":1}'}
    assert deviation_of(DOCUMENT, event("run_added", **planned)) is None  # e.g. started again after a failure
    assert deviation_of(DOCUMENT, event("run_added", **other)) is not None
    assert deviation_of(DOCUMENT, event("run_cancelled", **planned)) is not None
    assert deviation_of(DOCUMENT, event("run_cancelled", **other)) is None


def test_only_preregistered_settings_depart():
    renamed = event("settings", fields={"name": {"from": "a", "to": "b"}})
    repaid = event("settings", fields={"reward_pence": {"from": 450, "to": 500}, "name": {}})
    assert deviation_of(DOCUMENT, renamed) is None
    assert deviation_of(DOCUMENT, repaid) == "preregistered settings changed: reward_pence"


def test_a_table_cell_keeps_a_pipe_in_a_summary_from_breaking_the_markdown_table():
    rows = [{"at": "t", "summary": "a | b", "deviation": "x"}]
    markdown = render_markdown(DOCUMENT, sha256="0" * 64, frozen_at="t", deviations=rows)
    assert "| t | a \\| b | x |" in markdown
