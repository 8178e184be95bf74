#!/usr/bin/env bash
# The proof against the real llama.cpp (docs/validation-llamacpp.md).
#
#   scripts/validate-llamacpp.sh [OUT_DIR]        default build/validation-llamacpp
#
# Installs node-llama-cpp 3.21.1 (pinned; its prebuilt CPU binaries of
# llama.cpp come inside the npm package) into a scratch folder outside the
# repository, builds memfit and make_validation_models (release preset)
# unless MEMFIT_BUILD_DIR names an existing build, writes the validation
# models, loads each with llama.cpp on the CPU at every setting of
# scripts/validate-llamacpp/settings.mjs, and writes OUT_DIR/results.md and
# OUT_DIR/results.json. Needs node >= 20 and npm; downloads from npm, so no
# test command runs it. Never builds llama.cpp from source.
#
# Environment:
#   MEMFIT_BUILD_DIR        an existing build folder (memfit and
#                           tests/validation/make_validation_models in it)
#   MEMFIT_VALIDATION_CACHE where node-llama-cpp is installed
#                           (default: ${XDG_CACHE_HOME:-~/.cache}/memfit-validate-llamacpp)
#   MEMFIT_VALIDATION_ONLY  comma-separated model names to run (default all)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(realpath -m "${1:-$root/build/validation-llamacpp}")"
cache="${MEMFIT_VALIDATION_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memfit-validate-llamacpp}"
here="$root/scripts/validate-llamacpp"

command -v node >/dev/null || { echo "validate-llamacpp: node (>= 20) is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "validate-llamacpp: npm is required" >&2; exit 2; }

# 1. node-llama-cpp, pinned, prebuilt binaries only: the CPU package of
# this platform alone (its GPU packages, ~600 MiB, are optional
# dependencies and are left out), else every optional package.
mkdir -p "$cache"
cp "$here/package.json" "$cache/package.json"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) binaries=(--omit=optional @node-llama-cpp/linux-x64@3.21.1) ;;
  Linux-aarch64) binaries=(--omit=optional @node-llama-cpp/linux-arm64@3.21.1) ;;
  *) binaries=() ;;
esac
if [ "$(node -p "try{require('$cache/node_modules/node-llama-cpp/package.json').version}catch{''}")" != "3.21.1" ]; then
  echo "validate-llamacpp: installing node-llama-cpp 3.21.1 into $cache" >&2
  (cd "$cache" && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --no-audit --no-fund --save-exact \
    node-llama-cpp@3.21.1 "${binaries[@]}" >&2)
fi

# 2. memfit and the model writer.
if [ -n "${MEMFIT_BUILD_DIR:-}" ]; then
  build="$(realpath "$MEMFIT_BUILD_DIR")"
else
  build="$root/build/release"
  (cd "$root" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target memfit_cli make_validation_models >&2)
fi
memfit="$build/memfit"
writer="$build/tests/validation/make_validation_models"
[ -x "$memfit" ] || { echo "validate-llamacpp: no memfit at $memfit" >&2; exit 2; }
[ -x "$writer" ] || { echo "validate-llamacpp: no make_validation_models at $writer" >&2; exit 2; }

# 3. The models, then the runs.
mkdir -p "$out/models"
"$writer" "$out/models" >&2
only_args=()
[ -n "${MEMFIT_VALIDATION_ONLY:-}" ] && only_args=(--only "$MEMFIT_VALIDATION_ONLY")
node "$here/run.mjs" --nlc "$cache" --memfit "$memfit" --models "$out/models" --out "$out" "${only_args[@]}"
echo "validate-llamacpp: $out/results.md" >&2
