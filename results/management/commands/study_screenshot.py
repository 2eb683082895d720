from __future__ import annotations

import importlib.util
import mimetypes
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test import Client
from django.urls import reverse

from results.presenting.report.materials import SCREENSHOT
from studies.models import Study

#: the address the browser believes it is at; every request to it is answered in this process
ORIGIN = "http://parity.invalid"
#: the window an item page is drawn in: a laptop's width; the image is as tall as the page needs
VIEWPORT_WIDTH, VIEWPORT_HEIGHT = 1200, 480
#: the preview's banner for the researcher (templates/participation/partials/_preview_banner.html)
PREVIEW_BANNER = "#preview-banner"
#: the preview's note on an attention check (templates/participation/partials/_item.html)
ATTENTION_NOTE = b'id="preview-attention-check"'
#: how many times the preview is begun again for a first item that is not an attention check
TRIES = 10
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


class Command(BaseCommand):
    help = (
        f"A PNG of the study's first page after consent and instructions, as its participants see it "
        f"(the researcher's preview, drawn by headless Chromium), written as {SCREENSHOT} beside a "
        "report: `study_report --out` in that folder shows it, and the LaTeX report includes it when compiled. "
        "Needs Playwright and Chromium (scripts/setup --dev installs them; CHROMIUM_PATH names another Chromium)."
    )

    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the study's name")
        parser.add_argument("--dir", default=".", help=f"the folder to write {SCREENSHOT} to (default: here)")

    def handle(self, *args: Any, name: str, dir: str, **options: Any) -> None:
        study = Study.objects.filter(name=name).first()
        if study is None:
            raise CommandError(f"no study named {name!r}")
        if study.is_imported:
            raise CommandError(f"{name!r} imported its human answers: its participants never saw Parity's pages")
        folder = Path(dir)
        if not folder.is_dir():
            raise CommandError(f"--dir {dir}: no such folder")
        chromium = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is None:
            raise CommandError("Chromium is needed: `apt-get install chromium`, or set CHROMIUM_PATH")
        if importlib.util.find_spec("playwright") is None:
            raise CommandError("Playwright is needed: pip install -r requirements-dev.txt")
        viewer = study.owner or get_user_model().objects.filter(is_superuser=True, is_active=True).first()
        if viewer is None:
            raise CommandError(f"{name!r} has no owner and no superuser exists to preview it as")
        url = reverse("participation:preview", args=[study.pk])
        html = _item_page(study, viewer, url)
        path = folder / SCREENSHOT
        drawn(chromium, url, html, path)
        self.stderr.write(f"Wrote the item page of {study.name!r} to {path}")


def drawn(chromium: str, url: str, html: bytes, path: Path) -> None:
    """`html`, served at `url`, drawn by headless Chromium into `path`. Playwright's sync API refuses
    a thread whose asyncio loop is running (a caller's, or a test process's after its browser
    tests): the drawing gets a thread of its own."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_draw, chromium, url, html, path).result()


def _draw(chromium: str, url: str, html: bytes, path: Path) -> None:
    """The page drawn by headless Chromium, every request it makes answered by `_answer`."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT})
            page.route("**/*", lambda route: _answer(route, url, html))
            page.goto(ORIGIN + url)
            page.wait_for_load_state("networkidle")
            # the researcher's banner over the preview: participants never see it
            page.locator(PREVIEW_BANNER).evaluate_all("nodes => nodes.forEach(node => node.remove())")
            page.screenshot(path=str(path), full_page=True)
        finally:
            browser.close()


def _item_page(study: Study, viewer: Any, url: str) -> bytes:
    """The page the study's preview shows past its consent and instructions, for its owner (or a
    superuser) signed in: only the preview's session is written. Fetched before the browser starts,
    so the browser's requests never reach the database."""
    # a host the site answers (a wildcard's domain as is), over HTTPS where the site redirects to it
    host = next((host.lstrip(".") for host in settings.ALLOWED_HOSTS if host != "*"), "localhost")
    secure: dict[str, Any] = {"wsgi.url_scheme": "https", "SERVER_PORT": "443"} if settings.SECURE_SSL_REDIRECT else {}
    client = Client(SERVER_NAME=host, **secure)
    client.force_login(viewer)
    for _ in range(TRIES):
        client.post(reverse("participation:preview_restart", args=[study.pk]))
        client.post(reverse("participation:preview_consent", args=[study.pk]), {"agree": "yes"})
        client.post(reverse("participation:preview_begin", args=[study.pk]))
        shown = client.get(url)
        if shown.status_code != 200:
            raise CommandError(f"the study's preview answered {shown.status_code}, not its page")
        # an item of the benchmark, not an attention check, where the preview's order allows
        if ATTENTION_NOTE not in shown.content:
            break
    return shown.content


def _answer(route: Any, url: str, html: bytes) -> None:
    """The browser's requests: the page, its static files (from Django's finders), and nothing from
    the network or the database (a request the page makes later, an empty answer)."""
    parts = urlsplit(route.request.url)
    if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
        route.abort()
        return
    if parts.path == url:
        route.fulfill(status=200, body=html, content_type="text/html; charset=utf-8")
        return
    static = "/" + settings.STATIC_URL.lstrip("/")
    found = finders.find(parts.path[len(static) :]) if parts.path.startswith(static) else None
    if not found:
        route.fulfill(status=204, body="")
        return
    kind = mimetypes.guess_type(str(found))[0] or "application/octet-stream"
    route.fulfill(status=200, body=Path(str(found)).read_bytes(), content_type=kind)
