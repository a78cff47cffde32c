/*
 * A SUT's manifest (docs/MANIFEST.md), read with jansson.  Every field is
 * checked here, once, so that a run never starts on a manifest it would
 * misread: an unknown field is refused (a typo must not turn a claim into
 * silence), and each known divergence's case must parse and belong to its
 * property, as 'broadcheck replay' would take it.
 */
#include <jansson.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcheck/manifest.h"
#include "broadcheck/vector.h"

struct bc_manifest {
    json_t *root; /* owns every string below */
    const char *name, *version;
    int nknown;
    bc_known_divergence *known;
    char *reach_text; /* the reach lists, "a,b" strings, back to back */
    char **cases;     /* each known case as a run prints it (malloc'd) */
    size_t ncases;
    /* the declared scope; -1 / 0 where the manifest does not state it */
    int has_ops, has_dtypes;
    unsigned ops, dtypes;
    int max_rank, max_operands;
    bc_semantics semantics; /* the reference's own where not stated */
};

static int fail(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* Refuses members of obj not in allowed (NULL-terminated). */
static int only_known_fields(json_t *obj, const char *const *allowed, const char *path,
                             const char *where, char *why, size_t cap)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value) {
        int ok = 0;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, key) == 0;
        if (!ok) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         a == allowed ? "" : ", ", *a);
            return fail(why, cap, "manifest '%s': %s: unknown field '%s' (expected %s)", path,
                        where, key, list);
        }
    }
    return 0;
}

/* obj[key] as a string: required or optional (NULL when absent). */
static int get_string(json_t *obj, const char *key, int required, const char **out,
                      const char *path, const char *where, char *why, size_t cap)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v)
        return required ? fail(why, cap, "manifest '%s': %s: missing field '%s'", path, where,
                               key)
                        : 0;
    if (!json_is_string(v))
        return fail(why, cap, "manifest '%s': %s: '%s' must be a string", path, where, key);
    *out = json_string_value(v);
    if (required && !(*out)[0])
        return fail(why, cap, "manifest '%s': %s: '%s' is empty", path, where, key);
    return 0;
}

/* A list of names ["add", "div"]: the bit of each (index_of: -1 unknown), and
 * the names joined by commas into text (NULL: not wanted). */
static int get_names(json_t *arr, int (*index_of)(const char *), const char *what,
                     const char *path, const char *where, unsigned *mask, char *text,
                     size_t text_cap, char *why, size_t cap)
{
    if (!json_is_array(arr))
        return fail(why, cap, "manifest '%s': %s: must be a list of %s names", path, where, what);
    *mask = 0;
    if (text)
        text[0] = '\0';
    size_t i;
    json_t *item;
    json_array_foreach(arr, i, item) {
        const char *name = json_string_value(item);
        int index = name ? index_of(name) : -1;
        if (index < 0 || index >= 32)
            return fail(why, cap, "manifest '%s': %s[%zu]: %s is not a %s name", path, where, i,
                        name ? name : "a non-string", what);
        *mask |= 1u << index;
        if (text) {
            size_t len = strlen(text);
            if (len + strlen(name) + 2 > text_cap)
                return fail(why, cap, "manifest '%s': %s: too many names", path, where);
            snprintf(text + len, text_cap - len, "%s%s", len ? "," : "", name);
        }
    }
    return 0;
}

static int op_index(const char *name)
{
    bc_op op;
    if (bc_op_from_name(name, &op) == 0)
        return (int)op;
    /* the value kinds a case's op= also names */
    static const char *const kinds[] = {"where", "broadcast", "sum-to-shape", "matmul"};
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
        if (strcmp(name, kinds[k]) == 0)
            return BC_OP_COUNT + k;
    return -1;
}

static int elementwise_op_index(const char *name)
{
    bc_op op;
    return bc_op_from_name(name, &op) == 0 ? (int)op : -1;
}

static int dtype_index(const char *name)
{
    bc_dtype t;
    return bc_dtype_from_name(name, &t) == 0 ? (int)t : -1;
}

static int rule_index(const char *name)
{
    bc_rule r;
    return bc_rule_from_name(name, &r) == 0 ? (int)r : -1;
}

static int get_int(json_t *obj, const char *key, int lo, int hi, int *out, const char *path,
                   const char *where, char *why, size_t cap)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return fail(why, cap, "manifest '%s': %s: '%s' must be an integer from %d to %d", path,
                    where, key, lo, hi);
    *out = (int)json_integer_value(v);
    return 0;
}

