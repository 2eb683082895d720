from __future__ import annotations

import dataclasses
import json
import math
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from parity.benchmarks import get
from parity.benchmarks.ambibench import (
    CONSTRUCTIONS,
    FEATURE_VALUES,
    FEATURES,
    UNINFORMATIVE,
    AmbiBench,
    candidates,
    disambiguation_prompt,
    episode_text,
    finetune_eval_episodes,
    finetune_records,
    informative_instruction,
    labelled_text,
    verbalisation_prompt,
    write_jsonl,
)
from parity.benchmarks.ambibench import wordlists as words
from parity.benchmarks.ambibench.prompts import query_block
from parity.benchmarks.ambibench.wordlists import CONSTRUCTION_OF

SEED = 20240611
BENCH = AmbiBench()


@pytest.fixture(scope="module")
def bundle():
    return BENCH.load(Path("."), {"seed": SEED})


@pytest.fixture(scope="module")
def episodes(bundle):
    grouped = defaultdict(list)
    for item in bundle.items:
        if item.split == "episode":
            grouped[item.prompt["episode"]].append(item)
    return {key: sorted(items, key=lambda item: item.prompt["position"]) for key, items in grouped.items()}


@pytest.fixture(scope="module")
def instruction_items(bundle):
    return [item for item in bundle.items if item.split == "instruction"]


def _serialised(bundle) -> str:
    return json.dumps(
        [dataclasses.asdict(item) for item in bundle.items] + [dataclasses.asdict(asset) for asset in bundle.assets],
        sort_keys=True,
    )


_VERBS = "|".join(sorted(words.NEGATIONS + words.AFFIRMATIONS, key=len, reverse=True))


def features_of(sentence: str, construction: str) -> dict[str, str]:
    """Read the feature values back from a sentence with the paper's word lists. The construction
    is needed: "The student is in the museum." is a sentence of two constructions."""
    if construction == "religious_pronoun":
        match = re.fullmatch(r"(He|She) is in the (.+) with the (.+)\.", sentence)
        assert match, sentence
        pronoun, place, leader = match.groups()
        assert place in words.INDOOR and leader in words.RELIGIOUS_LEADERS + words.SECULAR_LEADERS
        return {
            "religious": "religious" if leader in words.RELIGIOUS_LEADERS else "secular",
            "pronoun": "male" if pronoun == "He" else "female",
        }
    if construction == "proper_noun_negation":
        match = re.fullmatch(rf"(.+?) ({_VERBS}) in the (.+)\.", sentence)
        assert match, sentence
        noun, verb, place = match.groups()
        assert place in words.INDOOR and (noun in words.PROPER_NOUNS or noun[4:] in words.HUMANS), sentence
        assert noun in words.PROPER_NOUNS or noun.startswith("The ")
        return {
            "proper_noun": "proper" if noun in words.PROPER_NOUNS else "common",
            "negation": "negated" if verb in words.NEGATIONS else "affirmed",
        }
    match = re.fullmatch(r"The (.+) is in the (.+)\.", sentence)
    assert match and construction == "subject_location", sentence
    subject, place = match.groups()
    assert subject in words.HUMANS + words.ANIMALS and place in words.INDOOR + words.OUTDOOR
    return {
        "subject": "human" if subject in words.HUMANS else "animal",
        "location": "indoor" if place in words.INDOOR else "outdoor",
    }


def test_it_is_registered_and_reads_no_files() -> None:
    assert isinstance(get("ambibench"), AmbiBench)
    assert BENCH.source_files() == []
    assert BENCH.item_template == "participation/partials/_item_ambibench_episode.html"


def test_the_same_seed_gives_byte_identical_items_and_another_seed_does_not(bundle) -> None:
    again = BENCH.load(Path("/nonexistent"), {"seed": SEED})
    assert _serialised(again) == _serialised(bundle)
    other = BENCH.load(Path("."), {"seed": SEED + 1})
    assert _serialised(other) != _serialised(bundle)


def test_an_episode_does_not_depend_on_how_many_are_generated(episodes) -> None:
    few = BENCH.load(Path("."), {"seed": SEED, "episodes": 12, "instruction_prompts": 12})
    for item in few.items:
        if item.split == "episode":
            match = episodes[item.prompt["episode"]][item.prompt["position"] - 1]
            assert (item.prompt["sentence"], item.gold) == (match.prompt["sentence"], match.gold)


