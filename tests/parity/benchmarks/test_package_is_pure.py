from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO

ROOT = REPO


def test_importing_the_benchmarks_does_not_load_django() -> None:
    code = (
        "import sys, parity.benchmarks as b\n"
        "import parity.benchmarks.ambibench, parity.benchmarks.miqa, parity.benchmarks.instruction_induction\n"
        "assert {'ambibench', 'miqa', 'instruction_induction'} <= set(b.REGISTRY)\n"
        "b.get('ambibench').load(None, {'episodes': 2, 'instruction_prompts': 2})\n"
        "print('django' in sys.modules, 'torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False False"
