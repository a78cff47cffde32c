# The reports (properties/report.c) and the coverage-class names
# (properties/coverage.c), with the libraries they use: jansson for JSON and
# libxml2 for JUnit XML (Debian libjansson-dev, libxml2-dev).  Included by
# properties/CMakeLists.txt and tests/CMakeLists.txt; defines
#   BC_REPORT_SOURCES  the sources to compile into the target that reports
#   BC_REPORT_LIBS     the imported targets to link it with
find_package(PkgConfig REQUIRED)
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
pkg_check_modules(LIBXML2 REQUIRED IMPORTED_TARGET libxml-2.0)
set(BC_REPORT_SOURCES ${CMAKE_CURRENT_LIST_DIR}/report.c ${CMAKE_CURRENT_LIST_DIR}/coverage.c
    ${CMAKE_CURRENT_LIST_DIR}/file_io.c)
set(BC_REPORT_LIBS PkgConfig::JANSSON PkgConfig::LIBXML2)
