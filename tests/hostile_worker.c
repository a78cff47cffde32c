/*
 * A worker that misbehaves on purpose, for tests/test_faults.c: it speaks
 * the wire protocol on stdin/stdout (run as `--sut exec:bc_hostile_worker
 * ...`), declares shape questions on every rule, and answers as the
 * reference does, except as its options say:
 *
 *   --on RULE       the misbehaviours given after it apply to questions of
 *                   RULE only (before any --on: to every question)
 *   --wrong-rank R  a wrong result shape (one axis more) when the first
 *                   shape has rank R ("any": every rank): an ordinary
 *                   property failure
 *   --never         never answers (reads and ignores the questions)
 *   --hang-once FILE  the first question of all its workers (the one that
 *                   creates FILE, O_EXCL) is never answered; every later
 *                   one is, by any worker: a SUT slow once, as a correct
 *                   one is on a saturated machine, keyed on a file, not on
 *                   a clock
 *   --spin          writes its pid to the --marker file, then spins at
 *                   100 % CPU forever
 *   --double        sends its answer twice, in one write
 *   --huge MB       sends an ANSWER frame of MB megabytes (within the
 *                   protocol's limit, far past what a shape answer needs)
 *   --zero-pairs-any  on two-operand questions a 0 dim pairs with any dim,
 *                   giving the other (0 with 1 gives 1, 0 with 5 gives 5):
 *                   two bugs in one, each with its own kind of failure
 *   --escape        answers "internal error" with a message full of
 *                   terminal escapes; its HELLO name has some too
 *   --partial       also declares partial shapes (every kind) and answers
 *                   them as the reference does; --hang-once applies to them
 *   --marker FILE   where --spin says it is spinning (written, then renamed)
 *   --log FILE      appends one line per question received
 *   --max-elements N  refuses (error:overflow) a case the rule accepts when
 *                   its result has more than N elements (a library's
 *                   element limit, spec/RULES.md §9.4: N =
 *                   9223372036854775807 is the limit semantics max_elements
 *                   "int64" declares)
 *   --refuse-empty  with --max-elements, also refuses an empty result whose
 *                   nonzero dims multiply past INT64_MAX (as Octave does)
 *   --slow-restart FILE  the first start creates FILE and goes on; every
 *                   later start (FILE exists) sleeps before its HELLO, as a
 *                   library's import can on a loaded machine
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "broadcheck/partial.h"
#include "wire/wire.h"

/* A misbehaviour and the rule it applies to (-1: every rule; 0: off). */
typedef struct when {
    int on;
    int rule;
} when;

typedef struct options {
    int64_t max_elements; /* 0: no limit */
    int refuse_empty;
    int partial; /* declares and answers partial shapes */
    int wrong_rank;
    when wrong, never, spin, dbl, escape, huge, zero_pairs, hang;
    long huge_mb;
    const char *marker, *log, *slow_restart, *hang_once;
} options;

static int applies(when w, const bc_wire_question *q)
{
    return w.on && (w.rule < 0 || w.rule == (int)q->params.rule);
}

static const char escapes[] = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\xc2\x9b" "31m\r\n";

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void say_spinning(const char *marker)
{
    char tmp[4096], pid[32];
    snprintf(tmp, sizeof tmp, "%s.part", marker);
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        write_all(fd, pid, (size_t)len);
        close(fd);
        rename(tmp, marker); /* the test sees the whole pid or nothing */
    }
    for (volatile unsigned long spins = 0;; spins++)
        continue;
}

static void log_question(const char *log)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        write_all(fd, "question\n", 9);
        close(fd);
    }
}

/* Reads one whole frame into *buf; 1, or 0 at the end of the input. */
static int read_frame(bc_wbuf *in, bc_wire_header *h, const unsigned char **payload)
{
    char why[256];
    for (;;) {
        int got = bc_wire_split(in->data, in->len, h, payload, why, sizeof why);
        if (got < 0)
            exit(3);
        if (got == 1)
            return 1;
        if (in->cap < in->len + 65536) {
            in->cap = in->len + 65536 + (in->len >= 12 ? h->length : 0);
            in->data = realloc(in->data, in->cap);
            if (!in->data)
                exit(4);
        }
        ssize_t n = read(0, in->data + in->len, in->cap - in->len);
        if (n <= 0)
            return 0;
        in->len += (size_t)n;
    }
}

/* Right-aligned broadcasting of q's two shapes in which a 0 pairs with
 * anything, giving the other dim; a real mismatch stays a rejection. */
