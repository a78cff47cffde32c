/*
 * The wire protocol of wire/PROTOCOL.md: every message survives an
 * encode/decode round trip; a table of malformed frames, each with the
 * diagnosis the decoder must give; and malformed streams from a real
 * worker process (exec:cat FILE), each answered as an internal error or a
 * refused open that names the fault, never trusted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "broadcheck/sut_loader.h"
#include "isolation/isolated.h"
#include "wire/wire.h"

/* ---- helpers ------------------------------------------------------------ */

static bc_shape shape_of(int rank, ...)
{
    bc_shape s = {rank, {0}};
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++)
        s.dims[i] = va_arg(ap, int64_t);
    va_end(ap);
    return s;
}

/* Splits the one frame in b; returns its payload. */
static const unsigned char *payload_of(const bc_wbuf *b, bc_wire_header *h)
{
    const unsigned char *p = NULL;
    char why[256];
    assert_false(b->failed);
    assert_int_equal(bc_wire_split(b->data, b->len, h, &p, why, sizeof why), 1);
    assert_int_equal(BC_WIRE_HEADER_SIZE + h->length, b->len);
    return p;
}

static bc_wire_hello sample_hello(void)
{
    bc_wire_hello h;
    memset(&h, 0, sizeof h);
    h.protocol = BC_WIRE_PROTOCOL_VERSION;
    snprintf(h.name, sizeof h.name, "lib");
    snprintf(h.version, sizeof h.version, "2.5");
    snprintf(h.description, sizeof h.description, "a test worker");
    h.caps = (bc_adapter_capabilities){BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE,
                                       1u << BC_RULE_NUMPY, 0, 1u << BC_OP_ADD, 1u << BC_INT32,
                                       64, 64};
    return h;
}

/* ---- round trips ---------------------------------------------------------- */

static void test_hello_round_trip(void **state)
{
    (void)state;
    bc_wire_hello h = sample_hello(), back;
    bc_wbuf b = {0};
    bc_wire_encode_hello(&b, &h);
    bc_wire_header hd;
    const unsigned char *p = payload_of(&b, &hd);
    assert_int_equal(hd.type, BC_WIRE_HELLO);
    char why[256];
    assert_int_equal(bc_wire_decode_hello(p, hd.length, &back, why, sizeof why), 0);
    assert_string_equal(back.name, "lib");
    assert_string_equal(back.version, "2.5");
    assert_string_equal(back.description, "a test worker");
    assert_memory_equal(&back.caps, &h.caps, sizeof h.caps);
    bc_wbuf_free(&b);
}

/* A worker of protocol 1 (no partial field) and one of protocol 2. */
static void test_hello_versions(void **state)
{
    (void)state;
    bc_wire_hello h = sample_hello(), back;
    char why[256];
    for (int version = 1; version <= 2; version++) {
        h.protocol = (uint32_t)version;
        h.partial = version == 2 ? BC_ADAPTER_PARTIAL_DYNAMIC | BC_ADAPTER_PARTIAL_SYMBOL : 0;
        bc_wbuf b = {0};
        bc_wire_encode_hello(&b, &h);
        bc_wire_header hd;
        const unsigned char *p = payload_of(&b, &hd);
        /* protocol 1's HELLO is exactly as before: 4 bytes shorter */
        assert_int_equal(hd.length, 4 + (4 + 3) + (4 + 3) + (4 + 13) + 7 * 4 + (version - 1) * 4);
        assert_int_equal(bc_wire_decode_hello(p, hd.length, &back, why, sizeof why), 0);
        assert_int_equal(back.protocol, (uint32_t)version);
        assert_int_equal(back.partial, h.partial);
        bc_wbuf_free(&b);
    }
}

/* Past 72 shapes (RULES.md §9.5): a version-4 worker declares up to 136 and
 * gets questions of that many; a version-3 one declaring more than 72 is
 * refused, since a peer of version 3 sizes questions by 72. */
static void test_many_operands(void **state)
{
    (void)state;
    bc_wire_hello h = sample_hello(), back;
    char why[256];
    const struct {
        uint32_t protocol;
        int32_t max_operands;
        int ok;
    } table[] = {{4, 136, 1}, {4, 100, 1}, {3, 72, 1}, {3, 73, 0}, {3, 100, 0}, {1, 73, 0}};
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        h.protocol = table[i].protocol;
        h.caps.max_operands = table[i].max_operands;
        bc_wbuf b = {0};
        bc_wire_encode_hello(&b, &h);
        bc_wire_header hd;
        const unsigned char *p = payload_of(&b, &hd);
        int got = bc_wire_decode_hello(p, hd.length, &back, why, sizeof why);
        if (table[i].ok ? got != 0 || back.caps.max_operands != table[i].max_operands
                        : got != -1 || !strstr(why, "needs protocol version 4"))
            fail_msg("protocol %u, max_operands %d: got %d '%s'", table[i].protocol,
                     table[i].max_operands, got, why);
        bc_wbuf_free(&b);
    }
    /* 137 is past what any version carries */
    h.protocol = 4;
    h.caps.max_operands = 137;
    bc_wbuf b = {0};
    bc_wire_encode_hello(&b, &h);
    bc_wire_header hd;
    const unsigned char *p = payload_of(&b, &hd);
    assert_int_equal(bc_wire_decode_hello(p, hd.length, &back, why, sizeof why), -1);
    assert_non_null(strstr(why, "max_operands"));
    bc_wbuf_free(&b);
    /* a SHAPE of 136 shapes, and one of none (numpy-empty-fold), round trip */
    bc_params params = bc_params_for(BC_RULE_NUMPY);
    params.options = BC_OPT_PROFILE;
    params.profile = BC_PROFILE_NUMPY_EMPTY_FOLD;
    bc_shape *shapes = calloc(BC_WIRE_MAX_SHAPES, sizeof *shapes);
    bc_wire_question *q = malloc(sizeof *q);
    assert_true(shapes && q);
    for (int i = 0; i < BC_WIRE_MAX_SHAPES; i++)
        shapes[i] = shape_of(2, (int64_t)1, (int64_t)i);
    for (int n = BC_WIRE_MAX_SHAPES; n >= 0; n -= BC_WIRE_MAX_SHAPES) {
        bc_wbuf_frame_begin(&b, 0, 0);
        bc_wire_encode_shape(&b, 5, &params, n, shapes);
        p = payload_of(&b, &hd);
        assert_int_equal(bc_wire_decode_question(hd.type, p, hd.length, q, why, sizeof why), 0);
        assert_int_equal(q->n, n);
        assert_int_equal(q->params.profile, BC_PROFILE_NUMPY_EMPTY_FOLD);
        for (int i = 0; i < n; i++)
            assert_true(bc_shape_equal(&q->shapes[i], &shapes[i]));
    }
    free(q);
    free(shapes);
    bc_wbuf_free(&b);
}

