#!/bin/sh
# liedyn run's acceleration columns (BODY.ax … BODY.dwz, ld_model_body_accel) against exact
# values in every formulation: a free body falls with a = g and turns with Euler's equations
# J Ω̇ = −Ω × JΩ; a pendulum (a rigid link on a hinge about z) released from the horizontal has,
# at each row's angle θ and rate θ̇, θ̈ = −m g L cos θ / (J + m L²), its centre's acceleration
# L θ̈ (−sin θ, cos θ) − L θ̇² (cos θ, sin θ) and Ω̇ = (0, 0, θ̈). Chosen by name and group
# only: all columns and a body's columns leave them out. The euler formulation's rotation is
# checked at the start only to round-off, along the run to 1e-5: its state keeps eᵀė = 0 (the
# velocity on the unit sphere's tangent) only to the method's error, and its v̇ is that of its
# own equations there.
# usage: cli_accel.sh LIEDYN WORK_DIR
set -u
LIEDYN=$1 WORK=$2
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

cat >"$WORK/pend.yaml" <<'YAML'
name: pend
gravity: [0, -9.81, 0]
bodies:
  - {name: link, mass: 2.0, inertia: [1.0e-4, 0.1, 0.3], position: [0.5, 0, 0]}
  - {name: ball, mass: 1.5, inertia: [0.2, 0.3, 0.4], position: [3, 0, 0], angular_velocity: [1, 2, 3]}
joints:
  - {name: hinge, type: revolute, body1: ground, body2: link, at: [0, 0, 0], axis: [0, 0, 1]}
integrator: {name: genalpha, dt: 1.0e-3, t_end: 0.5}
YAML

for f in so3xr3 se3 s3xr3 s3sdr3 so3xr3-spatial s3xr3-spatial euler; do
    out="$WORK/$f.csv"
    "$LIEDYN" run "$WORK/pend.yaml" --formulation $f --quiet --out "$out" \
        --columns link.a,link.dw,ball.acceleration,ball.angular_acceleration,hinge.coords,hinge.rate \
        >/dev/null 2>"$WORK/$f.err" || { fail "$f: $(cat "$WORK/$f.err")"; continue; }
    awk -F, -v f=$f '
        function abs(x) { return x < 0 ? -x : x }
        function chk(what, got, want) {
            tol = f == "euler" && NR > 2 && what ~ /dw/ ? 1e-5 : 1e-9
            if (abs(got - want) > tol * (1 + abs(want))) { printf "%s t %s: %s %.17g, exact %.17g\n", f, $1, what, got, want; bad = 1 }
        }
        NR > 1 {
            m = 2.0; L = 0.5; J = 0.3; g = 9.81
            th = $14; w = $15; dd = -m * g * L * cos(th) / (J + m * L * L)
            chk("link.ax", $2, -L * dd * sin(th) - L * w * w * cos(th))
            chk("link.ay", $3, L * dd * cos(th) - L * w * w * sin(th))
            chk("link.az", $4, 0); chk("link.dwx", $5, 0); chk("link.dwy", $6, 0)
            chk("link.dwz", $7, dd)
            chk("ball.ax", $8, 0); chk("ball.ay", $9, -g); chk("ball.az", $10, 0)
            if (NR == 2) { chk("ball.dwx", $11, -3); chk("ball.dwy", $12, 2); chk("ball.dwz", $13, -0.5) }
            n++
        }
        END { if (n < 500) { print f ": " n " rows"; bad = 1 } exit bad }' "$out" >"$WORK/$f.chk" ||
        fail "$(head -3 "$WORK/$f.chk")"
    [ "$(col "$out" hinge.angle)" = 14 ] || fail "$f: header $(head -1 "$out")"
done

# the torque-free body's Euler equations along the run (so3xr3): J Ω̇ + Ω × JΩ = 0 per row
"$LIEDYN" run "$WORK/pend.yaml" --quiet --out "$WORK/ball.csv" --columns ball.omega,ball.dw \
    >/dev/null 2>&1 || fail "ball: run"
awk -F, 'function abs(x) { return x < 0 ? -x : x }
    NR > 1 { a = 0.2; b = 0.3; c = 0.4
        r1 = a * $5 + ($3 * c * $4 - $4 * b * $3); r2 = b * $6 + ($4 * a * $2 - $2 * c * $4)
        r3 = c * $7 + ($2 * b * $3 - $3 * a * $2)
        if (abs(r1) + abs(r2) + abs(r3) > 1e-12) { print "t " $1 ": Euler residual " r1 " " r2 " " r3; bad = 1 } }
    END { exit bad }' "$WORK/ball.csv" || fail "ball: Euler's equations"

# all columns, and a body's: no accelerations
"$LIEDYN" run "$WORK/pend.yaml" --t-end 0.01 --quiet --out "$WORK/all.csv" >/dev/null 2>&1
head -1 "$WORK/all.csv" | grep -q '\.ax\|\.dwx' && fail "all columns hold accelerations"
"$LIEDYN" run "$WORK/pend.yaml" --t-end 0.01 --quiet --out "$WORK/link.csv" --columns link \
    >/dev/null 2>&1
[ "$(head -1 "$WORK/link.csv" | tr ',' '\n' | wc -l)" = 14 ] ||
    fail "--columns link: $(head -1 "$WORK/link.csv")"
"$LIEDYN" run "$WORK/pend.yaml" --t-end 0.01 --quiet --out "$WORK/one.csv" --columns link.dwz \
    >/dev/null 2>&1
[ "$(head -1 "$WORK/one.csv")" = "t,link.dwz" ] || fail "--columns link.dwz: $(head -1 "$WORK/one.csv")"

[ $fails -eq 0 ] && echo "cli_accel: all checks passed"
exit $fails
