/*
 * Value cases' tensors and float16 conversions (properties/value.c, half.c,
 * guard/guard.c): the bytes a case line names are the bytes it always
 * named, however they are made now.
 *
 * - bc_half_* (F16C when the CPU has it) give the bits of the compiler's
 *   software conversions: every one of the 65,536 halves, and floats at,
 *   beside and between every half, NaNs of many payloads and random bits.
 * - Every input of a value request equals, byte for byte, a model of the
 *   generation written the slow, obvious way (one bc_prng_range or
 *   bc_prng_below draw per element in row-major order, converted through
 *   double by the compiler, poison in the gaps, guard poison around): the
 *   definition every value line and every manifest's replay line was made
 *   with.  Cases follow each other in one arena, reset between them as the
 *   runner does, with junk written where an answer would go, so a byte
 *   left over from an earlier case shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../guard/guard.h"
#include "half.h"
#include "value.h"

#if BC_HAVE_FLOAT16
static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void test_every_half_to_float(void **state)
{
    (void)state;
    static uint16_t h[65536];
    static float hw[65536], sw[65536];
    for (uint32_t i = 0; i < 65536; i++)
        h[i] = (uint16_t)i;
    bc_half_to_float(hw, h, 65536, bc_half_hardware());
    bc_half_to_float_soft(sw, h, 65536);
    for (uint32_t i = 0; i < 65536; i++)
        if (float_bits(hw[i]) != float_bits(sw[i]))
            fail_msg("half 0x%04x: 0x%08x, the software conversion gives 0x%08x", i,
                     float_bits(hw[i]), float_bits(sw[i]));
    print_message("F16C %s on this CPU\n", bc_half_hardware() ? "used" : "absent: software only");
}

/* floats around every half: itself, a float ulp either side, the midpoint
 * to the next half and an ulp either side of it; NaN payloads; random bits */
static void test_floats_to_half(void **state)
{
    (void)state;
    enum { N = 65536 * 6 + 2 * 2048 + (1 << 22) };
    static float f[N];
    static uint16_t hw[N], sw[N];
    size_t n = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        _Float16 x;
        uint16_t b = (uint16_t)i, next = (uint16_t)(i + 1);
        memcpy(&x, &b, sizeof x);
        uint32_t u = float_bits((float)x);
        f[n++] = bits_float(u);
        f[n++] = bits_float(u + 1);
        f[n++] = bits_float(u - 1);
        _Float16 y;
        memcpy(&y, &next, sizeof y);
        float mid = (float)(((double)x + (double)y) / 2); /* exact: a tie */
        f[n++] = mid;
        f[n++] = bits_float(float_bits(mid) + 1);
        f[n++] = bits_float(float_bits(mid) - 1);
    }
    for (uint32_t p = 1; p < (1u << 23); p += 4099) {
        f[n++] = bits_float(0x7f800000u | p);
        f[n++] = bits_float(0xff800000u | p);
    }
    uint64_t x = 0x9e3779b97f4a7c15u;
    while (n < N) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f[n++] = bits_float((uint32_t)(x >> 16));
    }
    bc_half_from_float(hw, f, n, bc_half_hardware());
    bc_half_from_float_soft(sw, f, n);
    for (size_t i = 0; i < n; i++)
        if (hw[i] != sw[i])
            fail_msg("float 0x%08x (%.9g): half 0x%04x, the software conversion gives 0x%04x",
                     float_bits(f[i]), (double)f[i], hw[i], sw[i]);
}
#endif

/* ---- the model of an input's bytes ------------------------------------------ */

static size_t esize_of(bc_dtype t)
{
    return bc_dtype_size(t);
}

/* v stored in dtype t the obvious way (integers wrapped, floats through
 * double by the compiler); with nonzero, a 0 as stored becomes 1. */
static void model_store(bc_dtype t, unsigned char *p, int64_t v, int nonzero)
{
    uint64_t u = (uint64_t)v;
    switch (t) {
    case BC_BOOL: p[0] = v != 0; break;
    case BC_INT8:
    case BC_UINT8: p[0] = (unsigned char)u; if (nonzero && p[0] == 0) p[0] = 1; break;
    case BC_INT32: {
        uint32_t w = (uint32_t)u;
        if (nonzero && w == 0)
            w = 1;
        memcpy(p, &w, 4);
        break;
    }
    case BC_INT64:
        if (nonzero && u == 0)
            u = 1;
        memcpy(p, &u, 8);
        break;
    case BC_FLOAT32: {
        float x = (float)(double)v;
        if (nonzero && x == 0)
            x = 1;
        memcpy(p, &x, 4);
        break;
    }
#if BC_HAVE_FLOAT16
    case BC_FLOAT16: {
        _Float16 x = (_Float16)(double)v;
        if (nonzero && x == 0)
            x = 1;
        memcpy(p, &x, 2);
        break;
    }
#endif
    default: {
        double x = (double)v;
        if (nonzero && x == 0)
            x = 1;
        memcpy(p, &x, 8);
        break;
    }
    }
}

