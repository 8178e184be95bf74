#!/usr/bin/env python3
"""Regenerates docs/validation-logs.md and data/bands/bands.tsv (and, with
--update-expected, tests/data/logs/expected.tsv) from the log corpus under
tests/data/logs/.

Every <engine>/<slug>.log is checked with `memfit check-log --json`, with
what its sidecar <slug>.json gives that the log may not print (the same
options tests/logs/log_replay_test.cc passes, see replay_options below):
  --config <slug>.config.json   when the sidecar names one
  --runtime-version V           the sidecar's version, when it reads as one
  --command CMD                 the sidecar's command line
  --gpu-name NAME               vLLM logs: the sidecar's first device
  --file-type TYPE              the sidecar's gguf_file_type (a llama.cpp
                                log priced from its config), or
                                <bits>bit-g<group> from its mlx_convert
                                (an mlx-lm log: the base config converted
                                as mlx_lm.convert -q does)

Usage: scripts/gen-validation-logs.py [--memfit build/release/memfit]
                                      [--update-expected] [--check]
                                      [--first-check ENGINE/SLUG ...
                                       [--first-check-commit REV]]
  --first-check  record, in each named log's sidecar, what the memfit given
            priced before any rule was changed for it ("first_check": the
            commit, and each figure's printed, memfit and ratio): the
            evidence for "logs never seen" (docs/validation-logs.md). A
            sidecar that has one already is left as it is.
  --first-check-commit  the commit the --memfit binary was built from (a
            frozen binary's); the default, the worktree's HEAD, is right only
            for a binary built from it.
  --check   exit 1 when docs/validation-logs.md or data/bands/bands.tsv would
            change (ctest: Logs.BandsAndDocCurrent)
The band table (the library embeds it: src/bands/error_bands.h) has one row
per engine profile, backend and figure over the modelled figures priced;
docs/validation-logs.md, "Error bands", says how a row is made and read.
Python 3 standard library only.
"""
import argparse
import json
import math
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "data" / "logs"
DOC = ROOT / "docs" / "validation-logs.md"
EXPECTED = LOGS / "expected.tsv"
BANDS = ROOT / "data" / "bands" / "bands.tsv"
LEVELS = (90, 95, 99)  # the --confidence levels (src/request/common_fields.cc)
ENGINES = ["llamacpp", "ollama", "vllm", "sglang", "mlx-lm"]
TOLERANCE = "0.001"  # each row's ratio may move this much before the replay fails
VERSION = re.compile(r"^v?\d+\.\d+(\.\d+)*$|^b\d+$")


def replay_options(engine, slug, sidecar):
    """The check-log flags the sidecar adds (log_replay_test.cc: the same)."""
    args = []
    config = LOGS / engine / f"{slug}.config.json"
    if config.exists():
        args += ["--config", str(config)]
    version = sidecar.get("version")
    if isinstance(version, str) and VERSION.match(version):
        args += ["--runtime-version", version]
    command = sidecar.get("command")
    if isinstance(command, str) and command:
        args += ["--command", command]
    file_type = sidecar.get("gguf_file_type")
    if isinstance(file_type, str) and file_type:
        args += ["--file-type", file_type]
    # An MLX checkpoint rebuilt from its base config: mlx_lm.convert's bits
    # and group size, as the MLX weight mode "<bits>bit-g<group>".
    convert = sidecar.get("mlx_convert")
    if isinstance(convert, dict) and isinstance(convert.get("bits"), int) \
            and isinstance(convert.get("group_size"), int):
        # "quantize_embeddings": false: a conversion under an MLX before
        # v0.11.0, Linear layers only (engines/mlxlm/convert_config.h).
        linear_only = "-linear-only" if convert.get("quantize_embeddings") is False else ""
        args += ["--file-type", f"{convert['bits']}bit-g{convert['group_size']}{linear_only}"]
    devices = sidecar.get("devices") or []
    # mlx-lm: the device sets MLX's backend (an NVIDIA GPU: CUDA) or the
    # Apple chip's class (Metal's buffer limits): mlxlm_pricer.cc.
    if engine in ("vllm", "sglang", "mlx-lm") and devices and isinstance(devices[0], str):
        args += ["--gpu-name", devices[0]]
    return args


def check(memfit, engine, log):
    slug = log.stem
    sidecar_path = log.with_suffix(".json")
    sidecar = json.loads(sidecar_path.read_text()) if sidecar_path.exists() else {}
    cmd = [memfit, "check-log", str(log), "--json"] + replay_options(engine, slug, sidecar)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return sidecar, None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"
    return sidecar, json.loads(out.stdout), None


