/* Private to broadcheck-worker: an adapter library, loaded and checked, and
 * how a decoded question becomes a call to it. */
#ifndef BROADCHECK_WORKER_H
#define BROADCHECK_WORKER_H

#include <stddef.h>

#include "../wire/wire.h"

typedef struct bc_worker_adapter {
    void *library;          /* dlopen handle */
    const bc_adapter *desc; /* checked */
} bc_worker_adapter;

/* dlopens path, finds the entry symbol and checks the descriptor (ABI
 * version, size, name, capabilities, functions).  Returns 0, or -1 with a
 * one-line reason naming path. */
int bc_worker_load(const char *path, bc_worker_adapter *ad, char *why, size_t cap);
void bc_worker_unload(bc_worker_adapter *ad);

/* The BC_ADAPTER_PARTIAL_* a descriptor declares (0 for an old one). */
uint32_t bc_worker_partial(const bc_adapter *d);

/* A partial-shape question to the adapter, its answer checked into a. */
void bc_worker_panswer(const bc_worker_adapter *ad, const bc_wire_pquestion *q,
                       bc_wire_panswer *a);

/* The HELLO that declares the adapter. */
void bc_worker_hello(const bc_worker_adapter *ad, bc_wire_hello *hello);

/* Asks the adapter q and fills a; a->out may point into *scratch, which the
 * caller frees after encoding.  A fault the worker can see (a write past the
 * output buffer, an answer out of range) becomes an internal error. */
void bc_worker_answer(const bc_worker_adapter *ad, const bc_wire_question *q,
                      bc_wire_answer *a, void **scratch);

#endif
