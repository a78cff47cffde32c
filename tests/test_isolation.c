/*
 * External SUTs through bc_sut_open: the example adapter and the Python
 * worker answer shape and value questions (strided inputs) exactly as the
 * reference does; questions outside their capabilities are "unsupported";
 * every fault of the faulty adapters (crash, hang, runaway allocation,
 * garbage, a write past the output) is an internal error naming it, after
 * which a fresh worker answers the next question; one SUT is shared by
 * threads; and adapters that cannot be loaded are refused with the reason.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "broadcheck/adapter.h"
#include "broadcheck/partial.h"
#include "broadcheck/sut_loader.h"

#if !defined(BC_EXAMPLE_ADAPTER) || !defined(BC_FAULTY_DIR) || !defined(BC_PYTHON_WORKER) || \
    !defined(BC_RESERVING_WORKER) || !defined(BC_WORKER) || !defined(BC_HOSTILE_WORKER)
#error "the build names the example adapter, the faulty adapters and the Python worker"
#endif

static const bc_sut *open_ok(const char *spec, int timeout_ms, int memory_mb)
{
    bc_sut_options o = bc_sut_options_default();
    o.timeout_ms = timeout_ms;
    o.memory_mb = memory_mb;
    char why[1024];
    const bc_sut *sut = bc_sut_open(spec, &o, why, sizeof why);
    if (!sut)
        fail_msg("cannot open %s: %s", spec, why);
    return sut;
}

static const bc_sut *open_faulty(const char *name, int timeout_ms, int memory_mb)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/libfault_%s.so", BC_FAULTY_DIR, name);
    return open_ok(path, timeout_ms, memory_mb);
}

static bc_shape shape_of(int rank, ...)
{
    bc_shape s = {rank, {0}};
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++)
        s.dims[i] = va_arg(ap, int);
    va_end(ap);
    return s;
}

static void ask_shape(const bc_sut *sut, bc_rule rule, int n, const bc_shape *s, bc_sut_answer *a)
{
    bc_params p = bc_params_for(rule);
    memset(a, 0, sizeof *a);
    sut->ops->infer_shape(sut, &p, n, s, a);
}

/* The SUT agrees with the reference on shapes[0..n-1] under rule. */
static void check_shape(const bc_sut *sut, bc_rule rule, int n, const bc_shape *s)
{
    bc_sut_answer a;
    ask_shape(sut, rule, n, s, &a);
    bc_shape want;
    bc_params p = bc_params_for(rule);
    bc_error_kind kind = bc_infer(&p, n, s, &want, NULL);
    if (kind == BC_OK) {
        if (a.status != BC_SUT_OK || !bc_shape_equal(&a.shape, &want))
            fail_msg("%s: status %d (%s), expected a shape", sut->name, a.status, a.message);
    } else if (a.status != BC_SUT_REJECTED || (a.kind != BC_OK && a.kind != kind)) {
        fail_msg("%s: status %d kind %d (%s), expected rejection %d", sut->name, a.status, a.kind,
                 a.message, kind);
    }
}

/* A small random numpy case: 1..4 shapes of rank 0..4, dims 0..3. */
static int random_case(uint64_t *seed, bc_shape *s)
{
    int n = 1 + (int)((*seed = *seed * 6364136223846793005u + 1442695040888963407u) >> 62);
    for (int i = 0; i < n; i++) {
        *seed = *seed * 6364136223846793005u + 1442695040888963407u;
        s[i].rank = (int)((*seed >> 40) % 5);
        for (int k = 0; k < s[i].rank; k++)
            s[i].dims[k] = (int64_t)((*seed >> (8 + 2 * k)) & 3);
    }
    return n;
}

/* ---- shapes and capabilities -------------------------------------------------- */

