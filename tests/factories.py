"""A small factory module and a scripted participant (the oTree "bot" idea) over HTTP."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from html import unescape

from django.db import connections
from django.test import Client
from django.utils import timezone

from annotation.models import Item
from studies.errors import StudyError
from studies.models import Participant, Response, Study
from studies.participants.answer_tokens import answer_token, participant_owner
from studies.setup.studies import study_create

_ITEM = re.compile(r'name="item" value="([^"]*)"')
_POSITION = re.compile(r'name="position" value="(\d+)"')
_START_FORM = re.compile(
    r'<section class="card" id="start">.*?<form method="post" action="(?P<action>[^"]+)"'
    r"(?P<body>.*?)</form>",
    re.S,
)
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def form_item(participant_id: int, position: int, item_id: int) -> str:
    """The answer form's `item` value for this participant, position and item, as the page serves it."""
    return answer_token(participant_owner(participant_id), position, item_id)


def small_study(
    name: str = "pilot",
    *,
    unit_size: int = 5,
    units: int = 2,
    per_unit: int = 2,
    attention_checks: int = 2,
    exclude_at: int = 2,
    **fields,
) -> Study:
    """A small implicature study. A time and reward given are the study's; one paid under
    Prolific's minimum (which the services refuse) is written after the service made the study:
    tests of the monitor's pay warnings need one."""
    design = {
        "units": units,
        "unit_size": unit_size,
        "per_unit": per_unit,
        "attention_checks": attention_checks,
        "exclude_at": exclude_at,
    }
    pay = {key: fields.pop(key) for key in ("estimated_minutes", "reward_pence") if key in fields}
    if pay:
        # the one not given keeps the model's default, as before the time and reward followed the design
        pay = {"estimated_minutes": 30, "reward_pence": 450, **pay}
        try:
            return study_create(name=name, benchmark="implicature", design=design, **pay, **fields)
        except StudyError as exc:
            if "minimum" not in str(exc):
                raise
    study = study_create(name=name, benchmark="implicature", design=design, **fields)
    if pay:
        Study.objects.filter(pk=study.pk).update(**pay)
        study.refresh_from_db()
    return study


def completed_places(study: Study, right: Callable[[int, int], bool], *, with_checks: bool = True) -> None:
    """Every place of every unit taken, in the units' order, by a participant who completed it:
    person p (from 1) right on the item at position i (from 1) where `right(p, i)`. Without
    `with_checks` the units' attention checks are left out of their items."""
    now = timezone.now()
    person = 0
    for unit in study.units.order_by("position"):
        items = [row.item for row in unit.unit_items.order_by("order")]
        if not with_checks:
            items = [item for item in items if not item.is_attention_check]
        for _ in range(unit.capacity):
            person += 1
            participant = Participant.objects.create(
                study=study, unit=unit, prolific_pid=f"{person:024x}", pseudonym=f"A{person}",
                status=Participant.Status.COMPLETED, completed_at=now,
            )  # fmt: skip
            Response.objects.bulk_create(
                Response(
                    participant=participant,
                    item=item,
                    position=position,
                    raw_answer="x",
                    answer="x",
                    valid=True,
                    correct=bool(right(person, position)),
                    shown_at=now,
                    answered_at=now,
                    duration_ms=3000,
                )  # fmt: skip
                for position, item in enumerate(items, start=1)
            )


def row_key(row: int, split: str = "test", benchmark: str = "implicature") -> str:
    """The key of the item built from `row` of the published file (keys hash content, not rows)."""
    return Item.objects.values_list("key", flat=True).get(
        benchmark=benchmark, split=split, meta__row=row, is_attention_check=False
    )


def entry_url(study: Study, pid: str, session: str = "SESSION0001", **params: str) -> str:
    extra = "".join(f"&{name}={value}" for name, value in params.items())
    return f"/s/{study.link}/?PROLIFIC_PID={pid}&STUDY_ID=STUDY0001&SESSION_ID={session}{extra}"


def start(client: Client, page):
    """Press the start page's button (posting its hidden fields), or return any other page as is."""
    html = page.content.decode()
    form = _START_FORM.search(html)
    if form is None:
        return page
    fields = {name: unescape(value) for name, value in _HIDDEN.findall(form.group("body"))}
    return client.post(unescape(form.group("action")), fields, follow=True)


def pid(n: int) -> str:
    return f"{n:024x}"


