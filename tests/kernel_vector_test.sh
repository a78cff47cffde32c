#!/usr/bin/env bash
# The fast engine's hot loops are vector code in the shipped build
# (docs/ENGINE.md "The fast engine's plan", step 5): disassembles the
# compiled reference/fast.c and requires, in each named kernel, at least one
# packed instruction of its operation.  Fails if a kernel lost its vector
# loop (GCC 12 at -O2 leaves a loop scalar when it would need a run-time
# overlap check: the kernels' `restrict` and `#pragma omp simd` prevent it).
#   kernel_vector_test.sh BUILD_TYPE OBJECTS
# OBJECTS: the reference library's object files, ';'-separated (CMake's
# $<TARGET_OBJECTS>); the one named fast.c.o is checked.
#   kernel_vector_test.sh BUILD_TYPE OBJECTS SOURCE 'FUNCTION MNEMONICS'...
# checks the object of SOURCE (e.g. value.c) for the functions given instead.  Exit 77 (skipped,
# said why) without objdump, off x86-64, or in a build without optimisation.
set -u
build_type=$1
IFS=';' read -r -a objects <<<"$2"
source=${3:-fast.c}
obj=
for o in "${objects[@]}"; do
  case $o in */"$source".o | */"$source".obj) obj=$o ;; esac
done
if ! command -v objdump >/dev/null; then
  echo "SKIPPED: objdump is not installed (binutils); cannot inspect the kernels"; exit 77
fi
case $build_type in
  Debug | "") echo "SKIPPED: build type '$build_type' compiles without optimisation (-O0): no vector code is expected"; exit 77 ;;
esac
if [ -z "$obj" ] || [ ! -f "$obj" ]; then
  echo "FAIL: no $source object among: $2"; exit 1
fi
arch=$(objdump -f "$obj" | sed -n 's/.*architecture: \([^,]*\).*/\1/p')
case $arch in
  i386:x86-64) ;;
  *) echo "SKIPPED: packed mnemonics are listed for x86-64 only, the object is $arch"; exit 77 ;;
esac

# kernel and the packed instruction (SSE name; an AVX build's v-prefixed form counts) of its op
checks=(
  "k3_f32_add addps" "k3_f32_sub subps" "k3_f32_mul mulps" "k3_f64_add addpd" "k3_f64_mul mulpd"
  "k3_f32_less cmpltps" "k3_i8_add paddb" "k3_u8_add paddb" "k3_i32_add paddd" "k3_i32_mul pmulld|pmuludq"
  "k3_i64_sub psubq" "k3avx2_f32_add addps" "k3avx2_i32_add paddd" "k3avx2_f64_mul mulpd"
  "sum_f32 addps" "sum_f64 addpd" "sum_i32 paddd"
  "select32 pand|pandn|por" "select64 pand|pandn|por" "select8 pand|pandn|por"
)
if [ $# -gt 3 ]; then
  checks=("${@:4}")
fi
dis=$(objdump -d --no-show-raw-insn "$obj")
failed=0
for c in "${checks[@]}"; do
  fn=${c%% *} re=${c#* }
  # the function's body: from its label to the next blank line
  n=$(awk -v fn="<$fn>:" -v re="^v?($re)\$" '
        $2 == fn { on = 1; next }
        on && NF == 0 { exit }
        on { split($0, f, "\t"); split(f[2], w, " "); if (w[1] ~ re) n++ }
        END { print n + 0 }' <<<"$dis")
  if [ "$n" -gt 0 ]; then
    echo "ok   $fn: $n x ($re)"
  else
    echo "FAIL $fn: no packed ($re) instruction: the kernel's loop is scalar"
    failed=1
  fi
done
exit $failed