static void test_example_shapes(void **state)
{
    (void)state;
    const bc_sut *sut = open_ok(BC_EXAMPLE_ADAPTER, 2000, 1024);
    assert_string_equal(sut->version, "1.0");
    bc_shape s[4] = {shape_of(3, 2, 1, 5), shape_of(2, 4, 1)};
    check_shape(sut, BC_RULE_NUMPY, 2, s);
    s[1] = shape_of(1, 3);
    check_shape(sut, BC_RULE_NUMPY, 2, s); /* dim-mismatch */
    s[1] = shape_of(1, -2);
    check_shape(sut, BC_RULE_NUMPY, 2, s); /* negative-dim */
    uint64_t seed = 7;
    for (int i = 0; i < 500; i++) {
        int n = random_case(&seed, s);
        check_shape(sut, BC_RULE_NUMPY, n, s);
    }
    /* Outside its declaration: answered by the harness. */
    bc_sut_answer a;
    ask_shape(sut, BC_RULE_PDPD, 2, s, &a);
    assert_int_equal(a.status, BC_SUT_UNSUPPORTED);
    assert_non_null(strstr(a.message, "does not declare rule pdpd"));
    char caps[512];
    bc_sut_describe_caps(sut, caps, sizeof caps);
    assert_string_equal(caps, "implements shape,elementwise; rules numpy; ops add; dtypes "
                              "int32,float32; max rank 64; max operands 64");
    bc_sut_close(sut);
}

/* Past 72 shapes (RULES.md §9.5): broadcheck-worker over an ABI-2
 * adapter (the built-in reference) declares 136 and says protocol 4, and
 * 100 and 136 shapes reach it and come back right, as does none under
 * numpy-empty-fold; the example worker (protocol 3, 64 declared) is never
 * sent 100: the harness answers for it. */
static void test_many_operands(void **state)
{
    (void)state;
    bc_shape *s = calloc(BC_ADAPTER_MAX_OPERANDS, sizeof *s);
    assert_non_null(s);
    for (int i = 0; i < BC_ADAPTER_MAX_OPERANDS; i++)
        s[i] = i == 99 ? shape_of(2, 4, 1) : shape_of(1, i % 7 == 3 ? 5 : 1);
    const bc_sut *sut = open_ok("exec:" BC_WORKER " --builtin reference", 5000, 1024);
    check_shape(sut, BC_RULE_NUMPY, 100, s);
    check_shape(sut, BC_RULE_NONE, 100, s);     /* rank-mismatch at operand 99 */
    check_shape(sut, BC_RULE_NUMPY, 136, s);    /* operand-count, asked as given */
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    p.options = BC_OPT_PROFILE;
    p.profile = BC_PROFILE_NUMPY_EMPTY_FOLD;
    bc_sut_answer a;
    memset(&a, 0, sizeof a);
    sut->ops->infer_shape(sut, &p, 0, s, &a);
    assert_int_equal(a.status, BC_SUT_OK);
    assert_int_equal(a.shape.rank, 0);
    char caps[512];
    bc_sut_describe_caps(sut, caps, sizeof caps);
    assert_non_null(strstr(caps, "max operands 136"));
    bc_sut_close(sut);
    sut = open_ok("exec:" BC_PYTHON3 " " BC_PYTHON_WORKER, 5000, 1024);
    ask_shape(sut, BC_RULE_NUMPY, 100, s, &a);
    assert_int_equal(a.status, BC_SUT_UNSUPPORTED);
    assert_non_null(strstr(a.message, "100 shapes, the adapter declares at most 64"));
    bc_sut_close(sut);
    free(s);
}

static void test_python_shapes(void **state)
{
    (void)state;
    const bc_sut *sut = open_ok("exec:" BC_PYTHON3 " " BC_PYTHON_WORKER, 5000, 1024);
    bc_shape s[4];
    uint64_t seed = 11;
    const bc_rule rules[] = {BC_RULE_NONE, BC_RULE_NUMPY, BC_RULE_ONNX_UNI, BC_RULE_BROADCAST_TO,
                             BC_RULE_BIDIRECTIONAL};
    for (int i = 0; i < 300; i++) {
        int n = random_case(&seed, s);
        bc_rule rule = rules[i % 5];
        check_shape(sut, rule, rule == BC_RULE_NONE || rule == BC_RULE_NUMPY ? n : 2, s);
    }
    bc_sut_answer a;
    ask_shape(sut, BC_RULE_EXPLICIT, 2, s, &a);
    assert_int_equal(a.status, BC_SUT_UNSUPPORTED);
    bc_sut_close(sut);
}

/* ---- values ------------------------------------------------------------------ */

/* A strided view of shape s in mem: the outermost axis reversed (negative
 * stride), gaps of 2 between innermost elements, stride 0 on size-1 axes. */
