"""The checklist's analysis (4.x) and documentation (5.x) entries."""

from __future__ import annotations

from parity.reporting.checklist import BY_ID, Answer, Record, computed, not_answered, not_applicable
from parity.reporting.methods import MODEL_CI, gap_ci, human_ci
from results.computing.checklist.answering import answers, missing, original, plural, runs, with_public_address
from results.computing.robustness import rule_label
from results.computing.tree import StudyResults
from studies.models import Study

# -- analysis ------------------------------------------------------------------------------------


@answers("4.1")
def significance(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["4.1"], "no model run", runs(results))
    paired = Record("paired tests", len(results.paired))
    if not results.paired:
        return computed(BY_ID["4.1"], "No: no model run could be tested against the people", runs(results), paired)
    return computed(
        BY_ID["4.1"],
        f"Yes: {plural(len(results.paired), 'model run')} tested against the people, each on the items both answered",
        runs(results),
        paired,
    )


@answers("4.1.1")
def significance_test(study: Study, results: StudyResults) -> Answer:
    paired = Record("paired tests", len(results.paired))
    if not results.paired:
        return not_applicable(BY_ID["4.1.1"], "no paired test", paired)
    return computed(
        BY_ID["4.1.1"],
        f"{results.paired[0].test.method}; McNemar's test on the items with a human majority",
        paired,
        Record("paired test method", results.paired[0].test.method),
    )


@answers("4.2")
def uncertainty(study: Study, results: StudyResults) -> Answer:
    # each interval named by its method, in the methods' words (`parity.reporting.methods`)
    statistics = results.methods.statistics
    said = [f"human accuracy by {human_ci(statistics.human_ci_method)}"]
    if results.models:
        said.append(f"a model's accuracy by {MODEL_CI} ({statistics.n_boot} resamples)")
        said.append(f"a model's gap to the humans from {gap_ci(statistics.gap_ci_method)}")
    return computed(
        BY_ID["4.2"],
        f"Yes: {statistics.ci_level:.0%} CIs: " + "; ".join(said),
        Record("statistics.ci_level", statistics.ci_level),
        Record("statistics.human_ci_method", statistics.human_ci_method),
        Record("statistics.gap_ci_method", statistics.gap_ci_method if results.models else None),
        Record("statistics.n_boot", statistics.n_boot if results.models else None),
        runs(results),
    )


@answers("4.2.1")
def estimate_type(study: Study, results: StudyResults) -> Answer:
    return computed(
        BY_ID["4.2.1"],
        f"Point and interval estimates; each person's accuracy (distribution, {results.human.n_annotators} people)",
        Record("human.n_annotators", results.human.n_annotators),
    )


@answers("4.3")
def same_metric(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["4.3"], "no model run", runs(results))
    return computed(
        BY_ID["4.3"],
        "Yes: accuracy on the same items, by the benchmark's one answer schema",
        runs(results),
        Record("study.benchmark", study.benchmark),
    )


@answers("4.4")
def same_rubric(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["4.4"], "no model run", runs(results))
    return computed(
        BY_ID["4.4"],
        "Yes: the benchmark's gold answers score both",
        runs(results),
        Record("study.benchmark", study.benchmark),
    )


@answers("4.5")
def same_method(study: Study, results: StudyResults) -> Answer:
    if not results.models:
        return not_applicable(BY_ID["4.5"], "no model run", runs(results))
    return computed(
        BY_ID["4.5"],
        "Yes: scored automatically against the gold answer",
        runs(results),
        Record("study.benchmark", study.benchmark),
    )


