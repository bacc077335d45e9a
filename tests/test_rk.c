/*
 * Butcher tables: every built-in table satisfies the order conditions of all rooted trees up
 * to its stated order (to round-off) and violates at least one of the next order (so the
 * stated order is exact); row sums equal c; FSAL tables repeat b as their last row.
 */
#include "support.h"

#include "liedyn/rk.h"

static void check_order(const ld_rk_table *t, const double *w, int p, const char *which) {
    for (int k = 1; k <= p; ++k) {
        double r = ld_rk_order_residual(t, w, k);
        if (!(r >= 0.0 && r <= 16 * EPS))
            fail_msg("%s (%s): order-%d conditions violated by %.3e", t->name, which, k, r);
    }
    if (p < LD_RK_MAX_CHECKED_ORDER) {
        double r = ld_rk_order_residual(t, w, p + 1);
        if (!(r > 1e-6))
            fail_msg("%s (%s): satisfies order %d too (residual %.3e)", t->name, which, p + 1, r);
    }
}

static void test_tables(void **state) {
    (void)state;
    assert_true(ld_rk_table_count() >= 7);
    for (int i = 0; i < ld_rk_table_count(); ++i) {
        const ld_rk_table *t = ld_rk_table_at(i);
        assert_non_null(t);
        assert_true(t->stages >= 1 && t->stages <= LD_RK_MAX_STAGES);
        assert_true(ld_rk_table_find(t->name) == t);
        assert_true(ld_rk_rowsum_residual(t) <= 4 * EPS);
        for (int r = 0; r < t->stages; ++r) /* explicit: zero on and above the diagonal */
            for (int c = r; c < t->stages; ++c) assert_true(t->A[t->stages * r + c] == 0.0);
        check_order(t, t->b, t->order, "b");
        if (t->bhat) check_order(t, t->bhat, t->order_embedded, "bhat");
        assert_true((t->bhat != NULL) == (t->order_embedded > 0));
        if (t->fsal)
            for (int j = 0; j < t->stages; ++j)
                assert_true(t->A[t->stages * (t->stages - 1) + j] == t->b[j]);
    }
    assert_null(ld_rk_table_find("no-such-table"));
    assert_null(ld_rk_table_at(-1));
    assert_null(ld_rk_table_at(ld_rk_table_count()));
    assert_true(ld_rk_order_residual(ld_rk_table_find("rk4"), ld_rk_table_find("rk4")->b, 6) < 0);
}

/* The checker itself: a perturbed DOPRI5 entry must break its fifth order. */
static void test_checker_detects(void **state) {
    (void)state;
    const ld_rk_table *dp = ld_rk_table_find("dopri5");
    double A[49], b[7];
    for (int i = 0; i < 49; ++i) A[i] = dp->A[i];
    for (int i = 0; i < 7; ++i) b[i] = dp->b[i];
    A[7 * 4 + 2] = 0.0; /* drop a53, as one printed copy of the array does */
    ld_rk_table t = *dp;
    t.A = A;
    t.b = b;
    double maxres = 0.0;
    for (int k = 1; k <= 5; ++k) maxres = fmax(maxres, ld_rk_order_residual(&t, b, k));
    assert_true(maxres > 1e-3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_checker_detects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
