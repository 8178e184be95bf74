#!/usr/bin/env python3
"""Regenerates docs/validation-speed.md: memfit's speed estimate against the
published runs of data/speed/published-runs.tsv.

The predictions come from memfit itself: memfit_speed_validate (built from
tests/speed/, memfit/published_runs.h) prints every run's bounds and its
predicted decode and prefill speeds, fitted on every run and, held out,
fitted on the other half of the runs only. This script only tabulates them.

Usage: scripts/gen-validation-speed.py [--validate build/dev/tests/speed/memfit_speed_validate]
                                       [--check]
  --check   exit 1 when docs/validation-speed.md would change
            (ctest: Speed.ValidationDocCurrent)
Python 3 standard library only.
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "validation-speed.md"
DEFAULT_VALIDATE = ROOT / "build" / "dev" / "tests" / "speed" / "memfit_speed_validate"
# The targets: decode within 25 % of the published figure, prefill
# within 35 %, for at least 80 % of runs.
TOLERANCE = {"decode": 0.25, "prefill": 0.35}


def error(phase, prediction_key):
    """(predicted - published) / published of a run's phase, or None."""
    published = phase["published"]
    predicted = phase[prediction_key]
    if published is None or predicted is None:
        return None
    return predicted["median"] / published - 1


def in_band(phase, prediction_key):
    published = phase["published"]
    predicted = phase[prediction_key]
    if published is None or predicted is None:
        return None
    return predicted["low"] <= published <= predicted["high"]


def pct(x):
    return f"{x * 100:+.0f} %" if x is not None else "-"


def num(x):
    if x is None:
        return "-"
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def summary_rows(runs, phase_name, key):
    """One row per backend and one for all: runs, median |error|, worst,
    share within the tolerance, share inside the band."""
    groups = {}
    for run in runs:
        e = error(run[phase_name], key)
        if e is None:
            continue
        for group in (run["backend"], "all"):
            groups.setdefault(group, []).append((e, in_band(run[phase_name], key)))
    order = sorted(g for g in groups if g != "all") + ["all"]
    rows = []
    for group in order:
        items = groups[group]
        errors = [abs(e) for e, _ in items]
        worst = max(items, key=lambda item: abs(item[0]))[0]
        within = sum(1 for e in errors if e <= TOLERANCE[phase_name])
        banded = sum(1 for _, b in items if b)
        rows.append(
            f"| {group} | {len(items)} | {statistics.median(errors) * 100:.0f} % | {pct(worst)} "
            f"| {within}/{len(items)} ({within / len(items) * 100:.0f} %) "
            f"| {banded}/{len(items)} ({banded / len(items) * 100:.0f} %) |")
    return rows


def summary_table(runs, phase_name):
    tol = int(TOLERANCE[phase_name] * 100)
    head = [f"| backend | runs | median error | worst | within {tol} % | inside the band |",
            "|---|---:|---:|---:|---:|---:|"]
    out = [f"Held out (each run predicted by the bands of the other half):", ""]
    out += head + summary_rows(runs, phase_name, "held_out")
    out += ["", "Fitted on every run (in-sample, for comparison):", ""]
    out += head + summary_rows(runs, phase_name, "fitted")
    return out


MIN_RUNS = 4  # kMinEfficiencyRuns (include/memfit/speed.h)


def bands_table(bands):
    """Every fitted group: its efficiency, its cost a layer, and the spread
    of its runs' published speed over the model's."""
    out = ["| backend | family | runs | efficiency | overhead a layer | median | low (10th) "
           "| high (90th) |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    ordered = ([b for b in bands if b["backend"] and b["family"]] +
               [b for b in bands if b["backend"] and not b["family"]] +
               [b for b in bands if not b["backend"]])
    for b in ordered:
        runs = str(b["runs"])
        if b["backend"] and b["runs"] < MIN_RUNS:
            runs += " (too few: not used)"
        out.append(f"| {b['backend'] or 'all'} | {b['family'] or 'all'} | {runs} "
                   f"| {b['efficiency']:.2f} | {b['layer_overhead_s'] * 1e6:.0f} us "
                   f"| {b['median']:.2f} | {b['low']:.2f} | {b['high']:.2f} |")
    return out


def source_label(url):
    label = url.split("github.com/")[-1]
    for long, short in (("/blob/00dd2bdeb2404263f22bd6c1cd46ce397e341db5/README.md", " README"),
                        ("/issues/", "#"), ("/pull/", "#")):
        label = label.replace(long, short)
    return f"[{label}]({url})"


def run_rows(runs):
    out = ["| line | source | device | backend | model | quant | decode test | published | bound "
           "| predicted (band) | error | prefill test | published | bound | predicted (band) "
           "| error |",
           "|---:|---|---|---|---|---|---|---:|---:|---|---:|---|---:|---:|---|---:|"]
    for run in runs:
        cells = [str(run["line"]), source_label(run["source"]), run["device"], run["backend"],
                 run["model"], run["quant"]]
        for phase_name, test in (("decode", run["decode_test"]), ("prefill", run["prefill_test"])):
            phase = run[phase_name]
            held = phase["held_out"]
            predicted = (f"{num(held['median'])} ({num(held['low'])}-{num(held['high'])})"
                         if held else "-")
            cells += [test or "-", num(phase["published"]), num(phase["bound"]), predicted,
                      pct(error(phase, "held_out"))]
        out.append("| " + " | ".join(cells) + " |")
    return out