static void test_pshape_round_trip(void **state)
{
    (void)state;
    bc_params params = bc_params_for(BC_RULE_PDPD);
    params.options |= BC_OPT_AXIS;
    params.axis = 1;
    bc_psymbols syms = {0};
    bc_pshape shapes[3];
    const char *text[3] = {"[N,?,2..5]", "[...]", "[M:3..,N,7]"};
    char why[256];
    for (int i = 0; i < 3; i++)
        assert_int_equal(bc_pshape_parse(text[i], NULL, &shapes[i], &syms, why, sizeof why), 0);
    bc_wbuf b = {0};
    bc_wire_encode_pshape(&b, 9, &params, 3, shapes, &syms);
    bc_wire_header hd;
    const unsigned char *p = payload_of(&b, &hd);
    assert_int_equal(hd.type, BC_WIRE_PSHAPE);
    assert_int_equal(hd.seq, 9);
    static bc_wire_pquestion q;
    assert_int_equal(bc_wire_decode_pquestion(p, hd.length, &q, why, sizeof why), 0);
    assert_int_equal(q.params.axis, 1);
    assert_int_equal(q.syms.count, 2);
    assert_string_equal(q.syms.names[1], "M");
    assert_int_equal(q.n, 3);
    for (int i = 0; i < 3; i++)
        assert_true(bc_pshape_equal(&q.shapes[i], &shapes[i]));
    bc_wbuf_free(&b);
    /* the answer: a shape with a symbol of the worker's own, then unknown rank */
    static bc_wire_panswer a, back;
    memset(&a, 0, sizeof a);
    a.status = BC_SUT_OK;
    a.shape = shapes[2];
    a.shape.dims[0].sym = 7; /* made up by the worker */
    snprintf(a.message, sizeof a.message, "fine");
    for (int pass = 0; pass < 2; pass++) {
        bc_wbuf_frame_begin(&b, 0, 0);
        bc_wire_encode_panswer(&b, 4, &a);
        p = payload_of(&b, &hd);
        assert_int_equal(hd.type, BC_WIRE_ANSWER);
        assert_int_equal(bc_wire_decode_panswer(p, hd.length, &back, why, sizeof why), 0);
        assert_true(bc_pshape_equal(&back.shape, &a.shape));
        assert_string_equal(back.message, "fine");
        a.shape.rank = BC_RANK_DYNAMIC;
    }
    bc_wbuf_free(&b);
}

/* Protocol 5: a PSHAPE carries an axes_mapping of unknown values (option
 * 16) by its length alone, all ones for an unknown length; no other frame
 * takes the bit; only a HELLO of version 5 may declare it (partial bit 16),
 * and the harness asks such a question only of a worker that does, so a
 * worker of version 4 or less is never sent one. */
