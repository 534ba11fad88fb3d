// SPDX-License-Identifier: MIT
/* Nodes without a rank (--absent, Slurm's drained/down nodes): recorded, their cells failed. */
#include "lp_test.h"

#include <errno.h>

#include "sweep/absent.h"
#include "sweep/result.h"

/* 3 measured nodes, one bandwidth metric, every ordered pair at 100 Gb/s */
static void three_nodes(struct lp_sweep_run *r)
{
	assert_int_equal(lp_sweep_run_init(r, 3), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(r->nodes[i].name, sizeof(r->nodes[i].name), "lpnode%d", i);
		r->nodes[i].rank = i;
	}
	assert_int_equal(lp_sweep_add_metric(r, "write_bw", 3, false, 65536), 0);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) {
			struct lp_sweep_cell c;

			if (a == b)
				continue;
			lp_sweep_cell_init(&c, 0, a, b, LP_PHASE_SWEEP, 0);
			c.value = c.gbits_s = 100 + a + b;
			assert_int_equal(lp_sweep_add_cell(r, &c), 0);
		}
}

static void test_absent_node_fails(void **state)
{
	struct lp_sweep_run r;
	struct lp_fail why;
	int failed = 0, named = 0;

	(void)state;
	three_nodes(&r);
	/* lpnode1 has a rank: skipped; empty items and white space are fine */
	assert_int_equal(lp_sweep_add_absent(&r, " lpnode3 = down* (Not responding) ;;lpnode1=x\n",
					     lp_fresh(&why)),
			 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.nodes[3].name, "lpnode3");
	assert_int_equal(r.nodes[3].rank, -1);
	assert_int_equal(r.nodes[3].status, -EHOSTDOWN);
	assert_string_equal(r.nodes[3].error, "down* (Not responding)");
	assert_int_equal(r.ncells, 6 + 6);
	for (size_t k = 6; k < r.ncells; k++) {
		const struct lp_sweep_att *c = &r.cells[k];

		failed += c->status == -EHOSTDOWN && isnan(c->value) && (c->a == 3 || c->b == 3) &&
			  !strcmp(lp_sweep_att_error(&r, c), "lpnode3: down* (Not responding)");
	}
	assert_int_equal(failed, 6);
	/* the diagnosis names it failed, and only it */
	assert_int_equal(lp_sweep_diagnose(&r), 0);
	for (int v = 0; v < r.nverdicts; v++) {
		assert_int_not_equal(r.verdicts[v].kind, LP_VERDICT_NODE_SLOW);
		named += r.verdicts[v].kind == LP_VERDICT_NODE_FAILED && r.verdicts[v].a == 3;
	}
	assert_int_equal(named, 1);
	assert_int_equal(lp_sweep_exit_code(&r), 1);
	lp_sweep_run_free(&r);
}

static void test_absent_bad_spec(void **state)
{
	static const char *const bad[] = {
		"lpnode3", "=down", " = x", "a=b;lpnode9",
		"a123456789012345678901234567890123456789012345678901234567890123456789012345678901=x"
	};
	struct lp_sweep_run r;
	struct lp_fail why;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		three_nodes(&r);
		assert_int_equal(lp_sweep_add_absent(&r, bad[i], lp_fresh(&why)), -EINVAL);
		assert_non_null(strstr(why.msg, "expected NAME=REASON"));
		lp_sweep_run_free(&r);
	}
	three_nodes(&r); /* nothing to add */
	assert_int_equal(lp_sweep_add_absent(&r, NULL, lp_fresh(&why)), 0);
	assert_int_equal(lp_sweep_add_absent(&r, "", lp_fresh(&why)), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.ncells, 6);
	lp_sweep_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absent_node_fails),
		cmocka_unit_test(test_absent_bad_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
