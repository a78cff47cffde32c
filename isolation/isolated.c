/*
 * An external SUT: every question goes to a worker process from a pool.
 * The runner's --jobs threads share one const bc_sut *, so a question takes
 * an idle worker (or starts one), asks, and puts it back: as many workers
 * as questions in flight, one mutex held only to pop or push.  A worker
 * that faulted is killed, never put back, so the next question starts a
 * fresh one; so is an idle one that spoke out of turn.  Every worker is
 * forked by the SUT's spawner thread (its parent-death signal), and every
 * wait watches the SUT's cancel pipe (bc_sut_interrupt).  Text a worker
 * sends is made printable before anything else sees it.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "isolated.h"
#include "shm.h"

typedef struct isolated {
    bc_sut sut; /* first: the bc_sut * callers hold points here */
    char *name, *version, *description;
    char **argv, **env; /* the launch's, owned */
    bc_proc_launch launch;
    int timeout_ms, start_timeout_ms;
    bc_adapter_capabilities caps;
    unsigned partial; /* BC_PARTIAL_* declared (protocol 2 and later) */
    uint32_t protocol; /* the workers' version: below 3, EVAL inputs go rebased */
    pthread_mutex_t lock;
    bc_proc **idle;
    int nidle, idle_cap;
    bc_spawner *spawner;
    int cancel[2];          /* a byte in it: every question stops (bc_sut_interrupt) */
    atomic_int interrupted; /* set with that byte */
    atomic_llong deadline_ms; /* CLOCK_MONOTONIC ms after which no question is asked again
                                 (bc_sut_set_deadline); 0: none */
    int64_t shm_threshold;  /* bc_sut_options.shm_threshold_bytes (shm.h) */
    atomic_long shm_questions; /* value questions sent by a shared file */
} isolated;

/* An answer's payload: its fixed fields, a message, and for a value
 * question its output.  Anything longer is refused unread. */
#define MAX_SHAPE_ANSWER (64u << 10)

static void isolated_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                           bc_sut_answer *answer);
static void isolated_eval(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *answer);

static void isolated_partial(const bc_sut *sut, const bc_params *p, int n,
                             const bc_pshape *shapes, const bc_psymbols *syms,
                             bc_sut_panswer *answer);

static const bc_sut_ops isolated_ops = {isolated_infer, isolated_eval, isolated_partial};

int bc_isolated_is(const bc_sut *sut)
{
    return sut && sut->ops == &isolated_ops;
}

unsigned bc_isolated_partial_caps(const bc_sut *sut)
{
    return bc_isolated_is(sut) ? ((const isolated *)sut)->partial : 0;
}

const bc_adapter_capabilities *bc_isolated_caps(const bc_sut *sut)
{
    return bc_isolated_is(sut) ? &((const isolated *)sut)->caps : NULL;
}

/* message into dst[cap], cut to fit (a diagnosis leads with what matters). */
static void cut_copy(char *dst, size_t cap, const char *message)
{
    size_t n = strnlen(message, cap - 1);
    memcpy(dst, message, n);
    dst[n] = '\0';
}

static void set_message(bc_sut_answer *a, const char *message)
{
    cut_copy(a->message, sizeof a->message, message);
}

static void answer_with(bc_sut_answer *a, bc_sut_status status, const char *message)
{
    a->status = status;
    a->kind = BC_OK;
    a->shape.rank = 0;
    a->fault = BC_SUT_FAULT_NONE;
    a->asked_again = 0;
    set_message(a, message);
}

static bc_sut_fault fault_of(bc_proc_fault f)
{
    switch (f) {
    case BC_PROC_TIMEOUT: return BC_SUT_FAULT_TIMEOUT;
    case BC_PROC_PROTOCOL: return BC_SUT_FAULT_PROTOCOL;
    case BC_PROC_INTERRUPTED: return BC_SUT_FAULT_INTERRUPTED;
    default: return BC_SUT_FAULT_DIED;
    }
}

/* The harness's internal-error answer for a fault of the worker. */
static void answer_fault(bc_sut_answer *a, bc_proc_fault f, const char *message)
{
    answer_with(a, BC_SUT_INTERNAL_ERROR, message);
    a->fault = fault_of(f);
}

/* When no worker could be had for a question, the question was never asked:
 * whatever went wrong at the start is not its doing. */
