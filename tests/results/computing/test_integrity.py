"""Model-likeness where researchers see it: kept with the results, on the results page and its filter,
the API, the monitor; and written answers closer to a model's output than to anyone's, with the
packaged sentence model (real embeddings)."""

from __future__ import annotations

import random
from io import StringIO

import pytest
import sklearn.metrics  # noqa: F401 (see below)
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from studies.models import Participant, Response, Study
from tests.factories import small_study
from tests.results.conftest import model_run

# sklearn (and the pandas it imports) is imported here, before the sentence model loads torch: in one
# process, a first import of pandas after transformers has run crashed with a segmentation fault in the
# garbage collector (seen on this machine, Python 3.11, torch 2.13)
pytestmark = pytest.mark.django_db
FLIP = {"yes": "no", "no": "yes"}


def _answering(study: Study, name: str, answers: dict[str, str]) -> Participant:
    """A participant of `study`'s first unit who completed it with `answers` (item key -> raw answer)."""
    unit = study.units.order_by("position").first()
    items = [unit_item.item for unit_item in unit.unit_items.select_related("item").order_by("order")]
    now = timezone.now()
    person = Participant.objects.create(
        study=study,
        unit=unit,
        prolific_pid=f"{abs(hash(name)) % 16**24:024x}",
        pseudonym=name,
        status=Participant.Status.COMPLETED,
        step=Participant.Step.DONE,
        sequence=[item.pk for item in items],
        answered=len(items),
        started_at=now,
        last_seen_at=now,
        completed_at=now,
    )
    Response.objects.bulk_create(
        [
            Response(
                participant=person,
                item=item,
                position=position,
                raw_answer=answers[item.key],
                answer=answers[item.key].strip(),
                valid=True,
                correct=answers[item.key] == item.gold,
                shown_at=now,
                answered_at=now,
                duration_ms=5000,
            )
            for position, item in enumerate(items, start=1)
        ]
    )
    return person


@pytest.fixture
def copied(implicature, researcher):
    """30 implicature items: six people answering with 10% slips, a model that departs from the gold
    answer on every third item, and two people who copy the model with 10% slips (seeded)."""
    study = small_study("copied", unit_size=30, units=1, per_unit=10, attention_checks=0, owner=researcher)
    items = list(study.units.get().items.order_by("unititem__order"))
    rng = random.Random(7)

    def slips(answers: dict[str, str]) -> dict[str, str]:
        changed = set(rng.sample(sorted(answers), 3))
        return {key: FLIP[a] if key in changed else a for key, a in answers.items()}

    gold = {item.key: item.gold for item in items}
    model = {key: FLIP[a] if n % 3 == 0 else a for n, (key, a) in enumerate(gold.items())}
    model_run(study, "stub-lm", {"variant": "ranking", "template": 2, "k": 0, "shots_seed": 0}, model)
    honest = [_answering(study, f"P{n}", slips(gold)) for n in range(1, 7)]
    copiers = [_answering(study, f"C{n}", slips(model)) for n in range(1, 3)]
    return study, honest, copiers


def test_the_flags_kept_off_the_page_filter_flagged_participants_out_of_it(copied, researcher_client):
    study, honest, copiers = copied
    page = researcher_client.get(f"/studies/{study.pk}/results/")
    assert not Participant.objects.filter(study=study).exclude(review_signals={}).exists(), "a page writes nothing"
    call_command("study_results", study.name, "--json", stdout=StringIO())
    flagged = {p.pseudonym for p in Participant.objects.filter(study=study).exclude(review_signals={})}
    assert flagged == {"C1", "C2"}, "computed with the results off a page request, kept on the participants"
    page = researcher_client.get(f"/studies/{study.pk}/results/")
    assert page.status_code == 200 and 'name="flagged"' in page.content.decode()
    assert page.context["results"].human.n_annotators == 8
    without = researcher_client.get(f"/studies/{study.pk}/results/?flagged=exclude")
    results = without.context["results"]
    assert results.human.n_annotators == 6 and results.participants.flagged_left_out == 2
    assert results.participants.included == 6 and "2 flagged left out" in without.content.decode()
    assert researcher_client.get(f"/studies/{study.pk}/results/?flagged=maybe").status_code == 400

    api = APIClient()
    api.force_authenticate(researcher_client.get("/").wsgi_request.user)
    body = api.get(f"/api/studies/{study.pk}/results/", {"flagged": "exclude"}).json()
    assert body["human"]["n_annotators"] == 6
    assert api.get(f"/api/studies/{study.pk}/results/", {"flagged": "all"}).status_code == 400


