"""The one renderer of the texts researchers write for participants (consent, instructions).

Markdown (CommonMark) with raw HTML switched off: a `<script>` or any other tag in the text is shown
as text, never passed to the page, and links to `javascript:`, `vbscript:`, `file:` or `data:`
addresses are not made links. Participant pages and the researcher's preview both render with it.
"""

from __future__ import annotations

from functools import lru_cache

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    # "js-default": CommonMark rules with html=False (raw HTML escaped) and markdown-it's link
    # validation (script-capable URL schemes refused)
    return MarkdownIt("js-default", {"breaks": True, "linkify": False, "typographer": False})


def render_markdown(text: str) -> SafeString:
    """`text` as safe HTML: every tag in it is escaped by the renderer, so the result may be marked safe."""
    return mark_safe(_renderer().render(text or ""))
