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
     ${CMAKE_CTEST_COMMAND} --test-dir ${ext_build} --output-on-failure)
foreach(report external.reference.junit.xml external.reference.json check_run.json check_run.xml
               external.my-adapter.junit.xml external.my-adapter.json)
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
