from __future__ import annotations

import pytest

from parity.benchmarks.implicature.stats import TemplateAnswer, implicature_breakdown
from parity.benchmarks.instruction_induction.stats import InstructionScore, instruction_induction_by_task

# Item i1 (Generalised) and i2 (no type → Other) under the six templates.
OUTCOMES = {1: (1, 1), 2: (1, 0), 3: (0, 0), 4: (1, 0), 5: (1, 1), 6: (0, 1)}
ANSWERS = [
    TemplateAnswer(item, template, bool(ok), "Generalised" if item == "i1" else None)
    for template, pair in OUTCOMES.items()
    for item, ok in zip(("i1", "i2"), pair, strict=True)
]


def test_implicature_accuracy_per_template_and_group() -> None:
    result = implicature_breakdown(ANSWERS)
    assert result.per_template == {1: 1.0, 2: 0.5, 3: 0.0, 4: 0.5, 5: 1.0, 6: 0.5}
    # Mean 3.5/6; squared deviations sum to 0.7083 → population std √(0.7083/6) ≈ 0.3436.
    assert result.mean == pytest.approx(3.5 / 6)
    assert result.std == pytest.approx((0.70833333 / 6) ** 0.5)
    # Structured 1, 3, 4: (1 + 0 + 0.5)/3; natural 2, 5, 6: (0.5 + 1 + 0.5)/3.
    assert result.structured_mean == pytest.approx(0.5)
    assert result.natural_mean == pytest.approx(2 / 3)


def test_implicature_accuracy_per_type_over_templates() -> None:
    per_type = {t.implicature_type: t for t in implicature_breakdown(ANSWERS).per_type}
    # Generalised (i1): 1,1,0,1,1,0 → 2/3 ± √(2/9). Other (i2): 1,0,0,0,1,1 → 1/2 ± 1/2.
    assert (per_type["Generalised"].mean, per_type["Generalised"].std) == pytest.approx((2 / 3, (2 / 9) ** 0.5))
    assert (per_type["Other"].mean, per_type["Other"].std, per_type["Other"].n_items) == (
        0.5,
        0.5,
        1,
    )


def test_a_missing_template_group_is_none() -> None:
    result = implicature_breakdown([{"item": "i1", "template": 2, "correct": True}])
    assert (result.structured_mean, result.natural_mean) == (None, 1.0)
    # one natural template: a mean, and no spread (not "± 0.0")
    assert (result.structured_std, result.natural_std, result.std) == (None, None, None)
    assert (result.extra_templates, result.extra_mean, result.extra_std) == ([], None, None)


def _answers_with_accuracies(accuracies: dict[int, float], n_items: int = 1000) -> list[TemplateAnswer]:
    """n_items answers per template, the first round(accuracy * n_items) of them correct."""
    return [
        TemplateAnswer(f"i{i}", template, i < round(accuracy * n_items))
        for template, accuracy in accuracies.items()
        for i in range(n_items)
    ]


def test_the_published_table_12_mean_and_stds_are_population_stds_per_group() -> None:
    # Ruis et al., Table 12 (BERT-cased, k = 0): templates 1-6 at 47.3, 46.8, 57.3, 48.8, 46.7, 46.7;
    # printed Mean 48.9 – std 3.81, Structured 51.1 – std 4.4, Natural 46.7 – std 0.0471.
    table_12 = {1: 0.473, 2: 0.468, 3: 0.573, 4: 0.488, 5: 0.467, 6: 0.467}
    result = implicature_breakdown(_answers_with_accuracies(table_12))
    assert result.templates == [1, 2, 3, 4, 5, 6] and result.variant == "ranking"
    assert round(100 * result.mean, 1) == 48.9 and round(100 * result.std, 2) == 3.81
    assert round(100 * result.structured_mean, 1) == 51.1 and round(100 * result.structured_std, 1) == 4.4
    assert round(100 * result.natural_mean, 1) == 46.7 and round(100 * result.natural_std, 4) == 0.0471


def test_templates_7_to_9_are_reported_apart_from_the_main_six() -> None:
    accuracies = {1: 0.5, 2: 0.6, 3: 0.7, 4: 0.5, 5: 0.6, 6: 0.7, 7: 0.9, 8: 0.8, 9: 1.0}
    result = implicature_breakdown(_answers_with_accuracies(accuracies, n_items=10))
    assert result.per_template == pytest.approx(accuracies)
    # 1-6: mean 0.6, deviations ±0.1 on four templates → population std √(0.04/6).
    assert (result.templates, result.mean, result.std) == (
        [1, 2, 3, 4, 5, 6],
        pytest.approx(0.6),
        pytest.approx((0.04 / 6) ** 0.5),
    )
    # structured 0.5, 0.7, 0.5: mean 17/30, deviations -1/15, 2/15, -1/15 → std √((6/225)/3).
    assert (result.structured_mean, result.structured_std) == pytest.approx((17 / 30, (2 / 225) ** 0.5))
    # natural 0.6, 0.6, 0.7: mean 19/30, deviations -1/30, -1/30, 2/30 → std √((6/900)/3).
    assert (result.natural_mean, result.natural_std) == pytest.approx((19 / 30, (2 / 900) ** 0.5))
    assert result.extra_templates == [7, 8, 9]
    assert (result.extra_mean, result.extra_std) == pytest.approx((0.9, (0.02 / 3) ** 0.5))
    per_type = result.per_type[0]
    assert per_type.mean == pytest.approx(0.6) and set(per_type.per_template) == set(range(1, 10))


def test_only_templates_7_to_9_leave_the_headline_empty() -> None:
    result = implicature_breakdown(_answers_with_accuracies({7: 0.5, 8: 0.7}, n_items=10))
    assert (result.templates, result.mean, result.std) == ([], None, None)
    assert (result.extra_mean, result.extra_std) == pytest.approx((0.6, 0.1))


def test_the_contrastive_variant_is_neither_structured_nor_natural() -> None:
    # Table 8: contrastive mean ± std over its two templates (1 and 2 of two_prompt_templates.txt).
    result = implicature_breakdown(_answers_with_accuracies({1: 0.6, 2: 0.5}, n_items=10), variant="contrastive")
    assert (result.variant, result.templates) == ("contrastive", [1, 2])
    assert (result.mean, result.std) == pytest.approx((0.55, 0.05))
    assert (result.structured_mean, result.structured_std, result.natural_mean, result.natural_std) == (
        None,
        None,
        None,
        None,
    )
    assert (result.extra_templates, result.extra_mean) == ([], None)
    with pytest.raises(ValueError, match="variant"):
        implicature_breakdown([], variant="structured")


def test_instruction_induction_per_task() -> None:
    scores = [
        InstructionScore("antonyms", "h1", 0.8, 0.9, True),
        InstructionScore("antonyms", "h2", 0.6, 0.7, False),
        InstructionScore("antonyms", "h3", None, 0.8, None),
        {"task": "sum", "instruction": "m1", "execution_accuracy": 1.0},
    ]
    antonyms, total = instruction_induction_by_task(scores)
    assert (antonyms.task, antonyms.n_instructions) == ("antonyms", 3)
    assert (antonyms.execution_accuracy, antonyms.reference_similarity) == pytest.approx((0.7, 0.8))
    assert (antonyms.n_reviewed, antonyms.share_verified) == (2, 0.5)
    assert (total.reference_similarity, total.share_verified) == (None, None)
