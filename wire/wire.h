/*
 * Private to the harness (isolation/) and the worker: the wire protocol of wire/PROTOCOL.md,
 * encoders and the one decoder, shared by the harness (isolation/) and
 * broadcheck-worker (worker/).  Nothing here does I/O: frames are built in
 * and parsed from memory, so every diagnosis can be tested on bytes.
 */
#ifndef BROADCHECK_WIRE_H
#define BROADCHECK_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "broadcheck/adapter.h"
#include "broadcheck/sut.h"

/* The newest protocol this build speaks, and the oldest it accepts from a
 * worker.  Version 2 added partial shapes (PSHAPE, HELLO's partial field);
 * a worker that takes none may still say version 1, byte for byte as before.
 * Version 3 sends EVAL inputs as the harness laid them out (their offset as
 * generated, from the data pointer, then a poison margin); a worker of
 * version 1 or 2 gets them rebased to their first element, as before, and
 * its offsets go unexercised (the SUT's description says so).  Version 4
 * lets HELLO's max_operands pass 72 (up to BC_WIRE_MAX_SHAPES, 136); a
 * worker of an older version declaring more is refused. */
#define BC_WIRE_PROTOCOL_VERSION 5u
#define BC_WIRE_PROTOCOL_OLDEST 1u
#define BC_WIRE_PROTOCOL_PARTIAL 2u
#define BC_WIRE_PROTOCOL_LAYOUT 3u
#define BC_WIRE_PROTOCOL_MANY_OPERANDS 4u
/* PSHAPE may carry an axes_mapping of unknown values (partial bit 16) */
#define BC_WIRE_PROTOCOL_AXES_UNKNOWN 5u
/* PSHAPE naxes of an axes_mapping whose length is unknown too (protocol 5) */
#define BC_WIRE_NAXES_UNKNOWN 0xFFFFFFFFu
#define BC_WIRE_HEADER_SIZE 12
#define BC_WIRE_MAGIC0 'b'
#define BC_WIRE_MAGIC1 'c'
/* Larger frames are refused unread: a junk length must not make the
 * harness allocate gigabytes. */
#define BC_WIRE_MAX_PAYLOAD (256u << 20)
#define BC_WIRE_MAX_SHAPES BC_ADAPTER_MAX_OPERANDS
#define BC_WIRE_V3_MAX_SHAPES BC_ADAPTER_V1_MAX_OPERANDS /* versions 1 to 3 */
#define BC_WIRE_MAX_NAME 255
#define BC_WIRE_MAX_DESCRIPTION 1023
#define BC_WIRE_MAX_MESSAGE 4095

typedef enum bc_wire_type {
    BC_WIRE_HELLO = 0x01,  /* worker -> harness, first frame */
    BC_WIRE_FATAL = 0x02,  /* worker -> harness: cannot serve (then exits) */
    BC_WIRE_SHAPE = 0x10,  /* harness -> worker: a shape question */
    BC_WIRE_EVAL = 0x11,   /* harness -> worker: a value question */
    BC_WIRE_PSHAPE = 0x12, /* harness -> worker: a partial-shape question (protocol 2) */
    BC_WIRE_EVAL_SHM = 0x13, /* harness -> worker: a value question in a shared file, only
                                to a worker declaring BC_WIRE_FEATURE_SHM */
    BC_WIRE_ANSWER = 0x20  /* worker -> harness */
} bc_wire_type;

/* HELLO features bit 6 (after adapter.h's BC_ADAPTER_FEATURE_* bits 0 to 5):
 * the worker takes EVAL_SHM questions, whose inputs and output live in a
 * file the harness shares (wire/PROTOCOL.md, "EVAL_SHM").  A transport
 * feature of the worker, never an adapter's: appended to protocol 3 the way
 * bit 5 was (an older harness refuses the unknown bit, an older worker never
 * sets it); a worker of protocol 1 or 2 may not set it. */
#define BC_WIRE_FEATURE_SHM (1u << 6)
#define BC_WIRE_KNOWN_FEATURES 0x7Fu
/* Every region of a shared file starts at a multiple of this. */
#define BC_WIRE_SHM_ALIGN 4096
#define BC_WIRE_MAX_PATH 4095

/* ANSWER flags */
enum { BC_WIRE_RETIRE = 1u << 0 }; /* the worker exits after this answer */

const char *bc_wire_type_name(unsigned type); /* "HELLO", ..., or "unknown" */

/* ---- writing ---------------------------------------------------------- */

typedef struct bc_wbuf {
    unsigned char *data;
    size_t len, cap;
    int failed; /* out of memory: every later write is dropped */
} bc_wbuf;

