from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0030_merge_bounds_and_checklist_corrections"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="original_study",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="for a study whose human answers were imported: what the original paper says of its own study (materials, pay, exclusions, attrition), each as the researcher entered it with the paper's page (studies.services_checklist); never what describes this study's model runs",
            ),
        ),
    ]
