from __future__ import annotations

import pytest

from tests.prolific.standin import StandIn


@pytest.fixture
def standin(settings):
    """The stand-in Prolific, and settings that send every call to it, with a short time-out (2 s: on a
    loaded machine a local answer took longer than 0.5 s)."""
    server = StandIn(timeout_delay=4.0).start()
    settings.PROLIFIC_API_URL = server.url
    settings.PROLIFIC_API_TOKEN = server.token
    settings.PROLIFIC_TIMEOUT_SECONDS = 2.0
    # tries again as in production, without waiting seconds (tests that time the back-off inject `sleep`)
    settings.PROLIFIC_RETRIES = 4
    settings.PROLIFIC_BACKOFF_SECONDS = 0.001
    settings.PROLIFIC_WORKSPACE_ID = "workspace-1"
    settings.PROLIFIC_PROJECT_ID = ""  # the workspace's one project (the stand-in's project-1)
    settings.PROLIFIC_WEBHOOK_SECRET = ""
    yield server
    server.stop()
