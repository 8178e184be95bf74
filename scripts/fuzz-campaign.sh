#!/usr/bin/env bash
# The long fuzz campaign (run by hand, not by CI): each libFuzzer target for
# a number of executions (default 10,000,000) or a time, two targets side by
# side (one per core), from a seed it prints so a run can be repeated. What
# it finds is merged into the target's committed folder
# tests/data/hostile/<name>/ with libFuzzer's -merge=1, which keeps only the
# inputs that add coverage, so the corpus stays minimal. The new files go to
# its corpus/ subfolder (its top holds the hand-named inputs that tests
# assert one by one); commit them and CI replays them from then on. A crash,
# leak, timeout or out-of-memory is copied to the folder's top as
# campaign_<kind>_<hash> (rename it after what it is once understood, and
# give it its test) and the script exits 1.
#
# Prints per target: executions, coverage (libFuzzer's cov: edges, ft:
# features), new corpus files and crashes, and the same as a Markdown table
# for docs/reliability.md.
#
# Usage: scripts/fuzz-campaign.sh [--runs N | --seconds S] [--no-build] [NAME...]
#   NAME: a target without _fuzz (config, safetensors, ...); default: every
#   fuzz/*_fuzz.cc.
# Environment: FUZZ_CAMPAIGN_SEED (default: from the clock), FUZZ_CAMPAIGN_JOBS [2].
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10000000
seconds=""
build=1
names=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; seconds=""; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -*) echo "fuzz-campaign: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [[ ${#names[@]} -eq 0 ]]; then
  for source in fuzz/*_fuzz.cc; do names+=("$(basename "$source" _fuzz.cc)"); done
fi
seed="${FUZZ_CAMPAIGN_SEED:-$(date +%s)}"
jobs="${FUZZ_CAMPAIGN_JOBS:-2}"
timeout_s=120

if [[ $build -eq 1 ]]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz --target "${names[@]/%/_fuzz}"
fi
bin=build/fuzz/fuzz
for name in "${names[@]}"; do
  [[ -x "$bin/${name}_fuzz" ]] || { echo "fuzz-campaign: no target $bin/${name}_fuzz" >&2; exit 1; }
  [[ -d "tests/data/hostile/$name" ]] || {
    echo "fuzz-campaign: no folder tests/data/hostile/$name/" >&2
    exit 1
  }
done

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# As scripts/fuzz-smoke.sh runs them, so that the printed seed repeats a
# run: a clean environment, no address-space randomisation where allowed,
# UBSan stopping at its first report, a fixed model root for
# service_request_fuzz.
run_env=(env -i "PATH=$PATH" "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
  "MEMFIT_FUZZ_MODEL_ROOT=$PWD/build/fuzz/service_request_models")
if setarch "$(uname -m)" -R true 2>/dev/null; then run_env+=(setarch "$(uname -m)" -R); fi
if [[ -n "$seconds" ]]; then
  budget=(-runs=-1 -max_total_time="$seconds")
  echo "== fuzz campaign: ${seconds}s per target, seed $seed, $jobs side by side"
else
  budget=(-runs="$runs")
  echo "== fuzz campaign: $runs executions per target, seed $seed, $jobs side by side"
fi

# explore NAME: the target over a working copy of its folder; new inputs
# land in the copy, reproducers in $scratch/NAME.artifacts/.
explore() {
  local name="$1"
  local corpus="$scratch/$name.corpus" artifacts="$scratch/$name.artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp -R "tests/data/hostile/$name"/. "$corpus"/
  local dict=()
  if [[ -f "fuzz/$name.dict" ]]; then dict=("-dict=fuzz/$name.dict"); fi
  local status=0
  "${run_env[@]}" "$bin/${name}_fuzz" -seed="$seed" "${budget[@]}" -timeout="$timeout_s" -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" "$corpus" \
    >"$scratch/$name.log" 2>&1 || status=$?
  echo "$status" >"$scratch/$name.status"
}

pids=()
for name in "${names[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do sleep 1; done
  echo "-- ${name}_fuzz: started"
  explore "$name" &
  pids+=($!)
done
wait "${pids[@]}"

failed=0
rows=()
for name in "${names[@]}"; do
  log="$scratch/$name.log"
  folder="tests/data/hostile/$name"
  before=$(find "$folder" -type f | wc -l)
  # Only inputs that add coverage to the whole committed folder are kept:
  # merged into a copy of it, whose new files (named by their SHA-1) go to
  # the folder's corpus/, apart from the hand-named inputs at its top.
  base="$scratch/$name.base"
  mkdir -p "$base"
  cp -R "$folder"/. "$base"/
  if "${run_env[@]}" "$bin/${name}_fuzz" -merge=1 -max_len=65536 -timeout="$timeout_s" "$base" \
    "$scratch/$name.corpus" >"$scratch/$name.merge.log" 2>&1; then
    mkdir -p "$folder/corpus"
    for file in "$base"/*; do
      [[ -f "$file" && ! -e "$folder/$(basename "$file")" ]] || continue
      mv "$file" "$folder/corpus/"
    done
    rmdir "$folder/corpus" 2>/dev/null || true  # nothing new
  else
    tail -n 20 "$scratch/$name.merge.log"
    echo "fuzz-campaign: merging ${name}'s corpus failed" >&2
    failed=1
  fi
  after=$(find "$folder" -type f | wc -l)
  executed=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 || true)
  cov=$(echo "$coverage" | awk '{print $2}')
  ft=$(echo "$coverage" | awk '{print $4}')
  crashes=0
  for artifact in "$scratch/$name.artifacts"/*; do
    [[ -f "$artifact" ]] || continue
    crashes=$((crashes + 1))
    base="$(basename "$artifact")"  # crash-<sha1>, leak-..., timeout-..., oom-...
    kept="$folder/campaign_${base%%-*}_$(echo "${base#*-}" | cut -c1-12)"
    cp "$artifact" "$kept"
    echo "   kept the reproducer $kept"
  done
  status="$(cat "$scratch/$name.status")"
  if [[ "$status" -ne 0 || $crashes -ne 0 ]]; then
    failed=1
    tail -n 40 "$log"
  fi
  echo "-- ${name}_fuzz: ${executed} executions, cov ${cov:-?}, ft ${ft:-?}, $((after - before)) new corpus files, ${crashes} crashes (exit ${status})"
  rows+=("| ${name}_fuzz | ${executed} | ${cov:-?} | ${ft:-?} | $((after - before)) | ${after} | ${crashes} |")
done

echo
echo "Seed $seed, $(date -u +%Y-%m-%d), $(git rev-parse --short HEAD 2>/dev/null || echo '?'):"
echo
echo "| target | executions | cov | ft | new files | corpus files | crashes |"
echo "|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
if [[ $failed -ne 0 ]]; then
  echo "fuzz-campaign: crashes or failures above; reproducers are in tests/data/hostile/<name>/" >&2
fi
exit "$failed"
