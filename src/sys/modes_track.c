/*
 * Following modes across a parameter sweep (linearize.h): the modal assurance criterion on
 * the complex shapes and a greedy one-to-one matching by it (Allemang & Brown 1982).
 */
#include <math.h>
#include <stdlib.h>

#include "liedyn/linearize.h"
#include "liedyn/liedyn.h"

/* |aᴴ b|² / (|a|² |b|²) of mode i of a and mode j of b, b conjugated when conj. */
static double mac(const ld_modes *a, int i, const ld_modes *b, int j, int conj) {
    size_t k = (size_t)a->k;
    const double *ar = a->phi + (size_t)i * k, *ai = a->phi_im + (size_t)i * k;
    const double *br = b->phi + (size_t)j * k, *bi = b->phi_im + (size_t)j * k;
    double cr = 0.0, ci = 0.0, na = 0.0, nb = 0.0, sg = conj ? -1.0 : 1.0;
    for (size_t l = 0; l < k; ++l) { /* conj(a) · b */
        cr += ar[l] * br[l] + sg * ai[l] * bi[l];
        ci += sg * ar[l] * bi[l] - ai[l] * br[l];
        na += ar[l] * ar[l] + ai[l] * ai[l];
        nb += br[l] * br[l] + bi[l] * bi[l];
    }
    if (!(na > 0.0) || !(nb > 0.0)) return NAN;
    return (cr * cr + ci * ci) / (na * nb);
}

double ld_modes_mac(const ld_modes *a, int i, const ld_modes *b, int j) {
    if (!a || !b || a->k != b->k || i < 0 || j < 0 || i >= a->count || j >= b->count) return NAN;
    return mac(a, i, b, j, 0);
}

/* The score of continuing mode i of a as mode j of b: the MAC up to conjugation (a real
 * motion is a conjugate pair, and which of the two is held flips where a frequency seen in a
 * turning frame passes through 0), less a tenth of the frequencies' distance relative to the
 * largest frequency of b — which decides between shapes that are alike (the two circular
 * whirls of a symmetric rotor). */
static double score(const ld_modes *a, int i, const ld_modes *b, int j, double fmax_b) {
    double m = fmax(mac(a, i, b, j, 0), mac(a, i, b, j, 1));
    if (isnan(m)) return -1.0;
    double d = fmax_b > 0.0 ? fabs(a->hz[i] - b->hz[j]) / fmax_b : 0.0;
    return m - 0.1 * fmin(d, 1.0);
}

int ld_modes_track(const ld_modes *prev, const ld_modes *cur, int *order, double *macs) {
    if (!prev || !cur || !order || prev->k != cur->k) return LD_EINVAL;
    size_t np = (size_t)prev->count, nc = (size_t)cur->count;
    double *M = malloc((np * nc + 1) * sizeof *M), fb = 0.0;
    char *used = calloc(nc + np + 1, 1);
    if (!M || !used) {
        free(M);
        free(used);
        return LD_ENOMEM;
    }
    char *done = used + nc;
    for (size_t j = 0; j < nc; ++j) fb = fmax(fb, cur->hz[j]);
    for (size_t i = 0; i < np; ++i) {
        order[i] = -1;
        if (macs) macs[i] = NAN;
        for (size_t j = 0; j < nc; ++j) M[i * nc + j] = score(prev, (int)i, cur, (int)j, fb);
    }
    for (size_t pass = 0; pass < np && pass < nc; ++pass) { /* the best pair left, each time */
        double best = -2.0;
        size_t bi = 0, bj = 0;
        for (size_t i = 0; i < np; ++i)
            for (size_t j = 0; !done[i] && j < nc; ++j)
                if (!used[j] && M[i * nc + j] > best) best = M[i * nc + j], bi = i, bj = j;
        if (best < -1.5) break;
        done[bi] = 1, used[bj] = 1;
        order[bi] = (int)bj;
        if (macs)
            macs[bi] =
                fmax(mac(prev, (int)bi, cur, (int)bj, 0), mac(prev, (int)bi, cur, (int)bj, 1));
    }
    free(M);
    free(used);
    return LD_OK;
}
