"""Implicature's own section of the results (`results.py` computes it): Ruis et al.'s per-template
table for each model and setting without its template."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...records import INLINE, OMIT_IF_NONE, Record
from ..sections import Sections
from .stats import ImplicatureBreakdown


@dataclass(frozen=True)
class TemplateGroup(Record):
    """One model's runs that differ in their template alone."""

    model: str
    #: the runs' setting without its template, as a run's setting is stored
    setting: dict[str, Any]
    setting_key: str
    breakdown: ImplicatureBreakdown = field(metadata=INLINE)


@dataclass(frozen=True)
class ImplicatureSections(Sections):
    #: None: no run with a template has scored answers
    by_template: list[TemplateGroup] | None = field(default=None, metadata=OMIT_IF_NONE)
