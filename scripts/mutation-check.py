#!/usr/bin/env python3
"""Mutation check of the tests of the Lie-group core, the RK engine, the attitude methods, the
elements and the integrators: apply one small deliberate bug at a time to a scratch copy of the
tree, rebuild, run the unit tests, and require that they fail.

Usage: scripts/mutation-check.py [--check] [BUILD_TYPE [PATH_SUBSTRING]]
  --check         only verify that every mutant's search text occurs exactly once in its file
                  (no build, well under a second; CTest runs it as mutation_check)
  BUILD_TYPE      CMake build type of the scratch tree (default Release)
  PATH_SUBSTRING  run only the mutants of the files whose path contains it

Before anything is built every search text is verified: a text that occurs zero or several
times in its file (the code was rewritten since the mutant was written) stops the run with
one line per such mutant and exit status 2. The unmutated scratch tree is then built and
tested once: its tests must pass, or every mutant would count as killed. Then one CSV line per
mutant: killed (a test failed, as it must), SURVIVED (every test passed: a test is missing),
or NOT-BUILT (the mutated tree does not compile: the mutant tests nothing and needs fixing).
Exit status 0 only if every mutant was killed."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

MUTANTS = [
    ("src/lie/fn.c", "1.66666666666666657e-01", "1.66666666666683e-01", "series coefficient of (x-sin x)/x^3 off by 1e-13"),
    ("src/lie/fn.c", "f->b = 0.5 * sh * sh;", "f->b = 0.5 * sh * sh * (1.0 + 1e-13);", "(1-cos x)/x^2 off by 1e-13"),
    ("src/lie/fn.h", "#define LD_FN_SERIES_C    3.0", "#define LD_FN_SERIES_C    0.5", "series of (x-sin x)/x^3 switched off too early"),
    ("src/lie/fn.c", "return f->d / (2.0 * f->b);", "return f->d / (2.0 * f->b) * (1.0 + 1e-12);", "T^-1 coefficient off by 1e-12"),
    ("src/lie/quat.c", "q[1 + j] = (R[3 * j + i] + R[3 * i + j]) * f;", "q[1 + j] = (R[3 * j + i] - R[3 * i + j]) * f;", "Spurrier off-diagonal sum replaced by difference"),
    ("src/lie/quat.c", "if (w < 0.0) f = -f;", "if (w < 0.0) f = +f;", "rotation vector of -q not flipped"),
    ("src/lie/quat.c", "double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];", "double z = a[0] * b[3] - a[1] * b[2] + a[2] * b[1] + a[3] * b[0];", "quaternion product: wrong-handed z"),
    ("src/lie/so3.c", "ld_m3_rodrigues(T, psi, -f.b, f.c);", "ld_m3_rodrigues(T, psi, f.b, f.c);", "T(psi) transposed (left instead of right Jacobian)"),
    ("src/lie/so3.c", "Omega[0] = q[0] < 0.0 ? 2.0 * LD_PI : 0.0 * q[0];", "Omega[0] = 0.0 * q[0];", "log_S3(-1) returns 0"),
    ("src/lie/groups.c", "f->c * (W[i] * U[j] + U[i] * W[j])", "f->c * (W[i] * U[j] - U[i] * W[j])", "C1: sign in the symmetric term"),
    ("src/lie/groups.c", "C[4 * i] += diag;", "C[4 * i] += diag * (1.0 + 1e-9);", "C1: diagonal off by 1e-9"),
    ("src/lie/groups.c", "s[i] = wu * f->d * W[i] - f->b * U[i];", "s[i] = wu * f->d * W[i] * (1.0 + 1e-9) - f->b * U[i];", "C1: d-term off by 1e-9"),
    ("src/lie/groups.c", "ew = wu * f->e,", "ew = wu * f->e * (1.0 + 1e-9),", "C1: e-term off by 1e-9"),
    ("src/lie/mat3.h", "if (n2 > 1e-290 && n2 < 1e290) return sqrt(n2);", "return sqrt(n2);", "no rescaling of tiny/huge vectors"),
    ("src/lie/fn.c", "if (x < LD_FN_SERIES_D) return horner(k_d, terms(n_d, x), x * x);", "if (x < LD_FN_SERIES_D) return horner(k_d, terms(n_d, x) - 1, x * x);", "series of d truncated one term early"),
    ("src/lie/groups.c", "ld_so3_tangent_inv_t(Tit, Omega);", "ld_so3_tangent_inv(Tit, Omega);", "semidirect log: T^-1 instead of T^-T"),
    ("src/lie/groups.c", "for (int i = 0; i < 3; ++i) g[4 + i] = a[4 + i] + t[i];", "for (int i = 0; i < 3; ++i) g[4 + i] = a[4 + i] + b[4 + i];", "S3 x| R3 composed as a direct product"),
    # the RK engine and the attitude methods
    ("src/ode/attitude.c", "double a2 = ld_v3_dot(a, a), d = 1.0 + a2;", "double a2 = ld_v3_dot(a, a), d = 1.0 + 2.0 * a2;", "mpq: Cayley denominator as printed in eq. (22)"),
    ("src/ode/attitude.c", "double sg = r->pb->frame == LD_FRAME_BODY ? 1.0 : -1.0;", "double sg = r->pb->frame == LD_FRAME_BODY ? -1.0 : 1.0;", "tangential-vector ODE: frames swapped"),
    ("src/ode/attitude.c", "ld_so3_tangent_inv(Ti, u);", "ld_so3_tangent_inv_t(Ti, u);", "RKMK: left instead of right dexp^-1"),
    ("src/ode/attitude.c", "t[i] / 240.0;", "t[i] / 120.0;", "magnus6: coefficient 1/240 off by 2"),
    ("src/ode/attitude.c", "comb(x, -6025.0 / 4116.0, B0, 2875.0 / 343.0, B2);", "comb(x, -6025.0 / 4116.0, B0, 2857.0 / 343.0, B2);", "magnus8: transposed digits in a Q5 coefficient"),
    ("src/ode/attitude.c", "int left = (pb->frame == LD_FRAME_SPATIAL) != (r->method == LD_ATT_MPQ_EQ25);", "int left = (pb->frame == LD_FRAME_BODY) != (r->method == LD_ATT_MPQ_EQ25);", "midpoint rules: update on the wrong side"),
    ("src/ode/att_cases.c", "d[2] = 15 * t * t - 4;", "d[2] = 15 * t * t - 4.0001;", "ex3: derivative of the rotation vector off by 1e-4"),
    ("src/ode/erk.c", "double pow_ = 1.0 / (tb->order_embedded + 1);", "double pow_ = 1.0 / (tb->order_embedded + 2);", "initial step: wrong exponent of rtol"),
    ("src/ode/controller.c", "double tmp = 1.25 * pow(err, 1.0 / (c->mu + 1));", "double tmp = 1.25 * pow(err, 1.0 / (c->mu + 2));", "MATLAB controller: wrong exponent"),
    ("src/ode/erk.c", "    int l = e->s - 1;\n", "    int l = e->s - 2;\n", "FSAL: wrong stage reused"),
    ("src/ode/erk.c", "double w = fmax(atol, rtol * fmax(s0[i], s1[i]));", "double w = fmax(atol, rtol * fmax(s0[i], 0.0 * s1[i]));", "error norm: relative scale from the old state only"),
    ("src/ode/erk.c", "double sc = rtol * (ay > ax ? ay : ax);", "double sc = rtol * (ay > ax ? ax : ax);", "error norm of the fused plain path: relative scale from the old state only"),
    ("src/ode/gyro.c", "w[k] = a[k] + s * (b[k] - a[k]);", "w[k] = a[k] + s * (b[k] + a[k]);", "gyro: wrong interpolation"),
    ("src/ode/gyro.c", "        ++lineno;\n", "", "gyro: line numbers not counted"),
    ("src/elements/joints.c", "!point ? 0.0 : rb->semi ? o->R[3 * i + j] : (i == j ? 1.0 : 0.0);", "!point ? 0.0 : rb->semi ? (i == j ? 1.0 : 0.0) : o->R[3 * i + j];", "joint gradient: direct and semidirect translation blocks swapped"),
    ("src/elements/joints.c", "for (int i = 0; i < 3; ++i) c2[i] += c1[i];", "for (int i = 0; i < 3; ++i) c2[i] -= c1[i];", "joint acceleration term: sign of R(Omega x U)"),
    # Cosserat rods
    ("src/elements/rod.c", "        ld_m3_mulv(sg->W + 12 * i + 9, sg->Rb, sg->Ws + 12 * i + 9);\n", "", "rod: node b's translation columns not converted in the direct products"),
    ("src/elements/rod.c", "sg->A[6 * (3 + i) + j] = -h;", "sg->A[6 * (3 + i) + j] = h;", "rod: Ad of the inverse with the wrong sign of its coupling block"),
    ("src/elements/rod.c", "rod->damping[i] * rate / ds;", "rod->damping[i] * rate;", "rod: viscous stress without 1/ds"),
    ("src/elements/rod.c", "K[12 * (6 * n + 3 + i) + 6 * n + j] -= RH[3 * i + j];", "K[12 * (6 * n + 3 + i) + 6 * n + j] += RH[3 * i + j];", "rod stiffness: rotating force term of the direct products with the wrong sign"),
    ("src/elements/rod.c", "if (g[0] < 0.0) /* the shorter of the two rotations, as SE(3)'s log */", "if (g[0] < -2.0) /* never */", "rod: relative quaternion not signed to the shorter rotation"),
    ("src/elements/rod.c", "b->mass = rod->rho_a * w;", "b->mass = rod->rho_a * ds;", "rod: end nodes with a full segment's mass"),
    # pinned nodes
    ("src/elements/body_state.c", "        ld_m3_mul(R, R0, E);\n", "        ld_m3_mul(R, E, R0);\n", "hinge: the turn about the axis applied on the wrong side"),
    ("src/compile/elem_impl.h", "for (int r = 0; r < 3; ++r) P[r] = b->pin_axis[r];", "for (int r = 0; r < 3; ++r) P[r] = -b->pin_axis[r];", "hinge: the embedding of its angle against the pose's axis"),
    ("src/compile/elem_eval.c", "            xl[e->off[a] + r] = acc;", "            xl[e->off[a] + r] = r < 3 ? acc : 1e-3;", "pinned node: a translational velocity gathered"),
    ("src/sys/genalpha.c", "g.gamma = 0.5 + g.af - g.am;", "g.gamma = 0.5 + g.af + g.am;", "generalized-alpha: gamma off the second-order condition"),
    ("src/sys/integ_newton.c", "for (int i = 0; i < m; ++i) it->dx[k + i] /= bh2;", "for (int i = 0; i < m; ++i) it->dx[k + i] *= bh2;", "preconditioning: multipliers not scaled back"),
    ("src/sys/hht.c", "(1.0 - a) * (1.0 - a), 0.5 - a};", "(1.0 - a) * (1.0 - a), 0.5 + a};", "HHT: gamma of the wrong sign of alpha"),
    ("src/sys/hht.c", "it->r[i] -= c * (mv[i] + fo[i]);", "it->r[i] -= c * (mv[i] + 0.0 * fo[i]);", "HHT: force history of t_n dropped"),
    ("src/sys/nodes.c", "D[4 * r + c] = hb * W[4 * r + c] - hg * e[r] * e[c] -", "D[4 * r + c] = -hg * e[r] * e[c] -", "modified HHT: eq. 69 without its w-hat term"),
    # the spatial formulations: the opposite-group node kinds and the mapping of the elements
    ("src/sys/nodes.c", "        ld_##G##_tangent(T, m);", "        (void)m; ld_##G##_tangent(T, xi);", "spatial node kinds: right instead of left Jacobian"),
    ("src/sys/nodes.c", "    bracket_direct(r, y, x);", "    bracket_direct(r, x, y);", "spatial node kinds: the bracket of the group, not of its opposite"),
    ("src/compile/elem_spatial.c", "        add_times_hat(c->e, A, c->v, K);", "        (void)0;", "spatial stiffness without the (dg/dv) hat(omega) term"),
    ("src/compile/elem_spatial.c", "        map_vec(c->e, R, out, out, 0);", "        map_vec(c->e, R, out, out, 1);", "spatial force rotated by R^T instead of R"),
    ("src/sys/tb3.c", "#define KAPPA_MAGNUS (1.0 / 12.0)", "#define KAPPA_MAGNUS (1.0 / 24.0)", "tb3: the printed correction coefficient"),
    ("src/sys/nodes.c", "for (int j = 0; j < 3; ++j) r[3 + j] = a[j] - b[j];", "for (int j = 0; j < 3; ++j) r[3 + j] = a[j] + b[j];", "se(3) bracket with a wrong sign"),
    ("src/sys/tb3.c", "it->vn[j] = it->v[j] + h * (B3[0] * it->vd[j] + B3[1] * b.a1[j] + B3[2] * b.a2[j]);", "it->vn[j] = it->v[j] + h * (B3[0] * it->vd[j] + B3[1] * b.a1[j] + B3[1] * b.a2[j]);", "tb3: wrong velocity weight"),
    ("src/ode/controller.c", "        hn = 0.5 * h;\n", "        hn = h * ratio_i(c, 1e3, 1.0);\n", "I controller: no halving after a failed solve (shrunk as for an estimate of 1e3)"),
    ("src/sys/tb3.c", "if (!rc) rc = ld_integ__assemble(it, ts, 1.0, th2, th2 * th2, NULL);", "if (!rc) rc = ld_integ__assemble(it, ts, 1.0, th2, th2, NULL);", "tb3: stiffness term of the iteration matrix mis-scaled"),
    ("src/ode/controller.c", "double f = err > 0.0 ? c->fac * pow(err, -1.0 / (c->mu + 1.0)) : facmax;", "double f = err > 0.0 ? c->fac * pow(err, -1.0) : facmax;", "I controller: wrong exponent of the step ratio"),
    ("src/model/exact.c", "double srr = -sn / (4.0 * r) - cs / u + 2.0 * sn / (u * r);", "double srr = -sn / (4.0 * r) - cs / u + 2.0 * sn / (u * u);", "exact solution: second derivative of sin(phi/2)/phi"),
]


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


# The test programs the mutants must be caught by, and their CTest names.
TARGETS = ["test_fn", "test_quat", "test_so3", "test_groups", "test_erk", "test_attitude",
           "test_controller", "test_system", "test_genalpha", "test_tb3", "test_hht",
           "test_joints", "test_rod", "test_rod_yaml", "test_nodes", "test_spatial",
           "test_beam_pinned", "liedyn", "json_compare"]
TESTS = ("^(fn|quat|so3|groups|erk|attitude|cli_attitude|controller|system|genalpha|tb3|hht|"
         "joints|rod|rod_yaml|nodes|spatial|beam_pinned)$")


def stale_mutants(root, mutants):
    """The mutants whose search text does not occur exactly once in their file, as
    (path, count, description, search text); count -1 for a missing file."""
    stale = []
    texts = {}
    for path, old, _new, what in mutants:
        if path not in texts:
            try:
                with open(os.path.join(root, path), encoding="utf-8") as fh:
                    texts[path] = fh.read()
            except OSError:
                texts[path] = None
        text = texts[path]
        count = -1 if text is None else text.count(old)
        if count != 1:
            stale.append((path, count, what, old))
    return stale


def check_mutants(root, mutants):
    """Exit with status 2 and one line per stale mutant if any; otherwise return."""
    stale = stale_mutants(root, mutants)
    for path, count, what, old in stale:
        where = "file missing" if count < 0 else f"search text found {count} times, not once"
        print(f"mutation-check: STALE MUTANT in {path} ({where}): \"{what}\": {old!r}",
              file=sys.stderr)
    if stale:
        print(f"mutation-check: {len(stale)} of {len(mutants)} mutants do not apply to the "
              "current sources; rewrite them in scripts/mutation-check.py", file=sys.stderr)
        sys.exit(2)


def build_and_test(build, work):
    """'not-built', 'failed' or 'passed' for the scratch tree as it is now."""
    if run(["cmake", "--build", build, "-j2", "--target"] + TARGETS, work) != 0:
        return "not-built"
    return "failed" if run(["ctest", "-R", TESTS], build) != 0 else "passed"


def main():
    ap = argparse.ArgumentParser(usage=argparse.SUPPRESS, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true",
                    help="only verify that every search text occurs exactly once; no build")
    ap.add_argument("build_type", nargs="?", default="Release", metavar="BUILD_TYPE")
    ap.add_argument("only", nargs="?", default="", metavar="PATH_SUBSTRING")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    check_mutants(root, MUTANTS)
    if args.check:
        print(f"mutation-check: all {len(MUTANTS)} mutants apply (each search text occurs once)")
        return
    chosen = [m for m in MUTANTS if args.only in m[0]]
    if not chosen:
        sys.exit(f"mutation-check: no mutant in a file matching {args.only!r}")
    work = tempfile.mkdtemp(prefix="liedyn-mut-")
    try:
        sys.exit(run_mutants(root, work, args.build_type, chosen))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_mutants(root, work, btype, chosen):
    """Apply each mutant in turn to a scratch copy in work; the exit status."""
    src = os.path.join(work, "src")
    shutil.copytree(root, src, ignore=shutil.ignore_patterns("build", ".git"))
    build = os.path.join(work, "build")
    if run(["cmake", "-S", src, "-B", build, f"-DCMAKE_BUILD_TYPE={btype}"], work):
        return "mutation-check: configure failed"
    base = build_and_test(build, work)
    if base != "passed":
        return f"mutation-check: the unmutated tree {base.replace('-', ' ')}: fix that first"
    bad = 0
    print("mutant,file,result")
    for path, old, new, what in chosen:
        f = os.path.join(src, path)
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        with open(f, "w", encoding="utf-8") as fh:
            fh.write(text.replace(old, new))
        res = build_and_test(build, work)
        with open(f, "w", encoding="utf-8") as fh:
            fh.write(text)
        result = {"failed": "killed", "passed": "SURVIVED", "not-built": "NOT-BUILT"}[res]
        bad += result != "killed"
        print(f'"{what}",{path},{result}', flush=True)
    killed = len(chosen) - bad
    print(f"mutation-check: {killed} of {len(chosen)} mutants killed", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    main()
