/* Hand confirmation of oneDNN finding 4 (docs/certifications/onednn.md):
 * a binary add whose two sources are column-major ([4,2], strides {1,4})
 * and whose dst is row-major, for each data type.
 *   cc onednn_layout_hand.c -ldnnl -o onednn_layout_hand && ./onednn_layout_hand */
#include <dnnl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void run(dnnl_engine_t eng, dnnl_stream_t st, dnnl_data_type_t t, const char *name)
{
    dnnl_dims_t dims = {4, 2}, colmajor = {1, 4};
    dnnl_memory_desc_t m0, m1, md;
    dnnl_memory_desc_init_by_strides(&m0, 2, dims, t, colmajor);
    dnnl_memory_desc_init_by_strides(&m1, 2, dims, t, colmajor);
    dnnl_memory_desc_init_by_tag(&md, 2, dims, t, dnnl_ab);
    dnnl_binary_desc_t bd;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t p;
    dnnl_binary_desc_init(&bd, dnnl_binary_add, &m0, &m1, &md);
    if (dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL) != dnnl_success) {
        printf("%-4s: no primitive\n", name);
        return;
    }
    const char *impl = "?";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    /* x[i][j] = 10*i + j and y[i][j] = 1 (so dst[i][j] = 10*i + j + 1),
     * stored column-major: element (i, j) at i + 4*j. */
    float xf[8], yf[8], zf[8];
    int8_t x8[8], y8[8], z8[8];
    int32_t x32[8], y32[8], z32[8];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            int v = 10 * i + j;
            xf[i + 4 * j] = (float)v, yf[i + 4 * j] = 1;
            x8[i + 4 * j] = (int8_t)v, y8[i + 4 * j] = 1;
            x32[i + 4 * j] = v, y32[i + 4 * j] = 1;
        }
    void *x = t == dnnl_f32 ? (void *)xf : t == dnnl_s32 ? (void *)x32 : (void *)x8;
    void *y = t == dnnl_f32 ? (void *)yf : t == dnnl_s32 ? (void *)y32 : (void *)y8;
    void *z = t == dnnl_f32 ? (void *)zf : t == dnnl_s32 ? (void *)z32 : (void *)z8;
    dnnl_memory_t a, b, c;
    dnnl_primitive_create(&p, pd);
    dnnl_memory_create(&a, &m0, eng, x);
    dnnl_memory_create(&b, &m1, eng, y);
    dnnl_memory_create(&c, &md, eng, z);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}, {DNNL_ARG_DST, c}};
    dnnl_primitive_execute(p, st, 3, args);
    dnnl_stream_wait(st);
    printf("%-4s (%s): dst row-major =", name, impl);
    for (int k = 0; k < 8; k++)
        printf(" %d", t == dnnl_f32 ? (int)zf[k] : t == dnnl_s32 ? z32[k] : (int)(t == dnnl_u8 ? ((uint8_t *)z8)[k] : z8[k]));
    printf("   (expected 1 2 11 12 21 22 31 32)\n");
}

int main(void)
{
    dnnl_engine_t eng;
    dnnl_stream_t st;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    run(eng, st, dnnl_f32, "f32");
    run(eng, st, dnnl_s32, "s32");
    run(eng, st, dnnl_s8, "s8");
    run(eng, st, dnnl_u8, "u8");
    return 0;
}
