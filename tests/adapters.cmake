# The Python adapters (sut_adapters/python/, issue 6): NumPy, PyTorch, ONNX.
# Each gets, through tests/adapters/expect.sh (skipped with 77 where the
# library is missing, never passed):
#   adapters.LIB.certify         a short certification of every rule it declares,
#                                its known divergences answered "unsupported"
#                                (BROADCHECK_SKIP_KNOWN=all): must exit 0, so a
#                                NEW divergence fails;
#   adapters.LIB.known.NAME      a replay of each known divergence's minimal case
#                                (docs/certifications/) without the skip:
#                                must still FAIL (exit 1), so a fixed library or
#                                a changed broadcheck shows;
#   adapters.LIB.not-available   the worker under `python3 -S` (no site-packages,
#                                so no library): broadcheck must say "not
#                                available" and exit 2, never pass.
if(NOT BC_PYTHON3)
  set(BC_PYTHON3 /usr/bin/python3) # expect.sh skips when it does not exist
endif()
set(BC_ADAPTERS_DIR ${PROJECT_SOURCE_DIR}/sut_adapters/python)
set(BC_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/adapters/expect.sh)

# bc_adapter_test(NAME MODULE EXIT REGEX COMMAND ARGS...): broadcheck COMMAND
# ARGS via expect.sh.  --timeout-ms 60000: importing torch takes ~2 s on an
# idle machine but more than the default 10 s start-up limit on a loaded one.
function(bc_adapter_test name module exit_code regex command)
  add_test(NAME ${name}
           COMMAND ${BC_EXPECT} ${BC_PYTHON3} ${module} ${exit_code} ${regex} --
                   $<TARGET_FILE:broadcheck> ${command} --timeout-ms 60000 ${ARGN})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()

# bc_adapter_known(LIB NAME PROPERTY CASE REGEX): known divergence NAME of
# LIB's worker must still fail, the same way (REGEX, grep -E, on the detail).
function(bc_adapter_known lib name property case regex)
  bc_adapter_test(adapters.${lib}.known.${name} ${lib} 1 "${regex}"
    replay --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/${lib}_worker.py"
           --property ${property} "${case}")
  # the library's own answers, whatever the caller's environment says
  set_tests_properties(adapters.${lib}.known.${name} PROPERTIES
    ENVIRONMENT "BROADCHECK_SKIP_KNOWN=")
endfunction()

foreach(lib numpy torch onnx)
  set(worker ${BC_ADAPTERS_DIR}/${lib}_worker.py)
  set(rules none,numpy,onnx-uni,broadcast-to,bidirectional)
  if(lib STREQUAL "onnx")
    set(rules numpy,onnx-uni,bidirectional)
  endif()
  bc_adapter_test(adapters.${lib}.certify ${lib} 0 "passed, 0 failed"
    run --sut "exec:${BC_PYTHON3} ${worker}" --rule ${rules} --cases 300 --jobs 2)
  set_tests_properties(adapters.${lib}.certify PROPERTIES
    ENVIRONMENT "BROADCHECK_SKIP_KNOWN=all" PROCESSORS 2)
  # needs only Python itself ("sys"): without it there is no worker to test
  bc_adapter_test(adapters.${lib}.not-available sys 2 "${lib} not available"
    run --sut "exec:${BC_PYTHON3} -S ${worker}" --cases 1)
endforeach()
# Rule broadcast-to through Tensor.expand instead of torch.broadcast_to.
bc_adapter_test(adapters.torch-expand.certify torch 0 "passed, 0 failed"
  run --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/torch_worker.py --expand"
      --rule broadcast-to --cases 300 --jobs 2)
set_tests_properties(adapters.torch-expand.certify PROPERTIES
  ENVIRONMENT "BROADCHECK_SKIP_KNOWN=all" PROCESSORS 2)

