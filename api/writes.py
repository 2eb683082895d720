"""The API's writes a researcher's script needs: create a study, launch (pause, resume, close) it,
start and cancel model runs, exclude a participant or include them again. Each checks its input as
the page does (the same form or the same checks), then calls the page's service; the permissions are
the page's (`studies.access`): a view-only collaborator gets 403, someone else's study 404. Asking
again for what is already so (launching a live study, cancelling a cancelled run) changes nothing
and says so (`changed: false`); what the object cannot do any more (reopening a closed study,
cancelling a finished run) is a 409."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from api.base import ResearcherApi
from api.reads import ModelRunListApi, ParticipantOutput, StudyDetailApi, StudyOutput
from api.schema import DETAIL
from api.selectors import model_runs_of, participants_of
from modelruns.models import ModelRun, ModelSpec
from modelruns.services import ModelRunError, modelrun_cancel, modelrun_start_many, modelspec_get_or_create
from modelruns.sources import model_name_problem
from parity import benchmarks, panels
from studies.access import ADD_STUDY, CHANGE_STUDY, EXCLUDE_PARTICIPANT, RUN_MODEL, require_permission
from studies.bounds import MAX_DESIGN_TEXT, MAX_INTEGER, MAX_PENCE, MAX_TEXT
from studies.design import closing_questions
from studies.design.estimates import MAX_MINUTES, Training, followed_pay
from studies.design.screening import SELECTS
from studies.errors import StudyError
from studies.models import Study
from studies.participants.decisions import participants_exclude, participants_include
from studies.setup.settings_form import DESIGN_PREFIX, PANEL_FIELDS, StudySettingsForm
from studies.setup.studies import study_create, study_set_status
from studies.setup.units import design_estimate


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The object cannot do this in its present state."
    default_code = "conflict"


CONFLICT = OpenApiResponse(DETAIL, "The study or run cannot do this in its present state; `detail` says why.")

#: the form's field names that the API calls otherwise
API_NAMES = {
    "reward": "reward_pence",
    "__all__": api_settings.NON_FIELD_ERRORS_KEY,
    **{name: f"panel_settings.{setting}" for name, setting in PANEL_FIELDS.items()},
}


class PanelSettingsSerializer(serializers.Serializer):
    """The panel's own settings (`parity.panels.PanelSettings`); only the chosen panel's are kept."""

    complete_url = serializers.CharField(
        max_length=500, required=False, allow_blank=True, help_text="Connect: the completion redirect URL"
    )
    partial_url = serializers.CharField(
        max_length=500, required=False, allow_blank=True, help_text="Connect: the partial-complete redirect URL"
    )
    credit_url = serializers.CharField(
        max_length=500,
        required=False,
        allow_blank=True,
        help_text="SONA: the client-side completion URL (with survey_code=XXXX)",
    )
    sandbox = serializers.BooleanField(required=False, help_text="MTurk: the HIT is on the sandbox")

    class Meta:
        ref_name = "PanelSettingsInput"


def form_errors(form: StudySettingsForm) -> dict[str, list[str]]:
    """The form's messages under the API's names (a design option's as `design.<key>`)."""
    errors: dict[str, list[str]] = {}
    for name, messages in form.errors.items():
        key = f"design.{name.removeprefix(DESIGN_PREFIX)}" if name.startswith(DESIGN_PREFIX) else name
        errors[API_NAMES.get(key, key)] = [str(message) for message in messages]
    return errors


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": MAX_INTEGER},
                {"type": "string", "maxLength": MAX_DESIGN_TEXT},
                {"type": "boolean"},
            ]
        },
    }
)
class DesignField(serializers.DictField):
    """A benchmark's design options by key: whole numbers, words or true/false within the bounds of
    `studies.bounds` (the schema says so; the new-study form checks each option's own bounds)."""


