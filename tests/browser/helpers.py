"""What a person does in the browser tests."""

from __future__ import annotations

from annotation.models import Item


def press_when_focused(page, key: str) -> None:
    """A person presses a key once the page is loaded and its button has the focus."""
    page.wait_for_function("document.readyState === 'complete' && document.activeElement?.type === 'submit'")
    page.keyboard.press(key)


def through_consent_and_instructions(page) -> None:
    """From the start page to the first item, as a person does it: Enter on Start, on the agree
    button and on the instructions' button, each once it has the focus."""
    press_when_focused(page, "Enter")
    page.wait_for_selector("#consent")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#instructions")
    press_when_focused(page, "Enter")
    page.wait_for_selector("#item-area")


def wait_until_interactive(page) -> None:
    """A person waits for the page to be there before pressing keys: scripts loaded, swap settled."""
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    page.wait_for_selector("#item-area:not(.htmx-swapping):not(.htmx-settling):not(.htmx-request)")


def each_item(page, participant):
    """(position, item) for each item of `participant` once its page is there and ready for keys;
    the caller answers it, which brings the next one."""
    for position in range(1, participant.total + 1):
        page.wait_for_selector(f"#progress >> text={position} of {participant.total}")
        wait_until_interactive(page)
        yield position, Item.objects.get(pk=participant.sequence[position - 1])
