"""A stand-in OpenAI-compatible server for tests: a real HTTP server on 127.0.0.1 that serves a
tiny Hugging Face causal model (loaded through the engine's own loader) the way vLLM and the
OpenAI legacy endpoint do.

- GET /v1/models; POST /v1/completions (`echo` + `logprobs` give the prompt's tokens,
  token_logprobs, top_logprobs and text_offset; greedy generation with `max_tokens` and `stop`);
  POST /v1/chat/completions (the last user message as the prompt); `usage` on every answer.
- A bearer key is checked when one is set.
- Faults: `fail_next(status, times, retry_after)` answers the next requests with an error;
  `prompt_logprobs=False` refuses echo with logprobs (llama.cpp-like, top-k still works);
  `logprobs=False` ignores `logprobs` altogether.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: the variable the tests keep the stand-in's key in
KEY_ENV = "STANDIN_API_KEY"


class TooLong(ValueError):
    """A prompt and its completion that do not fit the model's window (answered with 400)."""


@dataclass
class Fault:
    status: int
    retry_after: str | None = None


@dataclass
class StandIn:
    model_dir: Path
    name: str = "tiny-llama"
    key: str | None = "sk-standin-secret"
    prompt_logprobs: bool = True
    logprobs: bool = True
    calls: list[str] = field(default_factory=list)  # "POST /v1/completions" ... in arrival order
    in_flight: int = 0
    most_in_flight: int = 0  # the most requests that were being answered at once
    faults: list[Fault] = field(default_factory=list)

    def __post_init__(self) -> None:
        from parity.engine import load_causal_lm

        self.loaded = load_causal_lm(str(self.model_dir), device="cpu")
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> StandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def fail_next(self, status: int, times: int = 1, retry_after: str | None = None) -> None:
        with self._lock:
            self.faults.extend(Fault(status, retry_after) for _ in range(times))

    def count(self, path: str) -> int:
        return sum(1 for call in self.calls if call.endswith(path))

    # -- the model -------------------------------------------------------------------------------
    def _ids(self, text: str) -> list[int]:
        tokenizer = self.loaded.tokenizer
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        if self.loaded.add_bos and tokenizer.bos_token_id is not None:
            ids = [tokenizer.bos_token_id, *ids]
        return ids or [self.loaded.prefix_token_id]

    def _piece(self, token: int) -> str:
        return self.loaded.tokenizer.decode([token], skip_special_tokens=True)

    def _logprobs(self, ids: list[int]) -> Any:
        import torch

        with self._lock, torch.no_grad():
            logits = self.loaded.model(input_ids=torch.tensor([ids])).logits[0].float()
        return torch.log_softmax(logits, dim=-1)

    def _greedy(self, ids: list[int], max_tokens: int) -> Any:
        """Greedy next tokens, one at a time (with the key-value cache, as `generate` runs)."""
        import torch

        past, step = None, torch.tensor([ids])
        for _ in range(max_tokens):
            with self._lock, torch.no_grad():
                out = self.loaded.model(input_ids=step, past_key_values=past, use_cache=True)
            past = out.past_key_values
            token = int(out.logits[0, -1].argmax())
            yield token
            step = torch.tensor([[token]])

    def _tops(self, row: Any, n: int) -> dict[str, float]:
        values, indices = row.topk(min(n, row.shape[-1]))
        tops: dict[str, float] = {}
        for value, index in zip(values.tolist(), indices.tolist()):
            tops.setdefault(self._piece(index), value)  # two tokens may print alike: the likelier wins
        return tops

    def _prompt_spans(self, prompt: str, n_prompt: int) -> list[tuple[str, int]]:
        """Each prompt token's text and character offset (OpenAI's text_offset), BOS as ""."""
        offsets = self.loaded.tokenizer(prompt, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        spans = [("", 0)] * (n_prompt - len(offsets))
        return spans + [(prompt[start:end], start) for start, end in offsets]

    def _generated_spans(self, prompt: str, new: list[int]) -> list[tuple[str, int]]:
        """Generated tokens decoded incrementally (a character split over tokens comes whole with
        its last token), offsets counted on from the end of the prompt."""
        tokenizer, spans, shown = self.loaded.tokenizer, [], ""
        for count in range(1, len(new) + 1):
            text = tokenizer.decode(new[:count], skip_special_tokens=True)
            complete = text if not text.endswith("\ufffd") else shown
            spans.append((complete[len(shown) :], len(prompt) + len(shown)))
            shown = complete
        return spans

    def complete(
        self,
        prompt: str,
        max_tokens: int,
        *,
        echo: bool = False,
        logprobs: int | None = None,
        stop: list[str] | None = None,
    ) -> dict[str, Any]:
        tokenizer = self.loaded.tokenizer
        ids = self._ids(prompt)
        n_prompt = len(ids)
        if n_prompt + max_tokens > self.loaded.max_length:
            raise TooLong(
                f"This model's maximum context length is {self.loaded.max_length} tokens. However, you "
                f"requested {n_prompt + max_tokens} tokens ({n_prompt} in the prompt, {max_tokens} for "
                "the completion)."
            )
        finish = "length"
        for token in self._greedy(ids, max_tokens):
            ids.append(token)
            if token == tokenizer.eos_token_id:
                finish = "stop"
                break
            text = tokenizer.decode(ids[n_prompt:], skip_special_tokens=True)
            if stop and any(s in text for s in stop):
                finish = "stop"
                break
        new = ids[n_prompt:]
        text = tokenizer.decode(new, skip_special_tokens=True)
        if finish == "stop" and stop:
            cuts = [text.index(s) for s in stop if s in text]
            text = text[: min(cuts)] if cuts else text
        choice: dict[str, Any] = {
            "index": 0,
            "text": (prompt if echo else "") + text,
            "finish_reason": finish,
            "logprobs": None,
        }
        if logprobs is not None and self.logprobs:
            rows = self._logprobs(ids)
            spans = self._prompt_spans(prompt, n_prompt) if echo else []
            spans += self._generated_spans(prompt, new)
            first = 0 if echo else n_prompt
            values = [None if p == 0 else float(rows[p - 1, ids[p]]) for p in range(first, len(ids))]
            tops = [None if p == 0 else self._tops(rows[p - 1], max(1, logprobs)) for p in range(first, len(ids))]
            choice["logprobs"] = {
                "tokens": [piece for piece, _ in spans],
                "token_logprobs": values,
                "top_logprobs": tops,
                "text_offset": [offset for _, offset in spans],
            }
        usage = {"prompt_tokens": n_prompt, "completion_tokens": len(new), "total_tokens": len(ids)}
        return {
            "id": "cmpl-standin",
            "object": "text_completion",
            "model": self.name,
            "choices": [choice],
            "usage": usage,
        }


def _handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            if self.command == "POST":  # answered before the client can see it: the next may come at once
                with standin._lock:
                    standin.in_flight -= 1
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
            self._send(status, {"error": {"message": message, "type": "standin", "code": status}}, headers)

        def _admitted(self) -> bool:
            standin.calls.append(f"{self.command} {self.path}")
            if standin.key is not None and self.headers.get("Authorization") != f"Bearer {standin.key}":
                self._error(401, "invalid API key")
                return False
            with standin._lock:
                fault = standin.faults.pop(0) if standin.faults else None
            if fault is not None:
                headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                self._error(fault.status, f"stand-in fault {fault.status}", headers)
                return False
            return True

        def do_GET(self) -> None:
            if not self._admitted():
                return
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": standin.name, "object": "model"}]})
            else:
                self._error(404, f"no route {self.path}")

        def do_POST(self) -> None:
            with standin._lock:
                standin.in_flight += 1
                standin.most_in_flight = max(standin.most_in_flight, standin.in_flight)
            self._post()  # every answer goes out through _send, which counts the request as answered

        def _post(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if not self._admitted():
                return
            if body.get("model") != standin.name:
                self._error(404, f"model {body.get('model')!r} does not exist")
                return
            stop = body.get("stop")
            stop = [stop] if isinstance(stop, str) else stop
            try:
                self._answer(body, stop)
            except TooLong as exc:
                self._error(400, str(exc))

        def _answer(self, body: dict[str, Any], stop: list[str] | None) -> None:
            if self.path == "/v1/completions":
                if body.get("echo") and body.get("logprobs") is not None and not standin.prompt_logprobs:
                    self._error(400, "echo together with logprobs is not supported")
                    return
                prompt = body.get("prompt")
                self._send(
                    200,
                    standin.complete(
                        prompt,
                        int(body.get("max_tokens", 16)),
                        echo=bool(body.get("echo")),
                        logprobs=body.get("logprobs"),
                        stop=stop,
                    ),
                )
            elif self.path == "/v1/chat/completions":
                prompt = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"][-1]
                answer = standin.complete(prompt, int(body.get("max_tokens", 16)), stop=stop)
                choice = answer["choices"][0]
                self._send(
                    200,
                    {
                        "id": "chat-standin",
                        "object": "chat.completion",
                        "model": standin.name,
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": choice["finish_reason"],
                                "message": {"role": "assistant", "content": choice["text"]},
                            }
                        ],
                        "usage": answer["usage"],
                    },
                )
            else:
                self._error(404, f"no route {self.path}")

    return Handler