def unpredicted(runs, phase_name):
    """Runs with a published figure but no prediction, and why."""
    out = []
    for run in runs:
        phase = run[phase_name]
        if phase["published"] is not None and phase["held_out"] is None:
            why = "no figure for its device" if phase["bound"] is None else "no band"
            out.append(f"line {run['line']} ({run['device']}, {run['model']}): {why}")
    return out


def render(data):
    runs = data["runs"]
    n_decode = sum(1 for r in runs if r["decode"]["published"] is not None)
    n_prefill = sum(1 for r in runs if r["prefill"]["published"] is not None)
    lines = [
        "<!-- Generated by scripts/gen-validation-speed.py from data/speed/: do not edit. -->",
        "# Speed: memfit's prediction against published runs",
        "",
        f"{len(runs)} published runs ({n_decode} with a decode figure, {n_prefill} with a "
        "prefill figure), one a row of `data/speed/published-runs.tsv` with its source, are",
        "predicted by the speed estimate of docs/speed.md: the bound (peak memory bandwidth over",
        "the bytes a token reads; peak dense FP16 over the FLOPs a prompt token takes), the",
        "efficiency and cost a layer fitted per backend and quantization family, and the band",
        "of the runs around that fit.",
        "",
        "**Runs it has never seen.** Each run is predicted twice. *Held out*: the runs are",
        "split by their row's parity into two halves; each half is predicted by the bands",
        "fitted on the other half only, so no run's own figure is in the band that predicts it.",
        "*Fitted*: by the bands fitted on every run (in-sample, the bands memfit ships). The",
        "held-out figures are the ones to quote.",
        "",
        "Error is predicted (the band's median) / published - 1. The issue's target is decode",
        "within 25 % and prefill within 35 % for at least 80 % of runs; where a run is",
        "outside, the band (10th to 90th percentile of the fitted fractions) should hold it:",
        "the last column counts the runs whose published figure lies inside their band.",
        "",
        "## Result",
        "",
    ]
    for phase_name in ("decode", "prefill"):
        errors = [error(r[phase_name], "held_out") for r in runs]
        errors = [e for e in errors if e is not None]
        tol = TOLERANCE[phase_name]
        within = sum(1 for e in errors if abs(e) <= tol)
        share = within / len(errors)
        verdict = "meets" if share >= 0.8 else "misses"
        lines.append(f"- {phase_name.capitalize()}, held out: {within} of {len(errors)} runs "
                     f"({share * 100:.0f} %) within {tol * 100:.0f} %; this {verdict} the "
                     "80 % target.")
    lines += [
        "",
        "Where prefill misses: CUDA. The runs mix llama.cpp builds of December 2023 and",
        "May 2024, and datacenter GPUs (A100, H100, RTX 6000 Ada) whose llama.cpp pp512 reaches",
        "10-30 % of their FP16 peak against 50-100 % on GeForce cards; one fit per backend",
        "and family cannot hold both, and the CUDA bands are wide (see the bands below).",
        "The prefill runs of the M1 Max 24-core GPU are predicted from the 32-core row (the",
        "table has no 24-core M1 Max), 4/3 of its compute. Decode misses on the M1 Max runs,",
        "which reach a smaller share of the chip's 400 GB/s than the other Apple chips here, on",
        "the 65B runs of the A100 and H100, and on the one Vulkan run (gpt-oss-20b, whose",
        "active bytes are taken as its share of parameters although its attention and",
        "embeddings are stored wider than its experts).",
        "",
        "## Decode",
        "",
    ]
    lines += summary_table(runs, "decode")
    lines += ["", "## Prefill", ""]
    lines += summary_table(runs, "prefill")
    lines += ["", "## Efficiency bands (fitted on every run)", "",
              "Seconds a token = bound seconds / efficiency + layers x overhead a layer; the",
              "band is the spread of the runs' published speed over that (median, 10th and",
              f"90th percentiles). A group of fewer than {MIN_RUNS} runs takes its backend's fit,",
              "then the fit over all runs (docs/speed.md, \"Efficiency\").", "",
              "Decode:", ""]
    lines += bands_table(data["bands"]["decode"])
    lines += ["", "Prefill:", ""]
    lines += bands_table(data["bands"]["prefill"])
    lines += ["", "## What the table does not predict", ""]
    for phase_name in ("decode", "prefill"):
        missing = unpredicted(runs, phase_name)
        lines.append(f"{phase_name.capitalize()}: " + ("; ".join(missing) if missing else "none") + ".")
        lines.append("")
    lines += ["## Every run (held out)", ""]
    lines += run_rows(runs)
    lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validate", default=str(DEFAULT_VALIDATE),
                        help="the memfit_speed_validate program")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when docs/validation-speed.md would change")
    args = parser.parse_args()
    result = subprocess.run([args.validate], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"gen-validation-speed: {args.validate}: {result.stderr.strip()}")
    text = render(json.loads(result.stdout))
    if args.check:
        current = DOC.read_text() if DOC.exists() else ""
        if current != text:
            sys.exit("gen-validation-speed: docs/validation-speed.md is out of date: run "
                     "scripts/gen-validation-speed.py")
        return
    DOC.write_text(text)


if __name__ == "__main__":
    main()
