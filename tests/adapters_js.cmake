# The JavaScript workers (sut_adapters/js/, issue 6): the protocol layer,
# the "not available" path, and a short certification of every rule each
# worker declares with its manifest (LIB.manifest.json, docs/MANIFEST.md)
# under --strict: it must conform, so a new divergence fails, and each
# known divergence's case is replayed and must still fail (an XPASS fails:
# the library or the adapter changed and the certification must be redone).
# Every entry is skipped (exit 77), never passed, when node or an npm
# package is missing (scripts/setup-adapters-js.sh installs them).
set(BC_JS_DIR ${PROJECT_SOURCE_DIR}/sut_adapters/js)
set(BC_JS_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/js_adapter_check.sh)
set(BC_TFJS_PACKAGES @tensorflow/tfjs-core,@tensorflow/tfjs-backend-cpu)
set(BC_ORT_PACKAGES onnxruntime-node)
set(BC_STDLIB_PACKAGES @stdlib/ndarray)
set(BC_MATHJS_PACKAGES mathjs)
set(BC_TFJS_SUT "exec:node ${BC_JS_DIR}/tfjs_worker.js")
set(BC_ORT_SUT "exec:node ${BC_JS_DIR}/ort_worker.js")
set(BC_TFJS_WASM_PACKAGES @tensorflow/tfjs-core,@tensorflow/tfjs-backend-wasm)
set(BC_ORT_WEB_PACKAGES onnxruntime-web)
set(BC_TFJS_WASM_SUT "exec:node ${BC_JS_DIR}/tfjs_wasm_worker.js")
set(BC_ORT_WEB_SUT "exec:node ${BC_JS_DIR}/ort_web_worker.js")
set(BC_STDLIB_SUT "exec:node ${BC_JS_DIR}/stdlib_worker.js")
set(BC_MATHJS_SUT "exec:node ${BC_JS_DIR}/mathjs_worker.js")

