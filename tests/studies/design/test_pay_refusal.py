"""A reward refused under Prolific's minimum names the least reward it takes when judged on the minutes
given, as it did when judged on the design's longer estimate: the figure the check itself accepts,
with five pence less (rewards go by 5p) refused again."""

from __future__ import annotations

import re

import pytest

from studies.design.estimates import pay_refusal


def _least(message: str) -> int:
    found = re.search(r"pay at least £(\d+)\.(\d\d)", message)
    assert found, message
    return int(found.group(1)) * 100 + int(found.group(2))


@pytest.mark.parametrize("minutes", [1, 7, 30, 45])
def test_the_plain_refusal_names_the_least_reward_the_check_accepts(minutes):
    message = pay_refusal(1, minutes, None)
    assert message is not None and message.startswith(f"£0.01 for {minutes} minutes is ")
    least = _least(message)
    assert pay_refusal(least, minutes, None) is None
    assert pay_refusal(least - 5, minutes, None) is not None
