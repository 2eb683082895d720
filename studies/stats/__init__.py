"""Pure statistics for human-vs-model studies: plain data in, JSON-friendly dataclasses out.

No Django here (a test checks it), so results can be recomputed from an export in a notebook.
"""

from __future__ import annotations

from studies.stats.accuracy import (
    AccuracyAcrossUnits,
    AccuracySummary,
    ParticipantAccuracy,
    accuracy_across_units,
    accuracy_by_unit,
    accuracy_summary,
    participant_accuracy,
    summarise_participants,
)
from studies.stats.agreement import (
    MIQA_GRADES,
    AgreementSummary,
    IccResult,
    KappaAcrossUnits,
    PairKappa,
    agreement_by_unit,
    agreement_summary,
    cohen_kappa,
    fleiss_kappa,
    icc2k,
    kappa_across_units,
    krippendorff_alpha,
    mean_pairwise_kappa,
    pairwise_kappas,
    percent_agreement,
)
from studies.stats.bootstrap import Interval, bootstrap_mean_ci, bootstrap_means
from studies.stats.breakdowns import (
    NATURAL_TEMPLATES,
    STRUCTURED_TEMPLATES,
    ImplicatureBreakdown,
    InstructionScore,
    TaskSummary,
    TemplateAnswer,
    TypeAccuracy,
    implicature_breakdown,
    instruction_induction_by_task,
)
from studies.stats.compare import (
    ItemDisagreement,
    MajorityAnswer,
    ModelVsHumans,
    human_majority,
    model_vs_humans,
)
from studies.stats.oracle import OracleEpisode, oracle_accuracy, oracle_curve
from studies.stats.positions import (
    PositionAnswer,
    PositionCurve,
    PositionPoint,
    position_curve,
    position_curves,
)
from studies.stats.ratings import Rating, as_ratings

__all__ = [
    "MIQA_GRADES",
    "NATURAL_TEMPLATES",
    "STRUCTURED_TEMPLATES",
    "AccuracyAcrossUnits",
    "AccuracySummary",
    "AgreementSummary",
    "IccResult",
    "ImplicatureBreakdown",
    "InstructionScore",
    "Interval",
    "ItemDisagreement",
    "KappaAcrossUnits",
    "MajorityAnswer",
    "ModelVsHumans",
    "OracleEpisode",
    "PairKappa",
    "ParticipantAccuracy",
    "PositionAnswer",
    "PositionCurve",
    "PositionPoint",
    "Rating",
    "TaskSummary",
    "TemplateAnswer",
    "TypeAccuracy",
    "accuracy_across_units",
    "accuracy_by_unit",
    "accuracy_summary",
    "agreement_by_unit",
    "agreement_summary",
    "as_ratings",
    "bootstrap_mean_ci",
    "bootstrap_means",
    "cohen_kappa",
    "fleiss_kappa",
    "human_majority",
    "icc2k",
    "implicature_breakdown",
    "instruction_induction_by_task",
    "kappa_across_units",
    "krippendorff_alpha",
    "mean_pairwise_kappa",
    "model_vs_humans",
    "oracle_accuracy",
    "oracle_curve",
    "pairwise_kappas",
    "participant_accuracy",
    "percent_agreement",
    "position_curve",
    "position_curves",
    "summarise_participants",
]