def test_720_episodes_of_20_positions_balanced_over_features_and_formats(bundle, episodes) -> None:
    assert bundle.summary() == {"episode": 14400, "instruction": 1440}
    assert len(episodes) == 720
    combos = Counter()
    for key, items in episodes.items():
        assert re.fullmatch(r"ep-\d{4}", key)
        assert [item.key for item in items] == [f"{key}-{position:02d}" for position in range(1, 21)]
        assert [item.prompt["position"] for item in items] == list(range(1, 21))
        assert {item.prompt["instruction"] for item in items} == {UNINFORMATIVE}
        metas = {
            json.dumps(
                {k: v for k, v in item.meta.items() if k not in ("features", "position", "repeat_of")}, sort_keys=True
            )
            for item in items
        }
        assert len(metas) == 1, "salient feature, mapping, format, construction are fixed per episode"
        combos[(items[0].meta["salient_feature"], items[0].meta["format"])] += 1
    assert combos == {(feature, fmt): 60 for feature in FEATURES for fmt in ("arrow", "qa")}


def test_labels_follow_the_salient_feature_and_the_episode_mapping(episodes) -> None:
    for items in episodes.values():
        for item in items:
            meta = item.meta
            assert meta["features"] == features_of(item.prompt["sentence"], meta["construction"])
            assert set(meta["features"]) == set(CONSTRUCTIONS[meta["construction"]])
            assert meta["mapping"] in FEATURE_VALUES[meta["salient_feature"]]
            expected = "X" if meta["features"][meta["salient_feature"]] == meta["mapping"] else "Y"
            assert item.gold == expected


def test_every_feature_value_is_drawn_with_probability_one_half_independently_of_the_other(episodes) -> None:
    by_construction: dict[str, list[dict[str, str]]] = defaultdict(list)
    words_seen: dict[str, Counter] = defaultdict(Counter)
    mappings: dict[str, Counter] = defaultdict(Counter)
    for items in episodes.values():
        mappings[items[0].meta["salient_feature"]][items[0].meta["mapping"]] += 1
        for item in items:
            by_construction[item.meta["construction"]].append(item.meta["features"])
            if item.meta["construction"] == "subject_location":
                words_seen["subject"][item.prompt["sentence"].split(" is in ")[0]] += 1
    for construction, rows in by_construction.items():
        first, second = CONSTRUCTIONS[construction]
        n = len(rows)
        assert n == 4800
        table = Counter((row[first], row[second]) for row in rows)
        for feature in (first, second):
            count = sum(1 for row in rows if row[feature] == FEATURE_VALUES[feature][0])
            # Binomial(n, 1/2): 4 standard deviations is far outside chance for a fixed seed.
            assert abs(count - n / 2) < 4 * math.sqrt(n) / 2, (feature, count)
        # Chi-square test of independence on the 2x2 table; 10.83 is the 0.1% critical value (1 df).
        rows_a = {value: sum(c for (a, _), c in table.items() if a == value) for value in FEATURE_VALUES[first]}
        cols_b = {value: sum(c for (_, b), c in table.items() if b == value) for value in FEATURE_VALUES[second]}
        chi2 = sum(
            (table[(a, b)] - rows_a[a] * cols_b[b] / n) ** 2 / (rows_a[a] * cols_b[b] / n)
            for a in FEATURE_VALUES[first]
            for b in FEATURE_VALUES[second]
        )
        assert chi2 < 10.83, (construction, table)
    # Words are uniform within their list: chi-square with 19 df (10 humans + 10 animals), 0.1% value 43.82.
    subjects = words_seen["subject"]
    assert set(subjects) == {f"The {word}" for word in words.HUMANS + words.ANIMALS}
    expected = sum(subjects.values()) / 20
    assert sum((count - expected) ** 2 / expected for count in subjects.values()) < 43.82
    for feature, counts in mappings.items():
        assert abs(counts[FEATURE_VALUES[feature][0]] - 60) < 4 * math.sqrt(120) / 2


