/* Hand confirmation of the oneDNN findings (docs/certifications/onednn.md).
 *   cc onednn_hand.c -ldnnl -o onednn_hand && ./onednn_hand
 * One f32/s32/s8/u8 binary primitive per line, 1-D, on the CPU engine. */
#include <dnnl.h>
#include <stdint.h>
#include <stdio.h>

static dnnl_engine_t eng;
static dnnl_stream_t st;

/* dst = src0 (alg) src1, dims d0 (src0/dst) and d1 (src1), type t; returns
 * the status of the first failing call, or runs it. */
static int binary(dnnl_alg_kind_t alg, dnnl_data_type_t t, int nd, const dnnl_dims_t d0,
                  const dnnl_dims_t d1, void *x, void *y, void *z)
{
    dnnl_memory_desc_t m0, m1, md;
    dnnl_binary_desc_t bd;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t p;
    dnnl_memory_t a, b, c;
    dnnl_format_tag_t tag = nd == 1 ? dnnl_a : dnnl_ab;
    int s;
    if ((s = dnnl_memory_desc_init_by_tag(&m0, nd, d0, t, tag)) ||
        (s = dnnl_memory_desc_init_by_tag(&m1, nd, d1, t, tag)) ||
        (s = dnnl_memory_desc_init_by_tag(&md, nd, d0, t, tag)))
        return 100 + s;
    if ((s = dnnl_binary_desc_init(&bd, alg, &m0, &m1, &md)))
        return 200 + s;
    if ((s = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL)))
        return 300 + s;
    dnnl_primitive_create(&p, pd);
    dnnl_memory_create(&a, &m0, eng, x);
    dnnl_memory_create(&b, &m1, eng, y);
    dnnl_memory_create(&c, &md, eng, z);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}, {DNNL_ARG_DST, c}};
    dnnl_primitive_execute(p, st, 3, args);
    dnnl_stream_wait(st);
    return 0;
}

int main(void)
{
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    dnnl_dims_t one = {1}, three = {3};
    int32_t x32[3] = {5, -5, 7}, y32[3] = {9, 9, 2}, z32[3];
    int s = binary(dnnl_binary_div, dnnl_s32, 1, three, three, x32, y32, z32);
    printf("s32 div {5,-5,7}/{9,9,2}: status %d -> {%d,%d,%d} (truncation: {0,0,3})\n", s,
           z32[0], z32[1], z32[2]);
    int8_t x8[1] = {100}, y8[1] = {100}, z8[1];
    s = binary(dnnl_binary_add, dnnl_s8, 1, one, one, x8, y8, z8);
    printf("s8 add 100+100: status %d -> %d (wrapping: -56)\n", s, z8[0]);
    uint8_t xu[1] = {3}, yu[1] = {5}, zu[1];
    s = binary(dnnl_binary_sub, dnnl_u8, 1, one, one, xu, yu, zu);
    printf("u8 sub 3-5: status %d -> %u (wrapping: 254)\n", s, zu[0]);
    /* The medium tier's s32 mul: 5745 * 5842 = 33562290, above 2^25, where
     * f32 holds multiples of 4 only. */
    int32_t xm[3] = {5745, 4097, 16777217}, ym[3] = {5842, 4097, 1}, zm[3];
    s = binary(dnnl_binary_mul, dnnl_s32, 1, three, three, xm, ym, zm);
    printf("s32 mul {5745,4097,16777217}*{5842,4097,1}: status %d -> {%d,%d,%d} (exact: {33562290,16785409,16777217})\n",
           s, zm[0], zm[1], zm[2]);
    int32_t xa[1] = {16777216}, ya[1] = {1}, za[1];
    s = binary(dnnl_binary_add, dnnl_s32, 1, one, one, xa, ya, za);
    printf("s32 add 16777216+1: status %d -> %d (exact: 16777217)\n", s, za[0]);
    /* onnx-uni [] [1]: no 0-d memory descriptor exists, a scalar is [1]. */
    dnnl_memory_desc_t m;
    s = dnnl_memory_desc_init_by_tag(&m, 0, one, dnnl_f32, dnnl_a);
    printf("ndims 0 memory descriptor: status %d, ndims %d, data type %d (0 = undef)\n", s,
           m.ndims, (int)m.data_type);
    {
        dnnl_binary_desc_t bd;
        dnnl_primitive_desc_t pd;
        int d = dnnl_binary_desc_init(&bd, dnnl_binary_add, &m, &m, &m);
        int p = d ? -1 : dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL);
        printf("binary on ndims-0 descriptors: desc %d, primitive desc %d (the zero md: no element)\n",
               d, p);
    }
    float f1[1] = {1}, f2[1] = {2}, f3[1];
    s = binary(dnnl_binary_add, dnnl_f32, 1, one, one, f1, f2, f3);
    printf("src0 [1] (the scalar) + src1 [1]: status %d (0: accepted)\n", s);
    /* src0 cannot broadcast (why rule numpy is not declared). */
    dnnl_dims_t a13 = {1, 3}, a23 = {2, 3};
    float g[6] = {0};
    s = binary(dnnl_binary_add, dnnl_f32, 2, a13, a23, g, g, g);
    printf("src0 [1,3] + src1 [2,3]: status %d (2xx: dnnl_binary_desc_init refuses)\n", s);
    /* Negative strides. */
    dnnl_dims_t st3 = {-1};
    s = dnnl_memory_desc_init_by_strides(&m, 1, three, dnnl_f32, st3);
    printf("strides {-1}: status %d (2: invalid_arguments)\n", s);
    return 0;
}
