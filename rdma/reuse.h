/* SPDX-License-Identifier: MIT */
/*
 * Set-up reuse (issue 27 item 2): a keyed pool of objects that are costly to
 * make -- registered buffers, queue-pair sets -- kept idle between the tests
 * of one process and taken again by the next test that asks for the same key.
 * The pool is bookkeeping only: what an object is and how it is released is
 * the caller's (rdma/conn.c for memory and QPs, the model transport for its
 * stand-in connections), so the same code runs with and without a device.
 * Thread-safe (the load modes run sessions on threads).
 */
#ifndef LP_RDMA_REUSE_H
#define LP_RDMA_REUSE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LP_REUSE_KEY_MAX  64 /* bytes of a key (a struct the caller zero-fills, then sets) */
#define LP_REUSE_IDLE_MAX 32 /* idle objects kept; more are released when put back */

struct lp_reuse_entry {
	uint8_t key[LP_REUSE_KEY_MAX];
	void *obj;
	bool busy;
};

struct lp_reuse_pool {
	pthread_mutex_t lock;
	struct lp_reuse_entry *e;
	size_t n, cap;
	void (*release)(void *obj);	   /* frees one object (NULL: nothing to free) */
	uint64_t created, reused, dropped; /* objects added, taken again, released on error */
};

void lp_reuse_pool_init(struct lp_reuse_pool *p, void (*release)(void *obj));
/* An idle object made for key (now busy, counted as reused), or NULL: make one and add it. */
void *lp_reuse_pool_take(struct lp_reuse_pool *p, const void *key, size_t klen);
/*
 * A new object for key, busy until put back (counted as created). 0, or
 * -ENOMEM, -EINVAL (a key over LP_REUSE_KEY_MAX: take never finds one): not added.
 */
int lp_reuse_pool_add(struct lp_reuse_pool *p, const void *key, size_t klen, void *obj);
/* obj (busy, from take or add) is idle again; beyond LP_REUSE_IDLE_MAX idle, it is released. */
void lp_reuse_pool_put(struct lp_reuse_pool *p, void *obj);
/* obj (busy) is released now, not reused (its state is unknown after an error); counted. */
void lp_reuse_pool_drop(struct lp_reuse_pool *p, void *obj);
/* Idle objects, and objects in all. */
size_t lp_reuse_pool_idle(struct lp_reuse_pool *p);
size_t lp_reuse_pool_size(struct lp_reuse_pool *p);
/* Every object released, busy or not (the end of the run): the pool is empty and reusable. */
void lp_reuse_pool_free(struct lp_reuse_pool *p);

#endif