static int read_scope(bc_manifest *m, json_t *scope, const char *path, char *why, size_t cap)
{
    static const char *const fields[] = {"ops", "dtypes", "max_rank", "max_operands", NULL};
    if (!json_is_object(scope))
        return fail(why, cap, "manifest '%s': scope: must be an object", path);
    if (only_known_fields(scope, fields, path, "scope", why, cap) != 0)
        return -1;
    json_t *v;
    if ((v = json_object_get(scope, "ops"))) {
        m->has_ops = 1;
        if (get_names(v, elementwise_op_index, "elementwise op", path, "scope.ops", &m->ops,
                      NULL, 0, why, cap) != 0)
            return -1;
    }
    if ((v = json_object_get(scope, "dtypes"))) {
        m->has_dtypes = 1;
        if (get_names(v, dtype_index, "dtype", path, "scope.dtypes", &m->dtypes, NULL, 0, why,
                      cap) != 0)
            return -1;
    }
    return get_int(scope, "max_rank", 0, BC_MAX_RANK, &m->max_rank, path, "scope", why, cap) ||
                   get_int(scope, "max_operands", 1, BC_MAX_OPERANDS, &m->max_operands, path,
                           "scope", why, cap)
               ? -1
               : 0;
}

/* The case of a known divergence, checked as 'broadcheck replay' takes it
 * (the expectation may be left out), into *canonical: the line as a run
 * prints it, with the reference's expectation (malloc'd). */
static int check_case(const char *text, int property, const char *path, const char *where,
                      char **canonical, char *why, size_t cap)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    char syntax[256];
    bc_rule rule;
    int value_line = 0, parsed, len = 0;
    size_t n = strlen(text);
    char *line = malloc(n + 16);
    if (!line)
        return fail(why, cap, "out of memory");
    snprintf(line, n + 16, "%s%s", text, strstr(text, "->") ? "" : " -> error");
    *canonical = NULL;
    if (props[property].partial) {
        bc_pvector *v = malloc(sizeof *v);
        if (!v) {
            free(line);
            return fail(why, cap, "out of memory");
        }
        parsed = bc_pvector_parse(line, v, syntax, sizeof syntax);
        rule = v->params.rule;
        if (parsed == 1) {
            bc_error_kind kind = bc_pinfer(&v->params, v->nshapes, v->shapes, &v->syms,
                                           &v->expect_shape, NULL);
            v->expect = kind == BC_OK ? BC_EXPECT_SHAPE : BC_EXPECT_ERROR;
            v->expect_kind = kind;
            len = bc_pvector_format(v, NULL, 0);
            if ((*canonical = malloc((size_t)len + 1)) != NULL)
                bc_pvector_format(v, *canonical, (size_t)len + 1);
        }
        free(v);
    } else {
        bc_vector *v = malloc(sizeof *v);
        if (!v) {
            free(line);
            return fail(why, cap, "out of memory");
        }
        parsed = bc_vector_parse(line, v, syntax, sizeof syntax);
        rule = v->params.rule;
        value_line = parsed == 1 && v->value.present;
        if (value_line && bc_value_case_check(v, syntax, sizeof syntax) != 0)
            parsed = -1;
        if (parsed == 1) {
            bc_error_kind kind =
                bc_infer(&v->params, v->nshapes, v->shapes, &v->expect_shape, NULL);
            v->expect = kind == BC_OK ? BC_EXPECT_SHAPE : BC_EXPECT_ERROR;
            v->expect_kind = kind;
            len = bc_vector_format(v, NULL, 0);
            if ((*canonical = malloc((size_t)len + 1)) != NULL)
                bc_vector_format(v, *canonical, (size_t)len + 1);
        }
        free(v);
    }
    free(line);
    if (parsed == 1 && !*canonical)
        return fail(why, cap, "out of memory");
    if (parsed != 1)
        return fail(why, cap, "manifest '%s': %s.case: %s", path, where,
                    parsed == 0 ? "a comment or blank line, not a case" : syntax);
    if (!((props[property].rules >> rule) & 1u))
        return fail(why, cap, "manifest '%s': %s: property %s does not apply to rule %s", path,
                    where, props[property].name, bc_rule_name(rule));
    if (!props[property].partial && props[property].values != value_line)
        return fail(why, cap, "manifest '%s': %s: property %s checks %s, but the case is a %s "
                    "line", path, where, props[property].name,
                    props[property].values ? "values" : "shapes", value_line ? "value" : "shape");
    return 0;
}

