/*
 * broadcheck/paths.h: where broadcheck finds its own files.
 *
 * An installed broadcheck is relocatable: `cmake --install BUILD --prefix P`
 * puts the programs in P/bin and everything they read under P, and a
 * program finds those files relative to its own place (/proc/self/exe), so
 * the prefix may be moved, copied to another machine or unpacked from a CI
 * artifact.  A program of the build tree finds them in the build and source
 * trees it was built from.
 *
 *   kind       installed (P = the prefix)       in the build tree
 *   worker     P/bin/broadcheck-worker           BUILD/broadcheck-worker
 *   vectors    P/share/broadcheck/vectors        SOURCE/spec/vectors
 *   adapters   P/lib/broadcheck/adapters         BUILD/adapters (links to each adapter built)
 *   python     P/share/broadcheck/python         SOURCE/sut_adapters/python (bcwire.py)
 *   js         P/share/broadcheck/js             SOURCE/sut_adapters/js (bcwire.js)
 *   bench      P/share/broadcheck/bench          SOURCE/bench (numpy_bench.py)
 *
 * (bin, lib and share as GNUInstallDirs named them at configure time.)
 */
#ifndef BROADCHECK_PATHS_H
#define BROADCHECK_PATHS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bc_path_kind {
    BC_PATH_WORKER,   /* the broadcheck-worker program (loads .so adapters) */
    BC_PATH_VECTORS,  /* the folder of conformance vectors (*.vec) */
    BC_PATH_ADAPTERS, /* the folder of the adapter libraries built with broadcheck */
    BC_PATH_PYTHON,   /* the folder of the Python wire helper bcwire.py and the Python workers */
    BC_PATH_JS,       /* the folder of the JavaScript wire helper bcwire.js and the JS workers */
    BC_PATH_BENCH,    /* the folder of bench/numpy_bench.py */
    BC_PATH_COUNT
} bc_path_kind;

/* "worker", "vectors", "adapters", "python", "js", "bench"; NULL if out of range. */
const char *bc_path_name(bc_path_kind kind);

/* Finds `file` inside the folder of `kind` (file NULL or "": the folder, or
 * for BC_PATH_WORKER the program, itself).  For BC_PATH_WORKER,
 * $BROADCHECK_WORKER, when set, is the only place looked at.  Otherwise the
 * first of these that exists:
 *   1. its installed place, relative to the running program;
 *   2. its place in the build tree this code was built in.
 * Returns 0 with the path in out[cap]; -1 when it is in none of them, with
 * why[why_cap] naming every place looked at (out then holds the installed
 * place).  Thread-safe; no global state. */
int bc_path_find(bc_path_kind kind, const char *file, char *out, size_t cap, char *why,
                 size_t why_cap);

#ifdef __cplusplus
}
#endif
#endif
