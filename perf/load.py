"""Simulated participants over real HTTP.

A participant is an aiohttp session with its own cookie jar that walks a study as a browser does:
the study link, the start page's form, consent, instructions, then one answer per item, on either
path of the answer form:
- `nojs`: the form's own POST, answered 302 to the step page, which the participant then GETs;
- `htmx`: the POST htmx sends (`HX-Request: true`, the CSRF token in `X-CSRFToken`), answered with
  the next item's fragment; after the last item an `HX-Redirect` to the done page.
Nothing is followed automatically: every request is one the participant makes and counts.

A request that fails (connection refused or cut, a timeout, a 5xx) is never sent again as it was:
like a person, the participant reloads the step page and goes on from what the server shows (or
opens the study link again when the server no longer knows them). Only an answer POST answered
200 or 302 counts as acknowledged; `perf.verify` then checks each one is stored exactly once.

Pure Python (aiohttp only): the benchmark `perf/participants.py` and the serving fault test share it.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from html import unescape
from urllib.parse import urlencode

import aiohttp

from perf.cpu import CpuMeter, Snapshot

PATHS = ("htmx", "nojs")

_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
#: the token a whole page gives htmx (`<body hx-headers=...>`), which htmx sends as a header
_HX_CSRF = re.compile(r'"X-CSRFToken": "([^"]+)"')
_FORM = {"Content-Type": "application/x-www-form-urlencoded"}
_START_FORM = re.compile(r'id="start".*?<form[^>]*action="([^"]+)"(.*?)</form>', re.S)
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')
#: the item's token (an opaque value the server checks), posted back as served
_ITEM = re.compile(r'name="item" value="([^"]*)"')
_POSITION = re.compile(r'name="position" value="(\d+)"')
_CHOICES = re.compile(r'<button type="submit" name="answer" value="([^"]+)"')
_CODE = re.compile(r'id="completion-code">([^<]+)<')
_KINDS = (
    ("item", 'id="item-area"'),
    ("done", 'id="done"'),
    ("consent", 'id="consent"'),
    ("instructions", 'id="instructions"'),
    ("start", 'id="start"'),
)


class Failed(Exception):
    """A request that got no usable answer: the participant reloads."""


@dataclass(frozen=True)
class Answer:
    """An answer the server acknowledged: `item` is the form's opaque token for the item, as served
    (the page never gives the item's id; perf.verify checks the stored item against the sequence)."""

    pid: str
    position: int
    item: str
    answer: str


@dataclass
class Outcome:
    """What one participant did and saw."""

    pid: str
    completed: bool = False
    code: str = ""
    acknowledged: list[Answer] = field(default_factory=list)
    answer_ms: list[float] = field(default_factory=list)
    #: when each acknowledged answer's response was read in full (`time.perf_counter()`): the
    #: open-loop load measures an answer's latency from its scheduled time to this
    answered_at: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    failures: int = 0
    reloads: int = 0
    error: str = ""

    @property
    def server_errors(self) -> int:
        return sum(count for status, count in self.statuses.items() if status >= 500)


def page_kind(html: str) -> str:
    for kind, marker in _KINDS:
        if marker in html:
            return kind
    return "problem"


class Pause:
    """Holds the participants' new requests while something else is measured on the same server:
    `hold` closes it and returns once no request of theirs is in flight, `release` opens it again."""

    def __init__(self) -> None:
        self._open, self._idle = asyncio.Event(), asyncio.Event()
        self._open.set()
        self._idle.set()
        self._in_flight = 0

    async def enter(self) -> None:
        await self._open.wait()
        self._in_flight += 1
        self._idle.clear()

    def leave(self) -> None:
        self._in_flight -= 1
        if not self._in_flight:
            self._idle.set()

    async def hold(self) -> None:
        self._open.clear()
        await self._idle.wait()

    def release(self) -> None:
        self._open.set()


class Participant:
    """One person with one browser: `start` (to the first item), `answer_all`, `finish` (the done page)."""

    def __init__(
        self,
        http: aiohttp.ClientSession,
        *,
        base_url: str,
        link: str,
        pid: str,
        path: str,
        session_id: str,
        on_answer: Callable[[Answer], None] | None = None,
        max_failures: int = 50,
        backoff: float = 0.25,
    ) -> None:
        if path not in PATHS:
            raise ValueError(f"path must be one of {PATHS}, not {path!r}")
        self.http, self.base, self.link, self.path = http, base_url.rstrip("/"), link, path
        self.outcome = Outcome(pid)
        self.session_id, self.on_answer = session_id, on_answer
        self.max_failures, self.backoff = max_failures, backoff
        self.page = ""
        #: the CSRF token htmx sends, from the last whole page
        self.hx_token = ""
        #: where an `HX-Redirect` sends the browser next
        self.next_url = ""
        self.reloading = False
        self.rng = random.Random(pid)
        #: while set, each request waits for it to be open (the trivial view is being measured)
        self.pause: Pause | None = None

    # -- requests -----------------------------------------------------------------------------

    async def _send(
        self, method: str, url: str, data: dict | None = None, headers: dict | None = None
    ) -> tuple[int, dict, str, float]:
        if data is not None:  # encoded as a browser does, without aiohttp's general form machinery
            data, headers = urlencode(data).encode(), {**(headers or {}), **_FORM}
        pause = self.pause
        if pause is not None:
            await pause.enter()
        began = time.perf_counter()
        try:
            async with self.http.request(
                method,
                url if url.startswith("http") else self.base + url,
                data=data,
                headers=headers,
                allow_redirects=False,
            ) as answer:
                body = await answer.text()
        except (TimeoutError, aiohttp.ClientError, ConnectionError) as exc:
            raise Failed(f"{method} {url}: {type(exc).__name__}") from exc
        finally:
            if pause is not None:
                pause.leave()
        took = (time.perf_counter() - began) * 1000
        self.outcome.statuses[answer.status] += 1
        if answer.status >= 500:
            raise Failed(f"{method} {url}: {answer.status}")
        return answer.status, dict(answer.headers), body, took

    async def _get(self, url: str) -> str:
        """GET `url` and the redirects it answers, as a browser does."""
        for _ in range(5):
            status, headers, body, _took = await self._send("GET", url)
            if status not in (301, 302, 303):
                token = _HX_CSRF.search(body)
                self.hx_token = unescape(token.group(1)) if token else self.hx_token
                return body
            url = headers["Location"]
        raise Failed(f"too many redirects from {url}")

    async def _post_form(self, action: str, fields: dict) -> str:
        token = _CSRF.search(self.page)
        status, headers, body, _took = await self._send(
            "POST", action, {**fields, "csrfmiddlewaretoken": unescape(token.group(1)) if token else ""}
        )
        if status in (301, 302, 303):
            return await self._get(headers["Location"])
        return body

    @property
    def _entry_url(self) -> str:
        return f"/s/{self.link}/?PROLIFIC_PID={self.outcome.pid}&STUDY_ID=PERFSTUDY0001&SESSION_ID={self.session_id}"

    # -- the walk -----------------------------------------------------------------------------

    async def _act(self, until: str) -> bool:
        """One step from the current page; True once the page is `until` (or done)."""
        kind = page_kind(self.page)
        if kind == until or kind == "done":
            if kind == "done":
                code = _CODE.search(self.page)
                self.outcome.completed, self.outcome.code = True, code.group(1) if code else ""
            return True
        if kind == "start":
            form = _START_FORM.search(self.page)
            fields = {name: unescape(value) for name, value in _HIDDEN.findall(form.group(2))}
            self.page = await self._post_form(unescape(form.group(1)), fields)
        elif kind == "consent":
            self.page = await self._post_form(f"/s/{self.link}/consent/", {"agree": "yes"})
        elif kind == "instructions":
            self.page = await self._post_form(f"/s/{self.link}/begin/", {})
        elif kind == "item":
            await self._answer()
        else:  # the server does not know this browser (lost cookie) or refused it: open the link again
            self.outcome.reloads += 1
            self.page = await self._get(self._entry_url)
            if page_kind(self.page) == "problem":
                raise Failed(f"refused: {' '.join(re.sub(r'<[^>]+>', ' ', self.page).split())[:200]}")
        return False

    async def _answer(self) -> None:
        item, position = _ITEM.search(self.page).group(1), int(_POSITION.search(self.page).group(1))
        value = self.rng.choice(_CHOICES.findall(self.page))
        data = {"item": item, "position": str(position), "answer": value}
        headers = None
        if self.path == "htmx":  # the token in a header, from the whole page the fragments are swapped into
            headers = {
                "HX-Request": "true",
                "HX-Target": "item-area",
                "HX-Trigger": "answer-form",
                "HX-Current-URL": f"{self.base}/s/{self.link}/step/",
                "X-CSRFToken": self.hx_token,
            }
        token = _CSRF.search(self.page)  # the form's own field (htmx posts the form's fields too)
        if token:
            data["csrfmiddlewaretoken"] = unescape(token.group(1))
        status, answer_headers, body, took = await self._send("POST", f"/s/{self.link}/answer/", data, headers)
        if status in (200, 302):
            answer = Answer(self.outcome.pid, position, item, value)
            self.outcome.acknowledged.append(answer)
            self.outcome.answer_ms.append(took)
            self.outcome.answered_at.append(time.perf_counter())
            if self.on_answer is not None:
                self.on_answer(answer)
        if "HX-Redirect" in answer_headers:  # htmx loads it as a whole page (next, or in `finish`)
            self.page, self.next_url = "", answer_headers["HX-Redirect"]
        elif status in (301, 302, 303):
            self.page = await self._get(answer_headers["Location"])
        else:
            self.page = body

    async def walk(self, until: str, stop_at_redirect: bool = False, answers: int | None = None) -> None:
        """Go on until the page is `until` ("item": the first item; "done"), or with
        `stop_at_redirect` until an answer is answered with an `HX-Redirect` (the last one), or with
        `answers` once that many more answers are acknowledged; every failed request is followed by
        a reload, until `max_failures` of them."""
        goal = None if answers is None else len(self.outcome.acknowledged) + answers
        while True:
            if goal is not None and len(self.outcome.acknowledged) >= goal:
                return
            try:
                if not self.page:
                    if self.reloading:
                        url = f"/s/{self.link}/step/"
                    elif stop_at_redirect and self.next_url:
                        return
                    else:
                        url = self.next_url or self._entry_url
                    self.page = await self._get(url)
                    self.reloading, self.next_url = False, ""
                if await self._act(until):
                    return
            except Failed as exc:
                self.outcome.failures += 1
                if self.outcome.failures > self.max_failures:
                    self.outcome.error = f"gave up after {self.outcome.failures} failed requests (last: {exc})"
                    raise
                await asyncio.sleep(min(self.backoff * self.outcome.failures, 2.0))
                self.outcome.reloads += 1
                self.page, self.reloading = "", True

    async def start(self) -> None:
        await self.walk("item")

    async def answer_all(self) -> None:
        await self.walk("done", stop_at_redirect=True)

    async def finish(self) -> None:
        await self.walk("done")


# -- many participants ------------------------------------------------------------------------------


@dataclass
class Load:
    """Participants who walked a study together, and how long each phase took (seconds)."""

    path: str
    concurrency: int
    outcomes: list[Outcome]
    phases: dict[str, float]
    #: CPU milliseconds per acknowledged answer in the answering phase, by group (perf/cpu.py)
    cpu_ms: dict[str, float] | None = None
    #: the trivial view, measured in slices between slices of the answering phase (`trivial`)
    trivial: list[Hammered] = field(default_factory=list)

    @property
    def acknowledged(self) -> list[Answer]:
        return [answer for outcome in self.outcomes for answer in outcome.acknowledged]

    @property
    def completed(self) -> int:
        return sum(outcome.completed for outcome in self.outcomes)

    @property
    def server_errors(self) -> int:
        return sum(outcome.server_errors for outcome in self.outcomes)

    @property
    def answers_per_second(self) -> float:
        """Acknowledged answers over the answering phase's time, less the slices of the trivial view."""
        return len(self.acknowledged) / self.phases["answering"] if self.phases.get("answering") else 0.0

    def answer_percentiles(self, *quantiles: float) -> list[float]:
        return percentiles([ms for outcome in self.outcomes for ms in outcome.answer_ms], *quantiles)


def percentiles(values: Sequence[float], *quantiles: float) -> list[float]:
    """The nearest-rank percentiles (0–100) of `values`; NaN each when there are none."""
    ordered = sorted(values)
    if not ordered:
        return [float("nan")] * len(quantiles)
    return [ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] for q in quantiles]


