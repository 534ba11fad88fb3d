// SPDX-License-Identifier: MIT
/* lp-sweep schedules (see sched.h). Pure: no MPI, no I/O. */
#include "sweep/sched.h"

#include "common/fail.h"
#include "common/lp.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const lp_sched_names[] = { "round-robin", "isolated", "ring", "random", NULL };

/* A growing slot list with round boundaries. */
struct builder {
	struct lp_slot *slots;
	size_t nslots, cap;
	size_t *starts;
	size_t nrounds, rcap;
	int err;
};

static void b_slot(struct builder *b, int x, int y, unsigned dirs)
{
	if (b->err)
		return;
	if (b->nslots == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 64;
		struct lp_slot *p = realloc(b->slots, nc * sizeof(*p));

		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->slots = p;
		b->cap = nc;
	}
	b->slots[b->nslots++] = (struct lp_slot){ .x = x, .y = y, .dirs = dirs };
}

/* Close the current round (empty rounds are dropped). */
static void b_round(struct builder *b)
{
	size_t last = b->nrounds ? b->starts[b->nrounds] : 0;

	if (b->err || b->nslots == last)
		return;
	if (b->nrounds + 2 > b->rcap) {
		size_t nc = b->rcap ? b->rcap * 2 : 64;
		size_t *p = realloc(b->starts, nc * sizeof(*p));

		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->starts = p;
		b->rcap = nc;
	}
	b->starts[0] = 0;
	b->starts[++b->nrounds] = b->nslots;
}

static int b_finish(struct builder *b, struct lp_sched *s)
{
	b_round(b);
	if (!b->err && !b->starts) { /* no rounds at all (n < 2) */
		b->starts = calloc(1, sizeof(size_t));
		if (!b->starts)
			b->err = -ENOMEM;
	}
	if (b->err) {
		free(b->slots);
		free(b->starts);
		return b->err;
	}
	s->slots = b->slots;
	s->nslots = b->nslots;
	s->round_start = b->starts;
	s->nrounds = b->nrounds;
	return 0;
}

int lp_sched_rr_partner(int n, int r, int i)
{
	int m = n + (n & 1); /* odd n: a dummy node m-1 is the bye */
	int p;

	if (n < 2 || r < 0 || r >= m - 1 || i < 0 || i >= n)
		return -1;
	if (i == m - 1)
		p = r;
	else if (i == r)
		p = m - 1;
	else
		p = ((2 * r - i) % (m - 1) + (m - 1)) % (m - 1);
	return p >= n ? -1 : p;
}

static void gen_round_robin(struct builder *b, int n)
{
	int m = n + (n & 1);

	for (int r = 0; r < m - 1; r++) {
		for (int i = 0; i < n; i++) {
			int p = lp_sched_rr_partner(n, r, i);

			if (p > i)
				b_slot(b, i, p, LP_DIR_BOTH);
		}
		b_round(b);
	}
}

static void gen_isolated(struct builder *b, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			b_slot(b, i, j, LP_DIR_BOTH);
			b_round(b);
		}
}

/*
 * Shift d is the permutation i -> i+d: gcd(n,d) cycles of length L = n/gcd.
 * Edges at even positions of a cycle are disjoint, so are the odd ones; an odd
 * L leaves the closing edge for a third round.
 */