static bc_tensor strided(bc_dtype t, const bc_shape *s, void *mem)
{
    bc_tensor v;
    memset(&v, 0, sizeof v);
    v.dtype = t;
    v.rank = s->rank;
    v.data = mem;
    int64_t step = 2;
    for (int k = s->rank - 1; k >= 0; k--) {
        v.dims[k] = s->dims[k];
        v.strides[k] = s->dims[k] == 1 ? 0 : step;
        step *= s->dims[k] > 0 ? s->dims[k] : 1;
    }
    if (s->rank > 0 && s->dims[0] > 1) {
        v.offset = (s->dims[0] - 1) * v.strides[0];
        v.strides[0] = -v.strides[0];
    }
    return v;
}

/* op on numpy-broadcast inputs of shapes s[0..n-1]: the SUT's values
 * equal the naive oracle's, byte for byte. */
static void check_values(const bc_sut *sut, bc_op op, bc_dtype t, int n, const bc_shape *s)
{
    static unsigned char mem[4][4096];
    bc_tensor in[4];
    for (int i = 0; i < n; i++) {
        for (int e = 0; e < 1024; e++) {
            int32_t iv = (e * 7 + i * 13) % 50 - 20;
            float fv = (float)iv * 0.5f;
            memcpy(mem[i] + 4 * e, t == BC_INT32 ? (void *)&iv : (void *)&fv, 4);
        }
        in[i] = strided(t, &s[i], mem[i]);
    }
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    int32_t out[256], want[256];
    memset(out, 0x55, sizeof out);
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, op, &p, n, s, 0, n, in, t, out, 256};
    bc_sut_answer a, r;
    memset(&a, 0, sizeof a);
    memset(&r, 0, sizeof r);
    sut->ops->eval(sut, &req, &a);
    req.out = want;
    bc_reference_eval(BC_EVAL_NAIVE, &req, &r);
    if (a.status != r.status)
        fail_msg("%s: status %d (%s), the reference %d", sut->name, a.status, a.message, r.status);
    if (r.status != BC_SUT_OK)
        return;
    assert_true(bc_shape_equal(&a.shape, &r.shape));
    int64_t numel;
    assert_int_equal(bc_shape_numel(&r.shape, &numel), BC_OK);
    assert_memory_equal(out, want, (size_t)numel * 4);
}

static void check_value_cases(const bc_sut *sut, bc_op op)
{
    const bc_shape cases[][3] = {
        {shape_of(2, 2, 3), shape_of(1, 3)},
        {shape_of(3, 2, 1, 4), shape_of(2, 3, 1), shape_of(0)},
        {shape_of(2, 4, 1), shape_of(2, 1, 5), shape_of(3, 2, 1, 1)},
        {shape_of(1, 0), shape_of(1, 1)},
        {shape_of(0), shape_of(0)},
    };
    const int counts[] = {2, 3, 3, 2, 2};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        check_values(sut, op, BC_INT32, counts[c], cases[c]);
        check_values(sut, op, BC_FLOAT32, counts[c], cases[c]);
    }
}

static void test_example_values(void **state)
{
    (void)state;
    const bc_sut *sut = open_ok(BC_EXAMPLE_ADAPTER, 2000, 1024);
    check_value_cases(sut, BC_OP_ADD);
    /* sub and int64 are not declared: unsupported, without asking */
    bc_shape s[2] = {shape_of(1, 2), shape_of(1, 2)};
    int64_t mem[2] = {1, 2}, out[2];
    bc_tensor in[2] = {bc_tensor_contiguous(BC_INT64, &s[0], mem),
                       bc_tensor_contiguous(BC_INT64, &s[1], mem)};
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &p, 2, s, 0, 2, in, BC_INT64, out, 2};
    bc_sut_answer a;
    sut->ops->eval(sut, &req, &a);
    assert_int_equal(a.status, BC_SUT_UNSUPPORTED);
    assert_non_null(strstr(a.message, "does not declare dtype int64"));
    req.op = BC_OP_SUB;
    sut->ops->eval(sut, &req, &a);
    assert_int_equal(a.status, BC_SUT_UNSUPPORTED);
    assert_non_null(strstr(a.message, "does not declare op sub"));
    bc_sut_close(sut);
}

static void test_python_values(void **state)
{
    (void)state;
    const bc_sut *sut = open_ok("exec:" BC_PYTHON3 " " BC_PYTHON_WORKER, 5000, 1024);
    check_value_cases(sut, BC_OP_ADD);
    check_value_cases(sut, BC_OP_MUL);
    bc_sut_close(sut);
}

/* ---- faults ------------------------------------------------------------------ */

