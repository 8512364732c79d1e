# `cmake --install <build> [--prefix P]` installs the headers, the library and a CMake package:
#   find_package(tenferro 0.1 REQUIRED)  ->  target tenferro::tenferro
#   find_package(tenferro 0.1 REQUIRED COMPONENTS dist)  ->  also tenferro::dist (MPI; installed
#   when this build has it, cmake/Dist.cmake)
include(CMakePackageConfigHelpers)

set(TENFERRO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tenferro)

set(TENFERRO_INSTALL_TARGETS tenferro)
set(TENFERRO_HEADER_EXCLUDE)
if(TENFERRO_HAS_DIST)
  list(APPEND TENFERRO_INSTALL_TARGETS tenferro_dist)
else()
  set(TENFERRO_HEADER_EXCLUDE PATTERN "dist.hpp" EXCLUDE)
endif()
install(TARGETS ${TENFERRO_INSTALL_TARGETS} EXPORT tenferroTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/tenferro
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" ${TENFERRO_HEADER_EXCLUDE})
install(EXPORT tenferroTargets
  NAMESPACE tenferro::
  FILE tenferroTargets.cmake
  DESTINATION ${TENFERRO_INSTALL_CMAKEDIR})

configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tenferroConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tenferroConfig.cmake
  INSTALL_DESTINATION ${TENFERRO_INSTALL_CMAKEDIR})
# 0.x: minor versions may break the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tenferroConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/tenferroConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/tenferroConfigVersion.cmake
  DESTINATION ${TENFERRO_INSTALL_CMAKEDIR})
