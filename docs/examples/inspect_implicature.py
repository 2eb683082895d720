"""An Inspect task on the implicature benchmark's development set (Ruis et al., 2023), in the shape
of inspect-evals' own tasks: a CSV read by `csv_dataset`, `multiple_choice()` and `choice()`.

Run it with Inspect (`inspect eval docs/examples/inspect_implicature.py --model hf/...`), or import it
into Parity as items (`manage.py import_inspect_task docs/examples/inspect_implicature.py`). The data
is read from DATASETS_DIR (the published files with their checksums), never from a copy.
"""

import os
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, csv_dataset
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice


def record_to_sample(record: dict[str, Any]) -> Sample:
    question, response = record["Context utterance"].strip(), record["Response utterance"].strip()
    # the implicature column starts with the answer ("No.", "Yes. But it does not arrive on time.")
    meaning = record["Implicature"].strip().split(".")[0].strip().lower()
    return Sample(
        input=f'Esther asked "{question}" and Juan responded "{response}". Does Juan mean yes or no?',
        choices=["yes", "no"],
        target="A" if meaning == "yes" else "B",
    )


@task
def implicature(split: str = "dev") -> Task:
    # the published files: DATASETS_DIR, else ../shared/datasets beside the repository
    shared = Path(__file__).resolve().parents[3] / "shared" / "datasets"
    directory = Path(os.environ.get("DATASETS_DIR", shared)) / "implicature"
    return Task(
        dataset=csv_dataset(
            str(directory / f"{split}_conversational_implicatures.csv"), record_to_sample, auto_id=True
        ),
        solver=multiple_choice(),
        scorer=choice(),
    )
