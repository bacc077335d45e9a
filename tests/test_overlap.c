/*
 * The gaps of the overlap check (cli/overlap.c) against an independent brute-force reference,
 * at many random poses (fixed seed, orientations uniform over SO(3)) and at the special ones
 * (a cylinder's or capsule's axis parallel and perpendicular to the plane's normal, a box face
 * down or on edge; a sphere whose closest point on a cylinder is on an end face, on the rim,
 * on the side, or whose centre is inside nearer an end face or nearer the side), penetrating
 * and separated.
 *
 * The reference never uses the formulas under test. A solid's surface is cut into patches
 * (see npatches), each mapped from [0, 1]² without a singular parameter; a function of the surface
 * point is minimized on every patch over a GRID × GRID grid of parameters, then from the patch's
 * best node by compass search (steps halved from 1/GRID down to STEP_MIN), and the smallest value
 * taken:
 *   - a shape against the plane n·x = d: the minimum of n·x − d over its surface;
 *   - a point p against a solid X: ± the minimum of |x − p| over X's surface, − when p is in X
 *     (the solids' definitions: |z| ≤ hl and ρ ≤ r, |lᵢ| ≤ hᵢ, ...);
 *   - a sphere (centre c, radius r) against X: that signed distance of c minus r (a sphere is
 *     its centre swept by a ball, so its gap is its centre's less the radius: separated or
 *     penetrating, the penetration depth against a convex solid is r minus the signed
 *     distance of c);
 *   - a capsule against X: the least signed distance of the points of its segment (by golden
 *     section, the signed distance to a convex solid being convex along a segment) minus its
 *     radius (the definition overlap_pair_gap measures too, by its own point distances).
 * Each patch function has one local minimum on its patch for these convex solids (the patches
 * are convex: flat faces, cube faces pushed onto a sphere, a cylinder's side seen from its
 * axis), so the refinement converges to it. Its last step STEP_MIN moves a surface point by at
 * most 2π · 1e-12 m (radii ≤ 1 m, half lengths and half edges ≤ 1.5 m), the golden section's last
 * step a capsule's segment point by 3e-12 m; the gap, first order in such a move at a patch's edge
 * and second order inside, is then within 1e-11 m: TOL = 1e-9 m leaves a margin of 100 (the
 * largest difference measured is 2e-13 m).
 *
 * Every measured gap (the contract of overlap_pair_gap and overlap_plane_gap) must agree with
 * the reference within TOL, in both orders of the pair, the special poses (a capsule along a
 * box's face, crossed or parallel capsules) as well as random ones. The unmeasured pairs must
 * give NAN.
 */
#include "support.h"

#include "overlap.h"

#define GRID     24     /* grid nodes per side of every surface patch, less one */
#define STEP_MIN 1e-12  /* the compass search's last step in a patch's parameters */
#define TOL      1e-9   /* |formula − reference| (m) */
#define DRAWS    64     /* random poses per entry of a table */
#define SEED     0x6f76 /* the table's random poses */

/* A solid in the test's own terms: middle m, orientation R (row-major, its columns the body
 * axes; a capsule's or cylinder's axis the third), radius r, half length hl, box half edges h. */
typedef struct solid {
    ld_shape_kind kind;
    double m[3], R[9], r, hl, h[3];
} solid;

/* ------------------------------------------------------------------ poses */

/* A rotation uniformly distributed over SO(3) (Shoemake's subgroup algorithm) into R. */
static void random_rotation(rng *g, double R[9]) {
    double u1 = rng_unif(g), a = 2.0 * PI * rng_unif(g), b = 2.0 * PI * rng_unif(g);
    double x = sqrt(1.0 - u1) * sin(a), y = sqrt(1.0 - u1) * cos(a), z = sqrt(u1) * sin(b),
           w = sqrt(u1) * cos(b);
    double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 9; ++i) R[i] = M[i];
}

