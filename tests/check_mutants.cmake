# ctest mutants.killed: every mutant killed, and the committed kill table
# current.  -DBROADCHECK=exe -DGENERATED=file -DCOMMITTED=docs/MUTANTS.md
execute_process(COMMAND ${BROADCHECK} mutants --jobs 2 --markdown ${GENERATED}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "broadcheck mutants exited ${status}: a mutant survived (see above)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${GENERATED} ${COMMITTED}
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "docs/MUTANTS.md is out of date: regenerate it with\n"
                      "  broadcheck mutants --markdown docs/MUTANTS.md\n(generated: ${GENERATED})")
endif()
