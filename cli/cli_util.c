/*
 * What several subcommands share: writing an output file whole or not at
 * all, and the default --jobs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int bc_cli_write_whole(const char *path, const char *text, size_t len, char *why, size_t cap)
{
    char tmp[4096];
    if (!path[0]) {
        snprintf(why, cap, "no path given");
        return -1;
    }
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        snprintf(why, cap, "'%.200s...': %s", path, strerror(ENAMETOOLONG));
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(why, cap, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    int ok = fwrite(text, 1, len, f) == len;
    int e = errno;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        e = ok ? errno : e;
        unlink(tmp);
        snprintf(why, cap, "cannot write '%s': %s", path, strerror(e));
        return -1;
    }
    return 0;
}

int bc_cli_default_jobs(void)
{
    /* The cores this process may run on (a container's or taskset's
     * limit), else the cores online. */
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                         : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > BC_MAX_JOBS ? BC_MAX_JOBS : (int)n;
}

void bc_cli_print_reports(FILE *out, const char *const *paths, int count)
{
    if (count == 0) {
        fputs("reports: none written (--json, --junit and --certificate write them)\n", out);
        return;
    }
    fputs("reports:", out);
    for (int i = 0; i < count; i++)
        fprintf(out, " %s", paths[i]);
    fputc('\n', out);
}