static bc_sut_fault no_worker_fault(bc_proc_fault f)
{
    return f == BC_PROC_INTERRUPTED ? BC_SUT_FAULT_INTERRUPTED : BC_SUT_FAULT_NO_WORKER;
}

/* ---- the pool --------------------------------------------------------------- */

/* An idle worker fit for a question, or a new one started within start_ms;
 * NULL with why and the fault if none can be had. */
static bc_proc *acquire(isolated *s, int start_ms, bc_proc_fault *fault, char *why, size_t cap)
{
    if (atomic_load(&s->interrupted)) {
        *fault = BC_PROC_INTERRUPTED;
        snprintf(why, cap, "the run was interrupted: no question is asked any more");
        return NULL;
    }
    bc_proc *p;
    for (;;) {
        p = NULL;
        pthread_mutex_lock(&s->lock);
        if (s->nidle > 0)
            p = s->idle[--s->nidle];
        pthread_mutex_unlock(&s->lock);
        if (!p || bc_proc_fit(p))
            break;
        bc_proc_kill(p); /* it spoke after its answer, or died idle */
    }
    if (p)
        return p;
    bc_wire_hello hello;
    p = bc_proc_start(&s->launch, start_ms, &hello, fault, why, cap);
    if (p && (memcmp(&hello.caps, &s->caps, sizeof s->caps) != 0 ||
              hello.protocol != s->protocol || hello.partial != s->partial)) {
        snprintf(why, cap, "a new worker declares other capabilities than the first one did");
        *fault = BC_PROC_PROTOCOL;
        bc_proc_kill(p);
        p = NULL;
    }
    if (!p && *fault != BC_PROC_INTERRUPTED) {
        char said[1024];
        snprintf(said, sizeof said, "%s", why);
        snprintf(why, cap, "not asked: no worker could be started (%.900s)", said);
    }
    if (!p)
        bc_wire_printable(why);
    return p;
}

static void put_back(isolated *s, bc_proc *p)
{
    pthread_mutex_lock(&s->lock);
    if (s->nidle == s->idle_cap) {
        int cap = s->idle_cap ? 2 * s->idle_cap : 8;
        bc_proc **grown = realloc(s->idle, (size_t)cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&s->lock);
            bc_proc_stop(p); /* no room to keep it: the next question starts another */
            return;
        }
        s->idle = grown;
        s->idle_cap = cap;
    }
    s->idle[s->nidle++] = p;
    pthread_mutex_unlock(&s->lock);
}

/* ---- asking, and asking again ------------------------------------------------- */

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The milliseconds left until the deadline (bc_sut_set_deadline); INT_MAX
 * without one. */
static int64_t ms_left(isolated *s)
{
    int64_t deadline = atomic_load(&s->deadline_ms);
    return deadline > 0 ? deadline - monotonic_ms() : INT_MAX;
}

static int min_ms(int64_t a, int64_t b)
{
    int64_t m = a < b ? a : b;
    return m > INT_MAX ? INT_MAX : (int)m;
}

/* One question, as any worker is sent it: a shape question (shapes), a
 * value question (req) or a partial-shape question (pshapes, syms). */
typedef struct question {
    const bc_params *params;
    int n;
    const bc_shape *shapes;
    const bc_eval_request *req;
    const bc_pshape *pshapes;
    const bc_psymbols *syms;
    bc_shm_file *shm;  /* a value question's shared file (EVAL_SHM), or NULL */
    size_t max_answer; /* the longest answer payload it can need */
} question;

/* What asking came to. */
typedef enum asked {
    ASKED,    /* an answer's payload, from worker */
    NOT_SENT, /* the question cannot be encoded (why): unsupported, nothing sent */
    FAULTED   /* no answer (fault, why) */
} asked;

typedef struct outcome {
    bc_proc *worker;              /* ASKED: to put back, or kill */
    const unsigned char *payload; /* ASKED: valid until worker's next question */
    size_t len;
    bc_sut_fault fault; /* FAULTED */
    int asked_again;    /* the answer (or fault) is the second ask's */
    char why[1024];
} outcome;