void bc_wbuf_free(bc_wbuf *b);
void bc_wbuf_u32(bc_wbuf *b, uint32_t v);
void bc_wbuf_i64(bc_wbuf *b, int64_t v);
void bc_wbuf_bytes(bc_wbuf *b, const void *p, size_t n);
void bc_wbuf_str(bc_wbuf *b, const char *s, size_t max); /* u32 length + bytes, cut at max */
/* Starts a frame at the end of b (b->len is reset to 0 first); returns 0. */
void bc_wbuf_frame_begin(bc_wbuf *b, unsigned type, uint32_t seq);
/* Fills in the payload length; returns 0, or -1 (out of memory or too large). */
int bc_wbuf_frame_end(bc_wbuf *b);

/* ---- reading ---------------------------------------------------------- */

typedef struct bc_wire_header {
    unsigned type;
    uint32_t seq;
    uint32_t length; /* of the payload */
} bc_wire_header;

/* Parses the 12 header bytes: magic, a known type, a length within
 * BC_WIRE_MAX_PAYLOAD.  Returns 0, or -1 with the diagnosis. */
int bc_wire_parse_header(const unsigned char *h, bc_wire_header *out, char *why, size_t cap);

/* Finds one whole frame at the start of data[len]: 1 (header and payload
 * set), 0 (need more bytes), -1 (a bad header, diagnosed). */
int bc_wire_split(const unsigned char *data, size_t len, bc_wire_header *h,
                  const unsigned char **payload, char *why, size_t cap);

/* Makes text a worker sent (names, messages, its stderr) safe to print on
 * a terminal and in one-line reports, in place: every byte of an invalid
 * UTF-8 sequence, every control character (C0 including newline and tab,
 * DEL, and C1 such as the 8-bit CSI U+009B) becomes '?', so no escape
 * sequence reaches a terminal.  Returns s. */
char *bc_wire_printable(char *s);

/* ---- messages ----------------------------------------------------------- */

typedef struct bc_wire_hello {
    uint32_t protocol;
    char name[BC_WIRE_MAX_NAME + 1];
    char version[BC_WIRE_MAX_NAME + 1];
    char description[BC_WIRE_MAX_DESCRIPTION + 1];
    bc_adapter_capabilities caps;
    uint32_t partial; /* BC_ADAPTER_PARTIAL_*; protocol 2 and later, else 0 */
} bc_wire_hello;

/* A tensor on the wire: a view over `nelem` elements at `bytes`
 * (unaligned, inside the frame). */
typedef struct bc_wire_tensor {
    bc_dtype dtype;
    int rank;
    int64_t dims[BC_MAX_RANK];
    int64_t strides[BC_MAX_RANK];
    int64_t offset;
    int64_t nelem;
    const unsigned char *bytes; /* EVAL_SHM: NULL until the worker maps the file */
    int64_t file_offset;        /* EVAL_SHM: where its elements start in the file */
} bc_wire_tensor;

/* A question, as the worker decodes it. */
typedef struct bc_wire_question {
    int is_eval;
    bc_params params;
    int n;
    bc_shape shapes[BC_WIRE_MAX_SHAPES];
    /* with is_eval */
    bc_value_op kind;
    bc_op op;
    int operand;
    bc_dtype out_dtype;
    int64_t out_capacity;
    int ninputs;
    bc_wire_tensor inputs[BC_WIRE_MAX_SHAPES];
    /* EVAL_SHM: the shared file, and where the output goes in it: out_capacity
     * elements from shm_out_offset, then shm_out_guard poison bytes that must
     * stay poison.  The worker maps the file and sets each input's bytes. */
    int shm;
    char shm_path[BC_WIRE_MAX_PATH + 1];
    int64_t shm_size, shm_out_offset, shm_out_guard;
    unsigned char *shm_map; /* the worker's mapping of the file (not on the wire) */
} bc_wire_question;

typedef struct bc_wire_answer {
    bc_sut_status status;
    bc_error_kind kind;
    uint32_t flags;          /* BC_WIRE_RETIRE */
    bc_shape shape;
    char message[BC_WIRE_MAX_MESSAGE + 1];
    uint64_t nbytes;         /* output bytes */
    const unsigned char *out; /* decoding: inside the frame */
} bc_wire_answer;

/* A partial-shape question (PSHAPE) and its answer (an ANSWER frame whose
 * payload has a partial shape: wire/PROTOCOL.md). */
typedef struct bc_wire_pquestion {
    bc_params params;
    bc_psymbols syms;
    int n;
    bc_pshape shapes[BC_WIRE_MAX_SHAPES];
} bc_wire_pquestion;

