# The native-library adapters (issue 6; sut_adapters/libraries/): a SHORT
# certification of each built adapter on the cells known to pass, and a
# replay of each known divergence's minimal case, which must still fail.
# The long certifications, and what each divergence is, are in
# docs/certifications/NAME.md.  Included from tests/CMakeLists.txt.

# Which adapters were built and which skipped (library missing): printed,
# informational, never fails.
add_test(NAME adapters.native-availability
         COMMAND ${CMAKE_COMMAND} -E cat ${BC_NATIVE_ADAPTERS_FILE})

# bc_native_certify(NAME name ADAPTER target [ENV var=value...] ARGS run-args...):
# 'broadcheck run --sut <adapter> run-args' must exit 0.  ENV narrows the
# adapter's declared capabilities or declines a known divergence's class of
# cases (docs/certifications/README.md, "Triage"), so that the cells still
# certify everything else.
function(bc_native_certify)
  cmake_parse_arguments(PARSE_ARGV 0 C "" "NAME;ADAPTER" "ENV;ARGS")
  add_test(NAME certify.native.${C_NAME}
           COMMAND broadcheck run --sut $<TARGET_FILE:${C_ADAPTER}> --quiet ${C_ARGS})
  if(C_ENV)
    set_tests_properties(certify.native.${C_NAME} PROPERTIES ENVIRONMENT "${C_ENV}")
  endif()
endfunction()

# bc_native_divergence(NAME name ADAPTER target PROPERTY p CASE line EXPECT regex):
# 'broadcheck replay' of a known divergence must FAIL the property (exit 1,
# which prints "FAIL <property> on ..."; a case the SUT no longer supports
# or bad usage exits 2 and prints no such line), with the detail EXPECT.
function(bc_native_divergence)
  cmake_parse_arguments(PARSE_ARGV 0 D "" "NAME;ADAPTER;PROPERTY;CASE;EXPECT" "")
  add_test(NAME divergence.native.${D_NAME}
           COMMAND broadcheck replay --sut $<TARGET_FILE:${D_ADAPTER}> --property ${D_PROPERTY}
                   "${D_CASE}")
  set_tests_properties(divergence.native.${D_NAME} PROPERTIES
    PASS_REGULAR_EXPRESSION "FAIL ${D_PROPERTY} on [^\n]*${D_EXPECT}")
endfunction()

set(BC_NATIVE_CASES 2000)
if(BC_SANITIZE)
  set(BC_NATIVE_CASES 300)
endif()

# ---- oneDNN (docs/certifications/onednn.md) ----
if(TARGET bc_onednn_adapter)
  # onnx-uni shapes pass once rank 0 (divergence 1) is declined.
  bc_native_certify(NAME onednn-shapes ADAPTER bc_onednn_adapter
    ENV BC_ADAPTER_TRIAGE_NO_SCALARS=1
    ARGS --rule onnx-uni --property shape-differential,prepend-ones,uni-implies-numpy
         --cases 2000)
  # Values pass on float32/int32 and the comparisons once rank 0, integer
  # div (divergence 2) and int8/uint8 (divergence 3) are set aside.
  bc_native_certify(NAME onednn-values ADAPTER bc_onednn_adapter
    ENV BC_ADAPTER_TRIAGE_NO_SCALARS=1 BC_ADAPTER_ONLY_DTYPES=float32,int32,bool
        BC_ADAPTER_ONLY_OPS=add,sub,mul,max,min,equal,less
    ARGS --rule onnx-uni --property value-differential,layout-invariance
         --cases ${BC_NATIVE_CASES})
  bc_native_divergence(NAME onednn-rank0 ADAPTER bc_onednn_adapter
    PROPERTY shape-differential CASE "onnx-uni [] [1] -> error:rank-too-large"
    EXPECT "SUT gives \\[\\], reference rejects: rank-too-large")
  bc_native_divergence(NAME onednn-int-div-rounds ADAPTER bc_onednn_adapter
    PROPERTY value-differential
    CASE "onnx-uni op=div dtype=int32 values=1142040541890028957 [3,3] [3] -> [3,3]"
    EXPECT "element \\[2,2\\] is 1, reference has 0")
  bc_native_divergence(NAME onednn-s8-saturates ADAPTER bc_onednn_adapter
    PROPERTY value-differential CASE "onnx-uni op=add dtype=int8 [4,4] [4,4] -> [4,4]"
    EXPECT "element \\[3,3\\] is 127, reference has -127")
  bc_native_divergence(NAME onednn-u8-saturates ADAPTER bc_onednn_adapter
    PROPERTY value-differential CASE "onnx-uni op=sub dtype=uint8 [1] [1] -> [1]"
    EXPECT "element \\[0\\] is 0, reference has 159")
endif()

