"""A study's results: selectors that turn rows into the stats package's inputs, the assembly of
every number a results page shows, the paper tables and the charts."""

from __future__ import annotations

from typing import Any

from studies.access import get_study_for_researcher, researcher_studies
from studies.models import Study
from studies.results.assemble import N_BOOT, SEED, study_results
from studies.results.forms import ResultFilters, ResultsFilterForm
from studies.results.selectors import (
    StudyData,
    load_studies_data,
    load_study_data,
)


def results_for_study(study: Study, filters: ResultFilters | None = None) -> dict[str, Any]:
    """The `study_results --json` object of one study."""
    return study_results(load_study_data(study), filters)


__all__ = [
    "N_BOOT", "SEED", "ResultFilters", "ResultsFilterForm", "StudyData", "get_study_for_researcher",
    "load_studies_data", "load_study_data", "researcher_studies", "results_for_study", "study_results",
]
