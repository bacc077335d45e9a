/*
 * The one list of the integrators of integrator.h. Each method is described and implemented in
 * its own file (genalpha.c, tb3.c, hht.c, hem.c); adding a method is that file plus one line
 * here (the enum ld_integ_method names the built-in entries by their place).
 */
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"

/* The methods, each defined in its own file. */
extern const ld_method_impl ld_method_genalpha, ld_method_newmark, ld_method_tb3,
    ld_method_tb3_paper, ld_method_hht, ld_method_hht_modified, ld_method_hem1, ld_method_hem2,
    ld_method_hem3, ld_method_hem4, ld_method_hem5, ld_method_newmark_beta, ld_method_split2,
    ld_method_split4, ld_method_split6, ld_method_split8, ld_method_moreau;

static const ld_method_impl *const methods[] = {
    &ld_method_genalpha, &ld_method_newmark,      &ld_method_tb3,    &ld_method_tb3_paper,
    &ld_method_hht,      &ld_method_hht_modified, &ld_method_hem1,   &ld_method_hem2,
    &ld_method_hem3,     &ld_method_hem4,         &ld_method_hem5,   &ld_method_newmark_beta,
    &ld_method_split2,   &ld_method_split4,       &ld_method_split6, &ld_method_split8,
    &ld_method_moreau,
};

#define NMETHODS ((int)(sizeof methods / sizeof methods[0]))

int ld_method_count(void) {
    return NMETHODS;
}

const ld_method_impl *ld_integ__method(int i) {
    return i >= 0 && i < NMETHODS ? methods[i] : NULL;
}

const ld_method_info *ld_method_get(int i) {
    return i >= 0 && i < NMETHODS ? &methods[i]->info : NULL;
}

const char *ld_integ_method_name(ld_integ_method m) {
    const ld_method_info *d = ld_method_get((int)m);
    return d ? d->name : "?";
}

int ld_integ_method_find(const char *name) {
    for (int i = 0; name && i < NMETHODS; ++i)
        if (strcmp(name, methods[i]->info.name) == 0) return i;
    return -1;
}

int ld_integ_method_has_estimate(ld_integ_method m) {
    const ld_method_info *d = ld_method_get((int)m);
    return d && d->order_estimate > 0;
}

/* key matches the parameter's model-file key or its option (with or without the dashes). */
static int param_is(const ld_method_param *p, const char *key) {
    if (strcmp(key, p->key) == 0 || strcmp(key, p->option) == 0) return 1;
    return strncmp(p->option, "--", 2) == 0 && strcmp(key, p->option + 2) == 0;
}

const ld_method_param *ld_method_param_find(const char *key, int *method) {
    for (int i = 0; key && i < NMETHODS; ++i)
        for (int j = 0; j < methods[i]->info.nparams; ++j)
            if (param_is(&methods[i]->info.params[j], key)) {
                if (method) *method = i;
                return &methods[i]->info.params[j];
            }
    return NULL;
}

double ld_method_param_value(const ld_integ_options *o, const ld_method_param *p) {
    double v;
    memcpy(&v, (const char *)o + p->offset, sizeof v);
    return v;
}
