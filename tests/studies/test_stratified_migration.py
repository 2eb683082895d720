"""The stratified studies drawn before the proportional allocation existed gave every category one
item first: the migration records them as `stratified_each`, the method that draws so, and leaves
the others as they were."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from studies.models import Study

BEFORE = ("studies", "0031_study_original_study_description")


@pytest.mark.django_db(transaction=True)
def test_the_migration_records_the_earlier_stratified_draws_as_one_of_each_first():
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate([BEFORE])
    try:
        OldStudy = MigrationExecutor(connection).loader.project_state([BEFORE]).apps.get_model("studies", "Study")
        for index, method in enumerate(("stratified", "random", "all")):
            OldStudy.objects.create(
                name=method,
                link=f"link-{index}",
                benchmark="implicature",
                consent_text="c",
                instructions_text="i",
                completion_code=f"DONE{index}",
                failed_attention_code=f"FAIL{index}",
                item_sampling=method,
            )
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)
    assert dict(Study.objects.values_list("name", "item_sampling")) == {
        "stratified": "stratified_each",
        "random": "random",
        "all": "all",
    }
