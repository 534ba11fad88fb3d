// SPDX-License-Identifier: MIT
/*
 * Verbs errors on a real device (Soft-RoCE in the guest; exit 77 without one):
 * a post on a QP in the RESET state fails, and the cause lp-rdma reports is
 * the verb's return value, not errno (which the verbs need not set).
 */
#include "lp_test.h"

#include <errno.h>

#include "common/lp.h"
#include "rdma/internal.h"

static struct lp_rdma_dev *dev;

struct reset_qp {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t buf[128];
};

static void reset_qp_open(struct reset_qp *r)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	r->cq = ibv_create_cq(dev->ctx, 8, NULL, NULL, 0);
	assert_non_null(r->cq);
	a.send_cq = a.recv_cq = r->cq;
	r->qp = ibv_create_qp(dev->pd, &a); /* a new QP is in RESET */
	assert_non_null(r->qp);
	r->mr = ibv_reg_mr(dev->pd, r->buf, sizeof(r->buf), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(r->mr);
}

static void reset_qp_close(struct reset_qp *r)
{
	ibv_dereg_mr(r->mr);
	ibv_destroy_qp(r->qp);
	ibv_destroy_cq(r->cq);
}

/* The conversion lp-rdma uses: positive or negated codes alike become -errno. */
static void test_verbs_err(void **state)
{
	(void)state;
	assert_int_equal(lp_verbs_err(0), 0);
	assert_int_equal(lp_verbs_err(EINVAL), -EINVAL);
	assert_int_equal(lp_verbs_err(-ENOMEM), -ENOMEM);
}

/* lp_conn_post_recv on a RESET QP: the library returns the verb's code whatever errno says. */
static void test_post_recv_reset(void **state)
{
	struct reset_qp r;
	struct lp_rdma_conn c;
	int ret;

	(void)state;
	reset_qp_open(&r);
	memset(&c, 0, sizeof(c));
	c.qp[0] = r.qp;
	c.nqps = 1;
	c.slot = 64;
	c.depth = 1; /* one slot per ring: the receive lands at buf + 64 */
	c.mem.addr = r.buf;
	c.mem.mr = r.mr;
	errno = 0;
	ret = lp_conn_post_recv(&c, 0);
	printf("# ibv_post_recv on a RESET QP: %d (%s), errno afterwards %d\n", ret,
	       ret ? strerror(-ret) : "accepted", errno);
	/* The spec forbids receives in RESET: the cause is the verb's code, never "Success". */
	assert_true(ret < 0);
	assert_string_not_equal(strerror(-ret), strerror(0));
	reset_qp_close(&r);
}

/* ibv_post_send on a RESET QP and an illegal state change: each fails with a code. */
static void test_post_send_reset(void **state)
{
	struct reset_qp r;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
	int ret;

	(void)state;
	reset_qp_open(&r);
	sge = (struct ibv_sge){ .addr = (uintptr_t)r.buf, .length = 8, .lkey = r.mr->lkey };
	errno = 0;
	ret = ibv_post_send(r.qp, &wr, &bad);
	printf("# ibv_post_send on a RESET QP: returned %d, errno %d -> %s\n", ret, errno,
	       strerror(-lp_verbs_err(ret)));
	assert_int_not_equal(ret, 0);
	assert_true(lp_verbs_err(ret) < 0);
	errno = 0;
	ret = ibv_modify_qp(r.qp, &a, IBV_QP_STATE); /* RESET -> RTS skips INIT and RTR */
	printf("# ibv_modify_qp RESET -> RTS: returned %d, errno %d -> %s\n", ret, errno,
	       strerror(-lp_verbs_err(ret)));
	assert_int_not_equal(ret, 0);
	assert_true(lp_verbs_err(ret) < 0);
	reset_qp_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verbs_err),
		cmocka_unit_test(test_post_recv_reset),
		cmocka_unit_test(test_post_send_reset),
	};
	struct lp_rdma_devsel sel = { .gid_index = -1, .qp_timeout = LP_RDMA_QP_TIMEOUT_DEFAULT };
	int ret;

	lp_log_set_level(LP_LOG_ERR);
	if (lp_rdma_dev_open(&sel, AF_INET, &dev, NULL)) {
		printf("no usable RDMA device here: verbs error tests need one (run in the guest)\n");
		return 77;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	lp_rdma_dev_close(dev);
	return ret;
}
