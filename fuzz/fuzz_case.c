/*
 * The reference rules on cases made from the fuzzer's bytes, checked
 * against identities spec/RULES.md implies (the same ones the metamorphic
 * properties check on a SUT, here on bc_infer itself):
 *
 *   numpy:         any reordering of the operands gives the same answer;
 *                  adding a scalar operand changes nothing; an accepted
 *                  result has the largest operand rank
 *   none:          accepted exactly when every shape is the same valid one
 *   onnx-uni:      accepted gives A, and numpy(A, B) accepts with A
 *   broadcast-to:  accepted gives the target, and numpy(input, target) too
 *   bidirectional: the same answer as numpy(input, target), either way round
 *   all of them:   1s prepended to every operand only prepend 1s to the
 *                  result; an error's message starts with its kind's name
 */
#include <string.h>

#include "broadcheck/shape.h"
#include "fuzz.h"

/* Reads the fuzzer's bytes one at a time; 0 once they run out. */
typedef struct bytes {
    const uint8_t *data;
    size_t size, at;
} bytes;

static unsigned next(bytes *b)
{
    return b->at < b->size ? b->data[b->at++] : 0;
}

/* A dim: mostly small (where broadcasting happens), sometimes an edge. */
static int64_t next_dim(bytes *b)
{
    static const int64_t edges[] = {
        0, 1, INT64_MAX, INT64_MAX - 1, (int64_t)1 << 32, ((int64_t)1 << 32) + 1, -1, INT64_MIN};
    unsigned x = next(b);
    if (x < 200)
        return x % 5; /* 0..4 */
    if (x < 240)
        return (int64_t)(x - 200) * 3;
    return edges[x % (sizeof edges / sizeof *edges)];
}

static void next_shape(bytes *b, bc_shape *s)
{
    unsigned x = next(b);
    s->rank = x < 240 ? (int)(x % 6) : BC_MAX_RANK - (int)(x % 3);
    for (int k = 0; k < s->rank; k++)
        s->dims[k] = next_dim(b);
}

typedef struct answer {
    bc_error_kind kind;
    bc_shape shape;
} answer;

static answer infer(bc_rule rule, int n, const bc_shape *shapes)
{
    bc_params p = bc_params_for(rule);
    answer a;
    bc_error err;
    memset(&err, 0, sizeof err);
    a.kind = bc_infer(&p, n, shapes, &a.shape, &err);
    if (a.kind == BC_OK) {
        BC_FUZZ_CHECK(a.shape.rank >= 0 && a.shape.rank <= BC_MAX_RANK, "%s: rank %d",
                      bc_rule_name(rule), a.shape.rank);
    } else {
        const char *name = bc_error_kind_name(a.kind);
        BC_FUZZ_CHECK(strncmp(err.message, name, strlen(name)) == 0 && err.kind == a.kind,
                      "%s: kind %s but message '%s'", bc_rule_name(rule), name, err.message);
    }
    return a;
}

static int accepted(const answer *a)
{
    return a->kind == BC_OK;
}

/* Both accept with the same shape, or both reject. */
static int agree(const answer *a, const answer *b)
{
    if (accepted(a) != accepted(b))
        return 0;
    return !accepted(a) || bc_shape_equal(&a->shape, &b->shape);
}

static const char *show(const answer *a, char *buf, size_t cap)
{
    if (accepted(a))
        bc_shape_format(&a->shape, buf, cap);
    else
        snprintf(buf, cap, "error:%s", bc_error_kind_name(a->kind));
    return buf;
}

#define AGREE(a, b, what)                                                                          \
    do {                                                                                           \
        char sa_[BC_MAX_RANK * 22 + 3], sb_[BC_MAX_RANK * 22 + 3];                                 \
        BC_FUZZ_CHECK(agree(&(a), &(b)), "%s: %s vs %s", what, show(&(a), sa_, sizeof sa_),        \
                      show(&(b), sb_, sizeof sb_));                                                \
    } while (0)

static int has_negative(int n, const bc_shape *shapes)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < shapes[i].rank; k++)
            if (shapes[i].dims[k] < 0)
                return 1;
    return 0;
}

static void check_numpy(int n, const bc_shape *shapes, const answer *base)
{
    static bc_shape other[BC_MAX_OPERANDS];
    /* reversed, then rotated by one */
    for (int i = 0; i < n; i++)
        other[i] = shapes[n - 1 - i];
    answer a = infer(BC_RULE_NUMPY, n, other);
    AGREE(*base, a, "numpy, operands reversed");
    for (int i = 0; i < n; i++)
        other[i] = shapes[(i + 1) % n];
    a = infer(BC_RULE_NUMPY, n, other);
    AGREE(*base, a, "numpy, operands rotated");
    if (n < BC_MAX_OPERANDS) {
        memcpy(other, shapes, (size_t)n * sizeof *other);
        other[n].rank = 0;
        a = infer(BC_RULE_NUMPY, n + 1, other);
        AGREE(*base, a, "numpy, a scalar operand added");
    }
    if (accepted(base)) {
        int max_rank = 0;
        for (int i = 0; i < n; i++)
            max_rank = shapes[i].rank > max_rank ? shapes[i].rank : max_rank;
        BC_FUZZ_CHECK(base->shape.rank == max_rank, "numpy: result rank %d, largest operand %d",
                      base->shape.rank, max_rank);
    }
}

