"""The answer form names its item by an opaque token: the page source tells no attention check from
a study item, and a changed, stale or borrowed token stores nothing, as a wrong item always did."""

from __future__ import annotations

import re

from annotation.models import Item
from studies.models import Response
from tests.factories import Bot, pid, small_study

_ITEM = re.compile(r'name="item" value="([^"]*)"')
_POSITION = re.compile(r'name="position" value="(\d+)"')


def _served(html: str) -> tuple[str, int]:
    return _ITEM.search(html).group(1), int(_POSITION.search(html).group(1))


def test_attention_checks_and_items_are_served_tokens_of_one_form(implicature):
    study = small_study(attention_checks=2)
    bot = Bot(study, pid(4901)).start_items()
    served: dict[bool, list[str]] = {True: [], False: []}
    for html, item, _position in bot.item_pages():
        token, _ = _served(html)
        served[item.is_attention_check].append(token)
        assert not token.isdigit()
        bot.answer_current()
    assert served[True] and served[False]
    tokens = served[True] + served[False]
    # the same length and alphabet for both kinds, and every one different
    assert {len(token) for token in tokens} == {20}
    assert all(re.fullmatch(r"[0-9a-f]{20}", token) for token in tokens)
    assert len(set(tokens)) == len(tokens)
    pks = {str(pk) for pk in Item.objects.values_list("pk", flat=True)}
    assert not pks & set(tokens)


def test_a_changed_stale_or_borrowed_token_stores_nothing_and_the_item_comes_again(implicature):
    study = small_study(attention_checks=2)
    bot, other = Bot(study, pid(4902)).start_items(), Bot(study, pid(4903)).start_items()
    token, position = _served(bot.step().content.decode())
    item = Item.objects.get(pk=bot.participant.sequence[0])
    changed = token[:-1] + ("0" if token[-1] != "0" else "1")
    other_token, _ = _served(other.step().content.decode())
    for wrong in (changed, str(item.pk), other_token, ""):
        page = bot.post("answer", {"item": wrong, "position": position, "answer": item.gold}).content.decode()
        assert not Response.objects.filter(participant=bot.participant).exists()
        assert _served(page) == (token, position)  # the same item again, nothing lost
    # the served token is taken once; posted again (a second press, a refresh) it changes nothing
    for _ in range(2):
        page = bot.post("answer", {"item": token, "position": position, "answer": item.gold}).content.decode()
    assert Response.objects.filter(participant=bot.participant).count() == 1
    following, next_position = _served(page)
    assert next_position == 2 and following != token
    # the first item's token is stale at the second position
    bot.post("answer", {"item": token, "position": next_position, "answer": "yes"})
    assert Response.objects.filter(participant=bot.participant).count() == 1
