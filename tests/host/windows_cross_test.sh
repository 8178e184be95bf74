#!/usr/bin/env bash
# Cross-compiles the Windows half of the host library with Debian's
# mingw-w64 (tests/host/windows: memfit.exe with the `host` command, and
# the fake NVML as a DLL) and runs `memfit host` under wine, checking the
# JSON it prints against GlobalMemoryStatusEx's world and the fake GPUs.
#
#   tests/host/windows_cross_test.sh [build-dir]     (default build/windows)
#
# Installs what is missing with apt-get (run as root): g++-mingw-w64-x86-64-posix,
# wine64, cmake, ninja-build, python3, libfmt-dev, nlohmann-json3-dev,
# libcli11-dev. Ends with "N passed, M failed"; exits 1 when a check fails.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$repo/build/windows}"

have() { command -v "$1" >/dev/null 2>&1; }
missing=()
have x86_64-w64-mingw32-g++-posix || missing+=(g++-mingw-w64-x86-64-posix)
[[ -x /usr/lib/wine/wine64 ]] || have wine64 || missing+=(wine64)
have cmake || missing+=(cmake)
have ninja || missing+=(ninja-build)
have python3 || missing+=(python3)
[[ -f /usr/include/fmt/format.h ]] || missing+=(libfmt-dev)
[[ -f /usr/include/nlohmann/json.hpp ]] || missing+=(nlohmann-json3-dev)
[[ -f /usr/include/CLI/CLI.hpp ]] || missing+=(libcli11-dev)
if ((${#missing[@]})); then
  echo "windows_cross_test: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
wine=/usr/lib/wine/wine64
[[ -x "$wine" ]] || wine="$(command -v wine64)"

# An unoptimised build: this is a compile-and-run check, and -O2 doubles
# the time spent in fmt's header-only code.
cmake -S "$repo/tests/host/windows" -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/mingw-w64.cmake" >/dev/null
cmake --build "$build" -j2

# A private wine prefix, no GUI, no Mono/Gecko prompts, and none of the
# caller's memfit settings.
export WINEPREFIX="$build/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY MEMFIT_MEMORY_LIMIT MLXCEL_MEMORY_LIMIT MEMFIT_NVML_LIBRARY \
  MEMFIT_ROCM_SMI_LIBRARY MEMFIT_SYSROOT
"$wine" wineboot --init >/dev/null 2>&1 || true

results="$build/results"
rm -rf "$results" && mkdir -p "$results"
# run NAME [VAR=VALUE...] -- ARGS...: stdout, stderr and exit status of
# one memfit.exe run, into $results/NAME.{out,err,rc}.
run() {
  local name="$1" vars=()
  shift
  while [[ "$1" != "--" ]]; do vars+=("$1"); shift; done
  shift
  local rc=0
  env "${vars[@]}" "$wine" "$build/memfit.exe" "$@" >"$results/$name.out" 2>"$results/$name.err" || rc=$?
  echo "$rc" >"$results/$name.rc"
}
fake_nvml="Z:${build//\//\\}\\fake_nvml.dll"
run plain -- host --json
run fake_nvml "MEMFIT_NVML_LIBRARY=$fake_nvml" -- host --json
run cuda1 "MEMFIT_NVML_LIBRARY=$fake_nvml" -- host --json --device cuda:1
run missing_gpu "MEMFIT_NVML_LIBRARY=$fake_nvml" -- host --json --device cuda:5
run limit MEMFIT_MEMORY_LIMIT=8GiB -- host --json --device cpu
run bad_device -- host --device gpu0
run missing_library 'MEMFIT_NVML_LIBRARY=C:\nonexistent\nvml.dll' -- host --json
run text -- host

python3 - "$results" <<'PY'
import json, pathlib, sys

results = pathlib.Path(sys.argv[1])
passed = failed = 0

def read(name, kind):
    # The Windows C runtime writes "\r\n" on text streams.
    return (results / f"{name}.{kind}").read_text(errors="replace").replace("\r\n", "\n")

def check(label, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok - {label}")
    else:
        failed += 1
        print(f"not ok - {label} {detail}")

def host_json(name):
    rc = int(read(name, "rc"))
    check(f"{name}: exit 0", rc == 0, f"(exit {rc}, stderr {read(name, 'err')!r})")
    try:
        return json.loads(read(name, "out"))
    except ValueError as e:
        check(f"{name}: stdout is JSON", False, str(e))
        return {}

GPU0 = {"index": 0, "vendor": "nvidia", "name": "Fake NVIDIA A100-SXM4-40GB",
        "total_bytes": 42949672960, "free_bytes": 41875931136}
GPU1 = {"index": 1, "vendor": "nvidia", "name": "Fake NVIDIA GeForce RTX 4090",
        "total_bytes": 25769803776, "free_bytes": 21474836480}

# GlobalMemoryStatusEx: one reading gives every RAM figure.
plain = host_json("plain")
check("plain: os is windows", plain.get("os") == "windows", plain.get("os"))
total = plain.get("ram_total_bytes", 0)
now = plain.get("available_now_bytes", 0)
check("plain: 0 < available now <= RAM total", 0 < now <= total, f"({now} of {total})")
check("plain: process can take all of available now", plain.get("ram_available_bytes") == now)
check("plain: budget is ullAvailPhys", plain.get("budget_bytes") == now
      and plain.get("budget_source") == "windows" and plain.get("device") == "cpu",
      json.dumps({k: plain.get(k) for k in ("budget_bytes", "budget_source", "device")}))
check("plain: no reserve, cgroup, GPU, Metal or warning",
      plain.get("reserve_bytes") == 0 and plain.get("cgroup") is None and plain.get("gpus") == []
      and plain.get("metal_working_set_bytes") == 0 and plain.get("warnings") == []
      and plain.get("device_error") is None, json.dumps(plain))
check("plain: nothing on stderr", read("plain", "err") == "", repr(read("plain", "err")))

fake = host_json("fake_nvml")
check("fake_nvml: LoadLibrary finds both GPUs", fake.get("gpus") == [GPU0, GPU1], json.dumps(fake.get("gpus")))
check("fake_nvml: auto takes cuda:0's free memory",
      (fake.get("device"), fake.get("budget_bytes"), fake.get("budget_source")) == ("cuda:0", 41875931136, "gpu"))

cuda1 = host_json("cuda1")
check("cuda1: budget is cuda:1's free memory",
      (cuda1.get("device"), cuda1.get("budget_bytes")) == ("cuda:1", 21474836480))

check("missing_gpu: exit 1", read("missing_gpu", "rc").strip() == "1")
check("missing_gpu: nothing on stdout", read("missing_gpu", "out") == "")
check("missing_gpu: one error line",
      read("missing_gpu", "err") == "memfit: host: device cuda:5 not found: NVML lists cuda:0, cuda:1\n",
      repr(read("missing_gpu", "err")))

limit = host_json("limit")
check("limit: 8GiB is 8 x 2^30, explicit",
      (limit.get("budget_bytes"), limit.get("budget_source")) == (8589934592, "explicit"))

check("bad_device: exit 2", read("bad_device", "rc").strip() == "2")
check("bad_device: usage line",
      read("bad_device", "err") == "memfit: host: --device: 'gpu0': expected auto, cpu, cuda[:N] or rocm[:N]\n",
      repr(read("bad_device", "err")))

missing = host_json("missing_library")
check("missing_library: a warning naming the DLL and Win32 error 126",
      missing.get("warnings") == ["NVML: C:\\nonexistent\\nvml.dll: LoadLibrary failed with error 126"],
      json.dumps(missing.get("warnings")))

text = read("text", "out")
check("text: a table headed for Windows", text.startswith("Host memory (windows)\n")
      and "  budget" in text and "source windows, device cpu" in text, repr(text))

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
