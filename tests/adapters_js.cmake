# The JavaScript workers (sut_adapters/js/, issue 6): the protocol layer,
# the "not available" path, short certifications of the cells the long
# certifications found passing (docs/certifications/), and a replay of each
# known divergence's minimal case, which must still fail (exit 1): if one
# starts passing, the library or the adapter changed and the certification
# must be redone.  Every entry is skipped (exit 77), never passed, when node
# or an npm package is missing (scripts/setup-adapters-js.sh installs them).
set(BC_JS_DIR ${PROJECT_SOURCE_DIR}/sut_adapters/js)
set(BC_JS_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/js_adapter_check.sh)
set(BC_TFJS_PACKAGES @tensorflow/tfjs-core,@tensorflow/tfjs-backend-cpu)
set(BC_ORT_PACKAGES onnxruntime-node)
set(BC_TFJS_SUT "exec:node ${BC_JS_DIR}/tfjs_worker.js")
set(BC_ORT_SUT "exec:node ${BC_JS_DIR}/ort_worker.js")

function(bc_js_test name)
  add_test(NAME adapters-js.${name} COMMAND bash ${BC_JS_CHECK} ${BC_JS_DIR} ${ARGN})
  set_tests_properties(adapters-js.${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

# bc_js_pass(NAME PACKAGES SUT RULES PROPERTIES): those cells must pass.
function(bc_js_pass name packages sut rules properties)
  bc_js_test(${name} pass ${packages} $<TARGET_FILE:broadcheck> run --sut ${sut}
             --rule ${rules} --property ${properties} --cases 400 --seed 6 --jobs 2 --quiet
             --junit ${CMAKE_CURRENT_BINARY_DIR}/adapters-js.${name}.xml)
endfunction()

# bc_js_known(NAME PACKAGES SUT PROPERTY CASE): a known divergence still fails.
function(bc_js_known name packages sut property case)
  bc_js_test(${name} fails ${packages} $<TARGET_FILE:broadcheck> replay --sut ${sut}
             --property ${property} ${case})
endfunction()

bc_js_test(wire node-test ${BC_JS_DIR}/test/bcwire_test.js)
bc_js_test(tfjs.not-available fatal $<TARGET_FILE:broadcheck> tfjs_worker.js)
bc_js_test(ort.not-available fatal $<TARGET_FILE:broadcheck> ort_worker.js)

# ---- TensorFlow.js (docs/certifications/tfjs.md) ----
bc_js_pass(tfjs.pass.shapes ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT} none,numpy
           shape-differential,commutative,associative,identity,prepend-ones)
# T4: tf.add on bool stores 2 in a bool tensor (found once broadcheck
# compared bool bytes exactly, not as "nonzero").
bc_js_known(tfjs.known.add-bool-gives-2 ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
            value-differential "none op=add dtype=bool [4] [4] -> [4]")
bc_js_pass(tfjs.pass.broadcast-to ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT} broadcast-to prepend-ones)
# T1: tf.broadcastTo returns its input when every stretch is to size 0.
bc_js_known(tfjs.known.broadcast-to-zero-shape ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
            shape-differential "broadcast-to [] [0] -> [0]")
bc_js_known(tfjs.known.broadcast-to-zero-uni ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
            uni-implies-numpy "broadcast-to [] [0] -> [0]")
bc_js_known(tfjs.known.broadcast-to-zero-values ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
            value-differential "broadcast-to op=broadcast dtype=int32 [] [0] -> [0]")
bc_js_known(tfjs.known.broadcast-to-zero-layout ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
            value-differential "broadcast-to op=broadcast dtype=int32 layout=2363521609813863735 [4,4] [0,4,4] -> [0,4,4]")
# T2: tf.where (through tf.broadcastTo) gives size-0 broadcasts a wrong shape.
bc_js_known(tfjs.known.where-zero ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
            broadcast-then-elementwise "numpy op=where dtype=int32 [] [] [0] -> [0]")
bc_js_known(tfjs.known.where-zero-layout ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
            value-differential "numpy op=where dtype=int32 layout=14860904238779561293 [] [3,2] [0,1,1] -> [0,3,2]")
# T3: tf.div on int32 floors; broadcheck truncates.
bc_js_known(tfjs.known.div-int32-floors ${BC_TFJS_PACKAGES} ${BC_TFJS_SUT}
            value-differential "numpy op=div dtype=int32 values=996205014990209703 [2] [] -> [2]")

# ---- ONNX Runtime (docs/certifications/onnxruntime.md) ----
bc_js_pass(ort.pass.values ${BC_ORT_PACKAGES} ${BC_ORT_SUT} none,numpy,bidirectional
           value-differential,layout-invariance,broadcast-then-elementwise)
