/*
 * broadcheck/manifest.h: what a SUT's maintainer declares about it
 * (docs/MANIFEST.md): its name and version, the scope it claims, and its
 * known divergences from the reference, each a replay-exact case.
 *
 * The adapter's HELLO stays the source of what the binary can do; the
 * manifest is what its maintainer claims, and a run checks that the two
 * agree before it asks anything (bc_manifest_check_sut).
 */
#ifndef BROADCHECK_MANIFEST_H
#define BROADCHECK_MANIFEST_H

#include <stddef.h>

#include "broadcheck/properties.h"
#include "broadcheck/sut.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BC_MANIFEST_FORMAT_VERSION 1

typedef struct bc_manifest bc_manifest; /* opaque */

/* Reads and checks a manifest file (JSON, docs/MANIFEST.md).  NULL with
 * why (naming the file, and the line or the field) on a syntax error, an
 * unknown or missing field, or a known divergence whose case does not parse
 * or does not belong to its property. */
bc_manifest *bc_manifest_load(const char *path, char *why, size_t cap);
void bc_manifest_free(bc_manifest *m);

const char *bc_manifest_name(const bc_manifest *m);
const char *bc_manifest_version(const bc_manifest *m);
/* The value semantics it declares (the reference's own where it states
 * none; docs/ENGINE.md "Value semantics"); they belong to m. */
const bc_semantics *bc_manifest_semantics(const bc_manifest *m);
/* Its known divergences, in file order (they belong to m). */
const bc_known_divergence *bc_manifest_known(const bc_manifest *m, int *count);

/* 0 if the scope the manifest declares (ops, dtypes, max rank, max
 * operands: each one it states) is exactly what the SUT declares; -1 with
 * why, listing each difference. */
int bc_manifest_check_sut(const bc_manifest *m, const bc_sut *sut, char *why, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
