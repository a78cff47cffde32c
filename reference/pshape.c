/*
 * Partial shapes as values: constructors, the text of spec/README.md
 * ("Partial shapes"), and equality.  The rules on them are in partial.c.
 */
#include "broadcheck/partial.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bc_pdim bc_pdim_static(int64_t d)
{
    bc_pdim p = {d, d, 0};
    return p;
}

bc_pdim bc_pdim_dynamic(void)
{
    bc_pdim p = {0, BC_DIM_UNBOUNDED, 0};
    return p;
}

int bc_pdim_is_static(const bc_pdim *d)
{
    return d->lo == d->hi;
}

int bc_pdim_may_be_1(const bc_pdim *d)
{
    return d->lo <= 1 && 1 <= d->hi;
}

int bc_pdim_contains(const bc_pdim *d, int64_t v)
{
    return d->lo <= v && v <= d->hi;
}

bc_pshape bc_pshape_from_shape(const bc_shape *s)
{
    bc_pshape p;
    p.rank = s->rank;
    for (int k = 0; k < s->rank; k++)
        p.dims[k] = bc_pdim_static(s->dims[k]);
    return p;
}

int bc_pshape_to_shape(const bc_pshape *p, bc_shape *out)
{
    if (p->rank < 0 || p->rank > BC_MAX_RANK)
        return 0;
    for (int k = 0; k < p->rank; k++)
        if (!bc_pdim_is_static(&p->dims[k]))
            return 0;
    out->rank = p->rank;
    for (int k = 0; k < p->rank; k++)
        out->dims[k] = p->dims[k].lo;
    return 1;
}

int bc_pshape_is_partial(const bc_pshape *p)
{
    if (p->rank == BC_RANK_DYNAMIC)
        return 1;
    for (int k = 0; k < p->rank; k++)
        if (!bc_pdim_is_static(&p->dims[k]) || p->dims[k].sym)
            return 1;
    return 0;
}

int bc_pshape_equal(const bc_pshape *a, const bc_pshape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int k = 0; k < a->rank; k++)
        if (a->dims[k].lo != b->dims[k].lo || a->dims[k].hi != b->dims[k].hi ||
            a->dims[k].sym != b->dims[k].sym)
            return 0;
    return 1;
}

/* ---- symbols ------------------------------------------------------------ */

static int is_name_start(int c)
{
    return isalpha(c) || c == '_';
}

static int is_name_char(int c)
{
    return isalnum(c) || c == '_';
}

int bc_psymbols_intern(bc_psymbols *syms, const char *name, size_t len)
{
    if (len == 0 || len > BC_SYMBOL_NAME_MAX || !is_name_start((unsigned char)name[0]))
        return -1;
    for (size_t i = 1; i < len; i++)
        if (!is_name_char((unsigned char)name[i]))
            return -1;
    for (int s = 0; s < syms->count; s++)
        if (strlen(syms->names[s]) == len && memcmp(syms->names[s], name, len) == 0)
            return s + 1;
    if (syms->count == BC_MAX_SYMBOLS)
        return -1;
    memcpy(syms->names[syms->count], name, len);
    syms->names[syms->count][len] = '\0';
    return ++syms->count;
}

/* ---- parsing -------------------------------------------------------------- */

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* An optionally signed decimal integer at *s; 1 and *s past it, 0 if there
 * is none, -1 if it is past the int64 range. */
static int parse_int(const char **s, int64_t *v)
{
    const char *p = *s;
    if (!(isdigit((unsigned char)*p) || ((*p == '-' || *p == '+') && isdigit((unsigned char)p[1]))))
        return 0;
    errno = 0;
    char *after;
    long long x = strtoll(p, &after, 10);
    if (errno == ERANGE)
        return -1;
    *v = (int64_t)x;
    *s = after;
    return 1;
}

int bc_pshape_text_is_partial(const char *text)
{
    const char *close = strchr(text, ']');
    size_t n = close ? (size_t)(close - text) : strlen(text);
    for (size_t i = 0; i < n; i++)
        if (text[i] == '?' || text[i] == '.' || is_name_start((unsigned char)text[i]))
            return 1;
    return 0;
}

