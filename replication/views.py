"""The replication bundle's download, for those who may export the study (as the exports)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from replication.bundles import study_bundle
from studies.access import EXPORT_STUDY, get_study_for_researcher


@login_required
@require_GET
def bundle(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_study_for_researcher(request.user, study_id, EXPORT_STUDY)
    made = study_bundle(study)
    response = HttpResponse(made.content, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{made.filename}"'
    return response
