from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0027_practice_and_comprehension"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="explanations",
            field=models.CharField(
                choices=[
                    ("off", "Not asked"),
                    ("nth", "After every Nth item of a participant's sequence"),
                    ("every", "After every item"),
                    ("end", "Once, after the last item (a closing question)"),
                ],
                default="off",
                help_text="whether participants are asked, optionally, why they answered as they did: with an "
                "item's answer (every item, or every Nth by position, never by what the item is) or once on the "
                "done page",
                max_length=5,
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="explanation_every",
            field=models.PositiveIntegerField(
                default=5, help_text="with 'after every Nth item': N (the items at positions N, 2N, ... ask)"
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="explanation_prompt",
            field=models.CharField(
                blank=True,
                help_text="the explanation box's label; empty: 'Why did you choose this answer?' in the study's "
                "language",
                max_length=300,
            ),
        ),
        migrations.AddField(
            model_name="response",
            name="explanation",
            field=models.TextField(
                blank=True,
                help_text="why the participant chose the answer, in their words (optional; asked per study)",
            ),
        ),
    ]
