"""Answers now belong to the studies app (`studies.0006_response_from_annotation` takes over the
same table); here they leave this app's model state. Nothing changes in the database."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0004_item_content_keys"),
        ("modelruns", "0005_instructionscore_response_in_studies"),
        ("studies", "0006_response_from_annotation"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[migrations.DeleteModel(name="Response")],
        ),
    ]
