"""Recompute Ruis et al.'s Table 7 (Appendix E) from their published human annotations.

Tolerances: the table prints accuracies to 0.1 percentage point and kappas to 0.01, and it
sometimes truncates instead of rounding (136/150 = 90.67% is printed 90.6%, a mean pairwise
kappa of 0.738 is printed 0.73). So a value may sit up to one printed unit away: 0.001 for
accuracies (as fractions) and 0.01 for kappas; the Std row has one decimal, hence 0.1 pp.
"""

from __future__ import annotations

import csv

import pytest

from parity.stats import (
    Rating,
    accuracy_across_units,
    accuracy_by_unit,
    agreement_by_unit,
    kappa_across_units,
)
from tests.conftest import datasets_dir

# Published data are read from beside the repository, never copied into it.
DATA = datasets_dir() / "implicature"
SUBSETS = ("1-150", "151-300", "301-450", "451-600")

# Table 7: per-annotator accuracy (%) and IAA per subset.
TABLE_7 = {
    "1-150": ([86.0, 92.0, 90.7, 90.6, 86.0], 89.1, 92.0, 86.0, 0.73),
    "151-300": ([84.7, 83.3, 87.3, 86.0, 86.0], 85.5, 87.3, 83.3, 0.64),
    "301-450": ([84.0, 85.3, 88.0, 86.0, 82.7], 85.2, 88.0, 82.7, 0.78),
    "451-600": ([85.3, 82.7, 84.0, 82.0, 92.0], 85.2, 92.0, 82.0, 0.71),
}
# "Total" and "Std" rows: mean 86.2 ± 2.3, best 89.8 ± 2.2, worst 83.5 ± 1.5, IAA 0.72 ± 0.1.
TOTAL = {"mean": 86.2, "best": 89.8, "worst": 83.5, "kappa": 0.72}
STD = {"mean": 2.3, "best": 2.2, "worst": 1.5, "kappa": 0.1}

ACCURACY_TOLERANCE = 0.001
KAPPA_TOLERANCE = 0.01
STD_TOLERANCE = 0.001  # one printed decimal of a percentage

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"published data not found at {DATA}")


def _read_subset(subset: str) -> list[Rating]:
    ratings = []
    with open(DATA / f"human_eval_{subset}.csv", newline="", encoding="utf-8") as handle:
        # DictReader ignores the 1-150 file's unnamed helper columns after "Question".
        for index, row in enumerate(csv.DictReader(handle)):
            gold = row["Ground truth"].strip()
            for column in range(1, 6):
                answer = row[f"Annotator {column}"].strip() or None
                # Annotator numbers restart per subset and name different people.
                ratings.append(
                    Rating(
                        annotator=f"{subset}/A{column}",
                        item=f"{subset}/{index}",
                        answer=answer,
                        correct=None if answer is None else answer == gold,
                        unit=subset,
                    )
                )
    return ratings


@pytest.fixture(scope="module")
def ratings() -> list[Rating]:
    return [rating for subset in SUBSETS for rating in _read_subset(subset)]


def test_it_reproduces_table_7_per_subset(ratings: list[Rating]) -> None:
    accuracy = accuracy_by_unit(ratings, n_boot=1000)
    agreement = agreement_by_unit(ratings)
    for summary, iaa in zip(accuracy, agreement, strict=True):
        annotators, mean, best, worst, kappa = TABLE_7[summary.unit]
        ours = [p.accuracy for p in summary.participants]
        print(
            f"subset {summary.unit}: annotators {[round(100 * a, 2) for a in ours]}"
            f" vs {annotators}; mean {100 * summary.mean:.2f} vs {mean};"
            f" best {100 * summary.best:.2f} vs {best}; worst {100 * summary.worst:.2f} vs {worst};"
            f" IAA {iaa.mean_pairwise_kappa:.3f} vs {kappa}"
        )
        assert ours == pytest.approx([a / 100 for a in annotators], abs=ACCURACY_TOLERANCE)
        assert summary.mean == pytest.approx(mean / 100, abs=ACCURACY_TOLERANCE)
        assert summary.best == pytest.approx(best / 100, abs=ACCURACY_TOLERANCE)
        assert summary.worst == pytest.approx(worst / 100, abs=ACCURACY_TOLERANCE)
        assert iaa.n_pairs == 10
        assert iaa.mean_pairwise_kappa == pytest.approx(kappa, abs=KAPPA_TOLERANCE)


def test_it_reproduces_table_7_totals(ratings: list[Rating]) -> None:
    spread = accuracy_across_units(accuracy_by_unit(ratings, n_boot=1000))
    kappa = kappa_across_units(agreement_by_unit(ratings))
    print(
        f"total: mean {100 * spread.mean:.2f} ± {100 * spread.mean_within_unit_std:.2f}"
        f" (std of subset means {100 * spread.mean_std:.2f})"
        f" vs {TOTAL['mean']} ± {STD['mean']};"
        f" best {100 * spread.best:.2f} ± {100 * spread.best_std:.2f}"
        f" vs {TOTAL['best']} ± {STD['best']};"
        f" worst {100 * spread.worst:.2f} ± {100 * spread.worst_std:.2f}"
        f" vs {TOTAL['worst']} ± {STD['worst']};"
        f" IAA {kappa.mean:.3f} ± {kappa.std:.3f} vs {TOTAL['kappa']} ± {STD['kappa']}"
    )
    assert spread.mean == pytest.approx(TOTAL["mean"] / 100, abs=ACCURACY_TOLERANCE)
    assert spread.best == pytest.approx(TOTAL["best"] / 100, abs=ACCURACY_TOLERANCE)
    assert spread.worst == pytest.approx(TOTAL["worst"] / 100, abs=ACCURACY_TOLERANCE)
    assert spread.mean_within_unit_std == pytest.approx(STD["mean"] / 100, abs=STD_TOLERANCE)
    assert spread.best_std == pytest.approx(STD["best"] / 100, abs=STD_TOLERANCE)
    assert spread.worst_std == pytest.approx(STD["worst"] / 100, abs=STD_TOLERANCE)
    assert kappa.mean == pytest.approx(TOTAL["kappa"], abs=KAPPA_TOLERANCE)
    # 0.050 printed with one decimal as 0.1.
    assert kappa.std == pytest.approx(STD["kappa"], abs=0.05)


def test_every_published_answer_is_yes_or_no(ratings: list[Rating]) -> None:
    assert {r.answer for r in ratings} == {"Yes", "No"}
    assert len(ratings) == 4 * 150 * 5
