"""A study's preregistration as plain data: the canonical JSON its SHA-256 is taken of, the canonical
serialisation of its items, the Markdown it renders as, and the changes made after launch that
differ from what it says ("preregistered vs done").

Canonical JSON (of the document and of the items): UTF-8, keys sorted at every level, no whitespace
(separators "," and ":"), non-ASCII characters written as themselves, never as \\u escapes. The
same value always gives the same bytes, so anyone can hash it again from the document alone.

The items' serialisation is a JSON array with one object per unit, in the units' order:
`{"unit": <label>, "items": [{"key": ..., "prompt": ..., "gold": ...}, ...]}`, each unit's items in
the order participants see them before any shuffling; `prompt` exactly as stored (a string or a JSON
object), `gold` the right answer ("" for none). The attention-check pool is hashed the same way as a
separate array of `{"key", "prompt", "gold"}` objects in key order.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parity import markdown
from parity.markdown import Markdown
from parity.sampling import ALL, ItemSampling, describe

#: the version of the document's layout (a reader of an older document knows what to expect)
DOCUMENT_VERSION = 1

#: what the results page reports, stated here for the preregistration; the numbers must match
#: `results.computing.assemble` (N_BOOT, SEED), which a test holds equal
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0
STATISTICS: tuple[str, ...] = (
    "Human accuracy: the share of correct answers to real items (attention checks left out) by completed, "
    "non-excluded participants; mean, best and worst participant, with a 95% Student's t-interval over "
    "participants (flagged below ten participants), about people like these on these items.",
    "Accuracy per unit, and averaged over units (mean, best, worst), each unit's with a 95% Student's "
    "t-interval over its participants.",
    "Agreement between participants: Cohen's kappa (mean over pairs within a unit, and its spread across "
    "units), Fleiss' kappa, Krippendorff's alpha (nominal) and percent agreement; ICC(2,k) for graded answers.",
    "Each model run: accuracy over the items it answered with a 95% bootstrap CI over items "
    f"({BOOTSTRAP_RESAMPLES:,} resamples, seed {BOOTSTRAP_SEED}); on the items both answered, its accuracy "
    "beside the humans' and the gap to them, with a 95% CI and a test of no gap over people like these and "
    "items like these (variance components of the people × items design, Student's t with Satterthwaite's "
    "degrees of freedom); McNemar's test (χ² without continuity correction) against the majority answer of "
    "these participants; Cohen's kappa and agreement with that majority.",
    "The benchmark's own breakdowns (e.g. by category), with the same intervals.",
)


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha256_of(value: Any) -> str:
    """The SHA-256 (hex) of `value`'s canonical JSON."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- preregistered vs done ----------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One change after launch, as the audit trail stores it."""

    at: str
    kind: str
    summary: str
    data: Mapping[str, Any]
    actor: str = ""


#: settings whose change after launch departs from the document: every setting the document holds
#: (the others, a study's name, public title or a Prolific code, are recorded but change nothing
#: that was preregistered)
PREREGISTERED_SETTINGS = frozenset(
    {
        "consent_text",
        "instructions_text",
        "language",
        "pid_format",
        "panel",
        "panel_settings",
        "group",
        "attention_checks",
        "exclude_at",
        "min_answer_ms",
        "reservation_timeout_minutes",
        "closing_questions",
        "explanations",
        "explanation_every",
        "explanation_prompt",
        "estimated_minutes",
        "reward_pence",
        "design",
    }
)


def deviation_of(document: Mapping[str, Any], event: Event) -> str | None:
    """Why `event` departs from what `document` preregistered, in words; None when it does not."""
    data = event.data
    recruitment = document.get("recruitment", {})
    target = int(recruitment.get("places", 0))
    precise = bool(recruitment.get("precision"))
    if event.kind == "places":
        places = int(data.get("places", 0))
        return None if places == target else f"places now {places}, preregistered {target}"
    if event.kind == "prolific" and "places" in data:
        places = int(data["places"])
        if precise or places <= target:
            return None
        return f"places raised to {places} on Prolific, beyond the preregistered {target}"
    if event.kind == "prolific" and "target" in data:
        planned = recruitment.get("precision") or None
        return None if data["target"] == planned else "recruitment target changed from the preregistered one"
    if event.kind == "settings":
        changed = sorted(set(data.get("fields", {})) & PREREGISTERED_SETTINGS)
        return f"preregistered settings changed: {', '.join(changed)}" if changed else None
    if event.kind == "excluded":
        return "participants excluded by hand, not by the preregistered attention-check rule"
    if event.kind == "included":
        return "participants included again against an exclusion"
    if event.kind in ("run_added", "run_cancelled"):
        planned = {(run.get("model"), run.get("setting_key")) for run in document.get("runs", [])}
        run = (data.get("model"), data.get("setting_key"))
        if event.kind == "run_added":
            return None if run in planned else "a model run that was not preregistered"
        return "a preregistered model run cancelled" if run in planned else None
    if event.kind == "status" and data.get("to") == "closed" and not precise:
        kept, places = int(data.get("kept", 0)), target
        return f"closed with {kept} of {places} places filled" if kept < places else None
    return None


