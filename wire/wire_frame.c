/*
 * Frames of the wire protocol: the growing write buffer, little-endian
 * integers, and the 12-byte header (wire/PROTOCOL.md, "Frames").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

const char *bc_wire_type_name(unsigned type)
{
    switch (type) {
    case BC_WIRE_HELLO: return "HELLO";
    case BC_WIRE_FATAL: return "FATAL";
    case BC_WIRE_SHAPE: return "SHAPE";
    case BC_WIRE_EVAL: return "EVAL";
    case BC_WIRE_PSHAPE: return "PSHAPE";
    case BC_WIRE_EVAL_SHM: return "EVAL_SHM";
    case BC_WIRE_ANSWER: return "ANSWER";
    default: return "unknown";
    }
}

void bc_wbuf_free(bc_wbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Room for n more bytes; sets failed (and keeps failing) when there is none. */
static int reserve(bc_wbuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n > BC_WIRE_MAX_PAYLOAD + BC_WIRE_HEADER_SIZE - b->len) {
        b->failed = 1; /* larger than any frame may be */
        return -1;
    }
    if (b->len + n <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n)
        cap *= 2;
    unsigned char *grown = realloc(b->data, cap);
    if (!grown) {
        b->failed = 1;
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

void bc_wbuf_u32(bc_wbuf *b, uint32_t v)
{
    if (reserve(b, 4) == 0) {
        put_le(b->data + b->len, v, 4);
        b->len += 4;
    }
}

void bc_wbuf_i64(bc_wbuf *b, int64_t v)
{
    if (reserve(b, 8) == 0) {
        put_le(b->data + b->len, (uint64_t)v, 8);
        b->len += 8;
    }
}

void bc_wbuf_bytes(bc_wbuf *b, const void *p, size_t n)
{
    if (n && reserve(b, n) == 0) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

void bc_wbuf_str(bc_wbuf *b, const char *s, size_t max)
{
    size_t n = s ? strnlen(s, max) : 0;
    bc_wbuf_u32(b, (uint32_t)n);
    bc_wbuf_bytes(b, s, n);
}

void bc_wbuf_frame_begin(bc_wbuf *b, unsigned type, uint32_t seq)
{
    b->len = 0;
    b->failed = 0;
    if (reserve(b, BC_WIRE_HEADER_SIZE) != 0)
        return;
    unsigned char *h = b->data;
    h[0] = BC_WIRE_MAGIC0;
    h[1] = BC_WIRE_MAGIC1;
    put_le(h + 2, type, 2);
    put_le(h + 4, seq, 4);
    put_le(h + 8, 0, 4);
    b->len = BC_WIRE_HEADER_SIZE;
}

int bc_wbuf_frame_end(bc_wbuf *b)
{
    if (b->failed || b->len < BC_WIRE_HEADER_SIZE)
        return -1;
    put_le(b->data + 8, b->len - BC_WIRE_HEADER_SIZE, 4);
    return 0;
}

static uint32_t get_le(const unsigned char *p, int bytes)
{
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static int known_type(unsigned type)
{
    return type == BC_WIRE_HELLO || type == BC_WIRE_FATAL || type == BC_WIRE_SHAPE ||
           type == BC_WIRE_EVAL || type == BC_WIRE_PSHAPE || type == BC_WIRE_EVAL_SHM ||
           type == BC_WIRE_ANSWER;
}

/* The printable form of a few stray bytes, for "junk" diagnoses. */
static void quote_bytes(const unsigned char *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 5 < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, p[i] >= 32 && p[i] < 127 && p[i] != '\\' ? "%c"
                                                                                          : "\\x%02x",
                              p[i]);
    out[k < cap ? k : cap - 1] = '\0';
}

/* 1 if the n (>= 1) bytes at p cannot start a frame, with the diagnosis. */
static int junk(const unsigned char *p, size_t n, char *why, size_t cap)
{
    if (p[0] == BC_WIRE_MAGIC0 && (n < 2 || p[1] == BC_WIRE_MAGIC1))
        return 0;
    char shown[64];
    quote_bytes(p, n < BC_WIRE_HEADER_SIZE ? n : BC_WIRE_HEADER_SIZE, shown, sizeof shown);
    snprintf(why, cap, "junk on the stream: a frame starts with \"bc\", got \"%s\" (a worker "
                       "must write nothing but frames to its stdout)", shown);
    return 1;
}

int bc_wire_parse_header(const unsigned char *h, bc_wire_header *out, char *why, size_t cap)
{
    if (junk(h, BC_WIRE_HEADER_SIZE, why, cap))
        return -1;
    out->type = get_le(h + 2, 2);
    out->seq = get_le(h + 4, 4);
    out->length = get_le(h + 8, 4);
    if (!known_type(out->type)) {
        snprintf(why, cap, "unknown message type 0x%04x (frame %u)", out->type, out->seq);
        return -1;
    }
    if (out->length > BC_WIRE_MAX_PAYLOAD) {
        snprintf(why, cap, "%s frame of %u bytes, more than the limit of %u",
                 bc_wire_type_name(out->type), out->length, BC_WIRE_MAX_PAYLOAD);
        return -1;
    }
    return 0;
}

int bc_wire_split(const unsigned char *data, size_t len, bc_wire_header *h,
                  const unsigned char **payload, char *why, size_t cap)
{
    /* Junk is diagnosed from its first byte, not after 12 of them arrive. */
    if (len > 0 && junk(data, len, why, cap))
        return -1;
    if (len < BC_WIRE_HEADER_SIZE)
        return 0;
    if (bc_wire_parse_header(data, h, why, cap) != 0)
        return -1;
    if (len - BC_WIRE_HEADER_SIZE < h->length)
        return 0;
    *payload = data + BC_WIRE_HEADER_SIZE;
    return 1;
}
