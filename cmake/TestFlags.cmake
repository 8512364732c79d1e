# Compile settings of the test executables (included from the BUILD_TESTING block).
#
# Note [Test compile flags]: the test programs are drivers; what they test is the library, which
# every preset compiles with its own flags. Three settings make the test code itself cheap to
# compile, which is most of the two-core test gate (docs/building.md, "Where the gate's time goes"):
#
#  - TENFERRO_TEST_OPT (a preset cache variable): the optimisation level of the test sources only.
#    The sanitizer presets use -O0 (a GoogleTest file takes 2.4x less time than at -O1 under
#    ASan+UBSan, and the sanitizers check test code as well at -O0); release uses -O1 (1.6x less
#    than -O3). The library, examples and benchmark keep the preset's level.
#  - lld links the test executables when `ld.lld` is installed (Debian lld, scripts/install-deps):
#    a 270 MB ASan test executable links in 1.4 s instead of GNU ld's 4.2 s. Only the tests: the
#    Python module is built with GCC's LTO objects, which only GNU ld (with GCC's plugin) reads.
#  - one precompiled header for all test executables (GoogleTest and the public API, the part
#    every test file parses), built once by the target tenferro_test_pch and reused by each test
#    target (target_precompile_headers REUSE_FROM needs identical flags, which they have).
set(TENFERRO_TEST_OPT "" CACHE STRING "Optimisation flag appended to the test sources (e.g. -O0)")
find_program(TENFERRO_LLD NAMES ld.lld)  # the name g++ -fuse-ld=lld runs
option(TENFERRO_TEST_LLD "Link the test executables with lld when it is found" ON)
option(TENFERRO_TEST_PCH "Precompile GoogleTest and the public headers for the tests" ON)

if(TENFERRO_TEST_PCH)
  # An executable (an empty GoogleTest program), so that its PCH is compiled with the test
  # executables' -fPIE; GCC refuses a PCH built with another code model (-Winvalid-pch).
  file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/tenferro_test_pch.cpp
       CONTENT "// the test PCH's own TU\n")
  add_executable(tenferro_test_pch ${CMAKE_CURRENT_BINARY_DIR}/tenferro_test_pch.cpp)
  target_link_libraries(tenferro_test_pch PRIVATE tenferro GTest::gtest GTest::gtest_main)
  target_include_directories(tenferro_test_pch PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                                                       ${CMAKE_CURRENT_SOURCE_DIR}/tests)
  if(TENFERRO_TEST_OPT)
    target_compile_options(tenferro_test_pch PRIVATE ${TENFERRO_TEST_OPT})
  endif()
  target_precompile_headers(tenferro_test_pch PRIVATE <gtest/gtest.h> <tenferro/tenferro.hpp>)
endif()

# Applies Note [Test compile flags] to a test executable.
function(tenferro_test_flags target)
  if(TENFERRO_TEST_LLD AND TENFERRO_LLD)
    target_link_options(${target} PRIVATE -fuse-ld=lld)
  endif()
  if(TENFERRO_TEST_OPT)
    target_compile_options(${target} PRIVATE ${TENFERRO_TEST_OPT})
  endif()
  if(TENFERRO_TEST_PCH)
    target_precompile_headers(${target} REUSE_FROM tenferro_test_pch)
  endif()
endfunction()
