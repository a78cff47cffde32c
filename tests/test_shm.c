/*
 * Shared-file value questions (EVAL_SHM, wire/PROTOCOL.md): the frame's
 * encoding and every range its decoder checks; a built-in SUT served by
 * broadcheck-worker answers them exactly as the reference does in process
 * (strided, offset, negative-stride int8 and int32 inputs), forced onto the
 * shared file by a small threshold (a parameter of the SUT's options); a
 * worker without the feature gets the same questions in frames; a worker
 * that writes outside its output in the file is caught (its output's guard,
 * an input) and replaced; a worker killed mid-question leaves no file and no
 * descriptor behind, and a harness killed mid-question leaves no worker and
 * no file.
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "broadcheck/sut_loader.h"
#include "test_shapes.h"
#include "isolation/isolated.h"
#include "wire/wire.h"

#if !defined(BC_WORKER) || !defined(BC_PYTHON3) || !defined(BC_SHM_WORKER) || \
    !defined(BC_PYTHON_WORKER) || !defined(BC_FAULTY_DIR) || !defined(BC_NUMPY_WORKER)
#error "the build names broadcheck-worker, python3 and the shared-file test worker"
#endif

/* A view of shape s over mem: each axis with a gap of one element, the
 * innermost walked backwards from an offset, a size-1 axis on stride 3 (any
 * stride is right there). */
static bc_tensor gapped(bc_dtype t, const bc_shape *s, void *mem)
{
    bc_tensor v = {t, s->rank, {0}, {0}, mem, 0};
    int64_t step = 2;
    for (int k = s->rank - 1; k >= 0; k--) {
        v.dims[k] = s->dims[k];
        v.strides[k] = s->dims[k] == 1 ? 3 : step;
        step *= s->dims[k] > 0 ? s->dims[k] + 1 : 1;
    }
    int last = s->rank - 1;
    if (s->rank > 0 && s->dims[last] > 1) {
        v.offset = (s->dims[last] - 1) * v.strides[last];
        v.strides[last] = -v.strides[last];
    }
    return v;
}

static const bc_sut *open_with(const char *spec, int64_t shm_threshold)
{
    bc_sut_options o = bc_sut_options_default();
    o.timeout_ms = 20000;
    o.shm_threshold_bytes = shm_threshold;
    char why[1024];
    const bc_sut *sut = bc_sut_open(spec, &o, why, sizeof why);
    if (!sut)
        fail_msg("cannot open %s: %s", spec, why);
    return sut;
}

/* add on numpy-broadcast inputs of shapes s[0..n-1], dtype t; *a is the
 * SUT's answer, its values in out (and the reference's must equal them). */
static void ask_add(const bc_sut *sut, bc_dtype t, int n, const bc_shape *s, bc_sut_answer *a,
                    int check)
{
    static unsigned char mem[3][8192];
    bc_tensor in[3];
    for (int i = 0; i < n; i++) {
        for (int e = 0; e < 2048; e++) {
            int32_t iv = (e * 7 + i * 13) % 50 - 20;
            int8_t bv = (int8_t)iv;
            memcpy(mem[i] + (t == BC_INT8 ? e : 4 * e), t == BC_INT8 ? (void *)&bv : (void *)&iv,
                   t == BC_INT8 ? 1 : 4);
        }
        in[i] = gapped(t, &s[i], mem[i]);
    }
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    int32_t out[512], want[512];
    memset(out, 0x55, sizeof out);
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &p, n, s, 0, n, in, t, out, 128};
    bc_sut_answer r;
    memset(a, 0, sizeof *a);
    memset(&r, 0, sizeof r);
    sut->ops->eval(sut, &req, a);
    if (!check)
        return;
    req.out = want;
    bc_reference_eval(BC_EVAL_NAIVE, &req, &r);
    if (a->status != r.status)
        fail_msg("%s: status %d (%s), the reference %d", sut->name, a->status, a->message,
                 r.status);
    if (r.status != BC_SUT_OK)
        return;
    assert_true(bc_shape_equal(&a->shape, &r.shape));
    int64_t numel;
    assert_int_equal(bc_shape_numel(&r.shape, &numel), BC_OK);
    assert_memory_equal(out, want, (size_t)numel * bc_dtype_size(t));
}

