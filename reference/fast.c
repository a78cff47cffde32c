/*
 * The fast evaluator: the plan (plan.c) walked by specialised kernels.
 *
 * The plan leaves n axes.  The two innermost are handed to a kernel as one
 * 2-D block (so a short inner axis, rank 8 with extent 8, still gives the
 * kernel 64 or more elements per call); the outer ones are an odometer.  A
 * kernel's inner loop is specialised, by plain C loops the compiler
 * vectorises, for the cases that matter:
 *
 *   all contiguous                   out[i] = a[i] op b[i]
 *   contiguous with a stride-0 b     out[i] = a[i] op y
 *   a stride-0 a with contiguous b   out[i] = x op b[i]
 *   anything else                    byte strides
 *
 * An input that walks memory across rows rather than along them (a
 * transposed view) makes the driver tile the two inner axes, so that the
 * cache lines it reads are used by TILE rows before they are evicted.
 *
 * Values come from scalar.h, the same functions the naive evaluator calls;
 * only the order of visits differs, and nothing here depends on it (sums
 * keep row-major order, see sum_kernel).  Inputs and output are not
 * `restrict`: an output may be an input (same view), the compiler checks
 * overlap at run time before using vector code.
 */
#include <string.h>

#include "engine.h"
#include "scalar.h"

/* A kernel walks n1 rows of n0 elements; p[j] is operand j's first
 * element, s1[j] and s0[j] its byte strides between rows and elements
 * (operand 0 is the output). */
typedef void (*kernel_fn)(int64_t n1, int64_t n0, char *const *p, const int64_t *s1,
                          const int64_t *s0, const void *aux);

/* Tile of the two inner axes for transposed inputs: rows x columns. */
enum { TILE_ROWS = 32, TILE_COLS = 64 };

/* ---- binary kernels -------------------------------------------------- */

#define BINARY_KERNEL(OPE, N, T, NAME, OT)                                             \
    static inline void row_##N##_##NAME(int64_t n, char *o, int64_t so, const char *a, \
                                        int64_t sa, const char *b, int64_t sb)         \
    {                                                                                  \
        if (so == (int64_t)sizeof(OT)) {                                               \
            OT *po = (OT *)o;                                                          \
            if (sa == (int64_t)sizeof(T) && sb == (int64_t)sizeof(T)) {                \
                const T *pa = (const T *)a, *pb = (const T *)b;                        \
                for (int64_t i = 0; i < n; i++)                                        \
                    po[i] = N##_##NAME(pa[i], pb[i]);                                  \
                return;                                                                \
            }                                                                          \
            if (sa == (int64_t)sizeof(T) && sb == 0) {                                 \
                const T *pa = (const T *)a, y = *(const T *)b;                         \
                for (int64_t i = 0; i < n; i++)                                        \
                    po[i] = N##_##NAME(pa[i], y);                                      \
                return;                                                                \
            }                                                                          \
            if (sa == 0 && sb == (int64_t)sizeof(T)) {                                 \
                const T x = *(const T *)a, *pb = (const T *)b;                         \
                for (int64_t i = 0; i < n; i++)                                        \
                    po[i] = N##_##NAME(x, pb[i]);                                      \
                return;                                                                \
            }                                                                          \
        }                                                                              \
        for (int64_t i = 0; i < n; i++)                                                \
            *(OT *)(o + i * so) = N##_##NAME(*(const T *)(a + i * sa),                 \
                                             *(const T *)(b + i * sb));                \
    }                                                                                  \
    static void k_##N##_##NAME(int64_t n1, int64_t n0, char *const *p, const int64_t *s1, \
                               const int64_t *s0, const void *aux)                     \
    {                                                                                  \
        (void)aux;                                                                     \
        char *o = p[0];                                                                \
        const char *a = p[1], *b = p[2];                                               \
        for (int64_t i = 0; i < n1; i++, o += s1[0], a += s1[1], b += s1[2])           \
            row_##N##_##NAME(n0, o, s0[0], a, s0[1], b, s0[2]);                        \
    }
#define BINARY_KERNELS(DT, N, T) BC_FOR_EACH_OP(BINARY_KERNEL, N, T)
BC_FOR_EACH_DTYPE(BINARY_KERNELS)

#define ROW_ENTRY(OPE, N, T, NAME, OT) [OPE] = row_##N##_##NAME,
#define KERNEL_ENTRY(OPE, N, T, NAME, OT) [OPE] = k_##N##_##NAME,
#define ROW_TABLE(DT, N, T) [DT] = {BC_FOR_EACH_OP(ROW_ENTRY, N, T)},
#define KERNEL_TABLE(DT, N, T) [DT] = {BC_FOR_EACH_OP(KERNEL_ENTRY, N, T)},

