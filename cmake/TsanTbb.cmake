# ThreadSanitizer builds link a TSan-instrumented oneTBB instead of Debian's libtbb (which is not
# instrumented: a clean tbb::parallel_for gets dozens of false reports from TBB's inline code).
#
# The tsan preset sets TENFERRO_TBB_TSAN_PREFIX (build/_tbb-tsan). Configuring then runs
# scripts/build-tbb-tsan, which builds oneTBB from Debian's source package into that prefix once
# (cached afterwards), and points TBB_DIR there so find_package(TBB) takes it.
set(TENFERRO_TBB_TSAN_PREFIX "" CACHE PATH
    "Install prefix of a TSan-instrumented oneTBB (built by scripts/build-tbb-tsan); empty = system TBB")

if(TENFERRO_TBB_TSAN_PREFIX)
  if(NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize=thread")
    message(WARNING "TENFERRO_TBB_TSAN_PREFIX is set but CMAKE_CXX_FLAGS has no -fsanitize=thread")
  endif()
  execute_process(
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/build-tbb-tsan ${TENFERRO_TBB_TSAN_PREFIX}
    RESULT_VARIABLE _tbb_tsan_rc)
  if(NOT _tbb_tsan_rc EQUAL 0)
    message(FATAL_ERROR "scripts/build-tbb-tsan failed (${_tbb_tsan_rc}); see docs/building.md")
  endif()
  set(TBB_DIR ${TENFERRO_TBB_TSAN_PREFIX}/lib/cmake/TBB CACHE PATH "TSan-instrumented oneTBB" FORCE)
  list(PREPEND CMAKE_PREFIX_PATH ${TENFERRO_TBB_TSAN_PREFIX})
endif()

# Registers, in TSan builds only, a self-check of the wiring above: a clean tbb::parallel_for must
# report nothing, and a deliberate race inside a parallel_for body must be reported (TSan exits 66).
# Labelled `concurrency` so the Makefile's tsan run includes it.
function(tenferro_add_tsan_selfcheck)
  if(NOT TENFERRO_TBB_TSAN_PREFIX)
    return()
  endif()
  add_executable(tsan_selfcheck ${CMAKE_CURRENT_SOURCE_DIR}/cmake/tsan-selfcheck/parallel_for.cpp)
  target_link_libraries(tsan_selfcheck PRIVATE TBB::tbb)
  add_test(NAME tsan_selfcheck.clean_parallel_for_is_silent COMMAND tsan_selfcheck clean)
  add_test(NAME tsan_selfcheck.race_in_parallel_for_is_reported COMMAND tsan_selfcheck race)
  set_tests_properties(tsan_selfcheck.clean_parallel_for_is_silent PROPERTIES
    LABELS "concurrency;tsan-selfcheck"
    FAIL_REGULAR_EXPRESSION "WARNING: ThreadSanitizer")
  set_tests_properties(tsan_selfcheck.race_in_parallel_for_is_reported PROPERTIES
    LABELS "concurrency;tsan-selfcheck"
    PASS_REGULAR_EXPRESSION "WARNING: ThreadSanitizer: data race")
endfunction()
