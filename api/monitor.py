"""A read: the live monitor of a study as JSON, the same figures as the monitor page (`monitor`),
for researchers who may see the study (`studies.view_study`, their own or shared studies)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ResearcherApi
from results.pipeline import study_monitor
from studies.participants.quality import FLAGS


class Counts(serializers.Serializer):
    arrivals = serializers.IntegerField(help_text="participants who entered (a slot was reserved)")
    working = serializers.IntegerField(help_text="active and seen within the reservation timeout")
    completed = serializers.IntegerField()
    timed_out = serializers.IntegerField(help_text="timed out, or active but silent past the reservation timeout")
    returned = serializers.IntegerField()
    declined = serializers.IntegerField(help_text="declined consent")
    screened_out = serializers.IntegerField(help_text="asked to return after failing the comprehension check")
    excluded = serializers.IntegerField()


class UnitFill(serializers.Serializer):
    # a declared field, which DRF's metaclass takes off the class; the stubs see Field.label's type
    label = serializers.CharField()  # type: ignore[assignment]
    category = serializers.CharField(allow_blank=True)
    capacity = serializers.IntegerField()
    completed = serializers.IntegerField(help_text="completed and not excluded")
    working = serializers.IntegerField()
    excluded = serializers.IntegerField()
    filled = serializers.IntegerField(help_text="completed and not excluded, or working now")
    fill_share = serializers.FloatField(allow_null=True)


class CategoryFill(serializers.Serializer):
    category = serializers.CharField(allow_blank=True)
    capacity = serializers.IntegerField()
    completed = serializers.IntegerField()
    working = serializers.IntegerField()
    filled = serializers.IntegerField()
    fill_share = serializers.FloatField(allow_null=True)


class Pay(serializers.Serializer):
    reward_pence = serializers.IntegerField()
    completions = serializers.IntegerField()
    median_minutes = serializers.FloatField(allow_null=True, help_text="median completion time")
    hourly_pence = serializers.FloatField(allow_null=True, help_text="the reward per hour at the median time")
    minimum_pence = serializers.IntegerField(
        help_text="the recruiting panel's minimum per hour (Prolific's, Connect's; 0: the panel sets none)"
    )
    recommended_pence = serializers.IntegerField(help_text="the panel's recommended rate per hour (0: none)")
    verdict = serializers.ChoiceField(["below_minimum", "below_recommended", "ok", "no_minimum", "unknown"])


class Attention(serializers.Serializer):
    checks_per_participant = serializers.IntegerField()
    exclude_at = serializers.IntegerField()
    participants_failing = serializers.IntegerField()
    failures = serializers.IntegerField()


class Flagged(serializers.Serializer):
    pseudonym = serializers.CharField()
    status = serializers.CharField()
    excluded = serializers.BooleanField()
    flags = serializers.ListField(child=serializers.ChoiceField(list(FLAGS)))
    reasons = serializers.ListField(child=serializers.CharField())


class DropOff(serializers.Serializer):
    position = serializers.IntegerField()
    reached = serializers.IntegerField(help_text="participants shown the item at this position")
    left = serializers.IntegerField(help_text="returned or timed out with this item as their next")


class ItemInvalid(serializers.Serializer):
    key = serializers.CharField()
    answers = serializers.IntegerField()
    invalid = serializers.IntegerField()


class Rate(serializers.Serializer):
    window_minutes = serializers.IntegerField()
    answers = serializers.IntegerField(help_text="answers stored in the window")
    per_minute = serializers.FloatField()
    last_answer_at = serializers.DateTimeField(allow_null=True)


class TimePoint(serializers.Serializer):
    at = serializers.DateTimeField()
    arrivals = serializers.IntegerField(help_text="arrivals so far")
    completions = serializers.IntegerField(help_text="completions so far")


class RecruitmentPoint(serializers.Serializer):
    at = serializers.DateTimeField()
    completed = serializers.IntegerField(help_text="completions so far, excluded participants too (places taken)")
    kept = serializers.IntegerField(help_text="completed and not excluded")
    ci_width = serializers.FloatField(allow_null=True, help_text="95% CI width of human accuracy, points")
    places = serializers.IntegerField(help_text="places on Prolific after this step")
    action = serializers.ChoiceField(["wait", "raise", "stop"])
    reason = serializers.CharField()


class Recruitment(serializers.Serializer):
    target = serializers.CharField(help_text="the target, in words")
    kind = serializers.CharField()
    value = serializers.FloatField()
    step = serializers.IntegerField(help_text="places added per raise")
    places = serializers.IntegerField()
    max_spend_pence = serializers.IntegerField()
    committed_pence = serializers.IntegerField(help_text="reward × places (Prolific's fee comes on top)")
    remaining_pence = serializers.IntegerField()
    affordable_places = serializers.IntegerField()
    budget_reached = serializers.BooleanField()
    points = RecruitmentPoint(many=True, help_text="each recruitment step: the CI width over time")


class StudyMonitorApi(ResearcherApi):
    class OutputSerializer(serializers.Serializer):
        generated_at = serializers.DateTimeField()
        counts = Counts()
        units = UnitFill(many=True)
        categories = CategoryFill(many=True, help_text="per balancing category (empty when units have none)")
        pay = Pay()
        attention = Attention()
        flag_counts = serializers.DictField(child=serializers.IntegerField(), help_text=", ".join(FLAGS))
        flagged = Flagged(many=True, help_text="participants flagged for review")
        drop_off = DropOff(many=True)
        items_with_invalid_answers = ItemInvalid(many=True)
        rate = Rate()
        timeline = TimePoint(many=True)
        warnings = serializers.ListField(child=serializers.CharField(), help_text="what needs attention, in words")
        recruitment = Recruitment(
            allow_null=True, help_text="recruiting until precise on Prolific; null without a target"
        )

        class Meta:
            ref_name = "StudyMonitor"

    @extend_schema(
        operation_id="studies_monitor_retrieve", summary="The live monitor's figures", responses=OutputSerializer
    )
    def get(self, request: Request, study_id: int) -> Response:
        return Response(self.OutputSerializer(study_monitor(self.study(request, study_id))).data)
