#!/usr/bin/env bash
# The calculator page's end-to-end test: installs playwright-core (pinned in
# package-lock.json) when node_modules is not current, then drives the page
# of BUILD_DIR/memfit serve in headless Chromium.
#
#   tests/e2e/run.sh BUILD_DIR [SCREENSHOT_DIR]
#
# Needs node (18 or later), npm and Debian's chromium (scripts/install-deps.sh
# installs them). When one is missing it fails, unless MEMFIT_E2E_ALLOW_SKIP=1,
# when it exits 77 (skipped): CI never sets it, so CI always runs the test.
# CHROMIUM names another browser binary; MEMFIT_E2E_SCREENSHOTS the folder the
# screenshots calculator-1280.png and calculator-390.png are saved in (default
# BUILD_DIR/e2e; `tests/e2e/run.sh build/release docs/images` refreshes the
# committed ones).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: tests/e2e/run.sh BUILD_DIR [SCREENSHOT_DIR]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
# Paths made absolute: the test runs from tests/e2e.
screenshots=${2:+$(realpath -m "$2")}
if [[ -n ${MEMFIT_E2E_SCREENSHOTS:-} ]]; then
  MEMFIT_E2E_SCREENSHOTS=$(realpath -m "$MEMFIT_E2E_SCREENSHOTS")
  export MEMFIT_E2E_SCREENSHOTS
fi
chromium=${CHROMIUM:-/usr/bin/chromium}

missing=()
command -v node >/dev/null 2>&1 || missing+=(node)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[[ -x $chromium ]] || missing+=("chromium ($chromium)")
if (( ${#missing[@]} > 0 )); then
  if [[ ${MEMFIT_E2E_ALLOW_SKIP:-0} == 1 ]]; then
    echo "calculator e2e: SKIPPED, missing: ${missing[*]}"
    exit 77
  fi
  echo "calculator e2e: missing ${missing[*]}; install them (scripts/install-deps.sh)" \
       "or set MEMFIT_E2E_ALLOW_SKIP=1 to skip" >&2
  exit 1
fi
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)'; then
  echo "calculator e2e: node $(node --version) is older than 18" >&2
  exit 1
fi
for program in memfit memfit-serve; do
  if [[ ! -x $build/$program ]]; then
    echo "calculator e2e: $build/$program is missing: build first" >&2
    exit 1
  fi
done

cd "$here"
# node_modules is current when it was installed from this very lock file:
# then nothing is fetched, so a second run works offline.
stamp=node_modules/.memfit-installed-lock
if [[ ! -f node_modules/playwright-core/package.json ]] || ! cmp -s package-lock.json "$stamp"; then
  echo "calculator e2e: npm ci (playwright-core)"
  npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
  cp package-lock.json "$stamp"
fi

echo "calculator e2e: $(node --version), $("$chromium" --version 2>/dev/null | head -1)"
args=("$build")
[[ -n $screenshots ]] && args+=("$screenshots")
exec node calculator_e2e.mjs "${args[@]}"
