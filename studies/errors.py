"""The error a study's writes raise, its message said in words for the researcher."""

from __future__ import annotations


class StudyError(ValueError):
    """`field`: the study's field the message is about (as `study_create` names it), or
    `design_option`: the design option's key; neither when it is about no one field."""

    def __init__(self, message: str, *, field: str | None = None, design_option: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.design_option = design_option
