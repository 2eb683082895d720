"""The report's sentences on who could take part and which items they saw: the Prolific prescreening
as recorded, the people refused for an earlier study of the group, the items sampled, and the closing
question on having seen the items before, and whether people were asked why they answered. Every
number is a figure of the results tree (`methods.recruiting`, `methods.explanations`), as in
`paragraphs`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from parity import sampling
from results.computing.tree import Explanations, Methods, Prescreening, Recruiting, StudyResults
from results.presenting.report.figures import Part, present, series


class Writing(Protocol):
    """What a paragraph being written offers (`paragraphs._Text`): the methods, figures, adding parts."""

    methods: Methods
    tree: StudyResults

    def f(self, read: object, kind: str = "int") -> Part: ...

    def add(self, *parts: Part) -> None: ...


#: the prescreening's lists of Prolific choice ids, with the words the sentence uses
SELECTS: tuple[tuple[Callable[[Prescreening], list[str]], str], ...] = (
    (lambda screening: screening.sex, "sex"),
    (lambda screening: screening.first_languages, "first language"),
    (lambda screening: screening.fluent_languages, "fluent language"),
    (lambda screening: screening.countries, "country of residence"),
)


def _recruiting(results: StudyResults) -> Recruiting:
    """Who could take part, which a sentence here has found recorded."""
    return present(results.methods.recruiting)


def _explanations(results: StudyResults) -> Explanations:
    return present(results.methods.explanations)


def prescreening(t: Writing) -> None:
    """ "Prolific's prescreening admitted only participants aged 18 to 65, ...", when any was set."""
    recruiting = t.methods.recruiting
    if recruiting is None or not recruiting.prescreening.is_set:
        return
    screening = recruiting.prescreening
    # a filter is set where the study stores it: not None, not 0 (`Prescreening.to_json` writes only those)
    parts: list[list[Part]] = []
    if screening.age_min and screening.age_max:
        parts.append(
            [
                "aged ",
                t.f(_recruiting(t.tree).prescreening.age_min),
                " to ",
                t.f(_recruiting(t.tree).prescreening.age_max),
            ]
        )
    elif screening.age_min:
        parts.append(["aged at least ", t.f(_recruiting(t.tree).prescreening.age_min)])
    elif screening.age_max:
        parts.append(["aged at most ", t.f(_recruiting(t.tree).prescreening.age_max)])
    for read, words in SELECTS:
        values = read(screening)
        if values:
            ids = [[t.f(read(_recruiting(t.tree).prescreening)[index], kind="text")] for index in range(len(values))]
            parts.append(
                [f"with {words} (Prolific's choice {'id' if len(values) == 1 else 'ids'}) ", *series(ids, last=" or ")]
            )
    if screening.approval_rate_min:
        parts.append(
            ["with an approval rate of at least ", t.f(_recruiting(t.tree).prescreening.approval_rate_min), "%"]
        )
    if screening.exclude_earlier:
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
        t.f(_recruiting(t.tree).refused_earlier_participation),
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
        t.f(present(_recruiting(t.tree).seen_before).yes),
        " answered yes and ",
        t.f(present(_recruiting(t.tree).seen_before).no),
        " no. ",
    )


def explanations(t: Writing) -> None:
    """ "Participants could write, optionally, why they chose their answer after every 5th item; 12
    explanations from 4 people.", when the study asked (a study that did not says nothing of it)."""
    asked = t.methods.explanations
    if asked is None or asked.mode == "off":
        return
    t.add(
        "Participants could write, optionally, why they chose their answer ",
        t.f(_explanations(t.tree).asked, kind="text"),
        "; ",
        t.f(_explanations(t.tree).given),
        f" explanation{'' if asked.given == 1 else 's'} from ",
        t.f(_explanations(t.tree).people),
        f" {'person' if asked.people == 1 else 'people'}. ",
    )


def items(t: Writing) -> None:
    """ "The units hold 30 of the 600 items, drawn at random stratified by category with seed 1234."."""
    recruiting = t.methods.recruiting
    if recruiting is None or recruiting.items.method == "all":
        return
    how = "at random" + sampling.HOW.get(recruiting.items.method, "")
    t.add(
        "The units hold ",
        t.f(_recruiting(t.tree).items.drawn),
        " of the ",
        t.f(_recruiting(t.tree).items.available),
        f" items, drawn {how} with seed ",
        t.f(_recruiting(t.tree).items.seed, kind="text"),
        ". ",
    )