static const bc_shape cases[][3] = {
    {{2, {2, 3}}, {1, {3}}},
    {{3, {3, 1, 4}}, {2, {2, 1}}, {0, {0}}},
    {{3, {2, 4, 1}}, {3, {2, 1, 5}}, {4, {3, 2, 1, 1}}},
    {{2, {1, 0}}, {2, {1, 1}}},
    {{1, {5}}, {1, {4}}}, /* rejected */
};
static const int counts[] = {2, 3, 3, 2, 2};

static void check_cases(const bc_sut *sut, bc_dtype t)
{
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        bc_sut_answer a;
        ask_add(sut, t, counts[c], cases[c], &a, 1);
    }
}

/* ---- the frame ------------------------------------------------------------ */

static void test_frame_round_trip(void **state)
{
    (void)state;
    int8_t mem[64];
    for (int i = 0; i < 64; i++)
        mem[i] = (int8_t)i;
    bc_shape s[2] = {sh("[3,4]"), sh("[4]")};
    bc_tensor in[2] = {gapped(BC_INT8, &s[0], mem), gapped(BC_INT8, &s[1], mem + 32)};
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    int8_t out[12];
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &p, 2, s, 0, 2, in, BC_INT8, out, 12};
    bc_wire_shm_plan plan;
    char why[512];
    assert_int_equal(bc_wire_plan_shm(&req, &plan, why, sizeof why), 0);
    /* every region at a page, each input with its margin, the output's guard */
    assert_int_equal(plan.input_offset[0], 0);
    assert_int_equal(plan.input_offset[1], BC_WIRE_SHM_ALIGN);
    assert_int_equal(plan.input_bytes[0], 27 + 64); /* reaches elements 0 to 26 */
    assert_int_equal(plan.out_offset, 2 * BC_WIRE_SHM_ALIGN);
    assert_int_equal(plan.out_guard, 256);
    assert_int_equal(plan.size, 3 * BC_WIRE_SHM_ALIGN);
    bc_wbuf b = {0};
    bc_wire_encode_eval_shm(&b, 9, &req, &plan, "/proc/1/fd/7");
    bc_wire_header h;
    const unsigned char *payload;
    assert_int_equal(bc_wire_split(b.data, b.len, &h, &payload, why, sizeof why), 1);
    assert_int_equal(h.type, BC_WIRE_EVAL_SHM);
    assert_string_equal(bc_wire_type_name(h.type), "EVAL_SHM");
    bc_wire_question *q = calloc(1, sizeof *q);
    assert_non_null(q);
    if (bc_wire_decode_question(h.type, payload, h.length, q, why, sizeof why) != 0)
        fail_msg("%s", why);
    assert_true(q->is_eval && q->shm);
    assert_string_equal(q->shm_path, "/proc/1/fd/7");
    assert_int_equal(q->shm_size, plan.size);
    assert_int_equal(q->shm_out_offset, plan.out_offset);
    assert_int_equal(q->shm_out_guard, 256);
    assert_int_equal(q->out_capacity, 12);
    assert_int_equal(q->ninputs, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(q->inputs[i].file_offset, plan.input_offset[i]);
        assert_int_equal(q->inputs[i].rank, in[i].rank);
        assert_int_equal(q->inputs[i].offset, in[i].offset); /* as laid out, not rebased */
        assert_memory_equal(q->inputs[i].strides, in[i].strides, 8 * (size_t)in[i].rank);
        assert_null(q->inputs[i].bytes);
    }
    assert_int_equal(q->inputs[0].nelem, plan.input_bytes[0]);

    /* each range the decoder checks: the output past the file, an input past
     * it, a cut path */
    const struct {
        int64_t size, out_offset, input1;
        const char *diagnosis;
    } bad[] = {
        {plan.size, plan.size - 100, plan.input_offset[1], "an output of 12 bytes and 256 guard"},
        {plan.size, plan.out_offset, plan.size - 10, "input 1: 71 elements at byte"},
        {0, 0, 0, "an output of 12 bytes"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        bc_wire_shm_plan p2 = plan;
        p2.size = bad[k].size;
        p2.out_offset = bad[k].out_offset;
        p2.input_offset[1] = bad[k].input1;
        bc_wire_encode_eval_shm(&b, 9, &req, &p2, "/proc/1/fd/7");
        assert_int_equal(bc_wire_split(b.data, b.len, &h, &payload, why, sizeof why), 1);
        assert_int_equal(bc_wire_decode_question(h.type, payload, h.length, q, why, sizeof why),
                         -1);
        if (!strstr(why, bad[k].diagnosis))
            fail_msg("case %zu: %s", k, why);
    }
    bc_wire_encode_eval_shm(&b, 9, &req, &plan, "/proc/1/fd/7");
    assert_int_equal(bc_wire_split(b.data, b.len, &h, &payload, why, sizeof why), 1);
    assert_int_equal(bc_wire_decode_question(h.type, payload, 100, q, why, sizeof why), -1);
    assert_non_null(strstr(why, "truncated"));
    free(q);
    bc_wbuf_free(&b);
}

