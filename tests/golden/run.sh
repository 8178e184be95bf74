#!/usr/bin/env bash
# Runs the golden requests (requests.tsv) with a memfit binary: diffs against expected/ (or --record writes it).
# run.sh [--record] MEMFIT_BINARY [NAME...] (no NAME: all; exit 1 on a difference) | run.sh --stale (orphan files)
set -u

mode=compare
if [[ "${1:-}" == "--record" || "${1:-}" == "--stale" ]]; then
  mode=${1#--}
  shift
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
expected=$here/expected
if [[ $mode != stale ]]; then
  if [[ $# -lt 1 ]]; then
    echo "usage: $0 [--record] MEMFIT_BINARY [NAME...] | $0 --stale" >&2
    exit 2
  fi
  binary=$1
  shift
  if [[ ! -x "$binary" || -d "$binary" ]]; then
    echo "golden: $binary is not an executable" >&2
    exit 2
  fi
  binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
fi

# name -> argument text, in file order.
declare -A request_args=()
order=()
while IFS= read -r line || [[ -n "$line" ]]; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  if [[ "$line" != *$'\t'* ]]; then
    echo "golden: requests.tsv: no tab in: $line" >&2
    exit 2
  fi
  name=${line%%$'\t'*}
  if [[ ! "$name" =~ ^[a-z0-9][a-z0-9_.-]*$ || -n "${request_args[$name]+x}" ]]; then
    echo "golden: requests.tsv: bad or repeated name '$name'" >&2
    exit 2
  fi
  request_args[$name]=${line#*$'\t'}
  order+=("$name")
done <"$here/requests.tsv"

if [[ $mode == stale ]]; then
  stale=0
  for file in "$expected"/*; do
    [[ -e "$file" ]] || continue
    base=${file##*/}
    name=${base%.*}
    if [[ -z "${request_args[$name]+x}" || ! "$base" =~ \.(stdout|stderr|rc)$ ]]; then
      echo "golden: tests/golden/expected/$base belongs to no request in requests.tsv"
      stale=1
    fi
  done
  exit $stale
fi

names=("$@")
[[ ${#names[@]} -eq 0 ]] && names=("${order[@]}")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/memfit-golden-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Runs request $1 into $2/{stdout,stderr,rc}: from the repository root, argv[0] "memfit", an
# environment of only the variables below (a temporary HOME and caches, the Hub offline and
# unreachable, the host read from tests/golden/sysroot, GPU libraries that list no GPU: glibc's
# libc.so.6 has no NVML or ROCm SMI functions) plus the request's leading VAR=value words.
run_request() {
  local name=$1 out=$2 word
  local -a words=() env_words=()
  eval "words=(${request_args[$name]})" || return 2
  while [[ ${#words[@]} -gt 0 && "${words[0]}" =~ ^[A-Z_][A-Z0-9_]*= ]]; do
    env_words+=("${words[0]}")
    words=("${words[@]:1}")
  done
  local home=$scratch/home-$name
  mkdir -p "$out" "$home"
  (
    cd "$root" || exit 125
    for word in $(compgen -e); do unset "$word" 2>/dev/null; done
    export PATH=/usr/bin:/bin LC_ALL=C TZ=UTC HOME="$home" XDG_CACHE_HOME="$home/.cache" \
      XDG_CONFIG_HOME="$home/.config" HF_HOME="$home/hf" HF_HUB_CACHE=tests/golden/hf-cache \
      MEMFIT_CACHE_DIR="$home/memfit-cache" HF_HUB_OFFLINE=1 HF_ENDPOINT=http://127.0.0.1:9 \
      MEMFIT_SYSROOT=tests/golden/sysroot MEMFIT_NVML_LIBRARY=libc.so.6 MEMFIT_ROCM_SMI_LIBRARY=libc.so.6
    for word in "${env_words[@]}"; do export "${word?}"; done
    # stdout through a pipe, so --out /dev/stdout appends the SVG in order.
    exec -a memfit "$binary" "${words[@]}" 2>"$out/stderr" </dev/null | cat >"$out/stdout"
    exit "${PIPESTATUS[0]}"
  )
  echo $? >"$out/rc"
}

failed=0
for name in "${names[@]}"; do
  if [[ -z "${request_args[$name]+x}" ]]; then
    echo "golden: no request named '$name' in tests/golden/requests.tsv" >&2
    failed=1
    continue
  fi
  out=$scratch/$name
  run_request "$name" "$out"
  if [[ $mode == record ]]; then
    mkdir -p "$expected"
    for part in stdout stderr rc; do cp "$out/$part" "$expected/$name.$part"; done
    continue
  fi
  differs=0
  for part in stdout stderr rc; do
    want=$expected/$name.$part
    if [[ ! -f "$want" ]]; then
      echo "golden: $name: no tests/golden/expected/$name.$part (record it: tests/golden/record.sh BUILD_DIR $name)"
      differs=1
      continue
    fi
    if ! diff -u --label "expected/$name.$part" --label "actual/$name.$part" "$want" "$out/$part"; then
      differs=1
    fi
  done
  if [[ $differs -ne 0 ]]; then
    echo "golden: $name differs: memfit ${request_args[$name]}"
    failed=1
  fi
done
exit $failed
