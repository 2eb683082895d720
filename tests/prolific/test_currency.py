"""Amounts in the Prolific workspace's currency (GBP or USD), read from Prolific, in the monitor, the
command's lines, the report and the bundle."""

from __future__ import annotations

import json

from prolific.currency import money
from prolific.recruitment import prolific_recruit_configure
from prolific.services import prolific_study_create, prolific_sync
from replication.parts import Source, study_settings
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.presenting.report import build_report
from results.presenting.report.figures import plain
from tests.personas import personas_for, signed_in
from tests.prolific.helpers import prolific_study


def test_a_usd_workspace_s_amounts_are_written_in_dollars(implicature, standin):
    standin.currency = "USD"
    study = prolific_study()
    found = prolific_study_create(study=study)
    assert found.currency == "USD"
    assert ("GET", "/api/v1/workspaces/workspace-1/balance/") in standin.calls  # read from Prolific
    prolific_recruit_configure(prolific_study=found, kind="per_unit", value=2, max_spend_pence=2700)

    page = signed_in(personas_for(study).owner).get(f"/studies/{study.pk}/monitor/").content.decode()
    assert f"{money(study.reward_pence, 'USD')} reward" in page and "of the $27.00 budget" in page
    # Prolific's own minimum and recommended rates are the ones it states, in pounds
    assert "Prolific minimum £6.00, recommended £9.00" in page

    results = study_results_tree(load_study_data(study)).to_json()
    assert results["methods"]["pay"]["currency"] == "USD"
    text = plain(build_report(StudyResults.from_json(results)).methods[0])
    assert f"The reward was ${study.reward_pence / 100:.2f} for an estimated" in text and "£" not in text

    bundled = json.loads(study_settings(Source(study)))
    assert (bundled["reward_pence"], bundled["currency"]) == (study.reward_pence, "USD")


def test_without_a_workspace_the_study_s_own_currency_is_read(implicature, standin, settings):
    settings.PROLIFIC_WORKSPACE_ID = ""
    standin.currency = "USD"
    found = prolific_study_create(study=prolific_study())
    assert found.currency == "USD"  # the study object's currency_code
    assert not any("/workspaces/" in path for _, path in standin.calls)


def test_a_currency_not_read_at_creation_is_read_by_the_next_sync(implicature, standin):
    standin.currency = "USD"
    standin.fail("GET", "/balance/", "500", times=10)
    found = prolific_study_create(study=prolific_study())
    assert found.currency == "USD"  # the balance failed: the created study's currency_code
    found.currency = ""
    found.save()
    standin.failures.clear()
    prolific_sync(prolific_study=found)
    found.refresh_from_db()
    assert found.currency == "USD"


def test_money_is_written_in_its_currency():
    assert [money(450, code) for code in ("GBP", "USD", "", "chf")] == ["£4.50", "$4.50", "£4.50", "CHF 4.50"]
    assert money(None, "USD") == "—"