static void test_hello_bit(void **state)
{
    (void)state;
    bc_wire_hello h, got;
    memset(&h, 0, sizeof h);
    snprintf(h.name, sizeof h.name, "w");
    h.caps.features = BC_ADAPTER_FEATURE_SHAPE | BC_WIRE_FEATURE_SHM;
    h.caps.max_rank = 4;
    h.caps.max_operands = 2;
    char why[512];
    const uint32_t versions[] = {3, 4, 2, 1};
    for (int v = 0; v < 4; v++) {
        h.protocol = versions[v];
        bc_wbuf b = {0};
        bc_wire_encode_hello(&b, &h);
        int rc = bc_wire_decode_hello(b.data + BC_WIRE_HEADER_SIZE, b.len - BC_WIRE_HEADER_SIZE,
                                      &got, why, sizeof why);
        if (versions[v] >= 3) {
            assert_int_equal(rc, 0);
            assert_int_equal(got.caps.features, h.caps.features);
        } else {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(why, "bit 6 (shared-file questions) needs protocol version 3"));
        }
        bc_wbuf_free(&b);
    }
    h.protocol = 3;
    h.caps.features |= 1u << 7; /* still unknown */
    bc_wbuf b = {0};
    bc_wire_encode_hello(&b, &h);
    assert_int_equal(bc_wire_decode_hello(b.data + BC_WIRE_HEADER_SIZE,
                                          b.len - BC_WIRE_HEADER_SIZE, &got, why, sizeof why),
                     -1);
    assert_non_null(strstr(why, "features has unknown bits 0x80"));
    bc_wbuf_free(&b);
}

/* ---- through workers ---------------------------------------------------- */

static void test_builtin_by_shm(void **state)
{
    (void)state;
    /* threshold 1: every value question goes by a shared file */
    const bc_sut *sut = open_with("exec:" BC_WORKER " --builtin reference", 1);
    assert_true(bc_isolated_caps(sut)->features & BC_WIRE_FEATURE_SHM);
    assert_int_equal(bc_sut_question_limit(sut), 0);
    check_cases(sut, BC_INT8);
    check_cases(sut, BC_INT32);
    long by_shm = bc_isolated_shm_questions(sut);
    assert_int_equal(by_shm, 2 * (long)(sizeof counts / sizeof *counts));
    bc_sut_close(sut);

    /* the default threshold (the frame limit): these small questions go in frames */
    sut = open_with("exec:" BC_WORKER " --builtin reference", 0);
    check_cases(sut, BC_INT8);
    assert_int_equal(bc_isolated_shm_questions(sut), 0);
    bc_sut_close(sut);
}

/* A mutant that leaves the tail of its output unwritten (mutant:simd-tail):
 * the poison the harness put in the file's output comes back, as the
 * in-frame path's poisoned output buffer does. */