static void test_unknown_mapping_wire(void **state)
{
    (void)state;
    char why[256];
    bc_psymbols syms = {0};
    bc_pshape shapes[2];
    assert_int_equal(bc_pshape_parse("[2,N]", NULL, &shapes[0], &syms, why, sizeof why), 0);
    assert_int_equal(bc_pshape_parse("[2,4,N]", NULL, &shapes[1], &syms, why, sizeof why), 0);
    static bc_wire_pquestion q;
    for (int naxes = -1; naxes <= 2; naxes += 3) {
        bc_params params = bc_params_for(BC_RULE_EXPLICIT);
        params.options |= BC_OPT_AXES_MAPPING | BC_OPT_AXES_UNKNOWN;
        params.naxes = naxes;
        params.axes[0] = 77; /* unknown: never sent */
        bc_wbuf b = {0};
        bc_wire_encode_pshape(&b, 3, &params, 2, shapes, &syms);
        bc_wire_header hd;
        const unsigned char *p = payload_of(&b, &hd);
        /* rule, options, profile, axis, naxes and no entries, then the symbols */
        assert_int_equal(p[24], 1); /* nsymbols (its low byte): right after naxes */
        assert_int_equal(bc_wire_decode_pquestion(p, hd.length, &q, why, sizeof why), 0);
        assert_true(q.params.options & BC_OPT_AXES_UNKNOWN);
        assert_int_equal(q.params.naxes, naxes);
        assert_int_equal(q.params.axes[0], 0);
        assert_true(bc_pshape_equal(&q.shapes[1], &shapes[1]));
        /* the same bytes as a SHAPE question are refused: the bit is PSHAPE's */
        static bc_wire_question sq;
        assert_int_equal(bc_wire_decode_question(BC_WIRE_SHAPE, p, hd.length, &sq, why, sizeof why),
                         -1);
        assert_non_null(strstr(why, "unknown option bits 0x10"));
        bc_wbuf_free(&b);
    }
    /* bit 16 without axes-mapping, and a length past 64 */
    const struct {
        uint32_t options, naxes;
        const char *why;
    } bad[] = {{BC_OPT_AXES_UNKNOWN, 1, "needs bit 8 and not bit 4"},
               {BC_OPT_AXES_UNKNOWN | BC_OPT_AXES_MAPPING | BC_OPT_AXES, 1, "needs bit 8"},
               {BC_OPT_AXES_UNKNOWN | BC_OPT_AXES_MAPPING, 65, "the number of axes is 65"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned char payload[64];
        size_t n = 0;
        const uint32_t head[3] = {BC_RULE_EXPLICIT, bad[i].options, 0};
        for (int f = 0; f < 3; f++, n += 4)
            for (int k = 0; k < 4; k++)
                payload[n + (size_t)k] = (unsigned char)(head[f] >> (8 * k));
        for (int k = 0; k < 8; k++)
            payload[n++] = 0xFF; /* axis -1 */
        for (int k = 0; k < 4; k++)
            payload[n++] = (unsigned char)(bad[i].naxes >> (8 * k));
        memset(payload + n, 0, 8); /* no symbols, no shapes */
        n += 8;
        if (bc_wire_decode_pquestion(payload, n, &q, why, sizeof why) != -1 ||
            !strstr(why, bad[i].why))
            fail_msg("bad PSHAPE %zu decoded or said '%s'", i, why);
    }
    /* the HELLO: version 5 declares it, and the harness's gate follows it */
    bc_wire_hello h = sample_hello(), back;
    h.protocol = BC_WIRE_PROTOCOL_AXES_UNKNOWN;
    h.partial =
        BC_ADAPTER_PARTIAL_DYNAMIC | BC_ADAPTER_PARTIAL_SYMBOL | BC_ADAPTER_PARTIAL_AXES_UNKNOWN;
    h.caps.rules |= 1u << BC_RULE_EXPLICIT;
    bc_wbuf b = {0};
    bc_wire_encode_hello(&b, &h);
    bc_wire_header hd;
    const unsigned char *p = payload_of(&b, &hd);
    assert_int_equal(bc_wire_decode_hello(p, hd.length, &back, why, sizeof why), 0);
    assert_int_equal(back.partial, h.partial);
    bc_wbuf_free(&b);
    bc_params params = bc_params_for(BC_RULE_EXPLICIT);
    params.options |= BC_OPT_AXES_MAPPING | BC_OPT_AXES_UNKNOWN;
    params.naxes = 2;
    assert_int_equal(
        bc_caps_refuse_partial(&back.caps, back.partial, &params, 2, shapes, why, sizeof why), 0);
    /* what a worker of version 4 at most can declare: everything but bit 16 */
    assert_int_equal(bc_caps_refuse_partial(&back.caps, back.partial & 0xFu, &params, 2, shapes,
                                            why, sizeof why),
                     1);
    assert_non_null(strstr(why, "axes_mapping of unknown values"));
}

static void test_fatal_round_trip(void **state)
{
    (void)state;
    bc_wbuf b = {0};
    bc_wire_encode_fatal(&b, "cannot load libx.so");
    bc_wire_header hd;
    const unsigned char *p = payload_of(&b, &hd);
    char message[64], why[256];
    assert_int_equal(hd.type, BC_WIRE_FATAL);
    assert_int_equal(bc_wire_decode_fatal(p, hd.length, message, sizeof message, why, sizeof why), 0);
    assert_string_equal(message, "cannot load libx.so");
    bc_wbuf_free(&b);
}

static void test_shape_round_trip(void **state)
{
    (void)state;
    bc_params params = bc_params_for(BC_RULE_EXPLICIT);
    params.options = BC_OPT_AXES | BC_OPT_PROFILE;
    params.naxes = 2;
    params.axes[0] = 0;
    params.axes[1] = -3;
    bc_shape shapes[3] = {shape_of(0), shape_of(2, (int64_t)-1, INT64_MAX), shape_of(1, (int64_t)5)};
    bc_wbuf b = {0};
    bc_wire_encode_shape(&b, 41, &params, 3, shapes);
    bc_wire_header hd;
    const unsigned char *p = payload_of(&b, &hd);
    assert_int_equal(hd.seq, 41);
    bc_wire_question *q = malloc(sizeof *q);
    char why[256];
    assert_int_equal(bc_wire_decode_question(hd.type, p, hd.length, q, why, sizeof why), 0);
    assert_false(q->is_eval);
    assert_int_equal(q->params.rule, BC_RULE_EXPLICIT);
    assert_int_equal(q->params.options, BC_OPT_AXES | BC_OPT_PROFILE);
    assert_int_equal(q->params.naxes, 2);
    assert_int_equal(q->params.axes[1], -3);
    assert_int_equal(q->n, 3);
    for (int i = 0; i < 3; i++)
        assert_true(bc_shape_equal(&q->shapes[i], &shapes[i]));
    free(q);
    bc_wbuf_free(&b);
}

/* Element idx of a view: the same arithmetic as tensor.h states. */
static int32_t element(const void *data, int64_t offset, int rank, const int64_t *strides,
                       const int64_t *idx)
{
    int64_t at = offset;
    for (int k = 0; k < rank; k++)
        at += idx[k] * strides[k];
    int32_t v;
    memcpy(&v, (const char *)data + at * 4, 4);
    return v;
}

/* req encoded as an EVAL frame into b and decoded back (free the result). */
static bc_wire_question *through_the_wire(const bc_eval_request *req, bc_wbuf *b)
{
    char why[256];
    assert_int_equal(bc_wire_encode_eval(b, 9, req, BC_WIRE_PROTOCOL_VERSION, why, sizeof why), 0);
    bc_wire_header hd;
    const unsigned char *p = payload_of(b, &hd);
    bc_wire_question *q = malloc(sizeof *q);
    assert_non_null(q);
    if (bc_wire_decode_question(hd.type, p, hd.length, q, why, sizeof why) != 0)
        fail_msg("the encoded EVAL does not decode: %s", why);
    return q;
}

static void test_eval_round_trip(void **state)
{
    (void)state;
    /* a: [2,3] with a negative stride and an offset; b: [3] with gaps between elements */
    int32_t mem[32];
    for (int i = 0; i < 32; i++)
        mem[i] = 100 + i;
    bc_tensor in[2];
    memset(in, 0, sizeof in);
    in[0] = (bc_tensor){BC_INT32, 2, {2, 3}, {-8, 2}, mem, 20};
    in[1] = (bc_tensor){BC_INT32, 1, {3}, {3}, mem, 5};
    bc_shape shapes[2] = {shape_of(2, (int64_t)2, (int64_t)3), shape_of(1, (int64_t)3)};
    bc_params params = bc_params_for(BC_RULE_NUMPY);
    int32_t out[6];
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &params, 2, shapes, 0, 2, in,
                           BC_INT32, out, 6};
    bc_wbuf b = {0};
    bc_wire_question *q = through_the_wire(&req, &b);
    assert_true(q->is_eval);
    assert_int_equal(q->kind, BC_VALUE_ELEMENTWISE);
    assert_int_equal(q->op, BC_OP_ADD);
    assert_int_equal(q->out_dtype, BC_INT32);
    assert_int_equal(q->out_capacity, 6);
    assert_int_equal(q->ninputs, 2);
    /* Version 2: each input travels from its data pointer to the last element
     * it reaches (25 and 12 elements), its offset as given, then 64 bytes of
     * poison; version 1 sent only the span reached, from offset 0. */
    assert_int_equal(q->inputs[0].nelem, 25 + 16);
    assert_int_equal(q->inputs[1].nelem, 12 + 16);
    assert_int_equal(q->inputs[0].offset, 20);
    assert_int_equal(q->inputs[1].offset, 5);
    for (int t = 0; t < 2; t++) {
        const bc_wire_tensor *w = &q->inputs[t];
        for (int64_t i = w->nelem - 16; i < w->nelem; i++)
            assert_int_equal(element(w->bytes, i, 0, NULL, NULL), (int32_t)0xA5A5A5A5);
        assert_memory_equal(w->bytes, mem, (size_t)(w->nelem - 16) * 4);
    }
    for (int t = 0; t < 2; t++) {
        const bc_wire_tensor *w = &q->inputs[t];
        assert_int_equal(w->rank, in[t].rank);
        assert_memory_equal(w->strides, in[t].strides, sizeof(int64_t) * (size_t)w->rank);
        int64_t idx[2];
        for (idx[0] = 0; idx[0] < in[t].dims[0]; idx[0]++)
            for (idx[1] = 0; idx[1] < (in[t].rank > 1 ? in[t].dims[1] : 1); idx[1]++)
                assert_int_equal(element(w->bytes, w->offset, w->rank, w->strides, idx),
                                 element(mem, in[t].offset, in[t].rank, in[t].strides, idx));
    }
    free(q);
    bc_wbuf_free(&b);
}

