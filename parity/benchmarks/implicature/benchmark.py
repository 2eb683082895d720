"""The implicature benchmark definition: the published files, the participant's page, units of
consecutive test rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import yaml

from ...messages import Message, gettext_noop
from ..base import (
    Asset,
    Benchmark,
    Choice,
    DatasetError,
    DemoSetup,
    ImportBundle,
    ItemData,
    PublishedStudy,
    ResultsInput,
    SourceFile,
    read_csv_rows,
)
from ..design import DesignOption, ShortPool
from ..rows import normalise_text as normalise
from ..rows import refuse_duplicate_rows
from ..sections import Sections
from ..timing import AnswerTime
from . import model as model_side
from . import published
from .parsing import NAME, clean_text, item_key, item_type_key, parse_label, shown_text, type_label_key
from .prompts import ATTENTION_CHECKS, CONSENT, INSTRUCTIONS

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
    (
        "test_conversational_implicatures.csv",
        f"{_REPO}/data/test_conversational_implicatures.csv",
        "b5a6c284818f012b39880f858924a27e4285672a00456797c55979ac35cc508d",
    ),
    (
        "dev_conversational_implicatures.csv",
        f"{_REPO}/data/dev_conversational_implicatures.csv",
        "3851c4ba6ad607245b8f3d67fd225b9348d3f5716a5758f00aad2aa0eca365f3",
    ),
    (
        "type_labels.csv",
        f"{_REPO}/data/type_labels.csv",
        "51e362b19470aba670ff091f0f1b5698027be80147d459dbace29f00d3c10dde",
    ),
    (
        "prompt_templates.txt",
        f"{_REPO}/data/prompt_templates.txt",
        "b5571db948616fb9332de9c183114fa1827c6ec266e04828b628ceb33bafd1f4",
    ),
    (
        "two_prompt_templates.txt",
        f"{_REPO}/data/two_prompt_templates.txt",
        "9eb3811b271f650fa5e6997393aa3aea84a9c75758e6d8fa7e218add751d3c04",
    ),
    (
        "alignment_prompt_templates.csv",
        f"{_REPO}/data/alignment_prompt_templates.csv",
        "9d39f5ff44260d350c27806c2949470e695381a2e2759ebb2b60100e2803aeff",
    ),
    (
        "human_eval_1-150.csv",
        f"{_REPO}/data/human_eval/human_eval%20-%201-150.csv",
        "90f4b63dac265683efcafb2f780de8adee15ea04738a91a0337a59059a2382ae",
    ),
    (
        "human_eval_151-300.csv",
        f"{_REPO}/data/human_eval/human_eval%20-%20151-300.csv",
        "78b3f6e1e4985eedf75d0815b36a5edd0f38a5411c3680da40dc15845f11193c",
    ),
    (
        "human_eval_301-450.csv",
        f"{_REPO}/data/human_eval/human_eval%20-%20301-450.csv",
        "e25657fd6441d3a01791991573227900659698359710bda623d13e17944af6a5",
    ),
    (
        "human_eval_451-600.csv",
        f"{_REPO}/data/human_eval/human_eval%20-%20451-600.csv",
        "c1139673e0973ab0b5360b6140f6850de4eecc2c3292a50bd59b02490e77a00c",
    ),
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
    name = NAME
    title = "Conversational implicature (Ruis et al.)"
    item_template = "participation/partials/_item_binary.html"
    default_design: ClassVar[Mapping[str, Any]] = {
        "split": "test",
        "units": 4,
        "per_unit": 5,
        "unit_size": 150,
        "template": 2,
        "attention_checks": 3,
        "exclude_at": 2,
        "shuffle_items": False,
        "question": "",
    }
    question_line = "Does the response mean yes or no?"
    design_options = (
        DesignOption("units", "Units", help="groups of items; each participant does one unit", minimum=1),
        DesignOption("unit_size", "Items per unit", help="the paper: 150 test items per unit", minimum=1),
        DesignOption("per_unit", "Participants per unit", help="people who complete each unit", minimum=1),
        DesignOption(
            "split", "Items from", kind="choice", choices=(("test", "test set (600)"), ("dev", "dev set (118)"))
        ),
        DesignOption(
            "template",
            "Prompt template shown",
            kind="choice",
            help="the paper's human study used template 2",
            choices=tuple((number, f"template {number}") for number in range(1, 10)),
        ),
        DesignOption(
            "attention_checks",
            "Attention checks per participant",
            minimum=0,
            maximum=len(ATTENTION_CHECKS),
            help="instructional checks at random positions",
        ),
        DesignOption("exclude_at", "Exclude at failed checks", minimum=0, help="0: never exclude"),
        DesignOption("shuffle_items", "Shuffle items per participant", kind="bool"),
        DesignOption(
            "question",
            "Question line",
            kind="text",
            help="the line under each item, in the participants' language; blank: the paper's "
            '"Does the response mean yes or no?" (English)',
        ),
    )
    default_consent = CONSENT
    default_instructions = INSTRUCTIONS
    category_field = "type"
    demo = DemoSetup(study="Implicature demo", split="test", imported="Imported implicature: {created} items")
    published_study_name = "Implicature: published human baseline (Ruis et al.)"
    #: the numbered prompt templates, from which the participant's `human_template` is resolved
    design_assets = ("templates",)

    def source_files(self) -> list[SourceFile]:
        return [SourceFile(path, url, sha) for path, url, sha in _SOURCES]

    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        types = self._types(source / "type_labels.csv")
        items: list[ItemData] = []
        counts = {"yes": 0, "no": 0}
        for split, filename in (
            ("test", "test_conversational_implicatures.csv"),
            ("dev", "dev_conversational_implicatures.csv"),
        ):
            rows = read_csv_rows(
                source / filename, ("Context utterance", "Response utterance", "Implicature"), keep_line_ends=True
            )
            if not rows:
                raise DatasetError(filename, "no rows")
            refuse_duplicate_rows(
                filename,
                ((item_key(split, row["Context utterance"], row["Response utterance"]), line) for line, row in rows),
                "utterance and response",
            )
            for index, (line, row) in enumerate(rows, start=1):
                label = parse_label(row["Implicature"])
                if label is None or not row["Context utterance"].strip() or not row["Response utterance"].strip():
                    raise DatasetError(
                        filename,
                        f"cannot parse a yes/no label from {row['Implicature']!r}"
                        if label is None
                        else "empty utterance or response",
                        row=line,
                    )
                item_type = types.get(item_type_key(row["Context utterance"]), "Other") if split == "test" else "Other"
                counts[label] += split == "test"
                items.append(
                    ItemData(
                        key=item_key(split, row["Context utterance"], row["Response utterance"]),
                        split=split,
                        prompt={
                            "utterance": clean_text(row["Context utterance"]),
                            "response": clean_text(row["Response utterance"]),
                        },
                        gold=label,
                        meta={"type": item_type, "row": index, "implicature": row["Implicature"].strip()},
                    )
                )
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
        """Type per test utterance, matched as the authors matched it for the paper's per-type
        results (`type_label_analysis`, do-pigs-fly src/error_analysis.py): on the utterance alone,
        a later row of the same utterance replacing an earlier one. That gives the paper's counts
        (Other 387, Particularised 88, Generalised 46, Idiom 44, World knowledge 23, Rhetorical
        question 11, Hyperbole 1), and also types a test exchange that shares an utterance with a
        labelled one. Two rows of one exchange (utterance and response) that disagree are refused
        rather than letting the last row win; a repeated row that agrees is harmless (the
        published file has one)."""
        types: dict[str, str] = {}
        exchanges: dict[str, tuple[str, int]] = {}
        for index, row in read_csv_rows(path, ("Utterance", "Response", "Type")):
            kind = row["Type"].strip()
            if kind not in TYPES:
                raise DatasetError(path.name, f"unknown type {kind!r}", row=index)
            exchange = normalise(row["Utterance"]) + "||" + normalise(row["Response"])
            earlier = exchanges.setdefault(exchange, (kind, index))
            if earlier[0] != kind:
                raise DatasetError(
                    path.name,
                    f"conflicting type labels for one utterance and response: row "
                    f"{earlier[1]} says {earlier[0]!r}, row {index} says {kind!r}",
                    row=index,
                )
            types[type_label_key(row["Utterance"])] = kind
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
            ItemData(
                key=f"attention-{number}",
                split="attention",
                prompt={"utterance": utterance, "response": response},
                gold="yes",
                meta={"type": "Attention check"},
                is_attention_check=True,
            )
            for number, (utterance, response) in enumerate(ATTENTION_CHECKS, start=1)
        ]

    # -- the human side ------------------------------------------------------------------
    def choices(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> list[Choice]:
        return [
            Choice("yes", Message(gettext_noop("Yes")), ("y", "1")),
            Choice("no", Message(gettext_noop("No")), ("n", "2")),
        ]

    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> dict[str, Any]:
        template = design.get("human_template") or 'Esther asked "%s" and Juan responded "%s", which means %s'
        before, _, _ = template.rpartition("%s")
        utterance, response = shown_text(item_prompt["utterance"]), shown_text(item_prompt["response"])
        text = before.replace("%s", "{}", 2).format(utterance, response).rstrip()
        return {"text": text, "question": str(design.get("question") or "").strip() or self.question_line}

    def parse_answer(self, raw: str) -> str | None:
        value = raw.strip().lower()
        return {"yes": "yes", "y": "yes", "1": "yes", "no": "no", "n": "no", "2": "no"}.get(value)

    # -- design --------------------------------------------------------------------------
    def resolve_design(self, design: Mapping[str, Any], assets: Mapping[str, Any]) -> dict[str, Any]:
        """The text of the design's `template` becomes the `human_template` participants see,
        unless the design gives one."""
        resolved = dict(design)
        template = resolved.get("template")
        if template is not None and "human_template" not in resolved:
            templates = assets.get("templates")
            if templates and str(template) in templates:
                resolved["human_template"] = templates[str(template)]["example_template_text"]
        return resolved

    def read_published_study(self, source: Path) -> PublishedStudy:
        return published.read_human_eval(source)

    #: Ruis et al. give no time; an item in template 2 is about 20 words (20.4 on average in the
    #: paper's human-evaluation file of rows 1-150), some 5 s at the ~240 words a minute of silent
    #: reading (Brysbaert 2019), and a yes/no choice after it
    answer_time = AnswerTime(
        12, "Ruis et al. report no time: an item of ~20 words read in ~5 s at 240 words a minute, then yes or no"
    )

    def answers_per_participant(self, design: Mapping[str, Any]) -> int | None:
        return int(design["unit_size"]) + int(design.get("attention_checks", 0))

    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        # in the published file's order (the paper's units are rows 1-150, 151-300, ...)
        pool = sorted(
            (item for item in items if item.split == design["split"] and not item.is_attention_check),
            key=lambda item: (int(item.meta.get("row", 0)), item.key),
        )
        units, size = int(design["units"]), int(design["unit_size"])
        if units * size > len(pool):
            raise ShortPool(units, size, len(pool), f"{design['split']} items")
        return [[item.key for item in pool[i * size : (i + 1) * size]] for i in range(units)]

    # -- the model side (model.py) ---------------------------------------------------
    model_module: ClassVar[Any] = model_side
    default_model_setting: ClassVar[Mapping[str, Any]] = model_side.DEFAULT_SETTING
    model_setting_options: ClassVar[tuple[DesignOption, ...]] = model_side.SETTING_OPTIONS

    def practice_split(self, design: Mapping[str, Any]) -> str | None:
        # the dev set's items, unless the study's own come from it
        return "dev" if design.get("split", "test") != "dev" else None

    def model_pool_split(self, setting: Mapping[str, Any]) -> str | None:
        return "dev" if int(setting.get("k", 0)) > 0 else None

    # -- results (results.py) --------------------------------------------------------------
    def breakdowns(self, results_input: ResultsInput) -> Sections:
        from . import results as results_side  # numpy: loaded when results are computed

        return results_side.breakdowns(results_input)

    def sections_type(self) -> type[Sections]:
        from .sections import ImplicatureSections  # numpy, as above

        return ImplicatureSections
