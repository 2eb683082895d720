"""Answers move from the items app to the studies app, in the model state only: the table keeps its
name (`annotation_response`) and its rows. The answers' content type follows, so the permissions
granted on answers (`studies.view_response`, `studies.verify_response`) and the admin's log of them
keep pointing at the same rows."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _move_content_type(apps, source: str, target: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    moving = content_type.objects.filter(app_label=source, model="response").first()
    if moving is None:
        return  # a database without content types yet: they are created after migrating
    # a row under the target label exists only when post_migrate made it after a reverse migration;
    # the moving row is the one that carries the permissions researchers were granted
    content_type.objects.filter(app_label=target, model="response").delete()
    moving.app_label = target
    moving.save(update_fields=["app_label"])


def to_studies(apps, schema_editor):
    _move_content_type(apps, "annotation", "studies")


def to_annotation(apps, schema_editor):
    _move_content_type(apps, "studies", "annotation")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0004_item_content_keys"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("studies", "0005_merge_0002_entry_checks_0004_participant_permissions"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="Response",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "position",
                            models.PositiveIntegerField(help_text="1-based position in the participant's sequence"),
                        ),
                        ("raw_answer", models.TextField(help_text="exactly what the participant gave")),
                        (
                            "answer",
                            models.CharField(blank=True, help_text="normalised; empty when invalid", max_length=200),
                        ),
                        ("valid", models.BooleanField()),
                        ("correct", models.BooleanField()),
                        ("is_attention_check", models.BooleanField(default=False)),
                        ("shown_at", models.DateTimeField()),
                        ("answered_at", models.DateTimeField()),
                        ("duration_ms", models.PositiveIntegerField()),
                        (
                            "extra",
                            models.JSONField(
                                blank=True, default=dict, help_text="e.g. option order shown, paste events"
                            ),
                        ),
                        (
                            "verified_correct",
                            models.BooleanField(
                                blank=True, help_text="researcher's mark; empty until verified", null=True
                            ),
                        ),
                        ("verified_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "item",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="responses",
                                to="annotation.item",
                            ),
                        ),
                        (
                            "participant",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="responses",
                                to="studies.participant",
                            ),
                        ),
                        (
                            "verified_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "annotation_response",
                        "ordering": ["participant_id", "position"],
                        "permissions": [("verify_response", "Can mark written answers correct or incorrect")],
                        "constraints": [
                            models.UniqueConstraint(fields=("participant", "item"), name="response_once_per_item"),
                            models.UniqueConstraint(
                                fields=("participant", "position"), name="response_once_per_position"
                            ),
                        ],
                    },
                ),
            ],
        ),
        migrations.RunPython(to_studies, to_annotation),
    ]
