# What `cmake --install` puts under the prefix (libdir is GNUInstallDirs'
# lib, or lib/<multiarch> under /usr on Debian):
#
#   bin/memfit, bin/memfit-serve        side by side: memfit finds
#                                       memfit-serve in its own folder
#   <libdir>/libmemfit_c.so.0.1.0       the C API; SONAME libmemfit_c.so.0.1,
#                                       link libmemfit_c.so (ctypes loads it)
#   <libdir>/libmemfit.so.0.1.0         the C++ library; SONAME libmemfit.so.0.1
#   <libdir>/libmemfit.a                the C++ library, static
#   include/memfit/*.h                  the public headers, less service.h
#                                       (the HTTP service library is not installed)
#   <libdir>/cmake/memfit/              find_package(memfit CONFIG): memfit::memfit,
#                                       memfit::memfit_c, and with COMPONENTS
#                                       static, memfit::memfit_static
#   <libdir>/pkgconfig/memfit_c.pc, memfit.pc
#   lib/python3/dist-packages/memfit/   the Python module (where Debian's python3
#                                       looks under /usr/local); it loads
#                                       lib/libmemfit_c.so beside it, else the
#                                       system's search
#
# Components, for packagers and for tests/package: memfit_runtime (the
# commands), memfit_library (the shared libraries a program runs with),
# memfit_development (headers, libmemfit.a, the .so links, package files),
# memfit_python (the Python module).
include(CMakePackageConfigHelpers)

install(TARGETS memfit_cli memfit_serve
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT memfit_runtime)

install(TARGETS memfit_shared memfit_c EXPORT memfitTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    COMPONENT memfit_library NAMELINK_COMPONENT memfit_development)
# Its own export file: its consumers link simdjson, fmt and threads, which
# the config looks for only when COMPONENTS static asks for this target.
install(TARGETS memfit EXPORT memfitStaticTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT memfit_development)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/memfit"
  DESTINATION "lib/python3/dist-packages" COMPONENT memfit_python
  PATTERN "__pycache__" EXCLUDE)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/memfit"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT memfit_development
  PATTERN "service.h" EXCLUDE)

set(memfit_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/memfit")
install(EXPORT memfitTargets NAMESPACE memfit::
  DESTINATION "${memfit_cmake_dir}" COMPONENT memfit_development)
install(EXPORT memfitStaticTargets NAMESPACE memfit::
  DESTINATION "${memfit_cmake_dir}" COMPONENT memfit_development)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/memfitConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/memfitConfig.cmake"
  INSTALL_DESTINATION "${memfit_cmake_dir}")
# Before 1.0 a minor release may change the API and ABI (as the SONAME says).
write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/memfitConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/package/memfitConfig.cmake"
              "${PROJECT_BINARY_DIR}/package/memfitConfigVersion.cmake"
  DESTINATION "${memfit_cmake_dir}" COMPONENT memfit_development)

# The .pc files find the prefix from their own folder (${pcfiledir}), so an
# installed tree works wherever --prefix or DESTDIR put it, and when moved.
set(memfit_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(memfit_pc_prefix "${CMAKE_INSTALL_PREFIX}")
  set(memfit_pc_libdir "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(memfit_pc_includedir "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH memfit_pc_up "/${memfit_pc_dir}" "/")  # "../../" for lib/pkgconfig
  string(REGEX REPLACE "/$" "" memfit_pc_up "${memfit_pc_up}")
  set(memfit_pc_prefix "\${pcfiledir}/${memfit_pc_up}")
  set(memfit_pc_libdir "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(memfit_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
list(TRANSFORM CMAKE_DL_LIBS PREPEND "-l" OUTPUT_VARIABLE memfit_pc_dl)
list(JOIN memfit_pc_dl " " memfit_pc_dl)
foreach(pc memfit_c memfit)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in"
                 "${PROJECT_BINARY_DIR}/package/${pc}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/package/${pc}.pc"
    DESTINATION "${memfit_pc_dir}" COMPONENT memfit_development)
endforeach()
