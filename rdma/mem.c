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

static int host_alloc(struct lp_mem *m, size_t len)
{
	/* Page-aligned so registration pins whole pages; zeroed so stale data cannot pass. */
	if (posix_memalign(&m->addr, 4096, len))
		return -ENOMEM;
	memset(m->addr, 0, len);
	snprintf(m->desc, sizeof(m->desc), "host");
	return 0;
}

static void host_free(struct lp_mem *m)
{
	free(m->addr);
}

static int host_reg(struct lp_mem *m, struct ibv_pd *pd, int access)
{
	m->mr = ibv_reg_mr(pd, m->addr, m->len, access);
	if (!m->mr)
		return -errno;
	m->how = "host";
	return 0;
}

/* Byte i of [off, off+len) against the pattern of seed: one hash per 8 bytes (little-endian words). */
static int host_fill(struct lp_mem *m, size_t off, size_t len, uint32_t seed)
{
	uint8_t *p = (uint8_t *)m->addr + off;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w = lp_pattern_word(seed, i >> 3);

		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = lp_pattern_byte(seed, i);
	return 0;
}

static int host_verify(struct lp_mem *m, size_t off, size_t len, uint32_t seed, size_t *bad_p)
{
	const uint8_t *p = (const uint8_t *)m->addr + off;

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

static int host_write(struct lp_mem *m, size_t off, const void *src, size_t len)
{
	memcpy((uint8_t *)m->addr + off, src, len);
	return 0;
}

static int host_read(struct lp_mem *m, size_t off, void *dst, size_t len)
{
	memcpy(dst, (uint8_t *)m->addr + off, len);
	return 0;
}

static const struct lp_mem_ops host_ops = {
	.name = "host",
	.alloc = host_alloc,
	.free = host_free,
	.reg = host_reg,
	.fill = host_fill,
	.verify = host_verify,
	.write = host_write,
	.read = host_read,
};

#ifdef LP_HAVE_CUDA
extern const struct lp_mem_ops lp_mem_cuda_ops;
#endif

const struct lp_mem_ops *lp_mem_ops_get(int kind)
{
	switch (kind) {
	case LP_MEM_HOST:
		return &host_ops;
#ifdef LP_HAVE_CUDA
	case LP_MEM_CUDA:
		return &lp_mem_cuda_ops;
#endif
	default:
		return NULL;
	}
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

int lp_mem_alloc(struct lp_mem *m, int kind, int dev, size_t len)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->rdma_order = -1;
	m->ops = lp_mem_ops_get(kind);
	if (!m->ops) {
		lp_err("GPU memory is not built into this binary (CUDA was not found at build time)");
		return -EOPNOTSUPP;
	}
	m->dev = dev;
	m->len = len;
	ret = m->ops->alloc(m, len);
	if (ret) {
		if (ret == -ENOMEM)
			lp_err("cannot allocate %zu bytes of %s memory", len, m->ops->name);
		m->ops = NULL;
	}
	return ret;
}

int lp_mem_reg(struct lp_mem *m, struct ibv_pd *pd, int access)
{
	struct rlimit rl;
	int ret = m->ops->reg(m, pd, access);

	if (!ret)
		return 0;
	if (m->ops == &host_ops && (ret == -ENOMEM || ret == -EPERM || ret == -EAGAIN) &&
	    !getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < m->len + (1u << 20)) {
		lp_err("memory registration of %zu bytes failed: %s; the locked-memory limit is "
		       "%llu KiB: raise it (ulimit -l unlimited, or memlock in "
		       "/etc/security/limits.conf)",
		       m->len, strerror(-ret), (unsigned long long)rl.rlim_cur / 1024);
	} else if (m->ops == &host_ops) {
		lp_err("memory registration of %zu bytes of host memory failed: %s", m->len,
		       strerror(-ret));
	} /* the CUDA kind logs its own advice (nvidia-peermem, dma-buf) */
	return ret;
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
