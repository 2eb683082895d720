from __future__ import annotations

import pytest

from studies.stats import (
    InstructionScore,
    TemplateAnswer,
    implicature_breakdown,
    instruction_induction_by_task,
)

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
    assert (per_type["Generalised"].mean, per_type["Generalised"].std) == pytest.approx(
        (2 / 3, (2 / 9) ** 0.5)
    )
    assert (per_type["Other"].mean, per_type["Other"].std, per_type["Other"].n_items) == (
        0.5,
        0.5,
        1,
    )


def test_a_missing_template_group_is_none() -> None:
    result = implicature_breakdown([{"item": "i1", "template": 2, "correct": True}])
    assert (result.structured_mean, result.natural_mean) == (None, 1.0)


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
