# The native-library adapters (issue 6; sut_adapters/libraries/): a SHORT
# certification of each built adapter with its manifest (NAME.manifest.json
# beside the adapter, docs/MANIFEST.md) under --strict: it must conform, so a
# new divergence fails, and every known divergence's case is replayed and
# must still fail (an XPASS fails: the library or the adapter changed and the
# certification must be redone).  The long certifications, and what each
# divergence is, are in docs/certifications/NAME.md.  Included from
# tests/CMakeLists.txt.

# Which adapters were built and which skipped (library missing): printed,
# informational, never fails.
add_test(NAME adapters.native-availability
         COMMAND ${CMAKE_COMMAND} -E cat ${BC_NATIVE_ADAPTERS_FILE})

set(BC_NATIVE_CASES 2000)
if(BC_SANITIZE)
  set(BC_NATIVE_CASES 300)
endif()

# bc_native_certify(NAME ADAPTER RULES): 'broadcheck run' of every cell of
# RULES on the adapter, with sut_adapters/libraries/NAME/NAME.manifest.json,
# must exit 0 and print a CONFORMS verdict.
function(bc_native_certify name adapter rules)
  add_test(NAME certify.native.${name}
           COMMAND broadcheck run --sut $<TARGET_FILE:${adapter}> --rule ${rules}
                   --cases ${BC_NATIVE_CASES} --jobs 2 --timeout-ms 60000 --strict
                   --manifest ${PROJECT_SOURCE_DIR}/sut_adapters/libraries/${name}/${name}.manifest.json)
  set_tests_properties(certify.native.${name} PROPERTIES PROCESSORS 2
    PASS_REGULAR_EXPRESSION "\nverdict: CONFORMS")
endfunction()

# oneDNN (docs/certifications/onednn.md): no rank 0, integer div rounds,
# int8/uint8 saturate, s8/u8 with column-major sources (a library bug).
if(TARGET bc_onednn_adapter)
  bc_native_certify(onednn bc_onednn_adapter onnx-uni)
endif()
# XNNPACK (docs/certifications/xnnpack.md): quantized int8/uint8 saturate.
if(TARGET bc_xnnpack_adapter)
  bc_native_certify(xnnpack bc_xnnpack_adapter numpy)
endif()
# xtensor (docs/certifications/xtensor.md): broadcast-to's result is not
# the target (a library bug); bidirectional refuses an input of larger rank.
if(TARGET bc_xtensor_adapter)
  bc_native_certify(xtensor bc_xtensor_adapter numpy,broadcast-to,bidirectional)
  # One operand folds nothing: a copy (the adapter threw "fewer than 2
  # inputs" until the medium value tier's shrink reached it).
  add_test(NAME adapters.xtensor-one-operand
           COMMAND broadcheck replay --sut $<TARGET_FILE:bc_xtensor_adapter>
                   --property value-differential "numpy op=max dtype=float32 layout=7 [2,3] -> [2,3]")
  set_tests_properties(adapters.xtensor-one-operand PROPERTIES
    PASS_REGULAR_EXPRESSION "^PASS value-differential")
endif()
# Eigen (docs/certifications/eigen.md): broadcast() of a 0 dim asserts.
# Under UndefinedBehaviorSanitizer Eigen's copy of an empty tensor
# (memcpy from NULL, TensorDeviceDefault.h) stops the worker too: the
# sanitizer build declares that as well (tests/eigen_ubsan.manifest.json,
# without --strict: its case passes in a plain build), and does not give up
# on a worker that UBSan stops on every empty tensor (--unresponsive-after 0:
# a few such questions in a row would end the cells as "SUT unresponsive").
if(TARGET bc_eigen_adapter AND BC_SANITIZE)
  add_test(NAME certify.native.eigen
           COMMAND broadcheck run --sut $<TARGET_FILE:bc_eigen_adapter>
                   --rule none,numpy,onnx-uni,broadcast-to --cases ${BC_NATIVE_CASES} --jobs 2
                   --timeout-ms 60000 --unresponsive-after 0
                   --manifest ${CMAKE_CURRENT_SOURCE_DIR}/eigen_ubsan.manifest.json)
  set_tests_properties(certify.native.eigen PROPERTIES PROCESSORS 2
    PASS_REGULAR_EXPRESSION "\nverdict: CONFORMS")
elseif(TARGET bc_eigen_adapter)
  bc_native_certify(eigen bc_eigen_adapter none,numpy,onnx-uni,broadcast-to)
endif()