def test_the_monitor_shows_each_flag_with_its_figures(copied, researcher_client):
    study, _honest, copiers = copied
    call_command("review_signals", study.name, "--no-text", stdout=StringIO())
    html = researcher_client.get(f"/studies/{study.pk}/monitor/").content.decode()
    assert "answers agree with a model&#x27;s far more than with other people&#x27;s: AC1" in html
    assert "with stub-lm (template 2, k=0) over 30 items" in html and "this person with the others" in html
    assert html.count('class="flag-evidence"') == 2


def test_review_signals_prints_every_persons_figures_and_a_dry_run_keeps_nothing(copied):
    study, _honest, _copiers = copied
    out = StringIO()
    call_command("review_signals", study.name, "--dry-run", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 8 and sum(line.startswith("FLAGGED C") for line in lines) == 2
    assert not Participant.objects.filter(study=study).exclude(review_signals={}).exists()


#: per task, a model's instruction; the copier's light edit of it; two people's own words
WRITTEN = [
    (
        "Output the antonym of the given word.",
        "Output the antonym of the word given.",
        ["write the opposite", "Give a word meaning the reverse of this one"],
    ),
    (
        "Translate the English word into French.",
        "Translate the English word to French.",
        ["french for it", "Say this in the language of Paris"],
    ),
    (
        "Return the plural form of the noun.",
        "Return the plural form of this noun.",
        ["more than one of them", "make it many"],
    ),
    (
        "Write the first letter of the word.",
        "Write the first letter of each word.",
        ["the initial", "Which letter does it start with?"],
    ),
    (
        "Add the two numbers together and output the sum.",
        "Add the two numbers and output their sum.",
        ["plus", "total of both numbers"],
    ),
    (
        "Classify the sentiment of the sentence as positive or negative.",
        "Classify the sentence's sentiment as positive or negative.",
        ["happy or sad?", "is the mood good"],
    ),
]


def test_written_answers_closer_to_a_models_output_than_to_anyone_are_flagged(instruction_induction):
    from modelruns.models import ModelResponse, ModelRun, ModelSpec
    from studies.setup.studies import study_create

    study = study_create(
        name="written likeness",
        benchmark="instruction_induction",
        design={"tasks_per_participant": 6, "annotators_per_task": 3},
    )
    items = [ui.item for ui in study.units.order_by("position").first().unit_items.order_by("order")]
    assert len(items) == len(WRITTEN)
    texts = dict(zip((item.key for item in items), WRITTEN))
    _answering(study, "copier", {key: copied for key, (_m, copied, _people) in texts.items()})
    for n in range(2):
        _answering(study, f"P{n + 1}", {key: people[n] for key, (_m, _c, people) in texts.items()})
    spec = ModelSpec.objects.create(name="writer", model="local/writer")
    run = ModelRun.objects.create(study=study, spec=spec, setting={}, setting_key="{}", status=ModelRun.Status.DONE)
    ModelResponse.objects.bulk_create(
        [
            ModelResponse(
                run=run, item=item, raw_answer=texts[item.key][0], answer=texts[item.key][0], valid=True, correct=False
            )
            for item in items
        ]
    )
    out = StringIO()
    call_command("review_signals", study.name, stdout=out)
    said = out.getvalue()
    assert "FLAGGED copier: closer to writer" in said and "on 6 of 6 items (100%)" in said
    kept = dict(Participant.objects.filter(study=study).values_list("pseudonym", "review_signals"))
    assert set(kept["copier"]) == {"model_text"} and kept["P1"] == kept["P2"] == {}
    figures = kept["copier"]["model_text"]
    assert figures["n_closest_to_model"] == 6 and figures["similarity_model"] > 0.9 > figures["similarity_people"]
