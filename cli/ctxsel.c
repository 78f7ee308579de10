/* ctxsel.c: the contexts to watch and their Velero namespaces (ctxsel.h). */
#include "ctxsel.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

static int cs_has(const ctxsel *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].context, name)) return 1;
    return 0;
}

static void cs_add(ctxsel *s, const char *name, int missing)
{
    if (cs_has(s, name)) return;
    s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
    s->v[s->n].context = xstrdup(name);
    s->v[s->n].ns = NULL;
    s->v[s->n].missing = missing;
    s->n++;
}

static int cs_known(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return 1;
    return 0;
}

void ctxsel_clear(ctxsel *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].context);
        free(s->v[i].ns);
    }
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

int ctxsel_split_ns_for(const char *arg, char **ctx, const char **ns)
{
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) return -1;
    *ctx = xstrndup(arg, (size_t)(eq - arg));
    *ns = eq + 1;
    return 0;
}

/* One part of a comma list: a name or a pattern. */
static int cs_part(ctxsel *s, char *const *names, size_t n_names, const char *part, char *err,
                   size_t errlen)
{
    if (!*part) {
        snprintf(err, errlen, "empty context name in --context");
        return -1;
    }
    if (cs_known(names, n_names, part) || !strpbrk(part, "*?[")) {
        cs_add(s, part, !cs_known(names, n_names, part));
        return 0;
    }
    int hits = 0;
    for (size_t i = 0; i < n_names; i++)
        if (!fnmatch(part, names[i], 0)) {
            cs_add(s, names[i], 0);
            hits++;
        }
    if (!hits) {
        snprintf(err, errlen, "no context of the kubeconfig matches '%s'", part);
        return -1;
    }
    return 0;
}

int ctxsel_resolve(const ctxsel_opts *o, char *const *names, size_t n_names, ctxsel *out, char *err,
                   size_t errlen)
{
    memset(out, 0, sizeof(*out));
    if (o->all)
        for (size_t i = 0; i < n_names; i++) cs_add(out, names[i], 0);
    for (size_t k = 0; k < o->n_specs; k++) {
        const char *spec = o->specs[k];
        if (cs_known(names, n_names, spec)) { /* the whole value names one: commas and all */
            cs_add(out, spec, 0);
            continue;
        }
        /* the parts, then the longest run of parts that names a context, else one part (a
         * name or a pattern): "odd,name,b" is odd,name and b when odd,name is a context */
        char *copy = xstrdup(spec), **parts = NULL;
        size_t np = 0;
        for (char *p = copy;;) {
            char *comma = strchr(p, ',');
            if (comma) *comma = 0;
            parts = xrealloc(parts, (np + 1) * sizeof *parts);
            parts[np++] = p;
            if (!comma) break;
            p = comma + 1;
        }
        int rc = 0;
        kc_buf joined = {0};
        for (size_t i = 0; i < np && !rc;) {
            size_t take = 0;
            for (size_t j = np; j > i + 1 && !take; j--) {
                joined.len = 0;
                for (size_t k = i; k < j; k++) {
                    if (k > i) kc_buf_append(&joined, ",", 1);
                    kc_buf_append(&joined, parts[k], strlen(parts[k]));
                }
                if (cs_known(names, n_names, kc_buf_cstr(&joined))) take = j - i;
            }
            if (take) {
                cs_add(out, kc_buf_cstr(&joined), 0);
                i += take;
            } else {
                rc = cs_part(out, names, n_names, parts[i], err, errlen);
                i++;
            }
        }
        kc_buf_free(&joined);
        free(parts);
        free(copy);
        if (rc) {
            ctxsel_clear(out);
            return -1;
        }
    }
    if (o->all && !out->n) {
        snprintf(err, errlen, "--all-contexts: the kubeconfig has no context");
        return -1;
    }
    for (size_t i = 0; i < out->n; i++) out->v[i].ns = xstrdup(o->ns ? o->ns : "velero");
    for (size_t k = 0; k < o->n_ns_for; k++) {
        char *ctx;
        const char *ns;
        if (ctxsel_split_ns_for(o->ns_for[k], &ctx, &ns)) {
            snprintf(err, errlen, "--namespace-for '%s': expected CONTEXT=NAMESPACE", o->ns_for[k]);
            ctxsel_clear(out);
            return -1;
        }
        int found = 0;
        for (size_t i = 0; i < out->n; i++)
            if (!strcmp(out->v[i].context, ctx)) {
                free(out->v[i].ns);
                out->v[i].ns = xstrdup(ns);
                found = 1;
            }
        if (!found) {
            snprintf(err, errlen, "--namespace-for: context '%s' is not watched (see --context)",
                     ctx);
            free(ctx);
            ctxsel_clear(out);
            return -1;
        }
        free(ctx);
    }
    return 0;
}