def test_instruction_prompts_group_the_examples_and_the_query_breaks_the_grouping(instruction_items) -> None:
    assert len(instruction_items) == 1440
    by_level = {
        level: [item for item in instruction_items if item.meta["instruction_level"] == level]
        for level in ("inform", "uninform")
    }
    assert {level: len(items) for level, items in by_level.items()} == {"inform": 720, "uninform": 720}
    for inform, uninform in zip(by_level["inform"], by_level["uninform"]):
        assert inform.key[-4:] == uninform.key[-4:]
        assert inform.key.startswith("dis-inform-") and uninform.key.startswith("dis-uninform-")
        assert {k: v for k, v in inform.prompt.items() if k != "instruction"} == {
            k: v for k, v in uninform.prompt.items() if k != "instruction"
        }
        assert uninform.prompt["instruction"] == UNINFORMATIVE
        meta = inform.meta
        assert inform.prompt["instruction"] == informative_instruction(meta["salient_feature"], meta["mapping"])
        first, second = CONSTRUCTIONS[meta["construction"]]
        examples = [features_of(sentence, meta["construction"]) for sentence, _ in inform.prompt["examples"]]
        assert examples == meta["grouping"] == meta["examples_features"]
        # the two examples take different values of both features: they agree on one grouping
        assert examples[0][first] != examples[1][first] and examples[0][second] != examples[1][second]
        query = features_of(inform.prompt["query"], meta["construction"])
        assert query == meta["features"]
        assert query not in examples, "the query breaks the grouping"
        for features, (_, label) in zip(examples, inform.prompt["examples"]):
            assert label == ("X" if features[meta["salient_feature"]] == meta["mapping"] else "Y")
        assert {label for _, label in inform.prompt["examples"]} == {"X", "Y"}
        assert inform.gold == ("X" if query[meta["salient_feature"]] == meta["mapping"] else "Y")
        # the query shares its salient value with exactly one example, whose label it takes
        same = [
            label
            for features, (_, label) in zip(examples, inform.prompt["examples"])
            if features[meta["salient_feature"]] == query[meta["salient_feature"]]
        ]
        assert same == [inform.gold]
    combos = Counter((item.meta["salient_feature"], item.meta["format"]) for item in by_level["inform"])
    assert combos == {(feature, fmt): 60 for feature in FEATURES for fmt in ("arrow", "qa")}


def test_the_one_pass_episode_text_puts_each_label_at_its_offset(episodes) -> None:
    for key in ("ep-0001", "ep-0002", "ep-0003", "ep-0004", "ep-0005", "ep-0006", "ep-0007"):
        items = episodes[key]
        fmt = items[0].prompt["format"]
        shown = episode_text(list(reversed(items)))  # any order in, position order out
        assert len(shown.offsets) == 20
        assert shown.candidates == ({"X": "X", "Y": "Y"} if fmt == "arrow" else {"X": " X", "Y": " Y"})
        for index, (offset, item) in enumerate(zip(shown.offsets, items)):
            continuation = shown.candidates[item.gold]
            assert shown.text[offset : offset + len(continuation)] == continuation
            assert shown.text[offset:].lstrip(" ")[0] == item.gold
            # the context of label i is exactly the prompt with i-1 labelled examples and the i-th query
            previous = [(earlier.prompt["sentence"], earlier.gold) for earlier in items[:index]]
            expected = (
                labelled_text(UNINFORMATIVE, previous, fmt).text + "\n" + query_block(item.prompt["sentence"], fmt)
            )
            assert shown.context(index) == expected
        assert shown.text.endswith(shown.candidates[items[-1].gold])


def test_the_episode_text_has_the_paper_formats() -> None:
    arrow = labelled_text("I.", [("The worm is in the meadow.", "X"), ("The duck is in the canyon.", "Y")], "arrow")
    assert arrow.text == "I.\nThe worm is in the meadow.\n>X\nThe duck is in the canyon.\n>Y"
    assert arrow.offsets == (len("I.\nThe worm is in the meadow.\n>"), len(arrow.text) - 1)
    qa = labelled_text("I.", [("The worm is in the meadow.", "X")], "qa")
    assert qa.text == "I.\nQ: The worm is in the meadow.\nA: X"
    assert qa.text[qa.offsets[0] :] == " X"


def test_an_episode_with_a_gap_or_two_episodes_is_refused(episodes) -> None:
    with pytest.raises(ValueError, match="positions"):
        episode_text(episodes["ep-0001"][:5] + episodes["ep-0001"][6:])
    with pytest.raises(ValueError, match="several episodes"):
        episode_text(episodes["ep-0001"] + episodes["ep-0002"])


def test_the_instruction_prompt_for_models_ends_where_the_query_label_is_due(instruction_items) -> None:
    for item in instruction_items[:50] + instruction_items[-50:]:
        fmt = item.prompt["format"]
        choice = disambiguation_prompt(item.prompt)
        assert choice.continuations == candidates(fmt)
        full = labelled_text(
            item.prompt["instruction"], [*map(tuple, item.prompt["examples"]), (item.prompt["query"], item.gold)], fmt
        )
        assert choice.context + choice.continuations[item.gold] == full.text
        assert choice.context == full.context(2)
        assert BENCH.choice_prompt(item.prompt) == choice


