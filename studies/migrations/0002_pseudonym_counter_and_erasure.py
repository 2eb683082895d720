import re

from django.db import migrations, models


def start_counters_past_existing_pseudonyms(apps, schema_editor):
    """Each study's counter starts at its highest pseudonym number, so no existing one is reissued."""
    Study = apps.get_model("studies", "Study")
    Participant = apps.get_model("studies", "Participant")
    highest: dict[int, int] = {}
    for study_id, pseudonym in Participant.objects.values_list("study_id", "pseudonym").iterator():
        match = re.fullmatch(r"A(\d+)", pseudonym)
        if match:
            highest[study_id] = max(highest.get(study_id, 0), int(match.group(1)))
    for study_id, number in highest.items():
        Study.objects.filter(pk=study_id).update(pseudonyms_issued=number)


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0001_initial"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="participant",
            options={
                "ordering": ["study_id", "id"],
                "permissions": [
                    ("view_identity", "Can see Prolific IDs (payment disputes)"),
                    ("erase_identity", "Can erase a participant's Prolific identity (data-erasure requests)"),
                ],
            },
        ),
        migrations.AddField(
            model_name="participant",
            name="erased_at",
            field=models.DateTimeField(
                blank=True, help_text="when the Prolific identity was erased on request", null=True
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="pseudonyms_issued",
            field=models.PositiveIntegerField(
                default=0, help_text="pseudonyms handed out so far; the next participant is A<n+1>, whoever was deleted"
            ),
        ),
        migrations.RunPython(start_counters_past_existing_pseudonyms, migrations.RunPython.noop),
    ]
