/* The output block of a model file (docs/model-format.md): the rows' spacing in time or in
 * steps, and the quantities the default plot shows. */
#include <string.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "reader.h"

static const char *const output_keys[] = {"dt", "every", "plot", NULL};

/* plot: a list of quantity names (docs/cli-run.md), joined with commas into out. */
static int read_plot(reader *r, const yaml_node_t *n, char out[LD_PLOT_MAX]) {
    field f;
    size_t mark = ly_push_key(r, "plot");
    int rc = ly_lookup(r, n, "plot", 0, &f);
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "quantity names such as top.z");
    size_t len = 0;
    for (int i = 0; !rc && f.val && i < ly_seq_len(f.val); ++i) {
        size_t im = ly_push_index(r, i);
        const yaml_node_t *it = ly_seq_item(r, f.val, i);
        char name[LD_NAME_MAX];
        rc = ly_read_name(r, it, ly_line_of(it), name, 0);
        size_t k = strlen(name);
        if (!rc && (strchr(name, ',') || len + k + 2 > LD_PLOT_MAX))
            rc = ly_fail(r, ly_line_of(it),
                         strchr(name, ',') ? "a quantity name has no comma"
                                           : "the list is longer than %d characters",
                         LD_PLOT_MAX - 1);
        if (!rc) {
            if (len) out[len++] = ',';
            memcpy(out + len, name, k + 1);
            len += k;
        }
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

int ly_read_output(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "output");
    int rc = ly_lookup(r, root, "output", 0, &f);
    if (rc || !f.val) goto done;
    const yaml_node_t *n = f.val;
    if ((rc = ly_expect_map(r, n, f.line, "the output block"))) goto done;
    if ((rc = ly_check_keys(r, n, output_keys, NULL))) goto done;
    if ((rc = ly_get_number(r, n, "dt", 0, &m->output.dt))) goto done;
    if ((rc = ly_get_int(r, n, "every", 0, &m->run.output_every))) goto done;
    rc = read_plot(r, n, m->output.plot);
done:
    ly_pop(r, mark);
    return rc;
}
