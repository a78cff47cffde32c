# The package.external-project test (cmake -P): installs this build into a
# temporary prefix, then builds and tests tests/external_project against it
# through find_package(broadcheck), and compiles the same program through
# pkg-config.  Variables (-D): BUILD_DIR, SOURCE_DIR, WORK_DIR, C_COMPILER,
# GENERATOR, LIBDIR.
cmake_minimum_required(VERSION 3.25)
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR C_COMPILER GENERATOR LIBDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "package_test.cmake: -D${var}=... is required")
  endif()
endforeach()

# Runs a step; on failure prints its output and stops the test.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: ${what} failed (${rc}):\n${ARGN}\n${out}")
  endif()
  message(STATUS "package test: ${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(ext_build ${WORK_DIR}/external-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

step("install into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f bin/broadcheck bin/broadcheck-worker include/broadcheck/adapter.h
          include/broadcheck/shape.h include/broadcheck/properties.h
          ${LIBDIR}/libbroadcheck_reference.a ${LIBDIR}/cmake/broadcheck/broadcheckConfig.cmake
          ${LIBDIR}/cmake/broadcheck/broadcheckConfigVersion.cmake
          ${LIBDIR}/cmake/broadcheck/broadcheckFunctions.cmake ${LIBDIR}/pkgconfig/broadcheck.pc)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "package test: the install lacks ${prefix}/${f}")
  endif()
endforeach()

# The outside project, found through CMAKE_PREFIX_PATH only.
step("configure the external project"
     ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/external_project -B ${ext_build} -G ${GENERATOR}
     -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix})
step("build the external project" ${CMAKE_COMMAND} --build ${ext_build})
step("ctest in the external project"
     ${CMAKE_CTEST_COMMAND} --test-dir ${ext_build} --output-on-failure -LE expected-failure)
foreach(report external.reference.junit.xml external.reference.json check_run.json check_run.xml
               external.my-adapter.junit.xml external.my-adapter.json
               external.options.certificate.md certs/reference.md)
  if(NOT EXISTS ${ext_build}/${report})
    message(FATAL_ERROR "package test: broadcheck_add_conformance_test wrote no ${ext_build}/${report}")
  endif()
endforeach()
file(READ ${ext_build}/external.reference.junit.xml junit)
if(NOT junit MATCHES "<testsuites name=\"broadcheck\"")
  message(FATAL_ERROR "package test: ${ext_build}/external.reference.junit.xml is not broadcheck's JUnit:\n${junit}")
endif()
# The project's own adapter was certified through the ABI: its JUnit names
# it, and its cells passed (the test would have failed otherwise).
file(READ ${ext_build}/external.my-adapter.junit.xml junit)
if(NOT junit MATCHES "libmy_adapter.so" OR NOT junit MATCHES "shape-differential")
  message(FATAL_ERROR "package test: the adapter's JUnit does not name it:\n${junit}")
endif()

# pkg-config, against the prefix alone.
find_program(PKG_CONFIG pkg-config REQUIRED)
step("pkg-config --cflags --libs broadcheck"
     ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig
     ${PKG_CONFIG} --cflags --libs broadcheck)
string(STRIP "${step_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
set(found_headers FALSE)
foreach(flag ${flags})
  if(flag MATCHES "^-I(.*)" AND EXISTS "${CMAKE_MATCH_1}/broadcheck/shape.h")
    set(found_headers TRUE)
  endif()
endforeach()
if(NOT found_headers)
  message(FATAL_ERROR "package test: pkg-config's flags name no folder with broadcheck/shape.h: ${flags}")
endif()
foreach(program check_infer check_run)
  step("compile ${program}.c with pkg-config's flags"
       ${C_COMPILER} -std=c11 ${SOURCE_DIR}/tests/external_project/${program}.c ${flags}
       -o ${WORK_DIR}/${program}_pc)
endforeach()
step("run the pkg-config build of check_infer" ${WORK_DIR}/check_infer_pc)
step("run the pkg-config build of check_run"
     ${WORK_DIR}/check_run_pc ${WORK_DIR}/check_run_pc.json ${WORK_DIR}/check_run_pc.xml)

# broadcheck_add_conformance_test's options reach 'broadcheck run' and CTest.
step("ctest --show-only=json-v1" ${CMAKE_CTEST_COMMAND} --test-dir ${ext_build} --show-only=json-v1)
set(tests_json "${step_output}")
string(JSON ntests LENGTH "${tests_json}" tests)
math(EXPR last "${ntests} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${tests_json}" tests ${i} name)
  string(JSON command GET "${tests_json}" tests ${i} command)
  set(props "")
  string(JSON nprops LENGTH "${tests_json}" tests ${i} properties)
  math(EXPR plast "${nprops} - 1")
  foreach(k RANGE ${plast})
    string(JSON pname GET "${tests_json}" tests ${i} properties ${k} name)
    string(JSON pvalue GET "${tests_json}" tests ${i} properties ${k} value)
    string(APPEND props "${pname}=${pvalue}\n")
  endforeach()
  set(command_of_${name} "${command}")
  set(props_of_${name} "${props}")
endforeach()
foreach(want "\"--value-cases\",\"20\"" "\"--timeout-ms\",\"4000\"" "\"--memory-mb\",\"512\""
             "\"--seed\",\"3\"" "\"--jobs\",\"2\"" "\"--certificate\",\"[^\"]*/external.options.certificate.md\"")
  string(REGEX REPLACE "[ \n]" "" flat "${command_of_external.options}")
  if(NOT flat MATCHES "${want}")
    message(FATAL_ERROR "package test: external.options's command lacks ${want}:\n${command_of_external.options}")
  endif()
endforeach()
foreach(want "TIMEOUT=900" "ENVIRONMENT=.*MYLIB_MODE=strict.*MYLIB_TRACE=0")
  if(NOT props_of_external.options MATCHES "${want}")
    message(FATAL_ERROR "package test: external.options's CTest properties lack ${want}:\n${props_of_external.options}")
  endif()
endforeach()
string(REGEX REPLACE "[ \n]" "" flat "${command_of_external.manifest}")
if(NOT flat MATCHES "\"--manifest\",\"[^\"]*/known.manifest\"")
  message(FATAL_ERROR "package test: MANIFEST does not pass --manifest:\n${command_of_external.manifest}")
endif()
# A test without --quiet: the report's value_cases is VALUE_CASES's.
file(READ ${ext_build}/external.options.json report)
string(JSON value_cases GET "${report}" config value_cases)
if(NOT value_cases EQUAL 20)
  message(FATAL_ERROR "package test: external.options ran with value_cases ${value_cases}, not 20")
endif()

# A failing conformance test shows, under --output-on-failure, the minimal
# case and the replay line that reproduces it (no --quiet baked in).
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${ext_build} --output-on-failure
                        -L expected-failure
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "package test: the mutant's conformance test passed:\n${out}")
endif()
foreach(want "FAIL shape-differential on numpy" "minimal:  numpy "
             "replay:   broadcheck replay --sut mutant:max-dim --property shape-differential"
             "verdict: DIVERGES")
  string(FIND "${out}" "${want}" at)
  if(at LESS 0)
    message(FATAL_ERROR "package test: ctest --output-on-failure does not show '${want}':\n${out}")
  endif()
endforeach()
message(STATUS "package test: a failing conformance test shows its minimal case and replay line")