@answers("4.6")
def robustness(study: Study, results: StudyResults) -> Answer:
    table = results.robustness
    # leaving out the possible gold errors drops items, not people: no exclusion criterion of 4.6's
    rows = [row for row in table.rows if row.rule != "gold_errors_dropped"] if table is not None else []
    records: tuple[Record, ...] = (
        Record("participants.excluded", results.methods.participants.excluded),
        Record("robustness rows", len(rows)),
    )
    if study.is_imported:
        # the published data hold only the people the original study kept: whom it left out is not here to test
        records = (*records, Record("study.is_imported", True))
    if table is None or len(rows) < 2:
        if study.is_imported:
            return not_answered(
                BY_ID["4.6"],
                "the published data hold only the people the original study kept, so its exclusions cannot be "
                "tested here",
                *records,
            )
        if not results.methods.participants.excluded:
            return not_applicable(
                BY_ID["4.6"], "no participant was excluded, flagged or had an answer under the floor", *records
            )
        return not_answered(
            BY_ID["4.6"],
            "no exclusion was for failed attention checks, and none flagged or under the answer floor changes "
            "the figures; the other exclusions are the researchers' to test",
            *records,
        )
    said = []
    for row in rows:
        rule = rule_label(row, table.answer_floor_ms)
        rule = rule[0].lower() + rule[1:]
        gaps = ", ".join(f"{gap.label} {_gap(gap.gap)}" for gap in row.gaps)
        people = f"{row.n_annotators} {'person' if row.n_annotators == 1 else 'people'}"
        counted = f"{people}, {plural(row.n_answers, 'answer')}"
        said.append(f"{_pct(row.mean)} {rule} ({counted}{'; gap ' + gaps if gaps else ''})")
    return computed(BY_ID["4.6"], "Yes: human accuracy " + "; ".join(said), *records)


def _pct(value: float | None) -> str:
    return "undefined" if value is None else f"{100 * value:.1f}%"


def _gap(value: float | None) -> str:
    return "undefined" if value is None else f"{100 * value:+.1f} pp"


# -- documentation -------------------------------------------------------------------------------


@answers("5.1.1")
def demographics(study: Study, results: StudyResults) -> Answer:
    asked = [key for key in ("age", "gender", "first_language", "education") if key in (study.closing_questions or [])]
    record = Record("study.closing_questions: demographics", ", ".join(asked))
    if not asked:
        return missing("5.1.1", record)
    closing = results.closing
    if closing is None or not closing.n_answered:
        return computed(BY_ID["5.1.1"], "Partial: participants were asked " + ", ".join(asked), record)
    said = [f"{closing.n_answered} of {closing.n_participants} answered the closing questions"]
    if closing.age is not None:
        age = closing.age
        said.append(f"age median {age.median:g} (range {age.low}–{age.high}, {age.n} answers)")
    for key in ("gender", "first_language", "education"):
        counted = closing.counts.get(key)
        if counted:
            said.append(f"{key.replace('_', ' ')}: " + ", ".join(f"{value} {n}" for value, n in counted.items()))
    return computed(
        BY_ID["5.1.1"],
        "Yes: " + "; ".join(said),
        record,
        Record("closing answers", closing.n_answered),
        Record("closing: participants asked", closing.n_participants),
    )


@answers("5.1.2")
def instructions(study: Study, results: StudyResults) -> Answer:
    if results.methods.platform == "imported":
        # the instructions Parity holds are its own defaults, never shown to the original study's people
        return original(study, "5.1.2", "materials")
    record = Record("study.instructions_text", bool(study.instructions_text.strip()))
    if not record.value:
        return missing("5.1.2", record)
    return computed(
        BY_ID["5.1.2"], "Yes: study/instructions.txt and study/consent.txt of the replication bundle", record
    )


@answers("5.1.3")
def time_to_completion(study: Study, results: StudyResults) -> Answer:
    minutes = results.methods.pay.median_minutes
    record = Record("median minutes to complete", minutes)
    if minutes is None:
        return missing("5.1.3", record)
    return computed(BY_ID["5.1.3"], f"Yes: median {minutes:.1f} minutes from entry to completion", record)


@answers("5.1.4")
def ai_tools(study: Study, results: StudyResults) -> Answer:
    # Parity's pages give people the item and its answers, nothing else; what they used besides is 3.5.1's
    if study.is_imported:
        return missing("5.1.4", Record("study.is_imported", True))
    return not_applicable(
        BY_ID["5.1.4"], "participants were given no AI tool", Record("study.is_imported", study.is_imported)
    )


