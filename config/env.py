"""Small typed helpers that read settings from the environment and fail loudly on bad values."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


class ConfigError(RuntimeError):
    pass


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


def embedded_secret(var_dir: Path) -> str:
    """A secret generated once per installation for the embedded mode, kept outside the repository."""
    path = var_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    var_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key


def env_rate(name: str, default: str) -> str:
    """A request rate as the API's throttles read it: `<count>/<second|minute|hour|day>`."""
    raw = os.environ.get(name) or default
    count, _, period = raw.strip().partition("/")
    if not count.isdigit() or not period or period[0] not in "smhd":
        raise ConfigError(f"{name}={raw!r} is not a rate (use e.g. 120/minute, 1000/hour, 10/second)")
    return raw.strip()