/* Offsets reach the worker as given also where version 1 lost them: a
 * one-element view (always rebased to offset 0), a view with no elements,
 * and a view reaching before its data pointer (rebased to its first
 * element, the one case that must move). */
static void test_eval_keeps_offsets(void **state)
{
    (void)state;
    int32_t mem[16];
    for (int i = 0; i < 16; i++)
        mem[i] = 100 + i;
    bc_tensor in[3];
    memset(in, 0, sizeof in);
    in[0] = (bc_tensor){BC_INT32, 2, {1, 1}, {5, -2}, mem, 3};  /* one element, at 3 */
    in[1] = (bc_tensor){BC_INT32, 2, {2, 0}, {1, 1}, mem, 2};   /* no elements, offset 2 */
    in[2] = (bc_tensor){BC_INT32, 1, {3}, {-1}, mem + 8, 1};    /* reaches mem[7..9] */
    bc_shape shapes[3] = {shape_of(2, (int64_t)1, (int64_t)1), shape_of(2, (int64_t)2, (int64_t)0),
                          shape_of(1, (int64_t)3)};
    bc_params params = bc_params_for(BC_RULE_NUMPY);
    int32_t out[1];
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &params, 3, shapes, 0, 3, in,
                           BC_INT32, out, 0};
    bc_wbuf b = {0};
    bc_wire_question *q = through_the_wire(&req, &b);
    assert_int_equal(q->inputs[0].offset, 3);
    assert_int_equal(q->inputs[0].nelem, 4 + 16);
    assert_int_equal(element(q->inputs[0].bytes, 3, 0, NULL, NULL), 103);
    assert_int_equal(q->inputs[1].offset, 2);
    assert_int_equal(q->inputs[1].nelem, 2 + 16);
    assert_int_equal(q->inputs[2].offset, 2);
    assert_int_equal(q->inputs[2].nelem, 3 + 16);
    assert_int_equal(element(q->inputs[2].bytes, 2, 0, NULL, NULL), 109);
    assert_int_equal(element(q->inputs[2].bytes, 0, 0, NULL, NULL), 107);
    free(q);
    bc_wbuf_free(&b);
}

