// SPDX-License-Identifier: MIT
/* lp-rdma's messages, each declared once, and the calls that send and receive them. */
#include "rdma/internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"

/* clang-format off */
const struct lp_record lp_rdma_params_record = LP_RECORD(struct lp_rdma_params,
	LP_REC_U32(struct lp_rdma_params, test),
	LP_REC_U64(struct lp_rdma_params, size),
	LP_REC_U64(struct lp_rdma_params, iters),
	LP_REC_U64(struct lp_rdma_params, warmup),
	LP_REC_F64(struct lp_rdma_params, duration_s),
	LP_REC_U32(struct lp_rdma_params, tx_depth),
	LP_REC_U32(struct lp_rdma_params, rx_depth),
	LP_REC_U32(struct lp_rdma_params, cq_mod),
	LP_REC_U32(struct lp_rdma_params, post_list),
	LP_REC_U32(struct lp_rdma_params, num_qps),
	LP_REC_U32(struct lp_rdma_params, inline_size),
	LP_REC_U32(struct lp_rdma_params, mtu),
	LP_REC_BOOL(struct lp_rdma_params, bidir),
	LP_REC_BOOL(struct lp_rdma_params, verify),
	LP_REC_BOOL(struct lp_rdma_params, use_cm),
	LP_REC_U32(struct lp_rdma_params, seed),
	LP_REC_U64(struct lp_rdma_params, max_samples),
	LP_REC_I32(struct lp_rdma_params, timeout_ms),
	LP_REC_U32(struct lp_rdma_params, mem),
	LP_REC_I32(struct lp_rdma_params, mem_dev),
	LP_REC_U32(struct lp_rdma_params, lat_method),
	LP_REC_I32(struct lp_rdma_params, gid_type),
	LP_REC_U16(struct lp_rdma_params, cm_port),
	LP_REC_F64(struct lp_rdma_params, interval_s));

const struct lp_record lp_rdma_devinfo_record = LP_RECORD(struct lp_rdma_devinfo,
	LP_REC_STR(struct lp_rdma_devinfo, name, LP_REC_KEY("device")),
	LP_REC_I32(struct lp_rdma_devinfo, port),
	LP_REC_STR(struct lp_rdma_devinfo, link_layer),
	LP_REC_STR(struct lp_rdma_devinfo, transport),
	LP_REC_I32(struct lp_rdma_devinfo, gid_index),
	LP_REC_STR(struct lp_rdma_devinfo, gid),
	LP_REC_STR(struct lp_rdma_devinfo, gid_type),
	LP_REC_U16(struct lp_rdma_devinfo, lid),
	LP_REC_U32(struct lp_rdma_devinfo, active_mtu, LP_REC_KEY("mtu")),
	LP_REC_STR(struct lp_rdma_devinfo, speed, LP_REC_KEY("active_speed")),
	LP_REC_U32(struct lp_rdma_devinfo, width, LP_REC_KEY("active_width")),
	LP_REC_F64(struct lp_rdma_devinfo, rate_gbps),
	LP_REC_STR(struct lp_rdma_devinfo, fw, LP_REC_KEY("firmware")),
	LP_REC_STR(struct lp_rdma_devinfo, netdev),
	LP_REC_I32(struct lp_rdma_devinfo, numa_node),
	LP_REC_STR(struct lp_rdma_devinfo, node_guid),
	LP_REC_U32(struct lp_rdma_devinfo, vendor_id),
	LP_REC_U32(struct lp_rdma_devinfo, vendor_part_id),
	LP_REC_NEST(struct lp_rdma_devinfo, inv, lp_inv_port_record, LP_REC_KEY("inventory")));

/* lp_rdma_dev_reuse's counters: a test process's message to its rank (lp-sweep). */
const struct lp_record lp_rdma_reuse_stats_record = LP_RECORD(struct lp_rdma_reuse_stats,
	LP_REC_U64(struct lp_rdma_reuse_stats, mr_registered),
	LP_REC_U64(struct lp_rdma_reuse_stats, mr_reused),
	LP_REC_U64(struct lp_rdma_reuse_stats, qp_created),
	LP_REC_U64(struct lp_rdma_reuse_stats, qp_reused),
	LP_REC_U64(struct lp_rdma_reuse_stats, qp_fallbacks),
	LP_REC_U64(struct lp_rdma_reuse_stats, released));

static const struct lp_record qp_ep_record = LP_RECORD(struct lp_qp_ep,
	LP_REC_U32(struct lp_qp_ep, qpn),
	LP_REC_U32(struct lp_qp_ep, psn, LP_REC_RANGE(0, 0xffffff)));

