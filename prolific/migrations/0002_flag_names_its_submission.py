"""A flag about a submission points at it instead of writing its Prolific id into its words.

Flags stored before said the submission id in their subject and detail, for anyone who could read
the flag list: each is pointed at its submission and its words name Parity's number for it instead.
"""

import django.db.models.deletion
from django.db import migrations, models

ABOUT_A_SUBMISSION = ("no_participant", "unfinished")


def point_flags_at_their_submissions(apps, schema_editor):
    ProlificFlag = apps.get_model("prolific", "ProlificFlag")
    ProlificSubmission = apps.get_model("prolific", "ProlificSubmission")
    for flag in ProlificFlag.objects.filter(kind__in=ABOUT_A_SUBMISSION, submission__isnull=True):
        record = ProlificSubmission.objects.filter(submission_id=flag.subject).first()
        if record is None:
            continue
        words = f"submission #{record.pk}"
        flag.submission = record
        flag.detail = flag.detail.replace(f"submission {record.submission_id}", words).replace(
            record.submission_id, words
        )
        flag.subject = words
        flag.save(update_fields=["submission", "subject", "detail"])


class Migration(migrations.Migration):
    dependencies = [
        ("prolific", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="prolificflag",
            name="submission",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="flags",
                to="prolific.prolificsubmission",
            ),
        ),
        migrations.RunPython(point_flags_at_their_submissions, migrations.RunPython.noop),
    ]
