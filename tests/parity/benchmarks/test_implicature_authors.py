"""Implicature rules the paper leaves open and the authors' code (LauraRuis/do-pigs-fly, commit
45eaae0) fixes, pinned against their outputs: the type of each test item, the k dev examples
each test item is shown with, where the contrastive variant puts the coherent text, and ties.

The expected draws and prompt hashes below come from the authors' own code run on the published
files: `src/probe_llm.py`'s `dataloader` with seed 0 (their config's default), its dataset from
`ParticularisedImplicatureDataset.read_data_csv` and its prompts from `ExamplePrompt`
(`prompt_templates.txt` for ranking, `two_prompt_templates.txt` with `task=contrastive`).
"""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from parity.benchmarks import get
from parity.benchmarks.base import ItemData
from parity.benchmarks.implicature import model as implicature_model
from parity.benchmarks.implicature.parsing import item_type_key, type_label_key

from ._data import dataset


@pytest.fixture(scope="module")
def bundle():
    return get("implicature").load(dataset("implicature"))


@pytest.fixture(scope="module")
def test_items(bundle) -> list[ItemData]:
    return sorted((item for item in bundle.items if item.split == "test"), key=lambda item: item.meta["row"])


@pytest.fixture(scope="module")
def dev_items(bundle) -> list[ItemData]:
    return sorted((item for item in bundle.items if item.split == "dev"), key=lambda item: item.meta["row"])


@pytest.fixture(scope="module")
def assets(bundle):
    return {asset.key: asset.data for asset in bundle.assets}


def _setting(**overrides):
    return get("implicature").model_setting(overrides)


# -- types ---------------------------------------------------------------------------------------


def test_the_type_labels_give_the_papers_counts(test_items):
    # Ruis et al., the per-type results (Figure 3's counts); `type_label_analysis` in the authors'
    # src/error_analysis.py gives the same on these files.
    assert Counter(item.meta["type"] for item in test_items) == {
        "Other": 387,
        "Particularised": 88,
        "Generalised": 46,
        "Idiom": 44,
        "World knowledge": 23,
        "Rhetorical question": 11,
        "Hyperbole": 1,
    }


def test_a_type_label_row_is_keyed_as_the_authors_read_it():
    # universal newlines: "\r\n" and a lone "\r" become "\n"; nothing is stripped
    assert type_label_key("They were fine?\r\n") == "They were fine?\n"
    assert type_label_key("One\rtwo") == "One\ntwo"
    assert type_label_key(" Are you tired?") == " Are you tired?"
    # the test file's text: line breaks stripped from the ends, then every "\r" dropped
    assert item_type_key("They were fine?\r\n") == "They were fine?"
    assert item_type_key("Line one\r\nline two") == "Line one\nline two"
    assert item_type_key(" Are you tired? ") == " Are you tired? "


def _with_type_labels(source: Path, target: Path, rows: list[tuple[str, str, str]]) -> Path:
    shutil.copytree(source, target)
    lines = ["Utterance,Response,Implicature,Type,Factual knowledge"]
    lines += [f'"{utterance}","{response}",Yes.,{kind},No' for utterance, response, kind in rows]
    (target / "type_labels.csv").write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
    return target


def test_a_type_is_matched_on_the_utterance_alone_and_a_later_row_wins(tmp_path):
    # Test rows 1 and 2: "Is Marci grumpy?" / "he's as gentle as a lamb", "Did you go there?" / ...
    source = _with_type_labels(
        dataset("implicature"),
        tmp_path / "implicature",
        [
            ("Is Marci grumpy?", "a response no test row has", "Idiom"),
            ("Is Marci grumpy?", "another one", "Hyperbole"),  # same utterance, later row: it wins
            ("Did you go there?\r\n", "I didn't need to --", "Idiom"),  # a line break kept: no match
            ("Does she always cry like that? ", "It's only because she's teething.", "Idiom"),  # a space: no match
        ],
    )
    items = sorted(
        (item for item in get("implicature").load(source).items if item.split == "test"),
        key=lambda item: item.meta["row"],
    )
    assert [item.meta["type"] for item in items[:3]] == ["Hyperbole", "Other", "Other"]
    assert Counter(item.meta["type"] for item in items) == {"Other": 599, "Hyperbole": 1}


# -- the k dev examples ------------------------------------------------------------------------

# Test item 0's examples, as dev-file indices (0-based, the authors' `dev_data` list), and item 1's.
AUTHORS_EXAMPLES = {(0, 1): [100], (0, 5): [73, 59, 31, 36, 96], (1, 5): [92, 58, 74, 105, 71], (1, 1): [75]}


