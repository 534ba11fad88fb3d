// SPDX-License-Identifier: MIT
/* Memory kinds for RDMA buffers: host memory here, CUDA memory in mem_cuda.c. */
#include "rdma/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/lp.h"
#include "common/opt.h"
#include "common/pattern.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "host_fill/host_verify store pattern words little-endian"
#endif

static int host_alloc(struct lp_mem *m, size_t len, struct lp_fail *f)
{
	/* Page-aligned so registration pins whole pages; zeroed so stale data cannot pass. */
	if (posix_memalign(&m->addr, 4096, len))
		return lp_fail_set(f, -ENOMEM, "cannot allocate %zu bytes of host memory", len);
	memset(m->addr, 0, len);
	snprintf(m->desc, sizeof(m->desc), "host");
	return 0;
}

static void host_free(struct lp_mem *m)
{
	free(m->addr);
}

static int host_reg(struct lp_mem *m, struct ibv_pd *pd, int access, struct lp_fail *f)
{
	struct rlimit rl;
	int ret;

	m->mr = ibv_reg_mr(pd, m->addr, m->len, access);
	if (m->mr) {
		m->how = "host";
		return 0;
	}
	ret = errno ? -errno : -EIO;
	if ((ret == -ENOMEM || ret == -EPERM || ret == -EAGAIN) &&
	    !getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < m->len + (1u << 20))
		return lp_fail_set(
			f, ret,
			"memory registration of %zu bytes failed: %s; the locked-memory "
			"limit is %llu KiB: raise it (ulimit -l unlimited, or memlock in "
			"/etc/security/limits.conf)",
			m->len, strerror(-ret), (unsigned long long)rl.rlim_cur / 1024);
	return lp_fail_set(f, ret, "memory registration of %zu bytes of host memory failed: %s",
			   m->len, strerror(-ret));
}

/* Byte i of [off, off+len) against the pattern of seed: one hash per 8 bytes (little-endian words). */
static int host_fill(struct lp_mem *m, size_t off, size_t len, uint32_t seed, struct lp_fail *f)
{
	uint8_t *p = (uint8_t *)m->addr + off;
	size_t i = 0;

	(void)f; /* host memory: nothing can fail */
	for (; i + 8 <= len; i += 8) {
		uint64_t w = lp_pattern_word(seed, i >> 3);

		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = lp_pattern_byte(seed, i);
	return 0;
}

static int host_verify(struct lp_mem *m, size_t off, size_t len, uint32_t seed, size_t *bad_p,
		       struct lp_fail *f)
{
	const uint8_t *p = (const uint8_t *)m->addr + off;

	(void)f;
	for (size_t i = 0; i < len; i++) {
		if (i % 8 == 0 && i + 8 <= len) {
			uint64_t w = lp_pattern_word(seed, i >> 3);

			if (!memcmp(p + i, &w, 8)) {
				i += 7;
				continue;
			}
		}
		if (p[i] != lp_pattern_byte(seed, i)) {
			*bad_p = i;
			return -EILSEQ;
		}
	}
	return 0;
}

static int host_write(struct lp_mem *m, size_t off, const void *src, size_t len, struct lp_fail *f)
{
	(void)f;
	memcpy((uint8_t *)m->addr + off, src, len);
	return 0;
}

static int host_read(struct lp_mem *m, size_t off, void *dst, size_t len, struct lp_fail *f)
{
	(void)f;
	memcpy(dst, (uint8_t *)m->addr + off, len);
	return 0;
}

static const struct lp_mem_ops host_ops = {
	.name = "host",
	.caps = LP_MEM_CAP_CPU_VISIBLE,
	.alloc = host_alloc,
	.free = host_free,
	.reg = host_reg,
	.fill = host_fill,
	.verify = host_verify,
	.write = host_write,
	.read = host_read,
};

const struct lp_mem_ops *lp_mem_ops_get(int kind)
{
	const struct lp_mem_ops *const kinds[] = {
		[LP_MEM_HOST] = &host_ops,
		[LP_MEM_CUDA] = lp_mem_cuda_ops, /* NULL when CUDA is not built in */
	};

	return kind >= 0 && kind < (int)LP_ARRAY_SIZE(kinds) ? kinds[kind] : NULL;
}

int lp_mem_parse(const char *s, int *kind_p, int *dev_p)
{
	uint64_t d;

	*dev_p = -1;
	if (!strcmp(s, "host")) {
		*kind_p = LP_MEM_HOST;
		return 0;
	}
	if (strncmp(s, "cuda", 4) || (s[4] != '\0' && s[4] != ':'))
		return -EINVAL;
	*kind_p = LP_MEM_CUDA;
	if (s[4] == ':') {
		if (lp_parse_u64(s + 5, &d) || d > 1023)
			return -EINVAL;
		*dev_p = (int)d;
	}
	return 0;
}

int lp_mem_alloc(struct lp_mem *m, int kind, int dev, size_t len, struct lp_fail *f)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->ops = lp_mem_ops_get(kind);
	if (!m->ops)
		return lp_fail_set(f, -EOPNOTSUPP,
				   "GPU memory is not built into this binary (CUDA "
				   "was not found at build time)");
	m->dev = dev;
	m->len = len;
	ret = m->ops->alloc(m, len, f);
	if (ret)
		m->ops = NULL;
	return ret;
}

int lp_mem_reg(struct lp_mem *m, struct ibv_pd *pd, int access, struct lp_fail *f)
{
	return m->ops->reg(m, pd, access, f);
}

void lp_mem_free(struct lp_mem *m)
{
	if (m->mr)
		ibv_dereg_mr(m->mr);
	if (m->ops && m->addr)
		m->ops->free(m);
	memset(m, 0, sizeof(*m));
}

unsigned lp_mem_caps(const struct lp_mem *m)
{
	const char *t = getenv("LP_TEST_MEM_CAPS");
	unsigned caps = m->ops ? m->ops->caps : 0;

	if (t && strstr(t, "no_scatter_to_cqe"))
		caps |= LP_MEM_CAP_NO_SCATTER_TO_CQE;
	return caps;
}

/* The poller calls exist exactly for the kinds that declare LP_MEM_CAP_DEVICE_POLL. */
static bool polls(const struct lp_mem *m)
{
	return m->ops && (m->ops->caps & LP_MEM_CAP_DEVICE_POLL);
}

int lp_mem_poll_prepare(struct lp_mem *m, uint64_t timeout_ns, double *notify_ns_p,
			struct lp_fail *f)
{
	if (!polls(m))
		return lp_fail_set(f, -EOPNOTSUPP, "%s memory has no device poller",
				   m->ops ? m->ops->name : "unallocated");
	return m->ops->poll_prepare(m, timeout_ns, notify_ns_p, f);
}

int lp_mem_poll_start(struct lp_mem *m, size_t off, size_t stride, uint32_t depth, uint32_t iters,
		      uint64_t timeout_ns, struct lp_fail *f)
{
	return polls(m) ? m->ops->poll_start(m, off, stride, depth, iters, timeout_ns, f)
			: -EOPNOTSUPP;
}

int lp_mem_poll_seen(const struct lp_mem *m, uint32_t i)
{
	return polls(m) ? m->ops->poll_seen(m, i) : -EOPNOTSUPP;
}

const char *lp_mem_rdma_order(const struct lp_mem *m)
{
	return m->ops && m->ops->rdma_order_name ? m->ops->rdma_order_name(m) : NULL;
}
