"""Pages show dates and numbers in British English (settings.LANGUAGE_CODE)."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.template import Context, Template
from django.utils import formats


def test_dates_and_numbers_keep_the_british_formats() -> None:
    assert settings.LANGUAGE_CODE == "en-gb"
    assert formats.date_format(datetime.date(2026, 11, 24), "SHORT_DATE_FORMAT") == "24/11/2026"
    rendered = Template("{{ day|date:'SHORT_DATE_FORMAT' }} {{ ratio }}").render(
        Context({"day": datetime.date(2026, 3, 4), "ratio": 0.25})
    )
    assert rendered == "04/03/2026 0.25"