typedef struct bc_wire_panswer {
    bc_sut_status status;
    bc_error_kind kind;
    uint32_t flags; /* BC_WIRE_RETIRE */
    bc_pshape shape;
    char message[BC_WIRE_MAX_MESSAGE + 1];
} bc_wire_panswer;

void bc_wire_encode_pshape(bc_wbuf *b, uint32_t seq, const bc_params *p, int n,
                           const bc_pshape *shapes, const bc_psymbols *syms);
int bc_wire_decode_pquestion(const unsigned char *p, size_t len, bc_wire_pquestion *q,
                             char *why, size_t cap);
void bc_wire_encode_panswer(bc_wbuf *b, uint32_t seq, const bc_wire_panswer *a);
int bc_wire_decode_panswer(const unsigned char *p, size_t len, bc_wire_panswer *a, char *why,
                           size_t cap);

void bc_wire_encode_hello(bc_wbuf *b, const bc_wire_hello *h);
void bc_wire_encode_fatal(bc_wbuf *b, const char *message);
void bc_wire_encode_shape(bc_wbuf *b, uint32_t seq, const bc_params *p, int n,
                          const bc_shape *shapes);
/* Ships every input from its data pointer to the last element it reaches,
 * with its offset, then guard.h's poison margin (PROTOCOL.md, version 3);
 * to a worker of an older protocol, only the elements each view reaches,
 * rebased.  pdpd's default profile is named.  Returns 0, or -1 with why if
 * an input is not a valid view (then b is unusable). */
int bc_wire_encode_eval(bc_wbuf *b, uint32_t seq, const bc_eval_request *req,
                        uint32_t protocol, char *why, size_t cap);
/* Where an input's bytes come from, as bc_wire_encode_eval ships them:
 * elements [first, end) from t->data, then `margin` elements of poison
 * (protocol 3 and later; 0 before).  Returns 0, or -1 with why if t is not a
 * valid view. */
typedef struct bc_wire_span {
    int64_t first, end, margin;
} bc_wire_span;
int bc_wire_input_span(const bc_tensor *t, int index, uint32_t protocol, bc_wire_span *span,
                       char *why, size_t cap);

/* The bytes an EVAL frame for req would carry (inputs and their margins
 * with the fixed fields), and the bytes of its answer's output; -1 if an
 * input is not a valid view. */
int64_t bc_wire_eval_bytes(const bc_eval_request *req, uint32_t protocol, int64_t *answer_bytes);

/* The layout of a shared file for an EVAL_SHM question: each input's span
 * (as in-frame, with its poison margin) in its own region, then the output
 * and BC_GUARD_OUTPUT_MARGIN guard bytes; every region at a multiple of
 * BC_WIRE_SHM_ALIGN, every byte that is not an input element poison. */
typedef struct bc_wire_shm_plan {
    bc_wire_span spans[BC_WIRE_MAX_SHAPES];
    int64_t input_offset[BC_WIRE_MAX_SHAPES]; /* bytes from the file's start */
    int64_t input_bytes[BC_WIRE_MAX_SHAPES];  /* elements and margin, in bytes */
    int64_t out_offset, out_bytes, out_guard;
    int64_t size; /* of the whole file */
} bc_wire_shm_plan;
int bc_wire_plan_shm(const bc_eval_request *req, bc_wire_shm_plan *plan, char *why, size_t cap);
/* An EVAL_SHM frame for req laid out by plan in the file at path. */
void bc_wire_encode_eval_shm(bc_wbuf *b, uint32_t seq, const bc_eval_request *req,
                             const bc_wire_shm_plan *plan, const char *path);

/* a->out / a->nbytes are the output bytes (0 for a shape answer). */
void bc_wire_encode_answer(bc_wbuf *b, uint32_t seq, const bc_wire_answer *a);

/* Each decoder checks every field against its range and that the payload
 * is consumed exactly; returns 0, or -1 with a diagnosis naming the field. */
int bc_wire_decode_hello(const unsigned char *p, size_t len, bc_wire_hello *h, char *why,
                         size_t cap);
int bc_wire_decode_fatal(const unsigned char *p, size_t len, char *message, size_t message_cap,
                         char *why, size_t cap);
int bc_wire_decode_question(unsigned type, const unsigned char *p, size_t len,
                            bc_wire_question *q, char *why, size_t cap);
int bc_wire_decode_answer(const unsigned char *p, size_t len, bc_wire_answer *a, char *why,
                          size_t cap);

/* The output bytes an answer to a value question must carry:
 * numel(shape) * dtype size when the status is OK and the shape fits
 * out_capacity, else 0. */
uint64_t bc_wire_expected_output(const bc_wire_answer *a, bc_dtype out_dtype,
                                 int64_t out_capacity);

#endif