/* Version 2's definition written out (value.c, "version 2"): MurmurHash3's
 * fmix32 twice over the element's low 32 bits, keyed by splitmix64's output
 * function of the operand's key and the index's high 32 bits. */
static uint32_t model_fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static int64_t model_v2(uint64_t values, int k, int64_t j, bc_dtype t)
{
    bc_prng r;
    bc_prng_init(&r, values, 0x7a2u, (uint64_t)k);
    const uint64_t m = (uint64_t)j / 2;
    uint64_t z = r.s[0] + (m >> 32) * 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    const uint32_t c0 = (uint32_t)z, c1 = (uint32_t)(z >> 32);
    const uint32_t h = model_fmix32(model_fmix32((uint32_t)m * 0x9e3779b1u + c0) ^ c1);
    const uint32_t x = j % 2 == 0 ? h % 65536 : h / 65536; /* a pair's two halves */
    if (t == BC_BOOL)
        return x >= 32768;
    const int64_t v = (int64_t)((uint64_t)x * 19 / 65536);
    return t == BC_UINT8 ? v : v - 9;
}

/* Checks input k of a request against the model: every element of the
 * view, poison (-77, or 0 for bool) elsewhere in its buffer, guard poison
 * in its margin and in its pages before it.  version: how a nonzero
 * values seed makes the elements. */
static void check_input(const bc_tensor *in, uint64_t values, bc_values_version version, int k,
                        int nonzero, const char *line)
{
    const bc_dtype t = in->dtype;
    const size_t es = esize_of(t);
    int64_t lo = 0, hi = 0, numel = 1;
    for (int i = 0; i < in->rank; i++)
        numel *= in->dims[i];
    for (int i = 0; i < in->rank && numel > 0; i++) {
        int64_t span = (in->dims[i] - 1) * in->strides[i];
        lo += span < 0 ? span : 0;
        hi += span > 0 ? span : 0;
    }
    const int64_t total = in->offset + hi + 1; /* an empty view: its offset + 1 */
    assert_true(numel == 0 || in->offset + lo >= 0);
    unsigned char *base = in->data, want[8];
    static unsigned char seen[(size_t)1 << 24];
    assert_true(total <= (int64_t)sizeof seen);
    memset(seen, 0, (size_t)total);
    bc_prng r;
    bc_prng_init(&r, values, 0x7a1u, (uint64_t)k);
    int64_t idx[BC_MAX_RANK] = {0};
    for (int64_t j = 0; j < numel; j++) {
        int64_t off = in->offset;
        for (int i = 0; i < in->rank; i++)
            off += idx[i] * in->strides[i];
        int64_t v;
        if (values != 0 && version == BC_VALUES_V2)
            v = model_v2(values, k, j, t);
        else if (values != 0)
            v = t == BC_BOOL ? (int64_t)bc_prng_below(&r, 2)
                             : bc_prng_range(&r, t == BC_UINT8 ? 0 : -9, t == BC_UINT8 ? 18 : 9);
        else if (t == BC_BOOL)
            v = (j + k) % 3 != 0;
        else
            v = (int64_t)k * 97 + j + 1;
        model_store(t, want, v, nonzero);
        if (memcmp(base + off * (int64_t)es, want, es) != 0)
            fail_msg("%s: input %d, element %lld (offset %lld) differs from the model", line, k,
                     (long long)j, (long long)off);
        seen[off] = 1;
        for (int i = in->rank - 1; i >= 0; i--) {
            if (++idx[i] < in->dims[i])
                break;
            idx[i] = 0;
        }
    }
    model_store(t, want, t == BC_BOOL ? 0 : -77, 0);
    for (int64_t e = 0; e < total; e++)
        if (!seen[e] && memcmp(base + e * (int64_t)es, want, es) != 0)
            fail_msg("%s: input %d, gap element %lld is not poison", line, k, (long long)e);
    const unsigned char *end = base + total * (int64_t)es;
    for (int b = 0; b < BC_GUARD_MARGIN; b++)
        if (end[b] != BC_GUARD_POISON)
            fail_msg("%s: input %d, margin byte %d is 0x%02x", line, k, b, end[b]);
    const unsigned char *page = (const unsigned char *)((uintptr_t)base & ~(uintptr_t)4095);
    for (const unsigned char *p = page; p < base; p++)
        if (*p != BC_GUARD_POISON)
            fail_msg("%s: input %d, byte %lld before it is 0x%02x", line, k,
                     (long long)(p - base), *p);
}