int bc_pshape_parse(const char *text, const char **end, bc_pshape *out, bc_psymbols *syms,
                    char *why, size_t cap)
{
    const char *s = skip_blanks(text);
    out->rank = 0;
#define COL ((int)(s - text) + 1)
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (why && cap)                                                                            \
            snprintf(why, cap, __VA_ARGS__);                                                       \
        if (end)                                                                                   \
            *end = s;                                                                              \
        return -1;                                                                                 \
    } while (0)
    if (*s != '[' && *s)
        FAIL("column %d: expected '[' to start a shape, found '%c'", COL, *s);
    if (*s != '[')
        FAIL("column %d: expected '[' to start a shape, found the end of the text", COL);
    s = skip_blanks(s + 1);
    if (strncmp(s, "...", 3) == 0) {
        out->rank = BC_RANK_DYNAMIC;
        s = skip_blanks(s + 3);
        if (*s != ']')
            FAIL("column %d: expected ']' after '...' (a shape of unknown rank is [...])", COL);
        if (end)
            *end = s + 1;
        return 0;
    }
    if (*s == ']') {
        if (end)
            *end = s + 1;
        return 0;
    }
    for (;;) {
        const int axis = out->rank;
        if (axis == BC_MAX_RANK)
            FAIL("column %d: rank past the limit of %d axes", COL, BC_MAX_RANK);
        bc_pdim d = bc_pdim_dynamic();
        if (is_name_start((unsigned char)*s)) {
            const char *name = s;
            while (is_name_char((unsigned char)*s))
                s++;
            size_t len = (size_t)(s - name);
            if (len > BC_SYMBOL_NAME_MAX) {
                s = name;
                FAIL("column %d: symbol at axis %d is longer than %d characters", COL, axis,
                     BC_SYMBOL_NAME_MAX);
            }
            int id = bc_psymbols_intern(syms, name, len);
            if (id < 0) {
                s = name;
                FAIL("column %d: more than %d symbols in one case", COL, BC_MAX_SYMBOLS);
            }
            d.sym = id;
            if (*s == ':')
                s++;
            else
                goto have_dim; /* a bare symbol: any value */
            if (is_name_start((unsigned char)*s) || *s == ':')
                FAIL("column %d: expected the bounds of symbol %.*s after ':' (N, LO..HI, LO.. "
                     "or ..HI)",
                     COL, (int)len, name);
        }
        if (*s == '?') {
            s++;
        } else {
            int64_t lo = 0, hi = BC_DIM_UNBOUNDED;
            const char *at = s;
            int r = parse_int(&s, &lo);
            if (r < 0)
                FAIL("column %d: dim at axis %d is past the int64 range", COL, axis);
            if (strncmp(s, "..", 2) == 0) {
                s += 2;
                at = s;
                r = parse_int(&s, &hi);
                if (r < 0)
                    FAIL("column %d: upper bound at axis %d is past the int64 range", COL, axis);
                if (r == 0)
                    hi = BC_DIM_UNBOUNDED; /* LO.. */
                if (*s == '.' || *s == '?')
                    FAIL("column %d: unexpected '%c' in the interval at axis %d (write LO..HI, "
                         "LO.. or ..HI)",
                         COL, *s, axis);
                if (lo > hi) {
                    s = at;
                    FAIL("column %d: the interval at axis %d is empty (%lld > %lld)", COL, axis,
                         (long long)lo, (long long)hi);
                }
            } else if (r == 0) {
                FAIL("column %d: expected a dim at axis %d (an integer, ?, LO..HI, LO.., ..HI or "
                     "a symbol)",
                     COL, axis);
            } else {
                hi = lo;
            }
            d.lo = lo;
            d.hi = hi;
        }
    have_dim:
        out->dims[out->rank++] = d;
        s = skip_blanks(s);
        if (*s == ']') {
            if (end)
                *end = s + 1;
            return 0;
        }
        if (*s != ',')
            FAIL("column %d: expected ',' or ']' after the dim at axis %d", COL, axis);
        s = skip_blanks(s + 1);
    }
#undef FAIL
#undef COL
}

/* ---- formatting ------------------------------------------------------------ */

#define PUT(...)                                                                                   \
    len += (size_t)snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, __VA_ARGS__)

int bc_pdim_format(const bc_pdim *d, const bc_psymbols *syms, char *buf, size_t cap)
{
    size_t len = 0;
    int any = d->lo == 0 && d->hi == BC_DIM_UNBOUNDED;
    if (d->sym) {
        if (syms && d->sym <= syms->count)
            PUT("%s", syms->names[d->sym - 1]);
        else
            PUT("$%d", d->sym);
        if (any)
            return (int)len;
        PUT(":");
    }
    if (any)
        PUT("?");
    else if (d->lo == d->hi)
        PUT("%lld", (long long)d->lo);
    else if (d->hi == BC_DIM_UNBOUNDED)
        PUT("%lld..", (long long)d->lo);
    else
        PUT("%lld..%lld", (long long)d->lo, (long long)d->hi);
    return (int)len;
}

int bc_pshape_format(const bc_pshape *s, const bc_psymbols *syms, char *buf, size_t cap)
{
    size_t len = 0;
    if (s->rank == BC_RANK_DYNAMIC) {
        PUT("[...]");
        return (int)len;
    }
    PUT("[");
    for (int k = 0; k < s->rank; k++) {
        if (k)
            PUT(",");
        len += (size_t)bc_pdim_format(&s->dims[k], syms, len < cap ? buf + len : NULL,
                                      len < cap ? cap - len : 0);
    }
    PUT("]");
    return (int)len;
}
#undef PUT