static void cross3(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* A rotation whose third column is the unit vector a, turned at random about it. */
static void rotation_with_axis(rng *g, const double a[3], double R[9]) {
    double t[3], e1[3], e2[3], s = 2.0 * PI * rng_unif(g);
    rng_unit3(g, t);
    cross3(a, t, e1);
    double l = norm3(e1);
    for (int i = 0; i < 3; ++i) e1[i] /= l;
    cross3(a, e1, e2);
    for (int i = 0; i < 3; ++i) {
        double u = cos(s) * e1[i] + sin(s) * e2[i], v = -sin(s) * e1[i] + cos(s) * e2[i];
        R[3 * i] = u, R[3 * i + 1] = v, R[3 * i + 2] = a[i];
    }
}

/* The world point of the body-frame point l of solid S. */
static void to_world(const solid *S, const double l[3], double x[3]) {
    for (int i = 0; i < 3; ++i)
        x[i] = S->m[i] + S->R[3 * i] * l[0] + S->R[3 * i + 1] * l[1] + S->R[3 * i + 2] * l[2];
}

/* The body-frame coordinates of the world point x. */
static void to_body(const solid *S, const double x[3], double l[3]) {
    double d[3] = {x[0] - S->m[0], x[1] - S->m[1], x[2] - S->m[2]};
    for (int j = 0; j < 3; ++j) l[j] = S->R[j] * d[0] + S->R[3 + j] * d[1] + S->R[6 + j] * d[2];
}

/* Solid S as the overlap check places it. */
static placed to_placed(const solid *S) {
    placed p = {.kind = S->kind, .r = S->kind == LD_SHAPE_BOX ? 0.0 : S->r};
    for (int i = 0; i < 9; ++i) p.R[i] = S->R[i];
    for (int i = 0; i < 3; ++i) {
        double a = S->R[3 * i + 2], hl = S->kind == LD_SHAPE_BOX ? 0.0 : S->hl;
        p.c[i] = S->m[i] - hl * a, p.c1[i] = S->m[i] + hl * a, p.h[i] = S->h[i];
    }
    return p;
}

/* A solid of the kind at a random position near the origin and a random orientation; sizes
 * from flat discs (hl ≪ r) to long rods (hl ≫ r). */
static solid random_solid(rng *g, ld_shape_kind kind) {
    solid S = {.kind = kind, .r = rng_range(g, 0.1, 1.0), .hl = rng_range(g, 0.02, 1.5)};
    if (kind == LD_SHAPE_SPHERE) S.hl = 0.0;
    for (int i = 0; i < 3; ++i) S.m[i] = rng_range(g, -1.0, 1.0), S.h[i] = rng_range(g, 0.1, 1.0);
    random_rotation(g, S.R);
    return S;
}

/* The solid's reach from its middle, an upper bound. */
static double extent(const solid *S) {
    return S->kind == LD_SHAPE_BOX ? norm3(S->h) : S->r + S->hl;
}

/* ------------------------------------------------------------------ the surfaces */

/* The surface patches of each kind: a box's six faces; a sphere's six, the faces of a cube
 * pushed out onto it (no parameter singular, unlike latitude and longitude); a cylinder's side
 * and its two end faces; a capsule's side and five such patches on each hemisphere. */
static int npatches(ld_shape_kind kind) {
    return kind == LD_SHAPE_CAPSULE ? 11 : kind == LD_SHAPE_CYLINDER ? 3 : 6;
}

/* The point (s, t) of face (i, sg) of the cube [−1, 1]³ pushed out onto the sphere of radius r;
 * hemi = ±1: of the side faces (i ≠ 2) only their half on the side hemi of z = 0. */
static void cube_sphere(double r, int i, double sg, int hemi, double s, double t, double l[3]) {
    double q[3];
    int j = (i + 1) % 3, jj = (i + 2) % 3;
    q[i] = sg, q[j] = 2.0 * s - 1.0, q[jj] = 2.0 * t - 1.0;
    if (hemi && i != 2) q[2] = hemi * (j == 2 ? s : t);
    double n = norm3(q);
    for (int k = 0; k < 3; ++k) l[k] = r * q[k] / n;
}

/* The body-frame point (s, t) ∈ [0, 1]² of patch k of solid S's surface. */
static void surface_body(const solid *S, int k, double s, double t, double l[3]) {
    double r = S->r, hl = S->hl;
    if (S->kind == LD_SHAPE_BOX) { /* face k: axis k / 2, side ± */
        int i = k / 2, j = (i + 1) % 3, jj = (i + 2) % 3;
        l[i] = (k % 2 ? -1.0 : 1.0) * S->h[i];
        l[j] = S->h[j] * (2.0 * s - 1.0), l[jj] = S->h[jj] * (2.0 * t - 1.0);
    } else if (S->kind == LD_SHAPE_SPHERE) {
        cube_sphere(r, k / 2, k % 2 ? -1.0 : 1.0, 0, s, t, l);
    } else if (k == 0) { /* a cylinder's or capsule's side */
        double phi = 2.0 * PI * t;
        l[0] = r * cos(phi), l[1] = r * sin(phi), l[2] = hl * (2.0 * s - 1.0);
    } else if (S->kind == LD_SHAPE_CAPSULE) { /* the hemispheres: their pole face, then sides */
        int hemi = k <= 5 ? 1 : -1, f = (k - 1) % 5;
        if (f == 0)
            cube_sphere(r, 2, hemi, hemi, s, t, l);
        else
            cube_sphere(r, (f - 1) / 2, (f - 1) % 2 ? -1.0 : 1.0, hemi, s, t, l);
        l[2] += hemi * hl;
    } else { /* a cylinder's end faces: the square about them, pulled in onto the rim */
        double x = r * (2.0 * s - 1.0), y = r * (2.0 * t - 1.0), rho = hypot(x, y);
        double f = rho > r ? r / rho : 1.0;
        l[0] = f * x, l[1] = f * y, l[2] = k == 1 ? hl : -hl;
    }
}

typedef double (*surface_fn)(const double x[3], const void *ctx);

static double patch_value(const solid *S, int k, double s, double t, surface_fn f,
                          const void *ctx) {
    double l[3], x[3];
    surface_body(S, k, s, t, l);
    to_world(S, l, x);
    return f(x, ctx);
}

/* The minimum of f over patch k: the best node of the grid, then compass search from it (t
 * not clamped on the side of a cylinder or capsule, the angle 2π t turning on through the
 * seam). */
static double patch_min(const solid *S, int k, surface_fn f, const void *ctx) {
    double bs = 0.0, bt = 0.0, bv = INFINITY;
    int periodic = k == 0 && (S->kind == LD_SHAPE_CYLINDER || S->kind == LD_SHAPE_CAPSULE);
    for (int i = 0; i <= GRID; ++i)
        for (int j = 0; j <= GRID; ++j) {
            double v = patch_value(S, k, (double)i / GRID, (double)j / GRID, f, ctx);
            if (v < bv) bv = v, bs = (double)i / GRID, bt = (double)j / GRID;
        }
    static const double dir[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (double h = 1.0 / GRID; h > STEP_MIN;) {
        int moved = 0;
        for (int d = 0; d < 4; ++d) {
            double s = fmin(1.0, fmax(0.0, bs + h * dir[d][0]));
            double t = bt + h * dir[d][1];
            if (!periodic) t = fmin(1.0, fmax(0.0, t));
            double v = patch_value(S, k, s, t, f, ctx);
            if (v < bv) bv = v, bs = s, bt = t, moved = 1;
        }
        if (!moved) h *= 0.5;
    }
    return bv;
}

/* The minimum of f over the surface of S. */
static double surface_min(const solid *S, surface_fn f, const void *ctx) {
    double v = INFINITY;
    for (int k = 0; k < npatches(S->kind); ++k) v = fmin(v, patch_min(S, k, f, ctx));
    return v;
}

/* ------------------------------------------------------------------ the reference gaps */

typedef struct plane {
    double n[3], d;
} plane;

static double plane_height(const double x[3], const void *ctx) {
    const plane *P = ctx;
    return P->n[0] * x[0] + P->n[1] * x[1] + P->n[2] * x[2] - P->d;
}

static double distance_to(const double x[3], const void *ctx) {
    const double *p = ctx;
    double d[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
    return norm3(d);
}

/* Whether the point x is in the solid S (its definition in its body frame). */
static int inside(const solid *S, const double x[3]) {
    double l[3];
    to_body(S, x, l);
    double rho2 = l[0] * l[0] + l[1] * l[1], z = fabs(l[2]);
    switch (S->kind) {
    case LD_SHAPE_BOX:
        return fabs(l[0]) <= S->h[0] && fabs(l[1]) <= S->h[1] && z <= S->h[2];
    case LD_SHAPE_CYLINDER:
        return z <= S->hl && rho2 <= S->r * S->r;
    case LD_SHAPE_CAPSULE:
        z = fmax(0.0, z - S->hl);
        return rho2 + z * z <= S->r * S->r;
    default:
        return rho2 + z * z <= S->r * S->r;
    }
}

/* The signed distance of the point p from the solid X (< 0: inside). */
static double signed_distance(const solid *X, const double p[3]) {
    double d = surface_min(X, distance_to, p);
    return inside(X, p) ? -d : d;
}

/* The point u ∈ [0, 1] of a sphere's or capsule's segment (a sphere's: its centre). */
static void core_point(const solid *A, double u, double p[3]) {
    for (int i = 0; i < 3; ++i) p[i] = A->m[i] + (2.0 * u - 1.0) * A->hl * A->R[3 * i + 2];
}

static double core_distance(const solid *A, const solid *X, double u) {
    double p[3];
    core_point(A, u, p);
    return signed_distance(X, p);
}

/* The reference gap of the sphere or capsule A against the solid X: the least signed distance
 * of A's segment from X (nodes u = i/16, then golden section to 1e-12 about the best, the
 * function being convex in u) less A's radius. */
static double round_gap(const solid *A, const solid *X) {
    if (A->kind == LD_SHAPE_SPHERE) return core_distance(A, X, 0.5) - A->r;
    double bu = 0.0, bv = INFINITY;
    for (int i = 0; i <= 16; ++i) {
        double v = core_distance(A, X, i / 16.0);
        if (v < bv) bv = v, bu = i / 16.0;
    }
    double lo = fmax(0.0, bu - 1.0 / 16), hi = fmin(1.0, bu + 1.0 / 16), g = 0.5 * (sqrt(5) - 1);
    double u1 = hi - g * (hi - lo), u2 = lo + g * (hi - lo);
    double v1 = core_distance(A, X, u1), v2 = core_distance(A, X, u2);
    while (hi - lo > 1e-12) {
        if (v1 < v2)
            hi = u2, u2 = u1, v2 = v1, u1 = hi - g * (hi - lo), v1 = core_distance(A, X, u1);
        else
            lo = u1, u1 = u2, v1 = v2, u2 = lo + g * (hi - lo), v2 = core_distance(A, X, u2);
    }
    return fmin(bv, fmin(v1, v2)) - A->r;
}

/* ------------------------------------------------------------------ the plane */

/* How a table entry turns the shape against the plane's normal n. */
enum turn { TURN_RANDOM, TURN_PARALLEL, TURN_PERPENDICULAR };

typedef struct plane_case {
    const char *name;
    ld_shape_kind kind;
    enum turn turn;
} plane_case;

static const plane_case plane_cases[] = {
    {"sphere", LD_SHAPE_SPHERE, TURN_RANDOM},
    {"capsule", LD_SHAPE_CAPSULE, TURN_RANDOM},
    {"capsule, axis along n", LD_SHAPE_CAPSULE, TURN_PARALLEL},
    {"capsule, axis across n", LD_SHAPE_CAPSULE, TURN_PERPENDICULAR},
    {"cylinder", LD_SHAPE_CYLINDER, TURN_RANDOM},
    {"cylinder, axis along n (on an end face)", LD_SHAPE_CYLINDER, TURN_PARALLEL},
    {"cylinder, axis across n (on its side)", LD_SHAPE_CYLINDER, TURN_PERPENDICULAR},
    {"box", LD_SHAPE_BOX, TURN_RANDOM},
    {"box, face down", LD_SHAPE_BOX, TURN_PARALLEL},
    {"box, on an edge or face", LD_SHAPE_BOX, TURN_PERPENDICULAR},
};

/* Draw j of entry c: the shape, and the plane below, through or above its middle. */
static solid plane_draw(rng *g, const plane_case *c, int j, plane *P) {
    solid S = random_solid(g, c->kind);
    rng_unit3(g, P->n);
    if (c->turn == TURN_PARALLEL) {
        double a[3] = {P->n[0], P->n[1], P->n[2]};
        if (j % 2)
            for (int i = 0; i < 3; ++i) a[i] = -a[i];
        rotation_with_axis(g, a, S.R);
    } else if (c->turn == TURN_PERPENDICULAR) {
        double t[3], a[3];
        rng_unit3(g, t);
        cross3(P->n, t, a);
        double l = norm3(a);
        for (int i = 0; i < 3; ++i) a[i] /= l;
        rotation_with_axis(g, a, S.R);
    }
    P->d = P->n[0] * S.m[0] + P->n[1] * S.m[1] + P->n[2] * S.m[2] -
           rng_range(g, -0.2, 1.3) * extent(&S);
    return S;
}

static void test_plane(void **state) {
    (void)state;
    rng g = rng_seed(SEED);
    for (size_t c = 0; c < sizeof plane_cases / sizeof *plane_cases; ++c) {
        double most = 0.0, ratio = 0.0;
        int below = 0, above = 0;
        for (int j = 0; j < DRAWS; ++j) {
            plane P;
            solid S = plane_draw(&g, &plane_cases[c], j, &P);
            placed p = to_placed(&S);
            double gap = overlap_plane_gap(&p, P.n, P.d), ref = surface_min(&S, plane_height, &P);
            double tol = TOL;
            most = fmax(most, fabs(gap - ref)), ratio = fmax(ratio, fabs(gap - ref) / tol);
            if (!(fabs(gap - ref) <= tol))
                fail_msg("plane, %s, draw %d: gap %.17g, reference %.17g", plane_cases[c].name, j,
                         gap, ref);
            below += ref < 0.0;
            above += ref > 0.0;
        }
        printf("plane, %-40s max |gap - reference| %.2e, at most %.2g of its tolerance, %d "
               "penetrating, %d separated\n",
               plane_cases[c].name, most, ratio, below, above);
        assert_true(below > 0 && above > 0);
    }
}

/* ------------------------------------------------------------------ pairs */

/* Where a table entry puts the second solid: anywhere near the first, or (the sphere against
 * a cylinder) its centre in a region of the cylinder's frame, or (capsules) where the formula's
 * nearest point is the nearest one. */
enum where {
    NEAR,
    CAP_FACE,     /* beyond an end face, within the radius: nearest point on the face */
    RIM,          /* beyond an end face and the radius: nearest point on the rim */
    SIDE,         /* beside the side between the end faces */
    INSIDE_CAP,   /* inside, nearer an end face than the side */
    INSIDE_SIDE,  /* inside, nearer the side than an end face */
    ALONG_FACE,   /* a capsule above a box's face, parallel to it and within it */
    ALONG_NORMAL, /* a capsule standing on a box's face, along its normal, lower end outside */
    CROSSED,      /* two capsules at right angles, their nearest points inside both segments */
    PARALLEL,     /* two parallel capsules, the middle of the second beside the first */
};

typedef struct pair_case {
    const char *name;
    ld_shape_kind ka, kb; /* the reference measures a (a sphere or capsule) against b */
    enum where where;
} pair_case;

static const pair_case pair_cases[] = {
    {"sphere-sphere", LD_SHAPE_SPHERE, LD_SHAPE_SPHERE, NEAR},
    {"sphere-capsule", LD_SHAPE_SPHERE, LD_SHAPE_CAPSULE, NEAR},
    {"sphere-box", LD_SHAPE_SPHERE, LD_SHAPE_BOX, NEAR},
    {"sphere-cylinder", LD_SHAPE_SPHERE, LD_SHAPE_CYLINDER, NEAR},
    {"sphere-cylinder, nearest on an end face", LD_SHAPE_SPHERE, LD_SHAPE_CYLINDER, CAP_FACE},
    {"sphere-cylinder, nearest on the rim", LD_SHAPE_SPHERE, LD_SHAPE_CYLINDER, RIM},
    {"sphere-cylinder, nearest on the side", LD_SHAPE_SPHERE, LD_SHAPE_CYLINDER, SIDE},
    {"sphere-cylinder, centre inside by an end", LD_SHAPE_SPHERE, LD_SHAPE_CYLINDER, INSIDE_CAP},
    {"sphere-cylinder, centre inside by the side", LD_SHAPE_SPHERE, LD_SHAPE_CYLINDER, INSIDE_SIDE},
    {"capsule-capsule, crossed", LD_SHAPE_CAPSULE, LD_SHAPE_CAPSULE, CROSSED},
    {"capsule-capsule, parallel", LD_SHAPE_CAPSULE, LD_SHAPE_CAPSULE, PARALLEL},
    {"capsule-capsule, anywhere", LD_SHAPE_CAPSULE, LD_SHAPE_CAPSULE, NEAR},
    {"capsule-box, along a face", LD_SHAPE_CAPSULE, LD_SHAPE_BOX, ALONG_FACE},
    {"capsule-box, along a face's normal", LD_SHAPE_CAPSULE, LD_SHAPE_BOX, ALONG_NORMAL},
    {"capsule-box, anywhere", LD_SHAPE_CAPSULE, LD_SHAPE_BOX, NEAR},
};

/* The point of a cylinder's (r, hl) frame in region w: ρ, z (z > 0, flipped at random). */
static void cylinder_region(rng *g, enum where w, double r, double hl, double l[3]) {
    double rho = 0.0, z = 0.0, e = rng_range(g, 0.001, 0.9) * fmin(r, hl),
           phi = 2 * PI * rng_unif(g);
    switch (w) {
    case CAP_FACE:
        rho = rng_range(g, 0.0, 0.95) * r, z = hl + rng_range(g, 0.01, 1.0);
        break;
    case RIM:
        rho = r + rng_range(g, 0.01, 1.0), z = hl + rng_range(g, 0.01, 1.0);
        break;
    case SIDE:
        rho = r + rng_range(g, 0.01, 1.0), z = rng_range(g, 0.0, 0.95) * hl;
        break;
    case INSIDE_CAP:
        z = hl - e, rho = rng_range(g, 0.0, fmax(0.0, r - 1.05 * e));
        break;
    default:
        rho = r - e, z = rng_range(g, 0.0, fmax(0.0, hl - 1.05 * e));
        break;
    }
    l[0] = rho * cos(phi), l[1] = rho * sin(phi), l[2] = rng_unif(g) < 0.5 ? z : -z;
}

/* Put a's middle at the body-frame point l of b. */
static void place_at(solid *a, const solid *b, const double l[3]) {
    to_world(b, l, a->m);
}

/* Turn a so that its axis is b's body axis i (a permutation keeps a right-handed frame). */
static void align_axis(solid *a, const solid *b, int i) {
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) a->R[3 * r + k] = b->R[3 * r + (i + 1 + k) % 3];
}

/* A capsule a on box b's top face (+z): along its x edge (ALONG_FACE) within the face, or
 * along z (ALONG_NORMAL) with its lower end 0.001 to 1.2 above the face's plane, within the face
 * or beyond its edges. */
static void capsule_on_box(rng *g, enum where w, solid *a, const solid *b) {
    double l[3];
    if (w == ALONG_FACE) {
        a->hl = rng_range(g, 0.05, 0.95) * b->h[0];
        l[0] = rng_range(g, -1.0, 1.0) * (b->h[0] - a->hl);
        l[1] = rng_range(g, -0.95, 0.95) * b->h[1];
        l[2] = b->h[2] + a->r + rng_range(g, -0.9 * a->r, 1.0);
        align_axis(a, b, 0);
    } else {
        l[0] = rng_range(g, -1.5, 1.5) * b->h[0], l[1] = rng_range(g, -1.5, 1.5) * b->h[1];
        l[2] = b->h[2] + rng_range(g, 1e-3, 1.2) + a->hl; /* the lower end outside */
        align_axis(a, b, 2);
    }
    place_at(a, b, l);
}

/* Capsule b crossed with capsule a at right angles (CROSSED) or parallel to it (PARALLEL) at
 * a distance D from 0.1 (ra + rb) to 2 (ra + rb) along a's second axis (gaps −0.9 to 1 times
 * ra + rb), b's axis along a's first (CROSSED). */
static void capsule_by_capsule(rng *g, enum where w, const solid *a, solid *b) {
    double D = rng_range(g, -0.9, 1.0) * (a->r + b->r) + a->r + b->r, l[3];
    l[0] = rng_range(g, -0.95, 0.95) * (w == CROSSED ? b->hl : 0.0);
    l[1] = D, l[2] = rng_range(g, -0.95, 0.95) * a->hl;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
            b->R[3 * r + k] = w == CROSSED ? a->R[3 * r + (k + 1) % 3] : a->R[3 * r + k];
    to_world(a, l, b->m);
}

/* Draw j of entry c: a (sphere or capsule) and b. */
static void pair_draw(rng *g, const pair_case *c, solid *a, solid *b) {
    *a = random_solid(g, c->ka);
    *b = random_solid(g, c->kb);
    double l[3];
    switch (c->where) {
    case NEAR:
        for (int i = 0; i < 3; ++i) l[i] = rng_range(g, -1.0, 1.0) * extent(b) * 1.3;
        place_at(a, b, l);
        break;
    case ALONG_FACE:
    case ALONG_NORMAL:
        capsule_on_box(g, c->where, a, b);
        break;
    case CROSSED:
    case PARALLEL:
        capsule_by_capsule(g, c->where, a, b);
        break;
    default:
        cylinder_region(g, c->where, b->r, b->hl, l), place_at(a, b, l);
        break;
    }
}

typedef struct pair_tally {
    double worst; /* the largest |gap − reference| */
    int below, above;
} pair_tally;

/* Both orders of the pair (a, b) against the reference, into the tally. */
static void pair_check(const pair_case *c, int j, const solid *a, const solid *b, pair_tally *t) {
    placed pa = to_placed(a), pb = to_placed(b);
    double ref = round_gap(a, b), gap[2] = {overlap_pair_gap(&pa, &pb), overlap_pair_gap(&pb, &pa)};
    for (int o = 0; o < 2; ++o) {
        double e = gap[o] - ref;
        t->worst = fmax(t->worst, fabs(e));
        if (!(fabs(e) <= TOL))
            fail_msg("%s, draw %d, order %d: gap %.17g, reference %.17g", c->name, j, o, gap[o],
                     ref);
    }
    t->below += ref < 0.0;
    t->above += ref > 0.0;
}

static void test_pairs(void **state) {
    (void)state;
    rng g = rng_seed(SEED + 1);
    for (size_t c = 0; c < sizeof pair_cases / sizeof *pair_cases; ++c) {
        pair_tally t = {0};
        for (int j = 0; j < DRAWS; ++j) {
            solid a, b;
            pair_draw(&g, &pair_cases[c], &a, &b);
            pair_check(&pair_cases[c], j, &a, &b, &t);
        }
        printf("%-44s max |gap - reference| %.2e (tolerance %.0e), %d penetrating, %d "
               "separated\n",
               pair_cases[c].name, t.worst, TOL, t.below, t.above);
        assert_true(t.below > 0 && (t.above > 0 || pair_cases[c].where == INSIDE_CAP ||
                                    pair_cases[c].where == INSIDE_SIDE));
    }
}

/* The pairs the check does not measure give NAN, in both orders. */
static void test_unmeasured(void **state) {
    (void)state;
    static const ld_shape_kind pairs[][2] = {
        {LD_SHAPE_BOX, LD_SHAPE_BOX},
        {LD_SHAPE_CYLINDER, LD_SHAPE_CAPSULE},
        {LD_SHAPE_CYLINDER, LD_SHAPE_BOX},
        {LD_SHAPE_CYLINDER, LD_SHAPE_CYLINDER},
    };
    rng g = rng_seed(SEED + 2);
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; ++k)
        for (int j = 0; j < DRAWS; ++j) {
            solid a = random_solid(&g, pairs[k][0]), b = random_solid(&g, pairs[k][1]);
            placed pa = to_placed(&a), pb = to_placed(&b);
            assert_true(isnan(overlap_pair_gap(&pa, &pb)));
            assert_true(isnan(overlap_pair_gap(&pb, &pa)));
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_unmeasured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
