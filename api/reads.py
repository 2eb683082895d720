"""The researchers' JSON API, its reads: one APIView per operation (GET only), reading through the same
selectors, results and exports as the pages (the writes: `api.writes`; the monitor: `api.monitor`).
Researchers only (token or session), on their own studies (`studies.access`): participants and
anonymous callers get 401, accounts without the operation's permission 403, someone else's study
404. Pseudonyms only: no Prolific or session ids."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import PAGE, ResearcherApi, page_of, paginated
from api.selectors import model_runs_of, participants_of, study_items_of, study_units_of
from results.forms import ResultsFilterForm
from results.loading.filters import ResultFilters
from results.pipeline import results_data, results_lookup, study_export, study_long_rows
from results.presenting.exports import FORMATS
from studies.access import (
    EXPORT_STUDY,
    VIEW_MODELRUN,
    VIEW_PARTICIPANT,
    VIEW_RESPONSE,
    studies_for_user,
)
from studies.models import Participant, Study


class StudyOutput(serializers.ModelSerializer):
    status = serializers.CharField(help_text="draft, live or closed")
    benchmark = serializers.CharField()

    class Meta:
        model = Study
        ref_name = "Study"
        fields = [
            "id",
            "name",
            "benchmark",
            "status",
            "is_imported",
            "group",
            "language",
            "panel",
            "attention_checks",
            "exclude_at",
            "created_at",
        ]


class StudyListApi(ResearcherApi):
    @extend_schema(
        operation_id="studies_list",
        summary="The studies you may see",
        parameters=PAGE,
        responses=paginated("StudyList", StudyOutput),
    )
    def get(self, request: Request) -> Response:
        return page_of(request, self, studies_for_user(request.user).order_by("-created_at", "-pk"), StudyOutput)


class UnitOutput(serializers.Serializer):
    # a declared field, which DRF's metaclass takes off the class; the stubs see Field.label's type
    label = serializers.CharField()  # type: ignore[assignment]
    position = serializers.IntegerField()
    category = serializers.CharField()
    capacity = serializers.IntegerField()
    n_items = serializers.IntegerField()
    active = serializers.IntegerField()
    completed = serializers.IntegerField()
    excluded = serializers.IntegerField()

    class Meta:
        ref_name = "StudyUnit"


class StudyDetailApi(ResearcherApi):
    class OutputSerializer(StudyOutput):
        design = serializers.JSONField()
        units = serializers.SerializerMethodField()
        power_analysis = serializers.JSONField(
            help_text="the design's power analysis: the smallest gap detected with 80% power, the human CI's "
            "expected half-width, their inputs and where the variance came from (`source`)"
        )

        class Meta(StudyOutput.Meta):
            ref_name = "StudyDetail"
            fields = [
                *StudyOutput.Meta.fields,
                "design",
                "units",
                "population",
                "ethics_body",
                "ethics_reference",
                "ethics_exemption",
                "paper_title",
                "paper_url",
                "paper_venue",
                "power_analysis",
            ]

        @extend_schema_field(UnitOutput(many=True))
        def get_units(self, study: Study) -> list[Any]:
            return list(UnitOutput(study_units_of(study), many=True).data)

    @extend_schema(
        operation_id="studies_retrieve", summary="A study, with its units' counts", responses=OutputSerializer
    )
    def get(self, request: Request, study_id: int) -> Response:
        study = self.study(request, study_id)
        return Response(self.OutputSerializer(study).data)


class StudyItemListApi(ResearcherApi):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField(source="item.id")
        key = serializers.CharField(source="item.key")
        split = serializers.CharField(source="item.split")
        unit = serializers.CharField(source="unit.label")
        order = serializers.IntegerField()
        prompt = serializers.JSONField(source="item.prompt")
        gold = serializers.CharField(source="item.gold")
        meta = serializers.JSONField(source="item.meta")
        is_attention_check = serializers.BooleanField(source="item.is_attention_check")

        class Meta:
            ref_name = "StudyItem"

    @extend_schema(
        operation_id="studies_items_list",
        summary="A study's items, unit by unit",
        parameters=PAGE,
        responses=paginated("StudyItemList", OutputSerializer),
    )
    def get(self, request: Request, study_id: int) -> Response:
        return page_of(request, self, study_items_of(self.study(request, study_id)), self.OutputSerializer)


class ParticipantOutput(serializers.ModelSerializer):
    """Pseudonymous: never the Prolific participant, study or session id."""

    unit = serializers.CharField(source="unit.label", allow_null=True, default=None)
    status = serializers.CharField(help_text="active, completed, timed_out, returned or declined")
    step = serializers.CharField()
    total = serializers.IntegerField()

    class Meta:
        model = Participant
        ref_name = "Participant"
        fields = [
            "pseudonym",
            "unit",
            "status",
            "step",
            "answered",
            "total",
            "attention_failures",
            "excluded",
            "exclusion_reason",
            "is_imported",
            "started_at",
            "completed_at",
        ]


class ParticipantListApi(ResearcherApi):
    permission = VIEW_PARTICIPANT

    @extend_schema(
        operation_id="studies_participants_list",
        summary="A study's participants (pseudonyms)",
        parameters=PAGE,
        responses=paginated("ParticipantList", ParticipantOutput),
    )
    def get(self, request: Request, study_id: int) -> Response:
        return page_of(request, self, participants_of(self.study(request, study_id)), ParticipantOutput)


class ResponseListApi(ResearcherApi):
    """Every human answer in the long export's shape (pseudonymous; free text only on request)."""

    permission = VIEW_RESPONSE

    class InputSerializer(serializers.Serializer):
        unit = serializers.CharField(required=False, max_length=60)
        include_free_text = serializers.BooleanField(required=False, default=False)
        include_excluded = serializers.BooleanField(required=False, default=True)
        include_attention_checks = serializers.BooleanField(required=False, default=True)

        class Meta:
            ref_name = "ResponseListInput"

    class OutputSerializer(serializers.Serializer):
        study = serializers.CharField()
        benchmark = serializers.CharField()
        item_id = serializers.IntegerField()
        item_key = serializers.CharField()
        unit = serializers.CharField()
        category = serializers.CharField()
        annotator = serializers.CharField()
        position = serializers.IntegerField()
        answer = serializers.CharField()
        raw_answer = serializers.CharField()
        gold = serializers.CharField()
        valid = serializers.BooleanField()
        correct = serializers.BooleanField(allow_null=True, help_text="null: the item has no gold")
        response_time_ms = serializers.IntegerField()
        is_attention_check = serializers.BooleanField()
        excluded = serializers.BooleanField()
        participant_status = serializers.CharField()
        verified_correct = serializers.BooleanField(allow_null=True)
        free_text_withheld = serializers.BooleanField()

        class Meta:
            ref_name = "ResponseRow"

    @extend_schema(
        operation_id="studies_responses_list",
        summary="Every human answer (the long export's rows)",
        parameters=[InputSerializer, *PAGE],
        responses=paginated("ResponseList", OutputSerializer),
    )
    def get(self, request: Request, study_id: int) -> Response:
        study = self.study(request, study_id)
        options = self.given(request.query_params)
        rows = [
            row
            for row in study_long_rows(study, include_free_text=options["include_free_text"])
            if (not options.get("unit") or row["unit"] == options["unit"])
            and (options["include_excluded"] or not row["excluded"])
            and (options["include_attention_checks"] or not row["is_attention_check"])
        ]
        return page_of(request, self, rows, self.OutputSerializer)


