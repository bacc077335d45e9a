/* The integrator block of a model file (docs/model-format.md): the run's settings and the
 * integrators' own parameters, whose keys come from the method descriptors (integrator.h). */
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "reader.h"

static const char *const run_keys[] = {
    "name",        "formulation", "dt",           "t_start",      "t_end",      "newton_atol",
    "newton_rtol", "max_iter",    "output_every", "adaptive",     "error_atol", "error_rtol",
    "fac",         "facmin",      "facmax",       "newton_reuse", NULL};

/* The keys of the integrator block: run_keys and every method's parameters, NULL-terminated
 * in keys (cap entries). */
static void integrator_keys(const char **keys, int cap) {
    int n = 0;
    for (; run_keys[n] && n < cap - 1; ++n) keys[n] = run_keys[n];
    for (int i = 0; i < ld_method_count(); ++i) {
        const ld_method_info *d = ld_method_get(i);
        for (int j = 0; j < d->nparams && n < cap - 1; ++j) {
            int dup = 0;
            for (int k = 0; k < n; ++k) dup |= strcmp(keys[k], d->params[j].key) == 0;
            if (!dup) keys[n++] = d->params[j].key;
        }
    }
    keys[n] = NULL;
}

/* The methods' parameters present in the block, into s->params. */
static int read_params(reader *r, const yaml_node_t *n, const char *const *keys, ld_run_spec *s) {
    for (int i = 0; keys[i]; ++i) {
        if (!ld_method_param_find(keys[i], NULL)) continue;
        field f;
        double v = 0.0;
        int rc = ly_lookup(r, n, keys[i], 0, &f);
        if (!rc && f.val) rc = ly_get_number(r, n, keys[i], 1, &v);
        if (!rc && f.val) rc = ld_run_param_set(s, keys[i], v);
        if (rc) return rc;
    }
    return LD_OK;
}
static const char *const bools[] = {"false", "true", NULL};
/* the values of ld_newton_reuse in their order: LD_REUSE_OFF, LD_REUSE_ON, LD_REUSE_AUTO */
static const char *const reuse_values[] = {"false", "true", "auto", NULL};

int ly_read_run(reader *r, const yaml_node_t *root, ld_run_spec *s) {
    field f;
    const char *forms[LD_FORM_ALL + 1] = {NULL};
    int form = (int)s->formulation, reuse = s->newton_reuse;
    for (int i = 0; i < LD_FORM_ALL; ++i) forms[i] = ld_formulation_name((ld_formulation)i);
    size_t mark = ly_push_key(r, "integrator");
    int rc = ly_lookup(r, root, "integrator", 0, &f);
    if (rc || !f.val) goto done;
    const yaml_node_t *n = f.val;
    if ((rc = ly_expect_map(r, n, f.line, "the integrator block"))) goto done;
    const char *keys[64];
    integrator_keys(keys, 64);
    if ((rc = ly_check_keys(r, n, keys, NULL))) goto done;
    if ((rc = ly_get_name(r, n, "name", 0, 0, s->integrator))) goto done;
    if ((rc = ly_get_choice(r, n, "formulation", 0, forms, &form))) goto done;
    s->formulation = (ld_formulation)form;
    if ((rc = ly_get_number(r, n, "dt", 0, &s->dt))) goto done;
    if ((rc = ly_get_number(r, n, "t_start", 0, &s->t_start))) goto done;
    if ((rc = ly_get_number(r, n, "t_end", 0, &s->t_end))) goto done;
    if ((rc = read_params(r, n, keys, s))) goto done;
    if ((rc = ly_get_number(r, n, "newton_atol", 0, &s->newton_atol))) goto done;
    if ((rc = ly_get_number(r, n, "newton_rtol", 0, &s->newton_rtol))) goto done;
    if ((rc = ly_get_int(r, n, "max_iter", 0, &s->max_iter))) goto done;
    if ((rc = ly_get_choice(r, n, "newton_reuse", 0, reuse_values, &reuse))) goto done;
    s->newton_reuse = reuse;
    if ((rc = ly_get_int(r, n, "output_every", 0, &s->output_every))) goto done;
    if ((rc = ly_get_choice(r, n, "adaptive", 0, bools, &s->adaptive))) goto done;
    if ((rc = ly_get_number(r, n, "error_atol", 0, &s->error_atol))) goto done;
    if ((rc = ly_get_number(r, n, "error_rtol", 0, &s->error_rtol))) goto done;
    if ((rc = ly_get_number(r, n, "fac", 0, &s->fac))) goto done;
    if ((rc = ly_get_number(r, n, "facmin", 0, &s->facmin))) goto done;
    rc = ly_get_number(r, n, "facmax", 0, &s->facmax);
done:
    ly_pop(r, mark);
    return rc;
}
