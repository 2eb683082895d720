"""What a person does in the browser tests."""

from __future__ import annotations

from django.conf import settings
from django.test import Client

from annotation.models import Item


def sign_in(page, live_server, user) -> None:
    """The browser of `page` signed in as `user` (a session cookie, as after the login form)."""
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "url": live_server.url,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
            }
        ]
    )


def fill_study_form(page, name: str, design: dict[str, str], extra: dict[str, str] | None = None) -> None:
    """The new-study form as a researcher fills it: the name, the design fields given, a consent
    text in Markdown (with a script that must stay text), a failed-check code, and a reward typed
    first below Prolific's minimum and then above it, the hourly pay following each."""
    extra = extra or {}
    page.fill("#id_name", name)
    for key, value in design.items():
        selector = f"#id_design_{key}"
        if page.locator(selector).evaluate("element => element.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    page.fill("#id_consent_text", "You take part **of your own free will**.\n\n<script>window.bad = 1</script>")
    page.fill("#id_failed_attention_code", "FAILEDCHECK")
    # the implied hourly pay follows what is typed
    page.fill("#id_estimated_minutes", extra.get("estimated_minutes", "10"))
    page.fill("#id_reward", "0.10")
    page.wait_for_function("document.getElementById('hourly-pay-verdict').textContent.includes('minimum')")
    page.fill("#id_reward", extra.get("reward", "2.00"))
    page.wait_for_function(
        "document.getElementById('hourly-pay-value').textContent.endsWith('/h')"
        " && document.getElementById('hourly-pay-verdict').textContent === 'ok'"
    )


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
    """A person waits for the page to be there before pressing keys: scripts loaded, swap settled, and
    the item's first moments over (input sooner is ignored: see participant.js)."""
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    page.wait_for_selector("#item-area[data-ready]:not(.htmx-swapping):not(.htmx-settling):not(.htmx-request)")


def each_item(page, participant):
    """(position, item) for each item of `participant` once its page is there and ready for keys;
    the caller answers it, which brings the next one."""
    for position in range(1, participant.total + 1):
        page.wait_for_selector(f"#progress >> text={position} of {participant.total}")
        wait_until_interactive(page)
        yield position, Item.objects.get(pk=participant.sequence[position - 1])
