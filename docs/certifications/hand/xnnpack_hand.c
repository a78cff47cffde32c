/* Hand confirmation of the XNNPACK findings (docs/certifications/xnnpack.md).
 *   cc xnnpack_hand.c -lXNNPACK -o xnnpack_hand && ./xnnpack_hand
 * (xnnpack.h needs pthreadpool.h: Debian libpthreadpool-dev.) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <xnnpack.h>

int main(void)
{
    xnn_initialize(NULL);
    xnn_operator_t op;
    size_t one[1] = {1};
    int8_t a8[1] = {100}, b8[1] = {100}, c8[1];
    xnn_create_add_nd_qs8(0, 1.f, 0, 1.f, 0, 1.f, INT8_MIN, INT8_MAX, 0, &op);
    xnn_setup_add_nd_qs8(op, 1, one, 1, one, a8, b8, c8, NULL);
    xnn_run_operator(op, NULL);
    printf("qs8 add 100+100 (scale 1, zero point 0): %d (wrapping: -56)\n", c8[0]);
    uint8_t au[1] = {3}, bu[1] = {5}, cu[1];
    xnn_create_subtract_nd_qu8(0, 1.f, 0, 1.f, 0, 1.f, 0, UINT8_MAX, 0, &op);
    xnn_setup_subtract_nd_qu8(op, 1, one, 1, one, au, bu, cu, NULL);
    xnn_run_operator(op, NULL);
    printf("qu8 subtract 3-5: %u (wrapping: 254)\n", cu[0]);
    uint8_t am[1] = {19}, bm[1] = {18}, cm[1];
    xnn_create_multiply_nd_qu8(0, 1.f, 0, 1.f, 0, 1.f, 0, UINT8_MAX, 0, &op);
    xnn_setup_multiply_nd_qu8(op, 1, one, 1, one, am, bm, cm, NULL);
    xnn_run_operator(op, NULL);
    printf("qu8 multiply 19*18: %u (wrapping: 86)\n", cm[0]);
    /* f32: NumPy broadcasting in setup, 0 stretched from 1, refusals. */
    float x[3] = {1, 2, 3}, y[3] = {10, 20, 30}, z[9] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
    size_t s21[2] = {3, 1}, s3[1] = {3}, s0[1] = {0}, s2[1] = {2}, s7[7] = {1, 1, 1, 1, 1, 1, 3};
    xnn_create_add_nd_f32(-INFINITY, INFINITY, 0, &op);
    enum xnn_status s = xnn_setup_add_nd_f32(op, 2, s21, 1, s3, x, y, z, NULL);
    xnn_run_operator(op, NULL);
    printf("f32 [3,1]+[3]: status %d -> %g %g %g / %g %g %g / %g %g %g\n", s, z[0], z[1], z[2],
           z[3], z[4], z[5], z[6], z[7], z[8]);
    printf("f32 [0]+[1]: status %d;  [0]+[2]: status %d (2 = invalid_parameter)\n",
           xnn_setup_add_nd_f32(op, 1, s0, 1, one, x, y, z, NULL),
           xnn_setup_add_nd_f32(op, 1, s0, 1, s2, x, y, z, NULL));
    printf("f32 rank 7: status %d (4 = unsupported_parameter; XNN_MAX_TENSOR_DIMS %d)\n",
           xnn_setup_add_nd_f32(op, 7, s7, 1, s3, x, y, z, NULL), XNN_MAX_TENSOR_DIMS);
    return 0;
}