def pids(count: int, prefix: int = 0) -> list[str]:
    """Distinct Prolific IDs (24 hexadecimal characters); `prefix` keeps separate runs apart."""
    return [f"{prefix:08x}{n:016x}" for n in range(count)]


def connector(concurrency: int) -> aiohttp.TCPConnector:
    return aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency, force_close=True)


def browsers(
    shared: aiohttp.TCPConnector,
    *,
    base_url: str,
    link: str,
    pids: Sequence[str],
    path: str,
    timeout: float,
    on_answer: Callable[[Answer], None] | None = None,
    backoff: float = 0.25,
    max_failures: int = 50,
) -> tuple[list[aiohttp.ClientSession], list[Participant]]:
    """A participant per PID, each with a session (and cookie jar) of its own over the `shared`
    connections; the caller closes the sessions."""
    sessions = [
        aiohttp.ClientSession(
            connector=shared,
            connector_owner=False,
            cookie_jar=aiohttp.CookieJar(unsafe=True),  # cookies on 127.0.0.1
            timeout=aiohttp.ClientTimeout(total=timeout),
        )
        for _ in pids
    ]
    people = [
        Participant(
            http,
            base_url=base_url,
            link=link,
            pid=pid,
            path=path,
            session_id=f"S{pid[-12:]}",
            on_answer=on_answer,
            backoff=backoff,
            max_failures=max_failures,
        )
        for http, pid in zip(sessions, pids)
    ]
    return sessions, people


