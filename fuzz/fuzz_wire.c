/*
 * The wire protocol's decoders on any byte stream, as a worker or the
 * harness would receive it: split into frames, each decoded by its type.
 * Nothing may crash or read past the frame; a decoded answer, encoded again,
 * must decode to the same answer; a decoded question's tensors must lie
 * inside the bytes that came with them.
 */
#include <string.h>

#include "fuzz.h"
#include "wire/wire.h"

/* The element range a wire tensor's view reaches must be within nelem. */
static void check_tensor(const bc_wire_tensor *t)
{
    int64_t lo = t->offset, hi = t->offset;
    for (int k = 0; k < t->rank; k++) {
        if (t->dims[k] == 0)
            return; /* no elements: nothing is read */
        int64_t span = (t->dims[k] - 1) * t->strides[k];
        lo += span < 0 ? span : 0;
        hi += span > 0 ? span : 0;
    }
    BC_FUZZ_CHECK(lo >= 0 && hi < t->nelem, "a view reaches [%lld, %lld] of %lld elements",
                  (long long)lo, (long long)hi, (long long)t->nelem);
}

static void answer_round_trip(const bc_wire_answer *a)
{
    bc_wbuf b;
    memset(&b, 0, sizeof b);
    bc_wire_encode_answer(&b, 7, a);
    bc_wire_header h;
    const unsigned char *payload;
    char why[512];
    BC_FUZZ_CHECK(bc_wire_split(b.data, b.len, &h, &payload, why, sizeof why) == 1,
                  "an encoded answer does not split: %s", why);
    static bc_wire_answer again;
    BC_FUZZ_CHECK(bc_wire_decode_answer(payload, h.length, &again, why, sizeof why) == 0,
                  "an encoded answer does not decode: %s", why);
    BC_FUZZ_CHECK(again.status == a->status && again.kind == a->kind &&
                      bc_shape_equal(&again.shape, &a->shape) && again.nbytes == a->nbytes &&
                      strcmp(again.message, a->message) == 0,
                  "an answer changed in the round trip");
    bc_wbuf_free(&b);
}

/* A decoded partial answer (protocol 2), encoded again, decodes the same. */
static void panswer_round_trip(const bc_wire_panswer *a)
{
    bc_wbuf b;
    memset(&b, 0, sizeof b);
    bc_wire_encode_panswer(&b, 7, a);
    bc_wire_header h;
    const unsigned char *payload;
    char why[512];
    BC_FUZZ_CHECK(bc_wire_split(b.data, b.len, &h, &payload, why, sizeof why) == 1,
                  "an encoded partial answer does not split: %s", why);
    static bc_wire_panswer again;
    BC_FUZZ_CHECK(bc_wire_decode_panswer(payload, h.length, &again, why, sizeof why) == 0,
                  "an encoded partial answer does not decode: %s", why);
    BC_FUZZ_CHECK(again.status == a->status && again.kind == a->kind &&
                      bc_pshape_equal(&again.shape, &a->shape) &&
                      strcmp(again.message, a->message) == 0,
                  "a partial answer changed in the round trip");
    bc_wbuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bc_wire_question q; /* large: not on the stack */
    static bc_wire_pquestion pq;
    static bc_wire_panswer panswer;
    static bc_wire_hello hello;
    static bc_wire_answer answer;
    char why[512], message[BC_WIRE_MAX_MESSAGE + 1];
    const unsigned char *at = data;
    size_t left = size;
    for (;;) {
        bc_wire_header h;
        const unsigned char *payload;
        int r = bc_wire_split(at, left, &h, &payload, why, sizeof why);
        if (r <= 0)
            break; /* need more bytes, or a bad header (diagnosed) */
        switch (h.type) {
        case BC_WIRE_HELLO:
            bc_wire_decode_hello(payload, h.length, &hello, why, sizeof why);
            break;
        case BC_WIRE_FATAL:
            bc_wire_decode_fatal(payload, h.length, message, sizeof message, why, sizeof why);
            break;
        case BC_WIRE_SHAPE:
        case BC_WIRE_EVAL:
            if (bc_wire_decode_question(h.type, payload, h.length, &q, why, sizeof why) == 0) {
                BC_FUZZ_CHECK(q.n >= 0 && q.n <= BC_WIRE_MAX_SHAPES, "n %d", q.n);
                for (int i = 0; q.is_eval && i < q.ninputs; i++)
                    check_tensor(&q.inputs[i]);
            }
            break;
        case BC_WIRE_PSHAPE:
            if (bc_wire_decode_pquestion(payload, h.length, &pq, why, sizeof why) == 0)
                for (int i = 0; i < pq.n; i++)
                    for (int k = 0; k < pq.shapes[i].rank; k++)
                        BC_FUZZ_CHECK(pq.shapes[i].dims[k].lo <= pq.shapes[i].dims[k].hi &&
                                          pq.shapes[i].dims[k].sym <= pq.syms.count,
                                      "a decoded partial dim out of its range");
            break;
        default:
            /* an ANSWER: in the layout of a SHAPE/EVAL answer or of a PSHAPE's */
            if (bc_wire_decode_answer(payload, h.length, &answer, why, sizeof why) == 0)
                answer_round_trip(&answer);
            if (bc_wire_decode_panswer(payload, h.length, &panswer, why, sizeof why) == 0)
                panswer_round_trip(&panswer);
            break;
        }
        size_t used = (size_t)(payload - at) + h.length;
        at += used;
        left -= used;
    }
    return 0;
}
