"""Pure statistics for human-vs-model studies: plain data in, JSON-friendly dataclasses out.

No Django here (a test checks it), so results can be recomputed from an export in a notebook.
Only general statistics live here; a benchmark's own (AmbiBench's oracle and position curves,
implicature's templates, instruction induction's tasks) live in its package.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parity.stats.accuracy import (
        AccuracyAcrossUnits,
        AccuracySummary,
        ParticipantAccuracy,
        accuracy_across_units,
        accuracy_by_unit,
        accuracy_summary,
        participant_accuracy,
        summarise_participants,
    )
    from parity.stats.agreement import (
        AgreementSummary,
        IccResult,
        KappaAcrossUnits,
        PairKappa,
        PairwiseKappas,
        agreement_by_unit,
        agreement_summary,
        cohen_kappa,
        fleiss_kappa,
        icc2k,
        icc2k_by_blocks,
        kappa_across_units,
        krippendorff_alpha,
        mean_pairwise_kappa,
        pairwise_kappa_table,
        pairwise_kappas,
        percent_agreement,
    )
    from parity.stats.band import Band, ModelInBand, model_in_band, people_band
    from parity.stats.bootstrap import Interval, bootstrap_mean_ci, bootstrap_means
    from parity.stats.compare import (
        ItemDisagreement,
        MajorityAnswer,
        ModelVsHumans,
        PairedGap,
        human_majority,
        model_vs_humans,
        paired_gap,
    )
    from parity.stats.crossed import CrossedGap, crossed_gap
    from parity.stats.intervals import BOOTSTRAP, CI_METHOD_LABELS, CONFIDENCE_SEQUENCE, SMALL_N, T_INTERVAL, t_mean_ci
    from parity.stats.matrix import LabelMatrix, label_matrix
    from parity.stats.paired import PairedTest, item_rates, paired_test
    from parity.stats.placement import Placement, joint_placement
    from parity.stats.ratings import Rating, as_ratings
    from parity.stats.sequences import confidence_sequence

#: where each name lives: a name is imported when first used (PEP 562), so that a program which
#: needs one part (the benchmarks' oracle, at every start of Django) does not load them all, scipy
#: with them (about a second; docs/performance.md, "Start-up")
_SOURCES = {
    "AccuracyAcrossUnits": "accuracy",
    "AccuracySummary": "accuracy",
    "ParticipantAccuracy": "accuracy",
    "accuracy_across_units": "accuracy",
    "accuracy_by_unit": "accuracy",
    "accuracy_summary": "accuracy",
    "participant_accuracy": "accuracy",
    "summarise_participants": "accuracy",
    "AgreementSummary": "agreement",
    "IccResult": "agreement",
    "KappaAcrossUnits": "agreement",
    "PairKappa": "agreement",
    "PairwiseKappas": "agreement",
    "agreement_by_unit": "agreement",
    "agreement_summary": "agreement",
    "cohen_kappa": "agreement",
    "fleiss_kappa": "agreement",
    "icc2k": "agreement",
    "icc2k_by_blocks": "agreement",
    "kappa_across_units": "agreement",
    "krippendorff_alpha": "agreement",
    "mean_pairwise_kappa": "agreement",
    "pairwise_kappa_table": "agreement",
    "pairwise_kappas": "agreement",
    "percent_agreement": "agreement",
    "Band": "band",
    "ModelInBand": "band",
    "model_in_band": "band",
    "people_band": "band",
    "Interval": "bootstrap",
    "bootstrap_mean_ci": "bootstrap",
    "bootstrap_means": "bootstrap",
    "ItemDisagreement": "compare",
    "MajorityAnswer": "compare",
    "ModelVsHumans": "compare",
    "PairedGap": "compare",
    "human_majority": "compare",
    "model_vs_humans": "compare",
    "paired_gap": "compare",
    "CrossedGap": "crossed",
    "crossed_gap": "crossed",
    "BOOTSTRAP": "intervals",
    "CI_METHOD_LABELS": "intervals",
    "CONFIDENCE_SEQUENCE": "intervals",
    "SMALL_N": "intervals",
    "T_INTERVAL": "intervals",
    "t_mean_ci": "intervals",
    "LabelMatrix": "matrix",
    "label_matrix": "matrix",
    "PairedTest": "paired",
    "item_rates": "paired",
    "paired_test": "paired",
    "Placement": "placement",
    "joint_placement": "placement",
    "Rating": "ratings",
    "as_ratings": "ratings",
    "confidence_sequence": "sequences",
}


def __getattr__(name: str) -> object:
    if name not in _SOURCES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_SOURCES[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "BOOTSTRAP",
    "CONFIDENCE_SEQUENCE",
    "CI_METHOD_LABELS",
    "SMALL_N",
    "T_INTERVAL",
    "AccuracyAcrossUnits",
    "AccuracySummary",
    "AgreementSummary",
    "Band",
    "CrossedGap",
    "IccResult",
    "Interval",
    "ItemDisagreement",
    "KappaAcrossUnits",
    "LabelMatrix",
    "MajorityAnswer",
    "ModelInBand",
    "ModelVsHumans",
    "PairKappa",
    "PairedGap",
    "PairedTest",
    "PairwiseKappas",
    "ParticipantAccuracy",
    "Placement",
    "Rating",
    "accuracy_across_units",
    "accuracy_by_unit",
    "accuracy_summary",
    "agreement_by_unit",
    "agreement_summary",
    "as_ratings",
    "bootstrap_mean_ci",
    "bootstrap_means",
    "cohen_kappa",
    "confidence_sequence",
    "fleiss_kappa",
    "item_rates",
    "human_majority",
    "icc2k",
    "icc2k_by_blocks",
    "joint_placement",
    "kappa_across_units",
    "krippendorff_alpha",
    "label_matrix",
    "mean_pairwise_kappa",
    "model_in_band",
    "model_vs_humans",
    "crossed_gap",
    "paired_gap",
    "paired_test",
    "pairwise_kappa_table",
    "pairwise_kappas",
    "participant_accuracy",
    "people_band",
    "percent_agreement",
    "summarise_participants",
    "t_mean_ci",
]
