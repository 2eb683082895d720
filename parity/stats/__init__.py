"""Pure statistics for human-vs-model studies: plain data in, JSON-friendly dataclasses out.

No Django here (a test checks it), so results can be recomputed from an export in a notebook.
Only general statistics live here; a benchmark's own (AmbiBench's oracle and position curves,
implicature's templates, instruction induction's tasks) live in its package.
"""

from __future__ import annotations

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
