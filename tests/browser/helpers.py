"""What a person does in the browser tests."""

from __future__ import annotations

import re
from functools import cache

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
    # a person waits for the page to be there (its scripts run) before typing
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
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
    try:
        page.wait_for_function(
            "document.getElementById('hourly-pay-value').textContent.endsWith('/h')"
            " && document.getElementById('hourly-pay-verdict').textContent === 'ok'"
        )
    except Exception as error:
        # what the page showed, for the failure's message
        state = page.evaluate(
            "() => ({pay: document.getElementById('hourly-pay').textContent.replace(/\\s+/g, ' '),"
            " estimate: {...document.getElementById('time-estimate').dataset},"
            " minutes: document.getElementById('id_estimated_minutes').value,"
            " reward: document.getElementById('id_reward').value,"
            " design: Object.fromEntries(new FormData(document.getElementById('study-form')).entries())})"
        )
        raise AssertionError(f"the hourly pay did not become 'ok': {state}") from error


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


def wait_until_settled(page) -> None:
    """The item's page is there as a person sees it: scripts loaded and the swap settled (its first
    moments may still run: answers are not taken yet)."""
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    page.wait_for_selector("#item-area:not(.htmx-swapping):not(.htmx-settling):not(.htmx-request)")


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


# -- accessibility ------------------------------------------------------------------------------------

#: the axe-core rules of WCAG 2.0, 2.1 and 2.2 at levels A and AA (axe tags its rules by criterion level)
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")


@cache
def _axe_script() -> str:
    """The axe.min.js bundled with the PyPI package axe-playwright-python."""
    from axe_playwright_python.sync_playwright import Axe

    return Axe().axe_script


def axe_violations(page) -> list[dict]:
    """axe-core's violations of the WCAG A and AA rules on the page as it is now (its bundled
    axe.min.js is injected into the page and run there)."""
    # axe.min.js is half a megabyte to send and parse: it is injected once per document, and stays for
    # the pages htmx swaps into it (the items of a walk); only the violations come back, not the rules
    # that passed or did not apply
    if not page.evaluate("typeof window.axe?.run === 'function'"):
        page.evaluate(_axe_script())
    options = {"runOnly": {"type": "tag", "values": list(AXE_TAGS)}, "resultTypes": ["violations"]}
    return page.evaluate("options => axe.run(document, options).then(results => results.violations)", options)


def _describe(violation: dict) -> str:
    nodes = "".join(
        f"\n      {' '.join(node['target'])}: {node.get('failureSummary', '').replace(chr(10), ' ')}"
        for node in violation["nodes"][:5]
    )
    return f"\n  {violation['id']} ({violation['impact']}): {violation['help']}{nodes}"


def assert_accessible(page, *, context: str) -> None:
    """No axe-core violation of WCAG 2.2 A/AA on the page; `context` names the page in the failure."""
    violations = axe_violations(page)
    assert not violations, f"{context}: {len(violations)} axe-core violation(s)" + "".join(map(_describe, violations))


def assert_no_horizontal_scroll(page, *, context: str) -> None:
    """Nothing wider than the viewport (WCAG 1.4.10 Reflow): the page never scrolls sideways."""
    widths = page.evaluate(
        "({scroll: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth})"
    )
    assert widths["scroll"] <= widths["client"], f"{context}: {widths['scroll']} px wide in {widths['client']} px"


def small_targets(page, minimum: float = 24) -> list[str]:
    """The visible buttons, links and form controls smaller than `minimum` CSS px either way (WCAG
    2.5.8 Target Size), each as 'tag#id "text" WxH'. A link inside a sentence is exempt (the
    criterion's inline exception), and so is a control no one can reach (inside aria-hidden, off the
    screen: the honeypot)."""
    return page.evaluate(
        """minimum => [...document.querySelectorAll(
                'button, a[href], input:not([type=hidden]), select, textarea, summary')]
            .filter(element => element.getClientRects().length && getComputedStyle(element).visibility !== 'hidden')
            // the honeypot: off the screen, out of the tab order and hidden from assistive technology
            .filter(element => !element.closest('[aria-hidden="true"]'))
            .filter(element => element.tagName !== 'A' || getComputedStyle(element).display !== 'inline')
            .map(element => [element, element.getBoundingClientRect()])
            .filter(([, box]) => box.width < minimum || box.height < minimum)
            .map(([element, box]) => `${element.tagName.toLowerCase()}#${element.id} `
                + `"${element.textContent.trim().slice(0, 30)}" ${Math.round(box.width)}x${Math.round(box.height)}`)""",
        minimum,
    )


def faint_controls(page, minimum: float = 3) -> list[str]:
    """The visible boxes and buttons whose edge (their border, or their fill where it differs) has less
    than `minimum`:1 contrast against what they stand on (WCAG 1.4.11 Non-text Contrast), each as
    'tag#id ratio'."""
    return page.evaluate(
        """minimum => {
            const rgb = color => (color.match(/[\\d.]+/g) || []).map(Number);
            const luminance = ([r, g, b]) => [r, g, b].map(v => v / 255)
                .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
                .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
            const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
                                      return (x + 0.05) / (y + 0.05); };
            const opaque = color => { const v = rgb(color); return v.length === 3 || v[3] > 0; };
            const behind = element => { for (let e = element.parentElement; e; e = e.parentElement) {
                const color = getComputedStyle(e).backgroundColor; if (opaque(color)) return rgb(color); }
                return [255, 255, 255]; };
            return [...document.querySelectorAll(
                    'input:not([type=hidden]):not([type=radio]):not([type=checkbox]), textarea, select, button')]
                .filter(element => element.getClientRects().length && !element.closest('[aria-hidden="true"]'))
                .map(element => { const style = getComputedStyle(element), ground = behind(element);
                    const edges = [];
                    if (parseFloat(style.borderTopWidth) > 0) edges.push(ratio(rgb(style.borderTopColor), ground));
                    if (opaque(style.backgroundColor)) edges.push(ratio(rgb(style.backgroundColor), ground));
                    return [element, Math.max(1, ...edges)]; })
                .filter(([, best]) => best < minimum)
                .map(([element, best]) => `${element.tagName.toLowerCase()}#${element.id} ${best.toFixed(2)}`);
        }""",
        minimum,
    )


_CONTROL = re.compile(r"^\s*- (button|link|textbox|checkbox|radio|combobox|spinbutton|slider|switch)\b(?P<rest>.*)$")


def unnamed_controls(page) -> list[str]:
    """The controls in the page's accessibility tree (Playwright's ARIA snapshot, as a screen reader
    gets it) that have no name, each as its snapshot line."""
    lines = page.locator("body").aria_snapshot().splitlines()
    return [line.strip() for line in lines if (found := _CONTROL.match(line)) and not found["rest"].startswith(' "')]
