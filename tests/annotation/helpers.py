"""Small factories for AmbiBench, MiQA and instruction-induction studies, and HTML readers for their pages."""

from __future__ import annotations

import re
from html import unescape

from annotation.services import benchmark_import
from studies.models import Study
from studies.setup.studies import study_create
from tests.conftest import datasets_dir

# 48 episodes hold 4 per salient feature in each format; 12 prompts hold 1 per feature and format.
AMBIBENCH_OPTIONS = {"seed": 0, "episodes": 48, "instruction_prompts": 12}

_CSRF = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+')
_ANSWERED = re.compile(
    r'<li class="example answered" data-position="(\d+)">.*?<span class="label-shown">([^<]*)</span>', re.S
)
_BUTTON_VALUES = re.compile(r'<button type="submit" name="answer" value="([^"]+)"')


def import_ambibench():
    return benchmark_import(name="ambibench", source=None, options=AMBIBENCH_OPTIONS)


def import_miqa():
    return benchmark_import(name="miqa", source=datasets_dir() / "miqa")


def import_instruction_induction():
    return benchmark_import(name="instruction_induction", source=datasets_dir() / "instruction_induction")


def ambibench_study(name: str = "ambibench pilot", group: str = "", **design) -> Study:
    return study_create(name=name, benchmark="ambibench", design={"per_feature": 1, **design}, group=group)


def without_csrf(html: str) -> str:
    """The page with its per-response CSRF tokens blanked, so two renders can be compared."""
    return _CSRF.sub(r"\1", html)


_ITEM_TOKEN = re.compile(r'(name="item" value=")[0-9a-f]{20}"')


def without_item_token(html: str) -> str:
    """The page with the answer form's item token (20 hex characters, different on every page by
    design) blanked, so two items' pages can be compared; anything else there stays."""
    return _ITEM_TOKEN.sub(r'\1token"', html)


def answered_labels(html: str) -> list[tuple[int, str]]:
    """(position, label) of each labelled sentence in the episode history, in page order."""
    return [(int(position), unescape(label)) for position, label in _ANSWERED.findall(html)]


def button_values(html: str) -> list[str]:
    """The values of the answer buttons, in on-screen order."""
    return _BUTTON_VALUES.findall(html)
