#!/usr/bin/env bash
# Re-records tests/golden/expected/ from a built memfit: record.sh BUILD_DIR|MEMFIT_BINARY [NAME...].
set -eu
if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR|MEMFIT_BINARY [NAME...]" >&2
  exit 2
fi
binary=$1
shift
[[ -d "$binary" ]] && binary=$binary/memfit
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -eq 0 ]]; then
  # Every request: files of requests no longer listed go too.
  rm -f "$here"/expected/*.stdout "$here"/expected/*.stderr "$here"/expected/*.rc
fi
exec bash "$here/run.sh" --record "$binary" "$@"