/* Checks `cases` generated cases of a tier against the model; as_v1: with
 * their values= seeds read as version 1, as a line from before versions
 * (every medium line before them was) names its bytes. */
static void check_cases(bc_value_tier tier, int cases, int as_v1)
{
    bc_arena *a = bc_arena_new();
    assert_non_null(a);
    bc_sut_value_caps caps = {~0u, ~0u, ~0u, 8, 8, 0};
    bc_semantics sem;
    memset(&sem, 0, sizeof sem);
    static const bc_rule rules[] = {BC_RULE_NUMPY, BC_RULE_NONE, BC_RULE_BROADCAST_TO,
                                    BC_RULE_ONNX_UNI};
    int checked = 0, strided = 0, f16 = 0, divisors = 0, distinct = 0, v2 = 0;
    for (int i = 0; i < cases; i++) {
        bc_prng g;
        bc_prng_init(&g, 0x5eed, 0x7e57u + (uint64_t)tier, (uint64_t)i);
        bc_vector c;
        bc_value_gen_tier(&g, rules[i % 4], ~0u, &caps, &sem, i % 3 == 0, (int)tier, &c);
        if (as_v1)
            c.value.values_version = BC_VALUES_V1;
        char line[4096], why[256];
        bc_vector_format(&c, line, sizeof line);
        bc_arena_reset(a);
        bc_value_request vr;
        if (bc_value_request_build(&c, c.value.layout, a, &vr, why, sizeof why) != 0)
            continue; /* a case no tensor is made for */
        const bc_eval_request *q = &vr.req;
        for (int k = 0; k < q->ninputs; k++) {
            int nonzero = c.value.kind == BC_VALUE_ELEMENTWISE && c.value.op == BC_OP_DIV && k > 0;
            check_input(&q->inputs[k], c.value.values, c.value.values_version, k, nonzero, line);
            v2 += c.value.values_version == BC_VALUES_V2;
            strided += c.value.layout != 0;
            f16 += q->inputs[k].dtype == BC_FLOAT16;
            divisors += nonzero;
            distinct += c.value.values == 0;
        }
        /* the output: poison throughout, and its margin */
        const unsigned char *out = q->out;
        size_t bytes = (size_t)q->out_capacity * esize_of(q->out_dtype);
        for (size_t b = 0; b < bytes + BC_GUARD_OUTPUT_MARGIN; b++)
            if (out[b] != BC_GUARD_POISON)
                fail_msg("%s: output byte %zu is 0x%02x", line, b, out[b]);
        int buffer = 7;
        assert_false(bc_value_guard_broken(&vr, a, &buffer));
        assert_int_equal(buffer, -1);
        /* an answer's worth of junk, which the next case's buffers must not show */
        memset(q->out, 0x3c, bytes);
        for (int k = 0; k < q->ninputs; k++)
            memset(q->inputs[k].data, 0x3c, esize_of(q->inputs[k].dtype));
        /* and now and then a write before an input's data, at its pages'
         * start: found, named, and gone from the next case's buffers (the
         * pool re-poisons only what it knows was written) */
        const int k = q->ninputs > 0 ? i % q->ninputs : 0;
        unsigned char *data = q->ninputs > 0 ? q->inputs[k].data : NULL,
                      *first = (unsigned char *)((uintptr_t)data & ~(uintptr_t)4095);
        if (i % 7 == 0 && data && first < data) {
            *first = 0x3c;
            assert_int_equal(bc_value_guard_broken(&vr, a, &buffer), BC_VALUE_WROTE_BEFORE);
            assert_int_equal(buffer, k);
        }
        checked++;
    }
    print_message("%d cases checked: %d strided inputs, %d float16, %d divisors, %d values=0, "
                  "%d values=v2:\n",
                  checked, strided, f16, divisors, distinct, v2);
    assert_true(checked > cases / 2 && strided > 0 && divisors > 0 && distinct > 0);
    /* the small tier keeps version 1; the others make version 2 */
    assert_true(tier == BC_TIER_SMALL || as_v1 ? v2 == 0 : v2 > checked / 4);
#if BC_HAVE_FLOAT16
    assert_true(f16 > 0);
#endif
    bc_arena_free(a);
}

