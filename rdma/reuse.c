// SPDX-License-Identifier: MIT
/* The keyed pool of reusable set-up objects (rdma/reuse.h). */
#include "rdma/reuse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void lp_reuse_pool_init(struct lp_reuse_pool *p, void (*release)(void *obj))
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	p->release = release;
}

static void key_set(uint8_t *dst, const void *key, size_t klen)
{
	memset(dst, 0, LP_REUSE_KEY_MAX);
	memcpy(dst, key, klen);
}

/* The entry holding obj, or NULL (lock held). */
static struct lp_reuse_entry *find(struct lp_reuse_pool *p, const void *obj)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->e[i].obj == obj)
			return &p->e[i];
	return NULL;
}

/* Idle objects (lock held). */
static size_t idle_of(const struct lp_reuse_pool *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += !p->e[i].busy;
	return n;
}

/* Entry e leaves the pool (lock held); its object is the caller's. */
static void *remove_entry(struct lp_reuse_pool *p, struct lp_reuse_entry *e)
{
	void *obj = e->obj;

	*e = p->e[--p->n];
	return obj;
}

void *lp_reuse_pool_take(struct lp_reuse_pool *p, const void *key, size_t klen)
{
	uint8_t k[LP_REUSE_KEY_MAX];
	void *obj = NULL;

	if (klen > LP_REUSE_KEY_MAX)
		return NULL;
	key_set(k, key, klen);
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->n && !obj; i++)
		if (!p->e[i].busy && !memcmp(p->e[i].key, k, sizeof(k))) {
			p->e[i].busy = true;
			obj = p->e[i].obj;
			p->reused++;
		}
	pthread_mutex_unlock(&p->lock);
	return obj;
}

int lp_reuse_pool_add(struct lp_reuse_pool *p, const void *key, size_t klen, void *obj)
{
	int ret = 0;

	if (klen > LP_REUSE_KEY_MAX)
		return -EINVAL;
	pthread_mutex_lock(&p->lock);
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct lp_reuse_entry *e = realloc(p->e, cap * sizeof(*e));

		if (e) {
			p->e = e;
			p->cap = cap;
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret) {
		key_set(p->e[p->n].key, key, klen);
		p->e[p->n].obj = obj;
		p->e[p->n].busy = true;
		p->n++;
		p->created++;
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

void lp_reuse_pool_put(struct lp_reuse_pool *p, void *obj)
{
	struct lp_reuse_entry *e;
	void *gone = NULL;

	pthread_mutex_lock(&p->lock);
	e = find(p, obj);
	if (e && idle_of(p) < LP_REUSE_IDLE_MAX)
		e->busy = false;
	else if (e)
		gone = remove_entry(p, e);
	pthread_mutex_unlock(&p->lock);
	if (gone && p->release)
		p->release(gone);
}

void lp_reuse_pool_drop(struct lp_reuse_pool *p, void *obj)
{
	struct lp_reuse_entry *e;
	void *gone = NULL;

	pthread_mutex_lock(&p->lock);
	e = find(p, obj);
	if (e) {
		gone = remove_entry(p, e);
		p->dropped++;
	}
	pthread_mutex_unlock(&p->lock);
	if (gone && p->release)
		p->release(gone);
}

size_t lp_reuse_pool_idle(struct lp_reuse_pool *p)
{
	size_t n;

	pthread_mutex_lock(&p->lock);
	n = idle_of(p);
	pthread_mutex_unlock(&p->lock);
	return n;
}

size_t lp_reuse_pool_size(struct lp_reuse_pool *p)
{
	size_t n;

	pthread_mutex_lock(&p->lock);
	n = p->n;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void lp_reuse_pool_free(struct lp_reuse_pool *p)
{
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->n; i++)
		if (p->release)
			p->release(p->e[i].obj);
	free(p->e);
	p->e = NULL;
	p->n = p->cap = 0;
	pthread_mutex_unlock(&p->lock);
}
