#!/usr/bin/env bash
# Fresh Debian 12, as root: install what is missing, build memfit, and
# inspect the bundled example (Qwen3-14B-MLX-4bit: its real config.json and
# shard index; no weights are needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The commands only: the tests' and benchmarks' libraries are not needed
# (scripts/test.sh turns them back on in the same build folder).
cmake --preset release -DMEMFIT_BUILD_TESTS=OFF -DMEMFIT_BUILD_BENCH=OFF >/dev/null
cmake --build --preset release --target memfit_cli
./build/release/memfit inspect -m examples/Qwen3-14B-MLX-4bit "$@"