def test_verbalisation_prompt_appends_the_question_after_the_twenty_examples(episodes) -> None:
    items = episodes["ep-0010"]
    text = verbalisation_prompt(items)
    assert text == episode_text(items).text + "\nWhat is your best guess for the [category withheld] above?"
    assert verbalisation_prompt(items, "plain").endswith("\nWhat is the [category withheld]?")


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("X", "X"),
        ("x", "X"),
        ("  y\n", "Y"),
        ("Y", "Y"),
        ("X.", "X"),
        ("'x'", "X"),
        ("“Y”", "Y"),
        (">X", "X"),
        ("y!", "Y"),
        ("Z", None),
        ("", None),
        ("  ", None),
        ("XY", None),
        ("X Y", None),
        ("maybe", None),
        ("x1", None),
        ("the answer is X", None),
    ],
)
def test_parse_answer_takes_x_or_y_in_either_case_with_spaces_and_punctuation_around(
    raw: str, parsed: str | None
) -> None:
    assert BENCH.parse_answer(raw) == parsed
    scored = BENCH.score(raw, "X")
    assert scored.valid is (parsed is not None)
    assert scored.correct is (parsed == "X")
    refusal = BENCH.refusal(raw, scored, BENCH.design())
    assert refusal == "" if parsed else refusal.startswith("Please type X or Y")


@pytest.mark.parametrize("raw", ["maybe", "xy", "z", "X Y", "no idea"])
def test_anything_else_is_asked_again_naming_the_two_answers(raw: str) -> None:
    message = BENCH.refusal(raw, BENCH.score(raw, "X"), BENCH.design())
    assert message == (
        f"Please type X or Y (“{raw}” is neither), then press Enter. Your answer has not been saved yet."
    )


def test_an_empty_box_is_asked_for_x_or_y() -> None:
    for raw in ("", "   "):
        assert BENCH.refusal(raw, BENCH.score(raw, "X"), BENCH.design()) == "Please type X or Y, then press Enter."


def test_a_long_refused_answer_is_quoted_short() -> None:
    raw = "I think this one is about animals, so " * 5
    message = BENCH.refusal(raw, BENCH.score(raw, "X"), BENCH.design())
    assert f"(“{raw.strip()[:40]}” is neither)" in message and len(message) < 140


def test_present_shows_the_sentence_without_its_label(episodes, instruction_items) -> None:
    design = BENCH.design()
    item = episodes["ep-0003"][4]
    shown = BENCH.present(item.prompt, design)
    assert shown["sentence"] == item.prompt["sentence"] and shown["position"] == 5
    assert shown["instruction"] == UNINFORMATIVE
    assert not {"gold", "label", "mapping", "salient_feature", "features"} & set(shown)
    dis = BENCH.present(instruction_items[0].prompt, design)
    assert dis["sentence"] == instruction_items[0].prompt["query"]
    assert [example["label"] for example in dis["examples"]] == [
        label for _, label in instruction_items[0].prompt["examples"]
    ]
    assert "gold" not in dis


def test_history_shows_earlier_sentences_of_the_episode_with_their_correct_labels(episodes) -> None:
    items = episodes["ep-0004"]
    answered = [
        {"prompt": item.prompt, "gold": item.gold, "raw_answer": "q", "answer": "", "correct": False}
        for item in reversed(items[:6])
    ]
    answered.append(
        {"prompt": episodes["ep-0005"][0].prompt, "gold": "X", "raw_answer": "X", "answer": "X", "correct": True}
    )
    history = BENCH.history(answered, items[6].prompt)
    assert [entry["position"] for entry in history] == [1, 2, 3, 4, 5, 6]
    assert [(entry["sentence"], entry["label"]) for entry in history] == [
        (i.prompt["sentence"], i.gold) for i in items[:6]
    ]
    assert BENCH.history(answered, items[2].prompt)[-1]["position"] == 2
    assert BENCH.shows_history


def test_default_units_are_96_arrow_episodes_16_per_salient_feature(bundle, episodes) -> None:
    design = BENCH.design()
    assert design == {
        "split": "episode",
        "per_feature": 16,
        "per_unit": 1,
        "attention_checks": 0,
        "exclude_at": 0,
        "format": "arrow",
    }
    units = BENCH.build_units(bundle.items, design)
    assert len(units) == 96
    by_key = {item.key: item for item in bundle.items}
    categories = [BENCH.unit_category([by_key[key] for key in unit]) for unit in units]
    assert Counter(categories) == {feature: 16 for feature in FEATURES}
    assert categories[:6] == list(FEATURES), "interleaved, so units handed out in order stay balanced"
    seen = set()
    for unit in units:
        episode = unit[0][:7]
        assert unit == [item.key for item in episodes[episode]]
        assert by_key[unit[0]].meta["format"] == "arrow"
        seen.add(episode)
    assert len(seen) == 96
    assert BENCH.build_units(bundle.items, design) == units