static const bc_shape trigger[2] = {{3, {2, 1, 3}}, {1, {3}}};
static const bc_shape harmless[2] = {{2, {2, 1}}, {1, {3}}};

/* The trigger is an internal error whose message has `fault` (or, where
 * a sanitizer in the worker sees the fault first, `sanitized`); the next,
 * harmless question is answered (by a fresh worker). */
static void check_fault(const bc_sut *sut, const char *fault, const char *sanitized)
{
    bc_sut_answer a;
    ask_shape(sut, BC_RULE_NUMPY, 2, trigger, &a);
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    if (!strstr(a.message, fault) && !(sanitized && strstr(a.message, sanitized)))
        fail_msg("%s: '%s' names neither '%s' nor '%s'", sut->name, a.message, fault,
                 sanitized ? sanitized : "-");
    check_shape(sut, BC_RULE_NUMPY, 2, harmless);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_crash(void **state)
{
    (void)state;
    const bc_sut *sut = open_faulty("crash", 2000, 1024);
    /* Under UBSan the worker reports the null store itself, then exits 1. */
    const char *ubsan = "exited with status 1 while answering; its stderr: \"/";
    check_fault(sut, "worker killed by SIGSEGV while answering", ubsan);
    check_fault(sut, "worker killed by SIGSEGV while answering", ubsan);
    bc_sut_close(sut);
}

/* A hang is asked again, on a fresh worker with 4 x the time (600 ms), and
 * hangs again: a timeout that says both, from the second ask. */
static void test_hang(void **state)
{
    (void)state;
    const bc_sut *sut = open_faulty("hang", 150, 1024);
    double t = now();
    check_fault(sut, "no answer within 150 ms while answering; worker killed; asked again with "
                     "600 ms: no answer either", NULL);
    assert_true(now() - t < 5.0);
    bc_sut_answer a;
    ask_shape(sut, BC_RULE_NUMPY, 2, trigger, &a);
    assert_int_equal(a.fault, BC_SUT_FAULT_TIMEOUT);
    assert_int_equal(a.asked_again, 1);
    bc_sut_close(sut);
}

/* Past the deadline (bc_sut_set_deadline: a run's --time) a question that
 * timed out is not asked again, and not a timeout either: it is cut short
 * as the run is, and not judged.  Without a deadline it is asked again. */
static void test_hang_past_the_deadline(void **state)
{
    (void)state;
    const bc_sut *sut = open_faulty("hang", 150, 1024);
    bc_sut_set_deadline(sut, now() - 1.0);
    bc_sut_answer a;
    ask_shape(sut, BC_RULE_NUMPY, 2, trigger, &a);
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    assert_int_equal(a.fault, BC_SUT_FAULT_INTERRUPTED);
    assert_int_equal(a.asked_again, 0);
    assert_string_equal(a.message, "no answer within 150 ms while answering; worker killed; not "
                                   "asked again: the run's time is up");
    check_shape(sut, BC_RULE_NUMPY, 2, harmless); /* every question is still asked once */
    bc_sut_set_deadline(sut, 0);
    ask_shape(sut, BC_RULE_NUMPY, 2, trigger, &a);
    assert_int_equal(a.fault, BC_SUT_FAULT_TIMEOUT);
    assert_int_equal(a.asked_again, 1);
    bc_sut_close(sut);
}

/* The hostile worker (with `flags`), silent on the first question of all
 * its workers, a 300 ms timeout: the marker file (a mkstemp template) is
 * a name no file has yet; the first question creates it. */
static const bc_sut *open_hang_once(const char *flags, char *marker)
{
    int fd = mkstemp(marker);
    assert_true(fd >= 0);
    close(fd);
    unlink(marker);
    char spec[2048];
    snprintf(spec, sizeof spec, "exec:%s %s--hang-once %s", BC_HOSTILE_WORKER, flags, marker);
    return open_ok(spec, 300, 1024);
}

/* A worker silent on its first question only (tests/hostile_worker.c
 * --hang-once, keyed on a file) is asked it again and answers: that answer
 * is the question's, marked asked_again; the next question is asked once. */
static void test_silent_once_is_asked_again(void **state)
{
    (void)state;
    char marker[] = "/tmp/bc_hang_once_XXXXXX";
    const bc_sut *sut = open_hang_once("", marker);
    bc_sut_answer a;
    ask_shape(sut, BC_RULE_NUMPY, 2, harmless, &a);
    if (a.status != BC_SUT_OK || a.asked_again != 1 || a.fault != BC_SUT_FAULT_NONE)
        fail_msg("status %d, asked_again %d: %s", a.status, a.asked_again, a.message);
    bc_shape want = {2, {2, 3}};
    assert_true(bc_shape_equal(&a.shape, &want));
    ask_shape(sut, BC_RULE_NUMPY, 2, harmless, &a);
    assert_int_equal(a.status, BC_SUT_OK);
    assert_int_equal(a.asked_again, 0);
    bc_sut_close(sut);
    unlink(marker);
}

/* The same through a partial-shape question (its own path to a worker):
 * [?, 1] with [3] is asked again, answered [?, 3], marked asked_again. */
static void test_silent_once_partial_is_asked_again(void **state)
{
    (void)state;
    char marker[] = "/tmp/bc_hang_once_XXXXXX";
    const bc_sut *sut = open_hang_once("--partial ", marker);
    bc_psymbols syms;
    memset(&syms, 0, sizeof syms);
    bc_pshape ps[2];
    const char *end;
    char why[256];
    assert_int_equal(bc_pshape_parse("[?,1]", &end, &ps[0], &syms, why, sizeof why), 0);
    assert_int_equal(bc_pshape_parse("[3]", &end, &ps[1], &syms, why, sizeof why), 0);
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_sut_panswer a;
    memset(&a, 0, sizeof a);
    sut->ops->infer_partial(sut, &p, 2, ps, &syms, &a);
    if (a.status != BC_SUT_OK || a.asked_again != 1)
        fail_msg("status %d, asked_again %d: %s", a.status, a.asked_again, a.message);
    char text[64];
    bc_pshape_format(&a.shape, &syms, text, sizeof text);
    assert_string_equal(text, "[?,3]");
    bc_sut_close(sut);
    unlink(marker);
}

/* A worker still writing its crash report at the deadline (a sanitizer's,
 * which takes seconds under load) is reported dead of its signal, not as a
 * timeout: the verdict depends on what happened, not on the clock. */
static void test_dying_at_the_deadline(void **state)
{
    (void)state;
    const bc_sut *sut = open_faulty("dying", 150, 1024);
    check_fault(sut, "worker killed by SIGSEGV while answering; its stderr: \"==1==ERROR: "
                     "AddressSanitizer: SEGV", NULL);
    bc_sut_close(sut);
}

static void test_runaway(void **state)
{
    (void)state;
    const bc_sut *sut = open_faulty("runaway", 5000, 96);
    check_fault(sut, "of its 96 MB memory limit (out of memory?)", "memory limit of 96 MB");
    bc_sut_close(sut);
}

/* An int32 add of [3] and [3], both {first, 2, 3}, asked of sut. */
static void add_on(const bc_sut *sut, int32_t first, int32_t out[3], bc_sut_answer *a)
{
    bc_shape s[2] = {shape_of(1, 3), shape_of(1, 3)};
    int32_t x[3] = {first, 2, 3};
    bc_tensor in[2] = {bc_tensor_contiguous(BC_INT32, &s[0], x),
                       bc_tensor_contiguous(BC_INT32, &s[1], x)};
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &p, 2, s, 0, 2, in, BC_INT32, out, 3};
    memset(a, 0, sizeof *a);
    sut->ops->eval(sut, &req, a);
}