@pytest.mark.parametrize(("row", "k"), sorted(AUTHORS_EXAMPLES))
def test_each_test_item_gets_the_dev_examples_the_authors_drew(test_items, dev_items, row, k):
    shots = implicature_model.select_shots(test_items[row], dev_items, k)
    assert [dev_items.index(shot) for shot in shots] == AUTHORS_EXAMPLES[row, k]
    # whatever else a run scores, and in whatever order the pool comes
    assert implicature_model.select_shots(test_items[row], dev_items[::-1], k) == shots


def test_test_item_0_at_k_1_is_shown_dev_row_100_as_in_the_authors_prompt(test_items, dev_items, assets):
    [request] = get("implicature").model_requests([test_items[0]], assets, _setting(k="1"), pool=dev_items)
    assert dev_items[100].prompt == {
        "utterance": "you weren't supposed to follow me, were you?",
        "response": "Sorry. My fault.",
    }
    # the authors' coherent text for test item 0, template 2, k = 1
    authors = (
        "The following are examples of the task:\n\n"
        'Esther asked "you weren\'t supposed to follow me, were you?" and Juan responded "Sorry. My fault.", '
        "which means no\n\n"
        'Finish the following text:\n\nEsther asked "Is Marci grumpy?" and Juan responded "he\'s as gentle as a lamb", '
        "which means no"
    )
    assert request.context + " " + test_items[0].gold == authors


def test_another_shots_seed_draws_other_examples_the_same_way(test_items, dev_items):
    authors = [implicature_model.select_shots(item, dev_items, 5) for item in test_items[:20]]
    other = [implicature_model.select_shots(item, dev_items, 5, seed=1) for item in test_items[:20]]
    assert other != authors and all(len({shot.key for shot in shots}) == 5 for shots in other)


# -- the contrastive A/B order -----------------------------------------------------------------

# (test row, template, k) -> the answers in the authors' coherent prompt, examples first, then the
# item's: the option holding the coherent text.
AUTHORS_OPTIONS = {
    (0, 1, 0): "B",
    (0, 2, 0): "B",
    (1, 1, 0): "A",
    (1, 2, 0): "B",
    (2, 1, 0): "B",
    (2, 2, 0): "B",
    (0, 1, 1): "BB",
    (0, 2, 1): "BA",
    (2, 1, 1): "AB",
    (2, 2, 1): "BA",
    (0, 1, 5): "BABBBB",
    (0, 2, 5): "BBAABB",
    (1, 1, 5): "ABABAA",
    (2, 2, 5): "ABABBA",
}


@pytest.mark.parametrize(("row", "template", "k"), sorted(AUTHORS_OPTIONS))
def test_the_coherent_text_stands_where_the_authors_put_it(test_items, dev_items, assets, row, template, k):
    setting = _setting(variant="contrastive", template=str(template), k=str(k))
    [request] = get("implicature").model_requests([test_items[row]], assets, setting, pool=dev_items)
    at_item, at_shots = implicature_model.contrastive_options(test_items[row], setting)
    answers = "".join("AB"[at] for at in (*at_shots, at_item))
    assert answers == AUTHORS_OPTIONS[row, template, k]
    # the examples are answered in the prompt, the item is not
    assert [part[0] for part in request.context.split("Answer: ")[1:]] == list(answers[:-1])


def test_the_contrastive_prompt_is_the_authors_text(test_items, dev_items, assets):
    setting = _setting(variant="contrastive", template="1", k="1")
    [request] = get("implicature").model_requests([test_items[0]], assets, setting, pool=dev_items)
    authors = (
        "The following are examples of the task:\n\n"
        "A: question: you weren't supposed to follow me, were you?\nresponse: Sorry. My fault.\nmeaning: yes\n"
        "B: question: you weren't supposed to follow me, were you?\nresponse: Sorry. My fault.\nmeaning: no\n"
        "Question: Which of the above texts is coherent, A or B?\nAnswer: B\n\n"
        "Consider the following two texts:\n\n"
        "A: question: Is Marci grumpy?\nresponse: he's as gentle as a lamb\nmeaning: yes\n"
        "B: question: Is Marci grumpy?\nresponse: he's as gentle as a lamb\nmeaning: no\n"
        "Question: Which of the above texts is coherent, A or B?\nAnswer: B"
    )
    assert request.context + " B" == authors


