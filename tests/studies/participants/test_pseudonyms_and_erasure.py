"""Pseudonyms survive deletions, and a data-erasure request removes a Prolific identity for good."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.test import Client

from studies.models import Participant, Response, Study
from studies.participants.entry import participant_enter
from studies.participants.erasure import ErasureError, participant_erase
from tests import personas
from tests.factories import Bot, arrive_at_once, pid, small_study

pytestmark = pytest.mark.django_db


def _pseudonyms(study: Study) -> list[str]:
    return list(Participant.objects.filter(study=study).order_by("pk").values_list("pseudonym", flat=True))


# -- pseudonyms -------------------------------------------------------------------------------


def test_a_new_entrant_after_a_deletion_gets_a_fresh_pseudonym_not_a_500(implicature):
    study = small_study(units=2, per_unit=4)
    for n in (1, 2, 3):
        assert participant_enter(study=study, pid=pid(n)).participant is not None
    Participant.objects.get(study=study, prolific_pid=pid(1)).delete()  # e.g. from the admin
    page = Bot(study, pid(4)).enter()
    assert page.status_code == 200
    assert Participant.objects.get(study=study, prolific_pid=pid(4)).pseudonym == "A4"
    assert _pseudonyms(study) == ["A2", "A3", "A4"]


def test_the_pseudonym_of_the_last_deleted_participant_is_never_handed_out_again(implicature):
    study = small_study(units=2, per_unit=4)
    for n in (1, 2):
        participant_enter(study=study, pid=pid(n))
    Participant.objects.get(study=study, prolific_pid=pid(2)).delete()
    assert participant_enter(study=study, pid=pid(3)).participant.pseudonym == "A3"


def test_imported_studies_count_their_pseudonyms_too(implicature, implicature_source):
    from studies.setup.imports import human_baseline_import

    result = human_baseline_import(benchmark="implicature", source=implicature_source, name="Ruis humans")
    assert result.study.pseudonyms_issued == result.participants == 20


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_entrants_arriving_at_once_after_deletions_all_get_distinct_pseudonyms(postgres, implicature):
    study = small_study("crowd", units=4, per_unit=9, unit_size=10)
    for n in range(6):
        participant_enter(study=study, pid=pid(n))
    Participant.objects.filter(study=study, prolific_pid__in=[pid(1), pid(4)]).delete()
    errors = arrive_at_once(study, [pid(1000 + n) for n in range(20)])
    assert not errors
    pseudonyms = _pseudonyms(study)
    assert len(pseudonyms) == 24 and len(set(pseudonyms)) == 24
    assert set(pseudonyms) == {f"A{n}" for n in range(1, 27)} - {"A2", "A5"}


# -- erasure ----------------------------------------------------------------------------------


@pytest.fixture
def finished(implicature):
    study = small_study(units=2, per_unit=2)
    bot = Bot(study, pid(0xABC))
    bot.complete()
    return study, bot


def test_erasing_replaces_the_identity_so_the_pid_cannot_be_recovered_and_keeps_the_answers(finished):
    study, bot = finished
    participant = bot.participant
    answers = list(participant.responses.values_list("pk", "raw_answer"))
    erasure = participant_erase(study=study, prolific_pid=bot.pid)
    participant.refresh_from_db()
    assert erasure.pseudonym == participant.pseudonym and not erasure.participant_deleted
    assert participant.erased_at is not None
    assert bot.pid not in participant.prolific_pid and participant.prolific_pid.startswith("erased-")
    assert participant.prolific_study_id == "" and participant.prolific_session_id == ""
    assert not Participant.objects.filter(prolific_pid=bot.pid).exists()
    assert list(participant.responses.values_list("pk", "raw_answer")) == answers
    with pytest.raises(ErasureError, match="no participant"):
        participant_erase(study=study, prolific_pid=bot.pid)


def test_erasing_also_removes_the_recorded_session_changes_which_name_prolific_sessions(implicature):
    study = small_study(units=1, per_unit=2)
    participant = participant_enter(
        study=study, pid=pid(0xDEF), prolific_session_id="SESSION-FIRST", same_browser=True
    ).participant
    participant_enter(study=study, pid=pid(0xDEF), prolific_session_id="SESSION-SECOND", same_browser=False)
    participant.refresh_from_db()
    assert [change["to"] for change in participant.session_changes] == ["SESSION-SECOND"]
    participant_erase(study=study, prolific_pid=pid(0xDEF))
    participant.refresh_from_db()
    assert participant.session_changes == [] and participant.prolific_session_id == ""
    assert "SESSION-FIRST" not in str(Participant.objects.filter(pk=participant.pk).values().get())


def test_the_same_pid_cannot_resume_the_erased_session_from_the_same_browser(implicature):
    study = small_study(units=2, per_unit=2)
    bot = Bot(study, pid(0xDEF))
    bot.enter()
    bot.post("consent", {"agree": "yes"})
    bot.post("begin", {})
    bot.answer_current()
    old = bot.participant
    participant_erase(study=study, prolific_pid=bot.pid)
    old.refresh_from_db()
    assert old.status == Participant.Status.RETURNED and old.step == Participant.Step.RELEASED
    # the browser's cookie still names the old participant: it no longer leads there
    assert "could not find your place" in bot.client.get(f"/s/{study.link}/step/").content.decode()
    assert "This link is incomplete" in bot.client.get(f"/s/{study.link}/").content.decode()
    # entering again with the same PID starts afresh, under a new pseudonym
    bot.enter()
    fresh = bot.participant
    assert fresh.pk != old.pk and fresh.pseudonym == "A2" and fresh.answered == 0
    old.refresh_from_db()
    assert old.answered == 1 and old.responses.count() == 1


def test_erasing_with_answers_deletes_the_participant_and_the_pseudonym_stays_retired(finished):
    study, bot = finished
    participant = bot.participant
    n_answers = participant.responses.count()
    erasure = participant_erase(study=study, prolific_pid=bot.pid, delete_answers=True)
    assert erasure.participant_deleted and erasure.answers_deleted == n_answers > 0
    assert not Participant.objects.filter(pk=participant.pk).exists()
    assert not Response.objects.filter(participant_id=participant.pk).exists()
    assert participant_enter(study=study, pid=pid(7)).participant.pseudonym == "A2"


def test_the_command_dry_run_writes_nothing_and_the_real_run_erases(finished, capsys):
    study, bot = finished
    call_command("erase_participant", study.name, bot.pid, "--delete-answers", "--dry-run")
    out = capsys.readouterr().out
    assert "Dry run" in out and "would be deleted" in out
    assert bot.participant.responses.count() > 0
    call_command("erase_participant", study.name, bot.pid)
    assert "erased; answers kept" in capsys.readouterr().out
    assert not Participant.objects.filter(study=study, prolific_pid=bot.pid).exists()
    with pytest.raises(CommandError, match="no participant"):
        call_command("erase_participant", study.name, bot.pid)
    with pytest.raises(CommandError, match="no study named"):
        call_command("erase_participant", "nope", bot.pid)


def test_the_admin_action_needs_the_erase_permission(finished, django_user_model):
    study, bot = finished
    participant = bot.participant
    staff = personas.assistant("assistant", ["studies.view_participant", "studies.change_participant"], on=[study])
    client = Client()
    client.force_login(staff)
    listing = client.get("/admin/studies/participant/").content.decode()
    assert "erase_identity" not in listing
    client.post("/admin/studies/participant/", {"action": "erase_identity", "_selected_action": [participant.pk]})
    participant.refresh_from_db()
    assert participant.erased_at is None and participant.prolific_pid == bot.pid

    staff.user_permissions.add(Permission.objects.get(codename="erase_identity"))
    client.force_login(django_user_model.objects.get(pk=staff.pk))
    assert "erase_identity" in client.get("/admin/studies/participant/").content.decode()
    # the first POST lists whose identity would go, and erases nothing
    asked = client.post(
        "/admin/studies/participant/", {"action": "erase_identity", "_selected_action": [participant.pk]}
    )
    assert "Erase 1 identity" in asked.content.decode() and "A1 · pilot" in asked.content.decode()
    participant.refresh_from_db()
    assert participant.erased_at is None
    client.post(
        "/admin/studies/participant/",
        {"action": "erase_identity", "_selected_action": [participant.pk], "apply": "Erase"},
    )
    participant.refresh_from_db()
    assert participant.erased_at is not None and participant.prolific_pid != bot.pid


def test_an_id_the_participant_typed_is_withheld_from_their_answers_when_they_are_erased(finished):
    """Once erased, their ids are no longer known, so nothing could withhold them from an export or a
    bundle later: the erasure replaces them in the answers and closing answers themselves."""
    from results.loading.selectors import load_study_data
    from results.pipeline import data_export

    study, bot = finished
    participant = bot.participant
    typed = f"my id: {bot.pid.upper()}"
    first = participant.responses.order_by("position").first()
    Response.objects.filter(pk=first.pk).update(raw_answer=typed, answer=typed)
    Participant.objects.filter(pk=participant.pk).update(closing_answers={"feedback": f"{bot.pid} thanks"})
    participant_erase(study=study, prolific_pid=bot.pid)
    first.refresh_from_db()
    participant.refresh_from_db()
    assert (first.raw_answer, first.answer) == ("my id: [withheld]", "my id: [withheld]")
    assert participant.closing_answers == {"feedback": "[withheld] thanks"}
    exported = data_export(load_study_data(study), "csv", include_free_text=True).content.decode().lower()
    assert bot.pid.lower() not in exported