def fmt_ratio(r):
    return "-" if r is None else f"{r:.4f}"


def error_of(ratio):
    return abs(ratio - 1.0)


def collect(memfit):
    rows, logs = [], []
    for engine in ENGINES:
        for log in sorted((LOGS / engine).glob("*.log")):
            sidecar, report, failure = check(memfit, engine, log)
            backend = sidecar.get("backend") or (report or {}).get("backend") or "?"
            entry = {"engine": engine, "slug": log.stem, "source": sidecar.get("source") or "?",
                     "backend": backend, "failure": failure, "report": report,
                     "config_missing": sidecar.get("config_missing"),
                     "first_check": sidecar.get("first_check"), "fork": sidecar.get("fork"),
                     "session": sidecar.get("session")}
            logs.append(entry)
            if report is None:
                continue
            for f in report["figures"]:
                rows.append({**entry, "figure": f})
    return rows, logs


def summary_table(rows):
    groups = {}
    for r in rows:
        f = r["figure"]
        if f["ratio"] is None:
            continue
        key = (r["engine"], r["backend"], f["figure"], f["basis"])
        groups.setdefault(key, []).append((f["ratio"], f["within_print"]))
    lines = ["| engine | backend | figure | basis | rows | within the print | median error | worst error | worst ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (engine, backend, figure, basis), entries in sorted(groups.items()):
        ratios = [ratio for ratio, _ in entries]
        within = sum(1 for _, inside in entries if inside)
        errors = [error_of(x) for x in ratios]
        worst = max(ratios, key=error_of)
        lines.append(f"| {engine} | {backend} | {figure} | {basis} | {len(ratios)} | {within} | "
                     f"{statistics.median(errors) * 100:.2f} % | {max(errors) * 100:.2f} % | {worst:.4f} |")
    return lines


def row_table(rows):
    lines = ["| log | device | figure | printed | memfit | ratio | basis | source |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        f = r["figure"]
        memfit = "-" if f["memfit"] is None else f["memfit"]
        note = f" ({f['note']})" if f["note"] else ""
        lines.append(f"| {r['engine']}/{r['slug']} | {f['device']} | {f['figure']} | {f['printed_text']} "
                     f"| {memfit} | {fmt_ratio(f['ratio'])} | {f['basis'] or '-'}{note} | {r['source']} |")
    return lines


def not_priced_table(logs):
    """One row per log not priced. A log priced from no model whose sidecar
    says which config is missing (its "config_missing") says that instead of
    memfit's generic "give -m MODEL or --config config.json"."""
    lines = ["| log | why |", "|---|---|"]
    for entry in logs:
        why = entry["failure"] or (entry["report"] or {}).get("not_priced")
        if why and why.startswith("no model:") and entry["config_missing"]:
            why = f"no model: {entry['config_missing']}"
        if why:
            lines.append(f"| {entry['engine']}/{entry['slug']} | {why} |")
    return lines

# The targets of issue 28 ("Done means"), one a kind of figure: which rows
# it covers and when a row meets it. A row is one priced figure of one device.
def ratio_of(f, value):
    if value is None or not f["printed"]:
        return None
    return value / f["printed"]


def exact_to_print(f, value):
    """memfit's figure lies within the print's rounding (its band)."""
    return value is not None and abs(value - f["printed"]) <= f["band"]


def target_met(target, f, value):
    """Whether `value` (memfit's figure in f's unit) meets check-log's
    target for the figure: within the print's rounding, or a ratio range."""
    if target["exact"]:
        return exact_to_print(f, value)
    ratio = ratio_of(f, value)
    return ratio is not None and target["low"] <= ratio <= target["high"]


def targets_of(rows):
    """Issue 28's targets as check-log's JSON states them (src/logs/log_check.cc,
    target_of: the one declaration), ordered by engine (ENGINES), then figure
    (the schema's order of figures), then name."""
    schema = json.loads((ROOT / "schema" / "check-log.schema.json").read_text())
    figures = schema["$defs"]["figure"]["properties"]["figure"]["enum"]
    rank = {}
    for r in rows:
        t = r["figure"].get("target")
        if t:
            key = (ENGINES.index(r["engine"]), figures.index(r["figure"]["figure"]), t["name"])
            rank[t["name"]] = min(rank.get(t["name"], key), key)
    return sorted(rank, key=rank.get)


def first_memfit(row):
    """memfit's figure for the row at its log's first check (sidecar
    "first_check"), or None when the log has none or it was not priced then."""
    first = row.get("first_check")
    if not isinstance(first, dict):
        return None
    f = row["figure"]
    for g in first.get("figures") or []:
        if g.get("device") == f["device"] and g.get("figure") == f["figure"]:
            return g.get("memfit")
    return None


TARGETS_TEXT = """## Targets

Issue 28's targets, each over the priced rows it covers (a row is one figure of one
device of one log). "Exact to the print" means memfit's figure lies within the print's
rounding. *Never seen* counts the rows of logs whose sidecar holds a `first_check`:
what memfit priced when the log was added, before any rule was changed for it
(`scripts/gen-validation-logs.py --first-check`), against the same target; "now" is
the same rows with today's rules. Rows that miss their target follow the table, each
with what check-log says of it."""


def targets_section(rows):
    lines = TARGETS_TEXT.splitlines()
    lines += ["", "| target | rows | met | never seen: rows | met at first check | met now |",
              "|---|---|---|---|---|---|"]
    misses = []
    for name in targets_of(rows):
        mine = [r for r in rows if r["figure"]["ratio"] is not None and
                (r["figure"].get("target") or {}).get("name") == name]
        met = [r for r in mine if r["figure"]["target"]["met"]]
        seen = [r for r in mine if isinstance(r.get("first_check"), dict)]
        first_met = sum(1 for r in seen
                        if target_met(r["figure"]["target"], r["figure"], first_memfit(r)))
        now_met = sum(1 for r in seen if r["figure"]["target"]["met"])
        lines.append(f"| {name} | {len(mine)} | {len(met)} | {len(seen)} | {first_met} | {now_met} |")
        misses += [r for r in mine if r not in met]
    lines += ["", "### Rows that miss their target", "",
              "| log | device | figure | ratio | basis and why |", "|---|---|---|---|---|"]
    for r in misses:
        f = r["figure"]
        why = f"{f['basis'] or '-'}" + (f": {f['note']}" if f["note"] else "")
        lines.append(f"| {r['engine']}/{r['slug']} | {f['device']} | {f['figure']} | "
                     f"{fmt_ratio(f['ratio'])} | {why} |")
    return lines


BANDS_TEXT = """## Error bands

Every report prints, beside each figure memfit models (not beside an exact one),
the band the corpus measured for it: the least and greatest memfit / printed ratio
over the logs that engine profile priced on that backend with the figure modelled
(each runtime's logs count under the profile that prices them: Ollama's under ollama), e.g.
`modelled, -14.0 % to +2.0 % over 14 CPU logs` (text; one decimal, rounded
outward) and, in JSON, one object per modelled figure in `bands`: `figure`,
`backend`, `logs`, `low`, `high`, `basis`, `margin`, `margin_bytes`
(schema/inspect-report.schema.json). Low and high are the
minimum and maximum, not percentiles: over a few dozen logs a percentile would
hide the worst run. A figure with fewer than 5 logs behind it gets no band: the
report says `fewer than 5 CPU logs (2)` and `basis` is `"fewer than 5 logs"`.
A fork's run (a sidecar's `"fork"`, e.g. ik_llama.cpp's own binary, whose graph
and buffers are its own) keeps its rows in the tables and the targets but stays
out of the engine's bands; so does a Python session's mlx-lm peak (a sidecar's
`"session"`: a notebook or REPL whose `mx.get_peak_memory()` counts all the session ran
before, which mlx-lm never resets), which is not the fresh run memfit prices.

A ratio under 1 means memfit's figure was below the print. `--confidence P`
(90, 95 or 99) adds to the total compared against the budget, for each modelled
figure with a band, memfit's figure times margin_P: the least fraction that, added
to memfit's figure, reaches the printed figure in P % of those logs (nearest rank
over the sorted margins max(0, printed / memfit - 1), rounded up to 4 decimals);
`fit` solves against the same total. A figure without a band adds nothing, and
the report says so.

Two tables follow. The first is over every priced, modelled row of the corpus,
misses and all: how far memfit's figures fall from the prints. The second, the
estimate band, is what reports print and `--confidence` adds: it leaves out the
rows that miss their target for an input the log does not print (the figure's
`input_gap` in check-log's JSON: a GGUF's per-tensor types the dump only counts,
where the file's data begins, a tensor split, a device list, n_gpu_layers, the
context, a tensor-parallel size, SGLang's mem_fraction_static ...), since an
estimate has that input from its GGUF header or its flags. A row with an input
gap that still meets its target stays in both.

The estimate band is `data/bands/bands.tsv`, written with this page by
`scripts/gen-validation-logs.py` and embedded in the library at build time
(cmake/embed_text_files.cmake), so no file is read at run time; ctest's
`Logs.BandsAndDocCurrent` runs the script with `--check`, so a rule that moves a
ratio fails until both are regenerated.
"""


def bands_section(rows):
    lines = BANDS_TEXT.splitlines()
    head = ["| engine | backend | figure | logs | low | high | margin 90 % | margin 95 % | margin 99 % |",
            "|---|---|---|---|---|---|---|---|---|"]
    for title, estimate in (("Over every priced row", False),
                            ("The estimate band (data/bands/bands.tsv)", True)):
        lines += ["", f"### {title}", ""] + head
        for row in bands_tsv(rows, estimate).splitlines():
            if not row.startswith("#"):
                lines.append("| " + " | ".join(row.split("\t")) + " |")
    return lines


def render(rows, logs):
    counts = {e: sum(1 for l in logs if l["engine"] == e) for e in ENGINES}
    priced = sum(1 for r in rows if r["figure"]["ratio"] is not None)
    out = ["# Validation against real runtime logs",
           "",
           "Generated by `scripts/gen-validation-logs.py` from the corpus under",
           "`tests/data/logs/` (each log's sidecar names its source); do not edit by hand.",
           "`memfit check-log` reads every log (docs/check-log.md) and prices what it can;",
           "`tests/logs/log_replay_test.cc` replays them against `tests/data/logs/expected.tsv`,",
           "so a rule that makes a priced figure worse fails ctest. Error is |memfit / printed - 1|;",
           "\"within the print\" counts the rows whose memfit figure lies inside the print's rounding",
           "(a 0.12 MiB print is 0.115 to 0.125 MiB: an exact 128,000 B reads as 1.73 % off).",
           "",
           "Logs: " + ", ".join(f"{e} {counts[e]}" for e in ENGINES) +
           f"; {len(rows)} printed figures, {priced} priced.",
           "",
           "## By engine, backend and figure", ""]
    out += summary_table(rows)
    out += [""] + targets_section(rows)
    out += [""] + bands_section(rows)
    out += ["", "## Logs not priced", ""]
    out += not_priced_table(logs)
    out += ["", "## Every figure", ""]
    out += row_table(rows)
    return "\n".join(out) + "\n"


def expected_tsv(rows):
    lines = ["# The replay's expectations (tests/logs/log_replay_test.cc), written by",
             "# scripts/gen-validation-logs.py --update-expected: one row per priced figure.",
             "# A figure's |ratio - 1| may not grow past the row's by more than its tolerance.",
             "# Columns: slug, device, figure, printed, memfit, ratio, tolerance"]
    for r in rows:
        f = r["figure"]
        if f["ratio"] is None:
            continue
        lines.append("\t".join([r["slug"], f["device"], f["figure"], str(f["printed"]),
                                str(f["memfit"]), f"{f['ratio']:.6f}", TOLERANCE]))
    return "\n".join(lines) + "\n"


def band_groups(rows, estimate):
    """(profile, backend, figure) -> (slug, ratio) of its modelled, priced figures
    (a multi-device log gives one ratio per device, all from one log); for the
    estimate band, less the rows that miss their target for an input the log
    lacks (input_gap)."""
    groups = {}
    for r in rows:
        f, report = r["figure"], r["report"]
        if f["ratio"] is None or f["basis"] != "modelled" or not report.get("profile"):
            continue
        if estimate and f.get("input_gap") and not (f.get("target") or {}).get("met", True):
            continue
        # A ratio of 0 is memfit placing nothing on a device the log shows in
        # use: a placement miss, listed in the figure table, which no margin
        # over memfit's figure can cover.
        if f["ratio"] <= 0:
            continue
        # A fork's run (the sidecar's "fork": ik_llama.cpp's own binary) is
        # priced by the engine's rules and listed with its rows, but its
        # graph is the fork's: it is not the engine's run the band speaks for.
        if r.get("fork"):
            continue
        # A Python session's peak (the sidecar's "session": a notebook or REPL
        # whose printed peak is mx.get_peak_memory() over everything the session
        # ran before, never reset by mlx-lm) is not the fresh run memfit prices.
        if r.get("session"):
            continue
        groups.setdefault((report["profile"], r["backend"], f["figure"]), []).append(
            (r["slug"], f["ratio"]))
    return groups


def margin_needed(ratio):
    """The fraction of memfit's figure that, added to it, reaches the print."""
    return max(0.0, 1.0 / ratio - 1.0)


def nearest_rank(values, level):
    """The smallest value at or above `level` % of `values` (sorted)."""
    return values[(level * len(values) + 99) // 100 - 1]


def up4(x):
    """x rounded up to 4 decimals, as text: a margin still covers its runs."""
    return f"{math.ceil(round(x * 10000, 6)) / 10000:.4f}"


def bands_tsv(rows, estimate=True):
    lines = ["# The corpus's error bands (docs/validation-logs.md, \"Error bands\"), written by",
             "# scripts/gen-validation-logs.py from the replay of tests/data/logs/: do not edit.",
             "# One row per engine profile, backend and figure, over the figures memfit",
             "# modelled and priced, less those that miss their target for an input the",
             "# log does not print (check-log's input_gap). ratio = memfit / printed; low, high: the least and",
             "# greatest ratio; margin_P: the least fraction of memfit's figure that, added",
             "# to it, reaches the printed figure in P % of the figures (nearest rank);",
             "# logs: the distinct logs behind the row (a band needs 5).",
             "# Columns: engine, backend, figure, logs, low, high, margin_90, margin_95, margin_99"]
    for (engine, backend, figure), priced in sorted(band_groups(rows, estimate).items()):
        ratios = [ratio for _, ratio in priced]
        logs = len({slug for slug, _ in priced})
        needed = sorted(margin_needed(x) for x in ratios)
        margins = [up4(nearest_rank(needed, level)) for level in LEVELS]
        lines.append("\t".join([engine, backend, figure, str(logs), f"{min(ratios):.4f}",
                                 f"{max(ratios):.4f}"] + margins))
    return "\n".join(lines) + "\n"


def head_commit():
    out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=8", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "?"


def record_first_check(memfit, name, commit):
    """Writes the sidecar's first_check from the current check (never over
    one already there), labelled with the commit memfit was built from.
    Returns a line saying what happened."""
    engine, _, slug = name.partition("/")
    log = LOGS / engine / f"{slug}.log"
    if engine not in ENGINES or not log.exists():
        return f"{name}: no such log under {LOGS.relative_to(ROOT)}"
    sidecar_path = log.with_suffix(".json")
    sidecar, report, failure = check(memfit, engine, log)
    if "first_check" in sidecar:
        return f"{name}: has a first_check already (commit {sidecar['first_check'].get('commit')})"
    figures = []
    for f in (report or {}).get("figures", []):
        figures.append({key: f.get(key) for key in ("device", "figure", "printed", "memfit", "ratio")})
    sidecar["first_check"] = {"commit": commit, "failure": failure, "figures": figures}
    sidecar_path.write_text(json.dumps(sidecar, indent=2) + "\n")
    priced = sum(1 for f in figures if f["ratio"] is not None)
    return f"{name}: first_check recorded ({len(figures)} figures, {priced} priced)"


def stale(path, text):
    if path.read_text() == text:
        return False
    print(f"gen-validation-logs: {path.relative_to(ROOT)} is stale", file=sys.stderr)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memfit", default=str(ROOT / "build" / "release" / "memfit"))
    parser.add_argument("--update-expected", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--first-check", nargs="+", metavar="ENGINE/SLUG")
    # The commit --memfit was built from: a frozen binary's, not the worktree's
    # HEAD, which may already carry rules the first check must not see.
    parser.add_argument("--first-check-commit", metavar="REV",
                        help="the commit the --memfit binary was built from (default: HEAD)")
    args = parser.parse_args()
    if args.first_check:
        for name in args.first_check:
            print(record_first_check(args.memfit, name, args.first_check_commit or head_commit()))
        return 0
    rows, logs = collect(args.memfit)
    doc, bands = render(rows, logs), bands_tsv(rows)
    if args.check:
        return 1 if stale(DOC, doc) | stale(BANDS, bands) else 0
    DOC.write_text(doc)
    BANDS.parent.mkdir(parents=True, exist_ok=True)
    BANDS.write_text(bands)
    if args.update_expected:
        EXPECTED.write_text(expected_tsv(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
