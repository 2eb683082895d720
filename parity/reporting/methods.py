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


#: what a separation reliability (`parity.stats.irt.separation_reliability`) measures the spread of
RELIABILITY_OF = {"person": "the people's abilities", "item": "the items' difficulties"}


def reliability(name: str, value: float) -> str:
    """A separation reliability in words: "item reliability 0.73", or, where the estimate
    (var − mean SE²) / var is at or below 0 (the fit reports it as 0), that it is not estimable and
    why, never "0.00"."""
    if value > 0:
        return f"{name} reliability {value:.2f}"
    return (
        f"{name} reliability not estimable (the estimate is not positive: {RELIABILITY_OF[name]} vary no more than "
        "their standard errors)"
    )