const struct lp_record lp_qpinfo_record = LP_RECORD(struct lp_qpinfo,
	LP_REC_U32(struct lp_qpinfo, nqps, LP_REC_RANGE(1, LP_RDMA_MAX_QPS)),
	LP_REC_ARRAY_NEST(struct lp_qpinfo, qp, nqps, qp_ep_record),
	LP_REC_U16(struct lp_qpinfo, lid),
	LP_REC_BYTES(struct lp_qpinfo, gid),
	LP_REC_U32(struct lp_qpinfo, rkey),
	LP_REC_U64(struct lp_qpinfo, addr),
	LP_REC_U64(struct lp_qpinfo, slot),
	LP_REC_U32(struct lp_qpinfo, mtu),
	LP_REC_U32(struct lp_qpinfo, mem_kind, LP_REC_RANGE(LP_MEM_HOST, LP_MEM_CUDA)),
	LP_REC_U32(struct lp_qpinfo, detect, LP_REC_RANGE(LP_DETECT_CPU, LP_DETECT_IMM)),
	LP_REC_STR(struct lp_qpinfo, mem),
	LP_REC_U64(struct lp_qpinfo, cm_token));

const struct lp_record lp_proto_error_record = LP_RECORD(struct lp_proto_error,
	LP_REC_I32(struct lp_proto_error, status, LP_REC_RANGE(-LP_RDMA_MAX_ERRNO, -1)),
	LP_REC_STR(struct lp_proto_error, text));

const struct lp_record lp_proto_done_record = LP_RECORD(struct lp_proto_done,
	LP_REC_U64(struct lp_proto_done, iters),
	LP_REC_U32(struct lp_proto_done, nqps, LP_REC_RANGE(1, LP_RDMA_MAX_QPS)),
	LP_REC_ARRAY(struct lp_proto_done, msgs, nqps, LP_REC_T_U64, uint64_t));

const struct lp_record lp_rdma_verified_record = LP_RECORD(struct lp_rdma_verified,
	LP_REC_BOOL(struct lp_rdma_verified, ok),
	LP_REC_U64(struct lp_rdma_verified, messages),
	LP_REC_U64(struct lp_rdma_verified, bytes),
	LP_REC_U64(struct lp_rdma_verified, landed, LP_REC_KEY("messages_landed")),
	LP_REC_U64(struct lp_rdma_verified, ring, LP_REC_KEY("ring_slots")),
	LP_REC_STR(struct lp_rdma_verified, where, LP_REC_KEY("checked_by")));

const struct lp_record lp_rdma_result_msg_record = LP_RECORD(struct lp_rdma_result_msg,
	LP_REC_I32(struct lp_rdma_result_msg, status, LP_REC_RANGE(-LP_RDMA_MAX_ERRNO, 0)),
	LP_REC_STR(struct lp_rdma_result_msg, text),
	LP_REC_U32(struct lp_rdma_result_msg, verify, LP_REC_RANGE(0, LP_VERIFY_BAD)),
	LP_REC_F64(struct lp_rdma_result_msg, bytes),
	LP_REC_F64(struct lp_rdma_result_msg, msgs),
	LP_REC_F64(struct lp_rdma_result_msg, ns),
	LP_REC_U64(struct lp_rdma_result_msg, iters),
	LP_REC_U32(struct lp_rdma_result_msg, nqps, LP_REC_RANGE(1, LP_RDMA_MAX_QPS)),
	LP_REC_ARRAY(struct lp_rdma_result_msg, sent, nqps, LP_REC_T_U64, uint64_t),
	LP_REC_NEST(struct lp_rdma_result_msg, checked, lp_rdma_verified_record),
	LP_REC_NEST(struct lp_rdma_result_msg, ival, lp_ival_summary_record),
	LP_REC_NEST(struct lp_rdma_result_msg, ctr, lp_ctr_moved_record));

const struct lp_record lp_proto_open_record = LP_RECORD(struct lp_proto_open,
	LP_REC_BYTES(struct lp_proto_open, nonce));

const struct lp_record lp_proto_challenge_record = LP_RECORD(struct lp_proto_challenge,
	LP_REC_BYTES(struct lp_proto_challenge, nonce),
	LP_REC_BOOL(struct lp_proto_challenge, key),
	LP_REC_BYTES(struct lp_proto_challenge, proof));

const struct lp_record lp_proto_auth_record = LP_RECORD(struct lp_proto_auth,
	LP_REC_BYTES(struct lp_proto_auth, mac));

