# The dist test suite (included from the BUILD_TESTING block of the top-level CMakeLists.txt,
# after cmake/Dist.cmake made tenferro_dist).
if(NOT TARGET tenferro_dist)
  return()
endif()
# tests/dist: one GoogleTest program with its own main (MPI's Environment), run by CTest under
# mpiexec with 1, 2 and 3 ranks (label dist). As root OpenMPI needs --allow-run-as-root; on 2
# cores 3 ranks need --oversubscribe. The single-copy mechanism (CMA) is off: containers often
# forbid the ptrace it needs. LSan (asan preset): tests/dist/main.cpp skips MPI_Init's
# allocations and checks before MPI_Finalize; tests/dist/lsan.supp names Open MPI's libraries only.
file(GLOB TENFERRO_DIST_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/dist/*.cpp)
add_executable(tests_dist ${TENFERRO_DIST_TESTS})
target_link_libraries(tests_dist PRIVATE tenferro_dist GTest::gtest)
target_include_directories(tests_dist PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/tests)
if(TENFERRO_TEST_OPT)  # Note [Test compile flags] (MPI's flags differ: no shared PCH here)
  target_compile_options(tests_dist PRIVATE ${TENFERRO_TEST_OPT})
endif()
if(TENFERRO_TEST_LLD AND TENFERRO_LLD)
  target_link_options(tests_dist PRIVATE -fuse-ld=lld)
endif()
foreach(ranks 1 2 3)
  add_test(NAME dist.ranks${ranks}
    COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe
      -x OMPI_MCA_btl_vader_single_copy_mechanism=none
      -x LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tests/dist/lsan.supp:print_suppressions=0
      ${MPIEXEC_NUMPROC_FLAG} ${ranks} $<TARGET_FILE:tests_dist>)
  set_tests_properties(dist.ranks${ranks} PROPERTIES LABELS dist TIMEOUT 300)
endforeach()
