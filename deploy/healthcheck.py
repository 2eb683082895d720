"""The web image's HEALTHCHECK: `/healthz` from inside the container (the database and the queue
answer), asked with a Host the server accepts, the first of `ALLOWED_HOSTS`."""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def main() -> int:
    hosts = [host.strip() for host in os.environ.get("ALLOWED_HOSTS", "").split(",") if host.strip()]
    host = hosts[0].lstrip(".") if hosts and hosts[0] != "*" else "localhost"
    port = os.environ.get("BIND", "0.0.0.0:8000").rsplit(":", 1)[-1]
    request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=4) as response:
            return 0 if response.status == 200 else 1
    except (OSError, urllib.error.URLError) as exc:  # a 503 arrives as an HTTPError, one of them
        print(f"/healthz: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
