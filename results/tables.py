"""The paper tables of a study, built from its results dict and written as HTML, Markdown or LaTeX.

1. Humans per unit, as Ruis et al.'s Table 7: each annotator's accuracy, the unit's mean, best,
   worst and mean pairwise Cohen's kappa, then the "Total" and "Std" rows over units.
2. Humans and models side by side: accuracy with its 95% CI, the gap to the humans on the same
   items with its paired-bootstrap CI, and Cohen's kappa against the human majority.
3. The benchmark's breakdowns where it has them (per category; per template for model settings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import ngettext


@dataclass(frozen=True)
class Table:
    key: str
    title: str
    columns: list[str]
    rows: list[list[str]]
    #: indices of rows that start a summary block (a rule is drawn above them)
    summary_from: int | None = None


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def ci(bounds: list[float | None] | None) -> str:
    if not bounds or bounds[0] is None or bounds[1] is None:
        return "—"
    return f"[{100 * bounds[0]:.1f}, {100 * bounds[1]:.1f}]"


def signed_pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f} pp"


def unit_table(results: dict[str, Any]) -> Table:
    units = [unit for unit in results["units"] if unit["n_annotators"]]
    width = max((len(unit["annotators"]) for unit in units), default=0)
    columns = ["Unit", *[f"Annotator {n}" for n in range(1, width + 1)], "Mean", "Best", "Worst", "IAA (κ)"]
    rows = []
    for unit in units:
        accuracies = [pct(a["accuracy"]) for a in unit["annotators"]]
        rows.append(
            [
                unit["unit"],
                *accuracies,
                *[""] * (width - len(accuracies)),
                pct(unit["accuracy_mean"]),
                pct(unit["accuracy_best"]),
                pct(unit["accuracy_worst"]),
                num(unit["cohen_kappa_mean_pairwise"]),
            ]
        )
    across, human = results["human"]["accuracy_across_units"], results["human"]
    summary = len(rows)
    blanks = ["—"] * width
    rows.append(
        [
            "Total",
            *blanks,
            pct(across["mean"]),
            pct(across["best"]),
            pct(across["worst"]),
            num(human["cohen_kappa_mean_pairwise"]),
        ]
    )
    rows.append(
        [
            "Std",
            *blanks,
            pct(across["mean_within_unit_std"]),
            pct(across["best_std"]),
            pct(across["worst_std"]),
            num(human["cohen_kappa_std_across_units"]),
        ]
    )
    return Table("units", "Human accuracy per unit (cf. Ruis et al., Table 7)", columns, rows, summary_from=summary)


def comparison_table(results: dict[str, Any]) -> Table:
    human = results["human"]
    columns = ["", "Setting", "n items", "Accuracy", "95% CI", "Gap to humans", "Gap 95% CI", "κ vs human majority"]
    rows = [
        [
            ngettext("Humans (%(n)d annotator)", "Humans (%(n)d annotators)", human["n_annotators"])
            % {"n": human["n_annotators"]},
            "—",
            str(human["n_items"]),
            pct(human["accuracy"]["mean"]),
            ci(human["accuracy"]["ci95"]),
            "—",
            "—",
            "—",
        ]
    ]
    for model in results["models"]:
        rows.append(
            [
                model["model"],
                model["setting_key"],
                str(model["n_items"]),
                pct(model["accuracy"]),
                ci(model["accuracy_ci95"]),
                signed_pct(model["gap_to_humans"]),
                ci(model["gap_ci95"]),
                num(model["kappa_vs_human_majority"]),
            ]
        )
    if any(model.get("accuracy_averaged_likelihood") is not None for model in results["models"]):
        # MiQA: accuracy is over both option orders; the averaged-likelihood decision beside it
        columns.append("Accuracy, orders' likelihoods averaged")
        rows[0].append("—")
        for row, model in zip(rows[1:], results["models"]):
            row.append(pct(model.get("accuracy_averaged_likelihood")))
    return Table("comparison", "Humans and models on the same items", columns, rows)


def category_table(results: dict[str, Any]) -> Table | None:
    section = results["breakdowns"].get("by_category")
    if not section or not section["rows"]:
        return None
    labels = [m["label"] for m in section["rows"][0]["models"]]
    title = (section["field"] or "category").replace("_", " ")
    columns = [title.capitalize(), "n items", "Humans", "Humans 95% CI", *labels]
    rows = [
        [
            row["category"] or "—",
            str(row["n_items"]),
            pct(row["human"]["mean"]),
            ci(row["human"]["ci95"]),
            *[pct(m["accuracy"]) for m in row["models"]],
        ]
        for row in section["rows"]
    ]
    return Table("by_category", f"Accuracy per {title}", columns, rows)


def _mean_std(mean: float | None, std: float | None) -> str:
    if mean is None:
        return "—"
    return f"{pct(mean)} ± {num(None if std is None else 100 * std, 1)}"


def template_table(results: dict[str, Any]) -> Table | None:
    groups = results["breakdowns"].get("by_template")
    if not groups:
        return None
    templates = sorted({int(t) for group in groups for t in group["per_template"]})
    columns = [
        "Model",
        "Setting",
        *[f"T{t}" for t in templates],
        "Mean ± std",
        "Structured ± std",
        "Natural ± std",
        "T7–9 ± std",
    ]
    rows = [
        [
            group["model"],
            group["setting_key"],
            *[pct(group["per_template"].get(str(t))) for t in templates],
            _mean_std(group["mean"], group["std"]),
            _mean_std(group["structured_mean"], group["structured_std"]),
            _mean_std(group["natural_mean"], group["natural_std"]),
            _mean_std(group["extra_mean"], group["extra_std"]),
        ]
        for group in groups
    ]
    return Table(
        "by_template",
        "Model accuracy per prompt template: mean ± population std over templates 1–6 "
        "(structured: 1, 3, 4; natural: 2, 5, 6), templates 7–9 apart; a contrastive setting's mean is "
        "over its own templates",
        columns,
        rows,
    )


def position_table(results: dict[str, Any]) -> Table | None:
    section = results["breakdowns"].get("by_position")
    if not section:
        return None
    human, oracle = section["humans"]["overall"], section["oracle"]["overall"]
    curves = [("Humans", human), *[(m["label"], m["overall"]) for m in section["models"]], ("Oracle", oracle)]
    curves = [(name, curve) for name, curve in curves if curve]
    if not curves:
        return None
    by_position = {name: {p["position"]: p for p in curve["points"]} for name, curve in curves}
    positions = sorted({position for points in by_position.values() for position in points})
    columns = ["Position", *[f"{name}" for name, _ in curves], "Humans 95% CI"]
    rows = []
    for position in positions:
        cells = [pct(by_position[name].get(position, {}).get("accuracy")) for name, _ in curves]
        point = by_position.get("Humans", {}).get(position)
        rows.append([str(position), *cells, ci([point["ci_low"], point["ci_high"]]) if point else "—"])
    return Table("by_position", "Accuracy by position in the episode (all salient features and formats)", columns, rows)


def task_table(results: dict[str, Any]) -> Table | None:
    section = results["breakdowns"].get("by_task")
    if not section or not (section["humans"] or section["models"] or section.get("gold")):
        return None
    gold = {t["task"]: t for t in section.get("gold", [])}
    tasks = sorted(
        {t["task"] for t in section["humans"]} | set(gold) | {t["task"] for m in section["models"] for t in m["tasks"]}
    )
    humans = {t["task"]: t for t in section["humans"]}
    models = [(m["label"], {t["task"]: t for t in m["tasks"]}) for m in section["models"]]
    executor = f" ({section['executor']})" if section.get("executor") else ""
    columns = [
        "Task",
        "Human instructions",
        "Verified correct",
        f"Human execution{executor}",
        "Human similarity",
        f"Gold execution{executor}",
        "Gold similarity",
        *[heading for label, _ in models for heading in (f"{label} execution", f"{label} similarity")],
    ]
    rows = []
    for task in tasks:
        human, ceiling = humans.get(task, {}), gold.get(task, {})
        rows.append(
            [
                task,
                str(human.get("n_instructions", 0)),
                pct(human.get("share_verified")),
                pct(human.get("execution_accuracy")),
                num(human.get("reference_similarity")),
                pct(ceiling.get("execution_accuracy")),
                num(ceiling.get("reference_similarity")),
                *[
                    cell
                    for _, scores in models
                    for cell in (
                        pct(scores.get(task, {}).get("execution_accuracy")),
                        num(scores.get(task, {}).get("reference_similarity")),
                    )
                ],
            ]
        )
    return Table("by_task", "Instruction induction per task: humans, gold ceiling and models", columns, rows)


def wording_table(results: dict[str, Any]) -> Table | None:
    """Comsa et al.'s Table 3: accuracy (over both option orders) per direction and k."""
    groups = results["breakdowns"].get("by_wording")
    if not groups:
        return None
    shots = ("0", "1", "5")
    columns = [
        "Model",
        "Prompt",
        *[f"implies, {k}-shot" for k in shots],
        *[f"implied-by, {k}-shot" for k in shots],
        "0-shot by wording",
    ]
    rows = []
    for group in groups:
        choice = ", ".join(f"{wording}: {pct(score)}" for wording, score in group["zero_shot"].items()) or "—"
        for row in group["rows"]:
            cells = [
                pct((row["by_k"][k] or {}).get(direction)) for direction in ("implies", "implied-by") for k in shots
            ]
            rows.append(
                [group["model"], row["prompt"], *cells, choice if row["wording"] == group["best_wording"] else ""]
            )
    return Table(
        "by_wording",
        "Accuracy per direction and shots, best 0-shot wording and baselines (cf. Comsa et al., Table 3)",
        columns,
        rows,
    )


