"""The checklist's execution entries (3.x): the instrument, quality control, what humans and models shared."""

from __future__ import annotations

from modelruns.models import INSPECT_SOURCE
from parity.reporting.checklist import BY_ID, Answer, Record, computed, not_applicable
from results.computing.checklist.answering import answers, imported, missing, original, plural, runs, span
from results.computing.tree import StudyResults
from studies.models import Study

#: the design setting that shuffles each participant's items (`studies.participants.entry._sequence`)
SHUFFLE = "shuffle_items"

# -- execution -----------------------------------------------------------------------------------


@answers("3.1")
def instrument_length(study: Study, results: StudyResults) -> Answer:
    attention = results.methods.attention
    spread = results.methods.design.items_per_participant
    sitting = (
        " per person in the published data; whether in one sitting is not known for the original study"
        if study.is_imported
        else " in one sitting"
    )
    return computed(
        BY_ID["3.1"],
        f"{span(spread)} items{sitting}"
        + (f", with {attention.checks_per_participant} attention checks" if attention.checks_per_participant else ""),
        Record("items per unit, fewest", spread.min),
        Record("items per unit, most", spread.max),
        # an import's attention checks are Parity's default, never the original study's
        *(() if study.is_imported else (Record("study.attention_checks", attention.checks_per_participant),)),
    )


@answers("3.1.1")
def randomized_order(study: Study, results: StudyResults) -> Answer:
    if results.methods.platform == "imported":
        return missing("3.1.1", imported(study))
    # the study's own setting, in the words the methods use for it ("“label” was on/off"); a
    # benchmark without the setting keeps each unit's order (`studies.participants.entry._sequence`)
    setting = next((setting for setting in results.methods.design.settings if setting.key == SHUFFLE), None)
    checks = results.methods.attention.checks_per_participant
    placed = "; the attention checks were placed at random positions" if checks else ""
    fixed = f"every participant met the unit's items in one fixed order{placed}"
    records = (
        Record(f"study.design.{SHUFFLE}", None if setting is None else setting.value),
        Record("study.attention_checks", checks),
    )
    if setting is None:
        return computed(BY_ID["3.1.1"], f"No: the study has no shuffle setting; {fixed}", *records)
    said = f"“{setting.label}” was {'on' if setting.value else 'off'}"
    if setting.value:
        return computed(
            BY_ID["3.1.1"], f"Yes: {said}; each participant's order is shuffled by Parity{placed}", *records
        )
    return computed(BY_ID["3.1.1"], f"No: {said}; {fixed}", *records)


def _excluded(results: StudyResults) -> str:
    people = results.methods.participants
    reasons = "; ".join(f"{reason.n} {reason.reason}" for reason in people.exclusion_reasons)
    text = f"{people.excluded} of {people.entered} excluded" + (f" ({reasons})" if reasons else "")
    left_out = results.participants.flagged_left_out
    if left_out:
        text += f"; {left_out} flagged for review left out of these results"
    return text


@answers("3.2")
def execution_quality_control(study: Study, results: StudyResults) -> Answer:
    attention = results.methods.attention
    checked = attention.checks_per_participant and attention.exclude_at
    if results.methods.platform == "imported":
        # the import's settings are Parity's defaults: the original study's checks are its paper's
        return missing("3.2", imported(study))
    return computed(
        BY_ID["3.2"],
        "Yes" if checked or results.methods.participants.excluded else "No",
        Record("study.attention_checks", attention.checks_per_participant),
        Record("study.exclude_at", attention.exclude_at),
        Record("participants.excluded", results.methods.participants.excluded),
    )


@answers("3.2.1")
def execution_criteria(study: Study, results: StudyResults) -> Answer:
    attention = results.methods.attention
    if results.methods.platform == "imported":
        return missing("3.2.1", imported(study))
    records = (
        Record("study.attention_checks", attention.checks_per_participant),
        Record("study.exclude_at", attention.exclude_at),
        Record("study.min_answer_ms", attention.answer_floor_ms),
    )
    if not attention.checks_per_participant:
        return not_applicable(BY_ID["3.2.1"], "no attention checks", *records)
    checks = plural(attention.checks_per_participant, "attention check")
    text = (
        f"{checks} per participant, excluded at {attention.exclude_at} failed"
        if attention.exclude_at
        else f"{checks} per participant, none excluded for failing them (the study never excludes)"
    )
    if attention.answer_floor_ms:
        text += f"; answers sooner than {attention.answer_floor_ms} ms after the item was shown refused"
    # studies.participants.quality and results.computing.quality raise these for the researcher's review
    text += "; participants flagged for review on fast completion, fast items, straight-lining, pasting"
    return computed(BY_ID["3.2.1"], text, *records)


@answers("3.2.2")
def execution_exclusions(study: Study, results: StudyResults) -> Answer:
    if results.methods.platform == "imported":
        # the published answers are those the original study kept: whom it excluded is its paper's
        return original(study, "3.2.2", "exclusions")
    people = results.methods.participants
    return computed(
        BY_ID["3.2.2"],
        _excluded(results),
        Record("participants.excluded", people.excluded),
        Record("participants.entered", people.entered),
        Record("participants.flagged_left_out", results.participants.flagged_left_out),
    )


