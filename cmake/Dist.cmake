# tenferro::dist (src/dist/, include/tenferro/dist.hpp): MPI collectives and sliced contractions.
# Built when CMake finds MPI (Debian: libopenmpi-dev openmpi-bin, which scripts/install-deps
# installs); otherwise skipped with a STATUS line. Sets TENFERRO_HAS_DIST for Install.cmake.
option(TENFERRO_BUILD_DIST "Build tenferro::dist (MPI) when MPI is found" ON)
set(TENFERRO_HAS_DIST OFF)
if(NOT TENFERRO_BUILD_DIST)
  return()
endif()
set(MPI_CXX_SKIP_MPICXX ON)  # the C API only: no deprecated C++ bindings, no libmpi_cxx
find_package(MPI COMPONENTS CXX)
if(NOT MPI_CXX_FOUND)
  message(STATUS "tenferro: tenferro::dist skipped (no MPI: apt-get install libopenmpi-dev openmpi-bin)")
  return()
endif()
set(TENFERRO_HAS_DIST ON)
message(STATUS "tenferro: tenferro::dist on MPI ${MPI_CXX_VERSION} (${MPIEXEC_EXECUTABLE})")

file(GLOB TENFERRO_DIST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/dist/*.cpp)
add_library(tenferro_dist ${TENFERRO_DIST_SOURCES})
add_library(tenferro::dist ALIAS tenferro_dist)
set_target_properties(tenferro_dist PROPERTIES EXPORT_NAME dist)
target_link_libraries(tenferro_dist PUBLIC tenferro MPI::MPI_CXX)
target_include_directories(tenferro_dist PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_compile_options(tenferro_dist PRIVATE -Wall -Wextra)
