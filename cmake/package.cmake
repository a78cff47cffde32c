# Installing broadcheck as a package: the executable, the static libraries
# and the public headers, exported as broadcheck:: targets with a
# broadcheckConfig.cmake, a version file and a pkg-config file.  Included by
# the top-level CMakeLists.txt after every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(BC_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/broadcheck")

# Short names outside (broadcheck::reference), the build's own names inside.
set_target_properties(broadcheck_reference PROPERTIES EXPORT_NAME reference)
set_target_properties(broadcheck_spec PROPERTIES EXPORT_NAME spec)
set_target_properties(broadcheck_properties PROPERTIES EXPORT_NAME properties)
set_target_properties(broadcheck_report PROPERTIES EXPORT_NAME report)
set_target_properties(broadcheck_builtin_suts PROPERTIES EXPORT_NAME builtin_suts)
set_target_properties(broadcheck_isolation PROPERTIES EXPORT_NAME isolation)
set_target_properties(broadcheck PROPERTIES EXPORT_NAME broadcheck)
set_target_properties(broadcheck_wire PROPERTIES EXPORT_NAME wire)
set_target_properties(broadcheck_guard PROPERTIES EXPORT_NAME guard)
set_target_properties(broadcheck-worker PROPERTIES EXPORT_NAME worker)
set_target_properties(broadcheck_adapter PROPERTIES EXPORT_NAME adapter)

# broadcheck-worker goes beside broadcheck: that is where the loader looks
# for it (isolation/sut_open.c) once installed.
install(TARGETS broadcheck broadcheck-worker broadcheck_reference broadcheck_spec
                broadcheck_properties broadcheck_report broadcheck_builtin_suts
                broadcheck_isolation broadcheck_wire broadcheck_guard broadcheck_adapter
        EXPORT broadcheckTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/broadcheck
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# What the installed programs read, found relative to them (paths.h): the
# conformance vectors ('broadcheck vectors' with no path), the wire helpers
# and workers in Python and JavaScript (an exec: worker imports bcwire from
# here: broadcheck puts these folders on its PYTHONPATH and NODE_PATH), and
# the NumPy side of 'broadcheck bench'.  The adapter libraries go to
# <libdir>/broadcheck/adapters (bc_adapter_package, sut_adapters/).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/spec/vectors
        DESTINATION ${CMAKE_INSTALL_DATADIR}/broadcheck
        FILES_MATCHING PATTERN "*.vec")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sut_adapters/python/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/broadcheck/python
        FILES_MATCHING PATTERN "*.py" PATTERN "*.manifest.json" PATTERN "__pycache__" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/sut_adapters/js/bcwire.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/shapes.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/onnx_proto.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/ort_worker.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/tfjs_worker.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/tfjs_sut.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/tfjs_wasm_worker.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/ort_sut.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/ort_web_worker.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/tfjs-wasm.manifest.json
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/ort-web.manifest.json
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/stdlib_worker.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/mathjs_worker.js
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/tfjs.manifest.json
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/ort.manifest.json
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/stdlib.manifest.json
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/mathjs.manifest.json
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/package.json
              ${PROJECT_SOURCE_DIR}/sut_adapters/js/package-lock.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/broadcheck/js)
install(FILES ${PROJECT_SOURCE_DIR}/bench/numpy_bench.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/broadcheck/bench)

install(EXPORT broadcheckTargets NAMESPACE broadcheck::
        DESTINATION ${BC_CMAKE_INSTALL_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/broadcheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/broadcheckConfig.cmake
  INSTALL_DESTINATION ${BC_CMAKE_INSTALL_DIR})
# 0.x: a new minor version may break the interfaces, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/broadcheckConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/broadcheckConfig.cmake
              ${PROJECT_BINARY_DIR}/broadcheckConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/broadcheckFunctions.cmake
        DESTINATION ${BC_CMAKE_INSTALL_DIR})

# pkg-config: the prefix relative to the .pc file's folder, so that the file
# holds for any --prefix given at install time.
file(RELATIVE_PATH BC_PC_PREFIX_FROM_PCDIR "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" BC_PC_PREFIX_FROM_PCDIR "${BC_PC_PREFIX_FROM_PCDIR}")
set(BC_PC_EXTRA_LIBS "")
if(BC_SANITIZE)
  set(BC_PC_EXTRA_LIBS " -fsanitize=address,undefined")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/broadcheck.pc.in ${PROJECT_BINARY_DIR}/broadcheck.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/broadcheck.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# A build with sanitizers makes instrumented libraries: whoever links them
# needs the sanitizer runtimes too, in the build tree and once installed.
if(BC_SANITIZE)
  target_link_options(broadcheck_reference INTERFACE -fsanitize=address,undefined)
endif()