const struct lp_record lp_proto_busy_record = LP_RECORD(struct lp_proto_busy,
	LP_REC_U32(struct lp_proto_busy, retry_s),
	LP_REC_STR(struct lp_proto_busy, text));
/* clang-format on */

static const struct {
	const char *name;
	const struct lp_record *rec; /* NULL: no body */
} msgs[LP_MSG_NTYPES] = {
	[LP_MSG_HELLO] = { "HELLO", &lp_rdma_params_record },
	[LP_MSG_ACCEPT] = { "ACCEPT", &lp_rdma_devinfo_record },
	[LP_MSG_ERROR] = { "ERROR", &lp_proto_error_record },
	[LP_MSG_QPINFO] = { "QPINFO", &lp_qpinfo_record },
	[LP_MSG_READY] = { "READY", NULL },
	[LP_MSG_DONE] = { "DONE", &lp_proto_done_record },
	[LP_MSG_RESULT] = { "RESULT", &lp_rdma_result_msg_record },
	[LP_MSG_BYE] = { "BYE", NULL },
	[LP_MSG_OPEN] = { "OPEN", &lp_proto_open_record },
	[LP_MSG_CHALLENGE] = { "CHALLENGE", &lp_proto_challenge_record },
	[LP_MSG_AUTH] = { "AUTH", &lp_proto_auth_record },
	[LP_MSG_GRANT] = { "GRANT", NULL },
	[LP_MSG_BUSY] = { "BUSY", &lp_proto_busy_record },
};

const struct lp_record *lp_proto_record(uint16_t type)
{
	return type < LP_MSG_NTYPES ? msgs[type].rec : NULL;
}

const char *lp_proto_name(uint16_t type)
{
	return type < LP_MSG_NTYPES && msgs[type].name ? msgs[type].name : "unknown";
}

int lp_proto_encode(uint16_t type, const void *msg, struct lp_wbuf *w)
{
	const struct lp_record *rec = lp_proto_record(type);

	lp_wbuf_init(w);
	return rec ? lp_record_encode(rec, msg, w) : 0;
}

/* A peer stopped by a signal cancelled the test: that is not a failure of this side. */
static int32_t peer_status(int32_t status)
{
	return status == -EINTR ? -ECANCELED : status;
}

int lp_proto_decode(uint16_t type, void *msg, const void *body, size_t len)
{
	const struct lp_record *rec = lp_proto_record(type);
	int ret;

	if (!rec)
		return len ? -EPROTO : 0;
	ret = lp_record_decode_body(rec, msg, body, len);
	if (ret)
		return ret;
	if (type == LP_MSG_ERROR)
		((struct lp_proto_error *)msg)->status =
			peer_status(((struct lp_proto_error *)msg)->status);
	if (type == LP_MSG_RESULT)
		((struct lp_rdma_result_msg *)msg)->status =
			peer_status(((struct lp_rdma_result_msg *)msg)->status);
	return 0;
}

void lp_oob_phase(struct lp_oob *oob, const char *phase, int limit_ms)
{
	oob->phase = phase;
	oob->phase_ms = limit_ms;
	__atomic_store_n(&oob->deadline_ns,
			 limit_ms > 0 ? lp_now_ns() + (uint64_t)limit_ms * 1000000ull : 0,
			 __ATOMIC_RELAXED);
}

int lp_oob_wait_ms(const struct lp_oob *oob, int timeout_ms)
{
	uint64_t now = lp_now_ns(), dl = oob->deadline_ns;

	if (!dl)
		return timeout_ms;
	if (now >= dl)
		return 0;
	return (int)LP_MIN((uint64_t)timeout_ms, (dl - now + 999999) / 1000000);
}

/* Did the phase's deadline end a wait (not the wait's own timeout)? */
static bool phase_over(const struct lp_oob *oob)
{
	return oob->deadline_ns && lp_now_ns() >= oob->deadline_ns;
}

static int send_within(struct lp_oob *oob, uint16_t type, const void *msg, int timeout_ms)
{
	struct lp_wbuf w;
	int ret = lp_proto_encode(type, msg, &w);

	return ret ? ret : oob->ops->send(oob->ctx, type, &w, timeout_ms);
}

int lp_proto_send(struct lp_oob *oob, uint16_t type, const void *msg)
{
	int ms = lp_oob_wait_ms(oob, oob->timeout_ms);

	return ms ? send_within(oob, type, msg, ms) : -ETIMEDOUT;
}

