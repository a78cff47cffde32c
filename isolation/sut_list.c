/*
 * broadcheck list suts: the built-in SUTs, a --sut given, and the adapter
 * libraries of $BROADCHECK_ADAPTER_PATH, each opened to see whether it is
 * available and what it declares.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolated.h"

static void list_external(FILE *out, const char *spec, const bc_sut_options *opts)
{
    char why[1024], caps[1024];
    const bc_sut *sut = bc_sut_open(spec, opts, why, sizeof why);
    if (!sut) {
        fprintf(out, "%-36s not available  %s\n", spec, why);
        return;
    }
    bc_sut_describe_caps(sut, caps, sizeof caps);
    fprintf(out, "%-36s available  %s, version %s\n%-36s declares: %s\n", spec, sut->description,
            sut->version[0] ? sut->version : "(none given)", "", caps);
    bc_sut_close(sut);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.so of one directory, in name order. */
static void list_directory(FILE *out, const char *dir, size_t len, const bc_sut_options *opts)
{
    char path[4096];
    snprintf(path, sizeof path, "%.*s", (int)len, dir);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(out, "%-36s not available  BROADCHECK_ADAPTER_PATH names a directory that cannot "
                     "be read\n", path);
        return;
    }
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".so") != 0)
            continue;
        char **grown = realloc(names, (count + 1) * sizeof *names);
        if (!grown)
            break;
        names = grown;
        size_t need = strlen(path) + n + 2;
        if ((names[count] = malloc(need)) == NULL)
            break;
        snprintf(names[count++], need, "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        list_external(out, names[i], opts);
        free(names[i]);
    }
    free(names);
}

void bc_sut_list(FILE *out, const char *extra, const char *adapter_path,
                 const bc_sut_options *opts)
{
    int count;
    const bc_sut *const *all = bc_builtin_suts(&count);
    for (int i = 0; i < count; i++)
        fprintf(out, "%-36s available  %s%s%s%s\n", all[i]->name, all[i]->description,
                all[i]->citation ? " [" : "", all[i]->citation ? all[i]->citation : "",
                all[i]->citation ? "]" : "");
    /* the shipped library adapters: each opened, to say whether its library is here */
    for (int i = 0; i < bc_named_sut_count(); i++)
        list_external(out, bc_named_sut_name(i), opts);
    if (extra && bc_sut_spec_is_external(extra))
        list_external(out, extra, opts);
    for (const char *p = adapter_path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len)
            list_directory(out, p, len, opts);
        p += len + (colon ? 1 : 0);
    }
}
