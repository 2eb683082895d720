from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0023_recruitment_sampling"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="checklist_notes",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="the researcher's answers to reporting-checklist entries Parity cannot answer from its "
                "own records, by entry number (studies.services_checklist); never in place of a figure Parity "
                "computes",
            ),
        ),
    ]
