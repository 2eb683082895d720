"""A stratified sample is drawn in proportion to the categories' shares; the draw that gave every
category one item first is its own method, `stratified_each`, and the studies drawn with it before
are recorded as such (their units, and a draw repeated from the seed, stay the same)."""

from django.db import migrations, models


def one_of_each(apps, schema_editor):
    Study = apps.get_model("studies", "Study")
    Study.objects.filter(item_sampling="stratified").update(item_sampling="stratified_each")


def proportional(apps, schema_editor):
    Study = apps.get_model("studies", "Study")
    Study.objects.filter(item_sampling="stratified_each").update(item_sampling="stratified")


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0031_study_original_study_description"),
    ]

    operations = [
        migrations.AlterField(
            model_name="study",
            name="item_sampling",
            field=models.CharField(
                choices=[
                    ("all", "All items"),
                    ("random", "A random subset"),
                    ("stratified", "A subset stratified by category (in proportion to each category's share)"),
                    ("stratified_each", "A subset stratified by category, at least one of each category"),
                ],
                default="all",
                help_text="which of the benchmark's items the units are built from",
                max_length=20,
            ),
        ),
        migrations.RunPython(one_of_each, proportional),
    ]