void lp_proto_send_error(struct lp_oob *oob, int status, const char *fmt, ...)
{
	struct lp_proto_error e = { .status = status };
	va_list ap;

	if (status >= 0 || status < -LP_RDMA_MAX_ERRNO)
		e.status = -ECONNABORTED;
	va_start(ap, fmt);
	vsnprintf(e.text, sizeof(e.text), fmt, ap);
	va_end(ap);
	/* the reason goes out after a phase's deadline too, within a short bound of its own */
	send_within(oob, LP_MSG_ERROR, &e, LP_MIN(oob->timeout_ms, 1000));
}

int lp_oob_recv(struct lp_oob *oob, uint16_t *type_p, uint8_t *body, size_t *len_p, int timeout_ms)
{
	uint64_t end = lp_now_ns() + (uint64_t)lp_oob_wait_ms(oob, timeout_ms) * 1000000ull;

	while (oob->stop) {
		int n = oob->ops->ready(oob->ctx);

		if (n)
			break; /* a message, or an error that recv reports */
		if (*oob->stop)
			return -EINTR;
		if (lp_now_ns() >= end)
			return -ETIMEDOUT;
		usleep(2000);
	}
	if (lp_now_ns() >= end)
		return -ETIMEDOUT;
	/* rounded up: the frame's own deadline is never before the phase's */
	return oob->ops->recv(
		oob->ctx, type_p, body, len_p,
		(int)LP_MAX(1, ((int64_t)end - (int64_t)lp_now_ns() + 999999) / 1000000));
}

/* The channel's failure as one line. */
static int channel_fail(struct lp_oob *oob, int ret, uint16_t peer_version, struct lp_fail *f)
{
	if (ret == -EPROTONOSUPPORT)
		return lp_fail_set(f, ret,
				   "peer %s speaks linkperf wire version %u, this build needs %u",
				   oob->peer_name, peer_version, LP_WIRE_VERSION);
	if (ret == -ETIMEDOUT && phase_over(oob))
		return lp_fail_set(
			f, ret, "no answer from %s: the %s phase took longer than its %d s limit",
			oob->peer_name, oob->phase ? oob->phase : "session",
			(oob->phase_ms + 999) / 1000);
	return lp_fail_set(f, ret, "%s %s: %s",
			   ret == -ETIMEDOUT ? "no answer from" : "exchange with", oob->peer_name,
			   ret == -ETIMEDOUT	? "timed out"
			   : ret == -ECONNRESET ? "connection lost (peer exited?)"
			   : ret == -EPROTO	? "malformed message"
			   : ret == -EINTR	? "interrupted"
						: strerror(-ret));
}

int lp_proto_recv(struct lp_oob *oob, uint16_t *type_p, uint8_t *body, size_t *len_p,
		  int timeout_ms, struct lp_fail *f)
{
	int ret;

	*type_p = 0;
	ret = lp_oob_recv(oob, type_p, body, len_p, timeout_ms);
	/* a frame of another version names it in place of a type */
	return ret ? channel_fail(oob, ret, *type_p, f) : 0;
}

int lp_proto_expect(struct lp_oob *oob, uint16_t want, void *msg, int timeout_ms, struct lp_fail *f)
{
	uint8_t body[LP_WIRE_MAX_BODY];
	uint16_t type;
	size_t len;
	int ret = lp_proto_recv(oob, &type, body, &len, timeout_ms, f);

	return ret ? ret : lp_proto_take(oob, want, msg, type, body, len, f);
}

int lp_proto_take(struct lp_oob *oob, uint16_t want, void *msg, uint16_t type, const uint8_t *body,
		  size_t len, struct lp_fail *f)
{
	struct lp_proto_error e;
	int ret;

	if (type == LP_MSG_ERROR) {
		bool first = !f->err;

		if (lp_proto_decode(type, &e, body, len))
			ret = lp_fail_set(f, -ECONNABORTED, "peer %s: error (malformed ERROR)",
					  oob->peer_name);
		else
			ret = lp_fail_set(f, e.status, "peer %s: %s", oob->peer_name, e.text);
		f->from_peer |= first;
		return ret;
	}
	if (type != want)
		return lp_fail_set(f, -EPROTO, "unexpected message %s (%u) from %s (wanted %s)",
				   lp_proto_name(type), type, oob->peer_name, lp_proto_name(want));
	if (lp_proto_decode(type, msg, body, len))
		return lp_fail_set(f, -EPROTO, "malformed %s from %s", lp_proto_name(type),
				   oob->peer_name);
	return 0;
}
