"""Bonuses are paid once even when the paying process dies: `manage.py prolific bonuses` runs as a
real process against the stand-in Prolific and a PostgreSQL database shared with this one, and is
killed (SIGKILL, patched in that process only) at the worst moments. A retry pays the bulk bonus
already created, once, or — where the pay call may have gone out — refuses to pay it again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connections

from prolific.bonuses import prolific_bonuses_pay
from prolific.models import BonusBatch, ProlificStudy
from prolific.services import ProlificStudyError, prolific_study_configure, prolific_study_create, prolific_sync
from tests.paths import REPO
from tests.prolific.helpers import arrive, prolific_study

STUDY = "bonus crash"

KILLED_BEFORE_PAYING = """
import os, signal, sys
import django
django.setup()
from django.core.management import call_command
from prolific import bonuses

def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)  # the bulk bonus is stored as created; the pay call never goes out

bonuses._pay_bulk = killed
call_command("prolific", "bonuses", sys.argv[1])
"""

KILLED_AFTER_PAYING = """
import os, signal, sys
import django
django.setup()
from django.core.management import call_command
from prolific.client import ProlificClient

pay = ProlificClient.bonus_pay

def paid_then_killed(self, bulk_id):
    pay(self, bulk_id)
    os.kill(os.getpid(), signal.SIGKILL)  # Prolific paid; the process dies before it records it

ProlificClient.bonus_pay = paid_then_killed
call_command("prolific", "bonuses", sys.argv[1])
"""


def _owed_bonuses(standin) -> None:
    study = prolific_study(STUDY)
    found = prolific_study_create(study=study)
    for n in (1, 2):
        bot, submission = arrive(standin, study, found.prolific_id, n)
        bot.complete()
        standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    prolific_sync(prolific_study=found)
    prolific_study_configure(prolific_study=found, bonus_per_correct_pence=10)


def _killed_run(script: str, database_url: str, standin, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        DATABASE_URL=database_url,
        PROLIFIC_API_URL=standin.url,
        PROLIFIC_API_TOKEN=standin.token,
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(REPO),
        PARITY_VAR_DIR=str(tmp_path / "var"),
        DEBUG="false",
    )
    return subprocess.run(
        [sys.executable, "-c", script, STUDY], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_retry_after_a_crash_between_created_and_paid_pays_that_bulk_once(
    implicature, standin, shared_database_url, tmp_path
):
    _owed_bonuses(standin)
    killed = _killed_run(KILLED_BEFORE_PAYING, shared_database_url, standin, tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    batch = BonusBatch.objects.get()
    assert batch.state == BonusBatch.State.CREATED and batch.bulk_id in standin.bulk_bonuses
    assert standin.payments == []

    call_command("prolific", "bonuses", STUDY)
    call_command("prolific", "bonuses", STUDY)  # a double click
    assert standin.payments == [batch.bulk_id]
    assert list(standin.bulk_bonuses) == [batch.bulk_id]  # never a second bulk bonus
    batch.refresh_from_db()
    assert batch.state == BonusBatch.State.PAID and batch.lines.count() == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_crash_after_the_pay_call_is_never_paid_again_without_a_confirmation(
    implicature, standin, shared_database_url, tmp_path
):
    _owed_bonuses(standin)
    killed = _killed_run(KILLED_AFTER_PAYING, shared_database_url, standin, tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    batch = BonusBatch.objects.get()
    assert batch.state == BonusBatch.State.PAYING and standin.payments == [batch.bulk_id]

    with pytest.raises(CommandError, match="check it on Prolific"):
        call_command("prolific", "bonuses", STUDY)
    assert standin.payments == [batch.bulk_id]
    call_command("prolific", "bonuses", STUDY, "--confirm", "paid")
    call_command("prolific", "bonuses", STUDY)
    batch.refresh_from_db()
    assert batch.state == BonusBatch.State.PAID and standin.payments == [batch.bulk_id]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_clicks_pay_once(implicature, standin, shared_database_url):
    _owed_bonuses(standin)
    found = ProlificStudy.objects.get()
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def click() -> None:
        try:
            barrier.wait()
            prolific_bonuses_pay(prolific_study=found)
        except BaseException as exc:  # surfaced to the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=click) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # a click that finds the bulk being paid by another says so and pays nothing
    assert all(isinstance(exc, ProlificStudyError) and "is being paid" in str(exc) for exc in errors), errors
    batch = BonusBatch.objects.get()
    assert batch.state == BonusBatch.State.PAID
    assert list(standin.bulk_bonuses) == [batch.bulk_id] and standin.payments == [batch.bulk_id]