function(bc_js_test name)
  add_test(NAME adapters-js.${name} COMMAND bash ${BC_JS_CHECK} ${BC_JS_DIR} ${ARGN})
  set_tests_properties(adapters-js.${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

# bc_js_certify(NAME PACKAGES SUT RULES MANIFEST): every cell of those rules
# conforms, its known divergences declared in MANIFEST.
function(bc_js_certify name packages sut rules manifest)
  bc_js_test(${name} pass ${packages} $<TARGET_FILE:broadcheck> run --sut ${sut}
             --rule ${rules} --cases 300 --jobs 2 --quiet --timeout-ms 60000
             --manifest ${BC_JS_DIR}/${manifest} --strict
             --junit ${CMAKE_CURRENT_BINARY_DIR}/adapters-js.${name}.xml)
  set_tests_properties(adapters-js.${name} PROPERTIES PROCESSORS 2)
endfunction()

bc_js_test(wire node-test ${BC_JS_DIR}/test/bcwire_test.js)
bc_js_test(tfjs.not-available fatal $<TARGET_FILE:broadcheck> tfjs_worker.js)
bc_js_test(ort.not-available fatal $<TARGET_FILE:broadcheck> ort_worker.js)
bc_js_test(tfjs-wasm.not-available fatal $<TARGET_FILE:broadcheck> tfjs_wasm_worker.js)
bc_js_test(ort-web.not-available fatal $<TARGET_FILE:broadcheck> ort_web_worker.js)
bc_js_test(stdlib.not-available fatal $<TARGET_FILE:broadcheck> stdlib_worker.js)
bc_js_test(mathjs.not-available fatal $<TARGET_FILE:broadcheck> mathjs_worker.js)

# ---- TensorFlow.js (docs/certifications/tfjs.md): T1 to T4 in the manifest ----
bc_js_certify(tfjs.certify ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
              none,numpy,onnx-uni,broadcast-to,bidirectional tfjs.manifest.json)

# ---- ONNX Runtime (docs/certifications/onnxruntime.md): O1 to O3 in the manifest ----
bc_js_certify(ort.certify ${BC_ORT_PACKAGES} ${BC_ORT_SUT} none,numpy,onnx-uni,bidirectional
              ort.manifest.json)
# MatMul (RULES.md §15), the node build only, values included: O6 (an
# unwritten output, onnxruntime.md) shows on every run since the worker
# runs each value question into a 0xA5-filled output; before, it showed
# only with dirty memory from malloc, and its known case could XPASS.
bc_js_test(ort.matmul.certify pass ${BC_ORT_PACKAGES} $<TARGET_FILE:broadcheck> run --sut ${BC_ORT_SUT}
           --rule matmul
           --property shape-differential,matmul-batch-is-numpy,matmul-swap-transposes,matmul-values
           --cases 300 --jobs 2 --quiet --timeout-ms 60000
           --manifest ${BC_JS_DIR}/ort.manifest.json --strict
           --junit ${CMAKE_CURRENT_BINARY_DIR}/adapters-js.ort.matmul.certify.xml)
set_tests_properties(adapters-js.ort.matmul.certify PROPERTIES PROCESSORS 2)
# The same four matmul cells for the other workers that declare matmul
# (tf.matMul on each tfjs backend, MatMul on onnxruntime-web), each with its
# manifest: T5 (tfjs.md), W6-W8 (tfjs-wasm.md), R5-R7 (ort-web.md).
# ort-web leaves matmul-values out: R7 (O6's unwritten output) shows only
# where the wasm heap is not 0 already (the node worker's poisoned output
# is not available there), and its known case XPASSed in 1 of 3 to 5
# short runs (ort-web.md); the long runs check it.
function(bc_js_matmul_certify name packages sut manifest properties)
  bc_js_test(${name}.matmul.certify pass ${packages} $<TARGET_FILE:broadcheck> run --sut ${sut}
             --rule matmul
             --property ${properties}
             --cases 300 --jobs 2 --quiet --timeout-ms 60000
             --manifest ${BC_JS_DIR}/${manifest} --strict
             --junit ${CMAKE_CURRENT_BINARY_DIR}/adapters-js.${name}.matmul.certify.xml)
  set_tests_properties(adapters-js.${name}.matmul.certify PROPERTIES PROCESSORS 2)
endfunction()
set(BC_MATMUL_PROPERTIES shape-differential,matmul-batch-is-numpy,matmul-swap-transposes)
bc_js_matmul_certify(tfjs ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT} tfjs.manifest.json
                     ${BC_MATMUL_PROPERTIES},matmul-values)
bc_js_matmul_certify(tfjs-wasm ${BC_TFJS_WASM_PACKAGES} ${BC_TFJS_WASM_SUT} tfjs-wasm.manifest.json
                     ${BC_MATMUL_PROPERTIES},matmul-values)
bc_js_matmul_certify(ort-web ${BC_ORT_WEB_PACKAGES} ${BC_ORT_WEB_SUT} ort-web.manifest.json
                     ${BC_MATMUL_PROPERTIES})

# ---- TensorFlow.js, wasm backend (docs/certifications/tfjs-wasm.md): W1 to W5 ----
bc_js_certify(tfjs-wasm.certify ${BC_TFJS_WASM_PACKAGES} ${BC_TFJS_WASM_SUT}
              none,numpy,onnx-uni,broadcast-to,bidirectional tfjs-wasm.manifest.json)
# the worker copies its 16 MB wasm heap back after every question: 156 s on a loaded 2-core machine
set_tests_properties(adapters-js.tfjs-wasm.certify PROPERTIES TIMEOUT 600)

# ---- ONNX Runtime Web, wasm (docs/certifications/ort-web.md) ----
bc_js_certify(ort-web.certify ${BC_ORT_WEB_PACKAGES} ${BC_ORT_WEB_SUT} none,numpy,onnx-uni,bidirectional
              ort-web.manifest.json)

# ---- stdlib ndarrays (docs/certifications/stdlib.md): S1 in the manifest ----
bc_js_certify(stdlib.certify ${BC_STDLIB_PACKAGES} ${BC_STDLIB_SUT} numpy,broadcast-to
              stdlib.manifest.json)

# ---- math.js (docs/certifications/mathjs.md): M1 to M4 in the manifest ----
bc_js_certify(mathjs.certify ${BC_MATHJS_PACKAGES} ${BC_MATHJS_SUT} numpy mathjs.manifest.json)