typedef void (*row_fn)(int64_t n, char *o, int64_t so, const char *a, int64_t sa,
                       const char *b, int64_t sb);
static const row_fn binary_rows[BC_DTYPE_COUNT][BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_DTYPE(ROW_TABLE)};
static const kernel_fn binary_kernels[BC_DTYPE_COUNT][BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_DTYPE(KERNEL_TABLE)};

/* ---- copy (broadcast materialisation), by element size ---------------- */

#define COPY_KERNEL(BITS)                                                              \
    static void copy##BITS(int64_t n1, int64_t n0, char *const *p, const int64_t *s1,  \
                           const int64_t *s0, const void *aux)                         \
    {                                                                                  \
        (void)aux;                                                                     \
        typedef uint##BITS##_t E;                                                      \
        char *o = p[0];                                                                \
        const char *a = p[1];                                                          \
        const int64_t so = s0[0], sa = s0[1];                                          \
        for (int64_t i = 0; i < n1; i++, o += s1[0], a += s1[1]) {                     \
            if (so == (int64_t)sizeof(E) && sa == (int64_t)sizeof(E)) {                \
                memmove(o, a, (size_t)n0 * sizeof(E));                                 \
            } else if (so == (int64_t)sizeof(E) && sa == 0) {                          \
                E v = *(const E *)a, *po = (E *)o;                                     \
                for (int64_t j = 0; j < n0; j++)                                       \
                    po[j] = v;                                                         \
            } else {                                                                   \
                for (int64_t j = 0; j < n0; j++)                                       \
                    *(E *)(o + j * so) = *(const E *)(a + j * sa);                     \
            }                                                                          \
        }                                                                              \
    }
COPY_KERNEL(8)
COPY_KERNEL(16)
COPY_KERNEL(32)
COPY_KERNEL(64)

static kernel_fn copy_kernel(size_t size)
{
    return size == 1 ? copy8 : size == 2 ? copy16 : size == 4 ? copy32 : copy64;
}

/* ---- select, by element size ------------------------------------------ */

#define SELECT_KERNEL(BITS)                                                            \
    static void select##BITS(int64_t n1, int64_t n0, char *const *p, const int64_t *s1, \
                             const int64_t *s0, const void *aux)                       \
    {                                                                                  \
        (void)aux;                                                                     \
        typedef uint##BITS##_t E;                                                      \
        char *o = p[0];                                                                \
        const char *c = p[1], *a = p[2], *b = p[3];                                    \
        const int64_t so = s0[0], sc = s0[1], sa = s0[2], sb = s0[3];                  \
        for (int64_t i = 0; i < n1; i++, o += s1[0], c += s1[1], a += s1[2], b += s1[3]) { \
            if (so == (int64_t)sizeof(E) && sc == 1 && sa == (int64_t)sizeof(E) &&     \
                sb == (int64_t)sizeof(E)) {                                            \
                E *po = (E *)o;                                                        \
                const uint8_t *pc = (const uint8_t *)c;                                \
                const E *pa = (const E *)a, *pb = (const E *)b;                        \
                for (int64_t j = 0; j < n0; j++)                                       \
                    po[j] = pc[j] ? pa[j] : pb[j];                                     \
            } else {                                                                   \
                for (int64_t j = 0; j < n0; j++)                                       \
                    *(E *)(o + j * so) = *(const uint8_t *)(c + j * sc)                \
                                             ? *(const E *)(a + j * sa)                \
                                             : *(const E *)(b + j * sb);               \
            }                                                                          \
        }                                                                              \
    }
SELECT_KERNEL(8)
SELECT_KERNEL(16)
SELECT_KERNEL(32)
SELECT_KERNEL(64)

static kernel_fn select_kernel(size_t size)
{
    return size == 1 ? select8 : size == 2 ? select16 : size == 4 ? select32 : select64;
}

/* ---- sum to shape ------------------------------------------------------ */

/* out[i] = out[i] + g[i], rows in order: with out's inner stride 0 the row
 * is one running sum, added left to right (no reassociation: the same
 * order as the naive evaluator's). */