class StudyCreateApi(ResearcherApi):
    """Create a study as a draft, as the new-study page does (the same form checks it, the same service
    makes it); the caller owns it. Fields left out take the page's defaults: the benchmark's design,
    consent and instructions texts, a new completion code, and the time and reward estimated from
    the design (a reward given without a time: the design's time; a time without a reward: £9/h).
    A reward under Prolific's £6/h minimum, at the time given or at the design's estimate when
    longer, is refused with the figure. Launch it with
    `POST /api/studies/{study_id}/status/`."""

    permission = ADD_STUDY

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        benchmark = serializers.ChoiceField(choices=benchmarks.choices())
        design = DesignField(
            required=False,
            default=dict,
            help_text="the benchmark's design options by key (e.g. implicature: units, unit_size, per_unit, "
            "attention_checks, exclude_at); those left out take the benchmark's defaults",
        )
        public_title = serializers.CharField(
            max_length=200,
            required=False,
            allow_blank=True,
            help_text="what participants see as the study's title (their browser tab, the welcome page); "
            "the name is for researchers only",
        )
        group = serializers.CharField(max_length=100, required=False, allow_blank=True)
        pid_format = serializers.ChoiceField(choices=Study.PidFormat.choices, required=False)
        panel = serializers.ChoiceField(
            choices=panels.CHOICES,
            required=False,
            help_text="where participants come from (default prolific): the link's parameters, the ids' shape and "
            "where each way out of the study sends them (docs/panels.md)",
        )
        panel_settings = PanelSettingsSerializer(required=False)
        language = serializers.ChoiceField(
            choices=settings.LANGUAGES,
            required=False,
            help_text="the language of the participant pages (default en); the texts are shown as written",
        )
        consent_text = serializers.CharField(max_length=MAX_TEXT, required=False, help_text="Markdown")
        instructions_text = serializers.CharField(max_length=MAX_TEXT, required=False, help_text="Markdown")
        completion_code = serializers.CharField(max_length=40, required=False)
        failed_attention_code = serializers.CharField(max_length=40, required=False)
        no_consent_code = serializers.CharField(max_length=40, required=False, allow_blank=True)
        estimated_minutes = serializers.IntegerField(min_value=1, max_value=MAX_MINUTES, required=False)
        reward_pence = serializers.IntegerField(min_value=1, max_value=MAX_PENCE, required=False)
        min_answer_ms = serializers.IntegerField(
            min_value=0,
            max_value=60_000,
            required=False,
            help_text="an answer sooner than this after its item was shown is refused as unread (0: none)",
        )
        closing_questions = serializers.MultipleChoiceField(
            choices=list(closing_questions.CHOOSABLE),
            required=False,
            help_text="optional questions asked after the last item; left out: the new-study page's default",
        )
        explanations = serializers.ChoiceField(
            choices=Study.Explanations.choices,
            required=False,
            help_text="an optional 'why?' box stored with the answer: off (default), nth (after every "
            "explanation_every-th item of a participant's sequence), every (after every item), end (one closing "
            "question)",
        )
        explanation_every = serializers.IntegerField(
            min_value=1, max_value=1000, required=False, help_text="N for nth (default 5)"
        )
        explanation_prompt = serializers.CharField(
            max_length=300,
            required=False,
            allow_blank=True,
            help_text="the box's label; left out: 'Why did you choose this answer?' in the study's language",
        )

        population = serializers.CharField(
            max_length=500, required=False, allow_blank=True, help_text="the population the human baseline stands for"
        )
        ethics_body = serializers.CharField(
            max_length=200, required=False, allow_blank=True, help_text="the ethics board that reviewed the study"
        )
        ethics_reference = serializers.CharField(
            max_length=100, required=False, allow_blank=True, help_text="the approval's reference"
        )
        ethics_exemption = serializers.CharField(
            max_length=500,
            required=False,
            allow_blank=True,
            help_text="why the study was exempt from ethics review, when it was",
        )
        paper_title = serializers.CharField(max_length=300, required=False, allow_blank=True)
        paper_url = serializers.URLField(max_length=500, required=False, allow_blank=True)
        paper_venue = serializers.CharField(max_length=200, required=False, allow_blank=True)
        # Prolific's prescreening (studies.design.screening): the select filters as Prolific's choice ids
        age_min = serializers.IntegerField(min_value=18, max_value=100, required=False)
        age_max = serializers.IntegerField(min_value=18, max_value=100, required=False)
        sex = serializers.ListField(child=serializers.CharField(max_length=40), required=False)
        first_languages = serializers.ListField(child=serializers.CharField(max_length=40), required=False)
        fluent_languages = serializers.ListField(child=serializers.CharField(max_length=40), required=False)
        countries = serializers.ListField(child=serializers.CharField(max_length=40), required=False)
        approval_rate_min = serializers.IntegerField(min_value=0, max_value=100, required=False)
        exclude_earlier = serializers.BooleanField(
            required=False, help_text="Prolific refuses the participants of your earlier studies created on Prolific"
        )
        item_sampling = serializers.ChoiceField(
            choices=Study.Sampling.choices, required=False, help_text="all items (default), or a subset drawn"
        )
        sample_size = serializers.IntegerField(
            min_value=1, max_value=MAX_INTEGER, required=False, help_text="items to draw"
        )
        sample_seed = serializers.IntegerField(
            min_value=0, max_value=MAX_INTEGER, required=False, help_text="left out: one is drawn"
        )

        class Meta:
            ref_name = "StudyCreateInput"

        def validate(self, data: dict[str, Any]) -> dict[str, Any]:
            options = {option.key for option in benchmarks.get(data["benchmark"]).design_options}
            known = ", ".join(sorted(options))
            errors = {
                f"design.{key}": f"{data['benchmark']} has no design option {key!r}; known: {known}."
                for key in data["design"]
                if key not in options
            }
            errors.update(
                {
                    f"design.{key}": "A design option is a number, a word or true/false."
                    for key, value in data["design"].items()
                    if key in options and not isinstance(value, str | int | float)
                }
            )
            if errors:
                raise serializers.ValidationError(errors)
            return data

    @extend_schema(
        operation_id="studies_create",
        summary="Create a study (a draft)",
        request=InputSerializer,
        responses={201: StudyDetailApi.OutputSerializer},
    )
    def post(self, request: Request) -> Response:
        require_permission(request.user, self.permission)
        given = self.given(request.data)
        form = self.form(given, owner=request.user)
        if not form.is_valid():
            raise serializers.ValidationError(form_errors(form))
        try:
            study = study_create(**form.create_arguments(), owner=request.user)
        except StudyError as exc:
            raise serializers.ValidationError({API_NAMES["__all__"]: [str(exc)]}) from exc
        location = reverse("api:study", args=[study.pk])
        return Response(StudyDetailApi.OutputSerializer(study).data, status=201, headers={"Location": location})

    @staticmethod
    def form(given: dict[str, Any], owner: Any = None) -> StudySettingsForm:
        """The new-study page's settings form, filled with what was given and the page's defaults for
        the rest."""
        defaults = StudySettingsForm(benchmark=given["benchmark"])
        data = {name: defaults[name].initial for name in defaults.fields}
        data.update({DESIGN_PREFIX + key: value for key, value in given["design"].items()})
        # a multiple choice comes as a set from its serializer field, the form takes a list
        data.update(
            {
                name: sorted(value) if isinstance(value, set) else ", ".join(value) if name in SELECTS else value
                for name, value in given.items()
                if name in defaults.fields
            }
        )
        chosen = given.get("panel_settings") or {}
        data.update({name: chosen[setting] for name, setting in PANEL_FIELDS.items() if setting in chosen})
        if {"estimated_minutes", "reward_pence"} & given.keys():
            # one given, the other follows it (a missing time: the design's estimate; a missing
            # reward: the recommended rate for the time); neither given, both follow the design.
            # A design is estimated only once its fields read: the form then names what is wrong
            design = defaults.design_given(data)
            training = Training.of_fields(given)  # the API's study has no practice: its explanations count
            estimate = design_estimate(given["benchmark"], design, training) if design is not None else None
            minutes, pence = followed_pay(estimate, given.get("estimated_minutes"), given.get("reward_pence"))
            data["estimated_minutes"] = minutes
            data["reward"] = (Decimal(pence) / 100).quantize(Decimal("0.01"))
        return StudySettingsForm(data, benchmark=given["benchmark"], owner=owner)


