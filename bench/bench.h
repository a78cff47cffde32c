/*
 * Private to the broadcheck executable: `broadcheck bench`, the fast
 * engine's throughput on fixed broadcasting patterns, against the memory
 * limit and NumPy, measured in the same rounds.
 */
#ifndef BC_BENCH_H
#define BC_BENCH_H

#include <stdio.h>

typedef struct bc_bench_options {
    FILE *json;           /* NULL, or where the JSON goes too (the text goes to out) */
    const char *pattern;  /* run only this pattern; NULL for all */
    int repeat;           /* rounds per pattern; --properties: timed runs */
    const char *python;   /* interpreter for the NumPy comparison */
    const char *script;   /* bench/numpy_bench.py */
} bc_bench_options;

/* Prints the list of patterns, one name a line. */
void bc_bench_list(FILE *out);
/* Runs the bench; 0 on success, 2 for an unknown pattern. */
int bc_bench_run(const bc_bench_options *o, FILE *out);
/* bench/property_bench.c: property cases a second (o->json, o->repeat);
 * cores for the default-run row.  0 on success, 1 if a property failed. */
int bc_bench_properties(const bc_bench_options *o, int cores, FILE *out);

#endif
