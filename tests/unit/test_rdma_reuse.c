// SPDX-License-Identifier: MIT
/*
 * Set-up reuse's bookkeeping (rdma/reuse.h): the keyed pool lp-rdma's buffer
 * cache and QP pool and the model transport's connections rest on. Keys shaped
 * like the buffer cache's (PD, bytes, access, kind) and the QP pool's (caps).
 */
#include "lp_test.h"

#include <errno.h>

#include "common/lp.h"
#include "rdma/reuse.h"

static int released;

static void release(void *obj)
{
	released++;
	free(obj);
}

struct mr_key {
	const void *pd;
	uint64_t len;
	int32_t access, kind, dev;
};

static struct mr_key mr(uint64_t len, int access)
{
	struct mr_key k;

	memset(&k, 0, sizeof(k)); /* keys compare as bytes: padding zeroed */
	k.pd = (void *)0x1000;
	k.len = len;
	k.access = access;
	return k;
}

static void *obj(void)
{
	return malloc(1);
}

/* A miss, then the same key reused after put; another key, or a busy object, is not shared. */
static void test_take_put(void **state)
{
	struct lp_reuse_pool p;
	struct mr_key a = mr(4096, 7), b = mr(8192, 7), c = mr(4096, 15);
	void *x = obj(), *y = obj();

	(void)state;
	released = 0;
	lp_reuse_pool_init(&p, release);
	assert_null(lp_reuse_pool_take(&p, &a, sizeof(a)));
	assert_int_equal(lp_reuse_pool_add(&p, &a, sizeof(a), x), 0);
	assert_null(lp_reuse_pool_take(&p, &a, sizeof(a))); /* x is busy */
	lp_reuse_pool_put(&p, x);
	assert_null(lp_reuse_pool_take(&p, &b, sizeof(b))); /* other bytes */
	assert_null(lp_reuse_pool_take(&p, &c, sizeof(c))); /* other access */
	assert_ptr_equal(lp_reuse_pool_take(&p, &a, sizeof(a)), x);
	assert_int_equal(lp_reuse_pool_add(&p, &a, sizeof(a), y), 0); /* a second of one key */
	lp_reuse_pool_put(&p, x);
	lp_reuse_pool_put(&p, y);
	assert_int_equal(lp_reuse_pool_idle(&p), 2);
	assert_int_equal(p.created, 2);
	assert_int_equal(p.reused, 1);
	assert_int_equal(released, 0);
	lp_reuse_pool_free(&p);
	assert_int_equal(released, 2);
	assert_int_equal(lp_reuse_pool_size(&p), 0);
}

/* An object dropped after an error is released at once, counted, and never handed out again. */
static void test_drop(void **state)
{
	struct lp_reuse_pool p;
	struct mr_key a = mr(64, 1);
	void *x = obj();

	(void)state;
	released = 0;
	lp_reuse_pool_init(&p, release);
	assert_int_equal(lp_reuse_pool_add(&p, &a, sizeof(a), x), 0);
	lp_reuse_pool_drop(&p, x);
	assert_int_equal(released, 1);
	assert_int_equal(p.dropped, 1);
	assert_int_equal(lp_reuse_pool_size(&p), 0);
	assert_null(lp_reuse_pool_take(&p, &a, sizeof(a)));
	lp_reuse_pool_put(&p, x); /* not the pool's (any more): ignored */
	assert_int_equal(released, 1);
	lp_reuse_pool_free(&p);
}

/* The end of a run releases busy objects too; more than LP_REUSE_IDLE_MAX idle are not kept. */
static void test_bounds(void **state)
{
	struct lp_reuse_pool p;
	void *o[LP_REUSE_IDLE_MAX + 3];
	int n = (int)LP_ARRAY_SIZE(o);

	(void)state;
	released = 0;
	lp_reuse_pool_init(&p, release);
	for (int i = 0; i < n; i++) {
		struct mr_key k = mr((uint64_t)i + 1, 0);

		o[i] = obj();
		assert_int_equal(lp_reuse_pool_add(&p, &k, sizeof(k), o[i]), 0);
	}
	for (int i = 0; i < n - 1; i++)
		lp_reuse_pool_put(&p, o[i]);
	assert_int_equal(lp_reuse_pool_idle(&p), LP_REUSE_IDLE_MAX);
	assert_int_equal(released, n - 1 - LP_REUSE_IDLE_MAX);
	lp_reuse_pool_free(&p); /* o[n - 1] still busy: released with the rest */
	assert_int_equal(released, n);
}

/* A key longer than LP_REUSE_KEY_MAX is refused, never compared in part. */
static void test_key_len(void **state)
{
	struct lp_reuse_pool p;
	uint8_t k[LP_REUSE_KEY_MAX + 8] = { 1 };
	void *x = obj();

	(void)state;
	lp_reuse_pool_init(&p, release);
	assert_int_equal(lp_reuse_pool_add(&p, k, sizeof(k), x), -EINVAL);
	assert_null(lp_reuse_pool_take(&p, k, sizeof(k)));
	assert_int_equal(lp_reuse_pool_add(&p, k, LP_REUSE_KEY_MAX, x), 0);
	lp_reuse_pool_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_put),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_key_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
