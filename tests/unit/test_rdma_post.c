// SPDX-License-Identifier: MIT
/*
 * Property test: no bandwidth combination that lp_rdma_params_check accepts
 * can stall the posting loop, and every one it rejects for the window would.
 *
 * The model is one QP of rdma/loops.c (bw_phase + bw_post): post_list WRs per
 * post while posted - done + post_list <= tx_depth, WR id signaled when
 * id % cq_mod == 0 or id == target, done = the id of the latest signaled
 * completion; a warm-up phase of w WRs, then a timed phase of n WRs or, with
 * a duration, until time is up (then the target becomes the next multiple of
 * cq_mod). QPs post independently, so one QP is the whole model.
 */
#include "lp_test.h"

#include <errno.h>

#include "common/lp.h"
#include "rdma/rdma.h"

struct model {
	const struct lp_rdma_params *p;
	uint64_t posted, done;
	uint64_t sig[8192 + LP_RDMA_MAX_POST_LIST]; /* signaled WRs in flight, oldest first */
	unsigned head, n;
};

/*
 * One bw_phase: count WRs, or (stop_after > 0) until the time is up, which
 * the model puts before the stop_after-th poll. Completions arrive one
 * signaled WR at a time, each after the window is full. Returns false on a
 * stall: nothing can be posted and no signaled WR is in flight.
 */
static bool model_phase(struct model *m, uint64_t count, unsigned stop_after)
{
	const struct lp_rdma_params *p = m->p;
	uint64_t target = m->posted + (stop_after ? UINT64_MAX / 2 : count);
	unsigned cap = sizeof(m->sig) / sizeof(m->sig[0]);

	for (unsigned poll = 1;; poll++) {
		if (stop_after && poll == stop_after)
			target = (m->posted + p->cq_mod - 1) / p->cq_mod * p->cq_mod;
		while (m->posted < target && m->posted - m->done + p->post_list <= p->tx_depth) {
			uint64_t n = LP_MIN((uint64_t)p->post_list, target - m->posted);

			for (uint64_t k = 1; k <= n; k++) {
				uint64_t id = m->posted + k;

				if (id % p->cq_mod == 0 || id == target) {
					assert_true(m->n < cap);
					m->sig[(m->head + m->n++) % cap] = id;
				}
			}
			m->posted += n;
		}
		if (m->done >= target)
			return true;
		if (!m->n)
			return false;
		m->done = m->sig[m->head];
		m->head = (m->head + 1) % cap;
		m->n--;
	}
}

/* A whole test: warm-up, then iters WRs (stop_after == 0) or a timed run. */
static bool model_run(const struct lp_rdma_params *p, uint64_t iters, unsigned stop_after)
{
	struct model *m = calloc(1, sizeof(*m));
	bool ok;

	assert_non_null(m);
	m->p = p;
	ok = model_phase(m, p->warmup, 0) && model_phase(m, iters, stop_after);
	free(m);
	return ok;
}

static void bw_params(struct lp_rdma_params *p, unsigned tx, unsigned cq, unsigned pl,
		      uint64_t warmup)
{
	lp_rdma_params_default(p, LP_RDMA_WRITE_BW);
	p->tx_depth = tx;
	p->cq_mod = cq;
	p->post_list = pl;
	p->warmup = warmup;
}

/* Long enough for the gap between a signal and a post boundary to take every value. */
static uint64_t long_run(const struct lp_rdma_params *p)
{
	return (uint64_t)(p->post_list + 2) * p->cq_mod + 2ull * p->tx_depth;
}