def deviations(document: Mapping[str, Any], events: Iterable[Event]) -> list[dict[str, Any]]:
    """The events that depart from the document, each with why ("deviation")."""
    found = []
    for event in events:
        why = deviation_of(document, event)
        if why is not None:
            found.append(
                {"at": event.at, "kind": event.kind, "summary": event.summary, "deviation": why, "actor": event.actor}
            )
    return found


# -- Markdown -----------------------------------------------------------------------------------


def _lines(rows: Sequence[tuple[str, Any]]) -> list[str]:
    return [f"- **{label}:** {markdown.text(value)}" for label, value in rows if value not in (None, "")]


def _block(text: str) -> list[str]:
    return [*(markdown.block(text) or ["_(none written)_"]), ""]


def ethics_statement(ethics: Mapping[str, Any]) -> str:
    """The ethics review as entered: the body and reference, the exemption's reason, or that none was given."""
    body, reference, exemption = (str(ethics.get(key) or "").strip() for key in ("body", "reference", "exemption"))
    parts = []
    if body or reference:
        parts.append(
            "reviewed by " + (body or "an ethics body not named") + (f" (reference {reference})" if reference else "")
        )
    if exemption:
        parts.append(f"exempt from review: {exemption}")
    return "; ".join(parts) if parts else "not stated by the researchers"


def paper_statement(paper: Mapping[str, Any]) -> str:
    title, url, venue = (str(paper.get(key) or "").strip() for key in ("title", "url", "venue"))
    if not (title or url or venue):
        return ""
    return ", ".join(part for part in (f"“{title}”" if title else "", venue, url) if part)


