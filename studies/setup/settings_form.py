"""A new study's settings, or a draft's changed ones, checked as one: each field's own bounds, its
design options' fields (generated from the benchmark's declared options), the defaults a study left
untouched takes, and the rules of `studies.setup.validation` placed beside the fields they are about.

The new-study page (`studies.workflow.forms.StudyForm`, which adds how the page draws it) and the
API's create (`api.writes`) check a study with this one form, so that both refuse the same settings
in the same words; `study_create` takes what it cleaned (`create_arguments`)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import QueryDict

from parity import benchmarks, panels
from parity.sampling import ALL, ItemSampling
from studies.bounds import MAX_INTEGER, MAX_TEXT
from studies.design import closing_questions
from studies.design.estimates import DesignEstimate, Training
from studies.design.option_fields import option_field
from studies.design.screening import AGE_HIGH, AGE_LOW, SELECTS, Screening
from studies.errors import StudyError
from studies.models import Study
from studies.setup import validation
from studies.setup.drafts import DRAFT_FIELDS
from studies.setup.training_fields import TrainingFields, training_initial
from studies.setup.units import UnitsPlan, design_estimate, follows_estimate, study_estimate, units_plan
from studies.setup.validation import SCREENING_FIELDS

#: a design option's field is named DESIGN_PREFIX + its key
DESIGN_PREFIX = "design_"


#: the study's own fields the form shows, in the form's order (the reward is shown in pounds, the
#: prescreening as one field per filter: `SCREENING_FIELDS`)
STUDY_FIELDS = tuple(
    name for name in DRAFT_FIELDS if name not in ("reward_pence", "prolific_filters", "panel_settings")
)
#: the panel's settings (`parity.panels.PanelSettings`), one field each, stored together as `panel_settings`
PANEL_FIELDS = {
    "connect_complete_url": "complete_url",
    "connect_partial_url": "partial_url",
    "sona_credit_url": "credit_url",
    "mturk_sandbox": "sandbox",
}


def study_initial(study: Study) -> dict[str, Any]:
    """The form's values for an existing study: its fields, its reward in pounds, its design."""
    initial: dict[str, Any] = {name: getattr(study, name) for name in STUDY_FIELDS}
    initial["reward"] = Decimal(study.reward_pence).scaleb(-2)
    initial.update(training_initial(study))
    for name, setting in PANEL_FIELDS.items():
        initial[name] = (study.panel_settings or {}).get(setting, False if setting == "sandbox" else "")
    screening = Screening.from_json(study.prolific_filters)
    for name in SCREENING_FIELDS:
        value = getattr(screening, name)
        initial[name] = ", ".join(value) if isinstance(value, list) else value
    for option in study.definition.design_options:
        if option.key in study.design:
            value = study.design[option.key]
            initial[DESIGN_PREFIX + option.key] = str(value) if option.kind == "choice" else value
    return initial


