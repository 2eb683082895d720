"""The one renderer of the texts researchers write for participants (consent, instructions).

Markdown (CommonMark) with raw HTML switched off: a `<script>` or any other tag in the text is shown
as text, never passed to the page, and links to `javascript:`, `vbscript:`, `file:` or `data:`
addresses are not made links. An image is shown only from this site itself (a path such as
`/static/...`): a participant's browser would fetch an image from any other host the moment the page
opens, handing that host their IP address, so such an image is shown as its alt text. Participant
pages and the researcher's preview both render with it.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

if TYPE_CHECKING:
    # imported where a text is first rendered: every command loads the views that import this module
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import OptionsDict


def is_on_this_site(url: str) -> bool:
    """A path on this site (`/static/x.png`, `img/x.png`): no scheme, no host. A backslash counts
    as a slash, as browsers read `/\\host/x` as `//host/x`."""
    url = url.strip().replace("\\", "/")
    parts = urlsplit(url)
    return not parts.scheme and not parts.netloc and not url.startswith("//")


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML

    # "js-default": CommonMark rules with html=False (raw HTML escaped) and markdown-it's link
    # validation (script-capable URL schemes refused)
    md = MarkdownIt("js-default", {"breaks": True, "linkify": False, "typographer": False})
    html = md.renderer
    assert isinstance(html, RendererHTML)  # the renderer MarkdownIt makes unless told otherwise
    image = html.rules["image"]

    def own_images_only(
        renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        token = tokens[idx]
        if is_on_this_site(str(token.attrGet("src") or "")):
            return image(tokens, idx, options, env)
        alt = renderer.renderInlineAsText(token.children or [], options, env)
        return f'<span class="remote-image">{escape(alt)}</span>'

    md.add_render_rule("image", own_images_only)
    return md


def render_markdown(text: str) -> SafeString:
    """`text` as safe HTML: every tag in it is escaped by the renderer, so the result may be marked safe."""
    return mark_safe(_renderer().render(text or ""))