# ---- XNNPACK (docs/certifications/xnnpack.md) ----
if(TARGET bc_xnnpack_adapter)
  # numpy shapes: every cell passes.
  bc_native_certify(NAME xnnpack-shapes ADAPTER bc_xnnpack_adapter
    ARGS --rule numpy --property shape-differential,commutative,associative,prepend-ones
         --cases 2000)
  # Values pass on float32 and float16 (int8/uint8 saturate: divergence 1).
  bc_native_certify(NAME xnnpack-values ADAPTER bc_xnnpack_adapter
    ENV BC_ADAPTER_ONLY_DTYPES=float32,float16
    ARGS --rule numpy --property value-differential,layout-invariance --cases ${BC_NATIVE_CASES})
  bc_native_divergence(NAME xnnpack-u8-mul-saturates ADAPTER bc_xnnpack_adapter
    PROPERTY value-differential CASE "numpy op=mul dtype=uint8 [3] [] -> [3]"
    EXPECT "element \\[2\\] is 255, reference has 38")
  bc_native_divergence(NAME xnnpack-s8-add-saturates ADAPTER bc_xnnpack_adapter
    PROPERTY value-differential CASE "numpy op=add dtype=int8 [4,4] [4,4] -> [4,4]"
    EXPECT "element \\[3,3\\] is 127, reference has -127")
  bc_native_divergence(NAME xnnpack-u8-sub-saturates ADAPTER bc_xnnpack_adapter
    PROPERTY value-differential CASE "numpy op=sub dtype=uint8 [] [] -> []"
    EXPECT "element \\[\\] is 0, reference has 159")
endif()

# ---- xtensor (docs/certifications/xtensor.md) ----
if(TARGET bc_xtensor_adapter)
  # numpy: every shape and value cell passes.
  bc_native_certify(NAME xtensor-numpy ADAPTER bc_xtensor_adapter
    ARGS --rule numpy --cases ${BC_NATIVE_CASES})
  # xt::broadcast: the cells that pass under both rules.
  bc_native_certify(NAME xtensor-broadcast ADAPTER bc_xtensor_adapter
    ARGS --rule broadcast-to,bidirectional --property prepend-ones,uni-implies-numpy
         --cases ${BC_NATIVE_CASES})
  bc_native_divergence(NAME xtensor-broadcast-to-not-target ADAPTER bc_xtensor_adapter
    PROPERTY shape-differential CASE "broadcast-to [0] [1] -> error:dim-mismatch"
    EXPECT "SUT gives \\[0\\], reference rejects: dim-mismatch")
  bc_native_divergence(NAME xtensor-broadcast-to-values ADAPTER bc_xtensor_adapter
    PROPERTY value-differential CASE "broadcast-to op=broadcast dtype=int32 [0] [1] -> error:dim-mismatch"
    EXPECT "SUT gives \\[0\\]; reference gives error:dim-mismatch")
  bc_native_divergence(NAME xtensor-bidirectional-rank ADAPTER bc_xtensor_adapter
    PROPERTY shape-differential CASE "bidirectional [0] [] -> [0]"
    EXPECT "SUT gives error, reference gives \\[0\\]")
endif()

# ---- Eigen (docs/certifications/eigen.md) ----
if(TARGET bc_eigen_adapter)
  # Every value cell of every declared rule passes once 0 dims (divergence 1)
  # are declined.
  bc_native_certify(NAME eigen-values ADAPTER bc_eigen_adapter
    ENV BC_ADAPTER_TRIAGE_NO_EMPTY=1
    ARGS --rule none,numpy,onnx-uni,broadcast-to
         --property value-differential,layout-invariance,broadcast-then-elementwise,sum-of-broadcast
         --cases ${BC_NATIVE_CASES})
  bc_native_divergence(NAME eigen-empty-broadcast ADAPTER bc_eigen_adapter
    PROPERTY value-differential CASE "broadcast-to op=broadcast dtype=int32 [0] [0,0] -> [0,0]"
    EXPECT "SUT gives error; reference gives \\[0,0\\]")
  bc_native_divergence(NAME eigen-empty-where ADAPTER bc_eigen_adapter
    PROPERTY value-differential CASE "numpy op=where dtype=int32 [] [0] [0,0] -> [0,0]"
    EXPECT "SUT gives error; reference gives \\[0,0\\]")
endif()

# oneDNN divergence 4 (a library bug): s8/u8 binary (jit:uni) with column-
# major sources and a row-major dst writes the dst in the sources' order.
if(TARGET bc_onednn_adapter)
  bc_native_divergence(NAME onednn-s8-layout ADAPTER bc_onednn_adapter
    PROPERTY layout-invariance
    CASE "onnx-uni op=add dtype=int8 layout=3122551883200570037 [4,2] [4,2] -> [4,2]"
    EXPECT "element \\[0,1\\] is 103, C-contiguous inputs has 101")
endif()
