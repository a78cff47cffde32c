# The Python adapters (sut_adapters/python/, issue 6): NumPy, PyTorch, ONNX,
# Dask, Numba, pydata/sparse.  Each gets, through tests/adapters/expect.sh
# (skipped with 77 where the library is missing, never passed):
#   adapters.LIB.certify         a short certification of every rule it declares
#                                with its manifest (LIB.manifest.json,
#                                docs/MANIFEST.md) under --strict: it must
#                                conform, so a NEW divergence fails, and every
#                                known divergence's case is replayed and must
#                                still fail (an XPASS fails too), so a fixed
#                                library or a changed broadcheck shows;
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

foreach(lib numpy torch onnx)
  set(worker ${BC_ADAPTERS_DIR}/${lib}_worker.py)
  set(rules none,numpy,onnx-uni,broadcast-to,bidirectional,matmul)
  if(lib STREQUAL "onnx")
    set(rules numpy,onnx-uni,bidirectional,matmul)
  endif()
  bc_adapter_test(adapters.${lib}.certify ${lib} 0 "verdict: CONFORMS"
    run --sut "exec:${BC_PYTHON3} ${worker}" --rule ${rules} --cases 300 --jobs 2
        --manifest ${BC_ADAPTERS_DIR}/${lib}.manifest.json --strict)
  set_tests_properties(adapters.${lib}.certify PROPERTIES PROCESSORS 2)
  # needs only Python itself ("sys"): without it there is no worker to test
  bc_adapter_test(adapters.${lib}.not-available sys 2 "${lib} not available"
    run --sut "exec:${BC_PYTHON3} -S ${worker}" --cases 1)
endforeach()
# NumPy past 72 operands and its empty fold (RULES.md §3.1, §9.5): the
# worker declares 136 operands (protocol 4) and profile numpy-empty-fold;
# each replay must reach it and pass ('unsupported' does not match).
string(REPEAT "[1] " 64 bc_ones64)
string(REPEAT "[1] " 62 bc_ones62)
bc_adapter_test(adapters.numpy.many-operands numpy 0 "PASS shape-differential"
  replay --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/numpy_worker.py" --property shape-differential
  "numpy ${bc_ones64}[4,1] ${bc_ones62}[1,5] -> [4,5]")
bc_adapter_test(adapters.numpy.empty-fold numpy 0 "PASS shape-differential"
  replay --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/numpy_worker.py" --property shape-differential
  "numpy profile=numpy-empty-fold -> []")
# NumPy's float16 sum differs between layouts past one 8,192-element buffer
# (numpy.md, divergence 5, found by a medium-tier run at seed 24): the known
# entry's reach must take layout-invariance's failure, or --strict calls it new.
bc_adapter_test(adapters.numpy.float16-sum-layout numpy 1
  "known divergence 'float16-sum-buffered'"
  replay --sut numpy --value-tier medium --property layout-invariance
  "numpy op=sum-to-shape dtype=float16 operand=0 layout=2677297589170895609 values=v2:16878120353232334113 [] [61524,3] -> [61524,3]")
# Rule broadcast-to through Tensor.expand instead of torch.broadcast_to.
bc_adapter_test(adapters.torch-expand.certify torch 0 "verdict: CONFORMS"
  run --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/torch_worker.py --expand"
      --rule broadcast-to --cases 300 --jobs 2
      --manifest ${BC_ADAPTERS_DIR}/torch.manifest.json --strict)
set_tests_properties(adapters.torch-expand.certify PROPERTIES PROCESSORS 2)

# ONNX's MatMul on partial shapes (docs/certifications/onnx-partial.md): a
# symbol kept on the rows, ONNX's own on a merged batch, an unknown batch
# dim that takes the other's 4.
bc_adapter_test(adapters.onnx.partial-matmul onnx 0 "PASS partial-symbols"
  replay --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/onnx_worker.py" --property partial-symbols
         "matmul [N,A,2,3] [?,B,3,4] -> [N,?,2,4]")
bc_adapter_test(adapters.onnx.partial-matmul-batch onnx 0 "PASS partial-precision"
  replay --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/onnx_worker.py" --property partial-precision
         "matmul [?,2,3] [4,3,5] -> [4,2,5]")

