import studies.models
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0022_study_design_reporting"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="prolific_filters",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="Prolific prescreening (studies.screening.Screening): age range, sex, languages, "
                "countries, approval rate, earlier studies' participants excluded",
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="item_sampling",
            field=models.CharField(
                choices=[
                    ("all", "All items"),
                    ("random", "A random subset"),
                    ("stratified", "A subset stratified by category"),
                ],
                default="all",
                help_text="which of the benchmark's items the units are built from",
                max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="sample_size",
            field=models.PositiveIntegerField(blank=True, null=True, help_text="items drawn (with a subset)"),
        ),
        migrations.AddField(
            model_name="study",
            name="sample_seed",
            field=models.PositiveIntegerField(
                default=studies.models._new_seed, help_text="the seed the subset is drawn with"
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="sample_pool",
            field=models.PositiveIntegerField(
                blank=True, null=True, help_text="the items the units were drawn from, counted as they were built"
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="refused_earlier",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="digests of the IDs refused for having taken a study of the group (counted, never shown)",
            ),
        ),
    ]
