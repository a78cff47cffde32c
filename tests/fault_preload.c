/*
 * An LD_PRELOAD shim for tests/test_faults.c: with BC_FAULT_KILL_AT_FSYNC
 * set, the process SIGKILLs itself at its first fsync(), the moment a
 * report (or the corpus) has been written but not yet put in place, to
 * prove that such a death leaves neither a partial file nor a temporary
 * one behind.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int fsync(int fd);

int fsync(int fd)
{
    if (getenv("BC_FAULT_KILL_AT_FSYNC"))
        kill(getpid(), SIGKILL);
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real ? real(fd) : 0;
}
