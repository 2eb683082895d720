"""The written answer an instruction score points at is now `studies.Response` (same table, same
rows: only the model state changes)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("modelruns", "0004_merge_run_model_permission"),
        ("studies", "0006_response_from_annotation"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name="instructionscore",
                    name="response",
                    field=models.ForeignKey(
                        blank=True,
                        help_text="the written answer (written only)",
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="instruction_scores",
                        to="studies.response",
                    ),
                ),
            ],
        ),
    ]
