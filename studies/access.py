"""Who sees and does what: the one place that decides it for pages, the admin, the API and exports.

Two questions, asked in this order:
1. May this user do this kind of thing at all? Django model permissions (`studies.view_study`,
   `studies.export_study`, `studies.exclude_participant`, `modelruns.run_model`, ...): 403 without.
2. Is this study theirs? A researcher sees and acts on the studies they own or collaborate on;
   superusers on every study. Someone else's study is 404, as if it did not exist.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404

from studies.models import Study

VIEW_STUDY = "studies.view_study"
ADD_STUDY = "studies.add_study"
CHANGE_STUDY = "studies.change_study"
EXPORT_STUDY = "studies.export_study"
EXCLUDE_PARTICIPANT = "studies.exclude_participant"
VIEW_PARTICIPANT = "studies.view_participant"
VIEW_RESPONSE = "studies.view_response"
VERIFY_RESPONSE = "studies.verify_response"
VIEW_MODELRUN = "modelruns.view_modelrun"
RUN_MODEL = "modelruns.run_model"

#: what a researcher who only reads holds
VIEWER_PERMISSIONS: tuple[str, ...] = (
    VIEW_STUDY,
    "studies.view_unit",
    VIEW_PARTICIPANT,
    VIEW_RESPONSE,
    "annotation.view_item",
    "annotation.view_itemset",
    VIEW_MODELRUN,
    "modelruns.view_modelspec",
    "modelruns.view_modelresponse",
)
#: what a researcher who runs studies holds (give it through a group)
RESEARCHER_PERMISSIONS: tuple[str, ...] = (
    *VIEWER_PERMISSIONS,
    ADD_STUDY,
    CHANGE_STUDY,
    EXPORT_STUDY,
    EXCLUDE_PARTICIPANT,
    VERIFY_RESPONSE,
    RUN_MODEL,
)


def has_permission(user: Any, permission: str) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active and user.has_perm(permission))


def require_permission(user: Any, permission: str) -> None:
    if not has_permission(user, permission):
        raise PermissionDenied(f"This needs the {permission!r} permission.")


def studies_for_user(user: Any) -> QuerySet[Study]:
    """The studies `user` may see: their own and those they collaborate on; every study for a superuser."""
    if user is None or not user.is_authenticated or not user.is_active:
        return Study.objects.none()
    if user.is_superuser:
        return Study.objects.all()
    return Study.objects.filter(
        Q(owner=user) | Q(pk__in=Study.collaborators.through.objects.filter(user=user).values("study_id"))
    )


def get_study_for_researcher(user: Any, study_id: int, permission: str = VIEW_STUDY) -> Study:
    """The study, for a researcher holding `permission` who owns or collaborates on it; 403 without
    the permission, 404 for a study that does not exist or is someone else's."""
    require_permission(user, permission)
    study = studies_for_user(user).filter(pk=study_id).first()
    if study is None:
        raise Http404("No study has this id.")
    return study


def researcher_studies(user: Any) -> list[Study]:
    require_permission(user, VIEW_STUDY)
    return list(studies_for_user(user).order_by("-created_at", "-pk"))


def may_manage_access(user: Any, study: Study) -> bool:
    """Only the owner (and superusers) choose who else works on a study."""
    return bool(user.is_superuser or (study.owner_id is not None and study.owner_id == user.pk))
