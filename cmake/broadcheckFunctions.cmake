# broadcheck_add_conformance_test: a CTest entry that certifies a SUT with
# 'broadcheck run', writing <name>.junit.xml and <name>.json (and, if asked,
# a certificate) into the current binary directory.  Installed beside
# broadcheckConfig.cmake and included by it; the broadcheck build includes it
# too, so the function works the same in-tree and in a project that did
# find_package(broadcheck).
#
#   broadcheck_add_conformance_test(NAME <name> SUT <target-or-path-or-builtin>
#     [RULES r...] [PROPERTIES p...] [CASES n | TIME s] [VALUE_CASES n]
#     [SEED s] [JOBS j] [CORPUS file] [MANIFEST file]
#     [SUT_TIMEOUT_MS ms] [SUT_MEMORY_MB mb] [TIMEOUT s]
#     [CERTIFICATE [file]] [ENVIRONMENT VAR=value...])
#
# SUT: a shared or module library target of the calling project (its file is
# passed, the form the external adapter ABI takes), or a string passed as it
# is: a built-in SUT name ('reference', 'mutant:max-dim'), a path, or
# 'exec:COMMAND'.
#   RULES, PROPERTIES, CASES, TIME, VALUE_CASES, SEED, JOBS, CORPUS, MANIFEST
#                   'broadcheck run's --rule, --property, --cases, --time,
#                   --value-cases, --seed, --jobs, --corpus, --manifest
#   SUT_TIMEOUT_MS  an external SUT's time per question (--timeout-ms)
#   SUT_MEMORY_MB   an external SUT's worker memory limit (--memory-mb)
#   TIMEOUT         the CTest time limit of the whole test, in seconds
#   CERTIFICATE     also write the Markdown certificate: to <name>.certificate.md,
#                   or to file (relative to the current binary directory)
#   ENVIRONMENT     variables set for the test (an adapter's own switches)
# The test prints broadcheck's summary (ctest --output-on-failure shows each
# failure's minimal case and replay line) and a progress line every 10 s.
# Its exit code is broadcheck's: 0 every property passed, 1 a property
# failed, 2 bad usage or an unwritable report.
include_guard(GLOBAL)

function(broadcheck_add_conformance_test)
  cmake_parse_arguments(PARSE_ARGV 0 BC ""
    "NAME;SUT;CASES;TIME;VALUE_CASES;SEED;JOBS;CORPUS;MANIFEST;SUT_TIMEOUT_MS;SUT_MEMORY_MB;TIMEOUT"
    "RULES;PROPERTIES;CERTIFICATE;ENVIRONMENT")
  if(BC_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "broadcheck_add_conformance_test: unknown arguments: ${BC_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required NAME SUT)
    if(NOT BC_${required})
      message(FATAL_ERROR "broadcheck_add_conformance_test: ${required} is required")
    endif()
  endforeach()
  if(DEFINED BC_CASES AND DEFINED BC_TIME)
    message(FATAL_ERROR "broadcheck_add_conformance_test(${BC_NAME}): give CASES or TIME, not both")
  endif()
  if(DEFINED BC_VALUE_CASES AND DEFINED BC_TIME)
    message(FATAL_ERROR "broadcheck_add_conformance_test(${BC_NAME}): give VALUE_CASES or TIME, not both")
  endif()
  list(LENGTH BC_CERTIFICATE certificates)
  if(certificates GREATER 1)
    message(FATAL_ERROR "broadcheck_add_conformance_test(${BC_NAME}): CERTIFICATE takes at most one file")
  endif()
  if(NOT TARGET broadcheck::broadcheck)
    message(FATAL_ERROR "broadcheck_add_conformance_test(${BC_NAME}): no broadcheck::broadcheck "
                        "target; call find_package(broadcheck) first")
  endif()

  set(sut "${BC_SUT}")
  if(TARGET "${BC_SUT}")
    get_target_property(type "${BC_SUT}" TYPE)
    if(NOT type MATCHES "^(SHARED|MODULE)_LIBRARY$")
      message(FATAL_ERROR "broadcheck_add_conformance_test(${BC_NAME}): SUT target '${BC_SUT}' "
                          "is a ${type}; an adapter must be a SHARED or MODULE library")
    endif()
    set(sut "$<TARGET_FILE:${BC_SUT}>")
  endif()

  set(args run --sut "${sut}")
  if(BC_RULES)
    list(JOIN BC_RULES "," rules)
    list(APPEND args --rule "${rules}")
  endif()
  if(BC_PROPERTIES)
    list(JOIN BC_PROPERTIES "," properties)
    list(APPEND args --property "${properties}")
  endif()
  # Each option maps to the 'broadcheck run' option of the same meaning.
  foreach(pair CASES:--cases TIME:--time VALUE_CASES:--value-cases SEED:--seed JOBS:--jobs
               CORPUS:--corpus MANIFEST:--manifest SUT_TIMEOUT_MS:--timeout-ms
               SUT_MEMORY_MB:--memory-mb)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 key)
    list(GET pair 1 option)
    if(DEFINED BC_${key})
      list(APPEND args ${option} "${BC_${key}}")
    endif()
  endforeach()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${BC_NAME}")
  list(APPEND args --junit "${out}.junit.xml" --json "${out}.json")
  if("CERTIFICATE" IN_LIST BC_KEYWORDS_MISSING_VALUES OR certificates EQUAL 1)
    set(certificate "${out}.certificate.md")
    if(certificates EQUAL 1)
      cmake_path(ABSOLUTE_PATH BC_CERTIFICATE BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
                 OUTPUT_VARIABLE certificate)
    endif()
    list(APPEND args --certificate "${certificate}")
  endif()
  add_test(NAME "${BC_NAME}" COMMAND "$<TARGET_FILE:broadcheck::broadcheck>" ${args})
  set_tests_properties("${BC_NAME}" PROPERTIES LABELS broadcheck)
  if(DEFINED BC_TIMEOUT)
    set_tests_properties("${BC_NAME}" PROPERTIES TIMEOUT "${BC_TIMEOUT}")
  endif()
  if(BC_ENVIRONMENT)
    set_tests_properties("${BC_NAME}" PROPERTIES ENVIRONMENT "${BC_ENVIRONMENT}")
  endif()
endfunction()
