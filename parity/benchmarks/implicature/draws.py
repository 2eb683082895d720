"""The authors' random draws, replayed: which dev examples each test item is shown with, and which
option (A or B) holds the coherent text in the contrastive variant.

Both are sequences over the whole test file in its order (do-pigs-fly, `src/probe_llm.py`'s
`dataloader`), so an item's draw depends on its row, never on which other items a run scores:

- examples: `get_implicature_iterator` makes one `numpy.random.default_rng(seed)` and, for each
  test row in turn, draws `rng.choice(range(len(dev)), k, replace=False)` (`src/dataset.py`);
- contrastive options: `set_seed(seed)` seeds Python's `random`, then for each test row and each
  contrastive template in file order, `ExamplePrompt._wrap_in_template` draws
  `random.choice([0, 1])` for the item and then one for each of its k examples
  (`src/prompting.py`); the incoherent text's prompt reuses those choices.

The authors ran seed 0; another seed replays the same procedure with other draws.
"""

from __future__ import annotations

import random
from functools import lru_cache


@lru_cache(maxsize=32)
def example_rows(k: int, pool_size: int, rows: int, seed: int = 0) -> tuple[tuple[int, ...], ...]:
    """For test rows 0..rows-1, the indices (0-based, dev file order) of the k dev examples drawn."""
    if k == 0:
        return ((),) * rows
    if k > pool_size:
        raise ValueError(f"{k} shots asked for, only {pool_size} dev examples are imported")
    # imported here: drawing examples is for model runs, and every command lists this benchmark
    import numpy as np

    rng = np.random.default_rng(seed)
    return tuple(tuple(int(i) for i in rng.choice(range(pool_size), k, replace=False)) for _ in range(rows))


@lru_cache(maxsize=32)
def coherent_options(
    k: int, templates: int, rows: int, seed: int = 0
) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]:
    """Per test row, per contrastive template: (the option of the item's coherent text, those of
    its k examples), 0 = A and 1 = B."""
    rng = random.Random(seed)
    found = []
    for _ in range(rows):
        per_template = []
        for _ in range(templates):
            item = rng.choice((0, 1))
            per_template.append((item, tuple(rng.choice((0, 1)) for _ in range(k))))
        found.append(tuple(per_template))
    return tuple(found)
