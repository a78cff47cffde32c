# The report writers (report/report.c) with what they read of the property
# engine (the coverage-class names and the whole-or-nothing file writes of
# properties/), and the libraries they use: jansson for JSON and libxml2 for
# JUnit XML (Debian libjansson-dev, libxml2-dev).  Included by
# report/CMakeLists.txt and tests/CMakeLists.txt (test_reports compiles the
# writers against stand-in properties); defines
#   BC_REPORT_SOURCES  the report writers and what they need of properties/
#   BC_REPORT_LIBS     the imported targets to link them with
find_package(PkgConfig REQUIRED)
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
pkg_check_modules(LIBXML2 REQUIRED IMPORTED_TARGET libxml-2.0)
set(BC_REPORT_SOURCES ${CMAKE_CURRENT_LIST_DIR}/report.c ${CMAKE_CURRENT_LIST_DIR}/text.c
    ${CMAKE_CURRENT_LIST_DIR}/../properties/coverage.c
    ${CMAKE_CURRENT_LIST_DIR}/../properties/file_io.c
    ${CMAKE_CURRENT_LIST_DIR}/../properties/known_result.c
    ${CMAKE_CURRENT_LIST_DIR}/../properties/tier.c)
set(BC_REPORT_LIBS PkgConfig::JANSSON PkgConfig::LIBXML2)