async def all_in_turn(
    people: Sequence[Participant], step: Callable[[Participant], Awaitable[None]], gate: asyncio.Semaphore
) -> None:
    """`step` for every participant still going, as many at a time as `gate` lets in."""

    async def one(person: Participant) -> None:
        if person.outcome.error:
            return
        async with gate:
            try:
                await step(person)
            except Failed:
                pass  # recorded in the outcome
            except Exception as exc:  # a page the client cannot read: recorded, the others go on
                person.outcome.error = f"{type(exc).__name__}: {exc}"

    await asyncio.gather(*(one(person) for person in people))


async def run_participants(
    *,
    base_url: str,
    link: str,
    pids: Sequence[str],
    path: str,
    concurrency: int,
    phased: bool = True,
    timeout: float = 60.0,
    on_answer: Callable[[Answer], None] | None = None,
    backoff: float = 0.25,
    max_failures: int = 50,
    meter: CpuMeter | None = None,
    trivial: Callable[[], Awaitable[Hammered]] | None = None,
    every: float = 2.0,
) -> Load:
    """Walk every PID through the study, `concurrency` participants (and connections) at a time.

    `phased`: all reach their first item, then all answer (the timed "answering" phase: answer POSTs,
    and on the no-JS path the step pages they redirect to), then all load the done page. Otherwise
    each walks straight through and the one phase is "answering". With a `meter`, the CPU of the
    answering phase per acknowledged answer.

    With `trivial` (a `hammer` of the trivial view), the answering phase is cut into slices of
    `every` seconds: after each, the participants' new requests wait, those in flight finish, and
    `trivial` runs alone on the server. Both are then measured in the same minutes, under the same
    drift of the machine's speed; the answering phase's time and CPU leave the trivial slices out
    (the time its requests in flight take to finish stays in). A phase shorter than `every` gets
    its one slice right after it."""
    gate = asyncio.Semaphore(concurrency)
    shared = connector(concurrency)
    sessions, people = browsers(
        shared,
        base_url=base_url,
        link=link,
        pids=pids,
        path=path,
        timeout=timeout,
        on_answer=on_answer,
        backoff=backoff,
        max_failures=max_failures,
    )

    async def each(step: Callable[[Participant], Awaitable[None]]) -> tuple[float, float]:
        began = time.perf_counter()
        await all_in_turn(people, step, gate)
        return began, time.perf_counter()

    async def seconds(step: Callable[[Participant], Awaitable[None]]) -> float:
        began, ended = await each(step)
        return ended - began

    meter = meter or CpuMeter(None)
    phases: dict[str, float] = {}
    try:
        if phased:
            phases["entering"] = await seconds(Participant.start)
        pause = Pause() if trivial is not None else None
        for person in people:
            person.pause = pause
        before = meter.snapshot()
        answering = asyncio.ensure_future(each(Participant.answer_all if phased else Participant.finish))
        slices, spans, set_aside = [], [], Snapshot.zero() if before else None
        while trivial is not None and not (await asyncio.wait({answering}, timeout=every))[0]:
            await pause.hold()
            began, first = time.perf_counter(), meter.snapshot()
            slices.append(await trivial())
            spans.append((began, time.perf_counter()))
            set_aside = Snapshot.add(set_aside, first, meter.snapshot())
            pause.release()
        phases["answering"] = answering_seconds(*await answering, spans)
        after = Snapshot.less(meter.snapshot(), set_aside)
        if trivial is not None and not slices:
            # the phase was over before its first slice (a fast machine, few participants): the
            # trivial view once now, alone on the same server, so that the ratio has its figure
            slices.append(await trivial())
        for person in people:
            person.pause = None
        if phased:
            phases["finishing"] = await seconds(Participant.finish)
    finally:
        for http in sessions:
            await http.close()
        await shared.close()
    outcomes = [person.outcome for person in people]
    answers = sum(len(outcome.acknowledged) for outcome in outcomes)
    return Load(path, concurrency, outcomes, phases, CpuMeter.per_request(before, after, answers), slices)


