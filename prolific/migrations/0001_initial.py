"""The Prolific models, taken over from the studies app with their tables (`studies_*`) as they are.

Their content types move with them, so permissions granted on them and admin log entries stay.
"""

import django.db.models.deletion
from django.db import migrations, models


MODELS = (
    "prolificstudy",
    "prolificsubmission",
    "recruitmentpoint",
    "prolificevent",
    "prolifichooksecret",
    "prolificflag",
    "bonusbatch",
    "bonusline",
)


def _move_content_types(apps, source: str, target: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    taken = set(content_type.objects.filter(app_label=target, model__in=MODELS).values_list("model", flat=True))
    content_type.objects.filter(app_label=source, model__in=set(MODELS) - taken).update(app_label=target)


def content_types_to_prolific(apps, schema_editor) -> None:
    _move_content_types(apps, "studies", "prolific")


def content_types_to_studies(apps, schema_editor) -> None:
    _move_content_types(apps, "prolific", "studies")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("studies", "0012_prolific_models_moved"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # the tables stay as they are (each model keeps its db_table)
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="BonusBatch",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "state",
                            models.CharField(
                                choices=[
                                    ("computed", "Computed"),
                                    ("created", "Created on Prolific"),
                                    ("paying", "Pay sent, answer unknown (check on Prolific)"),
                                    ("paid", "Paid"),
                                ],
                                default="computed",
                                max_length=10,
                            ),
                        ),
                        ("bulk_id", models.CharField(blank=True, max_length=64)),
                        ("total_pence", models.PositiveIntegerField()),
                        ("computed_at", models.DateTimeField(auto_now_add=True)),
                        ("created_at", models.DateTimeField(blank=True, null=True)),
                        ("paid_at", models.DateTimeField(blank=True, null=True)),
                        ("note", models.TextField(blank=True)),
                    ],
                    options={
                        "verbose_name_plural": "bonus batches",
                        "db_table": "studies_bonusbatch",
                        "ordering": ["-computed_at"],
                    },
                ),
                migrations.CreateModel(
                    name="ProlificEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("event_id", models.CharField(max_length=100, unique=True)),
                        ("event_type", models.CharField(max_length=60)),
                        ("payload", models.JSONField()),
                        ("received_at", models.DateTimeField(auto_now_add=True)),
                        ("processed_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "error",
                            models.TextField(
                                blank=True, help_text="why applying it failed (the next sync applies it again)"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "studies_prolificevent",
                        "ordering": ["-received_at"],
                    },
                ),
                migrations.CreateModel(
                    name="ProlificHookSecret",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("secret", models.CharField(max_length=200)),
                        ("workspace_id", models.CharField(blank=True, max_length=64)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        "db_table": "studies_prolifichooksecret",
                    },
                ),
                migrations.CreateModel(
                    name="BonusLine",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("prolific_pid", models.CharField(max_length=64)),
                        ("amount_pence", models.PositiveIntegerField()),
                        (
                            "batch",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="lines",
                                to="prolific.bonusbatch",
                            ),
                        ),
                        (
                            "participant",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="bonus",
                                to="studies.participant",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "studies_bonusline",
                    },
                ),
                migrations.CreateModel(
                    name="ProlificStudy",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("prolific_id", models.CharField(max_length=64, unique=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("UNPUBLISHED", "Draft on Prolific"),
                                    ("ACTIVE", "Published (recruiting)"),
                                    ("PAUSED", "Paused"),
                                    ("AWAITING REVIEW", "Stopped, awaiting review"),
                                    ("COMPLETED", "Completed"),
                                ],
                                default="UNPUBLISHED",
                                max_length=20,
                            ),
                        ),
                        (
                            "places",
                            models.PositiveIntegerField(
                                help_text="total_available_places on Prolific (only ever raised)"
                            ),
                        ),
                        (
                            "reject_excluded",
                            models.BooleanField(
                                default=True,
                                help_text="reject excluded participants where Prolific's rules allow it (several failed attention checks on studies of 5 minutes or more, one on shorter ones); otherwise approve and flag",
                            ),
                        ),
                        (
                            "bonus_per_correct_pence",
                            models.PositiveIntegerField(
                                default=0,
                                help_text="bonus per correct answer (attention checks not counted), in pence; 0: no bonus",
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "synced_at",
                            models.DateTimeField(blank=True, help_text="the last pull of the submissions", null=True),
                        ),
                        (
                            "target_kind",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("ci_width", "95% CI of human accuracy at most this wide (points)"),
                                    ("per_unit", "completions in every unit"),
                                ],
                                help_text="recruit until this target is met, then stop the study",
                                max_length=10,
                            ),
                        ),
                        (
                            "target_value",
                            models.FloatField(
                                blank=True, help_text="CI width in points, or completions per unit", null=True
                            ),
                        ),
                        ("target_step", models.PositiveIntegerField(default=10, help_text="places added per raise")),
                        (
                            "max_spend_pence",
                            models.PositiveIntegerField(
                                blank=True,
                                help_text="most spent on rewards (reward × places), in pence; Prolific's fee is on top",
                                null=True,
                            ),
                        ),
                        (
                            "study",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE, related_name="prolific", to="studies.study"
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "Prolific study",
                        "verbose_name_plural": "Prolific studies",
                        "db_table": "studies_prolificstudy",
                    },
                ),
                migrations.AddField(
                    model_name="bonusbatch",
                    name="prolific_study",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="bonus_batches",
                        to="prolific.prolificstudy",
                    ),
                ),
                migrations.CreateModel(
                    name="RecruitmentPoint",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("at", models.DateTimeField(auto_now_add=True)),
                        (
                            "completed",
                            models.PositiveIntegerField(help_text="completed participants (excluded ones too)"),
                        ),
                        (
                            "kept",
                            models.PositiveIntegerField(help_text="completed, non-excluded participants (the CI's)"),
                        ),
                        (
                            "ci_width",
                            models.FloatField(
                                blank=True, help_text="95% CI width of human accuracy, points", null=True
                            ),
                        ),
                        ("places", models.PositiveIntegerField(help_text="places on Prolific after the step")),
                        ("action", models.CharField(max_length=10)),
                        ("reason", models.TextField()),
                        (
                            "prolific_study",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="recruitment_points",
                                to="prolific.prolificstudy",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "studies_recruitmentpoint",
                        "ordering": ["prolific_study_id", "at", "id"],
                    },
                ),
                migrations.CreateModel(
                    name="ProlificFlag",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("no_participant", "Submission with no Parity participant"),
                                    ("no_submission", "Parity completion with no Prolific submission"),
                                    (
                                        "unfinished",
                                        "Submitted on Prolific, not finished in Parity (left for review by hand)",
                                    ),
                                    ("excluded_approved", "Excluded, but approved (rejection not allowed)"),
                                    ("unknown_study", "Webhook for a study Parity does not know"),
                                    ("budget_reached", "Budget reached before the recruitment target"),
                                ],
                                max_length=20,
                            ),
                        ),
                        ("subject", models.CharField(max_length=100)),
                        ("detail", models.TextField()),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("resolved", models.BooleanField(default=False)),
                        (
                            "participant",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="studies.participant",
                            ),
                        ),
                        (
                            "prolific_study",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="flags",
                                to="prolific.prolificstudy",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "studies_prolificflag",
                        "ordering": ["-created_at"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("prolific_study", "kind", "subject"), name="prolific_flag_once"
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="ProlificSubmission",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("submission_id", models.CharField(max_length=64, unique=True)),
                        ("prolific_pid", models.CharField(max_length=64)),
                        ("status", models.CharField(max_length=20)),
                        ("study_code", models.CharField(blank=True, max_length=40)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("completed_at", models.DateTimeField(blank=True, null=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "decision",
                            models.CharField(
                                blank=True, choices=[("approve", "Approve"), ("reject", "Reject")], max_length=10
                            ),
                        ),
                        ("decision_reason", models.TextField(blank=True)),
                        ("decided_at", models.DateTimeField(blank=True, null=True)),
                        ("decision_sent_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "participant",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="prolific_submissions",
                                to="studies.participant",
                            ),
                        ),
                        (
                            "prolific_study",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="submissions",
                                to="prolific.prolificstudy",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "studies_prolificsubmission",
                        "ordering": ["prolific_study_id", "id"],
                        "indexes": [
                            models.Index(fields=["prolific_study", "prolific_pid"], name="prolific_submission_pid")
                        ],
                    },
                ),
            ],
        ),
        migrations.RunPython(content_types_to_prolific, content_types_to_studies),
    ]
