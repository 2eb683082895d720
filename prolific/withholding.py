"""The identities Prolific's records add to a study's (`studies.participants.withholding`): every submission's id
and PID, those of people who never entered the study (returned, timed out on Prolific) included,
whom a researcher may still name in an exclusion's reason or a note."""

from __future__ import annotations

from prolific.models import ProlificSubmission
from studies.models import Study


def submission_identities(study: Study) -> set[str]:
    found: set[str] = set()
    for submission_id, pid in ProlificSubmission.objects.filter(prolific_study__study=study).values_list(
        "submission_id", "prolific_pid"
    ):
        found |= {submission_id, pid}
    return found
