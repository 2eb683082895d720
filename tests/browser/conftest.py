from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.paths import REPO

ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        pytest.fail("Chromium is needed for browser tests: `apt-get install chromium` (scripts/setup installs it)")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make here are safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    # scikit-learn and pandas are imported here, before the browser and the live server start: their
    # first import later, during a test, while the live server's threads and Playwright's greenlets
    # ran, crashed the interpreter in garbage collection (twice in runs of tests/browser alone, in
    # pandas' tslibs; never reproduced in a single test)
    import sklearn.metrics  # noqa: F401
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def route_prolific(context) -> None:
    """Prolific is outside this machine: a local stand-in answers its completion URL."""
    context.route(
        "https://app.prolific.com/**",
        lambda route: route.fulfill(
            status=200,
            content_type="text/html",
            body="<html><body><h1 id='prolific'>Prolific stand-in</h1>"
            f"<p id='url'>{route.request.url}</p></body></html>",
        ),
    )


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    yield page
    # a request the live server is still answering holds SQLite's tables while the test's database is
    # emptied ("database table is locked" at teardown): let the page's requests finish first
    try:
        page.wait_for_load_state("networkidle", timeout=5000)
    except PlaywrightError:
        pass
    context.close()


@pytest.fixture
def prolific_standin(page) -> None:
    """For a test that follows a participant to Prolific. Only those route it: while a route is set,
    Playwright turns the browser's cache off and intercepts every request, so every page fetched its
    CSS and scripts again."""
    route_prolific(page.context)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