static int read_known(bc_manifest *m, json_t *list, const char *path, char *why, size_t cap)
{
    static const char *const fields[] = {"id", "class", "property", "case", "link", "note",
                                         "reach", NULL};
    static const char *const reach_fields[] = {"rules", "ops",        "dtypes", "detail",
                                               "properties", "strided", "min_shapes",
                                               "case_line",  NULL};
    if (!json_is_array(list))
        return fail(why, cap, "manifest '%s': known_divergences: must be a list", path);
    size_t n = json_array_size(list);
    m->known = calloc(n ? n : 1, sizeof *m->known);
    m->reach_text = calloc(n ? n : 1, 4 * 512);
    m->cases = calloc(n ? n : 1, sizeof *m->cases);
    m->ncases = n;
    if (!m->known || !m->reach_text || !m->cases)
        return fail(why, cap, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(list, i);
        char where[96];
        snprintf(where, sizeof where, "known_divergences[%zu]", i);
        if (!json_is_object(e))
            return fail(why, cap, "manifest '%s': %s: must be an object", path, where);
        if (only_known_fields(e, fields, path, where, why, cap) != 0)
            return -1;
        bc_known_divergence *k = &m->known[i];
        const char *klass, *property;
        if (get_string(e, "id", 1, &k->id, path, where, why, cap) ||
            get_string(e, "class", 1, &klass, path, where, why, cap) ||
            get_string(e, "property", 1, &property, path, where, why, cap) ||
            get_string(e, "case", 1, &k->vector, path, where, why, cap) ||
            get_string(e, "link", 0, &k->link, path, where, why, cap) ||
            get_string(e, "note", 1, &k->note, path, where, why, cap))
            return -1;
        snprintf(where, sizeof where, "known_divergences[%zu] ('%s')", i, k->id);
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->known[j].id, k->id) == 0)
                return fail(why, cap, "manifest '%s': %s: the id is also known_divergences[%zu]'s",
                            path, where, j);
        if (strlen(klass) != 1 || !strchr("abc", klass[0]))
            return fail(why, cap, "manifest '%s': %s: class must be \"a\" (a bug), \"b\" (a "
                        "declared limit) or \"c\" (a legitimate variant), not \"%s\"", path,
                        where, klass);
        k->klass = klass[0];
        int p = bc_property_from_name(property);
        if (p < 0)
            return fail(why, cap, "manifest '%s': %s: no property '%s' (see 'broadcheck list "
                        "properties')", path, where, property);
        k->property = property;
        if (!k->link)
            k->link = "";
        if (check_case(k->vector, p, path, where, &m->cases[i], why, cap) != 0)
            return -1;
        k->vector = m->cases[i];
        char *text = m->reach_text + i * 4 * 512;
        k->reach_rules = text;
        k->reach_ops = text + 512;
        k->reach_dtypes = text + 1024;
        k->reach_properties = text + 1536;
        json_t *reach = json_object_get(e, "reach");
        if (!reach)
            continue;
        char rwhere[128];
        snprintf(rwhere, sizeof rwhere, "%s.reach", where);
        if (!json_is_object(reach) || json_object_size(reach) == 0)
            return fail(why, cap, "manifest '%s': %s: must be an object naming rules, ops or "
                        "dtypes", path, rwhere);
        if (only_known_fields(reach, reach_fields, path, rwhere, why, cap) != 0)
            return -1;
        k->reach = 1;
        unsigned mask;
        json_t *v;
        if ((v = json_object_get(reach, "rules")) &&
            get_names(v, rule_index, "rule", path, rwhere, &mask, text, 512, why, cap))
            return -1;
        if ((v = json_object_get(reach, "ops")) &&
            get_names(v, op_index, "op", path, rwhere, &mask, text + 512, 512, why, cap))
            return -1;
        if ((v = json_object_get(reach, "dtypes")) &&
            get_names(v, dtype_index, "dtype", path, rwhere, &mask, text + 1024, 512, why, cap))
            return -1;
        if ((v = json_object_get(reach, "properties")) &&
            get_names(v, bc_property_from_name, "property", path, rwhere, &mask, text + 1536, 512,
                      why, cap))
            return -1;
        if (get_string(reach, "detail", 0, &k->reach_detail, path, rwhere, why, cap) != 0)
            return -1;
        if ((v = json_object_get(reach, "strided"))) {
            if (!json_is_boolean(v))
                return fail(why, cap, "manifest '%s': %s: 'strided' must be true or false", path,
                            rwhere);
            k->reach_strided = json_is_true(v);
        }
        if ((v = json_object_get(reach, "min_shapes"))) {
            if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                json_integer_value(v) > BC_VECTOR_MAX_SHAPES)
                return fail(why, cap, "manifest '%s': %s: 'min_shapes' must be a number of "
                            "shapes, 1 to %d", path, rwhere, BC_VECTOR_MAX_SHAPES);
            k->reach_min_shapes = (int)json_integer_value(v);
        }
        if (get_string(reach, "case_line", 0, &k->reach_case, path, rwhere, why, cap) != 0)
            return -1;
        const char *const patterns[][2] = {{"detail", k->reach_detail},
                                           {"case_line", k->reach_case}};
        for (int r = 0; r < 2; r++) {
            if (!patterns[r][1])
                continue;
            regex_t re;
            int err = regcomp(&re, patterns[r][1], REG_EXTENDED | REG_NOSUB);
            if (err != 0) {
                char msg[128];
                regerror(err, &re, msg, sizeof msg);
                return fail(why, cap, "manifest '%s': %s.%s: not a POSIX extended regular "
                            "expression: %s", path, rwhere, patterns[r][0], msg);
            }
            regfree(&re);
        }
    }
    m->nknown = (int)n;
    return 0;
}