static void check_none(int n, const bc_shape *shapes, const answer *base)
{
    int equal = 1;
    for (int i = 1; i < n; i++)
        equal &= bc_shape_equal(&shapes[0], &shapes[i]);
    BC_FUZZ_CHECK(accepted(base) == (equal && !has_negative(n, shapes)),
                  "none: accepted %d, shapes equal %d", accepted(base), equal);
    if (accepted(base))
        BC_FUZZ_CHECK(bc_shape_equal(&base->shape, &shapes[0]), "none: not the common shape");
}

static void check_binary(bc_rule rule, const bc_shape *shapes, const answer *base)
{
    answer np = infer(BC_RULE_NUMPY, 2, shapes);
    if (rule == BC_RULE_BIDIRECTIONAL) {
        AGREE(*base, np, "bidirectional vs numpy");
        bc_shape swapped[2] = {shapes[1], shapes[0]};
        answer b = infer(BC_RULE_BIDIRECTIONAL, 2, swapped);
        AGREE(*base, b, "bidirectional, input and target swapped");
        return;
    }
    if (!accepted(base))
        return;
    /* onnx-uni gives A; broadcast-to gives the target: numpy must agree */
    const bc_shape *want = rule == BC_RULE_ONNX_UNI ? &shapes[0] : &shapes[1];
    BC_FUZZ_CHECK(bc_shape_equal(&base->shape, want), "%s: not %s", bc_rule_name(rule),
                  rule == BC_RULE_ONNX_UNI ? "A" : "the target");
    BC_FUZZ_CHECK(accepted(&np) && bc_shape_equal(&np.shape, want),
                  "%s accepts but numpy gives another answer", bc_rule_name(rule));
}

static void check_prepend_ones(bc_rule rule, int n, const bc_shape *shapes, const answer *base,
                               int count)
{
    static bc_shape more[BC_MAX_OPERANDS];
    int max_rank = 0;
    for (int i = 0; i < n; i++)
        max_rank = shapes[i].rank > max_rank ? shapes[i].rank : max_rank;
    if (max_rank + count > BC_MAX_RANK)
        return;
    for (int i = 0; i < n; i++) {
        more[i].rank = shapes[i].rank + count;
        for (int k = 0; k < count; k++)
            more[i].dims[k] = 1;
        memcpy(&more[i].dims[count], shapes[i].dims, (size_t)shapes[i].rank * sizeof(int64_t));
    }
    answer want = *base, got = infer(rule, n, more);
    if (accepted(&want)) {
        memmove(&want.shape.dims[count], want.shape.dims,
                (size_t)want.shape.rank * sizeof(int64_t));
        for (int k = 0; k < count; k++)
            want.shape.dims[k] = 1;
        want.shape.rank += count;
    }
    AGREE(want, got, "1s prepended to every operand");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const bc_rule rules[] = {BC_RULE_NONE, BC_RULE_NUMPY, BC_RULE_ONNX_UNI,
                                    BC_RULE_BROADCAST_TO, BC_RULE_BIDIRECTIONAL};
    static bc_shape shapes[BC_MAX_OPERANDS];
    bytes b = {data, size, 0};
    bc_rule rule = rules[next(&b) % (sizeof rules / sizeof *rules)];
    unsigned x = next(&b);
    int n = 2;
    if (rule == BC_RULE_NONE || rule == BC_RULE_NUMPY)
        n = x < 250 ? 1 + (int)(x % 4) : BC_MAX_OPERANDS - (int)(x % 2);
    int count = 1 + (int)(next(&b) % 3);
    for (int i = 0; i < n; i++)
        next_shape(&b, &shapes[i]);

    answer base = infer(rule, n, shapes);
    if (has_negative(n, shapes))
        BC_FUZZ_CHECK(!accepted(&base), "%s accepts a negative dim", bc_rule_name(rule));
    if (rule == BC_RULE_NUMPY)
        check_numpy(n, shapes, &base);
    else if (rule == BC_RULE_NONE)
        check_none(n, shapes, &base);
    else
        check_binary(rule, shapes, &base);
    check_prepend_ones(rule, n, shapes, &base, count);
    return 0;
}
