"""Implicature (Ruis et al., "Do large language models understand implicature?").

600 test + 118 dev binary implicatures; the published label parser; the 229 type labels; the six
templates (1, 3, 4 structured; 2, 5, 6 natural), the three "AI assistant" templates 7-9, the
contrastive pair and the k-shot promptsource templates. Humans see template 2 and pick yes/no.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from . import implicature_model
from .base import (
    Asset,
    Benchmark,
    Choice,
    DatasetError,
    ImportBundle,
    ItemData,
    ModelAnswer,
    SourceFile,
    read_csv_rows,
)

_REPO = "https://raw.githubusercontent.com/LauraRuis/do-pigs-fly/45eaae00896d065f173e65476f64a823f464c7c7"
_PROMPTSOURCE = (
    "https://raw.githubusercontent.com/LauraRuis/promptsource/e4e0952da4673833bc89784c7e47b5d2e44cda09"
    "/promptsource/templates/UCL-DARK/ludwig"
)
K_SHOTS = (0, 1, 5, 10, 15, 30)
STRUCTURED = (1, 3, 4)
NATURAL = (2, 5, 6)
TYPES = ("Generalised", "Particularised", "World knowledge", "Idiom", "Rhetorical question", "Hyperbole", "Other")

_SOURCES: list[tuple[str, str, str]] = [
    ("test_conversational_implicatures.csv", f"{_REPO}/data/test_conversational_implicatures.csv",
     "b5a6c284818f012b39880f858924a27e4285672a00456797c55979ac35cc508d"),
    ("dev_conversational_implicatures.csv", f"{_REPO}/data/dev_conversational_implicatures.csv",
     "3851c4ba6ad607245b8f3d67fd225b9348d3f5716a5758f00aad2aa0eca365f3"),
    ("type_labels.csv", f"{_REPO}/data/type_labels.csv",
     "51e362b19470aba670ff091f0f1b5698027be80147d459dbace29f00d3c10dde"),
    ("prompt_templates.txt", f"{_REPO}/data/prompt_templates.txt",
     "b5571db948616fb9332de9c183114fa1827c6ec266e04828b628ceb33bafd1f4"),
    ("two_prompt_templates.txt", f"{_REPO}/data/two_prompt_templates.txt",
     "9eb3811b271f650fa5e6997393aa3aea84a9c75758e6d8fa7e218add751d3c04"),
    ("alignment_prompt_templates.csv", f"{_REPO}/data/alignment_prompt_templates.csv",
     "9d39f5ff44260d350c27806c2949470e695381a2e2759ebb2b60100e2803aeff"),
    ("human_eval_1-150.csv", f"{_REPO}/data/human_eval/human_eval%20-%201-150.csv",
     "90f4b63dac265683efcafb2f780de8adee15ea04738a91a0337a59059a2382ae"),
    ("human_eval_151-300.csv", f"{_REPO}/data/human_eval/human_eval%20-%20151-300.csv",
     "78b3f6e1e4985eedf75d0815b36a5edd0f38a5411c3680da40dc15845f11193c"),
    ("human_eval_301-450.csv", f"{_REPO}/data/human_eval/human_eval%20-%20301-450.csv",
     "e25657fd6441d3a01791991573227900659698359710bda623d13e17944af6a5"),
    ("human_eval_451-600.csv", f"{_REPO}/data/human_eval/human_eval%20-%20451-600.csv",
     "c1139673e0973ab0b5360b6140f6850de4eecc2c3292a50bd59b02490e77a00c"),
] + [
    (f"promptsource_templates/{k}-shot/templates.yaml", f"{_PROMPTSOURCE}/{k}-shot/templates.yaml", sha)
    for k, sha in zip(
        K_SHOTS,
        (
            "047048fc7023ff00061830cc817dfd37e8f0dc6af8254923ee61550dd82e852c",
            "568fbdaef292e36a497f3989dbab56275154239f50ab347bb5d070c739e70d20",
            "8858dbdebcb158b1ed5cbac72b5b80588e8f6a50551f1225207f830f42773e09",
            "b734821e333e00f563a1df60a91a3d4fdf4f629904b12daffe3ac61791708b12",
            "c58ebc723ef99befce93a5a783ddc3be8592e068ce6d009b84ad512a16f6d25e",
            "274c158f2f44912498b5caab1727def6ade7e8e1d80d45e7210d1e09ec934604",
        ),
    )
]

# Written for the platform in Prolific's allowed form: the instruction is inside the question
# itself and the response plainly says yes, so there is no implicature to resolve.
ATTENTION_CHECKS: tuple[tuple[str, str], ...] = (
    ("This is an attention check: for this question, please choose 'yes'. Will you choose yes?", "Yes, I will."),
    ("To show you are reading carefully, please answer 'yes' here. Are you paying attention?", "Yes, I am."),
    ("Please select 'yes' for this question. Is this the question where you select yes?", "Yes, it is."),
    ("For this item the correct answer is 'yes'; please pick it. Can you pick yes?", "Yes, I can."),
    ("Attention check: choose 'yes'. Did you read this instruction?", "Yes, I did."),
)

CONSENT = (
    "You are invited to take part in a research study on how people interpret what others mean. "
    "You will read short exchanges between two people and say whether the answer means yes or no. "
    "Taking part is voluntary; you may stop at any time by returning the study on Prolific. "
    "Your answers are stored under a pseudonym and used only for research; your Prolific ID is kept "
    "only to pay you and is never published."
)
INSTRUCTIONS = (
    "Each screen shows a short exchange: Esther asks Juan a question, and Juan answers without saying "
    "yes or no directly. Decide whether Juan's answer means yes or no, and choose that answer. "
    "There are no trick questions, and you cannot go back to change an answer. "
    "Some screens check that you are reading carefully; they tell you what to answer. "
    "Keyboard: press Y or 1 for yes, N or 2 for no."
)


def parse_label(text: str) -> str | None:
    """The published rule: 'yes' in the first 5 lower-cased chars, else 'no' in the first 4."""
    lowered = text.strip().lower()
    if "yes" in lowered[:5]:
        return "yes"
    if "no" in lowered[:4]:
        return "no"
    return None


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


class _AnyTagLoader(yaml.SafeLoader):
    """promptsource files tag mappings with !Template / !TemplateMetadata: read them as mappings."""


_AnyTagLoader.add_multi_constructor("!", lambda loader, suffix, node: loader.construct_mapping(node, deep=True))


def parse_template_file(path: Path) -> list[dict[str, str]]:
    """`;`-separated, every value in double quotes (which may themselves contain quotes)."""
    if not path.is_file():
        raise DatasetError(path.name, "file not found")
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines:
        raise DatasetError(path.name, "file is empty")
    header = lines[0].split(";")
    templates = []
    for number, line in enumerate(lines[1:], start=2):
        line = line.strip()
        if not (line.startswith('"') and line.endswith('"')):
            raise DatasetError(path.name, "expected every field inside double quotes", row=number)
        fields = line[1:-1].split('";"')
        if len(fields) != len(header):
            raise DatasetError(path.name, f"expected {len(header)} fields, found {len(fields)}", row=number)
        record = {name: value.replace("\\n", "\n") for name, value in zip(header, fields)}
        if record["example_template_text"].count("%s") != 3:
            raise DatasetError(path.name, "example_template_text needs three %s placeholders", row=number)
        templates.append(record)
    return templates


class Implicature(Benchmark):
    name = "implicature"
    title = "Conversational implicature (Ruis et al.)"
    item_template = "annotation/partials/_item_binary.html"
    default_design: Mapping[str, Any] = {
        "split": "test",
        "units": 4,
        "per_unit": 5,
        "unit_size": 150,
        "template": 2,
        "attention_checks": 3,
        "exclude_at": 2,
        "shuffle_items": False,
    }
    default_consent = CONSENT
    default_instructions = INSTRUCTIONS

    def source_files(self) -> list[SourceFile]:
        return [SourceFile(path, url, sha) for path, url, sha in _SOURCES]

    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        types = self._types(source / "type_labels.csv")
        items: list[ItemData] = []
        counts = {"yes": 0, "no": 0}
        for split, filename in (("test", "test_conversational_implicatures.csv"), ("dev", "dev_conversational_implicatures.csv")):
            rows = read_csv_rows(source / filename, ("Context utterance", "Response utterance", "Implicature"))
            if not rows:
                raise DatasetError(filename, "no rows")
            for index, (line, row) in enumerate(rows, start=1):
                label = parse_label(row["Implicature"])
                if label is None or not row["Context utterance"].strip() or not row["Response utterance"].strip():
                    raise DatasetError(filename, f"cannot parse a yes/no label from {row['Implicature']!r}"
                                       if label is None else "empty utterance or response", row=line)
                key_text = normalise(row["Context utterance"]) + "||" + normalise(row["Response utterance"])
                item_type = types.get(key_text, "Other") if split == "test" else "Other"
                counts[label] += split == "test"
                items.append(ItemData(
                    key=f"{split}-{index:04d}",
                    split=split,
                    prompt={"utterance": row["Context utterance"].strip(), "response": row["Response utterance"].strip()},
                    gold=label,
                    meta={"type": item_type, "row": index, "implicature": row["Implicature"].strip()},
                ))
        templates = parse_template_file(source / "prompt_templates.txt")
        if len(templates) != 6:
            raise DatasetError("prompt_templates.txt", f"expected 6 templates, found {len(templates)}")
        extra = parse_template_file(source / "alignment_prompt_templates.csv")
        contrastive = parse_template_file(source / "two_prompt_templates.txt")
        numbered = {str(number): template for number, template in enumerate(templates + extra, start=1)}
        assets = [Asset("templates", numbered), Asset("contrastive_templates", contrastive)]
        kshot_dir = source / "promptsource_templates"
        if kshot_dir.is_dir():
            assets.append(Asset("promptsource", self._promptsource(kshot_dir)))
        return ImportBundle(items=items, assets=assets)

    def _types(self, path: Path) -> dict[str, str]:
        types = {}
        for index, row in read_csv_rows(path, ("Utterance", "Response", "Type")):
            kind = row["Type"].strip()
            if kind not in TYPES:
                raise DatasetError(path.name, f"unknown type {kind!r}", row=index)
            types[normalise(row["Utterance"]) + "||" + normalise(row["Response"])] = kind
        return types

    def _promptsource(self, folder: Path) -> dict[str, dict[str, str]]:
        shots: dict[str, dict[str, str]] = {}
        for k in K_SHOTS:
            path = folder / f"{k}-shot" / "templates.yaml"
            if not path.is_file():
                continue
            try:
                data = yaml.load(path.read_text(encoding="utf-8"), Loader=_AnyTagLoader)
                shots[str(k)] = {str(int(key)): entry["jinja"] for key, entry in data["templates"].items()}
            except (yaml.YAMLError, KeyError, TypeError, ValueError) as exc:
                raise DatasetError(f"promptsource_templates/{k}-shot/templates.yaml", f"unreadable ({exc})") from exc
        return shots

    def attention_checks(self) -> list[ItemData]:
        return [
            ItemData(key=f"attention-{number}", split="attention",
                     prompt={"utterance": utterance, "response": response}, gold="yes",
                     meta={"type": "Attention check"}, is_attention_check=True)
            for number, (utterance, response) in enumerate(ATTENTION_CHECKS, start=1)
        ]

    # -- the human side ------------------------------------------------------------------
    def choices(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> list[Choice]:
        return [Choice("yes", "Yes", ("y", "1")), Choice("no", "No", ("n", "2"))]

    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> dict[str, Any]:
        template = design.get("human_template") or 'Esther asked "%s" and Juan responded "%s", which means %s'
        before, _, _ = template.rpartition("%s")
        text = before.replace("%s", "{}", 2).format(item_prompt["utterance"], item_prompt["response"]).rstrip()
        return {"text": text, "question": "Does the response mean yes or no?"}

    def parse_answer(self, raw: str) -> str | None:
        value = raw.strip().lower()
        return {"yes": "yes", "y": "yes", "1": "yes", "no": "no", "n": "no", "2": "no"}.get(value)

    # -- design --------------------------------------------------------------------------
    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        pool = [item for item in items if item.split == design["split"] and not item.is_attention_check]
        units, size = int(design["units"]), int(design["unit_size"])
        if units * size > len(pool):
            raise ValueError(f"{units} units of {size} items need {units * size} {design['split']} items; "
                             f"only {len(pool)} are imported")
        return [[item.key for item in pool[i * size:(i + 1) * size]] for i in range(units)]

    # -- the model side (implicature_model.py) ----------------------------------------------
    default_model_setting: Mapping[str, Any] = implicature_model.DEFAULT_SETTING

    def check_model_setting(self, setting: Mapping[str, Any]) -> None:
        implicature_model.check_setting(setting)

    def model_settings(self, sweep: bool = False) -> list[dict[str, Any]]:
        return implicature_model.sweep_settings() if sweep else [self.model_setting()]

    def model_setting_label(self, setting: Mapping[str, Any]) -> str:
        return implicature_model.setting_label(setting)

    def model_pool_split(self, setting: Mapping[str, Any]) -> str | None:
        return "dev" if int(setting.get("k", 0)) > 0 else None

    def model_requests(self, items: Sequence[ItemData], assets: Mapping[str, Any], setting: Mapping[str, Any], *,
                       pool: Sequence[ItemData] = (), prior: Mapping[str, Any] | None = None,
                       kind: str = "causal") -> list[Any]:
        return implicature_model.requests(items, assets, setting, pool)

    def model_answers(self, items: Sequence[ItemData], setting: Mapping[str, Any], results: Mapping[str, Any], *,
                      assets: Mapping[str, Any] | None = None, kind: str = "causal") -> dict[str, ModelAnswer]:
        return implicature_model.answers(items, setting, results)