/* "semantics": {"int_div": "floor", ...}: each key once, each a choice
 * bc_semantics_set knows (docs/ENGINE.md "Value semantics"). */
static int read_semantics(bc_manifest *m, json_t *sem, const char *path, char *why, size_t cap)
{
    if (!json_is_object(sem))
        return fail(why, cap, "manifest '%s': semantics: must be an object, e.g. "
                    "{\"int_div\": \"floor\"}", path);
    const char *key;
    json_t *v;
    json_object_foreach(sem, key, v) {
        if (strcmp(key, "max_elements") == 0 && json_is_object(v)) {
            /* {"limit": "int64", "rules": [...]}: the limit on those rules only */
            static const char *const fields[] = {"limit", "rules", NULL};
            const char *limit = NULL;
            json_t *rules = json_object_get(v, "rules");
            if (only_known_fields(v, fields, path, "semantics.max_elements", why, cap) != 0 ||
                get_string(v, "limit", 1, &limit, path, "semantics.max_elements", why, cap) != 0)
                return -1;
            if (!rules)
                return fail(why, cap, "manifest '%s': semantics.max_elements: 'rules' is "
                            "required in this form (the rules the limit holds on)", path);
            if (get_names(rules, rule_index, "rule", path, "semantics.max_elements.rules",
                          &m->semantics.max_elements_rules, NULL, 0, why, cap) != 0)
                return -1;
            if (m->semantics.max_elements_rules == 0)
                return fail(why, cap, "manifest '%s': semantics.max_elements.rules: name at "
                            "least one rule", path);
            v = json_object_get(v, "limit");
        }
        const char *value = json_string_value(v);
        int r = value ? bc_semantics_set(&m->semantics, key, value) : -2;
        if (r == -1)
            return fail(why, cap, "manifest '%s': semantics: unknown choice '%s' (expected "
                        "int_div, int_overflow, float16_sum, max_elements or bool_sub)", path,
                        key);
        static const char int_div[] = "\"truncate\", \"floor\", \"nearest-f32\" or \"nearest\"";
        if (r == -2)
            return fail(why, cap, "manifest '%s': semantics.%s: expected %s", path, key,
                        strcmp(key, "int_div") == 0        ? int_div
                        : strcmp(key, "int_overflow") == 0 ? "\"wrap\" or \"saturate\""
                        : strcmp(key, "bool_sub") == 0     ? "\"none\" or \"xor\""
                        : strcmp(key, "max_elements") == 0
                            ? "\"none\" or \"int64\" (or {\"limit\": ..., \"rules\": [...]})"
                                                           : "\"each\" or \"wide\"");
    }
    return 0;
}

