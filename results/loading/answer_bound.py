"""An upper bound on a study's answers that costs one cache operation per change, not a count.

After every committed change of a study (each answer among them) the results app asks whether the
study has more answers than a request computes inline, to queue a large study's results
(`results.apps`). Counting the study's answers to answer that made every answer's cost grow with the
study: a study of 2,000 answers counted 1,000 rows per answer on average, and one near the inline
limit 20,000. The bound is counted once and then raised by one at each change, in the shared results
cache, so that a study it puts at or under the limit needs no count at all; one over it is counted
exactly by the results cache, which remembers a large study for a while.

The bound never falls below the committed answers: every write that adds answers renews the study's
results token (`studies.results_token.results_changed`), whose hooks run once it has committed,
so each answer either raises the bound after it was counted or was itself counted. Changes that
add no answer (an exclusion, a finished run) and erasures only raise it above the count, which costs
an exact count earlier, never a missed queueing. The entry expires, and is then counted again.
"""

from __future__ import annotations

from django.core.cache import caches

from studies.models import Response
from studies.results_token import RESULTS_CACHE

#: how long a bound is raised before the study's answers are counted again
BOUND_SECONDS = 15 * 60


def _key(study_id: int) -> str:
    return f"results-answers-bound:{study_id}"


def answers_at_most(study_id: int) -> int:
    """At least the number of the study's committed answers (called once per committed change)."""
    cache = caches[RESULTS_CACHE]
    key = _key(study_id)
    try:
        return int(cache.incr(key))
    except ValueError:  # not counted yet, or expired
        pass
    counted = Response.objects.filter(participant__study_id=study_id).count()
    if cache.add(key, counted, timeout=BOUND_SECONDS):
        return counted
    # another process counted first, perhaps before this change committed: raise its count for it
    try:
        return int(cache.incr(key))
    except ValueError:
        return counted
