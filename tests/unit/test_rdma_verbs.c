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

/* A QP connected to itself: INIT -> RTR -> RTS (the moves a pooled QP makes for each new peer). */
static void qp_self_connect(struct ibv_qp *qp, uint32_t psn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
				 .port_num = (uint8_t)dev->info.port,
				 .qp_access_flags =
					 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE };

	assert_int_equal(lp_verbs_err(ibv_modify_qp(qp, &a,
						    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
							    IBV_QP_ACCESS_FLAGS)),
			 0);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR,
				  .path_mtu = IBV_MTU_1024,
				  .dest_qp_num = qp->qp_num,
				  .rq_psn = psn,
				  .max_dest_rd_atomic = 1,
				  .min_rnr_timer = 12,
				  .ah_attr = { .dlid = dev->info.lid,
					       .port_num = (uint8_t)dev->info.port,
					       .is_global = dev->is_roce } };
	if (dev->is_roce) {
		a.ah_attr.grh.dgid = dev->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)dev->info.gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	assert_int_equal(lp_verbs_err(ibv_modify_qp(qp, &a,
						    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
							    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
							    IBV_QP_MAX_DEST_RD_ATOMIC |
							    IBV_QP_MIN_RNR_TIMER)),
			 0);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS,
				  .timeout = 14,
				  .retry_cnt = 7,
				  .rnr_retry = 7,
				  .sq_psn = psn,
				  .max_rd_atomic = 1 };
	assert_int_equal(
		lp_verbs_err(ibv_modify_qp(qp, &a,
					   IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
						   IBV_QP_MAX_QP_RD_ATOMIC)),
		0);
}

/* An RDMA write of 64 bytes of v from buf[0] to buf[64] through qp: it lands. */
static void write_lands(struct reset_qp *r, struct ibv_mr *mr, uint8_t v)
{
	struct ibv_sge sge = { .addr = (uintptr_t)r->buf, .length = 64, .lkey = mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.rdma = { .remote_addr = (uintptr_t)r->buf + 64,
					       .rkey = mr->rkey } },
			   *bad;
	struct ibv_wc wc;
	int n = 0;

	memset(r->buf, v, 64);
	memset(r->buf + 64, 0, 64);
	assert_int_equal(lp_verbs_err(ibv_post_send(r->qp, &wr, &bad)), 0);
	for (int i = 0; i < 5000 && n == 0; i++) {
		n = ibv_poll_cq(r->cq, 1, &wc);
		if (!n)
			usleep(1000);
	}
	assert_int_equal(n, 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(r->buf, r->buf + 64, 64);
}

/*
 * Set-up reuse (rdma/conn.c): a QP that carried a test is moved to RESET and
 * connected again (INIT -> RTR -> RTS with a new PSN), and carries the next
 * one -- what the QP pool does between pairs, on this provider.
 */
static void test_qp_reconnect(void **state)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct reset_qp r;
	struct ibv_mr *mr;

	(void)state;
	reset_qp_open(&r);
	mr = ibv_reg_mr(dev->pd, r.buf, sizeof(r.buf),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(mr);
	qp_self_connect(r.qp, 7);
	write_lands(&r, mr, 0x5a);
	assert_int_equal(lp_verbs_err(ibv_modify_qp(r.qp, &a, IBV_QP_STATE)), 0);
	qp_self_connect(r.qp, 1234);
	write_lands(&r, mr, 0xa5);
	ibv_dereg_mr(mr);
	reset_qp_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verbs_err),
		cmocka_unit_test(test_post_recv_reset),
		cmocka_unit_test(test_post_send_reset),
		cmocka_unit_test(test_qp_reconnect),
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
