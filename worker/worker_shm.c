/*
 * EVAL_SHM questions in broadcheck-worker (wire/PROTOCOL.md, "EVAL_SHM"):
 * the harness's shared file, mapped for one question.  The adapter reads its
 * inputs and writes its output in place: a huge question is neither copied
 * into the frame nor into guarded memory.  What the in-frame path's guard
 * pages catch at once shows here as poison: a read past an input reads its
 * margin, a write past the output lands in its guard (checked after the
 * call, as bc_guard_intact does) and the harness checks every other byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker.h"

/* Inaccessible bytes after the shared file's last page: a write this far
 * past it faults (an output's guard catches writes nearer than that). */
#define TRAILING_GUARD_BYTES ((size_t)64 << 10)

/* The file's pages and the trailing guard. */
static size_t reserved_bytes(const bc_wire_question *q)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return ((size_t)q->shm_size + page - 1) / page * page + TRAILING_GUARD_BYTES;
}

int bc_worker_shm_map(bc_wire_question *q, char *why, size_t cap)
{
    q->shm_map = NULL;
    int fd = open(q->shm_path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, cap, "cannot open the shared file %s: %s", q->shm_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (st.st_size < q->shm_size || (uint64_t)q->shm_size > SIZE_MAX / 2) {
        snprintf(why, cap, "the shared file %s has %lld bytes, the question says %lld",
                 q->shm_path, (long long)st.st_size, (long long)q->shm_size);
        close(fd);
        return -1;
    }
    /* The file goes at the start of an inaccessible reservation, so that a
     * wild write past its end faults: mapped alone, the page after it may be
     * another writable mapping of the worker, and such a write went unseen
     * (test_shm's test_adapter_wild_write, once under load). */
    void *map = mmap(NULL, reserved_bytes(q), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (map != MAP_FAILED &&
        mmap(map, (size_t)q->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
            MAP_FAILED) {
        const int err = errno;
        munmap(map, reserved_bytes(q));
        map = MAP_FAILED;
        errno = err;
    }
    int err = errno;
    close(fd); /* the mapping keeps the file */
    if (map == MAP_FAILED) {
        snprintf(why, cap, "cannot map the shared file of %lld bytes: %s (--memory-mb must "
                 "cover it: the worker maps all of it)", (long long)q->shm_size, strerror(err));
        return -1;
    }
    q->shm_map = map;
    for (int i = 0; i < q->ninputs; i++)
        q->inputs[i].bytes = q->shm_map + q->inputs[i].file_offset;
    return 0;
}

void bc_worker_shm_unmap(bc_wire_question *q)
{
    if (q->shm && q->shm_map)
        munmap(q->shm_map, reserved_bytes(q));
    q->shm_map = NULL;
}

int bc_worker_shm_guard_intact(const bc_wire_question *q)
{
    const unsigned char *guard = q->shm_map + q->shm_out_offset +
                                 q->out_capacity * (int64_t)bc_dtype_size(q->out_dtype);
    for (int64_t i = 0; i < q->shm_out_guard; i++)
        if (guard[i] != BC_GUARD_POISON)
            return 0;
    return 1;
}