def reporting_rows(reporting: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The population, ethics review, paper and power analysis of a study's document, as (label, text) rows."""
    # imported here: the statistics load numpy, which the document's other readers need not
    from parity.stats.power import describe

    rows: list[tuple[str, str]] = [
        ("Population of interest", str(reporting.get("population") or "").strip() or "not stated by the researchers"),
        ("Ethics review", ethics_statement(reporting.get("ethics") or {})),
    ]
    paper = paper_statement(reporting.get("paper") or {})
    if paper:
        rows.append(("Paper", paper))
    rows.append(("Power analysis", describe(reporting.get("power") or {}) or "not computed"))
    return rows


def _count(n: Any, word: str) -> str:
    """`n` and its word, singular for one ("1 unit", "2 units")."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render_markdown(
    document: Mapping[str, Any], *, sha256: str, frozen_at: str | None, deviations: Sequence[Mapping[str, Any]] = ()
) -> str:
    """The preregistration as Markdown (for OSF or AsPredicted): the researcher's text, the plan,
    the hash and time of freezing, and, when given, what was done differently since."""
    study = document.get("study", {})
    design = document.get("design", {})
    items = document.get("items", {})
    quality = document.get("quality", {})
    recruitment = document.get("recruitment", {})
    pay = document.get("pay", {})
    out = [f"# Preregistration: {markdown.text(study.get('name', ''))}", ""]
    if frozen_at:
        out += [f"Frozen at launch on {frozen_at}.", "", f"SHA-256 of the document: {markdown.code(sha256)}", ""]
    else:
        out += ["Draft: not frozen yet; it freezes when the study is launched.", ""]
    out += ["## Hypotheses", "", *_block(document.get("hypotheses", ""))]
    out += ["## Notes", "", *_block(document.get("notes", ""))]
    out += ["## Design", ""]
    out += _lines(
        [
            (
                "Benchmark",
                Markdown(
                    f"{markdown.text(study.get('benchmark_title', ''))} ({markdown.code(study.get('benchmark'))})"
                ),
            ),
            (
                "Design settings",
                markdown.code(json.dumps(design.get("settings", {}), sort_keys=True, ensure_ascii=False)),
            ),
            ("Units", design.get("n_units")),
            ("Places", f"{design.get('places')} (participants the units hold)"),
        ]
    )
    out += ["", "| unit | category | items | capacity |", "|---|---|---|---|"]
    out += [
        markdown.row(unit["label"], unit.get("category"), unit["n_items"], unit["capacity"])
        for unit in design.get("units", [])
    ]
    texts = document.get("texts", {})
    out += ["", "## Items", ""]
    out += _lines(
        [
            ("Items", f"{items.get('n_items')} in {_count(items.get('n_units'), 'unit')}"),
            ("SHA-256 of the items", markdown.code(items.get("sha256"))),
            ("Attention-check pool", _count(items.get("n_attention_items"), "item")),
            ("SHA-256 of the attention-check pool", markdown.code(items.get("attention_sha256"))),
            ("Item sampling", _sampling(items.get("sampling") or {}, items.get("n_items"))),
            ("Serialisation", items.get("serialisation")),
            ("Consent text SHA-256", markdown.code(document.get("texts", {}).get("consent_sha256"))),
            ("Instructions SHA-256", markdown.code(document.get("texts", {}).get("instructions_sha256"))),
            *_training(document.get("texts", {}).get("training")),
            # plans frozen before explanations were asked have none: no line
            ("Participants asked why they answered", (texts.get("explanations") or {}).get("asked")),
        ]
    )
    out += ["", "## Attention checks and exclusions", ""]
    out += _lines(
        [
            ("Attention checks per participant", quality.get("attention_checks")),
            ("Exclusion rule", quality.get("exclusion_rule")),
            ("Answer floor", quality.get("answer_floor")),
            ("Reservation timeout", _count(quality.get("reservation_timeout_minutes"), "minute")),
        ]
    )
    out += ["", "## Recruitment", ""]
    out += _lines(
        [
            ("Target", _count(recruitment.get("places"), "place")),
            ("Stopping rule", recruitment.get("stopping_rule")),
            ("Panel", recruitment.get("panel")),
            ("Participant IDs", recruitment.get("pid_format")),
            ("Study group", recruitment.get("group")),
            (
                "Prolific prescreening",
                markdown.code(json.dumps(recruitment.get("prescreening"), sort_keys=True, ensure_ascii=False))
                if recruitment.get("prescreening")
                else "none",
            ),
        ]
    )
    out += ["", "## Pay", ""]
    out += _lines(
        [
            ("Reward", pay.get("reward")),
            ("Estimated time", f"{pay.get('estimated_minutes')} minutes"),
            ("Hourly rate", pay.get("hourly")),
        ]
    )
    out += ["", "## Models and settings to be run", ""]
    runs = document.get("runs", [])
    if runs:
        out += ["| model | revision | dtype | setting |", "|---|---|---|---|"]
        out += [
            markdown.row(run["model"], run.get("revision"), run.get("dtype"), markdown.code(run["setting_key"]))
            for run in runs
        ]
    else:
        out += ["No model run was planned at launch."]
    out += ["", "## Population, ethics review and power", ""]
    out += _lines(reporting_rows(document.get("reporting") or {}))
    out += ["", "## Statistics to be reported", ""]
    out += [f"- {line}" for line in document.get("statistics", [])]
    out += [""]
    if frozen_at:
        out += ["## Preregistered vs done", ""]
        if deviations:
            out += ["| when | change | how it departs |", "|---|---|---|"]
            out += [markdown.row(row["at"], row["summary"], row["deviation"]) for row in deviations]
        else:
            out += ["Nothing done since launch departs from the preregistration."]
        out += [""]
    return "\n".join(out)


def _sampling(sampling: dict[str, Any], n_items: Any) -> str:
    """The item sampling in words ("all items" for documents frozen before it was recorded)."""
    method = sampling.get("method") or ALL
    drawn = n_items if isinstance(n_items, int) else 0
    chosen = ItemSampling(method=method, size=sampling.get("size"), seed=sampling.get("seed"))
    return describe(chosen, drawn=drawn, available=sampling.get("pool") or drawn)


def _training(training: Mapping[str, Any] | None) -> list[tuple[str, Any]]:
    """The training's lines, for a study that has one."""
    if not training:
        return []
    parts = []
    if training["practice_questions"]:
        parts.append(f"{training['practice_questions']} practice questions with feedback")
    if training["comprehension_questions"]:
        parts.append(
            f"a comprehension check of {training['comprehension_questions']} questions, passed within "
            f"{training['comprehension_tries']} tries"
        )
    return [
        ("Training", ", then ".join(parts)),
        ("Practice questions SHA-256", markdown.code(training["practice_sha256"])),
        ("Comprehension check SHA-256", markdown.code(training["comprehension_sha256"])),
    ]