/* Encodes q into w's request buffer: 0, or -1 with why (nothing sent). */
static int encode(isolated *s, const question *q, bc_proc *w, char *why, size_t cap)
{
    uint32_t seq;
    bc_wbuf *b = bc_proc_request(w, &seq);
    if (q->shm) {
        bc_wire_encode_eval_shm(b, seq, q->req, &q->shm->plan, q->shm->path);
        return 0;
    }
    if (q->req)
        return bc_wire_encode_eval(b, seq, q->req, s->protocol, why, cap);
    if (q->pshapes)
        bc_wire_encode_pshape(b, seq, q->params, q->n, q->pshapes, q->syms);
    else
        bc_wire_encode_shape(b, seq, q->params, q->n, q->shapes);
    return 0;
}

/* A second ask that the deadline left no time for, or cut short: the
 * question could not be settled before the run's end, so it is not judged
 * (the run is stopping anyway). */
static asked out_of_time(outcome *o, const char *first, const char *what)
{
    char said[1024];
    snprintf(said, sizeof said, "%s", what);
    snprintf(o->why, sizeof o->why, "%.600s; %.400s", first, said);
    o->fault = BC_SUT_FAULT_INTERRUPTED;
    return FAULTED;
}

/* The time q may take: --timeout-ms, and for a value question 1 ms more
 * for every BC_SUT_TIMEOUT_BYTES_PER_MS bytes it moves (its inputs with
 * their margins, and its output).  A huge case's 2^31-byte output takes a
 * worker seconds to write whatever the library, and a fixed limit made
 * every such question a timeout unless the user knew to raise it; a small
 * question (under 10 kB) gets exactly --timeout-ms. */
static int question_timeout_ms(const isolated *s, const question *q)
{
    if (!q->req)
        return s->timeout_ms;
    int64_t answer = 0, frame = bc_wire_eval_bytes(q->req, s->protocol, &answer);
    if (frame < 0)
        return s->timeout_ms;
    const int64_t most = INT_MAX / BC_SUT_RETRY_TIMEOUT_FACTOR,
                  ms = s->timeout_ms + (frame + answer) / BC_SUT_TIMEOUT_BYTES_PER_MS;
    return ms < most ? (int)ms : (int)most;
}

/* Asks q of a worker; a question that gets no answer within the timeout is
 * asked once more, of another worker, with BC_SUT_RETRY_TIMEOUT_FACTOR
 * times the time (within the deadline), and only a second silence is a
 * timeout.  Crashes and protocol errors are the question's outcome at
 * once: a worker that died answered, wrongly, and is not given a second
 * chance (a flaky crash is the runner's to see, as before). */