static void gen_ring(struct builder *b, int n)
{
	for (int d = 1; d < n; d++) {
		int g = (int)lp_gcd((uint64_t)n, (uint64_t)d), len = n / g;

		for (int part = 0; part < 3; part++) {
			for (int s = 0; s < g; s++)
				for (int j = 0; j < len; j++) {
					int x = (int)(((long)s + (long)j * d) % n);
					int want = (len & 1) && j == len - 1 ? 2 : (j & 1);

					if (want == part)
						b_slot(b, x, (x + d) % n, LP_DIR_XY);
				}
			b_round(b);
		}
	}
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_pair(const void *a, const void *b)
{
	const int32_t *p = a, *q = b;

	if (p[0] != q[0])
		return p[0] < q[0] ? -1 : 1;
	return (p[1] > q[1]) - (p[1] < q[1]);
}

/*
 * Each node's k distinct partners by a partial Fisher-Yates shuffle, as sorted
 * unique (lo, hi) couples in e (room for n*k); pick: n ints of scratch.
 * Returns the number of couples.
 */
static size_t random_edges(int n, int k, uint64_t seed, int32_t *e, int *pick)
{
	size_t ne = 0, u = 0;

	for (int i = 0; i < n; i++) {
		uint64_t st = seed ^ ((uint64_t)i * 0xd1342543de82ef95ull);
		int m = 0;

		for (int j = 0; j < n; j++)
			if (j != i)
				pick[m++] = j;
		for (int c = 0; c < k; c++) {
			int r = c + (int)(splitmix64(&st) % (uint64_t)(m - c));
			int t = pick[c];

			pick[c] = pick[r];
			pick[r] = t;
			e[2 * ne] = LP_MIN(i, pick[c]);
			e[2 * ne + 1] = LP_MAX(i, pick[c]);
			ne++;
		}
	}
	qsort(e, ne, 2 * sizeof(*e), cmp_pair);
	for (size_t i = 0; i < ne; i++)
		if (u == 0 || cmp_pair(&e[2 * i], &e[2 * (u - 1)]) != 0) {
			e[2 * u] = e[2 * i];
			e[2 * u + 1] = e[2 * i + 1];
			u++;
		}
	return u;
}

/*
 * Greedy edge colouring: each couple goes to the first round where both of its
 * nodes are free. round_of: ne entries; *nr_p: the rounds used. 0 or -ENOMEM.
 */
static int colour_edges(const int32_t *e, size_t ne, int n, size_t *round_of, size_t *nr_p)
{
	uint8_t *busy = NULL; /* nr rows of n bytes */
	size_t nr = 0, rcap = 0;

	for (size_t i = 0; i < ne; i++) {
		size_t r = 0;

		while (r < nr && (busy[r * n + e[2 * i]] || busy[r * n + e[2 * i + 1]]))
			r++;
		if (r == nr) {
			if (nr == rcap) {
				size_t nc = rcap ? rcap * 2 : 8;
				uint8_t *p = realloc(busy, nc * n);

				if (!p) {
					free(busy);
					return -ENOMEM;
				}
				busy = p;
				rcap = nc;
			}
			memset(busy + nr * n, 0, n);
			nr++;
		}
		busy[r * n + e[2 * i]] = busy[r * n + e[2 * i + 1]] = 1;
		round_of[i] = r;
	}
	free(busy);
	*nr_p = nr;
	return 0;
}

static int gen_random(struct builder *b, int n, int k, uint64_t seed)
{
	size_t ne, nr = 0;
	int32_t *e;
	int *pick;
	size_t *round_of = NULL;
	int rc = -ENOMEM;

	if (k > n - 1)
		k = n - 1;
	e = malloc((size_t)n * k * 2 * sizeof(*e) + 1);
	pick = malloc((size_t)n * sizeof(*pick));
	if (!e || !pick)
		goto out;
	ne = random_edges(n, k, seed, e, pick);
	round_of = malloc((ne + 1) * sizeof(*round_of));
	if (!round_of)
		goto out;
	rc = colour_edges(e, ne, n, round_of, &nr);
	for (size_t r = 0; r < nr && !rc; r++) {
		for (size_t i = 0; i < ne; i++)
			if (round_of[i] == r)
				b_slot(b, e[2 * i], e[2 * i + 1], LP_DIR_BOTH);
		b_round(b);
	}
out:
	free(round_of);
	free(pick);
	free(e);
	return rc;
}

int lp_sched_build(struct lp_sched *s, enum lp_sched_kind kind, int n, int k, uint64_t seed)
{
	struct builder b = { 0 };
	int rc = 0;

	memset(s, 0, sizeof(*s));
	if (n < 1 || n > (1 << 20))
		return -EINVAL;
	s->kind = kind;
	s->n = n;
	switch (kind) {
	case LP_SCHED_ROUND_ROBIN:
		gen_round_robin(&b, n);
		break;
	case LP_SCHED_ISOLATED:
		gen_isolated(&b, n);
		break;
	case LP_SCHED_RING:
		gen_ring(&b, n);
		break;
	case LP_SCHED_RANDOM:
		if (k < 1)
			return -EINVAL;
		if (n > 1)
			rc = gen_random(&b, n, k, seed);
		break;
	default:
		return -EINVAL;
	}
	if (rc) {
		free(b.slots);
		free(b.starts);
		return rc;
	}
	return b_finish(&b, s);
}

int lp_sched_from_list(struct lp_sched *s, int n, const int32_t *pairs, size_t npairs)
{
	struct builder b = { 0 };

	memset(s, 0, sizeof(*s));
	s->kind = LP_SCHED_LIST;
	s->n = n;
	for (size_t i = 0; i < npairs; i++) {
		if (pairs[2 * i] < 0 || pairs[2 * i] >= n || pairs[2 * i + 1] < 0 ||
		    pairs[2 * i + 1] >= n || pairs[2 * i] == pairs[2 * i + 1]) {
			free(b.slots);
			free(b.starts);
			return -EINVAL;
		}
		b_slot(&b, pairs[2 * i], pairs[2 * i + 1], LP_DIR_XY);
		b_round(&b);
	}
	return b_finish(&b, s);
}

int lp_sched_build_groups(struct lp_sched *s, enum lp_sched_kind kind, int n, const int *group,
			  int k, uint64_t seed)
{
	struct builder b = { 0 };
	int ngroups = 0, rc = 0;
	int *members = NULL, *off = NULL, *fill = NULL;
	struct lp_sched *sub = NULL;
	size_t maxr = 0;

	memset(s, 0, sizeof(*s));
	if (n < 1)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		if (group[i] < 0 || group[i] >= n)
			return -EINVAL;
		ngroups = LP_MAX(ngroups, group[i] + 1);
	}
	members = malloc((size_t)n * sizeof(*members));
	off = calloc(ngroups + 1, sizeof(*off));
	fill = calloc(ngroups, sizeof(*fill));
	sub = calloc(ngroups, sizeof(*sub));
	if (!members || !off || !fill || !sub) {
		rc = -ENOMEM;
		goto out;
	}
	/* members of group g, in index order: members[off[g] .. off[g+1]-1] */
	for (int i = 0; i < n; i++)
		off[group[i] + 1]++;
	for (int g = 0; g < ngroups; g++)
		off[g + 1] += off[g];
	for (int i = 0; i < n; i++)
		members[off[group[i]] + fill[group[i]]++] = i;
	for (int g = 0; g < ngroups && !rc; g++) {
		int gn = off[g + 1] - off[g];

		if (gn < 1)
			continue;
		rc = lp_sched_build(&sub[g], kind, gn, k, seed + (uint64_t)g);
		maxr = LP_MAX(maxr, sub[g].nrounds);
	}
	for (size_t r = 0; r < maxr && !rc; r++) {
		for (int g = 0; g < ngroups; g++) {
			size_t cnt;
			const struct lp_slot *sl = lp_sched_round(&sub[g], r, &cnt);

			for (size_t i = 0; i < cnt; i++)
				b_slot(&b, members[off[g] + sl[i].x], members[off[g] + sl[i].y],
				       sl[i].dirs);
		}
		b_round(&b);
	}
	if (rc) {
		free(b.slots);
		free(b.starts);
		goto out;
	}
	rc = b_finish(&b, s);
	s->kind = kind;
	s->n = n;
out:
	if (sub)
		for (int g = 0; g < ngroups; g++)
			lp_sched_free(&sub[g]);
	free(sub);
	free(fill);
	free(off);
	free(members);
	return rc;
}

