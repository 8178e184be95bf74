#!/usr/bin/env bash
# CI's fuzz step, deterministic: the same inputs on every machine and every
# run, so it cannot pass by luck. Builds each libFuzzer target (the fuzz
# preset, clang), checks first that a committed crash reproducer fails the
# run (a target that crashes on purpose), then runs each target over a
# temporary copy of its committed folder tests/data/hostile/<name>/: every
# committed input once, then a fixed number of mutations from a fixed seed.
# Any crash, leak, timeout or out-of-memory fails the step (non-zero exit);
# its reproducer is kept in build/<preset>/artifacts/<name>/. The committed
# folders are never written to; scripts/fuzz-campaign.sh grows them.
#
# Usage: scripts/fuzz-smoke.sh [--preset asan|fuzz] [--no-build] [NAME...]
#   --preset: the build whose targets run [fuzz]; CI passes asan.
#   NAME: a target without _fuzz (config, safetensors, ...); default: every
#   fuzz/*_fuzz.cc.
# Environment (defaults in brackets):
#   FUZZ_SMOKE_RUNS   executions per target, committed inputs included, for
#                     every target [each target's line in fuzz/smoke-runs.tsv]
#   FUZZ_SMOKE_SEED   libFuzzer's -seed [1]
#   FUZZ_SMOKE_JOBS   targets run side by side [2]
set -euo pipefail
cd "$(dirname "$0")/.."

runs_override="${FUZZ_SMOKE_RUNS:-}"
seed="${FUZZ_SMOKE_SEED:-1}"
jobs="${FUZZ_SMOKE_JOBS:-2}"
# Seconds one input may take before it counts as a hang: far above any
# input's real cost (milliseconds), so a slow, loaded machine never trips it.
timeout_s=120

build=1
preset=fuzz
names=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) build=0; shift ;;
    --preset) preset="${2:-}"; shift 2 ;;
    -*) echo "fuzz-smoke: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
case "$preset" in
  asan|fuzz) ;;
  *) echo "fuzz-smoke: --preset takes asan or fuzz, not '$preset'" >&2; exit 2 ;;
esac

