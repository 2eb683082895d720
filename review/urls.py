from __future__ import annotations

from django.urls import path

from review import views

app_name = "review"

urlpatterns = [
    path("<int:study_id>/participants/<int:participant_id>/review/", views.participant_page, name="participant"),
    path(
        "<int:study_id>/participants/<int:participant_id>/review/decide/",
        views.participant_decide,
        name="participant_decide",
    ),
    path("<int:study_id>/verify/", views.verify_queue, name="verify"),
    path("<int:study_id>/verify/<int:response_id>/mark/", views.verify_mark, name="verify_mark"),
]