def test_units_can_mix_formats_or_come_from_the_instruction_split(bundle) -> None:
    by_key = {item.key: item for item in bundle.items}
    both = BENCH.build_units(bundle.items, BENCH.design({"format": "both", "per_feature": 4}))
    assert Counter(by_key[unit[0]].meta["format"] for unit in both) == {"arrow": 12, "qa": 12}
    single = BENCH.build_units(
        bundle.items, BENCH.design({"split": "instruction", "instruction": "inform", "format": "qa", "per_feature": 3})
    )
    assert len(single) == 18 and all(len(unit) == 1 and unit[0].startswith("dis-inform-") for unit in single)
    with pytest.raises(ValueError, match="only 60"):
        BENCH.build_units(bundle.items, BENCH.design({"per_feature": 61}))
    with pytest.raises(ValueError, match="format"):
        BENCH.build_units(bundle.items, BENCH.design({"format": "json"}))


def test_unit_category_refuses_a_unit_that_mixes_features(episodes) -> None:
    mixed = [
        *episodes["ep-0001"],
        *[
            items
            for items in episodes.values()
            if items[0].meta["salient_feature"] != episodes["ep-0001"][0].meta["salient_feature"]
        ][0],
    ]
    with pytest.raises(ValueError, match="mixes"):
        BENCH.unit_category(mixed)


def test_the_default_page_texts_carry_the_three_orienting_instructions() -> None:
    assert "Continue the pattern in the following screens" in BENCH.default_instructions
    assert "(not necessarily your previous answer)" in BENCH.default_instructions
    assert "[intentionally withheld]" in BENCH.default_instructions
    assert BENCH.default_consent


def test_finetuning_data_holds_out_one_construction_and_has_68_prompts_per_task(tmp_path) -> None:
    records = finetune_records(SEED, "proper_noun_negation")
    assert len(records) == 272
    per_task = Counter(record.meta["salient_feature"] for record in records)
    assert per_task == {"subject": 68, "location": 68, "religious": 68, "pronoun": 68}
    assert Counter((r.meta["salient_feature"], r.meta["length"]) for r in records) == {
        (feature, length): 4 for feature in per_task for length in range(4, 21)
    }
    for record in records:
        fmt = record.meta["format"]
        blocks = re.findall(r"^(?:Q: )?(.+\.)\n(?:>|A: ?)", record.prompt + record.completion, flags=re.M)
        assert len(blocks) == record.meta["length"]
        assert record.completion in candidates(fmt).values()
        assert record.prompt.startswith(UNINFORMATIVE + "\n")
        assert record.prompt.endswith(">" if fmt == "arrow" else "A:")
        labels = re.findall(r"^(?:>|A: )([XY])$", record.prompt, flags=re.M) + [record.completion.strip()]
        construction = CONSTRUCTION_OF[record.meta["salient_feature"]]
        for sentence, label in zip(blocks, labels):
            features = features_of(sentence, construction)
            salient = record.meta["salient_feature"]
            assert label == ("X" if features[salient] == record.meta["mapping"] else "Y")
    path = tmp_path / "train.jsonl"
    assert write_jsonl(path, records) == 272
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [record.as_json() for record in records]
    assert finetune_records(SEED, "proper_noun_negation") == records


def test_control_finetuning_prompts_vary_only_one_feature() -> None:
    records = finetune_records(SEED, "subject_location", "control")
    assert len(records) == 272
    for record in records:
        sentences = re.findall(r"^(?:Q: )?(.+\.)\n(?:>|A:)", record.prompt, flags=re.M)
        assert len(sentences) == record.meta["length"]
        construction = CONSTRUCTION_OF[record.meta["salient_feature"]]
        values = [features_of(sentence, construction) for sentence in sentences]
        constant = record.meta["constant"]
        assert len(constant) == 1
        ((feature, value),) = constant.items()
        assert {row[feature] for row in values} == {value}
    ambiguous = finetune_records(SEED, "subject_location")
    assert all(record.meta["constant"] == {} for record in ambiguous)


def test_finetuning_evaluation_episodes_use_only_the_held_out_tasks() -> None:
    held_out = finetune_eval_episodes(SEED, "religious_pronoun")
    assert len(held_out) == 240
    assert Counter((e.salient_feature, e.format) for e in held_out) == {
        (feature, fmt): 60 for feature in ("religious", "pronoun") for fmt in ("arrow", "qa")
    }
    with pytest.raises(ValueError, match="unknown construction"):
        finetune_records(SEED, "colour_shape")
