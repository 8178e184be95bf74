#!/usr/bin/env bash
# inspect_vs_python.sh: how long memfit takes to size a 163-shard,
# 139,583-tensor, 1-trillion-parameter checkpoint, next to the least a Python
# tool must do for the same answer (open each shard, read the 8-byte length
# and the header, json.loads it).
#
#   bench/inspect_vs_python.sh BUILD_DIR [RUNS]     (RUNS defaults to 10)
#
# Builds nothing: BUILD_DIR must hold bench/make_checkpoint_tool and, for
# (a), the memfit binary (e.g. build/release after `cmake --build --preset
# release`). The checkpoint is generated as sparse files in a temporary
# folder (~18 MB on disk, no model.safetensors.index.json, so every header
# is read) and removed at exit. One warm-up run of each, then RUNS runs of
# each, alternating; both are timed as whole processes (start-up included)
# by the same Python wrapper with time.perf_counter, and the medians and
# their ratio are printed. Needs only bash and python3.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [RUNS]" >&2
  exit 2
fi
build_dir=$1
runs=${2:-10}
tool="$build_dir/bench/make_checkpoint_tool"
memfit="$build_dir/memfit"
if [[ ! -x $tool ]]; then
  echo "$0: $tool not found; build the project first" >&2
  exit 1
fi
if [[ ! -x $memfit ]]; then
  echo "$0: $memfit not found: timing bench/weights_bench instead of memfit inspect" >&2
  memfit=""
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/memfit-inspect-vs-python-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$tool" "$work/checkpoint"

python3 - "$work/checkpoint" "$runs" "$memfit" "$build_dir/bench/weights_bench" <<'PY'
import os
import statistics
import subprocess
import sys
import time

checkpoint, runs, memfit, weights_bench = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

# The Python side: the minimum any Python tool does to size the checkpoint
# from headers. It prints its tensor count so the work cannot be skipped.
READER = r'''
import json, os, struct, sys
folder = sys.argv[1]
tensors = 0
for name in sorted(os.listdir(folder)):
    if name.endswith(".safetensors"):
        with open(os.path.join(folder, name), "rb") as f:
            (length,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(length))
            tensors += len(header) - ("__metadata__" in header)
print(tensors)
'''

if memfit:
    memfit_cmd = [memfit, "inspect", "-m", checkpoint, "--json"]
    memfit_label = "memfit inspect -m DIR --json"
else:
    memfit_cmd = [weights_bench, "--benchmark_filter=BM_FindFolderWeights$",
                  "--benchmark_min_time=0"]
    os.environ["MEMFIT_BENCH_CHECKPOINT"] = checkpoint
    memfit_label = "weights_bench (find_folder_weights)"
python_cmd = [sys.executable, "-c", READER, checkpoint]


def seconds(cmd):
    """(wall, cpu) seconds of one run; cpu = the child's user + system time."""
    start = time.perf_counter()
    # stderr too: memfit warns there that a 1 TB load does not fit here.
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{cmd[0]} exited with {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


seconds(memfit_cmd)  # warm-up: page cache, dynamic loader
seconds(python_cmd)
memfit_runs, python_runs = [], []
for _ in range(runs):
    memfit_runs.append(seconds(memfit_cmd))
    python_runs.append(seconds(python_cmd))


def median_ms(samples, which):
    return statistics.median(sample[which] for sample in samples) * 1000


print(f"checkpoint: 163 shards, 139,583 tensors, no index ({checkpoint})")
print(f"runs: {runs} each; medians, whole process (start-up included)")
print(f"  {'':<40} {'wall':>9} {'cpu':>9}")
for label, samples in ((memfit_label, memfit_runs),
                       ("python3 json.loads of every header", python_runs)):
    print(f"  {label:<40} {median_ms(samples, 0):6.1f} ms {median_ms(samples, 1):6.1f} ms")
print(f"  {'ratio (python / memfit)':<40} "
      f"{median_ms(python_runs, 0) / median_ms(memfit_runs, 0):7.1f}x "
      f"{median_ms(python_runs, 1) / median_ms(memfit_runs, 1):7.1f}x")
print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f}; this machine: "
      f"{os.cpu_count()} CPUs")
PY
