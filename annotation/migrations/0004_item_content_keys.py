"""Implicature and MiQA items were keyed by their row in the published file, so a row inserted
above them gave their key to another item. Their keys now hash the text that defines them; this
migration re-keys the items already imported (answers keep pointing at the same rows)."""

import hashlib
import re

from django.db import migrations


def _content_key(*parts):
    # frozen copy of parity.benchmarks.rows.content_key (a migration must not follow later edits)
    text = "\x1f".join(re.sub(r"\s+", " ", part).strip().lower() for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _new_key(item):
    prompt = item.prompt
    if item.benchmark == "implicature":
        return f"{item.split}-{_content_key(prompt['utterance'], prompt['response'])}"
    return f"miqa-{prompt['direction']}-{_content_key(prompt['statement'], prompt['options']['a'], prompt['options']['b'])}"


def rekey_by_content(apps, schema_editor):
    Item = apps.get_model("annotation", "Item")
    for benchmark, old_pattern in (("implicature", r"(test|dev)-\d{4}"), ("miqa", r"miqa-\d{3}-(implies|implied-by)")):
        items = [
            item
            for item in Item.objects.filter(benchmark=benchmark, is_attention_check=False)
            if re.fullmatch(old_pattern, item.key)
        ]
        new_keys = {item.pk: _new_key(item) for item in items}
        taken = {}
        for item in items:
            other = taken.setdefault(new_keys[item.pk], item.key)
            if other != item.key:
                raise RuntimeError(
                    f"{benchmark} items {other} and {item.key} hold the same text; merge or delete one before migrating"
                )
        for item in items:
            item.key = new_keys[item.pk]
            item.save(update_fields=["key"])


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0003_response_verification"),
    ]

    operations = [
        migrations.RunPython(rekey_by_content, migrations.RunPython.noop),
    ]