/* pdpd's default profile is named in every question: an adapter never has
 * to know which profile "default" means. */
static void test_default_profile_resolved(void **state)
{
    (void)state;
    bc_params params = bc_params_for(BC_RULE_PDPD);
    bc_shape shapes[2] = {shape_of(1, (int64_t)2), shape_of(1, (int64_t)2)};
    bc_wbuf b = {0};
    bc_wire_encode_shape(&b, 1, &params, 2, shapes);
    bc_wire_header hd;
    const unsigned char *p = payload_of(&b, &hd);
    bc_wire_question *q = malloc(sizeof *q);
    char why[256];
    assert_int_equal(bc_wire_decode_question(hd.type, p, hd.length, q, why, sizeof why), 0);
    assert_true(q->params.options & BC_OPT_PROFILE);
    assert_int_equal(q->params.profile, BC_PROFILE_OPENVINO_DOC);
    /* other rules, and an explicit profile, go as given */
    params = bc_params_for(BC_RULE_NUMPY);
    bc_wire_encode_shape(&b, 2, &params, 2, shapes);
    p = payload_of(&b, &hd);
    assert_int_equal(bc_wire_decode_question(hd.type, p, hd.length, q, why, sizeof why), 0);
    assert_int_equal(q->params.options, 0);
    assert_int_equal(q->params.profile, BC_PROFILE_DEFAULT);
    free(q);
    bc_wbuf_free(&b);
}

static void test_answer_round_trip(void **state)
{
    (void)state;
    bc_wire_answer a, back;
    memset(&a, 0, sizeof a);
    a.status = BC_SUT_OK;
    a.shape = shape_of(2, (int64_t)1, (int64_t)2);
    snprintf(a.message, sizeof a.message, "fine");
    unsigned char bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    a.out = bytes;
    a.nbytes = 8;
    bc_wbuf b = {0};
    bc_wire_encode_answer(&b, 3, &a);
    bc_wire_header hd;
    const unsigned char *p = payload_of(&b, &hd);
    char why[256];
    assert_int_equal(bc_wire_decode_answer(p, hd.length, &back, why, sizeof why), 0);
    assert_int_equal(back.status, BC_SUT_OK);
    assert_true(bc_shape_equal(&back.shape, &a.shape));
    assert_string_equal(back.message, "fine");
    assert_int_equal(back.nbytes, 8);
    assert_memory_equal(back.out, bytes, 8);
    assert_int_equal(bc_wire_expected_output(&back, BC_INT32, 2), 8);
    assert_int_equal(bc_wire_expected_output(&back, BC_INT32, 1), 0); /* no room: shape only */
    back.status = BC_SUT_REJECTED;
    assert_int_equal(bc_wire_expected_output(&back, BC_INT32, 2), 0);
    bc_wbuf_free(&b);
}

/* ---- malformed frames ----------------------------------------------------------- */

/* A frame built field by field: the header, then u32 and i64 values, with
 * the payload length filled in unless `length` overrides it. */
typedef struct raw {
    unsigned char b[256];
    size_t n;
} raw;

static void put(raw *r, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        r->b[r->n++] = (unsigned char)(v >> (8 * i));
}

static raw frame(unsigned type)
{
    raw r = {{BC_WIRE_MAGIC0, BC_WIRE_MAGIC1}, 2};
    put(&r, type, 2);
    put(&r, 1, 4);
    put(&r, 0, 4);
    return r;
}

static void seal(raw *r)
{
    uint32_t len = (uint32_t)(r->n - BC_WIRE_HEADER_SIZE);
    for (int i = 0; i < 4; i++)
        r->b[8 + i] = (unsigned char)(len >> (8 * i));
}

/* An ANSWER: status, kind, flags, rank, dims..., message, nbytes. */
static raw answer_frame(uint32_t status, uint32_t kind, uint32_t flags, uint32_t rank,
                        int ndims, const char *message, int64_t nbytes, int nout)
{
    raw r = frame(BC_WIRE_ANSWER);
    put(&r, status, 4);
    put(&r, kind, 4);
    put(&r, flags, 4);
    put(&r, rank, 4);
    for (int i = 0; i < ndims; i++)
        put(&r, 2, 8);
    size_t len = message ? strlen(message) : 0;
    put(&r, message && message[0] == '\1' ? 5000 : len, 4);
    for (size_t i = 0; message && message[0] != '\1' && i < len; i++)
        r.b[r.n++] = message[i] == '@' ? 0 : (unsigned char)message[i];
    put(&r, (uint64_t)nbytes, 8);
    for (int i = 0; i < nout; i++)
        r.b[r.n++] = 0;
    seal(&r);
    return r;
}