static void test_unwritten_output_shows(void **state)
{
    (void)state;
    static int32_t x[1001 + 16], out[1001];
    for (int i = 0; i < 1001; i++)
        x[i] = i;
    bc_shape s[1] = {sh("[1001]")};
    bc_tensor in[1] = {{BC_INT32, 1, {1001}, {1}, x, 0}};
    bc_params p = bc_params_for(BC_RULE_NONE);
    for (int by_shm = 0; by_shm < 2; by_shm++) {
        const bc_sut *sut = open_with("exec:" BC_WORKER " --builtin mutant:simd-tail",
                                      by_shm ? 1 : 0);
        memset(out, 0, sizeof out);
        bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &p, 1, s, 0, 1, in, BC_INT32,
                               out, 1001};
        bc_sut_answer a;
        sut->ops->eval(sut, &req, &a);
        assert_int_equal(a.status, BC_SUT_OK);
        assert_int_equal(out[999], 999 * 1); /* a one-operand add: the copy */
        assert_int_equal((uint32_t)out[1000], 0xA5A5A5A5u);
        assert_int_equal(bc_isolated_shm_questions(sut), by_shm);
        bc_sut_close(sut);
    }
}

/* A question asked again after a silence (isolation/isolated.c) goes in a
 * file written afresh: the silent worker wrote the whole output, and the
 * second leaves its last element unwritten, which must come back as
 * poison, not as the silent worker's value (an unwritten element would
 * pass unseen). */
static void test_asked_again_in_a_fresh_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/bc_shm_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char marker[sizeof dir + 16], spec[2048];
    snprintf(marker, sizeof marker, "%s/silent", dir);
    snprintf(spec, sizeof spec, "exec:%s %s silent-once %s", BC_PYTHON3, BC_SHM_WORKER, marker);
    bc_sut_options o = bc_sut_options_default();
    o.timeout_ms = 2000; /* the first ask's silence: the worker never answers it */
    o.start_timeout_ms = 60000;
    o.shm_threshold_bytes = 1;
    char why[1024];
    const bc_sut *sut = bc_sut_open(spec, &o, why, sizeof why);
    if (!sut)
        fail_msg("cannot open %s: %s", spec, why);
    static int8_t x[6], y[3], out[6], want[6];
    for (int i = 0; i < 6; i++)
        x[i] = (int8_t)(i + 1);
    for (int i = 0; i < 3; i++)
        y[i] = (int8_t)(10 * i);
    bc_shape s[2] = {sh("[2,3]"), sh("[3]")};
    bc_tensor in[2] = {{BC_INT8, 2, {2, 3}, {3, 1}, x, 0}, {BC_INT8, 1, {3}, {1}, y, 0}};
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &p, 2, s, 0, 2, in, BC_INT8,
                           out, 6};
    bc_sut_answer a, r;
    sut->ops->eval(sut, &req, &a);
    assert_int_equal(a.status, BC_SUT_OK);
    assert_int_equal(a.asked_again, 1);
    assert_int_equal(access(marker, F_OK), 0); /* the first ask was the silent one */
    req.out = want;
    bc_reference_eval(BC_EVAL_NAIVE, &req, &r);
    assert_memory_equal(out, want, 5);
    assert_int_equal((uint8_t)out[5], 0xA5); /* poison: the silent worker wrote 26 there */
    assert_int_equal(want[5], 26);
    bc_sut_close(sut);
    unlink(marker);
    rmdir(dir);
}

/* A value question's time limit grows with the bytes it moves (1 ms per
 * BC_SUT_TIMEOUT_BYTES_PER_MS): 72 MB of int8 add under --timeout-ms 100
 * may take 7.3 s, and a worker that takes 600 ms to answer is answered at
 * the first ask.  A fixed limit made it a timeout twice over (100 ms, then
 * 400 ms asked again): a correct SUT failing for the size of its question. */
