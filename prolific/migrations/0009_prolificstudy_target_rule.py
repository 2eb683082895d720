from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("prolific", "0008_hook_secrets_retired_after_grace"),
    ]

    operations = [
        # a study that already recruits keeps the rule it started under; a new one gets planned looks
        migrations.AddField(
            model_name="prolificstudy",
            name="target_rule",
            field=models.CharField(
                choices=[
                    ("planned_looks", "planned looks (a fixed-width interval; stop only at the looks)"),
                    ("confidence_sequence", "confidence sequence (valid whenever the study stops)"),
                ],
                default="confidence_sequence",
                max_length=20,
            ),
        ),
        migrations.AlterField(
            model_name="prolificstudy",
            name="target_rule",
            field=models.CharField(
                choices=[
                    ("planned_looks", "planned looks (a fixed-width interval; stop only at the looks)"),
                    ("confidence_sequence", "confidence sequence (valid whenever the study stops)"),
                ],
                default="planned_looks",
                help_text="how a CI-width target is met: planned looks need fewer participants but hold only if the "
                "study stops at its looks; the confidence sequence holds whenever it stops",
                max_length=20,
            ),
        ),
        migrations.AlterField(
            model_name="prolificstudy",
            name="target_step",
            field=models.PositiveIntegerField(
                default=10, help_text="places added per raise (the confidence sequence and per-unit targets)"
            ),
        ),
    ]