def generative_table(results: dict[str, Any]) -> Table | None:
    """MiQA's generative task (Table 3's last row): each model's answers graded by the raters."""
    graded = results.get("graded")
    if not graded or not graded["generative_scores"]:
        return None
    rows = [
        [
            row["model"] or "—",
            str(row["n_answers"]),
            pct(row["score"]),
            num(graded["icc2k"]),
            str(graded["n_items_without_icc"]),
        ]
        for row in graded["generative_scores"]
    ]
    return Table(
        "generative",
        "Generative score (correct 1, ambiguous 0.5, wrong 0; mean over raters) and " + graded["icc_form"],
        ["Model", "Answers", "Generative score", "ICC(2,k)", "Answers without ICC"],
        rows,
    )


def kind_table(results: dict[str, Any]) -> Table | None:
    """A researcher's own items per kind: accuracy only where items have a right answer, the
    raters' agreement for ratings, the models' length-normalised accuracy and metric score."""
    rows_in = results["breakdowns"].get("by_kind")
    if not rows_in:
        return None
    labels = [m["label"] for m in rows_in[0]["models"]]
    columns = [
        "Kind",
        "n items",
        "Human answers",
        "Humans",
        "Humans 95% CI",
        "Raters' α (ordinal)",
        *[heading for label in labels for heading in (label, f"{label} acc_norm", f"{label} score")],
    ]
    rows = [
        [
            row["kind"].replace("_", " "),
            str(row["n_items"]),
            str(row["human"]["n_answers"]),
            pct(row["human"]["accuracy"]) if row["has_gold"] else "no gold",
            ci(row["human"]["ci95"]),
            num(row["human"].get("krippendorff_alpha_ordinal")),
            *[
                cell
                for m in row["models"]
                for cell in (
                    pct(m["accuracy"]) if row["has_gold"] else "no gold",
                    pct(m["accuracy_norm"]),
                    num(m["mean_score"]),
                )
            ],
        ]
        for row in rows_in
    ]
    return Table("by_kind", "Per kind of item (ratings and free texts have no right answer)", columns, rows)