/* That add through the faulty adapter `name`: the message of the internal
 * error it gives, and then a fresh worker answers. */
static void check_value_fault_on(const char *name, int32_t first, const char *expected)
{
    const bc_sut *sut = open_faulty(name, 2000, 1024);
    int32_t out[3];
    bc_sut_answer a;
    add_on(sut, first, out, &a);
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    if (!strstr(a.message, expected))
        fail_msg("%s: '%s' does not say '%s'", name, a.message, expected);
    check_shape(sut, BC_RULE_NUMPY, 2, harmless); /* it retired; a fresh one answers */
    bc_sut_close(sut);
}

static void check_value_fault(const char *name, const char *expected)
{
    check_value_fault_on(name, 1, expected);
}

static void test_garbage(void **state)
{
    (void)state;
    const bc_sut *sut = open_faulty("garbage", 2000, 1024);
    check_fault(sut, "the adapter answered a shape of rank 65 (valid: 0 to 64)", NULL);
    bc_sut_close(sut);
    check_value_fault("garbage",
                      "the adapter wrote past the end of its output buffer (3 int32 elements)");
}

/* A write 4 kB past the output and a read 8 kB past an input land in the
 * inaccessible gaps around the worker's buffers (guard/guard.h), and are
 * named as such: a write that far used to pass unseen, a read returned
 * whatever followed the input in the worker's heap. */
