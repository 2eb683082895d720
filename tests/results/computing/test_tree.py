"""The typed results tree's JSON rules (`results.computing.tree`): keys in field order, a key left out when
its value is None or its condition is false, a mapping written into its node, leaves of
`parity.stats` as their `to_dict()`."""

from __future__ import annotations

import json

from parity.benchmarks.ambibench.sections import AmbiBenchHeadlines, AmbiBenchSections, OraclePoint
from parity.stats.compare import ItemDisagreement
from results.computing.tree import (
    AttentionRule,
    Breakdowns,
    CollectionDates,
    Design,
    Entered,
    Ethics,
    Human,
    HumanAccuracy,
    Methods,
    Paper,
    Participants,
    Pay,
    PlannedPower,
    Prescreening,
    Reporting,
    Spread,
    StatisticsSettings,
    StudyResults,
    to_json,
)
from studies.design.screening import Screening
from tests.paths import REPO


def test_a_count_that_is_none_is_left_out_and_zero_is_kept() -> None:
    assert list(Participants(included=2, excluded=1, in_progress=0).to_json()) == [
        "included",
        "excluded",
        "in_progress",
        "imported",
    ]
    kept = Participants(included=2, excluded=1, in_progress=0, flagged_left_out=0, imported=0).to_json()
    assert list(kept) == ["included", "excluded", "in_progress", "flagged_left_out", "imported"]


def _human(*, graded: bool, mean_icc: float | None) -> Human:
    accuracy = HumanAccuracy(0.5, 0.6, 0.4, 0.1, [0.4, 0.6], "t", False, None, [])
    return Human(
        1,
        2,
        2,
        4,
        accuracy,
        None,
        cohen_kappa_mean_pairwise=None,
        cohen_kappa_mean_pairwise_ci95=None,
        cohen_kappa_ci_note="",
        cohen_kappa_std_across_units=None,
        fleiss_kappa=None,
        krippendorff_alpha=None,
        fleiss_kappa_ci95=None,
        krippendorff_alpha_ci95=None,
        agreement_ci_note="",
        percent_agreement=None,
        icc2k=None,
        icc2k_mean_across_units=mean_icc,
        graded=graded,
    )


def test_the_units_mean_icc_is_written_for_a_rating_study_only_and_the_flag_never() -> None:
    assert "icc2k_mean_across_units" not in _human(graded=False, mean_icc=None).to_json()
    written = _human(graded=True, mean_icc=None).to_json()
    assert written["icc2k_mean_across_units"] is None and "graded" not in written
    assert list(written)[-1] == "icc2k_mean_across_units"


def test_leaves_give_their_dicts_and_tuples_lists() -> None:
    leaf = ItemDisagreement(
        item="a", model_answer="yes", majority_answer="no", majority_share=float("nan"), model_correct=None
    )
    assert to_json({"x": [leaf], "ci": (0.1, 0.2)}) == {"x": [leaf.to_dict()], "ci": [0.1, 0.2]}
    assert leaf.to_dict()["majority_share"] is None


def _methods() -> Methods:
    return Methods(
        platform="link",
        prolific=None,
        dates=CollectionDates(None, None),
        participants=Entered(1, 0, 0, 0, 0, 0, 1, 0, []),
        attention=AttentionRule(0, 0, 0),
        pay=Pay(450, 30, 900.0, None, None, 0, "GBP"),
        design=Design("ambibench", "AmbiBench", 1, 2, Spread(2, 2), Spread(1, 1), []),
        models=[],
        statistics=StatisticsSettings(0.95, 10, 0, "t_interval"),
        reporting=Reporting("", Ethics("", "", ""), Paper("", "", ""), None),
    )


def test_the_headlines_are_written_into_the_top_level_after_the_sections() -> None:
    keys = [spec for spec in StudyResults.__dataclass_fields__]
    assert keys.index("headlines") == keys.index("methods") - 1
    people = Participants(1, 0, 0)
    results = StudyResults(
        "s", 1, "ambibench", "live", False, {}, "", 0, 10, people, _human(graded=False, mean_icc=None),
        [], [], Breakdowns(), None, "why", [], [], headlines={"oracle_by_position": [1]}, methods=_methods(),
    )  # fmt: skip
    text = json.dumps(results.to_json())
    assert '"irt_reason": "why", "paired": [], "human_band": [], "oracle_by_position": [1], "methods"' in text
    assert '"graded"' not in text and '"headlines"' not in text


#: a benchmark's own top-level entry, read back as the type its definition names
HEADLINES = AmbiBenchHeadlines(oracle_by_position=[OraclePoint(position=1, n_episodes=3, accuracy=0.5)])


def test_from_json_reads_back_the_headlines_the_graded_switch_and_keys_left_out() -> None:
    people = Participants(1, 0, 0)
    for human in (_human(graded=False, mean_icc=None), _human(graded=True, mean_icc=None)):
        results = StudyResults(
            "s", 1, "ambibench", "live", False, {}, "", 0, 10, people, human,
            [], [], Breakdowns(sections=AmbiBenchSections()), None, "why", [], [], headlines=HEADLINES,
            methods=_methods(),
        )  # fmt: skip
        again = StudyResults.from_json(json.loads(json.dumps(results.to_json())))
        assert again == results
        assert again.headlines == HEADLINES and again.participants.flagged_left_out is None
        assert again.to_json()["oracle_by_position"] == [{"position": 1, "n_episodes": 3, "accuracy": 0.5}]


def test_a_power_analysis_and_a_prescreening_are_written_as_the_study_stores_them() -> None:
    """Both shapes `studies.design.power.design_power` stores (an analysis, or one the model could not
    compute) and a prescreening as `Screening.to_json` stores it come back key for key, in order."""
    golden = json.loads((REPO / "tests" / "results" / "golden" / "native_pilot.json").read_text())
    computed = golden["methods"]["reporting"]["power"]
    failed = {
        "people": 3,
        "units": 1,
        "items_per_person": 1,
        "reason": "not computed: math domain error",
        "source": computed["source"],
    }
    for stored in (computed, failed):
        assert json.dumps(PlannedPower.from_json(stored).to_json()) == json.dumps(stored)
    assert PlannedPower.from_json(computed).computed and not PlannedPower.from_json(failed).computed
    stored = Screening(age_min=18, countries=["GB", "IE"], exclude_earlier=True).to_json()
    screening = Prescreening.from_json(stored)
    assert json.dumps(screening.to_json()) == json.dumps(stored) and screening.is_set
    assert Prescreening.from_json({}).to_json() == {} and not Prescreening.from_json({}).is_set
