#!/bin/sh
# Installs the build tree into a scratch prefix and uses it only from there,
# as another project would (docs/c-api.md, "Linking memfit"):
#   1. consumer_cxx/ through CMake: find_package(memfit CONFIG REQUIRED
#      COMPONENTS static), linked to memfit::memfit (shared) and to
#      memfit::memfit_static, plus every installed header compiled;
#   2. consumer_c/main.c through pkg-config: cc main.c $(pkg-config --cflags
#      --libs memfit_c);
#   3. consumer_cxx/main.cc through pkg-config: c++ -std=c++20 main.cc
#      $(pkg-config --cflags --libs memfit);
#   4. the Python module, imported from the prefix with no hint where the C
#      library is (it loads the one installed beside it), and python3 -m
#      memfit inspect from there;
# then runs each on the bundled example and checks its figures and what it
# links. Prints "package test passed" at the end; exits non-zero on the
# first failure.
#
# Environment (tests/package/CMakeLists.txt sets it):
#   MEMFIT_BUILD_DIR   the configured and built memfit tree
#   MEMFIT_WORK_DIR    scratch folder, emptied first
#   MEMFIT_LIBDIR      CMAKE_INSTALL_LIBDIR, relative to the prefix
#   MEMFIT_VERSION     PROJECT_VERSION
#   MEMFIT_EXAMPLE     examples/Qwen3-14B-MLX-4bit
#   MEMFIT_EXTRA_FLAGS compile and link flags for every consumer ("" unless
#                      the library was built with sanitizers)
#   CMAKE, CMAKE_GENERATOR, CC, CXX
set -eu

here="$(cd "$(dirname "$0")" && pwd)"
work="$MEMFIT_WORK_DIR"
prefix="$work/prefix"
flags="${MEMFIT_EXTRA_FLAGS:-}"
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "package test: $*" >&2
  exit 1
}
# needs BINARY LIBRARY: BINARY's dynamic section lists LIBRARY (a SONAME).
needs() {
  readelf -d "$1" | grep -q "NEEDED.*\[$2\]" || fail "$1 does not need $2"
}
# lacks BINARY PATTERN: no NEEDED entry of BINARY matches PATTERN.
lacks() {
  if readelf -d "$1" | grep NEEDED | grep -q "$2"; then fail "$1 needs $2"; fi
}

echo "== cmake --install into $prefix (library and development components)"
for component in memfit_library memfit_development memfit_python; do
  "$CMAKE" --install "$MEMFIT_BUILD_DIR" --prefix "$prefix" --component "$component" >/dev/null
done
libdir="$prefix/$MEMFIT_LIBDIR"
soversion="$(echo "$MEMFIT_VERSION" | cut -d. -f1-2)"  # 0.1.0 -> 0.1
[ ! -e "$prefix/include/memfit/service.h" ] || fail "service.h installed without its library"

# The bundled example at 8192 tokens, batch 1, fp16 KV, 64 GiB budget:
#   weights  8,307,783,680 (the shard index's total_size, unverified)
#   KV       40 layers x 2 x 8 KV heads x 128 head_dim x 2 B = 163,840 B/token,
#            x 8,192 tokens = 1,342,177,280
#   headroom allocator (1.20 - 1) x (8,307,783,680 + 1,342,177,280)
#            = 1,929,992,192, plus activation 2 x 1 x min(8192, 2048)
#            x (5,120 hidden + 17,408 intermediate) x 2 + 1 x 151,936 vocab
#            x 2 = 184,549,376 + 303,872 = 184,853,248: 2,114,845,440
#   total    8,307,783,680 + 1,342,177,280 + 2,114,845,440 = 11,764,806,400
expected="weights_bytes=8307783680 kv_bytes=1342177280 total_bytes=11764806400 fits=1"
check_cxx() {
  out="$("$@")" || fail "$* exited $?"
  [ "$out" = "$expected" ] || fail "$1 printed '$out', expected '$expected'"
  echo "$1: $out"
}