# The known divergences, each a minimal case of the certification runs
# (docs/certifications/{numpy,pytorch,onnx}.md say what each one is).
# Dask (docs/certifications/dask.md): rule numpy, static and partial shapes.
bc_adapter_test(adapters.dask.certify dask 0 "passed, 0 failed"
  run --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/dask_worker.py" --rule numpy --cases 300 --jobs 2)
set_tests_properties(adapters.dask.certify PROPERTIES
  ENVIRONMENT "BROADCHECK_SKIP_KNOWN=all" PROCESSORS 2)
bc_adapter_test(adapters.dask.not-available sys 2 "dask not available"
  run --sut "exec:${BC_PYTHON3} -S ${BC_ADAPTERS_DIR}/dask_worker.py" --cases 1)
bc_adapter_known(dask unknown-rejects partial-soundness "numpy [2] [?] -> [2]"
  "SUT rejects, but the concretization .2. .1. is accepted")
bc_adapter_known(dask unknown-wins partial-precision "numpy [?] [0] -> [0]"
  "SUT gives ..., but no accepted concretization has a dim as large as")
bc_adapter_known(dask negative-accepted shape-differential "numpy [-1] -> error:negative-dim"
  "SUT gives .-1., reference rejects: negative-dim")

bc_adapter_known(numpy numel-overflow shape-differential
  "numpy [2,4948631239496519333] -> [2,4948631239496519333]"
  "SUT gives error:overflow, reference gives")
bc_adapter_known(numpy fold-itemsize-overflow identity
  "numpy [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [] [1762591683282809588] -> [1762591683282809588]"
  "with a scalar added gives error:overflow")
bc_adapter_known(numpy int-div-floors value-differential
  "numpy op=div dtype=int32 values=996205014990209703 [2] [] -> [2]"
  "element .1. is -1, reference has 0")
bc_adapter_known(numpy float16-sum-order value-differential
  "broadcast-to op=sum-to-shape dtype=float16 operand=0 [] [2,3,3,4] -> [2,3,3,4]"
  "is 2628, reference has 2624")

bc_adapter_known(torch numel-overflow shape-differential
  "broadcast-to [] [2,6202711853575533942] -> [2,6202711853575533942]"
  "SUT gives error:overflow, reference gives")
bc_adapter_known(torch zero-size-stride-overflow shape-differential
  "broadcast-to [2,0,5,1443864443206356208] [1,2,0,5,1443864443206356208] -> [1,2,0,5,1443864443206356208]"
  "Negative strides are not supported")
bc_adapter_known(torch uni-rank-checked-late shape-differential
  "onnx-uni [0] [0,2] -> error:rank-too-large"
  "SUT gives error:dim-mismatch, reference rejects: rank-too-large")
bc_adapter_known(torch float16-sum-order value-differential
  "broadcast-to op=sum-to-shape dtype=float16 operand=0 [] [2,3,3,4] -> [2,3,3,4]"
  "is 2628, reference has 2624")
bc_adapter_known(torch expand-minus-one uni-implies-numpy
  "broadcast-to [0] [-1] -> error:negative-dim"
  "broadcast-to gives .0. but numpy of the same shapes gives error:negative-dim")
bc_adapter_known(torch negative-dim-named-otherwise shape-differential
  "broadcast-to [] [-1] -> error:negative-dim"
  "SUT gives error:overflow, reference rejects: negative-dim")

bc_adapter_known(onnx negative-dims-accepted shape-differential
  "numpy [-1] -> error:negative-dim"
  "SUT gives .-1., reference rejects: negative-dim")
# on partial shapes (docs/certifications/onnx-partial.md)
bc_adapter_known(onnx partial-prelu-accepts partial-precision
  "onnx-uni [] [0] -> error:rank-too-large"
  "SUT accepts .*, but no concretization is accepted")
bc_adapter_known(onnx partial-negative-dims partial-static-agrees
  "numpy [-1] -> error:negative-dim"
  "the SUT's partial inference gives .-1., the static reference rejects: negative-dim")
bc_adapter_known(onnx prelu-slope-unchecked shape-differential
  "onnx-uni [] [0] -> error:rank-too-large"
  "SUT gives .., reference rejects: rank-too-large")
