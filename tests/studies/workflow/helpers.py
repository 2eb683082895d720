"""Posting the new-study form as a researcher would: the form's own initial values, then edits."""

from __future__ import annotations

from typing import Any

from django.test import Client


def form_data(client: Client, benchmark: str, **changes: Any) -> dict[str, Any]:
    """What the new-study form of `benchmark` posts when left as shown, with `changes` typed in
    (design options by their key: `units=2` sets the field `design_units`)."""
    form = client.get(f"/studies/new/?benchmark={benchmark}").context["form"]
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
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