static void test_small_tier_inputs_are_the_model(void **state)
{
    (void)state;
    check_cases(BC_TIER_SMALL, 3000, 0);
}

static void test_medium_tier_inputs_are_the_model(void **state)
{
    (void)state;
    check_cases(BC_TIER_MEDIUM, 300, 0);
}

/* the medium lines reported before versions: their seeds still make
 * version 1's bytes */
static void test_medium_tier_v1_inputs_are_the_model(void **state)
{
    (void)state;
    check_cases(BC_TIER_MEDIUM, 150, 1);
}

/* A line's input 0, built as a check builds it, against the model of the
 * version `want` the line must mean. */
static void check_line(const char *line, bc_values_version want)
{
    bc_vector c;
    char why[256];
    assert_int_equal(bc_vector_parse(line, &c, why, sizeof why), 1);
    assert_int_equal(c.value.values_version, want);
    char back[512];
    bc_vector_format(&c, back, sizeof back);
    assert_string_equal(back, line); /* the replay line says its version again */
    bc_arena *a = bc_arena_new();
    assert_non_null(a);
    bc_value_request vr;
    assert_int_equal(bc_value_request_build(&c, c.value.layout, a, &vr, why, sizeof why), 0);
    for (int k = 0; k < vr.req.ninputs; k++)
        check_input(&vr.req.inputs[k], c.value.values, want, k, 0, line);
    bc_arena_free(a);
}

/* A line without a version marker is version 1 (every stored line:
 * manifests, certifications, corpora); values=v2:SEED is version 2; the
 * two make different bytes from one seed. */
static void test_replay_lines_keep_their_version(void **state)
{
    (void)state;
    check_line("numpy op=add dtype=int32 values=8064278129103566691 [3,5000] [5000] -> [3,5000]",
               BC_VALUES_V1);
    check_line("numpy op=add dtype=int32 values=v2:8064278129103566691 [3,5000] [5000] -> "
               "[3,5000]",
               BC_VALUES_V2);
    check_line("numpy op=where dtype=uint8 layout=7 values=v2:3 [2,1,1001] [1001] [2,1,1] -> "
               "[2,1,1001]",
               BC_VALUES_V2);
    check_line("numpy op=add dtype=float16 values=v2:99 [70000] [1] -> [70000]", BC_VALUES_V2);
    /* values 0 are the counting values in every version: one spelling */
    bc_vector c;
    char why[256], back[256];
    assert_int_equal(
        bc_vector_parse("none op=add dtype=int8 values=v2:0 [4] [4] -> [4]", &c, why, sizeof why),
        1);
    assert_int_equal(c.value.values_version, BC_VALUES_V1);
    bc_vector_format(&c, back, sizeof back);
    assert_string_equal(back, "none op=add dtype=int8 [4] [4] -> [4]");
    /* the two versions of one seed differ in most elements */
    int same = 0;
    for (int64_t j = 0; j < 1000; j++) {
        bc_prng r;
        bc_prng_init(&r, 12345, 0x7a1u, 0);
        for (int64_t i = 0; i < j; i++)
            bc_prng_next(&r);
        same += bc_prng_range(&r, -9, 9) == bc_value_v2(12345, 0, j, BC_INT32);
    }
    assert_true(same < 150); /* 1 in 19 alike by chance: about 53 */
}

/* A bad values= token is refused, naming the key, the column and what it
 * found. */