static raw hello_frame(uint32_t version, const char *name, uint32_t rules, int extra)
{
    raw r = frame(BC_WIRE_HELLO);
    put(&r, version, 4);
    const char *texts[3] = {name, "1", "d"};
    for (int t = 0; t < 3; t++) {
        put(&r, strlen(texts[t]), 4);
        memcpy(r.b + r.n, texts[t], strlen(texts[t]));
        r.n += strlen(texts[t]);
    }
    uint32_t caps[7] = {BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE, rules, 0,
                        1u << BC_OP_ADD, 1u << BC_INT32, 64, 64};
    for (int i = 0; i < 7; i++)
        put(&r, caps[i], 4);
    if (extra < 0) /* protocol 2: the partial field holds -extra */
        put(&r, (uint64_t)-extra, 4);
    for (int i = 0; i < extra; i++)
        r.b[r.n++] = 0;
    seal(&r);
    return r;
}

/* A PSHAPE of numpy with one symbol "N" and one shape of `rank` dims, each
 * lo..hi with `symbol`. */
static raw pshape_frame(uint32_t rank, int64_t lo, int64_t hi, uint32_t symbol)
{
    raw r = frame(BC_WIRE_PSHAPE);
    put(&r, BC_RULE_NUMPY, 4);
    put(&r, 0, 4);
    put(&r, 0, 4);
    put(&r, (uint64_t)-1, 8);
    put(&r, 0, 4);
    put(&r, 1, 4); /* one symbol */
    put(&r, 1, 4);
    r.b[r.n++] = 'N';
    put(&r, 1, 4); /* one shape */
    put(&r, rank, 4);
    for (uint32_t k = 0; k < rank && k < 4; k++) {
        put(&r, (uint64_t)lo, 8);
        put(&r, (uint64_t)hi, 8);
        put(&r, symbol, 4);
    }
    seal(&r);
    return r;
}

/* A SHAPE with params (rule) and n shapes of rank 1. */
static raw shape_frame(uint32_t rule, uint32_t n)
{
    raw r = frame(BC_WIRE_SHAPE);
    put(&r, rule, 4);
    put(&r, 0, 4);
    put(&r, 0, 4);
    put(&r, (uint64_t)-1, 8);
    put(&r, 0, 4);
    put(&r, n, 4);
    for (uint32_t i = 0; i < n && i < 8; i++) {
        put(&r, 1, 4);
        put(&r, 3, 8);
    }
    seal(&r);
    return r;
}

/* An EVAL of add on numpy [2] with one int32 input: dims, stride, offset,
 * nelem and the number of inputs as given. */
static raw eval_frame(uint32_t ninputs, int64_t dim, int64_t stride, int64_t offset, int64_t nelem)
{
    raw r = frame(BC_WIRE_EVAL);
    put(&r, BC_VALUE_ELEMENTWISE, 4);
    put(&r, BC_OP_ADD, 4);
    put(&r, 0, 4);
    put(&r, BC_RULE_NUMPY, 4);
    put(&r, 0, 4);
    put(&r, 0, 4);
    put(&r, (uint64_t)-1, 8);
    put(&r, 0, 4);
    put(&r, 1, 4); /* one shape, [2] */
    put(&r, 1, 4);
    put(&r, 2, 8);
    put(&r, BC_INT32, 4);
    put(&r, 2, 8); /* capacity */
    put(&r, ninputs, 4);
    for (uint32_t t = 0; t < ninputs; t++) {
        put(&r, BC_INT32, 4);
        put(&r, 1, 4);
        put(&r, (uint64_t)dim, 8);
        put(&r, (uint64_t)stride, 8);
        put(&r, (uint64_t)offset, 8);
        put(&r, (uint64_t)nelem, 8);
        for (int64_t e = 0; e < nelem && e < 8; e++)
            put(&r, (uint64_t)e, 4);
    }
    seal(&r);
    return r;
}

typedef struct malformed {
    const char *what;
    raw frame;
    const char *diagnosis; /* part of the message the decoder must give */
} malformed;

/* Splits and decodes f as whatever its header says; returns the diagnosis. */
static int diagnose(const raw *f, char *why, size_t cap)
{
    bc_wire_header h;
    const unsigned char *p;
    int got = bc_wire_split(f->b, f->n, &h, &p, why, cap);
    if (got <= 0)
        return got;
    static bc_wire_question q;
    static bc_wire_pquestion pq;
    bc_wire_hello hello;
    bc_wire_answer a;
    switch (h.type) {
    case BC_WIRE_HELLO: return bc_wire_decode_hello(p, h.length, &hello, why, cap);
    case BC_WIRE_PSHAPE: return bc_wire_decode_pquestion(p, h.length, &pq, why, cap);
    case BC_WIRE_ANSWER: return bc_wire_decode_answer(p, h.length, &a, why, cap);
    default: return bc_wire_decode_question(h.type, p, h.length, &q, why, cap);
    }
}