static void test_wild_accesses(void **state)
{
    (void)state;
    const char *write = "wild write: the adapter wrote 4096 bytes past the end of its output "
                        "buffer (3 int32 elements)";
    const char *read = "out-of-bounds read: the adapter read ";
#if !defined(__x86_64__)
    write = "the adapter touched 4096 bytes past the end of its output buffer";
    read = "the adapter touched ";
#endif
    check_value_fault("wild_write", write);
    check_value_fault("overread", read);
    check_value_fault("overread", "past the end of input 0 (int32, 3 elements from its data "
                                  "pointer to its last one and 64 bytes of poison after)");
}

/* A write into an input's guarded copy in the worker, which the harness's
 * own copy never shows: its elements, the poison after them, the poison
 * before them.  Each was seen by nobody, and the last stayed in the
 * worker's pool, where it failed a later question whose output reused
 * the slot.  The output is right each time: only the write can fail it. */
static void test_input_writes(void **state)
{
    (void)state;
    check_value_fault_on("input_write", 1, "the adapter wrote into input 0 (int32): byte 4 of "
                                           "its buffer changed");
    check_value_fault_on("input_write", 2, "the adapter wrote before the start of input 0 "
                                           "(int32)");
    check_value_fault_on("input_write", 3, "the adapter wrote past the end of input 0 (int32), "
                                           "at byte 1 after its last element");
    /* and a value it does not write on passes: the adapter computes right */
    const bc_sut *sut = open_faulty("input_write", 2000, 1024);
    int32_t out[3];
    bc_sut_answer a;
    add_on(sut, 5, out, &a);
    if (a.status != BC_SUT_OK)
        fail_msg("status %d: %s", a.status, a.message);
    assert_int_equal(out[0], 10);
    assert_int_equal(out[2], 6);
    bc_sut_close(sut);
}

/* An adapter that leaves the rounding mode changed after a call gets each
 * call in the environment of the first: its answers do not depend on what
 * the worker asked before, so a failure found late in a run reproduces in
 * the fresh worker of its replay.  The adapter is right on every call that
 * starts in the loaded environment, wrong (+1000) on one that does not. */
static void test_fp_environment_each_call(void **state)
{
    (void)state;
    const bc_sut *sut = open_faulty("sticky_rounding", 2000, 1024);
    for (int call = 0; call < 3; call++) {
        int32_t out[3];
        bc_sut_answer a;
        add_on(sut, 1, out, &a);
        if (a.status != BC_SUT_OK || out[0] != 2 || out[1] != 4 || out[2] != 6)
            fail_msg("call %d: status %d (%s), %d %d %d", call, a.status, a.message, out[0],
                     out[1], out[2]);
    }
    bc_sut_close(sut);
}

/* An adapter that put a SIGSEGV handler of its own in a call (one that
 * exits) still has its next wild write named: the worker's handler goes
 * back in front before each call. */
static void test_adapter_handler_replaced(void **state)
{
    (void)state;
    const bc_sut *sut = open_faulty("own_handler", 2000, 1024);
    int32_t out[3];
    bc_sut_answer a;
    add_on(sut, 1, out, &a); /* installs its handler, answers right */
    if (a.status != BC_SUT_OK || out[0] != 2 || out[2] != 6)
        fail_msg("first call: status %d (%s)", a.status, a.message);
    add_on(sut, 1, out, &a); /* writes into the gap */
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    if (!strstr(a.message, "4096 bytes past the end of its output buffer"))
        fail_msg("'%s' does not name the write", a.message);
    bc_sut_close(sut);
}

/* ---- threads ------------------------------------------------------------------- */

static void *hammer(void *arg)
{
    const bc_sut *sut = arg;
    uint64_t seed = (uint64_t)(uintptr_t)&seed;
    bc_shape s[4];
    for (int i = 0; i < 1500; i++) {
        int n = random_case(&seed, s);
        check_shape(sut, BC_RULE_NUMPY, n, s);
    }
    return NULL;
}

static void test_threads_share_one_sut(void **state)
{
    (void)state;
    const bc_sut *sut = open_ok(BC_EXAMPLE_ADAPTER, 5000, 1024);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, hammer, (void *)sut), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    bc_sut_close(sut);
}

