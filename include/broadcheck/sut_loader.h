/*
 * broadcheck/sut_loader.h: opening a SUT by name, built in or external.
 *
 * `spec` is what --sut takes:
 *   NAME          a built-in SUT (the reference or a mutant), in process;
 *   PATH          anything containing '/' or ending in ".so": an adapter
 *                 library (include/broadcheck/adapter.h), loaded by a
 *                 broadcheck-worker process, never by the harness;
 *   exec:COMMAND  a worker started as `sh -c COMMAND` that speaks the wire
 *                 protocol (wire/PROTOCOL.md) on its stdin/stdout;
 *   LIBRARY       a library adapter broadcheck ships (numpy, torch, onnx,
 *                 dask, numba, sparse, octave, tfjs, ort, tfjs-wasm,
 *                 ort-web, stdlib, mathjs, onednn, xnnpack, xtensor, eigen): its
 *                 worker or adapter library where paths.h finds it, opened
 *                 under that name, its manifest beside it.
 * An external SUT runs out of process (docs/ISOLATION.md): a crash, abort,
 * hang, runaway allocation, write past its output, malformed, oversized or
 * surplus answer is an internal-error answer naming the fault (and its
 * bc_sut_fault), and the next question gets a fresh worker.  Workers die
 * with the harness, even a SIGKILLed one.  The returned bc_sut is safe to share between threads (each
 * concurrent question has its own worker, from a pool).
 */
#ifndef BROADCHECK_SUT_LOADER_H
#define BROADCHECK_SUT_LOADER_H

#include <stddef.h>
#include <stdio.h>

#include "broadcheck/sut.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BC_SUT_DEFAULT_TIMEOUT_MS 2000
#define BC_SUT_DEFAULT_MEMORY_MB 1024
/* A worker's time from its start to its HELLO.  Generous: PyTorch's import
 * alone took more than 10 s on a loaded 2-core machine. */
#define BC_SUT_DEFAULT_START_TIMEOUT_MS 60000
/* A question that gets no answer within timeout_ms is asked once more, on
 * another worker (an idle one, or a fresh one), with this many times the
 * time; only if that ask gets no answer either is the question a timeout.
 * A saturated CI machine made a correct SUT miss its limit once (NumPy's
 * matmul at 2 s), and one slow answer must not fail a correct SUT; a SUT
 * that really hangs costs 1 + 4 = 5 timeouts a question instead of 1, and
 * four times the limit is more than any slowdown seen on a loaded machine
 * (docs/ISOLATION.md, "One question"). */
#define BC_SUT_RETRY_TIMEOUT_FACTOR 4
/* A value question's time limit is timeout_ms plus 1 ms for every this
 * many bytes it moves (inputs and output): 10 MB/s, slower than any worker
 * shipped moves and converts its tensors, so that a medium case (up to
 * ~24 MB: + 2.4 s) or a huge one (2^31 bytes of output: + 215 s) is not a
 * timeout for its size alone, and a small one (under 10 kB) gets exactly
 * timeout_ms (docs/ISOLATION.md, "One question"). */
#define BC_SUT_TIMEOUT_BYTES_PER_MS 10000

typedef struct bc_sut_options {
    int timeout_ms;          /* per question, from the request's write to its answer */
    int memory_mb;           /* the worker's memory limit (address space and resident) */
    const char *worker_path; /* broadcheck-worker for .so adapters; NULL: found as
                                documented in docs/ISOLATION.md */
    int start_timeout_ms;    /* a worker's time from its start to its HELLO (the first
                                one's, and every restart's); <= 0: the default; never
                                less than timeout_ms */
    int64_t shm_threshold_bytes; /* a value question whose frame or answer would pass this
                                    goes by a shared file to a worker that takes one
                                    (wire/PROTOCOL.md, EVAL_SHM); <= 0: the frame limit,
                                    so only what no frame carries (tests give less) */
} bc_sut_options;

bc_sut_options bc_sut_options_default(void);

/* 1 if spec names an external SUT (a library path or exec:). */
int bc_sut_spec_is_external(const char *spec);

/* The library adapters broadcheck ships, by name (isolation/named.c). */
int bc_named_sut_count(void);
const char *bc_named_sut_name(int i);    /* "numpy", ...; NULL out of range */
const char *bc_named_sut_library(int i); /* "NumPy", ... */
/* What --sut NAME opens: spec[cap] an exec: command or a library path, and
 * manifest[mcap] (NULL: not wanted) its manifest file.  0; 1 if name is not
 * a shipped adapter; -1 if it is but its files are missing, with why. */
int bc_named_sut_resolve(const char *name, char *spec, size_t cap, char *manifest, size_t mcap,
                         char *why, size_t why_cap);

/* Opens the SUT.  For an external one this starts a worker and reads its
 * handshake, so a library that cannot be loaded, a missing entry symbol, an
 * ABI version mismatch or a bad descriptor fail here.  Returns NULL and
 * writes why[cap] (one line naming the spec and the reason). */
const bc_sut *bc_sut_open(const char *spec, const bc_sut_options *opts, char *why, size_t cap);

/* The most bytes one value question to sut may carry: 0 (no limit) for a
 * built-in SUT (in process) and for a worker that takes shared-file
 * questions; the wire protocol's frame limit for any other. */
int64_t bc_sut_question_limit(const bc_sut *sut);

/* Stops the SUT's workers and frees it.  No other thread may be using it.
 * NULL and built-in SUTs are ignored. */
void bc_sut_close(const bc_sut *sut);

/* Async-signal-safe (call it from a SIGINT handler): every question in
 * flight to an external SUT is cut short, its worker killed and reaped by
 * the thread that asked, and every later question is answered at once with
 * BC_SUT_FAULT_INTERRUPTED, starting no worker.  Built-in SUTs answer as
 * before (their questions are short). */
void bc_sut_interrupt(const bc_sut *sut);

/* The time (CLOCK_MONOTONIC, in seconds; <= 0 or infinite: none) past
 * which an external SUT asks no question again (BC_SUT_RETRY_TIMEOUT_FACTOR):
 * the second ask of a question that timed out is started only before it and
 * given at most the time left until it, so that a run bounded by --time
 * ends on time.  A question whose second ask the deadline cut short, or
 * left no time for, is answered with BC_SUT_FAULT_INTERRUPTED (not judged).
 * bc_run sets it to the end of its --time and clears it when it returns.
 * Built-in SUTs ignore it.  Not to be called while questions are asked. */
void bc_sut_set_deadline(const bc_sut *sut, double monotonic_seconds);

/* What the SUT declares, one line ("shape; rules numpy,none; ops add; ..."),
 * into buf[cap].  Built-in SUTs answer every question. */
void bc_sut_describe_caps(const bc_sut *sut, char *buf, size_t cap);

/* Prints `broadcheck list suts`: every built-in SUT, then `extra` (a --sut
 * given, or NULL), then every *.so in the directories of the colon-separated
 * `adapter_path` (NULL: none); each with "available" and its capabilities,
 * or "not available" and why. */
void bc_sut_list(FILE *out, const char *extra, const char *adapter_path,
                 const bc_sut_options *opts);

#ifdef __cplusplus
}
#endif
#endif
