"""`/healthz`: whether this server can do its work — the database answers and the task queue is
reachable. For load balancers and process managers: 200 when both are fine, 503 naming what is not.
It says nothing about studies or people, so it needs no sign-in.

`/livez`: whether this process answers at all. It touches neither the database nor the session, so
a process manager can tell a hung worker from a database outage, and it is the cheapest request the
server answers (perf/participants.py compares the participant's answer path with it)."""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_tasks_db.models import DBTaskResult


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _queue() -> str:
    """The configured queue: its table for the database queue, a PING for Redis."""
    if settings.TASK_QUEUE == "redis":
        # imported here: every command loads this URLconf's views, few servers use Redis
        import redis

        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2).ping()
        return "ok"
    if settings.TASK_QUEUE == "database":
        DBTaskResult.objects.exists()
        return "ok"
    return settings.TASK_QUEUE  # "immediate": tasks run in the request, nothing to reach


@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    checks = {}
    for name, check in (("database", _database), ("queue", _queue)):
        try:
            checks[name] = check()
        except Exception as exc:  # any failure is the answer, not a 500
            checks[name] = f"error: {type(exc).__name__}"
    healthy = all(not value.startswith("error") for value in checks.values())
    return JsonResponse({"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503)


@never_cache
@require_GET
def live(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")
