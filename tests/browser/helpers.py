"""What a person does in the browser tests."""

from __future__ import annotations

import re
from functools import cache

from django.conf import settings
from django.test import Client

from annotation.models import Item
from tests.factories import entry_url, pid

#: a phone as the walks hold one: 360×740 CSS px, a touch screen
PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}


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


def to_training(page, live_server, study, n: int) -> None:
    """Participant `n` from the study link through the start, consent and instructions pages, a
    click on each page's main button: the training (or the first item) comes next."""
    page.goto(live_server.url + entry_url(study, pid(n)))
    for selector in ("#start", "#consent", "#instructions"):
        page.wait_for_selector(selector)
        page.locator(f"{selector} button.primary").first.click()


def practise(page, answers: list[str], *, touch: bool = False) -> None:
    """Answer the practice questions in turn, each with its answer in `answers`: its choice's button
    where it has choices, else typed into its box; then past its feedback (a tap on a touch screen)."""
    for given in answers:
        choice = page.locator("#practice-form button.choice", has_text=given)
        if choice.count():
            target = choice.first
        else:
            page.fill("#practice-answer", given)
            target = page.locator("#practice-form button.primary")
        target.tap() if touch else target.click()
        page.wait_for_selector("#practice-feedback")
        onward = page.locator("#practice button.primary")
        onward.tap() if touch else onward.click()
        page.wait_for_selector("#practice-feedback", state="detached")


def answer_check(page, first: str, second: str) -> None:
    """Tick the label of `first` in the comprehension check's first question, `second` in its second,
    and send them."""
    page.locator("#comprehension-form label", has_text=first).first.click()
    page.locator("#comprehension-form fieldset").nth(1).locator("label", has_text=second).click()
    page.click("#comprehension-form button[type=submit]")


def screened_out_by_the_check(page, live_server, study, n: int) -> None:
    """Participant `n` through the practice and twice wrong on the comprehension check: asked to
    return the study."""
    to_training(page, live_server, study, n)
    practise(page, ["no", "ready"])
    answer_check(page, "Write a story", "no")
    page.wait_for_selector("#comprehension-wrong")
    answer_check(page, "Write a story", "yes")
    page.wait_for_selector("#screened-out")


def plan_for_the_checklist(page) -> None:
    """On the new-study form, what a reviewer's checklist asks to be planned: prescreeners (aged 18
    to 65, 95% approved), the population and its ethics review, practice questions and a comprehension
    check (tests.participation.test_training's), and a "why?" box after every 2nd item."""
    from tests.participation.test_training import CHECK, PRACTICE

    page.fill("#id_age_min", "18")
    page.fill("#id_age_max", "65")
    page.fill("#id_approval_rate_min", "95")
    page.fill("#id_population", "adult native English speakers in the UK")
    page.fill("#id_ethics_body", "University Research Ethics Committee")
    page.fill("#id_ethics_reference", "UREC-2026-17")
    page.fill("#id_practice_questions", PRACTICE)
    page.fill("#id_comprehension_questions", CHECK)
    page.select_option("#id_explanations", "nth")
    page.fill("#id_explanation_every", "2")


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


# -- layout -------------------------------------------------------------------------------------------

#: per radio of the check: its box and the boxes of its label's words (one per line they take)
CHOICE_BOXES = """() => [...document.querySelectorAll("#comprehension-form input[type=radio]")].map(radio => {
    const label = radio.closest("label") || document.querySelector(`label[for="${radio.id}"]`);
    const range = document.createRange();
    const lines = [];
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim()) continue;
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) {
            if (rect.width > 0) lines.push({x: rect.left, y: rect.top, right: rect.right, bottom: rect.bottom});
        }
    }
    const box = radio.getBoundingClientRect();
    return {
        name: radio.name, value: radio.value, text: label.textContent.trim(),
        radio: {x: box.left, y: box.top, right: box.right, bottom: box.bottom}, lines: lines,
    };
})"""


def assert_each_choice_a_row(page) -> list[dict]:
    """The comprehension check's choices as `CHOICE_BOXES` measures them, each on a row of its own:
    its label's lines right of its own radio, the first on the radio's row, and the next choice below
    the whole of it (a label that ran into the next radio invited the wrong tick)."""
    choices = page.evaluate(CHOICE_BOXES)
    for choice in choices:
        radio, lines = choice["radio"], choice["lines"]
        assert lines, choice["text"]
        # every line of the label lies right of its own radio: none wraps round under it or the next
        assert all(line["x"] >= radio["right"] - 0.5 for line in lines), choice
        assert lines[0]["y"] < radio["bottom"] and lines[0]["bottom"] > radio["y"], choice
    for before, after in zip(choices, choices[1:], strict=False):
        bottom = max([before["radio"]["bottom"], *(line["bottom"] for line in before["lines"])])
        top = min([after["radio"]["y"], *(line["y"] for line in after["lines"])])
        # the next choice starts below the whole of this one: not on its line, not over it
        assert top >= bottom - 0.5, (before["text"], after["text"])
    return choices


#: a box as the page lays it out, and what of it can be scrolled to inside its own box
BOX = """selector => { const e = document.querySelector(selector); if (!e) return null;
    const r = e.getBoundingClientRect();
    return {x: r.left, right: r.right, y: r.top, bottom: r.bottom, width: r.width,
            scrollWidth: e.scrollWidth, clientWidth: e.clientWidth}; }"""


def page_width(page) -> int:
    return page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")


def past_the_window(page) -> list[str]:
    """The innermost elements that reach past the window's right edge (outside a scrolling box): what
    widens the page, each with the id of its table's box."""
    return page.evaluate(
        """() => {
            const past = e => e.getBoundingClientRect().right > window.innerWidth + 1;
            const named = e => {
                const box = (e.closest("table") || e).parentElement || e;
                return `${e.tagName.toLowerCase()} in #${box.id} ${Math.round(e.getBoundingClientRect().right)}`;
            };
            return [...document.querySelectorAll("body *")]
                .filter(e => past(e) && ![...e.children].some(past) && !e.closest(".table-wrap"))
                .slice(0, 8).map(named);
        }"""
    )


#: the participant list's Reason column: its header and a cell
REASON_COLUMN = "#result_list th.column-reason", "#result_list td.field-reason"


def assert_reason_column_in_view(page, width: int) -> None:
    """The admin's participant list as a reader sees it: the Reason column beside the filters or
    apart from them (never under them), and on the screen (a phone scrolls the list in its own box)."""
    for cell in REASON_COLUMN:
        if width < 1366:
            page.locator(cell).first.scroll_into_view_if_needed()
        box, filters = page.evaluate(BOX, cell), page.evaluate(BOX, "#changelist-filter")
        beside = box["right"] <= filters["x"] + 1 or box["x"] >= filters["right"] - 1
        apart = box["y"] >= filters["bottom"] - 1 or box["bottom"] <= filters["y"] + 1
        assert beside or apart, (cell, box, filters)
        assert 0 <= box["x"] and box["right"] <= width + 1, (cell, box)


def in_view(page, selector: str) -> dict:
    """Where `selector` lies in the window: its top and bottom against the window's height."""
    return page.evaluate(
        """selector => { const box = document.querySelector(selector).getBoundingClientRect();
            return {top: box.top, bottom: box.bottom, height: window.innerHeight}; }""",
        selector,
    )
