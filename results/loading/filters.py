"""The choice of what a study's results are computed over: a unit, a category, a model, a setting,
with or without the participants flagged for review. Validated from a page's GET parameters by
`results.forms.ResultsFilterForm`; read by every step of the results' flow."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ResultFilters:
    unit: str | None = None
    category: str | None = None
    #: a model's name (its spec), all of its runs
    model: str | None = None
    #: a setting as the benchmark names it, such as "template 2, k=0" (see `setting_label`)
    setting: str | None = None
    #: "exclude": without the participants flagged for review (`studies.participants.quality`); None: with them
    flagged: str | None = None

    def as_query(self) -> dict[str, str]:
        return {name: value for name, value in vars(self).items() if value}
