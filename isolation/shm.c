/*
 * The shared file of an EVAL_SHM question (shm.h; wire/PROTOCOL.md,
 * "EVAL_SHM").  Why a memfd reached by /proc/<pid>/fd/<fd>, not a file in
 * /dev/shm: it has no name in any directory, so nothing can be left behind
 * whatever dies when.  Its memory goes when the last reference does: the
 * harness's descriptor (closed after the answer, or by the kernel if the
 * harness is killed) and the worker's mapping (unmapped after its answer,
 * or by the kernel when it dies; a worker outliving a killed harness gets
 * SIGKILL by its parent-death signal, proc.c).  A file in /dev/shm or
 * $TMPDIR would stay when the harness is killed between creating and
 * unlinking it.  The path is opened by a child of the harness, with the
 * same user: /proc lets it (ptrace read access, which Yama's ptrace_scope
 * does not restrict).
 */
#define _GNU_SOURCE /* memfd_create, fallocate */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../guard/guard.h"
#include "shm.h"

int bc_shm_wanted(const bc_eval_request *req, uint32_t protocol, int64_t threshold)
{
    int64_t answer_bytes = 0, frame = bc_wire_eval_bytes(req, protocol, &answer_bytes);
    if (threshold <= 0)
        threshold = BC_WIRE_MAX_PAYLOAD;
    /* an invalid view (frame < 0) goes in-frame, where its encoder says what is wrong */
    /* an answer carries its output after up to 64 KiB of fixed fields and message */
    return frame > threshold || (frame >= 0 && answer_bytes > threshold - (64 << 10));
}

int bc_shm_create(bc_shm_file *f, const bc_eval_request *req, char *why, size_t cap)
{
    f->fd = -1;
    f->map = NULL;
    if (bc_wire_plan_shm(req, &f->plan, why, cap) != 0)
        return -1;
    const bc_wire_shm_plan *plan = &f->plan;
    if ((uint64_t)plan->size > SIZE_MAX / 2) {
        snprintf(why, cap, "a shared file of %lld bytes is more than this machine maps",
                 (long long)plan->size);
        return -1;
    }
    f->fd = memfd_create("broadcheck-eval", MFD_CLOEXEC);
    if (f->fd < 0 || ftruncate(f->fd, (off_t)plan->size) != 0) {
        snprintf(why, cap, "cannot make a shared file of %lld bytes: %s", (long long)plan->size,
                 strerror(errno));
        bc_shm_close(f);
        return -1;
    }
    void *map = mmap(NULL, (size_t)plan->size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
    if (map == MAP_FAILED) {
        snprintf(why, cap, "cannot map a shared file of %lld bytes: %s", (long long)plan->size,
                 strerror(errno));
        bc_shm_close(f);
        return -1;
    }
    f->map = map;
    /* each input's elements, then poison up to the next region; the output's
     * room and its guard poison too, as guard.h fills an output buffer */
    int64_t at = 0;
    for (int i = 0; i < req->ninputs; i++) {
        const bc_wire_span *s = &plan->spans[i];
        size_t size = bc_dtype_size(req->inputs[i].dtype);
        size_t bytes = (size_t)(s->end - s->first) * size;
        memset(f->map + at, BC_GUARD_POISON, (size_t)(plan->input_offset[i] - at));
        if (bytes)
            memcpy(f->map + plan->input_offset[i],
                   (const unsigned char *)req->inputs[i].data + s->first * (int64_t)size, bytes);
        at = plan->input_offset[i] + (int64_t)bytes;
    }
    memset(f->map + at, BC_GUARD_POISON, (size_t)(plan->size - at));
    snprintf(f->path, sizeof f->path, "/proc/%ld/fd/%d", (long)getpid(), f->fd);
    return 0;
}

/* The first byte of map[from, to) that is not poison, or -1. */
static int64_t first_not_poison(const unsigned char *map, int64_t from, int64_t to)
{
    unsigned char poison[4096];
    memset(poison, BC_GUARD_POISON, sizeof poison);
    for (int64_t at = from; at < to; at += (int64_t)sizeof poison) {
        size_t n = to - at < (int64_t)sizeof poison ? (size_t)(to - at) : sizeof poison;
        if (memcmp(map + at, poison, n) != 0)
            for (size_t k = 0; k < n; k++)
                if (map[at + (int64_t)k] != BC_GUARD_POISON)
                    return at + (int64_t)k;
    }
    return -1;
}

int bc_shm_check(const bc_shm_file *f, const bc_eval_request *req, char *why, size_t cap)
{
    const bc_wire_shm_plan *plan = &f->plan;
    for (int i = 0; i < req->ninputs; i++) {
        const bc_wire_span *s = &plan->spans[i];
        size_t size = bc_dtype_size(req->inputs[i].dtype);
        size_t bytes = (size_t)(s->end - s->first) * size;
        int64_t data_end = plan->input_offset[i] + (int64_t)bytes;
        int64_t next = i + 1 < req->ninputs ? plan->input_offset[i + 1] : plan->out_offset;
        if (bytes && memcmp(f->map + plan->input_offset[i],
                            (const unsigned char *)req->inputs[i].data + s->first * (int64_t)size,
                            bytes) != 0) {
            snprintf(why, cap, "wild write: the worker changed the elements of input %d (%s) "
                     "in the shared file", i, bc_dtype_name(req->inputs[i].dtype));
            return -1;
        }
        int64_t bad = first_not_poison(f->map, data_end, next);
        if (bad >= 0) {
            snprintf(why, cap, "wild write: the worker wrote %lld bytes past the end of input %d "
                     "(%s) in the shared file", (long long)(bad - data_end), i,
                     bc_dtype_name(req->inputs[i].dtype));
            return -1;
        }
    }
    int64_t out_end = plan->out_offset + plan->out_bytes;
    int64_t bad = first_not_poison(f->map, out_end, plan->size);
    if (bad >= 0) {
        snprintf(why, cap, "wild write: the worker wrote %lld bytes past the end of its output "
                 "(%lld %s elements) in the shared file", (long long)(bad - out_end),
                 (long long)req->out_capacity, bc_dtype_name(req->out_dtype));
        return -1;
    }
    return 0;
}

void bc_shm_copy_out(bc_shm_file *f, void *dst, size_t bytes)
{
    const size_t chunk = (size_t)64 << 20; /* a multiple of the region alignment */
    for (size_t done = 0; done < bytes; done += chunk) {
        size_t n = bytes - done < chunk ? bytes - done : chunk;
        memcpy((unsigned char *)dst + done, f->map + f->plan.out_offset + (int64_t)done, n);
        /* whole pages only; a failure just keeps the memory until the close */
        size_t whole = n / BC_WIRE_SHM_ALIGN * BC_WIRE_SHM_ALIGN;
        if (whole)
            (void)fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                            (off_t)(f->plan.out_offset + (int64_t)done), (off_t)whole);
    }
}

void bc_shm_close(bc_shm_file *f)
{
    if (f->map)
        munmap(f->map, (size_t)f->plan.size);
    if (f->fd >= 0)
        close(f->fd);
    f->map = NULL;
    f->fd = -1;
}
