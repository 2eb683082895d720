"""A study's Prolific prescreening: who may take part, as the researcher chose it on the study form
(stored on `Study.prolific_filters`), written in Prolific's `filters` shape when the study is created
there, and in words for the methods.

Prolific's API takes `filters` as a list of objects, each with a `filter_id` and either
`selected_values` (a select filter: the chosen choice ids) or `selected_range` (a range filter:
`lower` and/or `upper`) (https://docs.prolific.com/api-reference/filters). The ids and choices are
Prolific's own, listed by `GET /api/v1/filters/` (https://docs.prolific.com/api-reference/filters/get-filters);
the select filters here take those choice ids as the researcher copies them from Prolific.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

#: Prolific's filter ids (https://docs.prolific.com/api-reference/filters/get-filters)
AGE = "age"  # range
SEX = "sex"  # select
FIRST_LANGUAGE = "first-language"  # select
FLUENT_LANGUAGES = "fluent-languages"  # select
COUNTRY = "current-country-of-residence"  # select
APPROVAL_RATE = "approval_rate"  # range, a percentage
PREVIOUS_STUDIES = "previous_studies_blocklist"  # select, Prolific study ids

#: Prolific's age range (https://docs.prolific.com/api-reference/eligibility-requirements/requirements-object)
AGE_LOW, AGE_HIGH = 18, 100

#: the select filters a researcher sets by choice ids, with the words the methods use
SELECTS = {
    "sex": (SEX, "sex"),
    "first_languages": (FIRST_LANGUAGE, "first language"),
    "fluent_languages": (FLUENT_LANGUAGES, "fluent language"),
    "countries": (COUNTRY, "country of residence"),
}


@dataclass(frozen=True)
class Screening:
    """Who may take part; empty fields filter nobody."""

    age_min: int | None = None
    age_max: int | None = None
    sex: list[str] = field(default_factory=list)
    first_languages: list[str] = field(default_factory=list)
    fluent_languages: list[str] = field(default_factory=list)
    countries: list[str] = field(default_factory=list)
    approval_rate_min: int | None = None
    #: refuse, on Prolific, the participants of the researcher's earlier Parity studies on Prolific
    exclude_earlier: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Screening:
        known = {name for name in cls.__dataclass_fields__}
        return cls(**{key: value for key, value in (data or {}).items() if key in known})

    def to_json(self) -> dict[str, Any]:
        """What `Study.prolific_filters` stores: only what is set."""
        return {key: value for key, value in asdict(self).items() if value not in (None, [], False)}

    def errors(self) -> dict[str, str]:
        """What is wrong, by field, in words."""
        problems: dict[str, str] = {}
        for name in ("age_min", "age_max"):
            value = getattr(self, name)
            if value is not None and not AGE_LOW <= value <= AGE_HIGH:
                problems[name] = f"Prolific's ages run from {AGE_LOW} to {AGE_HIGH}."
        if self.age_min is not None and self.age_max is not None and self.age_min > self.age_max:
            problems["age_max"] = "The oldest age must be at least the youngest."
        if self.approval_rate_min is not None and not 0 <= self.approval_rate_min <= 100:
            problems["approval_rate_min"] = "An approval rate is a percentage, 0 to 100."
        for name in SELECTS:
            values = getattr(self, name)
            if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
                problems[name] = "Give Prolific's choice ids, separated by commas."
        return problems

    def prolific_filters(self, earlier_study_ids: Sequence[str] = ()) -> list[dict[str, Any]]:
        """Prolific's `filters` (https://docs.prolific.com/api-reference/filters): a range filter as
        `selected_range` with `lower`/`upper`, a select filter as `selected_values`."""
        filters: list[dict[str, Any]] = []
        if self.age_min is not None or self.age_max is not None:
            filters.append(
                {"filter_id": AGE, "selected_range": _range(self.age_min, self.age_max)},
            )
        for name, (filter_id, _) in SELECTS.items():
            values = getattr(self, name)
            if values:
                filters.append({"filter_id": filter_id, "selected_values": list(values)})
        if self.approval_rate_min is not None:
            filters.append({"filter_id": APPROVAL_RATE, "selected_range": _range(self.approval_rate_min, 100)})
        if self.exclude_earlier and earlier_study_ids:
            filters.append({"filter_id": PREVIOUS_STUDIES, "selected_values": list(earlier_study_ids)})
        return filters

    def describe(self) -> str:
        """The methods' sentence, "" when nothing was filtered."""
        parts = []
        if self.age_min is not None or self.age_max is not None:
            low = self.age_min if self.age_min is not None else AGE_LOW
            high = self.age_max if self.age_max is not None else AGE_HIGH
            parts.append(f"aged {low} to {high}")
        for name, (_, words) in SELECTS.items():
            values = getattr(self, name)
            if values:
                parts.append(f"{words} {' or '.join(values)}")
        if self.approval_rate_min is not None:
            parts.append(f"an approval rate of at least {self.approval_rate_min}%")
        if self.exclude_earlier:
            parts.append("not having taken part in the researchers' earlier studies")
        if not parts:
            return ""
        ids = " (Prolific's choice ids)" if any(getattr(self, name) for name in SELECTS) else ""
        return f"Prolific's prescreening admitted only participants {_join(parts)}{ids}."


def _range(lower: int | None, upper: int | None) -> dict[str, int]:
    return {key: value for key, value in (("lower", lower), ("upper", upper)) if value is not None}


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