# The known divergences are each library's manifest (docs/certifications/
# {numpy,pytorch,onnx,dask}.md say what each one is), replayed by the
# certify tests above.
# Dask (docs/certifications/dask.md): rule numpy, static and partial shapes.
bc_adapter_test(adapters.dask.certify dask 0 "verdict: CONFORMS"
  run --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/dask_worker.py" --rule numpy --cases 300 --jobs 2
      --manifest ${BC_ADAPTERS_DIR}/dask.manifest.json --strict)
set_tests_properties(adapters.dask.certify PROPERTIES PROCESSORS 2)
bc_adapter_test(adapters.dask.not-available sys 2 "dask not available"
  run --sut "exec:${BC_PYTHON3} -S ${BC_ADAPTERS_DIR}/dask_worker.py" --cases 1)
# Numba (docs/certifications/numba.md): nopython np.broadcast_shapes,
# np.broadcast_to, ufuncs, np.where; every new signature compiles (about
# half a second of CPU each, kept on disk in NUMBA_CACHE_DIR), so a first
# run is slow: on a cold cache 100 cases compiled 808 signatures in 439 s
# of CPU, and CI always starts cold, hence 50 cases here, not 300 (the
# long certification in numba.md is the measure of Numba; at 100 cases this
# test took 573 s of a loaded CI run, both processors).
bc_adapter_test(adapters.numba.certify numba 0 "verdict: CONFORMS"
  run --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/numba_worker.py" --rule none,numpy,broadcast-to
      --cases 50 --jobs 2 --manifest ${BC_ADAPTERS_DIR}/numba.manifest.json --strict)
set_tests_properties(adapters.numba.certify PROPERTIES PROCESSORS 2 TIMEOUT 3600)
bc_adapter_test(adapters.numba.not-available sys 2 "numba not available"
  run --sut "exec:${BC_PYTHON3} -S ${BC_ADAPTERS_DIR}/numba_worker.py" --cases 1)
# pydata/sparse (docs/certifications/sparse.md): COO elemwise, where, broadcast_to.
bc_adapter_test(adapters.sparse.certify sparse 0 "verdict: CONFORMS"
  run --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/sparse_worker.py" --rule none,numpy,broadcast-to
      --cases 300 --jobs 2 --manifest ${BC_ADAPTERS_DIR}/sparse.manifest.json --strict)
set_tests_properties(adapters.sparse.certify PROPERTIES PROCESSORS 2)
bc_adapter_test(adapters.sparse.not-available sys 2 "sparse not available"
  run --sut "exec:${BC_PYTHON3} -S ${BC_ADAPTERS_DIR}/sparse_worker.py" --cases 1)

# GNU Octave (docs/certifications/octave.md): rules none and numpy, through
# one octave-cli per worker.  Octave is no Python module, so expect.sh cannot
# skip by an import: without octave-cli at configure time the certify test is
# not added (said here), and not-available points the worker at a missing
# octave-cli, which must give "not available" and exit 2.
find_program(BC_OCTAVE_CLI octave-cli)
if(BC_OCTAVE_CLI)
  bc_adapter_test(adapters.octave.certify - 0 "verdict: CONFORMS"
    run --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/octave_worker.py" --rule none,numpy
        --cases 300 --jobs 2 --manifest ${BC_ADAPTERS_DIR}/octave.manifest.json --strict)
  set_tests_properties(adapters.octave.certify PROPERTIES PROCESSORS 2)
else()
  message(STATUS "broadcheck: not adding adapters.octave.certify: octave-cli not found "
                 "(scripts/setup-adapters-octave.sh installs it)")
endif()
bc_adapter_test(adapters.octave.not-available sys 2 "octave not available"
  run --sut "exec:${BC_PYTHON3} ${BC_ADAPTERS_DIR}/octave_worker.py --octave /nonexistent/octave-cli"
      --cases 1)




# A shipped adapter by name: --sut numpy finds its worker and its manifest
# where broadcheck finds its own files (isolation/named.c), and the replay
# lines name it so.
bc_adapter_test(adapters.named.numpy numpy 0 "verdict: CONFORMS"
  run --sut numpy --rule numpy,onnx-uni --cases 300 --jobs 2 --strict)
set_tests_properties(adapters.named.numpy PROPERTIES PROCESSORS 2)
