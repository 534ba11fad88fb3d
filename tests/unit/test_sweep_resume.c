// SPDX-License-Identifier: MIT
/*
 * lp-sweep --resume over runs (sweep/resume.h): parameters compared with a
 * one-line difference, the cells measured marked by name, the journal's cells
 * merged with their attempts and its lost nodes recorded as missing.
 */
#include "lp_test.h"

#include <errno.h>
#include <string.h>

#include "sweep/resume.h"

/* names[0..n) with one latency metric of size bytes */
static void run_of(struct lp_sweep_run *r, const char *const *names, int n, uint64_t size)
{
	assert_int_equal(lp_sweep_run_init(r, n), 0);
	for (int i = 0; i < n; i++) {
		snprintf(r->nodes[i].name, sizeof(r->nodes[i].name), "%s", names[i]);
		r->nodes[i].rank = i;
	}
	assert_int_equal(lp_sweep_add_metric(r, "write_lat", 0, true, size), 0);
}

static void cell(struct lp_sweep_run *r, int a, int b, int status)
{
	struct lp_sweep_cell c;

	lp_sweep_cell_init(&c, 0, a, b, LP_PHASE_SWEEP, 0);
	c.status = status;
	c.value = status ? NAN : 2.5;
	assert_int_equal(lp_sweep_add_cell(r, &c), 0);
}

/* the journal: a, b, c; a<->b measured, a->c failed when c died */
static void journal(struct lp_sweep_run *prev)
{
	static const char *const names[] = { "a", "b", "c" };

	run_of(prev, names, 3, 8);
	snprintf(prev->started, sizeof(prev->started), "2026-12-01T17:00:00Z");
	cell(prev, 0, 1, 0);
	cell(prev, 1, 0, 0);
	cell(prev, 0, 2, -ETIMEDOUT);
}

static void test_resume_check(void **state)
{
	static const char *const names[] = { "b", "a" };
	struct lp_sweep_run prev, now;
	struct lp_fail why;

	(void)state;
	journal(&prev);
	run_of(&now, names, 2, 8);
	assert_int_equal(lp_sweep_resume_check(&prev, &now, lp_fresh(&why)), 0);
	now.metrics[0].size = 16;
	snprintf(now.metrics[0].label, sizeof(now.metrics[0].label), "write_lat 16 B");
	assert_int_equal(lp_sweep_resume_check(&prev, &now, lp_fresh(&why)), -EINVAL);
	assert_string_equal(why.msg, "--lat-sizes: journal 8 B, now 16 B");
	lp_sweep_run_free(&now);
	run_of(&now, names, 2, 8);
	now.seed = 7;
	assert_int_equal(lp_sweep_resume_check(&prev, &now, lp_fresh(&why)), -EINVAL);
	assert_string_equal(why.msg, "--schedule-seed: journal 0, now 7");
	lp_sweep_run_free(&now);
	run_of(&now, names, 2, 8);
	now.tclass = 106; /* the journal ran on the default class: not the same sweep */
	assert_int_equal(lp_sweep_resume_check(&prev, &now, lp_fresh(&why)), -EINVAL);
	assert_string_equal(why.msg, "--tclass: journal -1, now 106");
	lp_sweep_run_free(&now);
	lp_sweep_run_free(&prev);
}

/* Ranks in another order: the done cells follow the names; a failed cell is measured again. */
static void test_resume_done(void **state)
{
	static const char names[3][80] = { "b", "a", "c" };
	struct lp_sweep_run prev, now;
	uint8_t done[9];

	(void)state;
	journal(&prev);
	run_of(&now, (const char *const[]){ "b", "a", "c" }, 3, 8);
	lp_sweep_resume_done(&prev, &now, names, 3, done);
	assert_true(done[0 * 3 + 1] && done[1 * 3 + 0]);  /* b->a, a->b */
	assert_false(done[1 * 3 + 2] || done[2 * 3 + 1]); /* a->c failed, c->a never ran */
	assert_false(done[0 * 3 + 2] || done[2 * 3 + 0]);
	lp_sweep_run_free(&now);
	lp_sweep_run_free(&prev);
}

/* c is gone: kept as a node without a rank, "missing since" its last cell; cells keep attempts. */
static void test_resume_merge(void **state)
{
	struct lp_sweep_run prev, now;
	const char seen[3][32] = { "2026-12-01T17:01:00Z", "2026-12-01T17:01:00Z", "" };
	int failed_c = 0;

	(void)state;
	journal(&prev);
	run_of(&now, (const char *const[]){ "b", "a" }, 2, 8);
	assert_int_equal(lp_sweep_resume_merge(&now, &prev, seen, "run.journal"), 0);
	assert_int_equal(now.n, 3);
	assert_string_equal(now.nodes[2].name, "c");
	assert_int_equal(now.nodes[2].rank, -1);
	assert_string_equal(now.nodes[2].error, "node missing since 2026-12-01T17:00:00Z");
	assert_int_equal(now.attempt, 2);
	assert_string_equal(now.resumed, "run.journal");
	/* a->b from the journal is now 1->0 (a is rank 1 here), attempt 1 */
	assert_true(now.cells[0].a == 1 && now.cells[0].b == 0 && now.cells[0].attempt == 1);
	for (size_t i = 3; i < now.ncells; i++) {
		assert_int_equal(now.cells[i].status, -EHOSTDOWN);
		assert_int_equal(now.cells[i].attempt, 2);
		assert_non_null(
			strstr(lp_sweep_att_error(&now, &now.cells[i]), "c: node missing since"));
		failed_c++;
	}
	assert_int_equal(failed_c, 4); /* c with a and b, both ways: none was measured */
	lp_sweep_run_free(&now);
	lp_sweep_run_free(&prev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resume_check),
		cmocka_unit_test(test_resume_done),
		cmocka_unit_test(test_resume_merge),
	};

	return cmocka_run_group_tests_name("sweep resume", tests, NULL, NULL);
}