static void test_time_grows_with_the_question(void **state)
{
    (void)state;
    enum { N = 6000 };
    char spec[2048], why[1024];
    snprintf(spec, sizeof spec, "exec:%s %s sleep 600", BC_PYTHON3, BC_SHM_WORKER);
    bc_sut_options o = bc_sut_options_default();
    o.timeout_ms = 100;
    o.start_timeout_ms = 60000;
    o.shm_threshold_bytes = 1;
    const bc_sut *sut = bc_sut_open(spec, &o, why, sizeof why);
    if (!sut)
        fail_msg("cannot open %s: %s", spec, why);
    const bc_shape s[2] = {{2, {N, N}}, {1, {N}}};
    int8_t *mem = calloc((size_t)N * N + N, 1), *out = malloc((size_t)N * N);
    assert_true(mem && out);
    const bc_tensor in[2] = {bc_tensor_contiguous(BC_INT8, &s[0], mem),
                             bc_tensor_contiguous(BC_INT8, &s[1], mem + (size_t)N * N)};
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &p, 2, s, 0, 2, in, BC_INT8, out,
                           (int64_t)N * N};
    bc_sut_answer a;
    memset(&a, 0, sizeof a);
    sut->ops->eval(sut, &req, &a);
    if (a.status != BC_SUT_OK)
        fail_msg("status %d: %s", a.status, a.message);
    assert_int_equal(a.asked_again, 0);
    assert_int_equal(bc_isolated_shm_questions(sut), 1);
    bc_sut_close(sut);
    free(mem);
    free(out);
}

/* bcwire.py's side: a Python worker declaring the bit answers by the file. */
static void test_python_by_shm(void **state)
{
    (void)state;
    char spec[2048];
    snprintf(spec, sizeof spec, "exec:%s %s honest", BC_PYTHON3, BC_SHM_WORKER);
    const bc_sut *sut = open_with(spec, 1);
    bc_sut_answer a;
    ask_add(sut, BC_INT8, counts[0], cases[0], &a, 1);
    ask_add(sut, BC_INT8, counts[2], cases[2], &a, 1);
    ask_add(sut, BC_INT8, counts[4], cases[4], &a, 1); /* rejected: nothing written */
    assert_int_equal(bc_isolated_shm_questions(sut), 3);
    assert_int_equal(bc_sut_question_limit(sut), 0);
    bc_sut_close(sut);
}

/* numpy_worker.py by the file: NumPy's ufuncs writing in place into it
 * (2 operands), and a result copied there (3 operands). */
static void test_numpy_by_shm(void **state)
{
    (void)state;
    bc_sut_options o = bc_sut_options_default();
    o.shm_threshold_bytes = 1;
    o.timeout_ms = o.start_timeout_ms = 30000;
    char why[1024];
    const bc_sut *sut = bc_sut_open("exec:" BC_PYTHON3 " " BC_NUMPY_WORKER, &o, why, sizeof why);
    if (!sut && strstr(why, "numpy not available"))
        skip(); /* scripts/setup.sh installs it; a bare machine may not have it */
    if (!sut)
        fail_msg("%s", why);
    check_cases(sut, BC_INT8);
    check_cases(sut, BC_INT32);
    assert_int_equal(bc_isolated_shm_questions(sut), 2 * (long)(sizeof counts / sizeof *counts));
    bc_sut_close(sut);
}

/* tfjs_worker.js --shared-file by the file (bcwire.js reads the inputs from it with pread
 * and writes the result back at out_offset): tfjs's tf.add on int32, two and
 * three operands, a size-0 result and a rejection.  Skipped where node or
 * tfjs is not installed (scripts/setup-adapters-js.sh). */
static void test_js_by_shm(void **state)
{
    (void)state;
    if (system("command -v node >/dev/null 2>&1") != 0)
        skip();
    bc_sut_options o = bc_sut_options_default();
    o.shm_threshold_bytes = 1;
    o.timeout_ms = o.start_timeout_ms = 30000;
    char why[1024];
    const bc_sut *sut = bc_sut_open("exec:node " BC_TFJS_WORKER " --shared-file", &o, why, sizeof why);
    if (!sut && strstr(why, "not available"))
        skip();
    if (!sut)
        fail_msg("%s", why);
    check_cases(sut, BC_INT32);
    assert_int_equal(bc_isolated_shm_questions(sut), (long)(sizeof counts / sizeof *counts));
    bc_sut_close(sut);
}

/* A worker without the bit: the threshold only chooses among transports a
 * worker takes, so its questions go in frames; one past the frame limit is
 * not examined ("unsupported"), never sent, never its fault. */