@answers("5.1.5")
def completion_rate(study: Study, results: StudyResults) -> Answer:
    if results.methods.platform == "imported":
        # the import's participants are the people whose answers were published, not who began
        return original(study, "5.1.5", "attrition")
    # every person who entered, by what became of them: the parts add up to `entered`
    people = results.methods.participants
    fates = [(people.completed, "completed")]
    if people.screened_out or results.methods.training is not None and results.methods.training.comprehension_questions:
        fates.append((people.screened_out, "screened out by the comprehension check (asked to return the study)"))
    fates += [
        (people.declined, "declined consent"),
        (people.returned, "returned the study"),
        (people.timed_out, "timed out"),
        (people.in_progress, "still in progress"),
    ]
    said = ", ".join(f"{n} {words}" for n, words in fates)
    were = "was" if people.excluded == 1 else "were"
    excluded = f"; {people.excluded} of the completed {were} excluded" if people.excluded else ""
    did_not = people.entered - people.completed
    return computed(
        BY_ID["5.1.5"],
        f"{did_not} of {people.entered} who entered did not complete: {said}{excluded}",
        *(
            Record(f"participants.{key}", getattr(people, key))
            for key in ("entered", "completed", "screened_out", "declined", "returned", "timed_out", "in_progress")
        ),
    )


@answers("5.2")
def data_available(study: Study, results: StudyResults) -> Answer:
    answered = Record("human.n_answers", results.human.n_answers)
    if not results.human.n_answers:
        return computed(
            BY_ID["5.2"], "No: no participant has answered, so there are no human data to make available", answered
        )
    # every answer of everyone who answered, the excluded too: more than the analysis counts
    fact = "the replication bundle holds every answer, by pseudonym"
    return with_public_address(
        study, "5.2", fact, "Parity does not publish it, and no public address was entered", answered
    )


@answers("5.2.1")
def data_per_person(study: Study, results: StudyResults) -> Answer:
    if not results.human.n_answers:
        return not_applicable(BY_ID["5.2.1"], "no participant has answered", Record("human.n_answers", 0))
    return computed(
        BY_ID["5.2.1"],
        "Yes: humans/answers.jsonl of the replication bundle, each answer with its person's pseudonym",
        Record("human.n_answers", results.human.n_answers),
    )


@answers("5.2.2")
def data_withheld(study: Study, results: StudyResults) -> Answer:
    if not results.human.n_answers:
        return computed(
            BY_ID["5.2.2"], "There are no human data yet: no participant has answered", Record("human.n_answers", 0)
        )
    return not_applicable(
        BY_ID["5.2.2"], "the data are in the replication bundle", Record("human.n_answers", results.human.n_answers)
    )


@answers("5.3")
def materials(study: Study, results: StudyResults) -> Answer:
    if results.methods.platform == "imported":
        # Parity holds the published items, not the original study's instructions or interface
        return with_public_address(
            study,
            "5.3",
            "the items are in the replication bundle; the original study's instructions and interface are not",
            "where the original study's materials are public was not entered",
            Record("methods.platform", "imported"),
        )
    told = "items, consent, instructions" + (" and model prompts" if results.models else "")
    return with_public_address(
        study,
        "5.3",
        f"{told} are in the replication bundle",
        "Parity does not publish it, and no public address was entered",
        Record("methods.platform", results.methods.platform),
    )


@answers("5.4")
def analysis_code(study: Study, results: StudyResults) -> Answer:
    answered = Record("human.n_answers", results.human.n_answers)
    if not results.human.n_answers:
        return computed(BY_ID["5.4"], "No: there is no analysis yet: no participant has answered", answered)
    return with_public_address(
        study,
        "5.4",
        "Parity's analysis (manage.py reanalyse) reproduces analysis/study_results.json from the replication bundle",
        "no public address of the code and the bundle was entered",
        answered,
    )