def paper_tables(results: dict[str, Any]) -> list[Table]:
    # a unit table says something where units have several annotators (not AmbiBench's one per episode)
    several = any(unit["n_annotators"] > 1 for unit in results["units"])
    tables = [
        unit_table(results) if several else None,
        comparison_table(results),
        category_table(results),
        template_table(results),
        position_table(results),
        task_table(results),
        wording_table(results),
        generative_table(results),
        kind_table(results),
    ]
    return [table for table in tables if table is not None]


# -- writers ------------------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(results: dict[str, Any], tables: list[Table]) -> str:
    lines = [f"# {results['study']} ({results['benchmark']})", ""]
    for table in tables:
        lines += [
            f"## {table.title}",
            "",
            "| " + " | ".join(_md_cell(c) for c in table.columns) + " |",
            "|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.columns))) + "|",
        ]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
        lines.append("")
    return "\n".join(lines)


_LATEX = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
    "κ": r"$\kappa$",
    "±": r"$\pm$",
    "—": "--",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX.get(char, char) for char in text)


def to_latex(results: dict[str, Any], tables: list[Table]) -> str:
    """booktabs tables, one `table` environment each."""
    out = [f"% {latex_escape(results['study'])} ({latex_escape(results['benchmark'])}); needs \\usepackage{{booktabs}}"]
    for table in tables:
        out += [
            r"\begin{table}[ht]",
            r"\centering",
            f"\\caption{{{latex_escape(table.title)}}}",
            f"\\label{{tab:{table.key}}}",
            r"\begin{tabular}{l" + "r" * (len(table.columns) - 1) + "}",
            r"\toprule",
            " & ".join(latex_escape(c) for c in table.columns) + r" \\",
            r"\midrule",
        ]
        for index, row in enumerate(table.rows):
            if table.summary_from is not None and index == table.summary_from:
                out.append(r"\midrule")
            out.append(" & ".join(latex_escape(c) for c in row) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(out)
