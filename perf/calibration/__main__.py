"""python -m perf.calibration [--reps 1000] [--seed 0] [--layouts implicature tiny ...]
[--sections gap irt recruitment] [--json out.json]

Prints, for every interval and test the results, the report and the API print, at each named layout
(`truth.LAYOUTS`): its coverage or rejection rate, the Monte Carlo SE of that rate, the nominal rate,
the target it is measured against, and the mean width. Seeded: the same command prints the same
table. A row is marked "ok" when its rate lies within 93.5–96.5% (coverage) or 3.5–6.5% (rejection).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from perf.calibration.measure import Row  # noqa: E402
from perf.calibration.truth import LAYOUTS  # noqa: E402

#: the sections of the table, each a module of this package with `rows(layout, reps, seed)`
SECTIONS = ("gap", "irt", "recruitment")
#: the band a calibrated figure's rate must lie in, either side of its nominal rate
TOLERANCE = 0.015


def available_sections() -> list[str]:
    return [name for name in SECTIONS if (Path(__file__).parent / f"{name}.py").exists()]


def measure(layouts: list[str], sections: list[str], reps: int, seed: int) -> list[Row]:
    table: list[Row] = []
    for section in sections:
        module = importlib.import_module(f"perf.calibration.{section}")
        for number, name in enumerate(layouts):
            table.extend(module.rows(LAYOUTS[name], reps, seed + 1_000 * number))
    return table


def format_row(row: Row) -> str:
    if row.width is None:
        width = ""
    elif row.unit == "share":
        width = f"{100 * row.width:.1f} pt"
    else:
        width = f"{row.width:.2f} {row.unit}"
    # only coverage and rejection rates have a nominal rate to meet
    verdict = ("ok" if row.within(TOLERANCE) else "OFF") if row.kind in ("coverage", "rejection") else ""
    return (
        f"{row.layout:<12} {row.figure:<34} {100 * row.rate:6.1f}% ± {100 * row.mc_se:3.1f}  "
        f"(nominal {100 * row.nominal:4.1f}%) {verdict:<3} {width:>8}  {row.target}"
        + (f"; {row.extra}" if row.extra else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layouts", nargs="+", choices=list(LAYOUTS), default=list(LAYOUTS))
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=None)
    parser.add_argument("--json", type=Path, help="write the table here as JSON")
    args = parser.parse_args()
    sections = args.sections or available_sections()
    started = time.perf_counter()
    table = measure(args.layouts, sections, args.reps, args.seed)
    print(f"{'layout':<12} {'figure':<34} {'rate':>7} ± MC SE  nominal        width (points)  target")
    for row in table:
        print(format_row(row))
    print(f"{len(table)} rows, {args.reps} replications each, {time.perf_counter() - started:.0f} s")
    for name in args.layouts:
        print(f"  {name}: {LAYOUTS[name].description}")
    if args.json:
        args.json.write_text(json.dumps([row.as_dict() for row in table], indent=1))


if __name__ == "__main__":
    main()
