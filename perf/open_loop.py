"""Open-loop load: answers offered at a fixed rate, whatever the server answers.

The closed loop of `perf.load.run_participants` sends a participant's next answer once the last
one is answered, so a slow server slows the load down and the queue it would meet never forms (the
"coordinated omission" of load generators). Here every answer has a time on a schedule fixed before
the first is sent (evenly spaced at the rate, or a Poisson process of that rate), and is sent at
that time, however many answers are still waiting for the server. Its latency runs from that
scheduled time to the moment its response was read in full: a client that could only send it late
(its participant's previous answer not yet answered, or this process short of CPU) adds that delay
to the answer's latency instead of hiding it.

The answers are those of participants who have reached their first item (`enter`, not timed). Answer
i goes to participant i mod P, so each participant's answers are P / rate seconds apart on the
schedule, far more than an answer takes unless the server is overloaded: then the participant's
next answer leaves when the previous one has been answered, late, and the lateness is counted.

A failed request is retried as in `perf.load` (the participant reloads the page and answers what it
shows); every failure is counted. After the last scheduled time, answers still out get `drain`
seconds, then are cut and counted as not acknowledged: a run stops by itself. Traffic goes to
127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import aiohttp

from perf.cpu import CpuMeter
from perf.load import Answer, Failed, Outcome, Participant, all_in_turn, browsers, percentiles

ARRIVALS = ("fixed", "poisson")


def schedule(rate: float, count: int, arrivals: str = "fixed", seed: int = 0) -> list[float]:
    """The seconds after the start at which each of `count` answers is sent: `fixed`, i / rate;
    `poisson`, a Poisson process of `rate` (independent exponential gaps of mean 1 / rate, seeded),
    starting at 0."""
    if rate <= 0:
        raise ValueError(f"the rate must be positive, not {rate}")
    if arrivals == "fixed":
        return [index / rate for index in range(count)]
    if arrivals != "poisson":
        raise ValueError(f"arrivals must be one of {ARRIVALS}, not {arrivals!r}")
    rng, at, times = random.Random(seed), 0.0, []
    for _ in range(count):
        times.append(at)
        at += rng.expovariate(rate)
    return times


@dataclass
class Slot:
    """One answer on the schedule; times in seconds after the start (NaN: did not happen)."""

    index: int
    pid: str
    scheduled: float
    #: when the client began its answer (later than scheduled when it could not send it in time)
    sent: float = math.nan
    #: when its acknowledged response was read in full
    done: float = math.nan

    @property
    def acknowledged(self) -> bool:
        return not math.isnan(self.done)

    @property
    def latency_ms(self) -> float:
        """From the scheduled time, not from the send: the wait for the client counts."""
        return (self.done - self.scheduled) * 1000


@dataclass
class OpenLoad:
    """An open-loop run at one rate: what was scheduled, sent and acknowledged, and when."""

    rate: float
    arrivals: str
    path: str
    slots: list[Slot]
    outcomes: list[Outcome]
    #: seconds from the start to the last acknowledgement (or to the cut)
    seconds: float
    entering_s: float = 0.0
    #: CPU milliseconds per acknowledged answer in the answering phase, by group (perf/cpu.py)
    cpu_ms: dict[str, float] | None = None
    #: answers not acknowledged when the drain ran out (sent or still to send), cut
    cut: int = 0
    #: the schedule's zero, `time.perf_counter()`
    started: float = 0.0

    @property
    def acknowledged(self) -> list[Slot]:
        return [slot for slot in self.slots if slot.acknowledged]

    @property
    def offered_per_second(self) -> float:
        """Scheduled answers over the schedule's span (the rate, or a Poisson draw's own)."""
        span = self.slots[-1].scheduled if len(self.slots) > 1 else 0.0
        return (len(self.slots) - 1) / span if span else float(self.rate)

    @property
    def achieved_per_second(self) -> float:
        """Acknowledged answers over the time from the start to the last of them (to the cut, when
        answers were cut)."""
        return len(self.acknowledged) / self.seconds if self.seconds else 0.0

    @property
    def failed_requests(self) -> int:
        return sum(outcome.failures for outcome in self.outcomes)

    @property
    def server_errors(self) -> int:
        return sum(outcome.server_errors for outcome in self.outcomes)

    def latency_percentiles(self, *quantiles: float) -> list[float]:
        return percentiles([slot.latency_ms for slot in self.acknowledged], *quantiles)

    def send_lag_percentiles(self, *quantiles: float) -> list[float]:
        """Milliseconds from each answer's scheduled time to its send: the client's own lateness."""
        sent = [(slot.sent - slot.scheduled) * 1000 for slot in self.slots if not math.isnan(slot.sent)]
        return percentiles(sent, *quantiles)


@dataclass
class _Person:
    participant: Participant
    slots: list[Slot] = field(default_factory=list)


def local_only(base_url: str) -> None:
    if urlsplit(base_url).hostname != "127.0.0.1":
        raise ValueError(f"the open-loop load is sent to 127.0.0.1 only, not {base_url}")


async def run_open_loop(
    *,
    base_url: str,
    link: str,
    pids: Sequence[str],
    path: str,
    rate: float,
    answers_each: int,
    arrivals: str = "fixed",
    seed: int = 0,
    enter_concurrency: int = 50,
    connections: int = 1000,
    timeout: float = 60.0,
    drain: float = 30.0,
    meter: CpuMeter | None = None,
    on_answer: Callable[[Answer], None] | None = None,
) -> OpenLoad:
    """Bring every PID to their first item (`enter_concurrency` at a time, not timed), then offer
    their `answers_each` answers each at `rate` answers/s on the schedule `arrivals`, over at most
    `connections` connections at once (an answer waiting for one is late, and counted so);
    `on_answer` is told each acknowledged answer as it comes."""
    local_only(base_url)
    shared = aiohttp.TCPConnector(limit=connections, limit_per_host=connections, force_close=True)
    sessions, participants = browsers(
        shared, base_url=base_url, link=link, pids=pids, path=path, timeout=timeout, on_answer=on_answer
    )
    people = [_Person(participant) for participant in participants]
    times = schedule(rate, len(people) * answers_each, arrivals, seed)
    slots = [Slot(index, people[index % len(people)].participant.outcome.pid, at) for index, at in enumerate(times)]
    for slot in slots:
        people[slot.index % len(people)].slots.append(slot)
    try:
        began = time.perf_counter()
        await all_in_turn(participants, Participant.start, asyncio.Semaphore(enter_concurrency))
        entering = time.perf_counter() - began
        meter = meter or CpuMeter(None)
        before = meter.snapshot()
        start = time.perf_counter()
        tasks = {asyncio.ensure_future(_answer_on_schedule(person, start)): person for person in people}
        _, late = await asyncio.wait(tasks, timeout=(times[-1] if times else 0.0) + drain)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
        cut = sum(not slot.acknowledged for task in late for slot in tasks[task].slots)
        ended = time.perf_counter()
        after = meter.snapshot()
    finally:
        for http in sessions:
            await http.close()
        await shared.close()
    done = [slot.done for slot in slots if slot.acknowledged]
    return OpenLoad(
        rate,
        arrivals,
        path,
        slots,
        [person.participant.outcome for person in people],
        max(done) if len(done) == len(slots) else ended - start,
        entering,
        CpuMeter.per_request(before, after, len(done)),
        cut,
        start,
    )


async def _answer_on_schedule(person: _Person, start: float) -> None:
    """The person's answers, each at its scheduled time or, when the previous one is not yet
    answered then, as soon as it is."""
    participant, outcome = person.participant, person.participant.outcome
    for slot in person.slots:
        delay = start + slot.scheduled - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        slot.sent = time.perf_counter() - start
        before = len(outcome.acknowledged)
        try:
            await participant.walk("done", answers=1)
        except Failed:
            return  # gave up after max_failures (recorded in the outcome): the rest are not acknowledged
        except Exception as exc:  # a page the client cannot read: recorded, the others go on
            outcome.error = f"{type(exc).__name__}: {exc}"
            return
        if len(outcome.acknowledged) == before:
            return  # the participant was done or refused: nothing more to answer
        slot.done = outcome.answered_at[-1] - start
