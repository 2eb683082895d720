"""`perf/generation.py`: our batched generation and lm-eval's `generate_until` give the same greedy
outputs on a tiny random Llama, and the agreement rule accepts only an early stop at a settled
first line."""

from __future__ import annotations

from parity.engine import GenerationRequest
from perf.generation import agree, run_lm_eval, run_ours

REQUESTS = [
    GenerationRequest("a", "Instruction: Write the plural form.\nInput: cat\nOutput:", 6, stop_at_newline=False),
    GenerationRequest("b", "The hiker is in the cave.", 4, stop_at_newline=False),
    GenerationRequest("c", "Esther asked", 5, stop_at_newline=False),
]


def test_ours_and_lm_eval_write_the_same_greedy_outputs_at_every_batch_size(tiny_lm):
    for batch in (1, 3):
        ours = run_ours(tiny_lm, REQUESTS, batch)
        theirs = run_lm_eval(tiny_lm, REQUESTS, batch)
        assert ours.texts == theirs.texts
        assert agree(REQUESTS, ours.texts, theirs.texts) == (3, 0)
        assert ours.generated_tokens > 0 and ours.seconds > 0


def test_an_early_stop_agrees_only_when_the_first_line_is_the_same():
    stopping = GenerationRequest("x", "p", 30, stop_at_newline=True)
    running = GenerationRequest("y", "p", 30, stop_at_newline=False)
    assert agree([stopping], [" dogs\nInput"], [" dogs\nInput: cat"]) == (1, 0)
    assert agree([stopping], [" dog"], [" dogs\nInput: cat"]) == (0, 1)
    assert agree([running], [" dogs\nInput"], [" dogs\nInput: cat"]) == (0, 1)