static asked ask(isolated *s, const question *q, outcome *o)
{
    const int timeout_ms = question_timeout_ms(s, q);
    o->worker = NULL;
    o->asked_again = 0;
    bc_proc_fault f = BC_PROC_DIED;
    bc_proc *w = acquire(s, s->start_timeout_ms, &f, o->why, sizeof o->why);
    if (!w) {
        o->fault = no_worker_fault(f);
        return FAULTED;
    }
    if (encode(s, q, w, o->why, sizeof o->why) != 0) {
        put_back(s, w); /* nothing was sent: the worker is fine */
        return NOT_SENT;
    }
    if (bc_proc_ask(w, timeout_ms, q->max_answer, &o->payload, &o->len, o->why,
                    sizeof o->why) == 0) {
        o->worker = w;
        return ASKED;
    }
    f = bc_proc_fault_of(w);
    bc_proc_kill(w);
    bc_wire_printable(o->why);
    o->fault = fault_of(f);
    if (f != BC_PROC_TIMEOUT)
        return FAULTED;

    char first[1024];
    snprintf(first, sizeof first, "%s", o->why);
    if (ms_left(s) <= 0)
        return out_of_time(o, first, "not asked again: the run's time is up");
    int start_ms = min_ms(s->start_timeout_ms, ms_left(s));
    w = acquire(s, start_ms, &f, o->why, sizeof o->why);
    if (!w) {
        if (f == BC_PROC_INTERRUPTED) {
            o->fault = BC_SUT_FAULT_INTERRUPTED;
            return FAULTED;
        }
        if (start_ms < s->start_timeout_ms && ms_left(s) <= 0)
            return out_of_time(o, first, "not asked again: the run's time is up");
        /* the first silence stands: it is the SUT's, and nothing else was heard */
        snprintf(o->why, sizeof o->why, "%.900s; not asked again: no worker could be started",
                 first);
        return FAULTED;
    }
    const int64_t again_ms = (int64_t)timeout_ms * BC_SUT_RETRY_TIMEOUT_FACTOR;
    int answer_ms = min_ms(again_ms, ms_left(s));
    if (answer_ms <= 0) {
        put_back(s, w); /* nothing was sent: the worker is fine */
        return out_of_time(o, first, "not asked again: the run's time is up");
    }
    /* A shared file is written afresh: the silent worker may have written
     * part of the output, which the second worker's unwritten elements
     * would then show in place of poison. */
    char renew_why[256];
    if (q->shm) {
        bc_shm_close(q->shm);
        if (bc_shm_create(q->shm, q->req, renew_why, sizeof renew_why) != 0) {
            put_back(s, w); /* nothing was sent: the worker is fine */
            snprintf(o->why, sizeof o->why, "%.700s; not asked again: %.250s", first, renew_why);
            return FAULTED;
        }
    }
    if (encode(s, q, w, o->why, sizeof o->why) != 0) { /* it did the first time */
        put_back(s, w);
        snprintf(o->why, sizeof o->why, "%.900s", first); /* the first silence stands */
        return FAULTED;
    }
    o->asked_again = 1;
    char second[1024];
    if (bc_proc_ask(w, answer_ms, q->max_answer, &o->payload, &o->len, second,
                    sizeof second) == 0) {
        o->worker = w;
        return ASKED;
    }
    f = bc_proc_fault_of(w);
    bc_proc_kill(w);
    bc_wire_printable(second);
    if (f == BC_PROC_TIMEOUT && answer_ms < again_ms) {
        char cut[200];
        snprintf(cut, sizeof cut, "asked again with the %d ms left of the run's time: no answer "
                                  "either", answer_ms);
        return out_of_time(o, first, cut);
    }
    o->fault = fault_of(f);
    if (f == BC_PROC_TIMEOUT)
        snprintf(o->why, sizeof o->why, "%.900s; asked again with %d ms: no answer either", first,
                 answer_ms);
    else /* the second ask's outcome, as if it had come first */
        snprintf(o->why, sizeof o->why, "%.850s (asked again after no answer in %d ms)", second,
                 timeout_ms);
    return FAULTED;
}

/* ---- one question ------------------------------------------------------------ */

/* Asks q (a shape question, or the value question req, whose output is
 * checked for length and copied to req->out: from the frame, or for an
 * EVAL_SHM question (q->shm) from the shared file, whose every byte outside
 * the output is checked first) and turns the ANSWER into *answer. */
