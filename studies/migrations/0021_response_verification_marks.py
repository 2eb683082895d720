"""The history of the marks on written answers (`VerificationMark`): every mark kept, a re-mark a new
row, and a second verifier's marks beside the first's. The marks already on answers become the
first entries of their history."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def marks_from_answers(apps, schema_editor):
    Response = apps.get_model("studies", "Response")
    VerificationMark = apps.get_model("studies", "VerificationMark")
    marked = Response.objects.filter(verified_correct__isnull=False).values_list(
        "pk", "verified_correct", "verified_by_id", "verified_at"
    )
    VerificationMark.objects.bulk_create(
        VerificationMark(
            response_id=pk,
            verdict="right" if correct else "wrong",
            verifier_id=user,
            role="first",
            at=at or django.utils.timezone.now(),
        )
        for pk, correct, user, at in marked.iterator()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0020_study_public_title"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="VerificationMark",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("first", "First verifier (the mark the results read)"),
                            ("second", "Second verifier (agreement only)"),
                        ],
                        default="first",
                        max_length=10,
                    ),
                ),
                (
                    "verdict",
                    models.CharField(
                        choices=[
                            ("right", "Right"),
                            ("wrong", "Wrong"),
                            ("cleared", "Mark cleared (unverified again)"),
                        ],
                        max_length=10,
                    ),
                ),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "response",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="marks",
                        to="studies.response",
                    ),
                ),
                (
                    "verifier",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["response_id", "at", "id"],
                "indexes": [models.Index(fields=["response", "role", "at"], name="mark_response_role_at")],
            },
        ),
        migrations.RunPython(marks_from_answers, migrations.RunPython.noop),
    ]
