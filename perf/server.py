"""The production web server (gunicorn, as scripts/serve starts it) in a process group of its own,
for the participant benchmark and the serving fault test: start it, wait until it answers, kill it
(master and workers at once, SIGKILL) or stop it."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: variables of the calling process that must not reach the server (pytest sets the first one)
#: the cache (sessions) of the production profile when REDIS_URL does not name one
LOCAL_REDIS_URL = "redis://127.0.0.1:6379/0"
STRIPPED = ("DJANGO_ALLOW_ASYNC_UNSAFE", "DATABASE_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_env(*, database_url: str | None, var_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The production settings, as scripts/serve has them, over plain HTTP on localhost: DEBUG off, a
    random SECRET_KEY, the database queue, persistent connections, sessions read through Redis.
    Without `database_url`: the embedded SQLite under `var_dir`, as scripts/run serves it."""
    env = {key: value for key, value in os.environ.items() if key not in STRIPPED}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        TASK_QUEUE="database",
        PARITY_VAR_DIR=str(var_dir),
        PYTHONPATH=str(REPO),
        LOG_LEVEL=os.environ.get("LOG_LEVEL", "WARNING"),
    )
    if database_url:
        env["DATABASE_URL"] = database_url
        # scripts/serve's defaults: persistent database connections, sessions read through Redis
        env.setdefault("DATABASE_CONN_MAX_AGE", "60")
        env.setdefault("CACHE_URL", env.get("REDIS_URL") or LOCAL_REDIS_URL)
    env.update(extra or {})
    return env


def manage(env: Mapping[str, str], *args: str, timeout: float = 600) -> str:
    """`manage.py ARGS` with the server's settings; its output, or RuntimeError with its tail."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=dict(env), capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{(done.stdout + done.stderr)[-3000:]}")
    return done.stdout


class Server:
    """gunicorn serving config.wsgi on 127.0.0.1:`port` with `workers` sync workers (scripts/serve's
    command without the access log: the load client counts every request itself)."""

    def __init__(self, env: Mapping[str, str], *, port: int, workers: int, log: Path) -> None:
        self.env, self.port, self.workers, self.log = dict(env), port, workers, log
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> Server:
        with open(self.log, "a") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "config.wsgi",
                    "--preload",
                    "--bind",
                    f"127.0.0.1:{self.port}",
                    "--workers",
                    str(self.workers),
                    "--error-logfile",
                    "-",
                ],
                cwd=REPO,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while not self._live():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"gunicorn did not start on port {self.port}:\n{self.tail()}")
            time.sleep(0.2)
        return self

    def _live(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/livez", timeout=5) as answer:
                return answer.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    def kill(self) -> None:
        """SIGKILL to the master and every worker at once: no graceful shutdown, requests in flight die."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text()[-chars:] if self.log.exists() else ""