class ModelRunListApi(ResearcherApi):
    permission = VIEW_MODELRUN

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        model = serializers.CharField()
        setting = serializers.JSONField()
        setting_label = serializers.CharField()
        status = serializers.CharField()
        n_answered = serializers.IntegerField()
        n_correct = serializers.IntegerField()
        n_invalid = serializers.IntegerField()
        accuracy = serializers.FloatField(allow_null=True)
        created_at = serializers.DateTimeField()
        finished_at = serializers.DateTimeField(allow_null=True)
        prompt_tokens = serializers.IntegerField(help_text="tokens an API server counted in the prompts (0: local)")
        completion_tokens = serializers.IntegerField(help_text="tokens an API server generated (0: local)")

        class Meta:
            ref_name = "ModelRunRow"

    @extend_schema(
        operation_id="studies_model_runs_list",
        summary="A study's model runs",
        parameters=PAGE,
        responses=paginated("ModelRunList", OutputSerializer),
    )
    def get(self, request: Request, study_id: int) -> Response:
        return page_of(request, self, model_runs_of(self.study(request, study_id)), self.OutputSerializer)


#: when a client waiting for a large study's results should ask again
RESULTS_RETRY_SECONDS = 5


class StudyResultsApi(ResearcherApi):
    """The `study_results --json` object, with the results page's filters."""

    class InputSerializer(serializers.Serializer):
        unit = serializers.CharField(required=False, max_length=60)
        category = serializers.CharField(required=False, max_length=100)
        model = serializers.CharField(required=False, max_length=200)
        setting = serializers.CharField(required=False, max_length=500)
        flagged = serializers.ChoiceField(
            required=False,
            choices=["include", "exclude"],
            help_text="with (default) or without the participants flagged for review",
        )

        class Meta:
            ref_name = "StudyResultsInput"

    class OutputSerializer(serializers.Serializer):
        study = serializers.CharField()
        benchmark = serializers.CharField()
        participants = serializers.DictField(child=serializers.IntegerField())
        human = serializers.JSONField(
            help_text="accuracy (mean, best, worst, ci95 with its ci_method, small_n_warning: fewer than 10 "
            "annotators, and ci_note: why a t-interval near the ceiling over fewer than 30 may be too narrow), kappas, "
            "alpha, ICC"
        )
        units = serializers.ListField(child=serializers.JSONField())
        models = serializers.ListField(child=serializers.JSONField())
        breakdowns = serializers.JSONField()
        irt = serializers.JSONField(
            allow_null=True,
            help_text="the joint item-response placement of people and models: each model's ability, CI and "
            "percentile among the participants, item parameters, reliabilities, divergent items; null with "
            "irt_reason where it cannot be fitted",
        )
        irt_reason = serializers.CharField(allow_null=True)
        paired = serializers.ListField(
            child=serializers.JSONField(),
            help_text="per model run: the gap to the people with its CI, SE, degrees of freedom and the p of no "
            "gap, all about people like these on items like these (`target`, `method`); McNemar's test against "
            "the majority of these participants (`mcnemar.target`)",
        )
        human_band = serializers.ListField(
            child=serializers.JSONField(),
            help_text="per model run: its mean kappa with the people against the band of the people's own",
        )
        oracle_by_position = serializers.ListField(
            child=serializers.JSONField(), required=False, help_text="AmbiBench only"
        )

        class Meta:
            ref_name = "StudyResults"

    @extend_schema(
        operation_id="studies_results_retrieve",
        summary="The results (study_results --json)",
        description=(
            "A large study's results are computed in the background: until they are current, the answer is 202 "
            "with a Retry-After header; ask again then."
        ),
        parameters=[InputSerializer],
        responses={
            200: OutputSerializer,
            202: inline_serializer("StudyResultsComputing", {"detail": serializers.CharField()}),
        },
    )
    def get(self, request: Request, study_id: int) -> Response:
        study = self.study(request, study_id)
        data = results_data(study, answers=False)
        form = ResultsFilterForm(self.given(request.query_params), data_for=data)
        if not form.is_valid():
            return Response(form.errors, status=status.HTTP_400_BAD_REQUEST)
        filters: ResultFilters = form.filters()
        lookup = results_lookup(study, filters, data)
        if not lookup.current or lookup.computed is None:
            return Response(
                {"detail": "The results are being computed; ask again in a few seconds."},
                status=status.HTTP_202_ACCEPTED,
                headers={"Retry-After": str(RESULTS_RETRY_SECONDS)},
            )
        return Response(lookup.computed.results.to_json())


#: the content types of the export formats, for the schema
EXPORT_MEDIA_TYPES = sorted({content_type.split(";")[0] for content_type, _suffix in FORMATS.values()})


class StudyExportApi(ResearcherApi):
    permission = EXPORT_STUDY

    class InputSerializer(serializers.Serializer):
        include_free_text = serializers.BooleanField(required=False, default=False)

        class Meta:
            ref_name = "StudyExportInput"

    @extend_schema(
        operation_id="studies_export_retrieve",
        summary="Download an export",
        parameters=[InputSerializer, OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(FORMATS))],
        responses={
            (200, media): OpenApiResponse(OpenApiTypes.BINARY, description=", ".join(FORMATS))
            for media in EXPORT_MEDIA_TYPES
        },
    )
    def get(self, request: Request, study_id: int, fmt: str) -> HttpResponse:
        study = self.study(request, study_id)
        if fmt not in FORMATS:
            raise Http404(f"No export format {fmt!r}; known: {', '.join(FORMATS)}.")
        given = self.given(request.query_params)
        exported = study_export(study, fmt, include_free_text=given["include_free_text"])
        response = HttpResponse(exported.content, content_type=exported.content_type)
        response["Content-Disposition"] = f'attachment; filename="{exported.filename}"'
        return response
