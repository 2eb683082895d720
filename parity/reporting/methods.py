"""The statistical methods the results record by identifier, named in words: one wording, shared by
the report's methods, its table notes and the reporting checklist, so that a figure is described the
same way wherever it is printed."""

from __future__ import annotations

from parity.stats import BOOTSTRAP, CONFIDENCE_SEQUENCE, T_INTERVAL
from parity.stats.intervals import FIXED_WIDTH

#: the gap's interval and test: `parity.stats.crossed` (the only method the gap is computed by today)
CROSSED = "crossed_variance_components"

#: the human accuracy's interval
HUMAN_CI = {
    T_INTERVAL: "Student's t-interval over participants",
    BOOTSTRAP: "percentile bootstrap over participants",
    CONFIDENCE_SEQUENCE: "a confidence sequence over participants in the order they completed",
    FIXED_WIDTH: "a fixed-width interval at the last of recruitment's planned looks",
}

#: the interval of a model's gap to the humans
GAP_CI = {
    CROSSED: (
        "the variance components of the people × items design (people nested in units) with Student's t on "
        "Satterthwaite's degrees of freedom"
    ),
}

#: a model's accuracy on its items
MODEL_CI = "percentile bootstrap over items"


def human_ci(method: str) -> str:
    """The human CI's method in words; an identifier Parity does not know is said to be unknown, never printed."""
    return HUMAN_CI.get(method, "a method this version of Parity does not name")


def gap_ci(method: str) -> str:
    return GAP_CI.get(method, "a method this version of Parity does not name")
