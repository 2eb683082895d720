"""The report's sentences on who could take part and which items they saw: the Prolific prescreening
as recorded, the people refused for an earlier study of the group, the items sampled, and the closing
question on having seen the items before, and whether people were asked why they answered. Every
number is a figure of the results tree (`methods.recruiting`, `methods.explanations`), as in
`paragraphs`."""

from __future__ import annotations

from typing import Protocol

from parity import sampling
from results.computing.spine import Methods
from results.presenting.report.figures import Part, series


class Writing(Protocol):
    """What a paragraph being written offers (`paragraphs._Text`): the methods, figures, adding parts."""

    methods: Methods

    def f(self, *path: str | int, kind: str = "int") -> Part: ...

    def add(self, *parts: Part) -> None: ...


ROOT = ("methods", "recruiting")
#: the prescreening's lists of Prolific choice ids, with the words the sentence uses
SELECTS = (
    ("sex", "sex"),
    ("first_languages", "first language"),
    ("fluent_languages", "fluent language"),
    ("countries", "country of residence"),
)


def prescreening(t: Writing) -> None:
    """ "Prolific's prescreening admitted only participants aged 18 to 65, ...", when any was set."""
    recruiting = t.methods.recruiting
    if recruiting is None or not recruiting.prescreening:
        return
    screening = recruiting.prescreening
    path = (*ROOT, "prescreening")
    parts: list[list[Part]] = []
    if "age_min" in screening and "age_max" in screening:
        parts.append(["aged ", t.f(*path, "age_min"), " to ", t.f(*path, "age_max")])
    elif "age_min" in screening:
        parts.append(["aged at least ", t.f(*path, "age_min")])
    elif "age_max" in screening:
        parts.append(["aged at most ", t.f(*path, "age_max")])
    for key, words in SELECTS:
        values = screening.get(key) or []
        if values:
            ids = [[t.f(*path, key, index, kind="text")] for index in range(len(values))]
            parts.append(
                [f"with {words} (Prolific's choice {'id' if len(values) == 1 else 'ids'}) ", *series(ids, last=" or ")]
            )
    if "approval_rate_min" in screening:
        parts.append(["with an approval rate of at least ", t.f(*path, "approval_rate_min"), "%"])
    if screening.get("exclude_earlier"):
        parts.append(["who had not taken part in the researchers' earlier studies on Prolific"])
    if not parts:
        return
    if t.methods.platform == "prolific":
        t.add("Prolific's prescreening admitted only participants ", *series(parts), ". ")
    else:
        # the filters are kept on the study, but only a Prolific study applies them
        t.add(
            "A Prolific prescreening was set (participants ",
            *series(parts),
            "), but no Prolific study was recorded, so it was not applied. ",
        )


def refusals(t: Writing) -> None:
    """The people refused at entry for having taken a study of the same group."""
    recruiting = t.methods.recruiting
    if recruiting is None or not recruiting.refused_earlier_participation:
        return
    n = recruiting.refused_earlier_participation
    t.add(
        t.f(*ROOT, "refused_earlier_participation"),
        f" {'person was' if n == 1 else 'people were'} refused at entry for having taken part in an earlier "
        "study of the same group. ",
    )


def seen_before(t: Writing) -> None:
    """The closing question "Had you seen any of these items before this study?", counted."""
    recruiting = t.methods.recruiting
    if recruiting is None or recruiting.seen_before is None:
        return
    t.add(
        "Asked whether they had seen any of the items before the study, ",
        t.f(*ROOT, "seen_before", "yes"),
        " answered yes and ",
        t.f(*ROOT, "seen_before", "no"),
        " no. ",
    )


def explanations(t: Writing) -> None:
    """ "Participants could write, optionally, why they chose their answer after every 5th item; 12
    explanations from 4 people.", when the study asked (a study that did not says nothing of it)."""
    asked = t.methods.explanations
    if asked is None or asked.mode == "off":
        return
    path = ("methods", "explanations")
    t.add(
        "Participants could write, optionally, why they chose their answer ",
        t.f(*path, "asked", kind="text"),
        "; ",
        t.f(*path, "given"),
        f" explanation{'' if asked.given == 1 else 's'} from ",
        t.f(*path, "people"),
        f" {'person' if asked.people == 1 else 'people'}. ",
    )


def items(t: Writing) -> None:
    """ "The units hold 30 of the 600 items, drawn at random stratified by category with seed 1234."."""
    recruiting = t.methods.recruiting
    if recruiting is None or recruiting.items.method == "all":
        return
    path = (*ROOT, "items")
    how = "at random" + sampling.HOW.get(recruiting.items.method, "")
    t.add(
        "The units hold ",
        t.f(*path, "drawn"),
        " of the ",
        t.f(*path, "available"),
        f" items, drawn {how} with seed ",
        t.f(*path, "seed", kind="text"),
        ". ",
    )