/* Accepted: no count and no stopping time stalls. */
static void assert_never_stalls(const struct lp_rdma_params *p)
{
	const uint64_t counts[] = { 1, 2, p->cq_mod, p->tx_depth, p->tx_depth + 1, long_run(p) };
	const unsigned stops[] = { 1, 2, 3, 7, 40 };

	for (unsigned i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (!model_run(p, counts[i], 0))
			fail_msg("accepted T=%u Q=%u l=%u w=%llu stalls after %llu WRs",
				 p->tx_depth, p->cq_mod, p->post_list,
				 (unsigned long long)p->warmup, (unsigned long long)counts[i]);
	for (unsigned i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (!model_run(p, 0, stops[i]))
			fail_msg("accepted T=%u Q=%u l=%u w=%llu stalls in a timed run",
				 p->tx_depth, p->cq_mod, p->post_list,
				 (unsigned long long)p->warmup);
}

/* Rejected: the rule names the tx depth that works, and a long run would stall. */
static void assert_rejected_for_cause(struct lp_rdma_params *p, const char *why)
{
	const char *needs = strstr(why, "needs tx depth >= ");
	unsigned tx = p->tx_depth, min;

	if (!needs)
		fail_msg("T=%u Q=%u l=%u rejected for another reason: %s", p->tx_depth, p->cq_mod,
			 p->post_list, why);
	assert_int_equal(sscanf(needs, "needs tx depth >= %u", &min), 1);
	assert_true(min > tx);
	if (model_run(p, long_run(p), 0))
		fail_msg("rejected T=%u Q=%u l=%u w=%llu runs to the end in the model", tx,
			 p->cq_mod, p->post_list, (unsigned long long)p->warmup);
	/* The depth the message names is accepted (and so never stalls). */
	p->tx_depth = min;
	assert_int_equal(lp_rdma_params_check(p, NULL), 0);
	p->tx_depth = tx;
}

static void check_one(struct lp_rdma_params *p)
{
	struct lp_fail why;

	if (lp_rdma_params_check(p, lp_fresh(&why)) == 0)
		assert_never_stalls(p);
	else
		assert_rejected_for_cause(p, why.msg);
}

/* Every T <= 24, Q <= T, l <= T and a few warm-up counts. */
static void test_post_grid(void **state)
{
	const uint64_t warmups[] = { 0, 1, 2, 3, 5, 64 };
	struct lp_rdma_params p;
	unsigned accepted = 0, rejected = 0;
	struct lp_fail why;

	(void)state;
	for (unsigned tx = 1; tx <= 24; tx++)
		for (unsigned cq = 1; cq <= tx; cq++)
			for (unsigned pl = 1; pl <= tx; pl++)
				for (unsigned w = 0; w < sizeof(warmups) / sizeof(warmups[0]);
				     w++) {
					bw_params(&p, tx, cq, pl, warmups[w]);
					check_one(&p);
					if (lp_rdma_params_check(&p, lp_fresh(&why)))
						rejected++;
					else
						accepted++;
				}
	/* Both sides of the rule are exercised. */
	assert_true(accepted > 1000 && rejected > 1000);
}

/* The combinations from issue 9, the defaults and edges around them. */
static void test_post_examples(void **state)
{
	static const struct {
		unsigned tx, cq, pl;
		uint64_t warmup;
		bool ok;
	} rows[] = {
		{ 128, 128, 3, 64, false }, { 128, 128, 48, 64, false },
		{ 10, 10, 4, 64, false },   { 128, 64, 1, 64, true },
		{ 128, 128, 2, 64, true },  { 128, 128, 2, 63, false },
		{ 130, 128, 3, 64, true },  { 160, 128, 48, 64, true },
		{ 12, 10, 4, 64, true },    { 128, 128, 64, 0, true },
		{ 128, 127, 64, 0, false }, { 8192, 8192, 64, 64, true },
	};
	struct lp_rdma_params p;
	struct lp_fail why;

	(void)state;
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bw_params(&p, rows[i].tx, rows[i].cq, rows[i].pl, rows[i].warmup);
		if ((lp_rdma_params_check(&p, lp_fresh(&why)) == 0) != rows[i].ok)
			fail_msg("T=%u Q=%u l=%u w=%llu: expected %s", rows[i].tx, rows[i].cq,
				 rows[i].pl, (unsigned long long)rows[i].warmup,
				 rows[i].ok ? "accepted" : "rejected");
		if (rows[i].tx <= 256)
			check_one(&p);
	}
	/* One line that says what to change. */
	bw_params(&p, 128, 128, 3, 64);
	lp_rdma_params_check(&p, lp_fresh(&why));
	assert_non_null(strstr(why.msg, "needs tx depth >= 130"));
	assert_null(strchr(why.msg, '\n'));
	/* Past the chain lp-rdma builds per post. */
	bw_params(&p, 256, 64, LP_RDMA_MAX_POST_LIST + 1, 0);
	assert_int_equal(lp_rdma_params_check(&p, lp_fresh(&why)), -EINVAL);
	assert_non_null(strstr(why.msg, "post list"));
}

/* The model itself can stall: the example, by hand (126 posted, none signaled). */
static void test_model_stalls(void **state)
{
	struct lp_rdma_params p;

	(void)state;
	bw_params(&p, 128, 128, 3, 0);
	assert_false(model_run(&p, 1000, 0));
	assert_true(model_run(&p, 100, 0)); /* short enough to end at its signaled last WR */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_stalls),
		cmocka_unit_test(test_post_examples),
		cmocka_unit_test(test_post_grid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
