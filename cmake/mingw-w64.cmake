# Toolchain for cross-compiling memfit to 64-bit Windows with Debian's
# mingw-w64 (packages g++-mingw-w64-x86-64-posix, binutils-mingw-w64-x86-64):
#
#   cmake -S <project> -B build/windows -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=<repo>/cmake/mingw-w64.cmake
#
# The -posix compilers are used because the win32 thread model of GCC 12
# has no std::mutex / std::thread. Programs are linked statically so they
# run without the MinGW runtime DLLs (under wine too). When wine64 is
# installed it becomes the emulator, so ctest and try_run can execute the
# .exe files.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(MEMFIT_MINGW_TRIPLE x86_64-w64-mingw32)

set(CMAKE_C_COMPILER ${MEMFIT_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${MEMFIT_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${MEMFIT_MINGW_TRIPLE}-windres)

# Look for headers and libraries only in the cross sysroot, programs only
# on the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${MEMFIT_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")

find_program(MEMFIT_WINE64 NAMES wine64 PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(MEMFIT_WINE64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MEMFIT_WINE64})
endif()
