from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import path

from studies.deferred import deferred, views_module

if TYPE_CHECKING:
    from review import views
else:
    views = views_module("review.views")

# each view is imported on its first request, not by every command's `check` (studies/deferred.py)
app_name = "review"

urlpatterns = [
    path(
        "<int:study_id>/participants/<int:participant_id>/review/",
        deferred(views.participant_page),
        name="participant",
    ),
    path(
        "<int:study_id>/participants/<int:participant_id>/review/decide/",
        deferred(views.participant_decide),
        name="participant_decide",
    ),
    path("<int:study_id>/verify/", deferred(views.verify_queue), name="verify"),
    path("<int:study_id>/verify/<int:response_id>/mark/", deferred(views.verify_mark), name="verify_mark"),
]
