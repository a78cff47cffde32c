/*
 * Text for the reports: a growing buffer, text made valid UTF-8 (and fit for
 * XML or one line), and a buffer written whole or not at all
 * (properties/file_io.c).  Shared by report.c and summarize.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "text.h"

void set_why(char *why, size_t cap, const char *fmt, ...)
{
    if (!why || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
}


void sb_reserve(sbuf *b, size_t more)
{
    if (b->oom)
        return;
    if (b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
        b->oom = 1;
        return;
    }
    b->data = d;
    b->cap = cap;
}

void sb_putn(sbuf *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    if (b->oom)
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sb_puts(sbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    sb_reserve(b, (size_t)n);
    if (b->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one
 * (overlong forms, surrogates and code points past U+10FFFF are not). */
static int utf8_len(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    int n;
    unsigned v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}


/* A copy of s (NULL: "") that is valid UTF-8, each bad byte replaced by
 * '?'.  CLEAN_XML also replaces the characters XML 1.0 cannot hold;
 * CLEAN_LINE every control character (newlines too), for one-line text. */
char *clean_text(const char *s, int mode)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    while (*p) {
        unsigned cp;
        int len = utf8_len(p, &cp);
        if (len == 0) {
            out[o++] = '?';
            p++;
            continue;
        }
        int bad = 0;
        if (mode == CLEAN_XML)
            bad = (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE ||
                  cp == 0xFFFF;
        else if (mode == CLEAN_LINE)
            bad = cp < 0x20 || cp == 0x7F;
        if (bad) {
            out[o++] = (mode == CLEAN_LINE && (cp == '\n' || cp == '\t')) ? ' ' : '?';
        } else {
            memcpy(out + o, p, (size_t)len);
            o += (size_t)len;
        }
        p += len;
    }
    out[o] = '\0';
    return out;
}

int write_sbuf(sbuf *b, const char *path, const char *what, char *why, size_t cap)
{
    char name[64];
    snprintf(name, sizeof name, "%s report", what);
    int rc;
    if (b->oom || !b->data) {
        set_why(why, cap, "cannot write %s '%s': out of memory", name, path ? path : "");
        rc = -1;
    } else {
        rc = bc_write_whole(name, path, b->data, b->len, why, cap);
    }
    free(b->data);
    b->data = NULL;
    return rc;
}
