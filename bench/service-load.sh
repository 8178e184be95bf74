#!/usr/bin/env bash
# service-load.sh: memfit serve under hostile clients, on loopback only
# (docs/reliability.md, "Service under hostile clients").
#
#   bench/service-load.sh BUILD_DIR [--duration-s 30] [other service_load flags]
#
# Builds nothing: BUILD_DIR must hold memfit-serve and bench/service_load
# (`cmake --build --preset release --target memfit_serve service_load`).
# Starts memfit-serve on a free 127.0.0.1 port with the bundled example as
# its model root and its default limits, then runs service_load against it
# for the run time (30 s unless --duration-s says otherwise, at most 600):
# 1,000 connections trickling a byte a second over 20 source addresses
# (127.0.1.1-20, 50 each, under the per-address cap of 64), 80 more from
# 127.0.2.1 alone (16 over that cap), 50 clients sending malformed and
# oversized requests, 8 clients sending valid /v1/estimate requests, and a
# /healthz prober. Prints service_load's report (it reads the server's peak
# RSS, VmHWM), checks that the server is still alive and within the RSS
# bound, stops it, and exits non-zero when a target was missed.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [service_load flags]" >&2
  exit 2
fi
build_dir=$1
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
serve="$build_dir/memfit-serve"
load="$build_dir/bench/service_load"
for program in "$serve" "$load"; do
  if [[ ! -x $program ]]; then
    echo "$0: $program not found; build memfit_serve and service_load first" >&2
    exit 1
  fi
done
# The bound on the server's peak RSS at the default limits, in MiB
# (docs/reliability.md derives it): 2,048 connections of at most 74 KiB
# each (148 MiB), the process's own 12 MiB, and 32 MiB of allocator slack.
rss_bound_mib=${MEMFIT_LOAD_RSS_BOUND_MIB:-192}

# Both sides hold over a thousand sockets.
ulimit -n 8192

work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

"$serve" serve --listen 127.0.0.1:0 --model-root "$root/examples" --memory-limit 48GiB \
  2>"$work/serve.err" &
server_pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's|.*serving on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$work/serve.err")
  [[ -n $port ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $port ]]; then
  echo "$0: memfit-serve did not start:" >&2
  cat "$work/serve.err" >&2
  exit 1
fi
echo "memfit-serve pid $server_pid on 127.0.0.1:$port ($(nproc) cores)"

status=0
"$load" --port "$port" --server-pid "$server_pid" "$@" || status=$?

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "server: DIED during the run" >&2
  cat "$work/serve.err" >&2
  exit 1
fi
peak_kib=$(awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status")
if (( peak_kib > rss_bound_mib * 1024 )); then
  echo "server peak RSS $((peak_kib / 1024)) MiB: over the bound of $rss_bound_mib MiB" >&2
  status=1
else
  echo "server peak RSS within the bound of $rss_bound_mib MiB"
fi
kill -TERM "$server_pid"
wait "$server_pid" || { echo "server: exit status $? after SIGTERM" >&2; status=1; }
server_pid=
echo "server stopped cleanly"
exit "$status"
