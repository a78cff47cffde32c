# broadcheck_add_conformance_test: a CTest entry that certifies a SUT with
# 'broadcheck run', writing <name>.junit.xml and <name>.json into the
# current binary directory.  Installed beside broadcheckConfig.cmake and
# included by it; the broadcheck build includes it too, so the function
# works the same in-tree and in a project that did find_package(broadcheck).
#
#   broadcheck_add_conformance_test(NAME <name> SUT <target-or-path-or-builtin>
#     [RULES r...] [PROPERTIES p...] [CASES n | TIME s] [SEED s] [JOBS j]
#     [CORPUS file])
#
# SUT: a shared or module library target of the calling project (its file is
# passed, the form the external adapter ABI takes), or a string passed as it
# is: a built-in SUT name ('reference', 'mutant:max-dim') or a path.
# The test's exit code is broadcheck's: 0 every property passed, 1 a property
# failed, 2 bad usage or an unwritable report.
include_guard(GLOBAL)

function(broadcheck_add_conformance_test)
  cmake_parse_arguments(PARSE_ARGV 0 BC "" "NAME;SUT;CASES;TIME;SEED;JOBS;CORPUS"
                        "RULES;PROPERTIES")
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
  foreach(pair CASES:--cases TIME:--time SEED:--seed JOBS:--jobs CORPUS:--corpus)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 key)
    list(GET pair 1 option)
    if(DEFINED BC_${key})
      list(APPEND args ${option} "${BC_${key}}")
    endif()
  endforeach()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${BC_NAME}")
  list(APPEND args --junit "${out}.junit.xml" --json "${out}.json" --quiet)
  add_test(NAME "${BC_NAME}" COMMAND "$<TARGET_FILE:broadcheck::broadcheck>" ${args})
  set_tests_properties("${BC_NAME}" PROPERTIES LABELS broadcheck)
endfunction()
