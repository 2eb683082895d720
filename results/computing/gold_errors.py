"""Possible gold errors: the items every analysed person who answered them answered against the gold.

Where each of several people, answering apart, gives an answer other than the gold, the gold itself is
as likely to be wrong as they all are; the list lets a reader judge each item, and the exclusion
robustness table (`results.computing.robustness`) gives the headline figures without them.

An item enters when at least `MIN_PEOPLE` analysed people gave it a valid answer and none of those
answers is right. One person's wrong answer is that person's mistake as often as the gold's, so it
says nothing of the gold; two apart agreeing against it is the least that does. Invalid answers (an
answer the benchmark could not read) are no answer against the gold and are not counted. A rating
study (people grade model answers) has no gold to answer against, and items without a gold are left
out.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from results.computing.comparison import item_text
from results.computing.tree import PossibleGoldError
from results.loading.columns import HumanColumns
from results.loading.study_data import StudyData

#: the fewest people who must each answer an item against the gold for it to be listed
MIN_PEOPLE = 2


def possible_gold_errors(data: StudyData, rows: HumanColumns) -> list[PossibleGoldError]:
    """The analysed rows' items answered against the gold by every person who answered them, in the
    items' order of presentation (unit, then position)."""
    if data.is_graded or not len(rows):
        return []
    valid = rows.take(rows.valid)
    found = []
    for index in np.unique(valid.item).tolist():
        item = valid.items[index]
        if not item.gold:
            continue
        on_item = valid.take(valid.item == index)
        people = np.unique(on_item.participant).size
        if people < MIN_PEOPLE or bool(on_item.correct.any()):
            continue
        given = Counter(on_item.answers[int(a)] for a in on_item.answer.tolist())
        found.append(
            PossibleGoldError(
                item=item.key,
                text=item_text(item.prompt),
                gold=item.gold,
                n_people=int(people),
                answers=dict(sorted(given.items(), key=lambda pair: (-pair[1], pair[0]))),
            )
        )
    order = {item.key: (item.units[:1], item.order) for item in valid.items}
    return sorted(found, key=lambda error: order[error.item])
