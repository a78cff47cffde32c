/*
 * Shared by the libFuzzer targets of fuzz/: the entry points libFuzzer
 * calls (declared, for -Wmissing-prototypes), and a check that aborts with
 * a message, so that a broken identity is a crash libFuzzer saves.
 */
#ifndef BROADCHECK_FUZZ_H
#define BROADCHECK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* abort() (a crash libFuzzer reports and saves) unless cond holds. */
#define BC_FUZZ_CHECK(cond, ...)                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The input as a NUL-terminated string (it stops at the first NUL byte, as
 * the C parsers would); free it. */
static inline char *bc_fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    for (size_t i = 0; i < size; i++)
        text[i] = (char)data[i];
    text[size] = '\0';
    return text;
}

#endif
