from __future__ import annotations

import pytest

from parity.benchmarks.miqa import RATING_SCALE as MIQA_GRADES
from parity.stats import (
    Rating,
    agreement_by_unit,
    agreement_summary,
    cohen_kappa,
    fleiss_kappa,
    icc2k,
    icc2k_by_blocks,
    kappa_across_units,
    krippendorff_alpha,
    mean_pairwise_kappa,
    pairwise_kappas,
    percent_agreement,
)


def _table(answers: dict[str, list[str | None]], unit: str | None = None) -> list[Rating]:
    return [
        Rating(annotator, f"i{index}", answer, None, unit)
        for annotator, row in answers.items()
        for index, answer in enumerate(row, start=1)
    ]


# Three annotators, four items.
THREE = {
    "A1": ["Y", "Y", "N", "N"],
    "A2": ["Y", "N", "N", "N"],
    "A3": ["Y", "Y", "N", "Y"],
}


def test_cohen_kappa_matches_the_hand_formula() -> None:
    # p_o = 3/4; P(Y) = 1/2 and 1/4 → p_e = 1/2·1/4 + 1/2·3/4 = 1/2; κ = (3/4 − 1/2)/(1/2).
    assert cohen_kappa(["Y", "Y", "N", "N"], ["Y", "N", "N", "N"]) == pytest.approx(0.5)


def test_mean_pairwise_kappa_averages_all_pairs() -> None:
    kappas = {(p.annotator_a, p.annotator_b): p.kappa for p in pairwise_kappas(_table(THREE))}
    # A1–A2: 0.5 (above). A1–A3: p_o 3/4, p_e 1/2·3/4 + 1/2·1/4 = 1/2 → 0.5.
    # A2–A3: p_o 1/2, p_e 1/4·3/4 + 3/4·1/4 = 3/8 → (1/2 − 3/8)/(5/8) = 0.2.
    assert kappas == pytest.approx({("A1", "A2"): 0.5, ("A1", "A3"): 0.5, ("A2", "A3"): 0.2})
    assert mean_pairwise_kappa(_table(THREE)) == pytest.approx(0.4)


def test_percent_agreement_and_fleiss_kappa() -> None:
    # Per item share of agreeing pairs: YYY 1, YNY 1/3, NNN 1, NNY 1/3 → P̄ = 2/3.
    assert percent_agreement(_table(THREE)) == pytest.approx(2 / 3)
    # 6 of 12 answers are Y → P_e = ½² + ½² = ½; κ = (2/3 − ½)/(1 − ½) = 1/3.
    assert fleiss_kappa(_table(THREE)) == pytest.approx(1 / 3)


def test_krippendorff_alpha_nominal_complete_data() -> None:
    # Binary nominal: α = 1 − (n − 1)·o_YN / (n_Y·n_N). Coincidences o_YN: item 2 (Y,N,Y) gives
    # 2 ordered Y–N pairs / (3 − 1) = 1, item 4 likewise 1 → o_YN = 2; n = 12, n_Y = n_N = 6.
    # α = 1 − 11·2/36 = 7/18.
    assert krippendorff_alpha(_table(THREE)) == pytest.approx(7 / 18)


def test_krippendorff_alpha_allows_missing_answers() -> None:
    missing = {**THREE, "A3": ["Y", "Y", "N", None]}
    # Item 4 now holds N, N only. n = 11, n_Y = 5, n_N = 6, o_YN = 1 (item 2):
    # α = 1 − 10·1/30 = 2/3.
    assert krippendorff_alpha(_table(missing)) == pytest.approx(2 / 3)
    # Pairwise kappa uses the items both answered: A2–A3 over items 1–3:
    # p_o 2/3, p_e 1/3·2/3 + 2/3·1/3 = 4/9 → (2/3 − 4/9)/(5/9) = 0.4; A1–A3 identical → 1.
    kappas = {(p.annotator_a, p.annotator_b): (p.n_items, p.kappa) for p in pairwise_kappas(_table(missing))}
    assert kappas[("A2", "A3")] == (3, pytest.approx(0.4))
    assert kappas[("A1", "A3")] == (3, pytest.approx(1.0))


def test_krippendorff_alpha_interval_level() -> None:
    answers = {"A": ["1", "2", "3"], "B": ["1", "2", "4"]}
    # Values 1,1 | 2,2 | 3,4, δ = difference². D_o = (2 ordered pairs · 1) / n = 2/6.
    # D_e = Σ over ordered pairs of all 6 values δ² / (n(n − 1)) = 82/30 → α = 1 − 10/82.
    assert krippendorff_alpha(_table(answers), level="interval") == pytest.approx(72 / 82)


def test_krippendorff_alpha_ordinal_takes_scores() -> None:
    grades = {"A": ["wrong", "ambiguous", "correct"], "B": ["wrong", "ambiguous", "correct"]}
    assert krippendorff_alpha(_table(grades), level="ordinal", scores=MIQA_GRADES) == 1.0
    with pytest.raises(ValueError):
        krippendorff_alpha(_table({"A": ["meh"], "B": ["wrong"]}), level="ordinal", scores=MIQA_GRADES)


def test_identical_constant_ratings_leave_kappa_undefined() -> None:
    rows = _table({"A": ["Y", "Y", "Y"], "B": ["Y", "Y", "Y"]})
    summary = agreement_summary(rows)
    assert cohen_kappa(["Y", "Y"], ["Y", "Y"]) is None
    assert (summary.n_pairs, summary.n_pairs_undefined, summary.mean_pairwise_kappa) == (1, 1, None)
    assert summary.fleiss_kappa is None
    assert summary.krippendorff_alpha is None
    assert summary.percent_agreement == 1.0