bc_manifest *bc_manifest_load(const char *path, char *why, size_t cap)
{
    static const char *const fields[] = {"broadcheck_manifest", "name", "version", "description",
                                         "scope", "semantics", "known_divergences", NULL};
    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        if (err.line > 0)
            fail(why, cap, "manifest '%s': line %d, column %d: %s", path, err.line, err.column,
                 err.text);
        else
            fail(why, cap, "manifest '%s': %s", path, err.text);
        return NULL;
    }
    bc_manifest *m = calloc(1, sizeof *m);
    if (!m) {
        json_decref(root);
        fail(why, cap, "out of memory");
        return NULL;
    }
    m->root = root;
    m->max_rank = m->max_operands = -1; /* not stated */
    json_t *format = json_object_get(root, "broadcheck_manifest");
    int bad = !json_is_object(root);
    if (bad)
        fail(why, cap, "manifest '%s': must be a JSON object", path);
    else if (!json_is_integer(format) || json_integer_value(format) != BC_MANIFEST_FORMAT_VERSION)
        bad = fail(why, cap, "manifest '%s': \"broadcheck_manifest\": %d (the format version) "
                   "is required first", path, BC_MANIFEST_FORMAT_VERSION);
    else
        bad = only_known_fields(root, fields, path, "the top level", why, cap) ||
              get_string(root, "name", 1, &m->name, path, "the top level", why, cap) ||
              get_string(root, "version", 1, &m->version, path, "the top level", why, cap);
    const char *description;
    if (!bad)
        bad = get_string(root, "description", 0, &description, path, "the top level", why, cap);
    json_t *scope = json_object_get(root, "scope");
    if (!bad && scope)
        bad = read_scope(m, scope, path, why, cap);
    json_t *sem = json_object_get(root, "semantics");
    if (!bad && sem)
        bad = read_semantics(m, sem, path, why, cap);
    json_t *known = json_object_get(root, "known_divergences");
    if (!bad && known)
        bad = read_known(m, known, path, why, cap);
    if (bad) {
        bc_manifest_free(m);
        return NULL;
    }
    return m;
}

void bc_manifest_free(bc_manifest *m)
{
    if (!m)
        return;
    json_decref(m->root);
    for (size_t i = 0; m->cases && i < m->ncases; i++)
        free(m->cases[i]);
    free(m->cases);
    free(m->known);
    free(m->reach_text);
    free(m);
}

const bc_semantics *bc_manifest_semantics(const bc_manifest *m)
{
    return &m->semantics;
}

const char *bc_manifest_name(const bc_manifest *m)
{
    return m->name;
}

const char *bc_manifest_version(const bc_manifest *m)
{
    return m->version;
}

const bc_known_divergence *bc_manifest_known(const bc_manifest *m, int *count)
{
    *count = m->nknown;
    return m->known;
}

/* Appends the names of the bits in `extra` ("a, b") to buf. */
static void names_of(unsigned extra, const char *(*name_of)(int), char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int i = 0; i < 32; i++)
        if ((extra >> i) & 1u)
            snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     name_of(i));
}

static const char *op_name_of(int i)
{
    return bc_op_name((bc_op)i);
}

static const char *dtype_name_of(int i)
{
    return bc_dtype_name((bc_dtype)i);
}

/* Appends to diff[cap] what differs between a claimed and a declared mask. */
static void diff_masks(unsigned claimed, unsigned declared, const char *what,
                       const char *(*name_of)(int), char *diff, size_t cap)
{
    char list[512];
    if (claimed & ~declared) {
        names_of(claimed & ~declared, name_of, list, sizeof list);
        snprintf(diff + strlen(diff), cap - strlen(diff),
                 "; the manifest claims %s %s, the SUT does not declare it", what, list);
    }
    if (declared & ~claimed) {
        names_of(declared & ~claimed, name_of, list, sizeof list);
        snprintf(diff + strlen(diff), cap - strlen(diff),
                 "; the SUT declares %s %s, the manifest does not claim it", what, list);
    }
}

int bc_manifest_check_sut(const bc_manifest *m, const bc_sut *sut, char *why, size_t cap)
{
    bc_sut_value_caps caps = bc_sut_value_caps_of(sut);
    char diff[1536] = "";
    if (m->has_ops)
        diff_masks(m->ops, caps.ops, "op", op_name_of, diff, sizeof diff);
    if (m->has_dtypes)
        diff_masks(m->dtypes, caps.dtypes, "dtype", dtype_name_of, diff, sizeof diff);
    if (m->max_rank >= 0 && m->max_rank != caps.max_rank)
        snprintf(diff + strlen(diff), sizeof diff - strlen(diff),
                 "; the manifest claims max_rank %d, the SUT declares %d", m->max_rank,
                 caps.max_rank);
    if (m->max_operands >= 0 && m->max_operands != caps.max_operands)
        snprintf(diff + strlen(diff), sizeof diff - strlen(diff),
                 "; the manifest claims max_operands %d, the SUT declares %d", m->max_operands,
                 caps.max_operands);
    if (!diff[0])
        return 0;
    return fail(why, cap, "the manifest's scope and the SUT's (%s) disagree: %s", sut->name,
                diff + 2);
}