# sha256 of the authors' coherent texts for all 600 test items, template after template, joined by
# NUL, exactly as their code builds them: the "\r" their CSV reader keeps in 26 fields of 25 test
# items included (with those taken out the hashes were 0b387505…, ec82199d… and 1a30cf84…)
AUTHORS_PROMPTS = {
    ("ranking", 0): "70d4509301a2322ad61db421ca588f43be4e2392059374824dfed78ff792cb7c",
    ("ranking", 5): "5abebb529ed7eff63a9c4eea17580190fefadfef7a4192cfc11dd3b44068f66f",
    ("contrastive", 1): "de39b12c98f3d0fd66c2a04f8db045ab3cd8f862bb0fbcfc425f0b3f93cd0930",
}


def test_test_item_126_keeps_the_authors_windows_line_breaks_in_its_prompt(test_items, assets):
    """Test item 126 (0-based; row 128 of the file) as `_process_text` leaves it: the "\r\n" inside
    kept, the trailing "\n" stripped and its "\r" kept; template 2 at k = 0 as their code prints it."""
    item = test_items[126]
    assert item.prompt == {
        "utterance": "You're going to see your little\r\n           brother?\r",
        "response": " First thing.",
    }
    definition = get("implicature")
    [request] = definition.model_requests([item], assets, _setting(template="2", k="0"), pool=[])
    assert request.context + " yes" == (
        'Finish the following text:\n\nEsther asked "You\'re going to see your little\r\n           brother?\r" '
        'and Juan responded " First thing.", which means yes'
    )
    # a participant reads the line break inside, and none before the closing quote
    assert definition.present(item.prompt, definition.design())["text"].startswith(
        'Esther asked "You\'re going to see your little\n           brother?" and'
    )


@pytest.mark.parametrize(("variant", "k"), sorted(AUTHORS_PROMPTS))
def test_every_prompt_is_the_authors_text_byte_for_byte(test_items, dev_items, assets, variant, k):
    definition = get("implicature")
    texts = []
    for template in range(1, 7) if variant == "ranking" else (1, 2):
        setting = _setting(variant=variant, template=str(template), k=str(k))
        for item, request in zip(test_items, definition.model_requests(test_items, assets, setting, pool=dev_items)):
            if variant == "ranking":
                answer = item.gold
            else:
                answer = "AB"[implicature_model.contrastive_options(item, setting)[0]]
            texts.append(request.context + " " + answer)
    assert len(texts) == 600 * (6 if variant == "ranking" else 2)
    assert hashlib.sha256("\x00".join(texts).encode()).hexdigest() == AUTHORS_PROMPTS[variant, k]


def test_a_run_started_with_the_earlier_draw_is_not_finished_with_another(test_items, dev_items, assets):
    earlier = {"variant": "ranking", "template": 2, "k": 5, "seed": 0}
    with pytest.raises(ValueError, match="earlier draw of examples"):
        get("implicature").model_requests(test_items[:2], assets, earlier, pool=dev_items)
    # k = 0 ranking draws nothing: such a run goes on
    assert get("implicature").model_requests(test_items[:2], assets, {**earlier, "k": 0}, pool=dev_items)


# -- ties ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    logprob: float


@dataclass(frozen=True)
class Choice:
    scores: tuple[Score, ...]
    truncated_tokens: int = 0


@pytest.mark.parametrize("gold", ["yes", "no"])
def test_a_tie_between_yes_and_no_is_wrong(test_items, gold):
    item = next(item for item in test_items if item.gold == gold)
    answer = get("implicature").model_answers([item], _setting(), {item.key: Choice((Score(-0.7), Score(-0.7)))})[
        item.key
    ]
    assert (answer.answer, answer.raw_answer, answer.valid, answer.correct) == ("", "tie", False, False)
    assert answer.scores["p_yes"] == pytest.approx(0.5)
    nearly = get("implicature").model_answers([item], _setting(), {item.key: Choice((Score(-0.7), Score(-0.7000001)))})[
        item.key
    ]
    assert (nearly.answer, nearly.correct) == ("yes", gold == "yes")


@pytest.mark.parametrize("row", [0, 1])
def test_a_tie_between_a_and_b_is_wrong_wherever_the_coherent_text_stands(test_items, row):
    setting = _setting(variant="contrastive", template="1")
    item = test_items[row]
    answer = get("implicature").model_answers([item], setting, {item.key: Choice((Score(-1.2), Score(-1.2)))})[item.key]
    assert (answer.answer, answer.raw_answer, answer.valid, answer.correct) == ("", "tie", False, False)
    at = implicature_model.contrastive_options(item, setting)[0]
    decided = get("implicature").model_answers(
        [item], setting, {item.key: Choice((Score(-1.0), Score(-1.2)) if at == 0 else (Score(-1.2), Score(-1.0)))}
    )[item.key]
    assert (decided.answer, decided.valid, decided.correct) == (item.gold, True, True)