def _inspect_runs(results: StudyResults) -> tuple[str, list[Record]]:
    """The clause on runs made in Inspect ("" when none was): which, which Inspect, what they read."""
    made = [model for model in results.methods.models if model.source == INSPECT_SOURCE]
    if not made:
        return "", []
    versions = sorted({model.source_version or "of an unrecorded version" for model in made})
    labels = "; ".join(f"{model.model} ({model.setting})" for model in made)
    clause = (
        f"; {plural(len(made), 'run')} ran in Inspect {', '.join(versions)} ({labels}), the model reading the "
        "prompt the task's own solvers built (the report prints one beside the item's page)"
    )
    return clause, [
        Record(f"run {model.run}: source, Inspect version", f"{model.source} {model.source_version}") for model in made
    ]


@answers("3.3")
def same_interface(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["3.3"], "no model run", runs(results))
    if study.is_imported:
        # a model reads a prompt, whatever page the original study's people answered on
        return computed(
            BY_ID["3.3"],
            "No: models read the benchmark's prompt; the original study's people answered on its own interface",
            runs(results),
            imported(study),
        )
    clause, inspect = _inspect_runs(results)
    return computed(
        BY_ID["3.3"],
        f"No: people answer on web pages, models read the benchmark's prompt{clause}",
        runs(results),
        *inspect,
    )


@answers("3.3.1")
def gui_vs_api(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["3.3.1"], "no model run", runs(results))
    if study.is_imported:
        # the original study's people never saw Parity's pages
        return missing("3.3.1", imported(study))
    return computed(BY_ID["3.3.1"], "Yes: people on Parity's web pages, models through their prompt", runs(results))


@answers("3.3.2")
def interface_adjustment(study: Study, results: StudyResults) -> Answer:
    return missing("3.3.2")


@answers("3.4")
def same_instructions(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["3.4"], "no model run", runs(results))
    settings = sorted({model.setting for model in results.methods.models})
    if results.methods.platform == "imported" and (study.original_study or {}).get("materials"):
        return original(
            study,
            "3.4",
            "materials",
            lead="Partial: the same items; the original study's instructions, ",
            tail=f"; models read the prompt of their setting ({'; '.join(settings)})",
        )
    if results.methods.platform == "imported":
        return computed(
            BY_ID["3.4"],
            "Partial: the same items; the instructions of the original study are not known for the original "
            f"study, models read the prompt of their setting ({'; '.join(settings)})",
            imported(study),
            Record("original_study.materials", None),
            runs(results),
        )
    clause, inspect = _inspect_runs(results)
    return computed(
        BY_ID["3.4"],
        "Partial: the same items; people read the study's instructions, models the prompt of their "
        f"setting ({'; '.join(settings)}){clause}",
        runs(results),
        Record("study.instructions_text", bool(study.instructions_text.strip())),
        *inspect,
    )


@answers("3.4.1")
def instruction_adjustment(study: Study, results: StudyResults) -> Answer:
    # how people's instructions and the models' prompts were made comparable is the researchers' to say
    return missing("3.4.1")


@answers("3.5")
def same_tools(study: Study, results: StudyResults) -> Answer:
    return missing("3.5")


@answers("3.5.1")
def tools_enforced(study: Study, results: StudyResults) -> Answer:
    asked = Record("study.closing_questions: ai_tool", "ai_tool" in (study.closing_questions or []))
    if not asked.value:
        return missing("3.5.1", asked)
    said = "Partial: participants were asked afterwards whether they used an AI tool"
    closing = results.closing
    if closing is None or closing.ai_tool_answered is None:
        return computed(BY_ID["3.5.1"], said, asked)
    said += f"; {closing.ai_tool_yes} of {closing.ai_tool_answered} who answered said they did"
    without = closing.accuracy_without_ai_users
    if closing.ai_tool_yes and without is not None and without.mean is not None:
        said += f", and human accuracy without them is {without.mean:.1%} ({plural(without.n_annotators, 'person')})"
    return computed(
        BY_ID["3.5.1"],
        said,
        asked,
        Record("closing answers: ai tool, yes", closing.ai_tool_yes),
        Record("closing answers: ai tool, answered", closing.ai_tool_answered),
    )


@answers("3.6")
def explanations(study: Study, results: StudyResults) -> Answer:
    asked = results.methods.explanations
    if results.methods.platform == "imported" or asked is None:
        return missing("3.6", imported(study))
    mode = Record("study.explanations", asked.mode)
    if asked.mode == "off":
        return computed(BY_ID["3.6"], "No: people were not asked why they answered as they did", mode)
    given = f"{asked.given} explanation{'' if asked.given == 1 else 's'}"
    people = f"{asked.people} {'person' if asked.people == 1 else 'people'}"
    return computed(
        BY_ID["3.6"],
        f"Yes: {asked.asked}, {given} from {people}, in {asked.file}",
        mode,
        Record("explanations given", asked.given),
        Record("people who gave an explanation", asked.people),
    )
