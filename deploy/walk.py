"""A participant walks a study over HTTP, as a browser with JavaScript off: the study link, the start
page's form, consent, the instructions, every item, to the completion page and its link back to
Prolific. Standard library only: scripts/container-check runs it against the containers.

    python3 deploy/walk.py http://127.0.0.1:8000 STUDY_LINK PROLIFIC_PID

It prints the completion code and exits 0, or names the page it could not get past."""

from __future__ import annotations

import html
import http.cookiejar
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

_START_FORM = re.compile(r'<section class="card" id="start">.*?<form method="post" action="([^"]+)"(.*?)</form>', re.S)
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')
_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
_ITEM = re.compile(r'name="item" value="([^"]*)"')
_POSITION = re.compile(r'name="position" value="(\d+)"')
_CHOICE = re.compile(r'<button type="submit" name="answer" value="([^"]*)"')
_TEXT = re.compile(r'<div class="item-text" id="item-text">(.*?)</div>', re.S)
_CODE = re.compile(r'id="completion-code">([^<]+)<')
_RETURN = re.compile(r'id="return-to-prolific" href="([^"]+)"')
#: a pause before each answer: answers faster than MIN_ANSWER_MS are flagged as too fast
ANSWER_PAUSE_SECONDS = 0.7


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Follows redirects within the server only: the way back to Prolific is read, not taken."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        if not urllib.parse.urljoin(req.full_url, newurl).startswith(self.origin):
            return None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Participant:
    def __init__(self, origin: str, link: str) -> None:
        self.origin, self.link = origin.rstrip("/"), link
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies), _SameOrigin(self.origin)
        )
        self.page = ""

    def _open(self, path: str, data: dict[str, str] | None = None) -> str:
        url = urllib.parse.urljoin(self.origin + "/", path.lstrip("/"))
        body = None
        headers = {"Referer": self.origin + "/"}
        if data is not None:
            token = _CSRF.search(self.page)
            fields = {**data, **({"csrfmiddlewaretoken": html.unescape(token.group(1))} if token else {})}
            body = urllib.parse.urlencode(fields).encode()
        with self.opener.open(urllib.request.Request(url, data=body, headers=headers), timeout=30) as response:
            self.page = response.read().decode()
        return self.page

    def get(self, path: str) -> str:
        return self._open(path)

    def post(self, path: str, data: dict[str, str]) -> str:
        return self._open(path, data)

    def enter(self, pid: str) -> None:
        query = urllib.parse.urlencode({"PROLIFIC_PID": pid, "STUDY_ID": "CHECKSTUDY", "SESSION_ID": "CHECKSESSION"})
        page = self.get(f"/s/{self.link}/?{query}")
        form = _START_FORM.search(page)
        if form is None:
            raise SystemExit(f"no start form on the study link's page:\n{page[:2000]}")
        fields = {name: html.unescape(value) for name, value in _HIDDEN.findall(form.group(2))}
        self.post(html.unescape(form.group(1)), fields)

    def answer_items(self) -> int:
        answered = 0
        page = self.get(f"/s/{self.link}/step/")
        while (item := _ITEM.search(page)) is not None:
            position = _POSITION.search(page)
            assert position is not None, "an item page without its position"
            time.sleep(ANSWER_PAUSE_SECONDS)
            fields = {"item": html.unescape(item.group(1)), "position": position.group(1), "answer": choose(page)}
            page = self.post(f"/s/{self.link}/answer/", fields)
            if "/step/" not in page and _ITEM.search(page) is None and _CODE.search(page) is None:
                page = self.get(f"/s/{self.link}/step/")
            answered += 1
            if answered > 1000:
                raise SystemExit("still at the items after 1000 answers")
        return answered


def choose(page: str) -> str:
    """An answer to the item on the page: the option an attention check names, else the first
    option; a number where one is asked for; a few words otherwise."""
    choices = [html.unescape(value) for value in _CHOICE.findall(page)]
    text_match = _TEXT.search(page)
    text = re.sub(r"<[^>]+>", " ", text_match.group(1)) if text_match else ""
    if choices:
        named = [choice for choice in choices if re.search(rf"\bchoose {re.escape(choice)}\b", text, re.I)]
        return (named or choices)[0]
    if 'inputmode="decimal"' in page:
        return "8"
    return "An answer written by the container check."


def main(argv: list[str]) -> int:
    origin, link, pid = argv[1:4]
    participant = Participant(origin, link)
    participant.enter(pid)
    participant.post(f"/s/{link}/consent/", {"agree": "yes"})
    participant.post(f"/s/{link}/begin/", {})
    answered = participant.answer_items()
    page = participant.get(f"/s/{link}/step/")
    code, back = _CODE.search(page), _RETURN.search(page)
    if code is None or back is None:
        raise SystemExit(f"no completion page after {answered} answers:\n{page[:3000]}")
    print(f"answered {answered} items; completion code {code.group(1)}; back to {html.unescape(back.group(1))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
