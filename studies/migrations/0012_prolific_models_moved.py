"""The Prolific models move to the prolific app (its migration 0001); no table changes."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0011_answer_path_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # the tables stay as they are (each model keeps its db_table)
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name="bonusbatch",
                    name="prolific_study",
                ),
                migrations.RemoveField(
                    model_name="bonusline",
                    name="batch",
                ),
                migrations.RemoveField(
                    model_name="bonusline",
                    name="participant",
                ),
                migrations.DeleteModel(
                    name="ProlificEvent",
                ),
                migrations.RemoveField(
                    model_name="prolificflag",
                    name="participant",
                ),
                migrations.RemoveField(
                    model_name="prolificflag",
                    name="prolific_study",
                ),
                migrations.DeleteModel(
                    name="ProlificHookSecret",
                ),
                migrations.RemoveField(
                    model_name="prolificstudy",
                    name="study",
                ),
                migrations.RemoveField(
                    model_name="recruitmentpoint",
                    name="prolific_study",
                ),
                migrations.RemoveField(
                    model_name="prolificsubmission",
                    name="prolific_study",
                ),
                migrations.RemoveField(
                    model_name="prolificsubmission",
                    name="participant",
                ),
                migrations.DeleteModel(
                    name="BonusBatch",
                ),
                migrations.DeleteModel(
                    name="BonusLine",
                ),
                migrations.DeleteModel(
                    name="ProlificFlag",
                ),
                migrations.DeleteModel(
                    name="RecruitmentPoint",
                ),
                migrations.DeleteModel(
                    name="ProlificStudy",
                ),
                migrations.DeleteModel(
                    name="ProlificSubmission",
                ),
            ],
        ),
    ]