echo "== C++ through CMake (tests/package/consumer_cxx)"
cxx_build="$work/consumer_cxx"
"$CMAKE" -S "$here/consumer_cxx" -B "$cxx_build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/consumer_cxx.log" 2>&1 ||
  { cat "$work/consumer_cxx.log" >&2; fail "configuring consumer_cxx failed"; }
"$CMAKE" --build "$cxx_build" >>"$work/consumer_cxx.log" 2>&1 ||
  { cat "$work/consumer_cxx.log" >&2; fail "building consumer_cxx failed"; }
needs "$cxx_build/consumer_shared" "libmemfit.so.$soversion"
lacks "$cxx_build/consumer_static" "libmemfit"
# CMake gives the build tree's programs an RPATH to the prefix's libdir.
check_cxx "$cxx_build/consumer_shared" "$MEMFIT_EXAMPLE"
check_cxx "$cxx_build/consumer_static" "$MEMFIT_EXAMPLE"

echo "== C through pkg-config (memfit_c.pc)"
PKG_CONFIG_PATH="$libdir/pkgconfig"
export PKG_CONFIG_PATH
pc_version="$(pkg-config --modversion memfit_c)" || fail "pkg-config does not find memfit_c"
[ "$pc_version" = "$MEMFIT_VERSION" ] || fail "memfit_c.pc says $pc_version, expected $MEMFIT_VERSION"
# shellcheck disable=SC2046,SC2086  # the flags are meant to split into words
"$CC" $flags -o "$work/consumer_c" "$here/consumer_c/main.c" $(pkg-config --cflags --libs memfit_c) ||
  fail "compiling consumer_c failed"
needs "$work/consumer_c" "libmemfit_c.so.$soversion"
lacks "$work/consumer_c" "libstdc++"
LD_LIBRARY_PATH="$libdir" "$work/consumer_c" "$MEMFIT_EXAMPLE" "$pc_version" ||
  fail "consumer_c exited $?"

echo "== C++ through pkg-config (memfit.pc)"
# shellcheck disable=SC2046,SC2086
"$CXX" -std=c++20 $flags -o "$work/consumer_cxx_pc" "$here/consumer_cxx/main.cc" \
  $(pkg-config --cflags --libs memfit) || fail "compiling consumer_cxx/main.cc with memfit.pc failed"
needs "$work/consumer_cxx_pc" "libmemfit.so.$soversion"
LD_LIBRARY_PATH="$libdir"
export LD_LIBRARY_PATH
check_cxx "$work/consumer_cxx_pc" "$MEMFIT_EXAMPLE"

# The sanitizer build's library cannot be loaded by an uninstrumented
# python3; tests/python covers the module in the release build.
if [ -z "$flags" ] && command -v python3 >/dev/null 2>&1; then
  echo "== the Python module from the prefix"
  out="$(env -u MEMFIT_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$prefix/lib/python3/dist-packages" \
    python3 -c 'import memfit, sys; r = memfit.estimate(sys.argv[1], memory_limit="64GiB"); print(r["total_bytes"], r["fits"])' \
    "$MEMFIT_EXAMPLE")" || fail "the installed Python module failed"
  [ "$out" = "11764806400 True" ] || fail "the installed Python module printed '$out'"
  # python3 -m memfit inspect from the prefix: the CLI's FITS line (the
  # speed line follows it: docs/speed.md).
  out="$(env -u MEMFIT_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$prefix/lib/python3/dist-packages" \
    python3 -m memfit inspect -m "$MEMFIT_EXAMPLE" --memory-limit 64GiB 2>/dev/null | grep '^FITS')" ||
    fail "python3 -m memfit inspect from the prefix failed"
  [ "$out" = "FITS: 10.96 GiB of 64.00 GiB (53.04 GiB to spare)" ] ||
    fail "python3 -m memfit inspect from the prefix printed '$out'"
fi

echo "package test passed"
