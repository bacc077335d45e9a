/*
 * The importers' shared model (docs/import.md): a tree of links, each with its frame given
 * relative to its parent's at joint coordinates zero, its mass properties in that frame, one
 * joint to its parent and its shapes. urdf.c and mjcf.c fill it from libxml2's tree;
 * imp_tree.c merges massless links, places the tree (forward kinematics at zero) and checks it;
 * imp_yaml.c writes it as a liedyn YAML model. Internal to src/import.
 */
#ifndef LD_IMPORT_IMP_H
#define LD_IMPORT_IMP_H

#include <libxml/tree.h>
#include <stddef.h>

#include "liedyn/import.h"
#include "liedyn/model.h"

#define IMP_PI 3.14159265358979323846

/* The joint of a link to its parent. */
typedef enum imp_jkind {
    IMP_J_FREE = 0, /* no joint: the link floats (its pose given) */
    IMP_J_FIXED,
    IMP_J_REVOLUTE,
    IMP_J_PRISMATIC,
    IMP_J_CYLINDRICAL,
    IMP_J_UNIVERSAL,
    IMP_J_SPHERICAL
} imp_jkind;

typedef struct imp_shape {
    ld_shape_kind kind;
    double size[3];  /* as ld_shape's */
    double pos[3];   /* centre, link frame */
    double quat[4];  /* the shape's frame in the link frame: z the axis of round shapes */
    double color[3]; /* −1: not given */
    int line;
    int file;    /* LD_SHAPE_MESH: its file, M->files[file]; size is then the scale */
    int collide; /* 1: it collides (ld_import_options.contact), with friction μ */
    double friction;
    int contype, conaffinity; /* MJCF's collision bitmasks (imp_contact_finish) */
    int hidden; /* a ground shape copied from a welded link's shape: that link draws it */
} imp_shape;

/* A spring and damper on a joint's coordinate: stiffness k, damping c, about (hinge) or along
 * (slide) axis, in the link's frame, at point anchor (slides). */
typedef struct imp_spring {
    int slide;
    double axis[3], anchor[3];
    double k, c, ref;
    char name[LD_NAME_MAX];
    int line;
} imp_spring;

typedef struct imp_link {
    char name[LD_NAME_MAX];
    int line;
    double mass;       /* 0: massless */
    double com[3];     /* centre of mass, link frame */
    double inertia[9]; /* about the centre of mass, link axes */
    int parent;        /* index of the parent link, −1: the ground */
    double pos[3];     /* the link frame in the parent's (the ground: world) at coordinates 0 */
    double quat[4];
    imp_jkind jkind;
    char jname[LD_NAME_MAX];
    int jline;
    double anchor[3];         /* joint point, link frame */
    double axis[3], axis2[3]; /* joint axis (universal: the parent's, axis2 the link's) */
    int has_limits;
    double lo, hi;
    double effort, velocity; /* URDF limit effort and velocity (0: not given) */
    int nsprings;
    imp_spring springs[3];
    int nshapes;
    imp_shape shapes[LD_SHAPES_PER_BODY_MAX];
    int dropped_shapes;  /* beyond LD_SHAPES_PER_BODY_MAX */
    int merged;          /* merged into its parent (massless, fixed): not written */
    int welded;          /* fixed to the ground through fixed joints (imp_contact_finish) */
    int auxiliary;       /* an auxiliary body between joints of one MJCF body */
    double wx[3], wq[4]; /* world pose of the link frame at coordinates 0 (imp_place) */
} imp_link;

/* An actuator on a joint (MJCF <actuator>, URDF <transmission>): as ld_actuator_spec, on the
 * joint named joint (resolved when written: a revolute or prismatic joint of a link). */
typedef struct imp_actuator {
    char name[LD_NAME_MAX], joint[LD_NAME_MAX];
    char kind[24]; /* the element ("motor", "position", …) */
    int input;     /* LD_ACT_CONTROL, LD_ACT_POSITION, LD_ACT_VELOCITY */
    double gear, kp, kv;
    int has_flim, has_clim;
    double flim[2], clim[2];
    int effort; /* 1: force limits ±(the joint's URDF effort) when it has one */
    int line;
} imp_actuator;

typedef struct imp_model {
    const char *path; /* the file (messages) */
    ld_import_format format;
    ld_import_options opt;
    char name[LD_NAME_MAX];
    int name_line;
    double gravity[3];
    int nlinks, cap;
    imp_link *links;
    ld_model_error *err;
    ld_import_report *rep;
    int nomem;    /* a warning could not be stored */
    char **files; /* the mesh shapes' files (absolute paths), each once */
    int nfiles, fcap;
    int nacts, acap;
    imp_actuator *acts; /* malloc'ed */
    char **inc;         /* MJCF: the files an <include> read, in order (file i + 1 of a line) */
    int ninc, inccap;
    /* ld_import_options.contact: the ground plane (on: given) and the ground shapes (world
     * frame; malloc'ed) */
    int plane_on, plane_line, plane_contype, plane_conaffinity;
    double plane_n[3], plane_p[3], plane_mu;
    imp_shape *ground;
    int nground, gcap;
    /* MJCF <contact><exclude body1 body2>, as written (names, line), and the pairs of links
     * whose shapes never collide that imp_contact_finish derives (link indices, pairs) */
    struct imp_exclude {
        char body[2][LD_NAME_MAX];
        int line;
    } * given;
    int ngiven, givencap;
    int *excl;
    int nexcl;
} imp_model;

/* Lines of the elements of an included file: IMP_LINE_STRIDE · (its index in M->inc + 1) + its
 * own line (imp_line); imp_where and imp_at turn them back into a file and a line. */
#define IMP_LINE_STRIDE  10000000
#define IMP_MAX_INCLUDES 200