def answering_seconds(began: float, ended: float, spans: Sequence[tuple[float, float]]) -> float:
    """The answering phase's time from `began` to `ended`, less the part of each trivial slice
    (`spans`, from its start to its end) that fell inside it. A slice can start when the last
    answers are already in (the participants were held once their requests in flight had finished,
    and none had any left); its time is not the answering phase's, and taking it off all the same
    would shorten the phase and inflate answers/s."""
    inside = sum(max(0.0, min(end, ended) - max(start, began)) for start, end in spans)
    return ended - began - inside


@dataclass(frozen=True)
class Hammered:
    ok: int
    failed: int
    per_second: float
    #: CPU milliseconds per request answered 200, by group (perf/cpu.py), with a meter
    cpu_ms: dict[str, float] | None = None
    seconds: float = 0.0


async def hammer(url: str, *, concurrency: int, seconds: float, meter: CpuMeter | None = None) -> Hammered:
    """GET `url` from `concurrency` clients for `seconds`: how many were answered 200, failed, per
    second, and with a `meter` the CPU per request."""
    ok = failed = 0
    async with aiohttp.ClientSession(connector=connector(concurrency), timeout=aiohttp.ClientTimeout(total=60)) as http:
        stop = time.perf_counter() + seconds

        async def client() -> None:
            nonlocal ok, failed
            while time.perf_counter() < stop:
                try:
                    async with http.get(url) as answer:
                        await answer.read()
                        ok, failed = (ok + 1, failed) if answer.status == 200 else (ok, failed + 1)
                except (TimeoutError, aiohttp.ClientError):
                    failed += 1

        meter = meter or CpuMeter(None)
        before = meter.snapshot()
        began = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(concurrency)))
        took = time.perf_counter() - began
        after = meter.snapshot()
    return Hammered(ok, failed, ok / took, CpuMeter.per_request(before, after, ok), took)