class StudyStatusApi(ResearcherApi):
    """Launch (`live`), pause (`paused`), resume (`live`) or close (`closed`) a study, as the study
    page's buttons do; needs `studies.change_study`. A draft may only be launched, a closed study
    never reopens, an imported study keeps its status (409)."""

    permission = CHANGE_STUDY

    class InputSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=[Study.Status.LIVE, Study.Status.PAUSED, Study.Status.CLOSED])

        class Meta:
            ref_name = "StudyStatusInput"

    class OutputSerializer(StudyOutput):
        changed = serializers.SerializerMethodField(help_text="false: the study already had this status")

        class Meta(StudyOutput.Meta):
            ref_name = "StudyStatusChange"
            fields = [*StudyOutput.Meta.fields, "changed"]

        def get_changed(self, study: Study) -> bool:
            return bool(self.context["changed"])

    @extend_schema(
        operation_id="studies_status_update",
        summary="Launch, pause, resume or close a study",
        request=InputSerializer,
        responses={200: OutputSerializer, 409: CONFLICT},
    )
    def post(self, request: Request, study_id: int) -> Response:
        study = self.study(request, study_id)
        wanted = self.given(request.data)["status"]
        changed = study.status != wanted
        if changed:
            try:
                study_set_status(study=study, status=wanted, actor=request.user)
            except StudyError as exc:
                raise Conflict(str(exc)) from exc
        return Response(self.OutputSerializer(study, context={"changed": changed}).data)