/* ---- refusals --------------------------------------------------------------------- */

static void refused(const char *spec, const char *worker, const char *reason)
{
    bc_sut_options o = bc_sut_options_default();
    o.worker_path = worker;
    char why[1024] = "";
    const bc_sut *sut = bc_sut_open(spec, &o, why, sizeof why);
    assert_null(sut);
    if (!strstr(why, reason))
        fail_msg("%s: '%s' does not contain '%s'", spec, why, reason);
}

static void test_refusals(void **state)
{
    (void)state;
    refused("./no-such-adapter.so", NULL, "cannot load adapter ./no-such-adapter.so: No such file");
    refused(BC_FAULTY_DIR "/libfault_no_entry.so", NULL, "missing symbol bc_adapter_entry_v1");
    refused(BC_FAULTY_DIR "/libfault_bad_abi.so", NULL,
            "ABI version mismatch: the adapter was built for ABI version 3, this broadcheck "
            "speaks versions 1 to 2");
    refused(BC_FAULTY_DIR "/libfault_v1_many.so", NULL,
            "caps.max_operands 73 (1..72 in ABI version 1) out of range");
    refused(BC_FAULTY_DIR "/libfault_bad_descriptor.so", NULL,
            "bad descriptor: declares shape inference but infer_shape is NULL");
    refused(BC_EXAMPLE_ADAPTER, "/no/such/broadcheck-worker", "its worker program");
    refused("exec:/no/such/program", NULL, "worker exited with status 127 before its HELLO");
    refused("exec:", NULL, "exec: needs a command");
    refused("no-such-builtin", NULL, "unknown SUT 'no-such-builtin'");
    refused("exec:" BC_WORKER " --builtin no-such", NULL,
            "--builtin: unknown built-in SUT 'no-such' (see 'broadcheck list suts')");
    /* a built-in opens in process, and closing it is harmless */
    bc_sut_options o = bc_sut_options_default();
    char why[256];
    const bc_sut *ref = bc_sut_open("reference", &o, why, sizeof why);
    assert_non_null(ref);
    bc_sut_close(ref);
}

/* An exec: worker's address-space limit is relative to what it has after
 * its HELLO: a worker that reserves 2 GiB at start (as Node and a JVM do)
 * runs under --memory-mb 256, and the same worker allocating 512 MB per
 * question is stopped (it used to get an absolute limit and could not
 * even start). */
static void test_exec_address_space(void **state)
{
    (void)state;
    char spec[2048];
    snprintf(spec, sizeof spec, "exec:%s %s", BC_PYTHON3, BC_RESERVING_WORKER);
    const bc_sut *sut = open_ok(spec, 10000, 256);
    bc_shape s[2] = {shape_of(2, 3, 1), shape_of(1, 4)};
    bc_sut_answer a;
    ask_shape(sut, BC_RULE_NUMPY, 2, s, &a);
    assert_int_equal(a.status, BC_SUT_OK);
    assert_true(bc_shape_equal(&a.shape, &(bc_shape){2, {3, 4}}));
    bc_sut_close(sut);

    snprintf(spec, sizeof spec, "exec:%s %s --grow", BC_PYTHON3, BC_RESERVING_WORKER);
    sut = open_ok(spec, 10000, 256);
    ask_shape(sut, BC_RULE_NUMPY, 2, s, &a);
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    if (!strstr(a.message, "MemoryError"))
        fail_msg("expected the worker's MemoryError, got: %s", a.message);
    bc_sut_close(sut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_shapes),  cmocka_unit_test(test_python_shapes),
        cmocka_unit_test(test_many_operands),
        cmocka_unit_test(test_example_values),  cmocka_unit_test(test_python_values),
        cmocka_unit_test(test_crash),           cmocka_unit_test(test_hang),
        cmocka_unit_test(test_hang_past_the_deadline),
        cmocka_unit_test(test_silent_once_is_asked_again),
        cmocka_unit_test(test_silent_once_partial_is_asked_again),
        cmocka_unit_test(test_runaway),         cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_wild_accesses),
        cmocka_unit_test(test_input_writes),
        cmocka_unit_test(test_fp_environment_each_call),
        cmocka_unit_test(test_adapter_handler_replaced),
        cmocka_unit_test(test_dying_at_the_deadline),
        cmocka_unit_test(test_exec_address_space),
        cmocka_unit_test(test_threads_share_one_sut), cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
