from django.db import migrations, models

import studies.models
from parity.stats.quality.behaviour import canary_word


def each_study_its_own_word(apps, schema_editor):
    """The column's default was drawn once for every existing row: draw one per study instead."""
    Study = apps.get_model("studies", "Study")
    for study in Study.objects.only("pk"):
        study.canary_word = canary_word()
        study.save(update_fields=["canary_word"])


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0017_study_language"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="canary_word",
            field=models.CharField(
                default=studies.models._new_canary,
                help_text="the made-up word that written items ask an AI, in a line no person sees, to use; "
                "an answer carrying it is flagged",
                max_length=20,
            ),
        ),
        migrations.RunPython(each_study_its_own_word, migrations.RunPython.noop),
    ]
