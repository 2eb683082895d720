"""Posting the new-study form as a researcher would: the form's own initial values, then edits."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from annotation.models import Item
from studies.models import Study
from studies.participants.answer_tokens import answer_token, preview_owner


def form_data(client: Client, benchmark: str, **changes: Any) -> dict[str, Any]:
    """What the new-study form of `benchmark` posts when left as shown, with `changes` typed in
    (design options by their key: `units=2` sets the field `design_units`)."""
    return _posted(client.get(f"/studies/new/?benchmark={benchmark}").context["form"], changes)


def edit_data(client: Client, study: Study, **changes: Any) -> dict[str, Any]:
    """What a draft's edit form posts when left as shown, with `changes` typed in (as `form_data`)."""
    return _posted(client.get(f"/studies/{study.pk}/edit/").context["form"], changes)


def _posted(form: Any, changes: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name in form.fields:
        value = form[name].value()
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value
    for key, value in changes.items():
        name = f"design_{key}" if f"design_{key}" in form.fields else key
        if value is False:
            data.pop(name, None)
        else:
            data[name] = "on" if value is True else value
    return data


def create(client: Client, benchmark: str, **changes: Any):
    return client.post(f"/studies/new/?benchmark={benchmark}", form_data(client, benchmark, **changes))


ITEM_FIELD = re.compile(r'name="item" value="([^"]*)"')
POSITION_FIELD = re.compile(r'name="position" value="(\d+)"')


class Previewer:
    """A researcher walking the preview through the HTTP views, like a browser with JS off."""

    def __init__(self, client: Client, study: Study) -> None:
        self.client, self.study, self.base = client, study, f"/studies/{study.pk}/preview/"

    def page(self) -> str:
        return self.client.get(self.base).content.decode()

    def post(self, action: str, data: dict) -> str:
        return self.client.post(f"{self.base}{action}/", data, follow=True).content.decode()

    def start_items(self) -> str:
        assert 'id="consent"' in self.page()
        self.post("consent", {"agree": "yes"})
        return self.post("begin", {})

    def item(self, html: str) -> Item:
        """The item the page shows: the page names it only by its token, so the item is the one
        whose token for this preview and position it is."""
        return previewed_item(self.study, html)

    def answer(self, html: str, value_for) -> str:
        item = self.item(html)
        token, position = ITEM_FIELD.search(html).group(1), POSITION_FIELD.search(html).group(1)
        return self.post("answer", {"item": token, "position": position, "answer": value_for(item)})


def previewed_item(study: Study, html: str) -> Item:
    token, position = ITEM_FIELD.search(html).group(1), int(POSITION_FIELD.search(html).group(1))
    owner = preview_owner(study.pk)
    (item,) = [item for item in Item.objects.all() if answer_token(owner, position, item.pk) == token]
    return item
