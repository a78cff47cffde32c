/*
 * bc_shape_parse on any text: it must not crash or read past the text, a
 * parsed shape must format and parse back to itself, and a refusal must say
 * where ("column N: ...").
 */
#include <string.h>

#include "broadcheck/shape.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = bc_fuzz_text(data, size);
    bc_shape s, again;
    const char *end = NULL;
    char why[256] = "";
    if (bc_shape_parse(text, &end, &s, why, sizeof why) == 0) {
        BC_FUZZ_CHECK(s.rank >= 0 && s.rank <= BC_MAX_RANK, "rank %d", s.rank);
        BC_FUZZ_CHECK(end > text && end <= text + strlen(text) && end[-1] == ']',
                      "end points outside the shape");
        char buf[BC_MAX_RANK * 22 + 3];
        int len = bc_shape_format(&s, buf, sizeof buf);
        BC_FUZZ_CHECK(len > 0 && (size_t)len < sizeof buf, "format length %d", len);
        BC_FUZZ_CHECK(len == bc_shape_format(&s, NULL, 0), "format lengths differ");
        const char *end2;
        BC_FUZZ_CHECK(bc_shape_parse(buf, &end2, &again, why, sizeof why) == 0,
                      "'%s' does not parse back: %s", buf, why);
        BC_FUZZ_CHECK(*end2 == '\0' && bc_shape_equal(&s, &again), "'%s' parses differently", buf);
    } else {
        BC_FUZZ_CHECK(strncmp(why, "column ", 7) == 0, "the refusal names no column: '%s'", why);
        BC_FUZZ_CHECK(end >= text && end <= text + strlen(text), "end points outside the text");
        /* without a buffer for the reason it must refuse the same way */
        BC_FUZZ_CHECK(bc_shape_parse(text, NULL, &again, NULL, 0) == -1, "NULL why differs");
    }
    free(text);
    return 0;
}
