# CTest `consumer.find_package` (label core): installs this build into a scratch prefix and
# configures, builds and runs tests/consumer against it with find_package(tenferro). One
# self-contained `cmake -P` script, so it depends on no other test and no ordering. It passes this
# build's compiler, flags (sanitizers included) and TBB_DIR on, so it works in every preset.
add_test(NAME consumer.find_package
  COMMAND ${CMAKE_COMMAND}
    -DTENFERRO_BUILD_DIR=${CMAKE_BINARY_DIR}
    -DCONSUMER_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/tests/consumer
    -DWORK_DIR=${CMAKE_BINARY_DIR}/_consumer-test
    -DCONFIG=$<CONFIG>
    -DGENERATOR=${CMAKE_GENERATOR}
    -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
    -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
    "-DCXX_FLAGS=${CMAKE_CXX_FLAGS}"
    -DTBB_DIR=${TBB_DIR}
    -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/RunConsumerTest.cmake)
set_tests_properties(consumer.find_package PROPERTIES
  LABELS core
  TIMEOUT 300
  PASS_REGULAR_EXPRESSION "tenferro consumer: ok")