static void test_without_the_bit(void **state)
{
    (void)state;
    char spec[2048];
    snprintf(spec, sizeof spec, "exec:%s %s", BC_PYTHON3, BC_PYTHON_WORKER);
    const bc_sut *sut = open_with(spec, 1);
    assert_false(bc_isolated_caps(sut)->features & BC_WIRE_FEATURE_SHM);
    assert_int_equal(bc_sut_question_limit(sut), (int64_t)BC_WIRE_MAX_PAYLOAD);
    bc_sut_answer a;
    ask_add(sut, BC_INT32, counts[0], cases[0], &a, 1);
    assert_int_equal(a.status, BC_SUT_OK);
    assert_int_equal(bc_isolated_shm_questions(sut), 0);
    /* room for 2^31 elements: the answer alone passes a frame (the buffer is
     * never touched: the question is not sent) */
    int32_t x[64];
    bc_shape s[1] = {sh("[65536,32768]")};
    bc_tensor in[1] = {{BC_INT32, 2, {(int64_t)1 << 16, (int64_t)1 << 15}, {0, 0}, x, 0}};
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_eval_request req = {BC_VALUE_ELEMENTWISE, BC_OP_ADD, &p, 1, s, 0, 1, in, BC_INT32, NULL,
                           (int64_t)1 << 31};
    sut->ops->eval(sut, &req, &a);
    assert_int_equal(a.status, BC_SUT_UNSUPPORTED);
    assert_non_null(strstr(a.message, "not examined: the question does not fit a frame"));
    assert_int_equal(a.fault, BC_SUT_FAULT_NONE);
    bc_sut_close(sut);
}

/* The harness's descriptors: their count, and whether one is a shared file. */
static int harness_fds(int *shared)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    *shared = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len > 0) {
            target[len] = '\0';
            *shared += strstr(target, "broadcheck-eval") != NULL;
        }
        n++;
    }
    closedir(d);
    return n;
}

/* Names in /dev/shm now, one string. */
static void dev_shm(char *buf, size_t cap)
{
    buf[0] = '\0';
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    size_t at = 0;
    while ((e = readdir(d)))
        if (at < cap)
            at += (size_t)snprintf(buf + at, cap - at, "%s/", e->d_name);
    closedir(d);
}

static void check_misbehaving(const char *mode, const char *diagnosis)
{
    char spec[2048], before[8192], after[8192];
    snprintf(spec, sizeof spec, "exec:%s %s %s", BC_PYTHON3, BC_SHM_WORKER, mode);
    const bc_sut *sut = open_with(spec, 1);
    int shared, fds = harness_fds(&shared);
    dev_shm(before, sizeof before);
    bc_sut_answer a;
    ask_add(sut, BC_INT8, counts[0], cases[0], &a, 0);
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    if (!strstr(a.message, diagnosis))
        fail_msg("%s: %s", mode, a.message);
    assert_int_not_equal(a.fault, BC_SUT_FAULT_NONE);
    /* nothing left: no descriptor of a shared file, nothing new in /dev/shm */
    int now = harness_fds(&shared);
    assert_int_equal(shared, 0);
    assert_true(now <= fds);
    dev_shm(after, sizeof after);
    assert_string_equal(before, after);
    /* the next question goes to a fresh worker, which answers it (and
     * misbehaves again: caught again) */
    ask_add(sut, BC_INT8, counts[0], cases[0], &a, 0);
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    bc_sut_close(sut);
}

static void test_wild_writes_caught(void **state)
{
    (void)state;
    check_misbehaving("past-output", "wild write: the worker wrote 0 bytes past the end of its "
                                     "output (128 int8 elements) in the shared file");
    check_misbehaving("input", "wild write: the worker changed the elements of input 0 (int8) "
                               "in the shared file");
}

static void test_killed_worker_leaves_nothing(void **state)
{
    (void)state;
    check_misbehaving("kill", "worker killed by SIGKILL");
}

/* 1 once pid is gone or a zombie (dead, not yet reaped by whoever adopted
 * it); waits at most ~60 s, a bound, not a timing the test depends on. */
