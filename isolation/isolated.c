/*
 * An external SUT: every question goes to a worker process from a pool.
 * The runner's --jobs threads share one const bc_sut *, so a question takes
 * an idle worker (or starts one), asks, and puts it back: as many workers
 * as questions in flight, one mutex held only to pop or push.  A worker
 * that faulted is killed, never put back, so the next question starts a
 * fresh one.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolated.h"

typedef struct isolated {
    bc_sut sut; /* first: the bc_sut * callers hold points here */
    char *name, *version, *description;
    char **argv, **env; /* the launch's, owned */
    bc_proc_launch launch;
    int timeout_ms, start_timeout_ms;
    bc_adapter_capabilities caps;
    pthread_mutex_t lock;
    bc_proc **idle;
    int nidle, idle_cap;
} isolated;

static void isolated_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                           bc_sut_answer *answer);
static void isolated_eval(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *answer);

static const bc_sut_ops isolated_ops = {isolated_infer, isolated_eval};

int bc_isolated_is(const bc_sut *sut)
{
    return sut && sut->ops == &isolated_ops;
}

const bc_adapter_capabilities *bc_isolated_caps(const bc_sut *sut)
{
    return bc_isolated_is(sut) ? &((const isolated *)sut)->caps : NULL;
}

/* message into the answer, cut to fit (a diagnosis leads with what matters). */
static void set_message(bc_sut_answer *a, const char *message)
{
    size_t n = strnlen(message, sizeof a->message - 1);
    memcpy(a->message, message, n);
    a->message[n] = '\0';
}

static void answer_with(bc_sut_answer *a, bc_sut_status status, const char *message)
{
    a->status = status;
    a->kind = BC_OK;
    a->shape.rank = 0;
    set_message(a, message);
}

/* ---- the pool --------------------------------------------------------------- */

static bc_proc *acquire(isolated *s, char *why, size_t cap)
{
    bc_proc *p = NULL;
    pthread_mutex_lock(&s->lock);
    if (s->nidle > 0)
        p = s->idle[--s->nidle];
    pthread_mutex_unlock(&s->lock);
    if (p)
        return p;
    bc_wire_hello hello;
    p = bc_proc_start(&s->launch, s->start_timeout_ms, &hello, why, cap);
    if (p && memcmp(&hello.caps, &s->caps, sizeof s->caps) != 0) {
        snprintf(why, cap, "a new worker declares other capabilities than the first one did");
        bc_proc_kill(p);
        p = NULL;
    }
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

/* ---- one question ------------------------------------------------------------ */

/* Sends the request encoded in p's buffer and turns the ANSWER into *answer;
 * req is the value question (NULL for a shape question), whose output is
 * checked for length and copied to req->out. */
static void exchange(isolated *s, bc_proc *p, const bc_eval_request *req, bc_sut_answer *answer)
{
    const unsigned char *payload;
    size_t len;
    char why[1024];
    if (bc_proc_ask(p, s->timeout_ms, &payload, &len, why, sizeof why) != 0) {
        bc_proc_kill(p);
        answer_with(answer, BC_SUT_INTERNAL_ERROR, why);
        return;
    }
    bc_wire_answer *a = malloc(sizeof *a);
    if (!a) {
        bc_proc_kill(p);
        answer_with(answer, BC_SUT_INTERNAL_ERROR, "out of memory decoding an answer");
        return;
    }
    char diag[768];
    int bad = bc_wire_decode_answer(payload, len, a, diag, sizeof diag);
    if (bad) {
        snprintf(why, sizeof why, "protocol error: %s", diag);
    } else if (req) {
        uint64_t want = bc_wire_expected_output(a, req->out_dtype, req->out_capacity);
        if (a->nbytes != want) {
            char shape[256];
            bc_shape_format(&a->shape, shape, sizeof shape);
            snprintf(why, sizeof why, "protocol error: an output of %llu bytes, expected %llu "
                     "(the answer's shape %s of %s, room for %lld elements)",
                     (unsigned long long)a->nbytes, (unsigned long long)want, shape,
                     bc_dtype_name(req->out_dtype), (long long)req->out_capacity);
            bad = 1;
        } else if (want) {
            memcpy(req->out, a->out, (size_t)want);
        }
    } else if (a->nbytes) {
        snprintf(why, sizeof why, "protocol error: a shape answer carrying %llu output bytes",
                 (unsigned long long)a->nbytes);
        bad = 1;
    }
    if (bad) {
        bc_proc_kill(p); /* the stream cannot be trusted any more */
        answer_with(answer, BC_SUT_INTERNAL_ERROR, why);
    } else {
        answer->status = a->status;
        answer->kind = a->status == BC_SUT_REJECTED ? a->kind : BC_OK;
        answer->shape = a->shape;
        set_message(answer, a->message);
        if (a->flags & BC_WIRE_RETIRE)
            bc_proc_stop(p);
        else
            put_back(s, p);
    }
    free(a);
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
    bc_proc *w = acquire(s, why, sizeof why);
    if (!w) {
        answer_with(answer, BC_SUT_INTERNAL_ERROR, why);
        return;
    }
    uint32_t seq;
    bc_wbuf *b = bc_proc_request(w, &seq);
    bc_wire_encode_shape(b, seq, p, n, shapes);
    exchange(s, w, NULL, answer);
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
    bc_proc *w = acquire(s, why, sizeof why);
    if (!w) {
        answer_with(answer, BC_SUT_INTERNAL_ERROR, why);
        return;
    }
    uint32_t seq;
    bc_wbuf *b = bc_proc_request(w, &seq);
    if (bc_wire_encode_eval(b, seq, req, why, sizeof why) != 0) {
        put_back(s, w); /* nothing was sent: the worker is fine */
        answer_with(answer, BC_SUT_UNSUPPORTED, why);
        return;
    }
    exchange(s, w, req, answer);
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
    pthread_mutex_init(&s->lock, NULL);
    int ok = 1;
    s->argv = copy_strings(launch->argv, &ok);
    s->env = copy_strings(launch->env, &ok);
    s->launch = *launch;
    s->launch.argv = s->argv;
    s->launch.env = s->env;
    s->timeout_ms = opts->timeout_ms;
    /* Starting may take longer than a question (an interpreter, a big library). */
    s->start_timeout_ms = opts->timeout_ms > 10000 ? opts->timeout_ms : 10000;
    bc_wire_hello *hello = malloc(sizeof *hello);
    bc_proc *first = NULL;
    if (!ok || !hello) {
        snprintf(why, cap, "out of memory");
    } else if ((first = bc_proc_start(&s->launch, s->start_timeout_ms, hello, why, cap))) {
        s->caps = hello->caps;
        s->name = strdup(name);
        s->version = strdup(hello->version);
        size_t len = strlen(hello->name) + strlen(hello->description) + 64;
        s->description = malloc(len);
        if (s->description)
            snprintf(s->description, len, "%s%s%s (out of process)", hello->name,
                     hello->description[0] ? ": " : "", hello->description);
        if (s->name && s->version && s->description) {
            s->sut = (bc_sut){s->name, s->version, s->description, NULL, &isolated_ops};
            free(hello);
            put_back(s, first);
            return &s->sut;
        }
        snprintf(why, cap, "out of memory");
        bc_proc_stop(first);
    }
    free(hello);
    pthread_mutex_destroy(&s->lock);
    free_isolated(s);
    return NULL;
}

void bc_isolated_close(const bc_sut *sut)
{
    if (!bc_isolated_is(sut))
        return;
    isolated *s = (isolated *)sut;
    pthread_mutex_destroy(&s->lock);
    free_isolated(s);
}