static void exchange(isolated *s, question *q, bc_sut_answer *answer)
{
    const bc_eval_request *req = q->req;
    q->max_answer = MAX_SHAPE_ANSWER;
    if (req && req->out_capacity > 0 && !q->shm)
        q->max_answer += (size_t)req->out_capacity * bc_dtype_size(req->out_dtype);
    outcome *o = malloc(sizeof *o);
    if (!o) {
        answer_with(answer, BC_SUT_INTERNAL_ERROR, "out of memory asking a question");
        answer->fault = BC_SUT_FAULT_NO_WORKER; /* not asked */
        return;
    }
    switch (ask(s, q, o)) {
    case NOT_SENT:
        answer_with(answer, BC_SUT_UNSUPPORTED, o->why);
        free(o);
        return;
    case FAULTED:
        answer_with(answer, BC_SUT_INTERNAL_ERROR, o->why);
        answer->fault = o->fault;
        answer->asked_again = o->asked_again;
        free(o);
        return;
    case ASKED: break;
    }
    bc_proc *p = o->worker;
    char *why = o->why;
    const size_t why_cap = sizeof o->why;
    bc_wire_answer *a = malloc(sizeof *a);
    if (!a) {
        bc_proc_kill(p);
        answer_fault(answer, BC_PROC_PROTOCOL, "out of memory decoding an answer");
        free(o);
        return;
    }
    char diag[768];
    int bad = bc_wire_decode_answer(o->payload, o->len, a, diag, sizeof diag);
    if (bad) {
        snprintf(why, why_cap, "protocol error: %s", diag);
    } else if (q->shm && a->nbytes) {
        snprintf(why, why_cap, "protocol error: an answer to an EVAL_SHM question carrying "
                 "%llu output bytes (its output goes in the shared file)",
                 (unsigned long long)a->nbytes);
        bad = 1;
    } else if (q->shm && bc_shm_check(q->shm, req, diag, sizeof diag) != 0) {
        snprintf(why, why_cap, "%s", diag);
        bad = 1;
    } else if (q->shm) {
        uint64_t want = bc_wire_expected_output(a, req->out_dtype, req->out_capacity);
        if (want)
            bc_shm_copy_out(q->shm, req->out, (size_t)want);
    } else if (req) {
        uint64_t want = bc_wire_expected_output(a, req->out_dtype, req->out_capacity);
        if (a->nbytes != want) {
            char shape[256];
            bc_shape_format(&a->shape, shape, sizeof shape);
            snprintf(why, why_cap, "protocol error: an output of %llu bytes, expected %llu "
                     "(the answer's shape %s of %s, room for %lld elements)",
                     (unsigned long long)a->nbytes, (unsigned long long)want, shape,
                     bc_dtype_name(req->out_dtype), (long long)req->out_capacity);
            bad = 1;
        } else if (want) {
            memcpy(req->out, a->out, (size_t)want);
        }
    } else if (a->nbytes) {
        snprintf(why, why_cap, "protocol error: a shape answer carrying %llu output bytes",
                 (unsigned long long)a->nbytes);
        bad = 1;
    }
    if (bad) {
        bc_proc_kill(p); /* the stream cannot be trusted any more */
        answer_fault(answer, BC_PROC_PROTOCOL, bc_wire_printable(why));
    } else {
        answer->status = a->status;
        answer->kind = a->status == BC_SUT_REJECTED ? a->kind : BC_OK;
        answer->shape = a->shape;
        answer->fault = BC_SUT_FAULT_NONE;
        set_message(answer, bc_wire_printable(a->message));
        if (a->flags & BC_WIRE_RETIRE)
            bc_proc_stop(p);
        else
            put_back(s, p);
    }
    answer->asked_again = o->asked_again;
    free(a);
    free(o);
}

static void isolated_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                           bc_sut_answer *answer)
{
    isolated *s = (isolated *)sut;
    char why[1024];
    if (bc_caps_refuse_shape(&s->caps, p, n, shapes, why, sizeof why)) {
        answer_with(answer, BC_SUT_UNSUPPORTED, why);
        return;
    }
    if (n < 0 || n > BC_WIRE_MAX_SHAPES) {
        answer_with(answer, BC_SUT_UNSUPPORTED, "more shapes than the protocol carries");
        return;
    }
    question q = {.params = p, .n = n, .shapes = shapes};
    exchange(s, &q, answer);
}

/* A value question past the frame limit (or the SUT's threshold) to a worker
 * that takes shared files: by one (shm.h).  (To any other worker, one past
 * the frame limit is not examined: "unsupported", never a pass, never the
 * worker's fault.) */
static void isolated_eval_shm(isolated *s, const bc_eval_request *req, bc_sut_answer *answer)
{
    char why[1024];
    bc_wire_shm_plan plan;
    if (bc_wire_plan_shm(req, &plan, why, sizeof why) == 0 &&
        plan.size > ((int64_t)s->launch.memory_mb << 20)) {
        /* the worker maps all of it: its memory limit must cover the file */
        snprintf(why, sizeof why, "not examined: the question's shared file of %lld bytes is "
                 "more than the worker's memory limit (--memory-mb %d), which must cover it",
                 (long long)plan.size, s->launch.memory_mb);
        answer_with(answer, BC_SUT_UNSUPPORTED, why);
        return;
    }
    bc_shm_file shm;
    if (bc_shm_create(&shm, req, why, sizeof why) != 0) {
        answer_with(answer, BC_SUT_UNSUPPORTED, why);
        return;
    }
    atomic_fetch_add(&s->shm_questions, 1);
    question q = {.params = req->params, .n = req->n, .req = req, .shm = &shm};
    exchange(s, &q, answer);
    bc_shm_close(&shm);
}

long bc_isolated_shm_questions(const bc_sut *sut)
{
    return bc_isolated_is(sut) ? atomic_load(&((isolated *)sut)->shm_questions) : 0;
}

