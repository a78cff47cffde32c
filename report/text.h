/*
 * report/text.h: text helpers of the report writers (text.c), private to
 * report/.
 */
#ifndef BC_REPORT_TEXT_H
#define BC_REPORT_TEXT_H

#include <stddef.h>

/* A growing text buffer; `oom` sticks once an allocation failed. */
typedef struct sbuf {
    char *data;
    size_t len, cap;
    int oom;
} sbuf;

void sb_reserve(sbuf *b, size_t more);
void sb_putn(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void sb_printf(sbuf *b, const char *fmt, ...);

/* why[cap] = the formatted text (nothing if why is NULL). */
void set_why(char *why, size_t cap, const char *fmt, ...);

enum { CLEAN_JSON, CLEAN_XML, CLEAN_LINE };

/* A copy of s (NULL: "") that is valid UTF-8, each bad byte replaced by
 * '?'.  CLEAN_XML also replaces the characters XML 1.0 cannot hold;
 * CLEAN_LINE every control character (newlines too), for one-line text. */
char *clean_text(const char *s, int mode);

/* Writes b whole or not at all to path (bc_write_whole), naming it
 * "<what> report" in errors, and frees b's data.  0, or -1 with why. */
int write_sbuf(sbuf *b, const char *path, const char *what, char *why, size_t cap);

#endif
