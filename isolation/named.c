/*
 * The library adapters broadcheck ships, by name (--sut numpy): each is a
 * worker or an adapter library found where paths.h finds broadcheck's own
 * files, with its manifest beside it (docs/MANIFEST.md).  A name only
 * resolves to files; whether the library itself is there is the worker's to
 * say ("numpy not available"), when it is opened.
 */
#include <stdio.h>
#include <string.h>

#include "broadcheck/paths.h"
#include "broadcheck/sut_loader.h"

typedef struct named_sut {
    const char *name;
    const char *library;  /* what it wraps, for 'list suts' */
    bc_path_kind where;   /* the folder of its worker or library, and of its manifest */
    const char *file;     /* the worker script or the adapter library */
    const char *runner;   /* the interpreter of a worker script; NULL for a library */
} named_sut;

/* Debian's python3, which has the packages the workers import (not
 * whatever python3 is first on PATH: docs/certifications/README.md). */
static const named_sut named[] = {
    {"numpy", "NumPy", BC_PATH_PYTHON, "numpy_worker.py", "/usr/bin/python3"},
    {"torch", "PyTorch", BC_PATH_PYTHON, "torch_worker.py", "/usr/bin/python3"},
    {"onnx", "ONNX shape inference", BC_PATH_PYTHON, "onnx_worker.py", "/usr/bin/python3"},
    {"dask", "Dask", BC_PATH_PYTHON, "dask_worker.py", "/usr/bin/python3"},
    {"numba", "Numba (nopython mode)", BC_PATH_PYTHON, "numba_worker.py", "/usr/bin/python3"},
    {"sparse", "pydata/sparse (COO)", BC_PATH_PYTHON, "sparse_worker.py", "/usr/bin/python3"},
    {"octave", "GNU Octave", BC_PATH_PYTHON, "octave_worker.py", "/usr/bin/python3"},
    {"tfjs", "TensorFlow.js", BC_PATH_JS, "tfjs_worker.js", "node"},
    {"ort", "ONNX Runtime (onnxruntime-node)", BC_PATH_JS, "ort_worker.js", "node"},
    {"tfjs-wasm", "TensorFlow.js (wasm backend)", BC_PATH_JS, "tfjs_wasm_worker.js", "node"},
    {"ort-web", "ONNX Runtime Web (wasm)", BC_PATH_JS, "ort_web_worker.js", "node"},
    {"stdlib", "stdlib ndarray (@stdlib/ndarray)", BC_PATH_JS, "stdlib_worker.js", "node"},
    {"mathjs", "math.js", BC_PATH_JS, "mathjs_worker.js", "node"},
    {"onednn", "oneDNN", BC_PATH_ADAPTERS, "libbc_onednn_adapter.so", NULL},
    {"xnnpack", "XNNPACK", BC_PATH_ADAPTERS, "libbc_xnnpack_adapter.so", NULL},
    {"xtensor", "xtensor", BC_PATH_ADAPTERS, "libbc_xtensor_adapter.so", NULL},
    {"eigen", "Eigen (Tensor module)", BC_PATH_ADAPTERS, "libbc_eigen_adapter.so", NULL},
};

int bc_named_sut_count(void)
{
    return (int)(sizeof named / sizeof *named);
}

const char *bc_named_sut_name(int i)
{
    return i >= 0 && i < bc_named_sut_count() ? named[i].name : NULL;
}

const char *bc_named_sut_library(int i)
{
    return i >= 0 && i < bc_named_sut_count() ? named[i].library : NULL;
}

int bc_named_sut_resolve(const char *name, char *spec, size_t cap, char *manifest, size_t mcap,
                         char *why, size_t why_cap)
{
    const named_sut *n = NULL;
    for (int i = 0; i < bc_named_sut_count() && !n; i++)
        if (strcmp(named[i].name, name) == 0)
            n = &named[i];
    if (!n)
        return 1;
    char path[4096], where[2048], stem[64];
    if (bc_path_find(n->where, n->file, path, sizeof path, where, sizeof where) != 0) {
        snprintf(why, why_cap, "%s (%s) is not installed here: %.1500s%s", name, n->library,
                 where, n->runner ? "" : " (its library was not found when broadcheck was built)");
        return -1;
    }
    if (strchr(path, '\'')) { /* the exec: command quotes it in '' */
        snprintf(why, why_cap, "%s: its path %.1000s holds a quote", name, path);
        return -1;
    }
    int len = n->runner ? snprintf(spec, cap, "exec:%s '%s'", n->runner, path)
                        : snprintf(spec, cap, "%s", path);
    if (len < 0 || (size_t)len >= cap) {
        snprintf(why, why_cap, "%s: its path is too long", name);
        return -1;
    }
    snprintf(stem, sizeof stem, "%s.manifest.json", name);
    if (manifest &&
        bc_path_find(n->where, stem, manifest, mcap, where, sizeof where) != 0) {
        snprintf(why, why_cap, "%s: its manifest is missing: %.1500s", name, where);
        return -1;
    }
    return 0;
}
