"""What a person does in the browser tests."""

from __future__ import annotations


def press_when_focused(page, key: str) -> None:
    """A person presses a key once the page is loaded and its button has the focus."""
    page.wait_for_function("document.readyState === 'complete' && document.activeElement?.type === 'submit'")
    page.keyboard.press(key)
