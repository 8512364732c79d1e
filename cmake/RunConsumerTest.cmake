# cmake -P script behind the `consumer.find_package` test (see ConsumerTest.cmake).
foreach(v TENFERRO_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "RunConsumerTest.cmake: ${v} not set")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "failed (${rc}): ${cmd}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run(${CMAKE_COMMAND} --install ${TENFERRO_BUILD_DIR} --prefix ${prefix} ${config_args})

set(configure_args -S ${CONSUMER_SOURCE_DIR} -B ${build} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
if(CONFIG)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${CONFIG})
endif()
if(MAKE_PROGRAM)
  list(APPEND configure_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(TBB_DIR)
  list(APPEND configure_args -DTBB_DIR=${TBB_DIR})
endif()
run(${CMAKE_COMMAND} ${configure_args})
run(${CMAKE_COMMAND} --build ${build} ${config_args})

find_program(consumer NAMES tenferro_consumer PATHS ${build} ${build}/${CONFIG} NO_DEFAULT_PATH REQUIRED)
run(${consumer})

# The dist consumer exists when the installed package has tenferro::dist; one rank, no mpiexec.
# LSan: as in tests/dist (dist_main.cpp checks before MPI_Finalize; lsan.supp names Open MPI's
# libraries only).
find_program(consumer_dist NAMES tenferro_consumer_dist PATHS ${build} ${build}/${CONFIG}
             NO_DEFAULT_PATH)
if(consumer_dist)
  run(${CMAKE_COMMAND} -E env
      "LSAN_OPTIONS=suppressions=${CONSUMER_SOURCE_DIR}/../dist/lsan.supp:print_suppressions=0"
      OMPI_MCA_btl_vader_single_copy_mechanism=none ${consumer_dist})
endif()
