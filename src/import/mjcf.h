/*
 * The MJCF reader's shared state (internal to src/import): mjcf.c reads the model, mjcf_mesh.c
 * the mesh geoms' assets.
 */
#ifndef LD_IMPORT_MJCF_H
#define LD_IMPORT_MJCF_H

#include "imp.h"

enum { MJ_HINGE, MJ_SLIDE, MJ_BALL, MJ_FREE };
#define MJ_JOINTS_MAX 6

typedef struct mj_joint {
    int type, line;
    char name[LD_NAME_MAX];
    double pos[3], axis[3];
    int limited;
    double range[2];
    double damping, stiffness, springref;
    double ref; /* the coordinate of the pose as written (MuJoCo's qpos0) */
} mj_joint;

/* The deepest nesting of bodies read, and of elements assembled from included files: MuJoCo's
 * files nest a few tens; a chain of includes could otherwise nest beyond the stack. */
#define MJ_DEPTH_MAX 1000

typedef struct mj_tally {
    int n, line;
} mj_tally;

typedef struct mj_ctx {
    imp_model *M;
    xmlNode *root, *main; /* the root element, the top <default> (class main) */
    int degree;           /* compiler angle="degree" (the default) */
    char eulerseq[4];
    int fromgeom; /* compiler inertiafromgeom: 0 false, 1 true, 2 auto (default) */
    int nbody;    /* bodies seen (the names of unnamed ones) */
    int depth;    /* bodies above the one read (read_body's recursion), at most MJ_DEPTH_MAX */
    mj_tally armature, friction, limits, visual;
    mj_tally nocontact;       /* contact: geoms that collide in MuJoCo and not here */
    char *meshdir, *assetdir; /* compiler meshdir and assetdir (xmlFree), NULL: not given */
    int strippath;            /* compiler strippath: the mesh files' directories dropped */
    int exactmesh;            /* compiler exactmeshinertia="true" (MuJoCo's default: false) */
    int mesh_noted;           /* the note on MuJoCo's legacy mesh inertia was given */
} mj_ctx;

enum { G_PLANE, G_HFIELD, G_SPHERE, G_CAPSULE, G_ELLIPSOID, G_CYLINDER, G_BOX, G_MESH, G_N };

typedef struct mj_geom {
    int type, line;
    double size[3], pos[3], quat[4], rgba[4];
    int has_rgba;
    double mass, density;
    int has_mass;
    char mesh[LD_NAME_MAX];   /* the mesh asset of a mesh geom */
    int contype, conaffinity; /* MuJoCo's collision bitmasks (default 1, 1) */
    double friction;          /* the sliding friction (default 1) */
} mj_geom;

/* The <default> of class name ("main": the top one), or NULL. */
xmlNode *mj_find_class(const mj_ctx *C, const char *name);
/* Attribute name of element n (of kind tag: "joint", "geom", "mesh"): its own, else the
 * nearest default class from cls upwards that sets it for tag. xmlFree the result; NULL:
 * none. */
char *mj_attr(const xmlNode *n, const char *tag, const xmlNode *cls, const char *name);
/* count numbers of attribute name (own or default); absent: v untouched, *given 0. */
int mj_vec(mj_ctx *C, const xmlNode *n, const char *tag, const xmlNode *cls, const char *name,
           double *v, int count, int *given);
/* Up to max numbers (own or default): their count (0: absent), or −1 with the error set. */
int mj_nums(mj_ctx *C, const xmlNode *n, const char *tag, const xmlNode *cls, const char *name,
            double *v, int max);
/* The class of element n: its own class attribute, else cls (a body's childclass, else
 * main). An unknown class is an error. */
int mj_elem_class(mj_ctx *C, const xmlNode *n, xmlNode *cls, xmlNode **out);

/* mjcf_include.c: replace every <include file="..."/> of doc (M->path's) by the elements of
 * its file, as MuJoCo does (docs/import.md). LD_OK, or the error set on M. */
int mj_expand_includes(imp_model *M, xmlDoc *doc);

/* mjcf_classes.c: refuse, as MuJoCo does, a <default> nested in a top-level one (under root)
 * without a class name, named main, or named as another nested class anywhere in the model
 * (docs/import.md). LD_OK, LD_EINVAL or LD_ENOMEM with the error set on M. */
int mj_check_classes(imp_model *M, const xmlNode *root);

/* mjcf_actuator.c: one child n of <actuator>: an actuator with a joint transmission, else a
 * report. LD_OK or the error set. */
int mj_read_actuator(mj_ctx *C, const xmlNode *n);

/* mjcf_mesh.c: mesh geom g of link L as shape sh, placed in the body as MuJoCo draws it. 1 when
 * drawn; 0 when its file is not found or it has none (reported), or on an error (*rc). */
int mj_mesh_shape(mj_ctx *C, const mj_geom *g, imp_link *L, imp_shape *sh, int *rc);
/* Add the solid of mesh geom g (its asset's file under MuJoCo's vertex map, the geom's density
 * or mass) to the mass and inertia of L (compiler inertiafromgeom). LD_OK or the error set: no
 * asset, no file, a mesh without volume. */
int mj_mesh_mass(mj_ctx *C, const mj_geom *g, imp_link *L);

#endif
