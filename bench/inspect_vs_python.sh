#!/usr/bin/env bash
# inspect_vs_python.sh: how long memfit takes to size a 163-shard,
# 139,583-tensor, 1-trillion-parameter checkpoint, in both of its forms,
# next to the least a Python tool must do for the same answer (open each
# shard, read the 8-byte length and the header, json.loads it).
#
#   bench/inspect_vs_python.sh BUILD_DIR [RUNS]     (RUNS defaults to 15)
#
# Builds nothing: BUILD_DIR must hold the memfit binary and
# bench/make_checkpoint_tool (e.g. build/release after `cmake --build
# --preset release --target memfit make_checkpoint_tool`). The checkpoint
# is generated as sparse files in a temporary folder (~31 MB on disk,
# removed at exit) in two forms sharing the same shard files (hard links):
#   with index:    the shards, config.json and model.safetensors.index.json
#                  (13.5 MB): memfit parses the index and stats each shard;
#   without index: the same shards and config.json: memfit reads every
#                  header (17.6 MB of JSON).
# The Python reader reads every header (it ignores an index). One warm-up
# run of each, then RUNS rounds of the three, one after another; each is
# timed as a whole process (start-up included) by the same Python wrapper:
# wall time (time.perf_counter), CPU time and page faults (wait4's
# rusage). Prints medians, the ratios python / memfit of the wall medians,
# the load average before and after, and the machine. Needs only bash and
# python3.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [RUNS]" >&2
  exit 2
fi
build_dir=$1
runs=${2:-15}
tool="$build_dir/bench/make_checkpoint_tool"
memfit="$build_dir/memfit"
for program in "$tool" "$memfit"; do
  if [[ ! -x $program ]]; then
    echo "$0: $program not found; build it first:" >&2
    echo "  cmake --build --preset release --target memfit make_checkpoint_tool" >&2
    exit 1
  fi
done
if ! command -v python3 >/dev/null; then
  echo "$0: python3 not found (apt-get install python3)" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/memfit-inspect-vs-python-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$tool" "$work/with-index" --with-index >/dev/null
mkdir "$work/without-index"
ln "$work/with-index/"*.safetensors "$work/with-index/config.json" "$work/without-index/"

python3 - "$work" "$runs" "$memfit" <<'PY'
import json
import os
import platform
import statistics
import subprocess
import sys
import time

work, runs, memfit = sys.argv[1], int(sys.argv[2]), sys.argv[3]
load_before = os.getloadavg()

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

with_index = os.path.join(work, "with-index")
without_index = os.path.join(work, "without-index")
commands = {
    "memfit inspect, with index": [memfit, "inspect", "-m", with_index, "--json"],
    "memfit inspect, without index": [memfit, "inspect", "-m", without_index, "--json"],
    "python3 json.loads of every header": [sys.executable, "-c", READER, without_index],
}


def measure(cmd):
    """One whole-process run: (wall s, cpu s, minor faults, major faults)."""
    start = time.perf_counter()
    # stderr too: memfit warns there that a 1 TB load does not fit here.
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(cmd[:3])} exited with {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_minflt, usage.ru_majflt


# Before anything is timed: memfit sizes both forms alike, each its own way.
for label, source in zip(list(commands)[:2], ("safetensors_index", "safetensors_header")):
    report = json.loads(subprocess.run(commands[label], capture_output=True, text=True,
                                       check=True).stdout)
    if (report["weights_bytes"], report["weights_source"]) != (1029173249888, source):
        sys.exit(f"{label}: weights {report['weights_bytes']} bytes from "
                 f"{report['weights_source']}, expected 1029173249888 from {source}")

samples = {label: [] for label in commands}
for cmd in commands.values():
    measure(cmd)  # warm-up: page cache, dynamic loader
for _ in range(runs):
    for label, cmd in commands.items():
        samples[label].append(measure(cmd))


def median(label, field):
    return statistics.median(sample[field] for sample in samples[label])


cpu_model = "unknown"
with open("/proc/cpuinfo") as cpuinfo:
    for line in cpuinfo:
        if line.startswith("model name"):
            cpu_model = line.split(":", 1)[1].strip()
            break
load_after = os.getloadavg()
print("checkpoint: 163 shards, 139,583 tensors; with index (13.5 MB) and without")
print(f"runs: {runs} rounds of the three, one after another; medians, whole process")
print(f"  {'':<36} {'wall':>9} {'cpu':>9} {'minflt':>7} {'majflt':>6}")
for label in commands:
    print(f"  {label:<36} {median(label, 0) * 1000:6.1f} ms {median(label, 1) * 1000:6.1f} ms "
          f"{median(label, 2):7.0f} {median(label, 3):6.0f}")
python_wall = median("python3 json.loads of every header", 0)
for label in list(commands)[:2]:
    form = label.split(", ")[1]
    print(f"  ratio (python / {form}): {python_wall / median(label, 0):5.1f}x wall, "
          f"{median('python3 json.loads of every header', 1) / median(label, 1):5.1f}x cpu")
print(f"machine: {os.cpu_count()} CPUs, {cpu_model}, {platform.system()} {platform.release()}")
print(f"load average (1, 5, 15 min): before {load_before[0]:.2f} {load_before[1]:.2f} "
      f"{load_before[2]:.2f}; after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
PY