#define SUM_KERNEL(DT, N, T)                                                           \
    static void sum_##N(int64_t n1, int64_t n0, char *const *p, const int64_t *s1,     \
                        const int64_t *s0, const void *aux)                            \
    {                                                                                  \
        (void)aux;                                                                     \
        char *o = p[0];                                                                \
        const char *g = p[1];                                                          \
        const int64_t so = s0[0], sg = s0[1];                                          \
        for (int64_t i = 0; i < n1; i++, o += s1[0], g += s1[1]) {                     \
            if (so == 0) {                                                             \
                T acc = *(T *)o;                                                       \
                for (int64_t j = 0; j < n0; j++)                                       \
                    acc = N##_add(acc, *(const T *)(g + j * sg));                      \
                *(T *)o = acc;                                                         \
            } else if (so == (int64_t)sizeof(T) && sg == (int64_t)sizeof(T)) {         \
                T *po = (T *)o;                                                        \
                const T *pg = (const T *)g;                                            \
                for (int64_t j = 0; j < n0; j++)                                       \
                    po[j] = N##_add(po[j], pg[j]);                                     \
            } else {                                                                   \
                for (int64_t j = 0; j < n0; j++)                                       \
                    *(T *)(o + j * so) = N##_add(*(T *)(o + j * so),                   \
                                                 *(const T *)(g + j * sg));            \
            }                                                                          \
        }                                                                              \
    }                                                                                  \
    static void sum_init_##N(char *v) { T x = N##_sum_init(); memcpy(v, &x, sizeof x); }
BC_FOR_EACH_DTYPE(SUM_KERNEL)

#define SUM_ENTRY(DT, N, T) [DT] = sum_##N,
#define SUM_INIT_ENTRY(DT, N, T) [DT] = sum_init_##N,
static const kernel_fn sum_kernels[BC_DTYPE_COUNT] = {BC_FOR_EACH_DTYPE(SUM_ENTRY)};
static void (*const sum_inits[BC_DTYPE_COUNT])(char *) = {BC_FOR_EACH_DTYPE(SUM_INIT_ENTRY)};

/* ---- n-ary: a left fold, a chunk of a row at a time ------------------- */

enum { CHUNK = 512 };

typedef struct nary_aux {
    row_fn row;
    size_t size;
    int nin;
} nary_aux;

static void nary_kernel(int64_t n1, int64_t n0, char *const *p, const int64_t *s1,
                        const int64_t *s0, const void *aux_)
{
    const nary_aux *aux = aux_;
    const int nin = aux->nin;
    union { int64_t i; double d; char c[CHUNK * 8]; } tmp;
    const int64_t sz = (int64_t)aux->size;
    for (int64_t i = 0; i < n1; i++) {
        for (int64_t j0 = 0; j0 < n0; j0 += CHUNK) {
            int64_t n = n0 - j0 < CHUNK ? n0 - j0 : CHUNK;
            const char *in0 = p[1] + i * s1[1] + j0 * s0[1];
            const char *in1 = p[2] + i * s1[2] + j0 * s0[2];
            aux->row(n, tmp.c, sz, in0, s0[1], in1, s0[2]);
            for (int k = 3; k <= nin; k++)
                aux->row(n, tmp.c, sz, tmp.c, sz, p[k] + i * s1[k] + j0 * s0[k], s0[k]);
            char *o = p[0] + i * s1[0] + j0 * s0[0];
            for (int64_t j = 0; j < n; j++)
                memcpy(o + j * s0[0], tmp.c + j * sz, (size_t)sz);
        }
    }
}

/* ---- the driver -------------------------------------------------------- */

/* 1 if some input reads across rows rather than along them: its inner
 * stride is neither 0 nor one element while it is one element between
 * rows (a transposed view). */
static int wants_tiles(const bc_plan *pl, const int64_t *size)
{
    if (pl->rank < 2 || pl->dims[pl->rank - 1] < 2 * TILE_COLS ||
        pl->dims[pl->rank - 2] < 2 * TILE_ROWS)
        return 0;
    for (int j = 1; j < pl->nops; j++) {
        int64_t s0 = pl->strides[j][pl->rank - 1], s1 = pl->strides[j][pl->rank - 2];
        if (s0 < 0)
            s0 = -s0;
        if (s1 < 0)
            s1 = -s1;
        if (s0 != 0 && s0 != size[j] && s1 < s0)
            return 1;
    }
    return 0;
}