static void test_malformed_frames(void **state)
{
    (void)state;
    raw junk = {"Traceback (most recent call last):", 35};
    raw unknown = frame(0x99);
    seal(&unknown);
    raw huge = frame(BC_WIRE_ANSWER);
    huge.b[11] = 0x7f; /* 2 GB */
    raw cut = answer_frame(0, 0, 0, 0, 0, "", 0, 0);
    cut.b[8] = 3; /* says 3 payload bytes: the status is cut */
    cut.n = BC_WIRE_HEADER_SIZE + 3;
    raw dims_cut = answer_frame(0, 0, 0, 3, 2, "", 0, 0);
    dims_cut.n = BC_WIRE_HEADER_SIZE + 16 + 16; /* status, kind, flags, rank: 3, two dims */
    seal(&dims_cut);
    const malformed table[] = {
        {"junk", junk, "junk on the stream: a frame starts with \"bc\", got \"Traceback (m\""},
        {"unknown type", unknown, "unknown message type 0x0099"},
        {"huge length", huge, "more than the limit"},
        {"field cut short", cut, "truncated: the status needs 4 bytes at offset 0, 3 left"},
        {"rank without its dims", dims_cut,
         "truncated: the dims of the result shape needs 8 bytes at offset 32, 0 left"},
        {"rank 65", answer_frame(0, 0, 0, 65, 0, "", 0, 0),
         "the result shape has rank 65, more than 64"},
        {"status 7", answer_frame(7, 0, 0, 0, 0, "", 0, 0), "the status is 7, expected 0 to 3"},
        {"error kind 99", answer_frame(1, 99, 0, 0, 0, "", 0, 0), "the error kind is 99"},
        {"unknown flags", answer_frame(0, 0, 6, 0, 0, "", 0, 0), "the flags has unknown bits 0x6"},
        {"message too long", answer_frame(0, 0, 0, 0, 0, "\1", 0, 0),
         "the message is 5000 bytes long, at most 4095 allowed"},
        {"NUL in message", answer_frame(0, 0, 0, 0, 0, "ab@c", 0, 0),
         "the message contains a NUL byte"},
        {"output length lies", answer_frame(0, 0, 0, 1, 1, "", 8, 4),
         "the output length says 8 bytes, 4 follow"},
        {"negative output length", answer_frame(0, 0, 0, 0, 0, "", -1, 0),
         "the output length says -1 bytes"},
        {"trailing bytes", hello_frame(1, "w", 2, 3), "3 unexpected bytes after its last field"},
        {"newer protocol", hello_frame(6, "w", 2, 0),
         "the worker speaks protocol version 6; this harness speaks versions 1 to 5"},
        {"an unknown axes_mapping before protocol 5", hello_frame(4, "w", 2, -0x10),
         "partial has unknown bits 0x10"},
        {"partial bits past protocol 5's", hello_frame(5, "w", 2, -0x20),
         "partial has unknown bits 0x20"},
        {"protocol 2 without its partial field", hello_frame(2, "w", 2, 0),
         "truncated: partial needs 4 bytes"},
        {"protocol 3 without its partial field", hello_frame(3, "w", 2, 0),
         "truncated: partial needs 4 bytes"},
        {"unknown partial bits", hello_frame(2, "w", 2, -0x10), "partial has unknown bits 0x10"},
        {"partial dim empty", pshape_frame(1, 5, 4, 0), "the dim at axis 0 is empty (5 > 4)"},
        {"partial rank -2", pshape_frame((uint32_t)-2, 0, 0, 0),
         "shape 0 has rank -2, expected -1 (unknown) to 64"},
        {"symbol past the names", pshape_frame(1, 0, 9, 2), "names symbol 2, past the 1 there are"},
        {"unknown rule bits", hello_frame(1, "w", 0x102, 0), "rules has unknown bits 0x100"},
        {"empty name", hello_frame(1, "", 2, 0), "bad HELLO frame: the name is empty"},
        {"unknown rule", shape_frame(9, 1), "bad SHAPE frame: the rule is 9, expected 0 to 7"},
        {"too many shapes", shape_frame(1, 200), "the number of shapes is 200, expected 0 to 136"},
        {"shapes cut short", shape_frame(1, 20), "truncated: the rank of shape 8"},
        {"input past its elements", eval_frame(1, 2, 1, 1, 2),
         "input 0 reaches elements 1 to 2 of the 2"},
        {"negative input offset", eval_frame(1, 2, -1, 0, 2), "input 0 reaches elements -1 to 0"},
        {"negative input dim", eval_frame(1, -1, 1, 0, 1), "input 0 has dim -1 at axis 0"},
        {"input longer than the frame", eval_frame(1, 2, 1, 0, 1000000),
         "input 0 says it carries 1000000 elements"},
        {"wrong input count", eval_frame(2, 2, 1, 0, 2), "2 inputs, the question needs 1"},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        char why[512] = "";
        int got = diagnose(&table[i].frame, why, sizeof why);
        if (got != -1 || !strstr(why, table[i].diagnosis))
            fail_msg("%s: got %d '%s', expected a diagnosis containing '%s'", table[i].what, got,
                     why, table[i].diagnosis);
    }
    /* A frame still arriving is not an error: split asks for more bytes. */
    raw whole = answer_frame(0, 0, 0, 0, 0, "", 0, 0);
    bc_wire_header h;
    const unsigned char *p;
    char why[128];
    for (size_t n = 0; n < whole.n; n++)
        assert_int_equal(bc_wire_split(whole.b, n, &h, &p, why, sizeof why), 0);
}

/* ---- malformed streams from a real worker ------------------------------------ */

