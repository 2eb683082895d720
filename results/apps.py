from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings


class ResultsConfig(AppConfig):
    name = "results"
    verbose_name = "Results"

    def ready(self) -> None:
        from studies.participants.quality_signals import signals_refresher_register
        from studies.results_token import results_refresher_register

        # the services that change a study's data ask for its model-likeness flags and, for a large
        # study, its results computed again (studies cannot import either)
        signals_refresher_register(_review_signals_enqueue)
        results_refresher_register(_study_results_refresh)


def _review_signals_enqueue(study_id: int) -> None:
    # imported when first asked, not at start-up
    from results.pipeline import review_signals_enqueue

    review_signals_enqueue(study_id)


def _study_results_refresh(study_id: int) -> None:
    """Runs after every committed change of the study, each answer among them: a study whose answers
    are bounded by the inline limit has nothing to queue, known without counting its answers."""
    # imported when first asked, not at start-up
    from results.loading.answer_bound import answers_at_most

    if answers_at_most(study_id) <= settings.RESULTS_INLINE_ANSWERS:
        return
    from results.pipeline import study_results_refresh

    study_results_refresh(study_id)