static void isolated_eval(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *answer)
{
    isolated *s = (isolated *)sut;
    char why[1024];
    if (bc_caps_refuse_eval(&s->caps, req, why, sizeof why)) {
        answer_with(answer, BC_SUT_UNSUPPORTED, why);
        return;
    }
    if (req->n < 0 || req->n > BC_WIRE_MAX_SHAPES || req->ninputs < 0 ||
        req->ninputs > BC_WIRE_MAX_SHAPES) {
        answer_with(answer, BC_SUT_UNSUPPORTED, "more shapes than the protocol carries");
        return;
    }
    if ((s->caps.features & BC_WIRE_FEATURE_SHM) &&
        bc_shm_wanted(req, s->protocol, s->shm_threshold)) {
        isolated_eval_shm(s, req, answer);
        return;
    }
    if (bc_shm_wanted(req, s->protocol, 0)) { /* past the frame limit */
        answer_with(answer, BC_SUT_UNSUPPORTED,
                    "not examined: the question does not fit a frame (wire/PROTOCOL.md) and the "
                    "worker takes no shared-file questions (HELLO features bit 6)");
        return;
    }
    question q = {.params = req->params, .n = req->n, .req = req};
    exchange(s, &q, answer);
}

/* ---- a partial-shape question (protocol 2) ------------------------------------ */

static void panswer_with(bc_sut_panswer *a, bc_sut_status status, const char *message)
{
    a->status = status;
    a->kind = BC_OK;
    a->shape.rank = 0;
    a->fault = BC_SUT_FAULT_NONE;
    a->asked_again = 0;
    cut_copy(a->message, sizeof a->message, message);
}

static void isolated_partial(const bc_sut *sut, const bc_params *p, int n,
                             const bc_pshape *shapes, const bc_psymbols *syms,
                             bc_sut_panswer *answer)
{
    isolated *s = (isolated *)sut;
    char why[1024];
    if (bc_caps_refuse_partial(&s->caps, s->partial, p, n, shapes, why, sizeof why)) {
        panswer_with(answer, BC_SUT_UNSUPPORTED, why);
        return;
    }
    question q = {.params = p, .n = n, .pshapes = shapes, .syms = syms,
                  .max_answer = MAX_SHAPE_ANSWER};
    outcome *o = malloc(sizeof *o);
    bc_wire_panswer *a = o ? malloc(sizeof *a) : NULL;
    if (!a) {
        panswer_with(answer, BC_SUT_INTERNAL_ERROR, "out of memory asking a question");
        answer->fault = BC_SUT_FAULT_NO_WORKER; /* not asked */
        free(o);
        return;
    }
    asked r = ask(s, &q, o);
    char diag[768];
    if (r != ASKED) { /* a partial-shape question always encodes */
        panswer_with(answer, BC_SUT_INTERNAL_ERROR, o->why);
        answer->fault = o->fault;
    } else if (bc_wire_decode_panswer(o->payload, o->len, a, diag, sizeof diag) != 0) {
        bc_proc_kill(o->worker); /* the stream cannot be trusted any more */
        snprintf(why, sizeof why, "protocol error: %s", diag);
        panswer_with(answer, BC_SUT_INTERNAL_ERROR, bc_wire_printable(why));
        answer->fault = BC_SUT_FAULT_PROTOCOL;
    } else {
        answer->status = a->status;
        answer->kind = a->status == BC_SUT_REJECTED ? a->kind : BC_OK;
        answer->shape = a->shape;
        answer->fault = BC_SUT_FAULT_NONE;
        cut_copy(answer->message, sizeof answer->message, bc_wire_printable(a->message));
        if (a->flags & BC_WIRE_RETIRE)
            bc_proc_stop(o->worker);
        else
            put_back(s, o->worker);
    }
    answer->asked_again = o->asked_again;
    free(a);
    free(o);
}

/* ---- open and close ------------------------------------------------------------ */

/* A copy of a NULL-terminated string vector (NULL stays NULL); *ok = 0 when
 * out of memory. */
static char **copy_strings(char *const *v, int *ok)
{
    if (!v)
        return NULL;
    size_t n = 0;
    while (v[n])
        n++;
    char **c = calloc(n + 1, sizeof *c);
    *ok &= c != NULL;
    for (size_t i = 0; c && i < n && *ok; i++)
        *ok = (c[i] = strdup(v[i])) != NULL;
    return c;
}

static void free_strings(char **v)
{
    if (v)
        for (char **a = v; *a; a++)
            free(*a);
    free(v);
}