static void run_plan(const bc_plan *pl, kernel_fn fn, const void *aux, const int64_t *size,
                     int tile)
{
    const int R = pl->rank, nops = pl->nops;
    int64_t s1[BC_PLAN_MAX_OPS], s0[BC_PLAN_MAX_OPS], idx[BC_MAX_RANK];
    char *p[BC_PLAN_MAX_OPS];
    int64_t n1 = 1, n0 = 1;
    for (int j = 0; j < nops; j++) {
        p[j] = pl->base[j];
        s0[j] = R >= 1 ? pl->strides[j][R - 1] : 0;
        s1[j] = R >= 2 ? pl->strides[j][R - 2] : 0;
    }
    for (int k = 0; k < R - 2; k++)
        idx[k] = 0;
    if (R >= 1)
        n0 = pl->dims[R - 1];
    if (R >= 2)
        n1 = pl->dims[R - 2];
    tile = tile && wants_tiles(pl, size);
    for (;;) {
        if (!tile) {
            fn(n1, n0, p, s1, s0, aux);
        } else {
            for (int64_t i0 = 0; i0 < n1; i0 += TILE_ROWS) {
                for (int64_t j0 = 0; j0 < n0; j0 += TILE_COLS) {
                    char *q[BC_PLAN_MAX_OPS];
                    for (int j = 0; j < nops; j++)
                        q[j] = p[j] + i0 * s1[j] + j0 * s0[j];
                    fn(n1 - i0 < TILE_ROWS ? n1 - i0 : TILE_ROWS,
                       n0 - j0 < TILE_COLS ? n0 - j0 : TILE_COLS, q, s1, s0, aux);
                }
            }
        }
        /* the odometer over the outer axes 0 .. R-3 */
        int k = R - 3;
        for (; k >= 0; k--) {
            if (++idx[k] < pl->dims[k]) {
                for (int j = 0; j < nops; j++)
                    p[j] += pl->strides[j][k];
                break;
            }
            idx[k] = 0;
            for (int j = 0; j < nops; j++)
                p[j] -= pl->strides[j][k] * (pl->dims[k] - 1);
        }
        if (k < 0)
            return;
    }
}

/* Fills every element of `out` with the bytes at `value`. */
static void fill(const bc_tensor *out, const char *value)
{
    bc_plan pl;
    bc_shape s = bc_tensor_shape(out);
    int64_t zero[BC_MAX_RANK] = {0}, size[2], n;
    if (bc_shape_numel(&s, &n) != BC_OK || n == 0)
        return; /* nothing to fill (the front end checked the count) */
    bc_tensor src = *out;
    src.data = (void *)value;
    src.offset = 0;
    size[0] = size[1] = (int64_t)bc_dtype_size(out->dtype);
    bc_plan_begin(&pl, &s);
    bc_plan_add(&pl, out, out->strides);
    bc_plan_add(&pl, &src, zero);
    bc_plan_finish(&pl, 1);
    run_plan(&pl, copy_kernel((size_t)size[0]), NULL, size, 0);
}

void bc_fast_run(const bc_job *job)
{
    bc_plan pl;
    int64_t frame[BC_MAX_RANK], size[BC_PLAN_MAX_OPS];
    const bc_tensor *out = job->out;
    const int R = job->result.rank;

    if (job->kind == BC_JOB_SUM) {
        union { int64_t i; double d; char c[8]; } v = {0};
        if (job->numel == 0) { /* no terms: +0 (v is all zero bits) */
            fill(out, v.c);
            return;
        }
        sum_inits[job->dtype](v.c);
        fill(out, v.c);
        /* Over the gradient's index space, in row-major order (no reordering,
         * no tiles): out, with stride 0 on the summed axes, then grad. */
        bc_plan_begin(&pl, &job->result);
        bc_plan_frame(&job->params, job->shapes, job->operand[0], out, R, frame);
        bc_plan_add(&pl, out, frame);
        bc_plan_add(&pl, job->in[0], job->in[0]->strides);
        bc_plan_finish(&pl, 0);
        size[0] = size[1] = (int64_t)bc_dtype_size(job->dtype);
        run_plan(&pl, sum_kernels[job->dtype], NULL, size, 0);
        return;
    }
    if (job->numel == 0)
        return; /* a size-0 output reads nothing */

    bc_plan_begin(&pl, &job->result);
    bc_plan_add(&pl, out, out->strides);
    size[0] = (int64_t)bc_dtype_size(out->dtype);
    for (int i = 0; i < job->nin; i++) {
        bc_plan_frame(&job->params, job->shapes, job->operand[i], job->in[i], R, frame);
        bc_plan_add(&pl, job->in[i], frame);
        size[i + 1] = (int64_t)bc_dtype_size(job->in[i]->dtype);
    }
    bc_plan_finish(&pl, 1);

    switch (job->kind) {
    case BC_JOB_ELEMENTWISE:
        if (job->nin == 1) {
            run_plan(&pl, copy_kernel((size_t)size[0]), NULL, size, 1);
        } else if (job->nin == 2) {
            run_plan(&pl, binary_kernels[job->dtype][job->op], NULL, size, 1);
        } else {
            nary_aux aux = {binary_rows[job->dtype][job->op], (size_t)size[1], job->nin};
            run_plan(&pl, nary_kernel, &aux, size, 0);
        }
        return;
    case BC_JOB_SELECT:
        run_plan(&pl, select_kernel((size_t)size[0]), NULL, size, 1);
        return;
    default: /* BC_JOB_BROADCAST */
        run_plan(&pl, copy_kernel((size_t)size[0]), NULL, size, 1);
        return;
    }
}
