"""A small factory module and a scripted participant (the oTree "bot" idea) over HTTP."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from django.db import connections
from django.test import Client

from annotation.models import Item
from studies.models import Participant, Study
from studies.services import study_create

_ITEM = re.compile(r'name="item" value="(\d+)"')
_POSITION = re.compile(r'name="position" value="(\d+)"')


def small_study(name: str = "pilot", *, unit_size: int = 5, units: int = 2, per_unit: int = 2,
                attention_checks: int = 2, exclude_at: int = 2, **fields) -> Study:
    return study_create(name=name, benchmark="implicature",
                        design={"units": units, "unit_size": unit_size, "per_unit": per_unit,
                                "attention_checks": attention_checks, "exclude_at": exclude_at}, **fields)


def entry_url(study: Study, pid: str, session: str = "SESSION0001") -> str:
    return f"/s/{study.link}/?PROLIFIC_PID={pid}&STUDY_ID=STUDY0001&SESSION_ID={session}"


def pid(n: int) -> str:
    return f"{n:024x}"


@dataclass
class Bot:
    """A participant who walks a study through the HTTP views like a browser with JS off."""

    study: Study
    pid: str
    client: Client = field(default_factory=Client)
    pages: list[str] = field(default_factory=list)

    def enter(self):
        return self.client.get(entry_url(self.study, self.pid), follow=True)

    def post(self, action: str, data: dict, **extra):
        return self.client.post(f"/s/{self.study.link}/{action}/", data, follow=True, **extra)

    def step(self):
        response = self.client.get(f"/s/{self.study.link}/step/")
        self.pages.append(response.content.decode())
        return response

    @property
    def participant(self) -> Participant:
        return Participant.objects.get(study=self.study, prolific_pid=self.pid)

    def current_form(self, html: str) -> tuple[int, int]:
        return int(_ITEM.search(html).group(1)), int(_POSITION.search(html).group(1))

    def answer_current(self, choose=None):
        """Answer the current item; `choose(item) -> str` picks the answer (default: the gold)."""
        html = self.step().content.decode()
        item_id, position = self.current_form(html)
        item = Item.objects.get(pk=item_id)
        value = choose(item) if choose else item.gold
        return self.post("answer", {"item": item_id, "position": position, "answer": value})

    def complete(self, choose=None):
        self.enter()
        self.post("consent", {"agree": "yes"})
        self.post("begin", {})
        while self.participant.step == Participant.Step.ITEMS:
            self.answer_current(choose)
        return self.client.get(f"/s/{self.study.link}/step/")


def arrive_at_once(study: Study, pids: list[str]) -> list[BaseException]:
    """Every PID enters the study in its own thread, released together; returns what they raised."""
    from studies.services import participant_enter

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