static void free_isolated(isolated *s)
{
    for (int i = 0; i < s->nidle; i++)
        bc_proc_stop(s->idle[i]);
    free(s->idle);
    bc_spawner_stop(s->spawner); /* after its workers: their parent-death signal */
    for (int i = 0; i < 2; i++)
        if (s->cancel[i] >= 0)
            close(s->cancel[i]);
    free_strings(s->argv);
    free_strings(s->env);
    free(s->name);
    free(s->version);
    free(s->description);
    free(s);
}

const bc_sut *bc_isolated_open(const char *name, const bc_proc_launch *launch,
                               const bc_sut_options *opts, char *why, size_t cap)
{
    isolated *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    s->cancel[0] = s->cancel[1] = -1;
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->interrupted, 0);
    atomic_init(&s->deadline_ms, 0);
    atomic_init(&s->shm_questions, 0);
    s->shm_threshold = opts->shm_threshold_bytes;
    int ok = 1;
    s->argv = copy_strings(launch->argv, &ok);
    s->env = copy_strings(launch->env, &ok);
    s->launch = *launch;
    s->launch.argv = s->argv;
    s->launch.env = s->env;
    s->timeout_ms = opts->timeout_ms;
    /* Starting may take longer than a question (an interpreter, a big library). */
    s->start_timeout_ms = opts->start_timeout_ms > opts->timeout_ms ? opts->start_timeout_ms
                                                                     : opts->timeout_ms;
    bc_wire_hello *hello = malloc(sizeof *hello);
    bc_proc *first = NULL;
    if (!ok || !hello) {
        snprintf(why, cap, "out of memory");
        ok = 0;
    } else if (pipe2(s->cancel, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(why, cap, "cannot make a pipe: %s", strerror(errno));
        ok = 0;
    } else {
        s->spawner = bc_spawner_start(why, cap);
        ok = s->spawner != NULL;
    }
    s->launch.spawner = s->spawner;
    s->launch.cancel_fd = s->cancel[0];
    if (ok && (first = bc_proc_start(&s->launch, s->start_timeout_ms, hello, NULL, why, cap))) {
        s->caps = hello->caps;
        s->partial = hello->partial;
        s->protocol = hello->protocol;
        s->name = strdup(name);
        s->version = strdup(bc_wire_printable(hello->version));
        bc_wire_printable(hello->name);
        bc_wire_printable(hello->description);
        size_t len = strlen(hello->name) + strlen(hello->description) + 160;
        s->description = malloc(len);
        if (s->description)
            snprintf(s->description, len, "%s%s%s (out of process%s)", hello->name,
                     hello->description[0] ? ": " : "", hello->description,
                     hello->protocol < BC_WIRE_PROTOCOL_LAYOUT
                         ? "; protocol before 3: inputs rebased to their first element, "
                           "offsets not exercised"
                         : "");
        if (s->name && s->version && s->description) {
            s->sut = (bc_sut){s->name, s->version, s->description, NULL, &isolated_ops};
            free(hello);
            put_back(s, first);
            return &s->sut;
        }
        snprintf(why, cap, "out of memory");
        bc_proc_stop(first);
    }
    bc_wire_printable(why); /* a FATAL frame's message, or the worker's stderr */
    free(hello);
    pthread_mutex_destroy(&s->lock);
    free_isolated(s);
    return NULL;
}

void bc_isolated_interrupt(const bc_sut *sut)
{
    if (!bc_isolated_is(sut))
        return;
    isolated *s = (isolated *)sut;
    atomic_store(&s->interrupted, 1);
    ssize_t w = write(s->cancel[1], "x", 1); /* async-signal-safe; full: already set */
    (void)w;
}

void bc_isolated_set_deadline(const bc_sut *sut, double monotonic_seconds)
{
    if (!bc_isolated_is(sut))
        return;
    isolated *s = (isolated *)sut;
    long long ms = 0; /* none */
    if (monotonic_seconds > 0 && monotonic_seconds < 9e15 / 1000)
        ms = (long long)(monotonic_seconds * 1000.0);
    atomic_store(&s->deadline_ms, ms > 0 ? ms : 0);
}

void bc_isolated_close(const bc_sut *sut)
{
    if (!bc_isolated_is(sut))
        return;
    isolated *s = (isolated *)sut;
    pthread_mutex_destroy(&s->lock);
    free_isolated(s);
}
