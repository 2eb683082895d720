from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from modelruns import services


class Command(BaseCommand):
    help = (
        "Recover what stopped task workers left behind: shards whose lease ran out are queued again, "
        "queue rows of stopped workers are marked failed, runs whose shards are all done are finished. "
        "`manage.py run_worker` does this every --sweep-every seconds; run it from cron for RQ workers."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        report = services.modelrun_sweep()
        self.stdout.write(
            f"{report.reclaimed} shard(s) taken back, {report.lost_tasks} lost task(s) marked failed, "
            f"{report.requeued} task(s) queued, {report.finished} run(s) finished"
            + (f", {report.cancelled} cancelled run(s) ended" if report.cancelled else "")
        )