void lp_sched_free(struct lp_sched *s)
{
	free(s->slots);
	free(s->round_start);
	memset(s, 0, sizeof(*s));
}

const struct lp_slot *lp_sched_round(const struct lp_sched *s, size_t r, size_t *count_p)
{
	if (r >= s->nrounds) {
		*count_p = 0;
		return NULL;
	}
	*count_p = s->round_start[r + 1] - s->round_start[r];
	return s->slots + s->round_start[r];
}

static unsigned ndirs(unsigned d)
{
	return (d & 1) + ((d >> 1) & 1);
}

size_t lp_sched_ordered_pairs(const struct lp_sched *s)
{
	size_t c = 0;

	for (size_t i = 0; i < s->nslots; i++)
		c += ndirs(s->slots[i].dirs);
	return c;
}

int lp_sched_check(const struct lp_sched *s, struct lp_fail *fail)
{
	size_t n = (size_t)s->n;
	uint8_t *seen = calloc(n * n / 8 + 1, 1);	  /* ordered pairs */
	uint32_t *last = malloc((n + 1) * sizeof(*last)); /* round + 1 a node was last used */
	int rc = 0;

	if (!seen || !last) {
		free(seen);
		free(last);
		return -ENOMEM;
	}
	memset(last, 0, (n + 1) * sizeof(*last));
	for (size_t r = 0; r < s->nrounds && !rc; r++) {
		size_t cnt;
		const struct lp_slot *sl = lp_sched_round(s, r, &cnt);

		if (cnt == 0) {
			rc = lp_fail_set(fail, -EINVAL, "round %zu is empty", r);
		}
		for (size_t i = 0; i < cnt && !rc; i++) {
			size_t x = (size_t)sl[i].x, y = (size_t)sl[i].y;

			if (sl[i].x < 0 || sl[i].y < 0 || x >= n || y >= n || x == y ||
			    !sl[i].dirs || sl[i].dirs > LP_DIR_BOTH) {
				rc = lp_fail_set(fail, -EINVAL, "round %zu: bad slot (%d,%d,%u)", r,
						 sl[i].x, sl[i].y, sl[i].dirs);
				break;
			}
			if (last[x] == r + 1 || last[y] == r + 1) {
				rc = lp_fail_set(fail, -EINVAL, "round %zu: node %zu twice", r,
						 last[x] == r + 1 ? x : y);
				break;
			}
			last[x] = last[y] = (uint32_t)(r + 1);
			for (unsigned d = 1; d <= 2; d++) {
				size_t a = d == 1 ? x : y, bb = d == 1 ? y : x, bit = a * n + bb;

				if (!(sl[i].dirs & d))
					continue;
				if (seen[bit / 8] & (1u << (bit % 8))) {
					rc = lp_fail_set(fail, -EINVAL,
							 "round %zu: pair %zu->%zu twice", r, a,
							 bb);
					break;
				}
				seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
			}
		}
	}
	free(seen);
	free(last);
	return rc;
}

double lp_sched_time_model(const struct lp_sched *s, double pair_s, double round_s)
{
	double t = 0;

	for (size_t r = 0; r < s->nrounds; r++) {
		size_t cnt;
		const struct lp_slot *sl = lp_sched_round(s, r, &cnt);
		unsigned worst = 0;

		for (size_t i = 0; i < cnt; i++)
			worst = LP_MAX(worst, ndirs(sl[i].dirs));
		t += worst * pair_s + round_s;
	}
	return t;
}