/* Writes bytes to a new temporary file, its path into path[64]. */
static void bytes_file(char *path, const raw *frames, int count, const char *tail,
                       size_t tail_len)
{
    strcpy(path, "/tmp/bc_stream_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    for (int i = 0; i < count; i++)
        assert_int_equal(write(fd, frames[i].b, frames[i].n), (ssize_t)frames[i].n);
    if (tail_len)
        assert_int_equal(write(fd, tail, tail_len), (ssize_t)tail_len);
    close(fd);
}

/* A worker that plays frames[0] (its HELLO, if count > 0), waits for the
 * question, then plays the other frames and the tail, and asks it one
 * shape question (or eval).  (Frames sent before the question is asked
 * belong to no question: the harness discards such a worker.) */
static void play(const raw *frames, int count, const char *tail, size_t tail_len, int eval,
                 const char *open_error, const char *answer_error)
{
    char first[64], rest[64], spec[256], why[1024] = "";
    bytes_file(first, frames, count > 0 ? 1 : 0, NULL, 0);
    bytes_file(rest, frames + (count > 0), count > 0 ? count - 1 : 0, tail, tail_len);
    if (count > 0)
        snprintf(spec, sizeof spec, "exec:cat %s; head -c 1 >/dev/null; cat %s", first, rest);
    else
        snprintf(spec, sizeof spec, "exec:cat %s", first);
    bc_sut_options o = bc_sut_options_default();
    o.timeout_ms = 3000;
    const bc_sut *sut = bc_sut_open(spec, &o, why, sizeof why);
    if (open_error) {
        unlink(first);
        unlink(rest);
        assert_null(sut);
        if (!strstr(why, open_error))
            fail_msg("opening: '%s' does not contain '%s'", why, open_error);
        return;
    }
    assert_non_null(sut);
    bc_params params = bc_params_for(BC_RULE_NUMPY);
    bc_shape shapes[2] = {shape_of(1, (int64_t)2), shape_of(1, (int64_t)2)};
    bc_sut_answer a;
    memset(&a, 0, sizeof a);
    if (eval) {
        int32_t x[2] = {1, 2}, out[2];
        bc_tensor in[2] = {bc_tensor_contiguous(BC_INT32, &shapes[0], x),
                           bc_tensor_contiguous(BC_INT32, &shapes[1], x)};
        bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &params, 2, shapes, 0, 2, in,
                               BC_INT32, out, 2};
        sut->ops->eval(sut, &req, &a);
    } else {
        sut->ops->infer_shape(sut, &params, 2, shapes, &a);
    }
    unlink(first);
    unlink(rest);
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    if (!strstr(a.message, answer_error))
        fail_msg("answer: '%s' does not contain '%s'", a.message, answer_error);
    bc_sut_close(sut);
}

static void test_malformed_streams(void **state)
{
    (void)state;
    raw hello = hello_frame(1, "w", 2, 0);
    raw ok = answer_frame(0, 0, 0, 1, 1, "", 0, 0);
    raw stale = ok;
    stale.b[4] = 7;
    raw short_out = answer_frame(0, 0, 0, 1, 1, "", 4, 4); /* [2] of int32 needs 8 bytes */
    raw shape_with_out = answer_frame(0, 0, 0, 1, 1, "", 4, 4);
    raw fatal = frame(BC_WIRE_FATAL);
    put(&fatal, 13, 4);
    memcpy(fatal.b + fatal.n, "no such thing", 13);
    fatal.n += 13;
    seal(&fatal);
    raw two_hellos[2] = {hello, hello};
    raw hello_stale[2] = {hello, stale};
    raw hello_short[2] = {hello, short_out};
    raw hello_shape_out[2] = {hello, shape_with_out};

    play(NULL, 0, NULL, 0, 0, "worker exited with status 0 before its HELLO", NULL);
    play(&fatal, 1, NULL, 0, 0, "no such thing", NULL);
    play(&ok, 1, NULL, 0, 0, "protocol error: the first frame is ANSWER, expected HELLO", NULL);
    play(&hello, 1, "oops\n", 5, 0, NULL, "protocol error: junk on the stream");
    play(&hello, 1, "bc\x20\0", 4, 0, NULL,
         "worker exited with status 0 while answering (in the middle of a frame)");
    play(&hello, 1, NULL, 0, 0, NULL, "worker exited with status 0 while answering");
    play(two_hellos, 2, NULL, 0, 0, NULL, "expected an ANSWER frame, got HELLO");
    play(hello_stale, 2, NULL, 0, 0, NULL, "the ANSWER is for question 7, expected 1");
    play(hello_short, 2, NULL, 0, 1, NULL,
         "protocol error: an output of 4 bytes, expected 8 (the answer's shape [2] of int32");
    play(hello_shape_out, 2, NULL, 0, 0, NULL, "a shape answer carrying 4 output bytes");
    /* one question, one answer: a second frame is this question's error */
    raw hello_two_answers[3] = {hello, ok, ok};
    play(hello_two_answers, 3, NULL, 0, 0, NULL,
         "protocol error: the worker sent more bytes after its ANSWER");
    play(hello_two_answers, 2, "junk", 4, 0, NULL, "the worker sent more bytes after its ANSWER");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_round_trip),
        cmocka_unit_test(test_hello_versions),
        cmocka_unit_test(test_many_operands),
        cmocka_unit_test(test_pshape_round_trip),
        cmocka_unit_test(test_unknown_mapping_wire),
        cmocka_unit_test(test_fatal_round_trip),
        cmocka_unit_test(test_shape_round_trip),
        cmocka_unit_test(test_eval_round_trip),
        cmocka_unit_test(test_eval_keeps_offsets),
        cmocka_unit_test(test_default_profile_resolved),
        cmocka_unit_test(test_answer_round_trip),
        cmocka_unit_test(test_malformed_frames),
        cmocka_unit_test(test_malformed_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
