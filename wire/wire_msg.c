/*
 * Messages of the wire protocol: HELLO, FATAL, SHAPE, EVAL and ANSWER
 * (wire/PROTOCOL.md, "Messages").  The decoders trust nothing:
 * every count is bounded before it sizes anything, every enum is checked,
 * and a payload must be consumed exactly.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../guard/guard.h"
#include "wire.h"

/* ---- a bounds-checked reader ------------------------------------------ */

typedef struct rd {
    const unsigned char *p;
    size_t len, pos;
    const char *frame; /* "ANSWER", ... for messages */
    char *why;
    size_t cap;
    int failed;
} rd;

static void fail(rd *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    int k = snprintf(r->why, r->cap, "bad %s frame: ", r->frame);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < r->cap)
        vsnprintf(r->why + k, r->cap - (size_t)k, fmt, ap);
    va_end(ap);
}

static const unsigned char *take(rd *r, size_t n, const char *field)
{
    if (r->failed)
        return NULL;
    if (r->len - r->pos < n) {
        fail(r, "truncated: %s needs %zu bytes at offset %zu, %zu left", field, n, r->pos,
             r->len - r->pos);
        return NULL;
    }
    const unsigned char *at = r->p + r->pos;
    r->pos += n;
    return at;
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint32_t u32(rd *r, const char *field)
{
    const unsigned char *at = take(r, 4, field);
    return at ? (uint32_t)get_le(at, 4) : 0;
}

static int64_t i64(rd *r, const char *field)
{
    const unsigned char *at = take(r, 8, field);
    return at ? (int64_t)get_le(at, 8) : 0;
}

/* A u32 that must be below `limit`. */
static uint32_t below(rd *r, const char *field, uint32_t limit)
{
    uint32_t v = u32(r, field);
    if (!r->failed && v >= limit) {
        fail(r, "%s is %u, expected 0 to %u", field, v, limit - 1);
        return 0;
    }
    return v;
}

static void str(rd *r, const char *field, char *out, size_t max)
{
    out[0] = '\0';
    uint32_t n = u32(r, field);
    if (!r->failed && n > max) {
        fail(r, "%s is %u bytes long, at most %zu allowed", field, n, max);
        return;
    }
    const unsigned char *at = take(r, n, field);
    if (!at)
        return;
    if (memchr(at, '\0', n)) {
        fail(r, "%s contains a NUL byte", field);
        return;
    }
    memcpy(out, at, n);
    out[n] = '\0';
}

static int finish(rd *r)
{
    if (!r->failed && r->pos != r->len)
        fail(r, "%zu unexpected bytes after its last field", r->len - r->pos);
    return r->failed ? -1 : 0;
}

static rd reader(const char *frame, const unsigned char *p, size_t len, char *why, size_t cap)
{
    rd r = {p, len, 0, frame, why, cap, 0};
    return r;
}

/* ---- shared pieces ------------------------------------------------------ */

static void put_shape(bc_wbuf *b, const bc_shape *s)
{
    bc_wbuf_u32(b, (uint32_t)s->rank);
    for (int k = 0; k < s->rank; k++)
        bc_wbuf_i64(b, s->dims[k]);
}

static void get_shape(rd *r, const char *what, bc_shape *s)
{
    char field[64];
    snprintf(field, sizeof field, "the rank of %s", what);
    s->rank = (int)u32(r, field);
    if (!r->failed && s->rank > BC_MAX_RANK) {
        fail(r, "%s has rank %d, more than %d", what, s->rank, BC_MAX_RANK);
        s->rank = 0;
    }
    snprintf(field, sizeof field, "the dims of %s", what);
    for (int k = 0; k < s->rank && !r->failed; k++)
        s->dims[k] = i64(r, field);
}

static void put_params(bc_wbuf *b, const bc_params *p)
{
    /* A rule with profiles (pdpd) always names one: the harness resolves the
     * default, so no worker has to know it.  Anything else goes as given,
     * invalid input included. */
    unsigned options = p->options;
    bc_profile profile = p->profile;
    if (bc_rule_default_profile(p->rule) != BC_PROFILE_DEFAULT &&
        (!(options & BC_OPT_PROFILE) || profile == BC_PROFILE_DEFAULT)) {
        options |= BC_OPT_PROFILE;
        profile = bc_rule_default_profile(p->rule);
    }
    bc_wbuf_u32(b, (uint32_t)p->rule);
    bc_wbuf_u32(b, options);
    bc_wbuf_u32(b, (uint32_t)profile);
    bc_wbuf_i64(b, p->axis);
    if (p->options & BC_OPT_AXES_UNKNOWN) {
        /* protocol 5, PSHAPE only: the length alone (all ones: unknown too) */
        bc_wbuf_u32(b, p->naxes < 0 ? BC_WIRE_NAXES_UNKNOWN : (uint32_t)p->naxes);
        return;
    }
    int naxes = p->options & (BC_OPT_AXES | BC_OPT_AXES_MAPPING) ? p->naxes : 0;
    bc_wbuf_u32(b, (uint32_t)naxes);
    for (int i = 0; i < naxes; i++)
        bc_wbuf_i64(b, p->axes[i]);
}

/* partial: a PSHAPE's, which may have option bit 16 (protocol 5): an
 * axes_mapping of unknown values, its length alone on the wire. */
static void get_params(rd *r, bc_params *p, int partial)
{
    memset(p, 0, sizeof *p);
    p->rule = (bc_rule)below(r, "the rule", BC_RULE_COUNT);
    p->options = u32(r, "the options");
    const unsigned known = partial ? 0x1Fu : 0xFu;
    if (!r->failed && (p->options & ~known))
        fail(r, "unknown option bits 0x%x", p->options & ~known);
    if (!r->failed && (p->options & BC_OPT_AXES_UNKNOWN) &&
        (p->options & (BC_OPT_AXES_MAPPING | BC_OPT_AXES)) != BC_OPT_AXES_MAPPING)
        fail(r, "option bit 16 (an axes_mapping of unknown values) needs bit 8 and not bit 4");
    p->profile = (bc_profile)below(r, "the profile", BC_PROFILE_COUNT);
    p->axis = i64(r, "the axis");
    if (p->options & BC_OPT_AXES_UNKNOWN) {
        uint32_t naxes = u32(r, "the number of axes");
        if (!r->failed && naxes != BC_WIRE_NAXES_UNKNOWN && naxes > BC_MAX_RANK)
            fail(r, "the number of axes is %u, expected 0 to %d or 0xffffffff (unknown)", naxes,
                 BC_MAX_RANK);
        p->naxes = naxes == BC_WIRE_NAXES_UNKNOWN ? -1 : (int)naxes;
        return; /* no entries: their values are unknown */
    }
    p->naxes = (int)below(r, "the number of axes", BC_MAX_RANK + 1);
    for (int i = 0; i < p->naxes && !r->failed; i++)
        p->axes[i] = i64(r, "the axes");
}

static void put_shapes(bc_wbuf *b, int n, const bc_shape *shapes)
{
    bc_wbuf_u32(b, (uint32_t)n);
    for (int i = 0; i < n; i++)
        put_shape(b, &shapes[i]);
}

static int get_shapes(rd *r, bc_shape *shapes)
{
    int n = (int)below(r, "the number of shapes", BC_WIRE_MAX_SHAPES + 1);
    for (int i = 0; i < n && !r->failed; i++) {
        char what[32];
        snprintf(what, sizeof what, "shape %d", i);
        get_shape(r, what, &shapes[i]);
    }
    return n;
}

/* ---- HELLO and FATAL --------------------------------------------------- */

void bc_wire_encode_hello(bc_wbuf *b, const bc_wire_hello *h)
{
    bc_wbuf_frame_begin(b, BC_WIRE_HELLO, 0);
    bc_wbuf_u32(b, h->protocol);
    bc_wbuf_str(b, h->name, BC_WIRE_MAX_NAME);
    bc_wbuf_str(b, h->version, BC_WIRE_MAX_NAME);
    bc_wbuf_str(b, h->description, BC_WIRE_MAX_DESCRIPTION);
    const bc_adapter_capabilities *c = &h->caps;
    bc_wbuf_u32(b, c->features);
    bc_wbuf_u32(b, c->rules);
    bc_wbuf_u32(b, c->profiles);
    bc_wbuf_u32(b, c->ops);
    bc_wbuf_u32(b, c->dtypes);
    bc_wbuf_u32(b, (uint32_t)c->max_rank);
    bc_wbuf_u32(b, (uint32_t)c->max_operands);
    if (h->protocol >= BC_WIRE_PROTOCOL_PARTIAL)
        bc_wbuf_u32(b, h->partial);
    bc_wbuf_frame_end(b);
}

/* A capability mask with no bits outside `known`. */
static uint32_t mask(rd *r, const char *field, uint32_t known)
{
    uint32_t v = u32(r, field);
    if (!r->failed && (v & ~known))
        fail(r, "%s has unknown bits 0x%x", field, v & ~known);
    return v;
}

int bc_wire_decode_hello(const unsigned char *p, size_t len, bc_wire_hello *h, char *why,
                         size_t cap)
{
    rd r = reader("HELLO", p, len, why, cap);
    memset(h, 0, sizeof *h);
    h->protocol = u32(&r, "the protocol version");
    if (!r.failed &&
        (h->protocol < BC_WIRE_PROTOCOL_OLDEST || h->protocol > BC_WIRE_PROTOCOL_VERSION)) {
        snprintf(why, cap, "the worker speaks protocol version %u; this harness speaks versions "
                 "%u to %u", h->protocol, BC_WIRE_PROTOCOL_OLDEST, BC_WIRE_PROTOCOL_VERSION);
        return -1;
    }
    str(&r, "the name", h->name, BC_WIRE_MAX_NAME);
    str(&r, "the version", h->version, BC_WIRE_MAX_NAME);
    str(&r, "the description", h->description, BC_WIRE_MAX_DESCRIPTION);
    bc_adapter_capabilities *c = &h->caps;
    /* bit 5: matmul values; bit 6: shared-file questions (EVAL_SHM) */
    c->features = mask(&r, "features", BC_WIRE_KNOWN_FEATURES);
    c->rules = mask(&r, "rules", (1u << BC_RULE_COUNT) - 1);
    c->profiles = mask(&r, "profiles", (1u << BC_PROFILE_COUNT) - 1);
    c->ops = mask(&r, "ops", (1u << BC_OP_COUNT) - 1);
    c->dtypes = mask(&r, "dtypes", (1u << BC_DTYPE_COUNT) - 1);
    c->max_rank = (int32_t)below(&r, "max_rank", BC_MAX_RANK + 1);
    c->max_operands = (int32_t)below(&r, "max_operands", BC_WIRE_MAX_SHAPES + 1);
    if (h->protocol >= BC_WIRE_PROTOCOL_PARTIAL)
        h->partial =
            mask(&r, "partial", h->protocol >= BC_WIRE_PROTOCOL_AXES_UNKNOWN ? 0x1Fu : 0xFu);
    if (finish(&r) != 0)
        return -1;
    /* an older worker's peers size questions by 72 (PROTOCOL.md, version 4) */
    if (h->protocol < BC_WIRE_PROTOCOL_MANY_OPERANDS && c->max_operands > BC_WIRE_V3_MAX_SHAPES) {
        snprintf(why, cap, "bad HELLO frame: max_operands %d needs protocol version %u; "
                 "version %u declares at most %d", c->max_operands,
                 BC_WIRE_PROTOCOL_MANY_OPERANDS, h->protocol, BC_WIRE_V3_MAX_SHAPES);
        return -1;
    }
    if (h->protocol < BC_WIRE_PROTOCOL_LAYOUT && (c->features & BC_WIRE_FEATURE_SHM)) {
        snprintf(why, cap, "bad HELLO frame: features bit 6 (shared-file questions) needs "
                 "protocol version %u or later; the worker says %u", BC_WIRE_PROTOCOL_LAYOUT,
                 h->protocol);
        return -1;
    }
    if (!h->name[0]) {
        snprintf(why, cap, "bad HELLO frame: the name is empty");
        return -1;
    }
    return 0;
}

void bc_wire_encode_fatal(bc_wbuf *b, const char *message)
{
    bc_wbuf_frame_begin(b, BC_WIRE_FATAL, 0);
    bc_wbuf_str(b, message, BC_WIRE_MAX_MESSAGE);
    bc_wbuf_frame_end(b);
}

int bc_wire_decode_fatal(const unsigned char *p, size_t len, char *message, size_t message_cap,
                         char *why, size_t cap)
{
    rd r = reader("FATAL", p, len, why, cap);
    char text[BC_WIRE_MAX_MESSAGE + 1];
    str(&r, "the message", text, BC_WIRE_MAX_MESSAGE);
    if (finish(&r) != 0)
        return -1;
    snprintf(message, message_cap, "%s", text);
    return 0;
}

/* ---- text from a worker ---------------------------------------------------- */

/* The length of the valid UTF-8 sequence at s and its code point; 0 if
 * there is none (overlong forms, surrogates, past U+10FFFF). */
static int utf8_sequence(const unsigned char *s, unsigned *cp)
{
    static const unsigned lead_mask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    static const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
    int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3
          : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0)
        return 0;
    unsigned v = s[0] & lead_mask[n];
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < least[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

char *bc_wire_printable(char *s)
{
    unsigned char *in = (unsigned char *)s, *out = in;
    while (*in) {
        unsigned cp;
        int n = utf8_sequence(in, &cp);
        if (n == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
            *out++ = '?';
            in += n ? n : 1;
            continue;
        }
        memmove(out, in, (size_t)n);
        out += n;
        in += n;
    }
    *out = '\0';
    return s;
}

/* ---- SHAPE and EVAL ------------------------------------------------------ */

void bc_wire_encode_shape(bc_wbuf *b, uint32_t seq, const bc_params *p, int n,
                          const bc_shape *shapes)
{
    bc_wbuf_frame_begin(b, BC_WIRE_SHAPE, seq);
    put_params(b, p);
    put_shapes(b, n, shapes);
    bc_wbuf_frame_end(b);
}

/* One input, as the harness laid it out (PROTOCOL.md, version 3): the
 * elements from its data pointer (element 0) to the last one the view
 * reaches, so the offset, negative strides and gaps arrive as generated,
 * then guard.h's margin of poison bytes, which every path puts after an
 * input.  A view reaching before its data pointer is rebased to its first
 * element; a view with no elements keeps its offset over poison.  For a
 * worker of protocol 1 or 2 (!as_laid_out): only the elements the view
 * reaches, rebased to the first, as those versions promised. */
int bc_wire_input_span(const bc_tensor *t, int index, uint32_t protocol, bc_wire_span *span,
                       char *why, size_t cap)
{
    bc_error err;
    int64_t numel, lo = 0, hi = 0;
    if (bc_tensor_check(t, &numel, &err) != BC_OK) {
        snprintf(why, cap, "input %d cannot be sent: %s", index, err.message);
        return -1;
    }
    const int as_laid_out = protocol >= BC_WIRE_PROTOCOL_LAYOUT;
    int reaches = bc_tensor_extent(t, &lo, &hi);
    if (!as_laid_out) {
        span->first = reaches ? lo : t->offset;
        span->end = reaches ? hi + 1 : span->first;
    } else if (reaches) {
        span->first = lo < 0 ? lo : 0;
        span->end = hi + 1;
    } else {
        span->first = t->offset < 0 ? t->offset : 0;
        span->end = t->offset > 0 ? t->offset : 0;
    }
    span->margin = as_laid_out ? (int64_t)(BC_GUARD_MARGIN / bc_dtype_size(t->dtype)) : 0;
    return 0;
}

/* An input's header: everything but its elements. */
static void put_tensor_header(bc_wbuf *b, const bc_tensor *t, const bc_wire_span *span)
{
    bc_wbuf_u32(b, (uint32_t)t->dtype);
    bc_wbuf_u32(b, (uint32_t)t->rank);
    for (int k = 0; k < t->rank; k++)
        bc_wbuf_i64(b, t->dims[k]);
    for (int k = 0; k < t->rank; k++)
        bc_wbuf_i64(b, t->strides[k]);
    bc_wbuf_i64(b, t->offset - span->first);
    bc_wbuf_i64(b, span->end - span->first + span->margin);
}

static int put_tensor(bc_wbuf *b, const bc_tensor *t, int index, uint32_t protocol, char *why,
                      size_t cap)
{
    bc_wire_span span;
    if (bc_wire_input_span(t, index, protocol, &span, why, cap) != 0)
        return -1;
    size_t size = bc_dtype_size(t->dtype);
    put_tensor_header(b, t, &span);
    if (span.end > span.first)
        bc_wbuf_bytes(b, (const char *)t->data + span.first * (int64_t)size,
                      (size_t)(span.end - span.first) * size);
    unsigned char poison[BC_GUARD_MARGIN];
    memset(poison, BC_GUARD_POISON, sizeof poison);
    bc_wbuf_bytes(b, poison, (size_t)span.margin * size);
    return 0;
}

/* The fields before the inputs, the same in EVAL and EVAL_SHM. */
static void put_eval_head(bc_wbuf *b, const bc_eval_request *req)
{
    bc_wbuf_u32(b, (uint32_t)req->kind);
    bc_wbuf_u32(b, (uint32_t)req->op);
    bc_wbuf_u32(b, (uint32_t)req->operand);
    put_params(b, req->params);
    put_shapes(b, req->n, req->shapes);
    bc_wbuf_u32(b, (uint32_t)req->out_dtype);
    bc_wbuf_i64(b, req->out_capacity);
}

int bc_wire_encode_eval(bc_wbuf *b, uint32_t seq, const bc_eval_request *req,
                        uint32_t protocol, char *why, size_t cap)
{
    bc_wbuf_frame_begin(b, BC_WIRE_EVAL, seq);
    put_eval_head(b, req);
    bc_wbuf_u32(b, (uint32_t)req->ninputs);
    for (int i = 0; i < req->ninputs; i++)
        if (put_tensor(b, &req->inputs[i], i, protocol, why, cap) != 0)
            return -1;
    if (bc_wbuf_frame_end(b) != 0) {
        snprintf(why, cap, "the question does not fit a frame (limit %u bytes) or memory",
                 BC_WIRE_MAX_PAYLOAD);
        return -1;
    }
    return 0;
}

/* a + b into *sum, or -1 past INT64_MAX (the sizes here are all >= 0). */
static int add_bytes(int64_t *sum, int64_t a, int64_t b)
{
    return __builtin_add_overflow(a, b, sum) ? -1 : 0;
}

/* n elements of `size` bytes, or -1 past INT64_MAX. */
static int64_t times(int64_t n, size_t size)
{
    int64_t bytes;
    return n < 0 || __builtin_mul_overflow(n, (int64_t)size, &bytes) ? -1 : bytes;
}

int64_t bc_wire_eval_bytes(const bc_eval_request *req, uint32_t protocol, int64_t *answer_bytes)
{
    char why[512]; /* an input check's message (bc_error, 320) after its prefix */
    /* the fixed fields (params, the shapes, each input's header), generously */
    int64_t total = 4096 + (int64_t)req->n * (4 + 8 * BC_MAX_RANK) +
                    (int64_t)req->ninputs * (40 + 16 * BC_MAX_RANK);
    int64_t out = times(req->out_capacity, bc_dtype_size(req->out_dtype));
    for (int i = 0; i < req->ninputs; i++) {
        bc_wire_span span;
        if (bc_wire_input_span(&req->inputs[i], i, protocol, &span, why, sizeof why) != 0)
            return -1;
        int64_t bytes = times(span.end - span.first + span.margin,
                              bc_dtype_size(req->inputs[i].dtype));
        if (bytes < 0 || add_bytes(&total, total, bytes) != 0)
            return -1;
    }
    *answer_bytes = out < 0 ? INT64_MAX : out;
    return total;
}

/* x rounded up to a multiple of BC_WIRE_SHM_ALIGN, or -1 past INT64_MAX. */
static int64_t aligned(int64_t x)
{
    int64_t up;
    return __builtin_add_overflow(x, BC_WIRE_SHM_ALIGN - 1, &up) ? -1
                                                                 : up / BC_WIRE_SHM_ALIGN * BC_WIRE_SHM_ALIGN;
}

int bc_wire_plan_shm(const bc_eval_request *req, bc_wire_shm_plan *plan, char *why, size_t cap)
{
    memset(plan, 0, sizeof *plan);
    int64_t at = 0;
    for (int i = 0; i < req->ninputs; i++) {
        bc_wire_span *span = &plan->spans[i];
        if (bc_wire_input_span(&req->inputs[i], i, BC_WIRE_PROTOCOL_LAYOUT, span, why, cap) != 0)
            return -1;
        plan->input_offset[i] = at;
        plan->input_bytes[i] = times(span->end - span->first + span->margin,
                                     bc_dtype_size(req->inputs[i].dtype));
        if (plan->input_bytes[i] < 0 || add_bytes(&at, at, plan->input_bytes[i]) != 0 ||
            (at = aligned(at)) < 0)
            goto too_large;
    }
    plan->out_offset = at;
    plan->out_bytes = times(req->out_capacity, bc_dtype_size(req->out_dtype));
    plan->out_guard = BC_GUARD_OUTPUT_MARGIN;
    if (plan->out_bytes < 0 || add_bytes(&at, at, plan->out_bytes) != 0 ||
        add_bytes(&at, at, plan->out_guard) != 0 || (plan->size = aligned(at)) < 0)
        goto too_large;
    return 0;
too_large:
    snprintf(why, cap, "the question's buffers pass 2^63 bytes");
    return -1;
}

void bc_wire_encode_eval_shm(bc_wbuf *b, uint32_t seq, const bc_eval_request *req,
                             const bc_wire_shm_plan *plan, const char *path)
{
    bc_wbuf_frame_begin(b, BC_WIRE_EVAL_SHM, seq);
    put_eval_head(b, req);
    bc_wbuf_str(b, path, BC_WIRE_MAX_PATH);
    bc_wbuf_i64(b, plan->size);
    bc_wbuf_i64(b, plan->out_offset);
    bc_wbuf_i64(b, plan->out_guard);
    bc_wbuf_u32(b, (uint32_t)req->ninputs);
    for (int i = 0; i < req->ninputs; i++) {
        put_tensor_header(b, &req->inputs[i], &plan->spans[i]);
        bc_wbuf_i64(b, plan->input_offset[i]);
    }
    bc_wbuf_frame_end(b);
}

/* Every element the view reaches lies in [0, nelem), with overflow checks. */
static void check_reach(rd *r, const bc_wire_tensor *t, int index)
{
    int64_t lo = t->offset, hi = t->offset;
    for (int k = 0; k < t->rank; k++)
        if (t->dims[k] == 0)
            return; /* no elements, nothing is read */
    for (int k = 0; k < t->rank; k++) {
        int64_t span;
        if (__builtin_mul_overflow(t->dims[k] - 1, t->strides[k], &span) ||
            __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) {
            fail(r, "input %d: its strides overflow int64", index);
            return;
        }
    }
    if (lo < 0 || hi >= t->nelem)
        fail(r, "input %d reaches elements %lld to %lld of the %lld it carries", index,
             (long long)lo, (long long)hi, (long long)t->nelem);
}

static void get_tensor(rd *r, bc_wire_tensor *t, int index, const bc_wire_question *q)
{
    char field[48];
    snprintf(field, sizeof field, "the dtype of input %d", index);
    t->dtype = (bc_dtype)below(r, field, BC_DTYPE_COUNT);
    snprintf(field, sizeof field, "the rank of input %d", index);
    t->rank = (int)below(r, field, BC_MAX_RANK + 1);
    snprintf(field, sizeof field, "the dims of input %d", index);
    for (int k = 0; k < t->rank && !r->failed; k++) {
        t->dims[k] = i64(r, field);
        if (!r->failed && t->dims[k] < 0)
            fail(r, "input %d has dim %lld at axis %d", index, (long long)t->dims[k], k);
    }
    snprintf(field, sizeof field, "the strides of input %d", index);
    for (int k = 0; k < t->rank && !r->failed; k++)
        t->strides[k] = i64(r, field);
    t->offset = i64(r, "an input's offset");
    t->nelem = i64(r, "an input's element count");
    size_t size = bc_dtype_size(t->dtype);
    if (q->shm) { /* the elements are in the file, from file_offset */
        t->bytes = NULL;
        t->file_offset = i64(r, "an input's file offset");
        int64_t bytes = times(t->nelem, size), end;
        if (!r->failed && (t->file_offset < 0 || bytes < 0 ||
                           add_bytes(&end, t->file_offset, bytes) != 0 || end > q->shm_size))
            fail(r, "input %d: %lld elements at byte %lld of a file of %lld bytes", index,
                 (long long)t->nelem, (long long)t->file_offset, (long long)q->shm_size);
        if (!r->failed)
            check_reach(r, t, index);
        return;
    }
    if (!r->failed && (t->nelem < 0 || (uint64_t)t->nelem > (r->len - r->pos) / size)) {
        fail(r, "input %d says it carries %lld elements, %zu bytes are left", index,
             (long long)t->nelem, r->len - r->pos);
        return;
    }
    t->bytes = take(r, (size_t)t->nelem * size, "an input's elements");
    if (!r->failed)
        check_reach(r, t, index);
}

/* EVAL_SHM's file: its path, size, and the output's place with its guard,
 * inside the file. */
static void get_shm_file(rd *r, bc_wire_question *q)
{
    str(r, "the shared file's path", q->shm_path, BC_WIRE_MAX_PATH);
    if (!r->failed && !q->shm_path[0])
        fail(r, "the shared file's path is empty");
    q->shm_size = i64(r, "the shared file's size");
    q->shm_out_offset = i64(r, "the output's file offset");
    q->shm_out_guard = i64(r, "the output's guard");
    int64_t bytes = times(q->out_capacity, bc_dtype_size(q->out_dtype)), end;
    if (!r->failed && (q->shm_size <= 0 || q->shm_out_offset < 0 || q->shm_out_guard < 0 ||
                       bytes < 0 || add_bytes(&end, q->shm_out_offset, bytes) != 0 ||
                       add_bytes(&end, end, q->shm_out_guard) != 0 || end > q->shm_size))
        fail(r, "an output of %lld bytes and %lld guard bytes at byte %lld of a file of %lld "
             "bytes", (long long)bytes, (long long)q->shm_out_guard,
             (long long)q->shm_out_offset, (long long)q->shm_size);
}

static int inputs_wanted(bc_value_op kind, int n)
{
    return kind == BC_VALUE_ELEMENTWISE ? n
         : kind == BC_VALUE_SELECT    ? 3
         : kind == BC_VALUE_MATMUL    ? 2
                                      : 1;
}

int bc_wire_decode_question(unsigned type, const unsigned char *p, size_t len,
                            bc_wire_question *q, char *why, size_t cap)
{
    rd r = reader(bc_wire_type_name(type), p, len, why, cap);
    q->shm = type == BC_WIRE_EVAL_SHM;
    q->is_eval = type == BC_WIRE_EVAL || q->shm;
    if (type != BC_WIRE_SHAPE && !q->is_eval) {
        snprintf(why, cap, "expected a SHAPE, EVAL or EVAL_SHM frame, got %s (0x%02x)",
                 bc_wire_type_name(type), type);
        return -1;
    }
    if (q->is_eval) {
        q->kind = (bc_value_op)below(&r, "the value kind", BC_VALUE_OP_COUNT);
        q->op = (bc_op)below(&r, "the op", BC_OP_COUNT);
        q->operand = (int)(int32_t)u32(&r, "the operand");
    }
    get_params(&r, &q->params, 0);
    q->n = get_shapes(&r, q->shapes);
    if (q->is_eval) {
        q->out_dtype = (bc_dtype)below(&r, "the output dtype", BC_DTYPE_COUNT);
        q->out_capacity = i64(&r, "the output capacity");
        if (!r.failed && q->out_capacity < 0)
            fail(&r, "the output capacity is %lld", (long long)q->out_capacity);
        if (!r.failed && q->kind == BC_VALUE_SUM_TO_SHAPE && (q->operand < 0 || q->operand >= q->n))
            fail(&r, "sum-to-shape of operand %d of %d shapes", q->operand, q->n);
        if (q->shm)
            get_shm_file(&r, q);
        q->ninputs = (int)below(&r, "the number of inputs", BC_WIRE_MAX_SHAPES + 1);
        if (!r.failed && q->ninputs != inputs_wanted(q->kind, q->n))
            fail(&r, "%d inputs, the question needs %d", q->ninputs, inputs_wanted(q->kind, q->n));
        for (int i = 0; i < q->ninputs && !r.failed; i++)
            get_tensor(&r, &q->inputs[i], i, q);
    }
    return finish(&r);
}

/* ---- ANSWER ------------------------------------------------------------- */

void bc_wire_encode_answer(bc_wbuf *b, uint32_t seq, const bc_wire_answer *a)
{
    bc_wbuf_frame_begin(b, BC_WIRE_ANSWER, seq);
    bc_wbuf_u32(b, (uint32_t)a->status);
    bc_wbuf_u32(b, (uint32_t)a->kind);
    bc_wbuf_u32(b, a->flags);
    put_shape(b, &a->shape);
    bc_wbuf_str(b, a->message, BC_WIRE_MAX_MESSAGE);
    bc_wbuf_i64(b, (int64_t)a->nbytes);
    bc_wbuf_bytes(b, a->out, (size_t)a->nbytes);
    bc_wbuf_frame_end(b);
}

int bc_wire_decode_answer(const unsigned char *p, size_t len, bc_wire_answer *a, char *why,
                          size_t cap)
{
    rd r = reader("ANSWER", p, len, why, cap);
    a->status = (bc_sut_status)below(&r, "the status", BC_SUT_INTERNAL_ERROR + 1);
    a->kind = (bc_error_kind)below(&r, "the error kind", BC_ERR_KIND_COUNT);
    a->flags = mask(&r, "the flags", BC_WIRE_RETIRE);
    get_shape(&r, "the result shape", &a->shape);
    str(&r, "the message", a->message, BC_WIRE_MAX_MESSAGE);
    int64_t nbytes = i64(&r, "the output length");
    if (!r.failed && (nbytes < 0 || (uint64_t)nbytes != r.len - r.pos)) {
        fail(&r, "the output length says %lld bytes, %zu follow", (long long)nbytes,
             r.len - r.pos);
        return -1;
    }
    a->nbytes = (uint64_t)nbytes;
    a->out = take(&r, (size_t)nbytes, "the output");
    return finish(&r);
}

uint64_t bc_wire_expected_output(const bc_wire_answer *a, bc_dtype out_dtype, int64_t out_capacity)
{
    int64_t numel;
    /* A shape with no element count (a negative dim) carries no values: it
     * is a wrong shape, which the properties report as such. */
    if (a->status != BC_SUT_OK || bc_shape_numel(&a->shape, &numel) != BC_OK ||
        numel > out_capacity)
        return 0;
    return (uint64_t)numel * bc_dtype_size(out_dtype);
}

/* ---- PSHAPE and its ANSWER (protocol 2) ------------------------------------ */

static void put_pshape(bc_wbuf *b, const bc_pshape *s)
{
    bc_wbuf_u32(b, (uint32_t)(int32_t)s->rank);
    for (int k = 0; k < s->rank; k++) {
        bc_wbuf_i64(b, s->dims[k].lo);
        bc_wbuf_i64(b, s->dims[k].hi);
        bc_wbuf_u32(b, (uint32_t)s->dims[k].sym);
    }
}

/* A partial shape; its symbols must be below sym_limit (0: any u32 up to
 * BC_MAX_SYMBOLS + the answer's own, checked by the caller). */
static void get_pshape(rd *r, const char *what, bc_pshape *s, uint32_t sym_limit)
{
    char field[64];
    snprintf(field, sizeof field, "the rank of %s", what);
    int32_t rank = (int32_t)u32(r, field);
    s->rank = 0;
    if (!r->failed && (rank < BC_RANK_DYNAMIC || rank > BC_MAX_RANK)) {
        fail(r, "%s has rank %d, expected -1 (unknown) to %d", what, rank, BC_MAX_RANK);
        return;
    }
    s->rank = rank;
    snprintf(field, sizeof field, "the dims of %s", what);
    for (int k = 0; k < s->rank && !r->failed; k++) {
        bc_pdim *d = &s->dims[k];
        d->lo = i64(r, field);
        d->hi = i64(r, field);
        uint32_t sym = u32(r, field);
        if (!r->failed && d->lo > d->hi)
            fail(r, "%s: the dim at axis %d is empty (%lld > %lld)", what, k, (long long)d->lo,
                 (long long)d->hi);
        if (!r->failed && sym >= sym_limit)
            fail(r, "%s: the dim at axis %d names symbol %u, past the %u there are", what, k,
                 sym, sym_limit - 1);
        d->sym = (int)sym;
    }
}

void bc_wire_encode_pshape(bc_wbuf *b, uint32_t seq, const bc_params *p, int n,
                           const bc_pshape *shapes, const bc_psymbols *syms)
{
    bc_wbuf_frame_begin(b, BC_WIRE_PSHAPE, seq);
    put_params(b, p);
    bc_wbuf_u32(b, (uint32_t)syms->count);
    for (int s = 0; s < syms->count; s++)
        bc_wbuf_str(b, syms->names[s], BC_SYMBOL_NAME_MAX);
    bc_wbuf_u32(b, (uint32_t)n);
    for (int i = 0; i < n; i++)
        put_pshape(b, &shapes[i]);
    bc_wbuf_frame_end(b);
}

int bc_wire_decode_pquestion(const unsigned char *p, size_t len, bc_wire_pquestion *q,
                             char *why, size_t cap)
{
    rd r = reader("PSHAPE", p, len, why, cap);
    get_params(&r, &q->params, 1);
    q->syms.count = (int)below(&r, "the number of symbols", BC_MAX_SYMBOLS + 1);
    for (int s = 0; s < q->syms.count && !r.failed; s++) {
        str(&r, "a symbol's name", q->syms.names[s], BC_SYMBOL_NAME_MAX);
        if (!r.failed && !q->syms.names[s][0])
            fail(&r, "symbol %d has an empty name", s + 1);
    }
    q->n = (int)below(&r, "the number of shapes", BC_WIRE_MAX_SHAPES + 1);
    for (int i = 0; i < q->n && !r.failed; i++) {
        char what[32];
        snprintf(what, sizeof what, "shape %d", i);
        get_pshape(&r, what, &q->shapes[i], (uint32_t)q->syms.count + 1);
    }
    return finish(&r);
}

void bc_wire_encode_panswer(bc_wbuf *b, uint32_t seq, const bc_wire_panswer *a)
{
    bc_wbuf_frame_begin(b, BC_WIRE_ANSWER, seq);
    bc_wbuf_u32(b, (uint32_t)a->status);
    bc_wbuf_u32(b, (uint32_t)a->kind);
    bc_wbuf_u32(b, a->flags);
    put_pshape(b, &a->shape);
    bc_wbuf_str(b, a->message, BC_WIRE_MAX_MESSAGE);
    bc_wbuf_frame_end(b);
}

int bc_wire_decode_panswer(const unsigned char *p, size_t len, bc_wire_panswer *a, char *why,
                           size_t cap)
{
    rd r = reader("ANSWER", p, len, why, cap);
    a->status = (bc_sut_status)below(&r, "the status", BC_SUT_INTERNAL_ERROR + 1);
    a->kind = (bc_error_kind)below(&r, "the error kind", BC_ERR_KIND_COUNT);
    a->flags = mask(&r, "the flags", BC_WIRE_RETIRE);
    /* the answer's own symbols are numbered above the question's */
    get_pshape(&r, "the result shape", &a->shape, UINT32_MAX / 2);
    str(&r, "the message", a->message, BC_WIRE_MAX_MESSAGE);
    return finish(&r);
}