@dataclass
class Bot:
    """A participant who walks a study through the HTTP views like a browser with JS off."""

    study: Study
    pid: str
    client: Client = field(default_factory=Client)
    pages: list[str] = field(default_factory=list)
    session: str = "SESSION0001"

    def enter(self, **params: str):
        """Open the study link, then press Start: the start page's form posts the link back."""
        page = self.client.get(entry_url(self.study, self.pid, self.session, **params), follow=True)
        return start(self.client, page)

    def post(self, action: str, data: dict, **extra):
        """An answer may name its item by id (an int): it is posted as the page names it, the
        item's token for this participant and position (`form_item`); a str is posted as it is."""
        if action == "answer" and isinstance(data.get("item"), int):
            data = {**data, "item": form_item(self.participant.pk, int(data["position"]), data["item"])}
        return self.client.post(f"/s/{self.study.link}/{action}/", data, follow=True, **extra)

    def step(self):
        response = self.client.get(f"/s/{self.study.link}/step/")
        self.pages.append(response.content.decode())
        return response

    @property
    def participant(self) -> Participant:
        return Participant.objects.get(study=self.study, prolific_pid=self.pid)

    def current_form(self, html: str) -> tuple[int, int]:
        """The page's item (its id, read from the participant's sequence) and position; the page
        names the item only by its token, checked here to be that item's."""
        position = int(_POSITION.search(html).group(1))
        participant = self.participant
        item_id = participant.sequence[position - 1]
        assert _ITEM.search(html).group(1) == form_item(participant.pk, position, item_id)
        return item_id, position

    def item_pages(self):
        """Each item page in turn, as (html, item, position), while the participant is at the items;
        the caller answers it (or the same page comes again)."""
        while self.participant.step == Participant.Step.ITEMS:
            html = self.step().content.decode()
            item_id, position = self.current_form(html)
            yield html, Item.objects.get(pk=item_id), position

    def answer_current(self, choose=None):
        """Answer the current item; `choose(item) -> str` picks the answer (default: the gold)."""
        html = self.step().content.decode()
        item_id, position = self.current_form(html)
        item = Item.objects.get(pk=item_id)
        value = choose(item) if choose else item.gold
        return self.post("answer", {"item": item_id, "position": position, "answer": value})

    def start_items(self) -> Bot:
        """Enter, consent and begin, and pass the study's training (if any) with right answers: the
        first item comes next."""
        self.enter()
        self.post("consent", {"agree": "yes"})
        self.post("begin", {})
        return self.pass_training()

    def pass_training(self) -> Bot:
        """Answer each practice question right and read its feedback, then pass the check at once."""
        study = self.participant.study
        while self.participant.step == Participant.Step.PRACTICE:
            question = study.practice_questions[self.participant.practice_read]
            self.post("practice", {"answer": question["answer"]})
            self.post("practice/next", {})
        if self.participant.step == Participant.Step.COMPREHENSION:
            answers = {f"q{n}": question["answer"] for n, question in enumerate(study.comprehension_questions)}
            self.post("comprehension", {"attempt": self.participant.comprehension_tries, **answers})
        return self

    def answer_items(self, choose=None, *, count: int | None = None, wait=None) -> Bot:
        """Answer the items in turn, all of them or the first `count`; `wait()` runs between an item
        showing and its answer (a test's clock moving on: the answer's response time)."""
        answered = 0
        while self.participant.step == Participant.Step.ITEMS and (count is None or answered < count):
            item_id, position = self.current_form(self.step().content.decode())
            if wait is not None:
                wait()
            item = Item.objects.get(pk=item_id)
            value = choose(item) if choose else item.gold
            self.post("answer", {"item": item_id, "position": position, "answer": value})
            answered += 1
        return self

    def complete(self, choose=None):
        self.start_items()
        while self.participant.step == Participant.Step.ITEMS:
            self.answer_current(choose)
        return self.client.get(f"/s/{self.study.link}/step/")


def arrive_at_once(study: Study, pids: list[str]) -> list[BaseException]:
    """Every PID enters the study in its own thread, released together; returns what they raised."""
    from studies.participants.entry import participant_enter

    barrier = threading.Barrier(len(pids))
    errors: list[BaseException] = []

    def arrive(participant_pid: str) -> None:
        try:
            barrier.wait()
            participant_enter(study=study, pid=participant_pid)
        except BaseException as exc:  # surfaced to the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=arrive, args=(participant_pid,)) for participant_pid in pids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
