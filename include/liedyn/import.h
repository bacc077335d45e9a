/*
 * liedyn/import.h — robot models from URDF (the ROS Unified Robot Description Format) and
 * MJCF (MuJoCo's XML format) as liedyn models (docs/import.md).
 *
 * An imported file is translated into the liedyn YAML model format (docs/model-format.md):
 * links and bodies become bodies with their frame at the centre of mass, joints are written in
 * the frame form and the bodies are placed by them at joint coordinates zero (assembly), force
 * elements carry the joints' damping and stiffness, primitive geometry becomes shapes. The
 * YAML text is then read by the one model reader of the library, so an imported model passes
 * the same checks as a model file, and `liedyn convert` writes exactly the text that runs.
 *
 * What the target cannot represent (tendons, actuators, equality constraints, sensors,
 * contact pairs, meshes, joint friction, …) is never dropped silently: each such element is a
 * warning of the report with its file, line and element. Structural errors (a malformed file,
 * a missing attribute, a joint naming an unknown link, a cycle) are errors in ld_model_error,
 * "FILE:LINE: ELEMENT: REASON".
 */
#ifndef LIEDYN_IMPORT_H
#define LIEDYN_IMPORT_H

#include <stddef.h>

#include "liedyn/export.h"
#include "liedyn/model.h"

LD_BEGIN_DECLS

typedef enum ld_import_format {
    LD_IMPORT_AUTO = 0, /* by the root element: <robot> URDF, <mujoco> MJCF */
    LD_IMPORT_URDF,
    LD_IMPORT_MJCF
} ld_import_format;

/* How much a warning matters: an element with no effect on the dynamics (a light, a camera,
 * a mesh that is not drawn), or one whose dynamics the model lacks or approximates (an
 * actuator, a tendon, joint friction, an auxiliary body). */
typedef enum ld_import_severity {
    LD_IMPORT_IGNORED = 0,
    LD_IMPORT_DYNAMICS = 1
} ld_import_severity;

typedef struct ld_import_warning {
    int line;         /* line in the file (0: the file as a whole) */
    char element[64]; /* the element, e.g. "tendon", "joint 'elbow'", "mesh" */
    char msg[448];    /* what was done with it */
    ld_import_severity severity;
    char file[256]; /* the file of the line: the imported file, or a file it includes (MJCF) */
} ld_import_warning;

/* What an import did: the format, counts, the warnings (owned; ld_import_report_free). */
typedef struct ld_import_report {
    ld_import_format format;
    char file[256];
    int links;     /* links (URDF) or bodies (MJCF) in the file, the world body excluded */
    int merged;    /* massless links merged into the link they are fixed to */
    int auxiliary; /* auxiliary bodies added between joints of one MJCF body */
    int nwarn;
    ld_import_warning *warn;
    double parse_seconds;     /* libxml2's parse of the file */
    double translate_seconds; /* the translation into YAML text */
} ld_import_report;

/* Options of an import; ld_import_options_init sets the defaults. */
typedef struct ld_import_options {
    ld_import_format format; /* LD_IMPORT_AUTO */
    /* 1: write the joints' position limits as `limits` (then only the `moreau` integrator runs
     * the model, docs/contact.md); 0 (default): report them and keep them as comments */
    int limits;
    /* The root: 0 (default) by the rule of docs/import.md (a massless root or a root named
     * "world" is the ground; a URDF root with mass floats freely); 1: a root with mass is
     * fixed to the ground */
    int fixed_base;
    /* mass of an auxiliary body (between two joints of one MJCF body at different points) as
     * a fraction of its body's mass, default 1e-3 */
    double aux_mass_ratio;
    /* MJCF, a body with several joints: 0 (default) one universal, spherical or cylindrical
     * joint where it is the same motion (its springs and dampers then act on the components of
     * the relative rotation vector about the axes); 1: always the chain of auxiliary bodies,
     * one joint each, so that each hinge keeps its own spring and damper on its own angle */
    int chain_joints;
    /* MJCF: 1: the geoms that collide in MuJoCo (contype or conaffinity not 0) collide in
     * liedyn too — spheres, capsules, boxes and cylinders with their sliding friction; the
     * worldbody's plane is the ground plane and its other geoms ground shapes — and the
     * integrator block is moreau (docs/import.md, "Contact"); 0 (default): no contact,
     * reported */
    int contact;
} ld_import_options;

void ld_import_options_init(ld_import_options *o);

/* Translate the URDF or MJCF file path into liedyn YAML text: *yaml (NUL-terminated, malloc'ed,
 * the caller frees it) of *len bytes. opt may be NULL (defaults), rep may be NULL; when given
 * it is filled (free it with ld_import_report_free, also after a failure). LD_OK; LD_EIO (the
 * file cannot be read), LD_EINVAL (malformed or not representable; err filled in),
 * LD_ENOTSUPPORTED (an element liedyn refuses, e.g. a planar joint; err filled in),
 * LD_ENOMEM. */
int ld_import_translate(const char *path, const ld_import_options *opt, char **yaml, size_t *len,
                        ld_model_error *err, ld_import_report *rep);

/* Import path as a model: ld_import_translate and the model reader (which assembles and
 * validates it). *out owns its arrays (ld_model_free); its source is path, and the lines of
 * its bodies and joints are the lines of the file's elements. The error codes of
 * ld_import_translate and ld_model_parse; *out is untouched on failure. */
int ld_model_import(const char *path, ld_model *out, ld_model_error *err, ld_import_report *rep);
/* The same with options (NULL: defaults). */
int ld_model_import_opt(const char *path, const ld_import_options *opt, ld_model *out,
                        ld_model_error *err, ld_import_report *rep);

/* Is path a file to import: ends in .urdf or .xml (case-insensitive), or starts (after an XML
 * declaration and comments) with <robot or <mujoco? 1 or 0. */
int ld_import_recognizes(const char *path);

/* Release the report's warnings (idempotent; NULL allowed). */
void ld_import_report_free(ld_import_report *rep);

LD_END_DECLS

#endif
