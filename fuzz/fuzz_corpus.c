/*
 * The regression corpus reader (properties/corpus.c) on any file: it must
 * not crash, leak or accept a line it cannot give back.  bc_corpus_read
 * takes a path, so each input is written to one temporary file first.  An
 * accepted corpus holds canonical vector lines: each parses and formats to
 * itself.  A refusal names the corpus ("corpus ...").
 */
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "internal.h"

static char path[4096];
static int fd = -1;

static void remove_file(void)
{
    if (fd >= 0)
        unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* A memory file system where there is one: truncating and rewriting a
     * file on disk for every input is a hundred times slower. */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/bc_fuzz_corpus_XXXXXX", dir);
    fd = mkstemp(path);
    if (fd < 0) {
        perror("fuzz_corpus: mkstemp");
        abort();
    }
    atexit(remove_file);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    bc_corpus corpus;
    char why[1024] = "";
    static bc_vector v;
    static bc_pvector pv; /* large: not on the stack */
    if (bc_corpus_read(path, &corpus, why, sizeof why) == 0) {
        for (int i = 0; i < corpus.count; i++) {
            char detail[512], again[8192];
            /* A corpus holds partial lines (RULES.md §14) beside static ones;
             * each must parse, and be canonical, as its own kind. */
            if (bc_vector_line_is_partial(corpus.lines[i])) {
                BC_FUZZ_CHECK(bc_pvector_parse(corpus.lines[i], &pv, detail, sizeof detail) == 1,
                              "partial line %d '%s' of an accepted corpus does not parse: %s", i,
                              corpus.lines[i], detail);
                bc_pvector_format(&pv, again, sizeof again);
                BC_FUZZ_CHECK(strcmp(again, corpus.lines[i]) == 0,
                              "partial line %d '%s' is not canonical ('%s')", i, corpus.lines[i],
                              again);
                continue;
            }
            BC_FUZZ_CHECK(bc_vector_parse(corpus.lines[i], &v, detail, sizeof detail) == 1,
                          "line %d '%s' of an accepted corpus does not parse: %s", i,
                          corpus.lines[i], detail);
            bc_vector_format(&v, again, sizeof again);
            BC_FUZZ_CHECK(strcmp(again, corpus.lines[i]) == 0,
                          "line %d '%s' is not canonical ('%s')", i, corpus.lines[i], again);
        }
        bc_corpus_free(&corpus);
    } else {
        BC_FUZZ_CHECK(strncmp(why, "corpus ", 7) == 0 && strstr(why, path),
                      "the refusal does not name the corpus: '%s'", why);
        BC_FUZZ_CHECK(corpus.count == 0 && corpus.lines == NULL, "a refused corpus kept lines");
    }
    return 0;
}
