/*
 * A run's progress line (broadcheck/progress.h): the runner's reports are
 * kept as the latest snapshot, and a thread prints it every interval, on a
 * terminal redrawn in place, elsewhere as plain lines.  Printing from a
 * thread of its own keeps the line moving while a slow SUT holds up a chunk
 * or a shrink, and keeps the runner's workers from waiting on the terminal.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "broadcheck/progress.h"

#define RED "\033[31m"
#define RESET "\033[0m"

struct bc_progress {
    bc_progress_options o;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int threaded, stopping;
    int have;             /* a report has come */
    bc_run_progress last; /* the latest report */
    double start;
    size_t drawn; /* live: the visible width of the line on screen */
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bc_progress_options bc_progress_options_for(FILE *out, double interval, const char *label)
{
    bc_progress_options o = {out, 0, 0, 0, interval, label};
    int fd = fileno(out);
    o.live = fd >= 0 && isatty(fd);
    if (o.live) {
        const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
        o.color = !(no_color && no_color[0]) && !(term && strcmp(term, "dumb") == 0);
        struct winsize ws;
        if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
            o.columns = ws.ws_col;
    }
    if (interval < 0)
        o.interval = o.live ? BC_PROGRESS_LIVE_INTERVAL : BC_PROGRESS_PLAIN_INTERVAL;
    return o;
}

/* "1.5 s", "2 min 05 s", "1 h 02 min" */
static void duration(double s, char *buf, size_t cap)
{
    if (!(s >= 0) || s > 1e9) {
        snprintf(buf, cap, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (s < 10)
        snprintf(buf, cap, "%.1f s", s);
    else if (t < 60)
        snprintf(buf, cap, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, cap, "%ld min %02ld s", t / 60, t % 60);
    else
        snprintf(buf, cap, "%ld h %02ld min", t / 3600, t / 60 % 60);
}

int bc_progress_format(const bc_run_progress *p, double elapsed, int color, char *buf, size_t cap)
{
    char took[32], left[48], rate[48], failures[64];
    double per_second = elapsed > 0 ? (double)p->cases / elapsed : 0;
    duration(elapsed, took, sizeof took);
    if (p->shrinking > 0) {
        snprintf(left, sizeof left, "shrinking failing cell %d of %d", p->shrinking,
                 p->to_shrink > 0 ? p->to_shrink : p->shrinking);
    } else {
        double eta = -1;
        if (p->seconds > 0)
            eta = p->seconds > elapsed ? p->seconds - elapsed : 0;
        else if (p->planned > 0 && per_second > 0)
            eta = (double)(p->planned > p->cases ? p->planned - p->cases : 0) / per_second;
        char d[32];
        duration(eta, d, sizeof d);
        snprintf(left, sizeof left, "ETA %s", d);
    }
    snprintf(rate, sizeof rate, per_second > 0 ? "%.0f cases/s" : "- cases/s", per_second);
    snprintf(failures, sizeof failures, "%s%lld failing%s", color && p->failures ? RED : "",
             (long long)p->failures, color && p->failures ? RESET : "");
    if (p->planned > 0)
        return snprintf(buf, cap, "%d/%d cells, %lld/%lld cases, %s, %s, %s elapsed, %s",
                        p->cells_done, p->cells, (long long)p->cases, (long long)p->planned,
                        failures, rate, took, left);
    return snprintf(buf, cap, "%d/%d cells, %lld cases, %s, %s, %s elapsed, %s", p->cells_done,
                    p->cells, (long long)p->cases, failures, rate, took, left);
}

/* Prints the latest report; with p->lock held. */
static void draw(bc_progress *p)
{
    if (!p->have)
        return;
    const bc_progress_options *o = &p->o;
    char line[512];
    int n = snprintf(line, sizeof line, "%s: ", o->label ? o->label : "broadcheck");
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    bc_progress_format(&p->last, now_seconds() - p->start, o->color, line + n,
                       sizeof line - (size_t)n);
    if (!o->live) {
        fprintf(o->out, "%s\n", line);
        fflush(o->out);
        return;
    }
    /* The visible width: escape sequences take no column.  A line cut to
     * the terminal's width never wraps, so '\r' goes back to its start. */
    size_t visible = 0, cut = strlen(line);
    for (size_t i = 0; line[i]; i++) {
        if (line[i] == '\033') {
            while (line[i] && line[i] != 'm')
                i++;
            if (!line[i])
                break;
            continue;
        }
        if (o->columns > 1 && visible == (size_t)o->columns - 1) {
            cut = i;
            break;
        }
        visible++;
    }
    /* spaces over what is left of a longer line drawn before */
    int pad = visible < p->drawn ? (int)(p->drawn - visible) : 0;
    fprintf(o->out, "\r%.*s%s%*s", (int)cut, line, o->color ? RESET : "", pad, "");
    p->drawn = visible;
    fflush(o->out);
}

static void *ticker(void *arg)
{
    bc_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double next = (double)until.tv_nsec * 1e-9 + p->o.interval;
        until.tv_sec += (time_t)next;
        until.tv_nsec = (long)((next - (double)(time_t)next) * 1e9);
        /* a spurious or early wake-up just draws once more */
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        if (!p->stopping)
            draw(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

bc_progress *bc_progress_start(const bc_progress_options *options)
{
    bc_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->o = *options;
    if (!(p->o.interval >= 0) || p->o.interval > 1e6)
        p->o.interval = p->o.live ? BC_PROGRESS_LIVE_INTERVAL : BC_PROGRESS_PLAIN_INTERVAL;
    p->start = now_seconds();
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    if (p->o.interval > 0)
        p->threaded = pthread_create(&p->thread, NULL, ticker, p) == 0;
    /* without its thread (none could start) it prints on every report */
    if (!p->threaded)
        p->o.interval = 0;
    return p;
}

void bc_progress_report(void *ctx, const bc_run_progress *progress)
{
    bc_progress *p = ctx;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->last = *progress;
    p->have = 1;
    if (p->o.interval == 0)
        draw(p);
    pthread_mutex_unlock(&p->lock);
}

void bc_progress_stop(bc_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    if (p->threaded)
        pthread_join(p->thread, NULL);
    if (p->o.live && p->drawn > 0) {
        fprintf(p->o.out, "\r%*s\r", (int)p->drawn, "");
        fflush(p->o.out);
    }
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