# O1: PRelu broadcasts its slope multidirectionally; ONNX says unidirectionally.
bc_js_known(ort.known.prelu-multidirectional ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            shape-differential "onnx-uni [] [0] -> error:rank-too-large")
# O2: Expand with a negative target dim fails inside ORT instead of rejecting it.
bc_js_known(ort.known.expand-negative-shape ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            shape-differential "bidirectional [] [-1] -> error:negative-dim")
bc_js_known(ort.known.expand-negative-commutative ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            commutative "bidirectional [-1] [] -> error:negative-dim")
bc_js_known(ort.known.expand-negative-prepend ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            prepend-ones "bidirectional [] [-1] -> error:negative-dim")
bc_js_known(ort.known.expand-negative-is-numpy ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            bidirectional-is-numpy "bidirectional [] [-1] -> error:negative-dim")
# O3: a zero-size tensor whose other dims multiply past INT64_MAX overflows
# ORT's element count (SafeInt), in every rule: one replay per failing cell.
bc_js_known(ort.known.zero-size-overflow-none-shape ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            shape-differential "none [4,5,4,2,5,5,19,3,3,4,4,2,4,10,70,291,2,5,2,4,3,3,3,4,60,0] -> [4,5,4,2,5,5,19,3,3,4,4,2,4,10,70,291,2,5,2,4,3,3,3,4,60,0]")
bc_js_known(ort.known.zero-size-overflow-none-prepend ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            prepend-ones "none [3,3,258,2,4,4,2,83,2,3,4,5,5,4,3,4,2,5,2,42,3,2,267,5,5,0] -> [3,3,258,2,4,4,2,83,2,3,4,5,5,4,3,4,2,5,2,42,3,2,267,5,5,0]")
bc_js_known(ort.known.zero-size-overflow-numpy-shape ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            shape-differential "numpy [3,2,3,5,2,2,2,2,3,4,4,5,2,11,4,4,3,2,2,5,3,3,4,3,3,39,2,216,232,0] -> [3,2,3,5,2,2,2,2,3,4,4,5,2,11,4,4,3,2,2,5,3,3,4,3,3,39,2,216,232,0]")
bc_js_known(ort.known.zero-size-overflow-numpy-commutative ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            commutative "numpy [5,2,23,3,194,4,3,2,2,5,2,2,2,4,4,4,3,5,5,4,79,129,184,0] -> [5,2,23,3,194,4,3,2,2,5,2,2,2,4,4,4,3,5,5,4,79,129,184,0]")
bc_js_known(ort.known.zero-size-overflow-numpy-associative ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            associative "numpy [] [1,2,3,2,4,1,3,2,57,2,0] [120,5,4,3,2,52,3,5,2,5,4,5,200,184,2,3,2,4,5,3,2,57,2,0] -> [120,5,4,3,2,52,3,5,2,5,4,5,200,184,2,3,2,4,5,3,2,57,2,0]")
bc_js_known(ort.known.zero-size-overflow-numpy-identity ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            identity "numpy [282,4,4,90,2,211,4,4,48,4,4,4,5,248,5,70,3,0] -> [282,4,4,90,2,211,4,4,48,4,4,4,5,248,5,70,3,0]")
bc_js_known(ort.known.zero-size-overflow-numpy-prepend ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            prepend-ones "numpy [3,5,4,217,3,4,2,4,4,3,3,4,5,229,2,70,3,4,275,99,0] -> [3,5,4,217,3,4,2,4,4,3,3,4,5,229,2,70,3,4,275,99,0]")
bc_js_known(ort.known.zero-size-overflow-uni-prepend ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            prepend-ones "onnx-uni [2,4,2,5,3,2,181,4,4,2,5,4,67,3,2,5,4,5,4,5,5,226,189,0] [] -> [2,4,2,5,3,2,181,4,4,2,5,4,67,3,2,5,4,5,4,5,5,226,189,0]")
bc_js_known(ort.known.zero-size-overflow-uni-implies ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            uni-implies-numpy "onnx-uni [111,4,189,2,5,93,2,2,4,3,2,214,2,2,3,4,5,5,3,3,2,78,5,0] [] -> [111,4,189,2,5,93,2,2,4,3,2,214,2,2,3,4,5,5,3,3,2,78,5,0]")
bc_js_known(ort.known.zero-size-overflow-expand-identity ${BC_ORT_PACKAGES} ${BC_ORT_SUT}
            identity "bidirectional [0,4,4,2,5,5,296,211,4,3,180,4,5,3,3,22,3,4,169,4,3] [3,3,1,3,4,169,4,3] -> [0,4,4,2,5,5,296,211,4,3,180,4,5,3,3,22,3,4,169,4,3]")