def test_opposite_constant_ratings_have_kappa_zero() -> None:
    # p_o = 0 and p_e = 1·0 + 0·1 = 0 → κ = 0: defined, no agreement beyond chance.
    assert cohen_kappa(["Y", "Y"], ["N", "N"]) == 0.0


def test_a_single_annotator_has_no_agreement() -> None:
    summary = agreement_summary(_table({"A": ["Y", "N"]}))
    assert summary.n_pairs == 0
    assert summary.mean_pairwise_kappa is None
    assert summary.fleiss_kappa is None
    assert summary.krippendorff_alpha is None
    assert summary.percent_agreement is None


def test_agreement_is_computed_per_unit() -> None:
    rows = _table(THREE, unit="s1") + _table({"B1": ["Y", "N"], "B2": ["Y", "N"]}, unit="s2")
    s1, s2 = agreement_by_unit(rows)
    assert (s1.unit, s1.n_annotators, s1.n_items) == ("s1", 3, 4)
    assert s1.mean_pairwise_kappa == pytest.approx(0.4)
    assert s2.mean_pairwise_kappa == 1.0
    spread = kappa_across_units([s1, s2])
    assert (spread.mean, spread.std) == pytest.approx((0.7, 0.3))


def test_icc2k_matches_shrout_and_fleiss() -> None:
    # Shrout & Fleiss (1979), Table 2: 6 targets × 4 judges; they report ICC(2,4) = 0.62
    # from BMS 11.24, JMS 32.49, EMS 1.02: (11.24 − 1.02)/(11.24 + (32.49 − 1.02)/6) = 0.620.
    judges = {
        "J1": ["9", "6", "8", "7", "10", "6"],
        "J2": ["2", "1", "4", "1", "5", "2"],
        "J3": ["5", "3", "6", "2", "6", "4"],
        "J4": ["8", "2", "8", "6", "9", "7"],
    }
    result = icc2k(_table(judges))
    assert (result.n_items, result.n_raters, result.n_items_dropped) == (6, 4, 0)
    assert result.icc == pytest.approx(0.620, abs=0.001)


def test_icc2k_on_miqa_grades() -> None:
    # Grades [[1, 1], [0.5, 0], [0, 0]] (items × raters), grand mean 5/12.
    # SSR = 2·Σ(row mean − 5/12)² = 13/12, SSC = 3·Σ(col mean − 5/12)² = 1/24,
    # SST = 29/24 → SSE = 1/12. MSR = 13/24, MSC = 1/24, MSE = 1/24.
    # ICC(2,k) = (13/24 − 1/24) / (13/24 + 0/3) = 12/13.
    grades = {
        "R1": ["correct", "ambiguous", "wrong", "wrong"],
        "R2": ["correct", "wrong", "wrong", None],
    }
    result = icc2k(_table(grades), scores=MIQA_GRADES)
    assert result.icc == pytest.approx(12 / 13)
    assert (result.n_items, result.n_raters, result.n_items_dropped) == (3, 2, 1)


def test_icc2k_is_undefined_for_one_rater() -> None:
    assert icc2k(_table({"R1": ["1", "2"]})).icc is None


def test_icc2k_by_blocks_keeps_items_graded_by_only_some_raters() -> None:
    """Two blocks of answers, each graded by its own raters, and one answer graded by one rater.
    No item is graded by every rater, so the pooled matrix is empty; the blocks are not dropped:
    Shrout & Fleiss's 6 × 4 table (ICC(2,4) = 0.620) and the 3 × 2 MiQA grades above (12/13),
    averaged with weights 6 and 3; the lone answer is counted as without ICC."""
    judges = {
        "J1": ["9", "6", "8", "7", "10", "6"],
        "J2": ["2", "1", "4", "1", "5", "2"],
        "J3": ["5", "3", "6", "2", "6", "4"],
        "J4": ["8", "2", "8", "6", "9", "7"],
    }
    first = _table(judges)
    grades = {"R1": ["correct", "ambiguous", "wrong", "correct"], "R2": ["correct", "wrong", "wrong", None]}
    second = [
        Rating(r.annotator, f"g{r.item}", None if r.answer is None else str(MIQA_GRADES[r.answer]))
        for r in _table(grades)
    ]
    ratings = first + second
    assert icc2k(ratings).icc is None and icc2k(ratings).n_items_dropped == 10  # what pooling would do
    result = icc2k_by_blocks(ratings)
    assert (result.n_items, result.n_blocks, result.n_items_without_icc) == (10, 3, 1)
    assert result.icc == pytest.approx((6 * 0.6201 + 3 * 12 / 13) / 9, abs=0.001)
    assert sorted((block.raters, block.n_items) for block in result.blocks) == [
        (["J1", "J2", "J3", "J4"], 6),
        (["R1"], 1),
        (["R1", "R2"], 3),
    ]


def test_icc2k_by_blocks_on_a_full_matrix_is_the_plain_icc() -> None:
    judges = {
        "J1": ["9", "6", "8", "7", "10", "6"],
        "J2": ["2", "1", "4", "1", "5", "2"],
        "J3": ["5", "3", "6", "2", "6", "4"],
        "J4": ["8", "2", "8", "6", "9", "7"],
    }
    result = icc2k_by_blocks(_table(judges))
    assert result.icc == pytest.approx(0.620, abs=0.001) and result.n_items_without_icc == 0
