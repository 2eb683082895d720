from __future__ import annotations

from django.urls import path

from studies.deferred import deferred

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "review"

urlpatterns = [
    path(
        "<int:study_id>/participants/<int:participant_id>/review/",
        deferred("review.views.participant_page"),
        name="participant",
    ),
    path(
        "<int:study_id>/participants/<int:participant_id>/review/decide/",
        deferred("review.views.participant_decide"),
        name="participant_decide",
    ),
    path("<int:study_id>/verify/", deferred("review.views.verify_queue"), name="verify"),
    path("<int:study_id>/verify/<int:response_id>/mark/", deferred("review.views.verify_mark"), name="verify_mark"),
]