/* ---- imp_tree.c ---- */
/* Append a link with defaults (identity frames, massless, parent −1, no joint); its index or
 * −1 (out of memory). */
int imp_add_link(imp_model *M);
/* Record a warning on rep (when there is one): element (e.g. "mesh"), line, formatted text.
 * Never fails; a warning that cannot be stored sets M->nomem. */
void imp_warn(imp_model *M, ld_import_severity sev, int line, const char *element, const char *fmt,
              ...) __attribute__((format(printf, 5, 6)));
/* Append an actuator (zeroed, gear 1); NULL when out of memory. */
imp_actuator *imp_add_actuator(imp_model *M);
/* The link whose joint (revolute or prismatic, not merged) is called name, or −1; *kind (may be
 * NULL) receives the joint kind of the link named so when it is not of those (else −1). */
int imp_find_joint(const imp_model *M, const char *name, int *kind);
/* Report the actuators whose joint is not a revolute or prismatic joint of a link (those are not
 * written). */
void imp_check_actuators(imp_model *M);
/* A box turned by a signed permutation of the axes keeps its edges along the link's axes with
 * its sizes permuted; another turn cannot be drawn (liedyn's boxes lie along the body axes; a
 * colliding one then no longer collides). Sizes that are not positive: 0, reported (not drawn).
 * L with no name: a ground shape, in the world frame. */
int imp_fix_shape(imp_model *M, const imp_link *L, imp_shape *sh);
/* imp_contact.c, with the contact option, after the tree is placed: the colliding shapes of
 * links welded to the ground as ground shapes (hidden: their link draws them), the ground's shapes
 * checked, MuJoCo's bitmasks applied (a shape that no other can meet collides with nothing) and the
 * pairs they would keep apart reported. LD_OK or LD_ENOMEM. */
int imp_contact_finish(imp_model *M);
/* Fill M->err with "FILE:LINE: ELEMENT: REASON" and return code. */
int imp_fail(imp_model *M, int code, int line, const char *element, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The file (M->path, or the included file) and its own line of an importer's line. */
int imp_where(const imp_model *M, int line, const char **file);
/* "line N" for a line of M->path, "FILE:N" (the file's base name) for one of an included file,
 * into buf (cap bytes); buf. */
const char *imp_at(const imp_model *M, int line, char *buf, size_t cap);
/* Merge the massless links fixed to their parent into it (shapes and children moved over);
 * a massless link on a moving joint, or no link with mass at all, is an error. Then place
 * the tree (wx, wq of every link). LD_OK or LD_EINVAL (err filled in). */
int imp_finish(imp_model *M);
void imp_free(imp_model *M);
/* The index of file path among M->files, appended if new; −1 out of memory. */
int imp_add_file(imp_model *M, const char *path);

/* ---- geometry (imp_tree.c) ---- */
void imp_quat_rpy(double q[4], double roll, double pitch, double yaw);
/* The quaternion of the rotation taking (0, 0, 1) to the unit vector z by the smallest turn. */
void imp_quat_zaxis(double q[4], const double z[3]);
/* Compose frames: (p, q) = (pa, qa) ∘ (pb, qb). */
void imp_compose(double p[3], double q[4], const double pa[3], const double qa[4],
                 const double pb[3], const double qb[4]);
/* J = R diag(d) Rᵀ-like rotation of a tensor: out = R(q) in R(q)ᵀ. */
void imp_rotate_tensor(double out[9], const double q[4], const double in[9]);
/* Add the mass m at centre c (link frame) with inertia J (about c, link axes) to the link. */
void imp_add_mass(imp_link *L, double m, const double c[3], const double J[9]);
/* A unit vector ⊥ the unit vector a (the axis of a frame's x). */
void imp_perp(double r[3], const double a[3]);
int imp_normalize(double v[3]);

/* ---- imp_xml.c: attributes ---- */
/* The value of attribute name of n (libxml2 string: xmlFree), or NULL. */
char *imp_attr(const xmlNode *n, const char *name);
/* Read up to max numbers of attribute text s into v; their count, or −1 (not numbers). */
int imp_parse_numbers(const char *s, double *v, int max);
/* Attribute name of n as exactly count numbers into v (absent: v untouched, *given 0).
 * LD_OK or LD_EINVAL (reported on M). */
int imp_get_vec(imp_model *M, const xmlNode *n, const char *name, double *v, int count, int *given);
/* Read path (at most cap bytes: *used, how many) and parse it with libxml2 from memory (no
 * network, no entities from outside, no decompression): the document, or NULL with code and M's
 * error set at the parser's line of file number f (0: M->path, imp_line). */
xmlDoc *imp_read_xml(imp_model *M, const char *path, int f, size_t cap, size_t *used, int *code);
/* 1 if n is an element named tag. */
int imp_is(const xmlNode *n, const char *tag);
/* The line of n (0 if unknown); for an element of an included file, the encoded line that its
 * _private holds (mjcf_include.c: file number · IMP_LINE_STRIDE + line). */
int imp_line(const xmlNode *n);
/* Copy a name into out (LD_NAME_MAX): too long or reserved names are reported and changed. */
void imp_set_name(imp_model *M, char *out, const char *name, int line, const char *what);

/* ---- imp_yaml.c ---- */
/* The model as liedyn YAML text (malloc'ed, NUL-terminated) with lines[k] the file's line of
 * YAML line k + 1 (malloc'ed, nlines entries). LD_OK or LD_ENOMEM. */
int imp_write_yaml(const imp_model *M, char **text, size_t *len, int **lines, int *nlines);

/* ---- urdf.c, mjcf.c ---- */
int imp_urdf(imp_model *M, xmlDoc *doc);
int imp_mjcf(imp_model *M, xmlDoc *doc);

#endif
