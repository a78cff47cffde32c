# ctest version.commit: the commit 'broadcheck --version' names
# (cmake/commit.cmake) is "unknown" without a git work tree of the source's
# own (a tarball, or a tarball unpacked inside another project's
# repository), and what -DBROADCHECK_COMMIT gives when given.
#   -DSOURCE_DIR=<broadcheck's source> -DWORK_DIR=<scratch folder>
cmake_minimum_required(VERSION 3.25)
set(script ${SOURCE_DIR}/cmake/commit.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/tarball)

function(commit_of source given out)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${source} -DOUTPUT=${WORK_DIR}/h.h
                          -DCOMMIT=${given} -P ${script} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "commit.cmake failed (${rc}) on ${source}")
  endif()
  file(READ ${WORK_DIR}/h.h text)
  if(NOT text MATCHES "#define BC_COMMIT \"([^\"]*)\"")
    message(FATAL_ERROR "commit.cmake wrote no BC_COMMIT:\n${text}")
  endif()
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

commit_of(${WORK_DIR}/tarball "" c)
if(NOT c STREQUAL "unknown")
  message(FATAL_ERROR "a source without .git: commit '${c}', want 'unknown'")
endif()
# a folder inside some git work tree, not its top: not our commit
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} init -q ${WORK_DIR}/outer RESULT_VARIABLE rc)
  file(MAKE_DIRECTORY ${WORK_DIR}/outer/vendor/broadcheck)
  commit_of(${WORK_DIR}/outer/vendor/broadcheck "" c)
  if(NOT c STREQUAL "unknown")
    message(FATAL_ERROR "a source inside another repository: commit '${c}', want 'unknown'")
  endif()
endif()
commit_of(${WORK_DIR}/tarball "v0.1.0-debian1" c)
if(NOT c STREQUAL "v0.1.0-debian1")
  message(FATAL_ERROR "-DBROADCHECK_COMMIT=v0.1.0-debian1: commit '${c}'")
endif()
# what could break the string literal is replaced
commit_of(${WORK_DIR}/tarball "a\"b\\c d" c)
if(NOT c STREQUAL "a_b_c_d")
  message(FATAL_ERROR "a commit with quotes: '${c}', want 'a_b_c_d'")
endif()
message(STATUS "commit.cmake: unknown without .git, the given one with BROADCHECK_COMMIT")