# runs_for NAME: the target's executions: FUZZ_SMOKE_RUNS when set, else its
# line in fuzz/smoke-runs.tsv (a missing line is an error: every target
# states its budget).
runs_for() {
  if [[ -n "$runs_override" ]]; then echo "$runs_override"; return; fi
  local found
  found="$(awk -v n="$1" '$1 == n { print $2 }' fuzz/smoke-runs.tsv)"
  if [[ -z "$found" ]]; then
    echo "fuzz-smoke: $1 has no line in fuzz/smoke-runs.tsv" >&2
    return 1
  fi
  echo "$found"
}
if [[ ${#names[@]} -eq 0 ]]; then
  for source in fuzz/*_fuzz.cc; do
    names+=("$(basename "$source" _fuzz.cc)")
  done
fi

if [[ $build -eq 1 ]]; then
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" --target deliberate_crash_selftest "${names[@]/%/_fuzz}"
fi

bin="build/$preset/fuzz"
artifacts="build/$preset/artifacts"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Addresses reach libFuzzer's comparison tracing (-use_cmp) and some code
# paths, so with address-space randomisation a fixed seed still explores
# differently on each run: run without it (setarch -R). A machine that
# forbids that (personality(2) blocked) still runs the step, with a warning.
no_aslr=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
  no_aslr=(setarch "$(uname -m)" -R)
else
  echo "fuzz-smoke: warning: cannot turn off address-space randomisation here;" \
    "the exploration may differ from run to run" >&2
fi
# The targets run with only these variables: the environment's size moves
# the stack's addresses, which reach the comparisons libFuzzer traces.
# service_request_fuzz's model root is a fixed path (its text reaches the
# service's hashing); the target rebuilds it.
# UBSan stops at the first report (a report is a crash, not a log line).
clean_env=(env -i "PATH=$PATH" "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
  "MEMFIT_FUZZ_MODEL_ROOT=$PWD/build/$preset/service_request_models")

# run_libfuzzer BINARY CORPUS_SOURCE ARTIFACT_DIR LOG: runs BINARY over a
# copy of CORPUS_SOURCE; returns libFuzzer's exit status.
run_libfuzzer() {
  local binary="$1" source="$2" artifact_dir="$3" log="$4" runs="$5"
  local corpus
  corpus="$(mktemp -d "$scratch/corpus.XXXXXX")"
  cp -R "$source"/. "$corpus"/
  rm -rf "$artifact_dir"  # only this run's reproducers
  mkdir -p "$artifact_dir"
  local dict=()
  local name
  name="$(basename "$binary" _fuzz)"
  if [[ -f "fuzz/$name.dict" ]]; then dict=("-dict=fuzz/$name.dict"); fi
  # -reload=0: no timed re-reads of the corpus folder, so nothing but the
  # seed decides which inputs are tried (with the fixed addresses above).
  "${clean_env[@]}" "${no_aslr[@]}" "$binary" -seed="$seed" -runs="$runs" \
    -timeout="$timeout_s" -max_len=65536 -reload=0 -print_final_stats=1 \
    -artifact_prefix="$artifact_dir/" "${dict[@]}" "$corpus" >"$log" 2>&1
}

# 1. The run must fail on a committed crash: a trap and an escaping
# exception of a target built to crash on them.
for kind in trap throw; do
  log="$scratch/selftest-$kind.log"
  if run_libfuzzer "$bin/deliberate_crash_selftest" "tests/data/fuzz_selftest/$kind" \
    "$scratch/selftest-artifacts-$kind" "$log" 1000; then
    tail -n 20 "$log"
    echo "fuzz-smoke: a committed '$kind' reproducer did not fail the run" >&2
    exit 1
  fi
  if ! ls "$scratch/selftest-artifacts-$kind"/crash-* >/dev/null 2>&1; then
    tail -n 20 "$log"
    echo "fuzz-smoke: the '$kind' crash left no reproducer" >&2
    exit 1
  fi
done
echo "-- self-check: a committed crash reproducer fails the run (trap, exception)"

# 2. Every target over its committed folder, $jobs at a time.
for name in "${names[@]}"; do
  if [[ ! -x "$bin/${name}_fuzz" ]]; then
    echo "fuzz-smoke: no target $bin/${name}_fuzz" >&2
    exit 1
  fi
  if [[ ! -d "tests/data/hostile/$name" ]]; then
    echo "fuzz-smoke: ${name}_fuzz has no committed folder tests/data/hostile/$name/" >&2
    exit 1
  fi
  runs_for "$name" >/dev/null
done
# Longest first (the last column of fuzz/smoke-runs.tsv, seconds taken),
# so that the long targets do not start last and leave a core idle at the
# end; the order decides nothing else (each target is its own process with
# its own seed and corpus). The report below keeps the names' order.
start_order=()
mapfile -t start_order < <(
  for name in "${names[@]}"; do
    awk -v n="$name" '$1 == n && $4 != "" { s = $4 } END { printf "%s\t%s\n", (s == "" ? 0 : s), n }' \
      fuzz/smoke-runs.tsv
  done | sort -t "$(printf '\t')" -k1,1nr -k2,2 | cut -f2)
pids=()
for name in "${start_order[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do sleep 0.2; done
  (
    status=0
    run_libfuzzer "$bin/${name}_fuzz" "tests/data/hostile/$name" "$artifacts/$name" \
      "$scratch/$name.log" "$(runs_for "$name")" || status=$?
    echo "$status" >"$scratch/$name.status"
  ) &
  pids+=($!)
done
wait "${pids[@]}"

failed=0
for name in "${names[@]}"; do
  status="$(cat "$scratch/$name.status")"
  # "#30000 DONE cov: 1234 ft: 5678 corp: ..." and "Done 30000 runs in 9 second(s)"
  # A run that crashed has no DONE line: grep finds nothing, which must not
  # end the script (set -e) before the failure is reported below.
  summary="$( (grep -E '^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs' "$scratch/$name.log" || true) |
    tr '\n' ' ')"
  runs="$(runs_for "$name")"
  if [[ "$status" -eq 0 ]]; then
    echo "-- ${name}_fuzz: seed $seed, $runs runs: ok. ${summary}"
  else
    failed=1
    echo "-- ${name}_fuzz: seed $seed, $runs runs: FAILED (exit $status)"
    tail -n 60 "$scratch/$name.log"
    echo "   reproducer(s) in $artifacts/$name/: rerun with"
    echo "   $bin/${name}_fuzz $artifacts/$name/<file>"
  fi
done
exit "$failed"