static int dead_within(long pid, const char *what)
{
    for (int tries = 0; tries < 600; tries++) {
        char path[64], stat[512] = "";
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return 1;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = '\0';
        const char *state = strrchr(stat, ')');
        if (state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X'))
            return 1;
        usleep(100 * 1000);
    }
    fail_msg("%s (pid %ld) still alive", what, pid);
    return 0;
}

/* The harness killed (SIGKILL) while its worker holds the file mapped: the
 * worker dies of its parent-death signal, and nothing is left anywhere (the
 * memfd had no name; its last references were the two processes). */
static void test_killed_harness_leaves_nothing(void **state)
{
    (void)state;
    char marker[] = "/tmp/bc_shm_test_XXXXXX", before[8192], after[8192];
    assert_non_null(mkdtemp(marker));
    char pidfile[sizeof marker + 16], spec[2048];
    snprintf(pidfile, sizeof pidfile, "%s/worker", marker);
    snprintf(spec, sizeof spec, "exec:%s %s hang %s", BC_PYTHON3, BC_SHM_WORKER, pidfile);
    dev_shm(before, sizeof before);
    pid_t harness = fork();
    assert_true(harness >= 0);
    if (harness == 0) { /* the harness: asks, and is killed while its worker hangs */
        bc_sut_options o = bc_sut_options_default();
        o.timeout_ms = 120000;
        o.shm_threshold_bytes = 1;
        char why[1024];
        const bc_sut *sut = bc_sut_open(spec, &o, why, sizeof why);
        if (sut) {
            bc_sut_answer a;
            ask_add(sut, BC_INT8, counts[0], cases[0], &a, 0);
        }
        _exit(3);
    }
    long worker = 0;
    for (int tries = 0; tries < 600 && worker == 0; tries++) {
        FILE *f = fopen(pidfile, "r");
        if (f) {
            if (fscanf(f, "%ld", &worker) != 1)
                worker = 0;
            fclose(f);
        }
        if (worker == 0)
            usleep(100 * 1000);
    }
    if (worker)
        assert_int_equal(kill((pid_t)worker, 0), 0); /* alive, the file mapped */
    kill(harness, SIGKILL);
    int status;
    assert_int_equal(waitpid(harness, &status, 0), harness);
    if (worker == 0)
        fail_msg("the worker never got its shared-file question");
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_true(dead_within(worker, "the worker of a killed harness"));
    dev_shm(after, sizeof after);
    assert_string_equal(before, after);
    unlink(pidfile);
    rmdir(marker);
}

/* broadcheck-worker serving an adapter that writes 4 kB past its output:
 * past the shared file's guard and its last page, the worker dies of it
 * and the question is an internal error; nothing is left behind. */
static void test_adapter_wild_write(void **state)
{
    (void)state;
    char spec[2048];
    snprintf(spec, sizeof spec, "%s/libfault_wild_write.so", BC_FAULTY_DIR);
    const bc_sut *sut = open_with(spec, 1);
    int shared, fds = harness_fds(&shared);
    bc_shape s[2] = {sh("[2,3]"), sh("[3]")};
    bc_sut_answer a;
    ask_add(sut, BC_INT32, 2, s, &a, 0);
    assert_int_equal(a.status, BC_SUT_INTERNAL_ERROR);
    /* (an AddressSanitizer build of the adapter reports the write itself) */
    if (!strstr(a.message, "SIGSEGV") && !strstr(a.message, "SIGBUS") &&
        !strstr(a.message, "wild write") && !strstr(a.message, "AddressSanitizer"))
        fail_msg("%s", a.message);
    assert_int_equal(bc_isolated_shm_questions(sut), 1);
    assert_true(harness_fds(&shared) <= fds);
    assert_int_equal(shared, 0);
    bc_sut_close(sut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_round_trip),
        cmocka_unit_test(test_hello_bit),
        cmocka_unit_test(test_builtin_by_shm),
        cmocka_unit_test(test_unwritten_output_shows),
        cmocka_unit_test(test_asked_again_in_a_fresh_file),
        cmocka_unit_test(test_time_grows_with_the_question),
        cmocka_unit_test(test_python_by_shm),
        cmocka_unit_test(test_numpy_by_shm),
        cmocka_unit_test(test_js_by_shm),
        cmocka_unit_test(test_without_the_bit),
        cmocka_unit_test(test_wild_writes_caught),
        cmocka_unit_test(test_killed_worker_leaves_nothing),
        cmocka_unit_test(test_killed_harness_leaves_nothing),
        cmocka_unit_test(test_adapter_wild_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
