"""`manage.py prolific`: thin wrappers over the services, tested with call_command."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from prolific.models import BonusBatch, ProlificSubmission
from tests.prolific.helpers import arrive, prolific_study


def _run(*args: str) -> str:
    out = StringIO()
    call_command("prolific", *args, stdout=out)
    return out.getvalue()


def test_the_commands_walk_a_study_through_prolific(implicature, standin):
    study = prolific_study()
    assert "Created draft" in _run("create", study.name)
    prolific_id = next(iter(standin.studies))
    assert "Published" in _run("publish", study.name)
    bot, submission = arrive(standin, study, prolific_id, 1)
    bot.complete()
    standin.submission_set(submission, "AWAITING REVIEW", study.completion_code)
    assert "1 submissions" in _run("sync")
    dry = _run("review", study.name, "--dry-run")
    assert "A1: approve" in dry and "Dry run: 1 approvals, 0 rejections; nothing sent." in dry
    assert standin.decisions == [] and not ProlificSubmission.objects.exclude(decision="").exists()
    assert "approved 1, rejected 0" in _run("review", study.name)
    assert ProlificSubmission.objects.get().decision == "approve"
    dry = _run("bonuses", study.name, "--per-correct", "5", "--dry-run")
    assert "Dry run: 1 bonus, £0.15." in dry and not BonusBatch.objects.exists() and standin.payments == []
    assert "£0.15 to 1 participant, paid now" in _run("bonuses", study.name)
    assert "No bonus is owed." in _run("bonuses", study.name)
    assert len(standin.payments) == 1
    assert "Stopped" in _run("stop", study.name)
    assert "confirmed both subscriptions (enabled)" in _run("hooks", "https://parity.example.org/prolific/hooks/")
    assert all(subscription["is_enabled"] for subscription in standin.subscriptions)


def test_the_command_refuses_what_it_cannot_do(implicature, standin, settings):
    with pytest.raises(CommandError, match="no study named"):
        _run("create", "nothing")
    with pytest.raises(CommandError, match="give the webhook URL"):
        _run("hooks")
    settings.PROLIFIC_WORKSPACE_ID = ""
    with pytest.raises(CommandError, match="PROLIFIC_WORKSPACE_ID"):
        _run("hooks", "https://parity.example.org/prolific/hooks/")
    study = prolific_study()
    _run("create", study.name)
    with pytest.raises(CommandError, match="give --places N"):
        _run("places", study.name)
    with pytest.raises(CommandError, match="no bonus is waiting for confirmation"):
        _run("bonuses", study.name, "--confirm", "paid")
