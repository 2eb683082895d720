from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0019_participant_review_signals"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="public_title",
            field=models.CharField(
                blank=True,
                help_text="what participants see as the study's title (their browser tab, the welcome page); the "
                "name is the researchers' alone. Empty: no title, the tab says only the step and the progress",
                max_length=200,
            ),
        ),
    ]