def setting_text(value: Any) -> str:
    """A setting's value as the page's `key=value` field gives it (the benchmark coerces it from there)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ModelRunStartApi(ResearcherApi):
    """Start model runs on the study's items, as the study's runs page does (the same service): one
    run with the benchmark's default setting (plus `setting`), or with `sweep` one per setting of
    the paper's grid. A run of the same model, study and setting still live is returned, not
    started again (`created: false`). Needs `modelruns.run_model`; the model must be an allowed
    source (`PARITY_MODEL_SOURCES`). Models behind an API are set up by the operator
    (`manage.py run_model --kind api`)."""

    permission = RUN_MODEL

    class InputSerializer(serializers.Serializer):
        model = serializers.CharField(
            max_length=500, help_text="a Hugging Face id, a local path, or an alias (smollm2)"
        )
        kind = serializers.ChoiceField(
            choices=[choice for choice in ModelSpec.Kind.choices if choice[0] != ModelSpec.Kind.API],
            default=ModelSpec.Kind.CAUSAL,
        )
        revision = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
        dtype = serializers.ChoiceField(choices=ModelSpec.Dtype.choices, default=ModelSpec.Dtype.FLOAT32)
        device = serializers.CharField(max_length=20, required=False, allow_blank=True, default="auto")
        setting = serializers.DictField(
            child=serializers.JSONField(),
            required=False,
            default=dict,
            help_text="the benchmark's model setting by key (e.g. implicature: template, k); "
            "those left out take the defaults",
        )
        sweep = serializers.BooleanField(default=False, help_text="one run per setting of the paper's grid")

        class Meta:
            ref_name = "ModelRunStartInput"

        def validate_setting(self, setting: dict[str, Any]) -> dict[str, str]:
            if any(isinstance(value, dict | list) or value is None for value in setting.values()):
                raise serializers.ValidationError("Each setting is a number, a word or true/false.")
            pairs = {key: setting_text(value) for key, value in setting.items()}
            try:
                self.context["study"].definition.model_setting(pairs)
            except ValueError as exc:
                raise serializers.ValidationError(str(exc)) from exc
            return pairs

        def validate_model(self, model: str) -> str:
            problem = model_name_problem(model)
            if problem is not None:
                raise serializers.ValidationError(problem)
            return model.strip()

        def validate_kind(self, kind: str) -> str:
            definition = self.context["study"].definition
            if kind not in definition.model_kinds:
                raise serializers.ValidationError(
                    f"{definition.title} takes {' or '.join(definition.model_kinds)} models"
                )
            return kind

    class OutputSerializer(ModelRunListApi.OutputSerializer):
        created = serializers.BooleanField(help_text="false: the same model and setting already had a live run")

        class Meta:
            ref_name = "StartedModelRun"

    @extend_schema(
        operation_id="studies_model_runs_start",
        summary="Start model runs",
        request=InputSerializer,
        responses={
            201: OutputSerializer(many=True),
            200: OpenApiResponse(OutputSerializer(many=True), "Every run asked for was live already."),
        },
    )
    def post(self, request: Request, study_id: int) -> Response:
        study = self.study(request, study_id)
        given = self.given(request.data, study=study)
        try:
            spec = modelspec_get_or_create(
                model=given["model"],
                revision=given["revision"],
                dtype=given["dtype"],
                device=given["device"].strip() or "auto",
                kind=given["kind"],
                created_by=request.user,
            )
            started = modelrun_start_many(
                study=study, spec=spec, overrides=given["setting"], sweep=given["sweep"], actor=request.user
            )
        except ModelRunError as exc:
            raise serializers.ValidationError({API_NAMES["__all__"]: [str(exc)]}) from exc
        created = {each.run.pk: each.created for each in started}
        rows = [{**row, "created": created[row["id"]]} for row in model_runs_of(study, run_ids=list(created))]
        any_created = any(created.values())
        return Response(self.OutputSerializer(rows, many=True).data, status=201 if any_created else 200)


class ModelRunCancelApi(ResearcherApi):
    """Cancel a queued or running model run, as the admin's action does (the same service): its
    workers finish the shard in hand and take no more. Needs `modelruns.run_model`. A cancelled run
    stays cancelled (`changed: false`); a finished or failed one cannot be cancelled (409)."""

    permission = RUN_MODEL

    class OutputSerializer(ModelRunListApi.OutputSerializer):
        changed = serializers.BooleanField(help_text="false: the run was cancelled already")

        class Meta:
            ref_name = "CancelledModelRun"

    @extend_schema(
        operation_id="studies_model_runs_cancel",
        summary="Cancel a model run",
        request=None,
        responses={200: OutputSerializer, 409: CONFLICT},
    )
    def post(self, request: Request, study_id: int, run_id: int) -> Response:
        study = self.study(request, study_id)
        run = ModelRun.objects.filter(study=study, pk=run_id).first()
        if run is None:
            raise Http404("No model run of this study has this id.")
        was = run.status
        run = modelrun_cancel(run=run, actor=request.user)
        if run.status != ModelRun.Status.CANCELLED:
            raise Conflict(
                f"Run {run.pk} is {run.get_status_display().lower()}: only a queued or running run can be cancelled."
            )
        row = model_runs_of(study, run_ids=[run.pk])[0]
        return Response(self.OutputSerializer({**row, "changed": was != ModelRun.Status.CANCELLED}).data)


class ParticipantExclusionApi(ResearcherApi):
    """Exclude a participant from the results, or include them again (reversible; needs
    `studies.exclude_participant`)."""

    permission = EXCLUDE_PARTICIPANT

    class InputSerializer(serializers.Serializer):
        excluded = serializers.BooleanField()
        reason = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")

        class Meta:
            ref_name = "ParticipantExclusionInput"

    @extend_schema(
        operation_id="studies_participants_exclusion",
        summary="Exclude a participant, or include them again",
        request=InputSerializer,
        responses=ParticipantOutput,
    )
    def post(self, request: Request, study_id: int, pseudonym: str) -> Response:
        study = self.study(request, study_id)
        participant = participants_of(study).filter(pseudonym=pseudonym).first()
        if participant is None:
            raise Http404("No participant has this pseudonym in this study.")
        given = self.given(request.data)
        if given["excluded"]:
            reason = given["reason"] or f"excluded by {request.user.get_username()}"
            participants_exclude(participant_ids=[participant.pk], reason=reason, actor=request.user)
        else:
            participants_include(participant_ids=[participant.pk], actor=request.user)
        participant.refresh_from_db()
        return Response(ParticipantOutput(participant).data)
