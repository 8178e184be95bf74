#!/usr/bin/env bash
# Regenerates docs/images/plot-qwen3-14b.svg, the plot the README shows:
# the bundled example (Qwen3-14B-MLX-4bit: its real config.json and shard
# index) against a 16 GiB budget, one panel per KV width, out to 128K
# tokens (Qwen3 reaches 131,072 with YaRN; its config declares
# 40,960, which would hide the int8 crossing at 71,424). No --quants: the
# checkpoint is already 4-bit, so no weight mode would shrink it.
#
# Usage: scripts/make-readme-plot.sh [path/to/memfit]
# (default: build/release/memfit, built with `cmake --build --preset release`).
# The output depends only on the example and memfit's estimator, not on
# this machine: the budget is explicit and the backend is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
memfit="${1:-build/release/memfit}"
if [[ ! -x "$memfit" ]]; then
  echo "make-readme-plot: no memfit binary at $memfit (build it, or pass its path)" >&2
  exit 1
fi
mkdir -p docs/images
# Settings from the environment would change the figure: use the defaults.
env -u MEMFIT_MEMORY_LIMIT -u MEMFIT_HEADROOM_FACTOR -u MEMFIT_ACTIVATION_MULT \
    -u MEMFIT_PREFILL_CHUNK -u MLXCEL_MEMORY_LIMIT -u MLXCEL_HEADROOM_FACTOR \
    -u MLXCEL_ACTIVATION_MULT -u MLXCEL_PREFILL_CHUNK -u MEMFIT_ROCM_MAX_INFLIGHT_MB \
    -u MLX_ROCM_MAX_INFLIGHT_MB \
  "$memfit" plot -m examples/Qwen3-14B-MLX-4bit --memory-limit 16GiB --backend cpu \
    --max-tokens 131072 --out docs/images/plot-qwen3-14b.svg