static void zero_pairs_any(const bc_wire_question *q, bc_wire_answer *a)
{
    const bc_shape *s = q->shapes;
    bc_shape out;
    out.rank = s[0].rank > s[1].rank ? s[0].rank : s[1].rank;
    for (int r = 0; r < out.rank; r++) {
        int k0 = r - (out.rank - s[0].rank), k1 = r - (out.rank - s[1].rank);
        int64_t x = k0 >= 0 ? s[0].dims[k0] : 1, y = k1 >= 0 ? s[1].dims[k1] : 1;
        if (x < 0 || y < 0 || (x != y && x > 1 && y > 1))
            return;
        out.dims[r] = x == 0 || y == 0 ? (x > y ? x : y) : x == 1 ? y : x;
    }
    a->status = BC_SUT_OK;
    a->kind = BC_OK;
    a->shape = out;
}

/* 1 for the first question of all the workers sharing FILE (it creates it). */
static int first_of_all(const char *file)
{
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

static void answer(const options *o, const bc_wire_question *q, uint32_t seq)
{
    if (applies(o->never, q) || (applies(o->hang, q) && first_of_all(o->hang_once)))
        return;
    if (applies(o->spin, q))
        say_spinning(o->marker);
    static bc_wire_answer a;
    memset(&a, 0, sizeof a);
    bc_error err;
    bc_error_kind kind = bc_infer(&q->params, q->n, q->shapes, &a.shape, &err);
    a.status = kind == BC_OK ? BC_SUT_OK : BC_SUT_REJECTED;
    a.kind = kind;
    if (o->max_elements > 0 && kind == BC_OK) {
        /* the product of the nonzero dims, as a library multiplies them out
         * before it sees a 0; past INT64_MAX, or an element count past N */
        int64_t product = 1;
        int empty = 0, over = 0;
        for (int k = 0; k < a.shape.rank; k++) {
            if (a.shape.dims[k] == 0)
                empty = 1;
            else if (!over && __builtin_mul_overflow(product, a.shape.dims[k], &product))
                over = 1;
        }
        if ((over && (!empty || o->refuse_empty)) || (!empty && product > o->max_elements)) {
            a.status = BC_SUT_REJECTED;
            a.kind = BC_ERR_OVERFLOW;
        }
    }
    if (applies(o->wrong, q) && kind == BC_OK && q->n > 0 &&
        (o->wrong_rank < 0 || q->shapes[0].rank == o->wrong_rank) && a.shape.rank < BC_MAX_RANK)
        a.shape.dims[a.shape.rank++] = 1;
    if (applies(o->zero_pairs, q) && q->n == 2)
        zero_pairs_any(q, &a);
    if (applies(o->escape, q)) {
        a.status = BC_SUT_INTERNAL_ERROR;
        a.kind = BC_OK;
        snprintf(a.message, sizeof a.message, "bad %s news", escapes);
    }
    bc_wbuf out = {0};
    if (applies(o->huge, q)) {
        /* a frame that says, and carries, huge_mb megabytes */
        size_t len = (size_t)o->huge_mb << 20;
        unsigned char head[12] = {BC_WIRE_MAGIC0, BC_WIRE_MAGIC1, BC_WIRE_ANSWER, 0};
        memcpy(head + 4, &seq, 4);
        uint32_t n32 = (uint32_t)len;
        memcpy(head + 8, &n32, 4);
        char *junk = calloc(1, len);
        if (!junk || write_all(1, head, sizeof head) != 0 || write_all(1, junk, len) != 0)
            exit(0);
        free(junk);
        return;
    }
    bc_wire_encode_answer(&out, seq, &a);
    if (applies(o->dbl, q)) {
        unsigned char *copy = malloc(out.len);
        if (!copy)
            exit(4);
        memcpy(copy, out.data, out.len);
        bc_wbuf_bytes(&out, copy, out.len); /* the same frame again, in the same write */
        free(copy);
    }
    if (write_all(1, out.data, out.len) != 0)
        exit(0);
    bc_wbuf_free(&out);
}

/* A partial-shape question: the reference's answer, or none (--hang-once). */
static void answer_partial(const options *o, const unsigned char *payload, uint32_t len,
                           uint32_t seq)
{
    static bc_wire_pquestion q;
    static bc_wire_panswer a;
    char why[512];
    if (bc_wire_decode_pquestion(payload, len, &q, why, sizeof why) != 0)
        exit(3);
    if (o->hang.on && (o->hang.rule < 0 || o->hang.rule == (int)q.params.rule) &&
        first_of_all(o->hang_once))
        return;
    memset(&a, 0, sizeof a);
    bc_error_kind kind = bc_pinfer(&q.params, q.n, q.shapes, &q.syms, &a.shape, NULL);
    a.status = kind == BC_OK ? BC_SUT_OK : BC_SUT_REJECTED;
    a.kind = kind;
    bc_wbuf out = {0};
    bc_wire_encode_panswer(&out, seq, &a);
    if (write_all(1, out.data, out.len) != 0)
        exit(0);
    bc_wbuf_free(&out);
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    const char *name = "hostile";
    int rule = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--on") == 0 && v) {
            bc_rule r;
            if (bc_rule_from_name(v, &r) != 0)
                return 2;
            rule = (int)r;
            i++;
        } else if (strcmp(a, "--wrong-rank") == 0 && v) {
            o.wrong_rank = strcmp(v, "any") == 0 ? -1 : atoi(v);
            o.wrong = (when){1, rule};
            i++;
        } else if (strcmp(a, "--max-elements") == 0 && v) {
            o.max_elements = strtoll(v, NULL, 10);
            i++;
        } else if (strcmp(a, "--refuse-empty") == 0) {
            o.refuse_empty = 1;
        } else if (strcmp(a, "--huge") == 0 && v) {
            o.huge_mb = atol(v);
            o.huge = (when){1, rule};
            i++;
        } else if (strcmp(a, "--marker") == 0 && v) {
            o.marker = v;
            i++;
        } else if (strcmp(a, "--log") == 0 && v) {
            o.log = v;
            i++;
        } else if (strcmp(a, "--hang-once") == 0 && v) {
            o.hang_once = v;
            o.hang = (when){1, rule};
            i++;
        } else if (strcmp(a, "--partial") == 0) {
            o.partial = 1;
        } else if (strcmp(a, "--never") == 0) {
            o.never = (when){1, rule};
        } else if (strcmp(a, "--spin") == 0) {
            o.spin = (when){1, rule};
        } else if (strcmp(a, "--zero-pairs-any") == 0) {
            o.zero_pairs = (when){1, rule};
        } else if (strcmp(a, "--double") == 0) {
            o.dbl = (when){1, rule};
        } else if (strcmp(a, "--slow-restart") == 0 && v) {
            o.slow_restart = v;
            i++;
        } else if (strcmp(a, "--escape") == 0) {
            o.escape = (when){1, rule};
            name = "hostile\x1b[2J\x1b]0;pwned\x07";
        } else {
            fprintf(stderr, "bc_hostile_worker: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (o.spin.on && !o.marker)
        return 2;
    if (o.slow_restart) {
        int fd = open(o.slow_restart, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0)
            for (;;)
                pause(); /* a later start: never reaches its HELLO */
        close(fd);
    }
    static bc_wire_hello hello;
    hello.protocol = BC_WIRE_PROTOCOL_VERSION;
    snprintf(hello.name, sizeof hello.name, "%s", name);
    snprintf(hello.version, sizeof hello.version, "1");
    snprintf(hello.description, sizeof hello.description, "a worker that misbehaves%s",
             o.escape.on ? escapes : "");
    hello.caps.features = BC_ADAPTER_FEATURE_SHAPE;
    hello.caps.rules = (1u << BC_RULE_COUNT) - 1;
    hello.caps.profiles = (1u << BC_PROFILE_COUNT) - 1; /* the reference follows them all */
    hello.caps.max_rank = BC_MAX_RANK;
    hello.caps.max_operands = BC_WIRE_MAX_SHAPES;
    hello.partial = o.partial ? BC_PARTIAL_ALL : 0;
    bc_wbuf out = {0}, in = {0};
    bc_wire_encode_hello(&out, &hello);
    if (write_all(1, out.data, out.len) != 0)
        return 1;
    bc_wbuf_free(&out);
    static bc_wire_question q;
    bc_wire_header h;
    const unsigned char *payload;
    char why[512];
    while (read_frame(&in, &h, &payload)) {
        if (o.log)
            log_question(o.log);
        if (h.type == BC_WIRE_PSHAPE)
            answer_partial(&o, payload, h.length, h.seq);
        else if (bc_wire_decode_question(h.type, payload, h.length, &q, why, sizeof why) != 0)
            return 3;
        else
            answer(&o, &q, h.seq);
        size_t used = BC_WIRE_HEADER_SIZE + h.length;
        memmove(in.data, in.data + used, in.len - used);
        in.len -= used;
    }
    return 0;
}
