/*
 * Replaying one case, as 'broadcheck replay' does, and the replay line the
 * runner prints for every failure it shrinks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* s as one POSIX shell word: as is when it has only safe characters, else
 * in single quotes (a ' inside becomes '\''), so that a replay line with an
 * `exec:python3 worker.py` SUT pastes into a shell as printed. */
static char *shell_word(const char *s)
{
    size_t n = strlen(s), quotes = 0;
    int safe = n > 0;
    for (const char *p = s; *p; p++) {
        safe &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || strchr("_./:=,+-@%", *p) != NULL;
        quotes += *p == '\'';
    }
    char *w = malloc(n + 3 * quotes + 3);
    if (!w || safe)
        return w ? memcpy(w, s, n + 1) : NULL;
    char *o = w;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return w;
}

char *bc_replay_line(const char *sut_name, const char *sut_args, const char *property,
                     const char *vector_line)
{
    const char *fmt = "broadcheck replay --sut %s%s%s --property %s %s";
    const char *args = sut_args ? sut_args : "";
    char *sut = shell_word(sut_name), *text = shell_word(vector_line);
    char *line = NULL;
    if (sut && text) {
        int len = snprintf(NULL, 0, fmt, sut, args[0] ? " " : "", args, property, text);
        line = malloc((size_t)len + 1);
        if (line)
            snprintf(line, (size_t)len + 1, fmt, sut, args[0] ? " " : "", args, property, text);
    }
    free(sut);
    free(text);
    return line;
}

int bc_property_applies(int property, bc_rule rule)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    return property >= 0 && property < count && ((props[property].rules >> rule) & 1u);
}

/* A replay's exit status (0 pass, 1 fail, 2 could not be checked) for check k. */
static int replay_verdict(bc_check k, bc_check_ctx *ctx, char *detail, size_t cap)
{
    bc_check_ctx_release(ctx);
    if (ctx->stopped != BC_SHRINK_MINIMAL) { /* an answer not the case's (bc_check_answered) */
        char said[1024];
        snprintf(said, sizeof said, "%s", detail);
        snprintf(detail, cap, "not checked: a question was cut short or could not be asked "
                 "(%s)", said);
        return 2;
    }
    switch (k) {
    case BC_CHECK_PASS: return 0;
    case BC_CHECK_FAIL: return 1;
    default:
        if (!detail[0])
            snprintf(detail, cap, "the SUT does not support a query this property needs");
        return 2;
    }
}

/* ctx.answered for a watched replay: notes a question left unanswered. */
static void note_timeout(void *hook, const bc_sut_answer *a)
{
    if (a->status == BC_SUT_INTERNAL_ERROR &&
        (a->fault == BC_SUT_FAULT_TIMEOUT || a->fault == BC_SUT_FAULT_INTERRUPTED ||
         a->fault == BC_SUT_FAULT_NO_WORKER))
        *(int *)hook = 1;
}

int bc_replay(const bc_sut *sut, const bc_semantics *semantics, int property, const bc_vector *c,
              char *detail, size_t cap)
{
    return bc_replay_within(sut, semantics, 0, 0, property, c, detail, cap);
}

int bc_replay_within(const bc_sut *sut, const bc_semantics *semantics, int64_t max_bytes,
                     int64_t max_question_bytes, int property, const bc_vector *c, char *detail,
                     size_t cap)
{
    int ignored;
    return bc_replay_watched(sut, semantics, max_bytes, max_question_bytes, property, c, detail,
                             cap, &ignored);
}

int bc_replay_watched(const bc_sut *sut, const bc_semantics *semantics, int64_t max_bytes,
                      int64_t max_question_bytes, int property, const bc_vector *c, char *detail,
                      size_t cap, int *timed_out)
{
    *timed_out = 0;
    int count;
    const bc_property_info *props = bc_properties(&count);
    if (property < 0 || property >= count) {
        snprintf(detail, cap, "no property %d", property);
        return 2;
    }
    if (!bc_property_applies(property, c->params.rule)) {
        snprintf(detail, cap, "property %s does not apply to rule %s", props[property].name,
                 bc_rule_name(c->params.rule));
        return 2;
    }
    /* A value property on a shape line would have nothing to compute and
     * pass unexamined (and a shape property would ignore a line's values). */
    if (props[property].values != c->value.present) {
        snprintf(detail, cap, "property %s checks %s, but the case is a %s line (%s)",
                 props[property].name, props[property].values ? "values" : "shapes",
                 c->value.present ? "value" : "shape",
                 props[property].values ? "add op=OP dtype=DTYPE, as 'broadcheck run' prints "
                                          "a value case"
                                        : "drop its op=, dtype= and value options");
        return 2;
    }
    if (props[property].partial) {
        snprintf(detail, cap, "property %s takes a partial case (bc_replay_partial)",
                 props[property].name);
        return 2;
    }
    bc_check_ctx ctx = {.sut = sut,
                        .answered = note_timeout,
                        .hook = timed_out,
                        .max_bytes = max_bytes,
                        .max_question_bytes = max_question_bytes};
    if (semantics)
        ctx.semantics = *semantics;
    return replay_verdict(bc_property_check(property, &ctx, c, detail, cap), &ctx, detail, cap);
}

int bc_replay_partial(const bc_sut *sut, int property, const bc_pvector *c, char *detail,
                      size_t cap)
{
    int ignored;
    return bc_replay_partial_watched(sut, property, c, detail, cap, &ignored);
}

int bc_replay_partial_watched(const bc_sut *sut, int property, const bc_pvector *c, char *detail,
                              size_t cap, int *timed_out)
{
    *timed_out = 0;
    int count;
    const bc_property_info *props = bc_properties(&count);
    if (property < 0 || property >= count || !props[property].partial) {
        snprintf(detail, cap, "a partial case goes to a partial property (partial-soundness, "
                 "partial-precision, partial-symbols, partial-static-agrees)");
        return 2;
    }
    if (!bc_property_applies(property, c->params.rule)) {
        snprintf(detail, cap, "property %s does not apply to rule %s", props[property].name,
                 bc_rule_name(c->params.rule));
        return 2;
    }
    bc_check_ctx ctx = {.sut = sut, .answered = note_timeout, .hook = timed_out};
    return replay_verdict(bc_pproperty_check(property, &ctx, c, detail, cap), &ctx, detail, cap);
}
