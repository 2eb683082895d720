"""The error a study's writes raise, its message said in words for the researcher."""

from __future__ import annotations


class StudyError(ValueError):
    pass