static void test_bad_values_token_refused(void **state)
{
    (void)state;
    static const struct {
        const char *line, *says;
    } bad[] = {
        {"numpy op=add values=v3:5 [2] [2] -> [2]", "'v3:5' names no version"},
        {"numpy op=add values=v2: [2] [2] -> [2]", "or v2:SEED, found 'v2:'"},
        {"numpy op=add values=v2:x [2] [2] -> [2]", "or v2:SEED, found 'v2:x'"},
        {"numpy op=add values=2:5 [2] [2] -> [2]", "or v2:SEED, found '2:5'"},
        {"numpy op=add values=v2:-1 [2] [2] -> [2]", "found 'v2:-1'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bc_vector c;
        char why[256] = "";
        assert_int_equal(bc_vector_parse(bad[i].line, &c, why, sizeof why), -1);
        if (!strstr(why, "column 14: values: ") || !strstr(why, bad[i].says))
            fail_msg("%s: refused with \"%s\"", bad[i].line, why);
    }
}

/* Version 2 by the block, portable and AVX2, equals its definition at
 * every start and length parity, and across the 2^32 boundary of the pair
 * index, where the hash's key changes (the huge tier's inputs reach it; no
 * test makes a tensor that large). */
static void test_v2_blocks_are_the_definition(void **state)
{
    (void)state;
    int64_t row[80];
    static const bc_dtype types[] = {BC_BOOL, BC_UINT8, BC_INT8, BC_FLOAT32};
    static const int64_t starts[] = {
        0, 1, 2, 1001, ((int64_t)1 << 33) - 37, ((int64_t)1 << 33) - 38, ((int64_t)1 << 35) + 3};
    const uint64_t key = bc_value_v2_key(77, 3);
    for (int avx2 = 0; avx2 <= bc_value_v2_avx2(); avx2++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++)
                for (int64_t n = 0; n <= 80; n += 1 + n / 8) {
                    const int64_t j0 = starts[s];
                    memset(row, 0x55, sizeof row);
                    bc_value_v2_block(key, types[t], j0, row, n, avx2);
                    for (int64_t i = 0; i < 80; i++) {
                        int64_t want =
                            i < n ? model_v2(77, 3, j0 + i, types[t]) : 0x5555555555555555;
                        if (row[i] != want ||
                            (i < n && row[i] != bc_value_v2(77, 3, j0 + i, types[t])))
                            fail_msg("%s, dtype %s, %lld from element %lld: row[%lld] is %lld, "
                                     "the definition gives %lld",
                                     avx2 ? "AVX2" : "portable", bc_dtype_name(types[t]),
                                     (long long)n, (long long)j0, (long long)i, (long long)row[i],
                                     (long long)want);
                    }
                }
    print_message("AVX2 copy %s\n", bc_value_v2_avx2() ? "checked" : "absent on this CPU");
}

/* A wild write past an output's last element still breaks its guard when
 * the slot it lands in held a larger buffer before. */
static void test_output_overrun_still_caught(void **state)
{
    (void)state;
    bc_arena *a = bc_arena_new();
    assert_non_null(a);
    bc_shape big = {1, {100000}}, small = {1, {1000}};
    bc_value_request vr;
    bc_params p;
    memset(&p, 0, sizeof p);
    for (int round = 0; round < 2; round++) {
        const bc_shape *s = round == 0 ? &big : &small;
        bc_arena_reset(a);
        assert_int_equal(bc_value_request_make(&vr, BC_VALUE_BROADCAST, BC_OP_ADD, &p, 1, s, 0, 0,
                                               vr.inputs, BC_INT32, s->dims[0], a),
                         0);
        int buffer;
        assert_false(bc_value_guard_broken(&vr, a, &buffer));
        memset(vr.req.out, 0, (size_t)s->dims[0] * 4); /* every element written */
        assert_false(bc_value_guard_broken(&vr, a, &buffer));
        ((unsigned char *)vr.req.out)[s->dims[0] * 4] = 0; /* one byte past */
        assert_int_equal(bc_value_guard_broken(&vr, a, &buffer), BC_VALUE_WROTE_PAST_END);
        assert_int_equal(buffer, -1);
        ((unsigned char *)vr.req.out)[s->dims[0] * 4] = BC_GUARD_POISON;
        ((unsigned char *)vr.req.out)[-1] = 0; /* one byte before: named so */
        assert_int_equal(bc_value_guard_broken(&vr, a, &buffer), BC_VALUE_WROTE_BEFORE);
    }
    bc_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#if BC_HAVE_FLOAT16
        cmocka_unit_test(test_every_half_to_float),
        cmocka_unit_test(test_floats_to_half),
#endif
        cmocka_unit_test(test_small_tier_inputs_are_the_model),
        cmocka_unit_test(test_medium_tier_inputs_are_the_model),
        cmocka_unit_test(test_medium_tier_v1_inputs_are_the_model),
        cmocka_unit_test(test_replay_lines_keep_their_version),
        cmocka_unit_test(test_bad_values_token_refused),
        cmocka_unit_test(test_v2_blocks_are_the_definition),
        cmocka_unit_test(test_output_overrun_still_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