class StudySettingsForm(TrainingFields, forms.Form):
    """A study of one benchmark: the paper's design by default, the benchmark's texts prefilled;
    editing a draft (`study`), the draft's own values. Creating and editing validate alike."""

    name = forms.CharField(max_length=200, help_text="for researchers only: participants never see it")
    public_title = forms.CharField(
        max_length=200,
        required=False,
        label="Title for participants",
        help_text="what participants see as the study's title, in their browser tab and on the welcome page "
        "(e.g. “Understanding everyday sentences”), in their language; empty: no title",
    )
    group = forms.CharField(
        max_length=100,
        required=False,
        help_text="studies sharing a group refuse a participant who already took one of them",
    )
    pid_format = forms.ChoiceField(
        choices=Study.PidFormat.choices, initial=Study.PidFormat.PROLIFIC, label="Participant IDs"
    )
    panel = forms.ChoiceField(
        choices=panels.CHOICES,
        initial=panels.PROLIFIC,
        label="Participants come from",
        help_text="the panel that recruits them: its link, its ids and where it sends them at the end "
        "(docs/panels.md); changed only before launch",
    )
    connect_complete_url = forms.CharField(
        max_length=500,
        required=False,
        label="Connect: completion redirect URL",
        help_text="copied from the end of Connect's Create a Study wizard; those who finish are sent there",
    )
    connect_partial_url = forms.CharField(
        max_length=500,
        required=False,
        label="Connect: partial-complete redirect URL",
        help_text="Connect's Partial Completes: those who fail the checks or the comprehension check are sent there",
    )
    sona_credit_url = forms.CharField(
        max_length=500,
        required=False,
        label="SONA: completion URL",
        help_text="the client-side completion URL from the study's page on SONA (with survey_code=XXXX): "
        "Parity puts the participant's survey code in it",
    )
    mturk_sandbox = forms.BooleanField(
        required=False,
        label="MTurk: the sandbox",
        help_text="the HIT is on workersandbox.mturk.com (a test); unticked, on the marketplace",
    )
    language = forms.ChoiceField(
        choices=settings.LANGUAGES,
        initial="en",
        label="Participants' language",
        help_text="the language of the participant pages (buttons, progress, messages); write the consent "
        "and instructions below in it too: they are shown as written",
    )
    consent_text = forms.CharField(
        max_length=MAX_TEXT,
        help_text="Markdown: **bold**, *italic*, lists, links; HTML is shown as text",
    )
    instructions_text = forms.CharField(max_length=MAX_TEXT, help_text="Markdown, as above")
    completion_code = forms.CharField(max_length=40)
    failed_attention_code = forms.CharField(
        max_length=40,
        label="Failed-check code",
        help_text="given instead of the completion code to participants excluded for failed attention checks",
    )
    no_consent_code = forms.CharField(max_length=40, required=False, help_text="given to those who decline consent")
    #: Prolific's longest study (600 minutes) is checked in `clean`: a time following the design's
    #: estimate is the design's to correct, not this field's
    estimated_minutes = forms.IntegerField(min_value=1, max_value=MAX_INTEGER, initial=30)
    min_answer_ms = forms.IntegerField(
        min_value=0,
        max_value=60_000,
        label="Minimum time per answer (ms)",
        help_text="an answer sooner than this after its item appeared is refused as unread and the item shown "
        "again: a second key press or tap never answers the next item unseen (0: no minimum)",
    )
    closing_questions = forms.MultipleChoiceField(
        choices=[(key, closing_questions.QUESTIONS[key].label) for key in closing_questions.CHOOSABLE],
        required=False,
        initial=list(closing_questions.DEFAULT_QUESTIONS),
        help_text="asked after the last item, below the completion code; every one optional for participants",
    )
    explanations = forms.ChoiceField(
        choices=Study.Explanations.choices,
        initial=Study.Explanations.OFF,
        label="Ask participants why",
        help_text="an optional box “Why did you choose this answer?” stored with the answer: after every item, or "
        "after every Nth item of each participant's sequence (by position, never by item, so the box tells "
        "nothing about an item), or one question after the last item",
    )
    explanation_every = forms.IntegerField(
        min_value=1, max_value=1000, initial=5, label="N (after every Nth item)", help_text="with every Nth item"
    )
    explanation_prompt = forms.CharField(
        max_length=300,
        required=False,
        label="Explanation box label",
        help_text="empty: “Why did you choose this answer?” in the participants' language; yours is shown as written",
    )
    reward = forms.DecimalField(
        min_value=Decimal("0.01"), max_digits=6, decimal_places=2, initial=Decimal("4.50"), label="Reward (£)"
    )
    population = forms.CharField(
        max_length=500,
        required=False,
        label="Population of interest",
        help_text="whom the human baseline stands for (e.g. adult native English speakers in the UK and the US); "
        "the report states it",
    )
    ethics_body = forms.CharField(
        max_length=200, required=False, label="Ethics review: body", help_text="the board or committee that reviewed it"
    )
    ethics_reference = forms.CharField(
        max_length=100, required=False, label="Ethics review: reference", help_text="the approval's reference"
    )
    ethics_exemption = forms.CharField(
        max_length=500,
        required=False,
        label="Or: exempt from ethics review because",
        help_text="the reason, when the study was exempt (e.g. the institution's policy for anonymous online tasks)",
    )
    paper_title = forms.CharField(max_length=300, required=False, label="Paper title", help_text="optional")
    paper_url = forms.URLField(
        max_length=500, required=False, assume_scheme="https", label="Paper link", help_text="optional: arXiv, DOI, ..."
    )
    paper_venue = forms.CharField(max_length=200, required=False, label="Venue", help_text="optional")

    # who may take part on Prolific (sent with the study when it is created there) and which items
    age_min = forms.IntegerField(min_value=AGE_LOW, max_value=AGE_HIGH, required=False, label="Youngest age")
    age_max = forms.IntegerField(min_value=AGE_LOW, max_value=AGE_HIGH, required=False, label="Oldest age")
    sex = forms.CharField(
        max_length=200, required=False, label="Sex", help_text="Prolific's choice ids for its “sex” filter, by commas"
    )
    first_languages = forms.CharField(
        max_length=500, required=False, label="First language", help_text="Prolific's choice ids, by commas"
    )
    fluent_languages = forms.CharField(
        max_length=500, required=False, label="Fluent languages", help_text="Prolific's choice ids, by commas"
    )
    countries = forms.CharField(
        max_length=500, required=False, label="Country of residence", help_text="Prolific's choice ids, by commas"
    )
    approval_rate_min = forms.IntegerField(
        min_value=0, max_value=100, required=False, label="Minimum approval rate (%)"
    )
    exclude_earlier = forms.BooleanField(
        required=False,
        label="Exclude participants of my earlier studies",
        help_text="Prolific refuses whoever took part in your other studies created on Prolific from Parity",
    )
    item_sampling = forms.ChoiceField(
        choices=Study.Sampling.choices,
        initial="all",
        label="Items",
        help_text="all the benchmark's items (in file order), or a subset of them drawn from the seed",
    )
    sample_size = forms.IntegerField(min_value=1, max_value=MAX_INTEGER, required=False, label="Items to draw")
    sample_seed = forms.IntegerField(
        min_value=0,
        max_value=MAX_INTEGER,
        required=False,
        label="Seed",
        help_text="the same seed draws the same items; empty: one is drawn",
    )

    def __init__(
        self, *args: Any, benchmark: str, study: Study | None = None, owner: Any = None, **kwargs: Any
    ) -> None:
        if study is not None:
            kwargs["initial"] = {**study_initial(study), **kwargs.get("initial", {})}
        super().__init__(*args, **kwargs)
        self.benchmark = benchmark
        self.study = study
        #: who will own the study: the item set the design names must be theirs to use
        self.owner = study.owner if study is not None else owner
        self.definition = benchmarks.get(benchmark)
        defaults = self.definition.design()
        for option in self.definition.design_options:
            self.fields[DESIGN_PREFIX + option.key] = option_field(option, defaults[option.key])
        self.fields["consent_text"].initial = self.definition.default_consent
        self.fields["instructions_text"].initial = self.definition.default_instructions
        self.fields["completion_code"].initial = Study._meta.get_field("completion_code").get_default()
        self.fields["failed_attention_code"].initial = Study._meta.get_field("failed_attention_code").get_default()
        self.fields["min_answer_ms"].initial = Study._meta.get_field("min_answer_ms").get_default()
        self.fields["sample_seed"].initial = Study._meta.get_field("sample_seed").get_default()
        #: the time and reward follow the design's estimate until the researcher types their own: a
        #: new study's always start so, a draft's when they are its design's estimate
        self.follows_estimate = study is None or follows_estimate(study)
        #: the estimate of the design as shown or typed (set by `clean` on a bound form)
        self.estimate: DesignEstimate | None = None
        #: why the imported items cannot make the design's units (set by `clean`)
        self.design_problem: str | None = None
        #: the units `clean` planned for the design as typed: the power analysis reads them again
        #: rather than planning them from every imported item a second time
        self.plan: UnitsPlan | None = None
        if study is None:
            # what the form shows before anyone types: the prefilled design's estimate
            self.estimate = design_estimate(benchmark, self._prefilled_design())
            if self.estimate is not None:
                self.initial = {
                    "estimated_minutes": self.estimate.minutes,
                    "reward": self.estimate.reward,
                    **self.initial,
                }
        else:
            self.estimate = study_estimate(study)
        chosen = (self.data.get("panel") if self.is_bound else None) or self.initial.get("panel") or panels.PROLIFIC
        currency = panels.get(chosen).currency if chosen in panels.PANELS else "GBP"
        if currency != "GBP":
            self.fields["reward"].label = f"Reward ({panels.SYMBOLS[currency]})"
        if self.definition.practice_split(defaults) is None:
            del self.fields["practice_drawn"]  # no items of its own to practise on

    def screening(self) -> Screening:
        """The prescreening as typed (the lists split at commas)."""
        data = self.cleaned_data
        lists = {name: [v.strip() for v in (data.get(name) or "").split(",") if v.strip()] for name in SELECTS}
        return Screening(
            age_min=data.get("age_min"),
            age_max=data.get("age_max"),
            approval_rate_min=data.get("approval_rate_min"),
            exclude_earlier=bool(data.get("exclude_earlier")),
            **lists,
        )

    def sampling(self) -> ItemSampling:
        data = self.cleaned_data
        return ItemSampling(
            method=data.get("item_sampling") or ALL, size=data.get("sample_size"), seed=data.get("sample_seed")
        )

    def design_given(self, data: Mapping[str, Any]) -> dict[str, Any] | None:
        """The design `data` gives, as the design fields read it within their bounds; None while
        one does not or the benchmark refuses the design."""
        typed = {}
        for option in self.definition.design_options:
            name = DESIGN_PREFIX + option.key
            try:
                typed[option.key] = self.fields[name].clean(data.get(name))
            except ValidationError:
                return None
        design = self.definition.design(typed)
        return None if self.definition.design_errors(design) else design

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        for problem in validation.name_problems(name, study=self.study):
            raise forms.ValidationError(problem.message)
        return name

    def design(self) -> dict[str, Any]:
        return {
            option.key: self.cleaned_data[DESIGN_PREFIX + option.key]
            for option in self.definition.design_options
            if DESIGN_PREFIX + option.key in self.cleaned_data
        }

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        self._add_problems(
            validation.reporting_problems(
                ethics_body=cleaned.get("ethics_body"), ethics_reference=cleaned.get("ethics_reference")
            )
        )
        if cleaned.get("sample_seed") is None:
            cleaned["sample_seed"] = Study._meta.get_field("sample_seed").get_default()
        self._add_problems(validation.screening_problems(self.screening()))
        self._add_problems(
            validation.sampling_problems(
                item_sampling=cleaned.get("item_sampling", ALL), sample_size=cleaned.get("sample_size")
            )
        )
        typed = self._typed_design()
        # the time a design takes is known once its fields read as numbers, right or wrong together
        training = Training.of_fields(cleaned)
        self.estimate = design_estimate(self.benchmark, typed, training) if typed is not None else None
        design = self.definition.design(self.design())
        problems = validation.design_problems(self.definition, design)
        self._add_problems(problems)
        if typed is not None and not problems:
            self._check_design_against_items(typed)
        minutes, reward = self._follow_estimate(cleaned)
        self._add_problems(validation.exclusion_problems(design, minutes))
        if minutes and reward is not None:
            self._add_problems(
                validation.pay_problems(
                    reward_pence=int(reward * 100),
                    minutes=minutes,
                    estimate=self.estimate,
                    panel=cleaned.get("panel") or panels.PROLIFIC,
                )
            )
        self._add_problems(validation.code_problems(cleaned.get(name) for name in validation.CODE_FIELDS))
        self._add_problems(
            validation.panel_problems(
                panel=cleaned.get("panel") or panels.PROLIFIC, panel_settings=self.panel_settings(), study=self.study
            )
        )
        return cleaned

    def panel_settings(self) -> dict[str, Any]:
        """The panel's settings as typed, only those of the panel chosen."""
        data = self.cleaned_data
        given = {setting: data.get(name) for name, setting in PANEL_FIELDS.items()}
        return panels.PanelSettings.of(given).to_json(data.get("panel") or panels.PROLIFIC)

    def _add_problems(self, problems: list[validation.Problem]) -> None:
        """Each problem beside its field (the reward's as the pounds typed), or the form's own."""
        for problem in problems:
            name = problem.field
            if name is not None:
                name = "reward" if name == "reward_pence" else name.replace(validation.DESIGN, DESIGN_PREFIX, 1)
                name = PANEL_FORM_FIELDS.get(name, name)
            self.add_error(name if name in self.fields else None, problem.message)

    def _sample(self) -> ItemSampling | None:
        """The sampling as typed, once it reads (None: all items, as before it is chosen)."""
        if not self.is_bound or not hasattr(self, "cleaned_data") or "item_sampling" not in self.cleaned_data:
            return None
        sample = self.sampling()
        return sample if sample.method == ALL or sample.size else None

    def _typed_design(self) -> dict[str, Any] | None:
        """The design as typed over the draft's, or None while a design field does not read."""
        if any(name not in self.cleaned_data for name in self.fields if name.startswith(DESIGN_PREFIX)):
            return None
        base = dict(self.study.design) if self.study is not None else {}
        return self.definition.design({**base, **self.design()})

    def _check_design_against_items(self, chosen: dict[str, Any]) -> None:
        """The design against the imported items, before anything else is judged: a design they
        cannot fill is the error to name first (the time and reward follow from the design)."""
        try:
            self.plan = units_plan(benchmark=self.benchmark, design=chosen, owner=self.owner, sample=self._sample())
        except StudyError as exc:
            self.design_problem = str(exc)  # the live estimate warns of it before anything is saved
            self.add_error(error_field(self, exc), str(exc))
            return
        self._add_problems(validation.length_problems(self.estimate))

    def _follow_estimate(self, cleaned: dict[str, Any]) -> tuple[int | None, Decimal | None]:
        """The minutes and reward to save: the design's estimate while they follow it (left as
        shown, or as the page last filled them from the estimate), else as typed."""
        minutes, reward = cleaned.get("estimated_minutes"), cleaned.get("reward")
        shown = (
            _whole(self.data.get("estimated_minutes")),
            _pounds(self.data.get("reward")),
        )
        initial = (
            _whole(self.get_initial_for_field(self.fields["estimated_minutes"], "estimated_minutes")),
            _pounds(self.get_initial_for_field(self.fields["reward"], "reward")),
        )
        estimated = (self.estimate.minutes, self.estimate.reward) if self.estimate is not None else None
        self.follows_estimate = self.follows_estimate and shown in (initial, estimated)
        if self.follows_estimate and self.estimate is not None:
            minutes, reward = self.estimate.minutes, self.estimate.reward
            cleaned["estimated_minutes"], cleaned["reward"] = minutes, reward
            # the page shown again after a refusal shows what would be saved
            data = self.data.copy() if isinstance(self.data, QueryDict) else dict(self.data)
            data["estimated_minutes"], data["reward"] = str(minutes), str(reward)
            self.data = data
        else:
            self._add_problems(validation.minutes_problems(minutes))
        return minutes, reward

    def _prefilled_design(self) -> dict[str, Any]:
        """A new study's design options given as initial values (an item set after its import)."""
        if self.study is not None:
            return {}
        return {
            name.removeprefix(DESIGN_PREFIX): value
            for name, value in self.initial.items()
            if name.startswith(DESIGN_PREFIX)
        }

    def study_arguments(self) -> dict[str, Any]:
        """The study's fields and design, as `study_create` and `study_draft_update` take them."""
        data = self.cleaned_data
        return {
            **{name: data[name] for name in STUDY_FIELDS},
            "design": self.design(),
            "reward_pence": int(data["reward"] * 100),
            "prolific_filters": self.screening().to_json(),
            "panel_settings": self.panel_settings(),
            **self.training_arguments(),
        }

    def create_arguments(self) -> dict[str, Any]:
        """`study_create`'s keyword arguments (the same service as `manage.py create_study`)."""
        return {**self.study_arguments(), "benchmark": self.benchmark, "status": Study.Status.DRAFT}


#: a panel setting's problem (`validation.panel_problems`, named `panel_settings.<setting>`) goes beside its field
PANEL_FORM_FIELDS = {f"panel_settings.{setting}": name for name, setting in PANEL_FIELDS.items()}


def error_field(form: forms.Form, exc: StudyError) -> str | None:
    """The form's field a `StudyError` is about (None: the form's as a whole)."""
    named = exc.design_option and DESIGN_PREFIX + exc.design_option
    return next((name for name in (exc.field, named) if name and name in form.fields), None)


def _whole(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _pounds(value: object) -> Decimal | None:
    try:
        return Decimal(str(value)).quantize(Decimal("0.01"))
    except (TypeError, ValueError, ArithmeticError):
        return None
