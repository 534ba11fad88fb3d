// SPDX-License-Identifier: MIT
/* JSON form of one result: numbers as numbers, units in the key names, errors included. */
#include "rdma/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void summary_json(struct lp_json *j, const char *key, const struct lp_summary *s)
{
	lp_json_obj_begin(j, key);
	lp_record_json(&lp_summary_record, s, j);
	lp_json_obj_end(j);
}

static void bw_json(struct lp_json *j, const char *key, const struct lp_rdma_bw *b)
{
	lp_json_obj_begin(j, key);
	lp_json_num(j, "bytes", b->bytes);
	lp_json_num(j, "messages", b->msgs);
	lp_json_num(j, "seconds", b->ns / 1e9);
	lp_json_num(j, "gbytes_per_s", b->gbytes_s);
	lp_json_num(j, "gbits_per_s", b->gbits_s);
	lp_json_num(j, "mmsg_per_s", b->mmsg_s);
	lp_json_num(j, "percent_of_link", b->pct_link);
	lp_json_obj_end(j);
}

/* What --verify checked, in numbers and in words (docs/METHOD.md, "Verification"). */
static void verified_json(struct lp_json *j, const struct lp_rdma_result *r,
			  const struct lp_rdma_params *p)
{
	const struct lp_rdma_verified *v = &r->verified;
	char how[200];

	snprintf(
		how, sizeof(how),
		"every byte of each message in its own ring slot, against the pattern of (run seed, "
		"side, QP, slot)%s%s%s",
		lp_rdma_test(r->test)->detect && p->lat_method == LP_LAT_POLL
			? "; the last byte against the message's counter"
			: "",
		lp_rdma_test(r->test)->needs_recv
			? "; receive completions counted against the messages sent"
			: "",
		v->messages < v->landed ? "; slots reused: the last message of each slot" : "");
	lp_json_obj_begin(j, "verified");
	lp_record_json(&lp_rdma_verified_record, v, j);
	lp_json_uint(j, "seed", p->seed);
	lp_json_str(j, "method", how);
	lp_json_obj_end(j);
}

/* This side's GPUDirect RDMA choices; GPU-polled latency with the notification it includes. */
static void gdr_json(struct lp_json *j, const struct lp_rdma_result *r)
{
	lp_json_obj_begin(j, "local_setup");
	lp_json_str(j, "scatter_to_cqe", r->scatter_to_cqe);
	lp_json_bool(j, "relaxed_ordering", r->relaxed_ordering);
	if (r->gpu_rdma_order)
		lp_json_str(j, "gpu_rdma_writes_ordering", r->gpu_rdma_order);
	lp_json_obj_end(j);
	if (r->status || !r->gpu_poll_sides)
		return;
	lp_json_obj_begin(j, "gpu_poll");
	lp_json_uint(j, "sides", r->gpu_poll_sides);
	lp_json_str(j, "includes",
		    "each GPU-polling side's detection includes a GPU->CPU notification: "
		    "one-way latency holds sides/2 of them");
	/* Measured on this side's GPU (null when this side does not poll with its GPU); the
	 * estimate below assumes the peer's notification costs the same. NaN -> null. */
	lp_json_num(j, "notification_us", r->gpu_notify_us);
	lp_json_num(j, "p50_without_notification_us",
		    r->lat_us.p50 - r->gpu_poll_sides * r->gpu_notify_us / 2);
	lp_json_obj_end(j);
}

static void ival_summary_json(struct lp_json *j, const char *key, const struct lp_ival_summary *s)
{
	lp_json_obj_begin(j, key);
	lp_record_json(&lp_ival_summary_record, s, j);
	lp_json_obj_end(j);
}

/* --interval: the series and its summary (docs/METHOD.md, "Intervals"). */
static void intervals_json(struct lp_json *j, const struct lp_rdma_result *r,
			   const struct lp_rdma_params *p)
{
	bool lat = lp_rdma_test_is_lat(r->test);

	lp_json_obj_begin(j, "intervals");
	lp_json_num(j, "period_s", p->interval_s);
	if (!lat) /* completions are reaped in steps of --cq-mod messages per QP */
		lp_json_uint(j, "step_messages", p->cq_mod);
	lp_json_str(j, "value",
		    lat ? (r->lat_halved ? "latency p50, us, one-way" : "latency p50, us")
			: "GB/s of the client's sending direction, by completion time");
	ival_summary_json(j, "summary", &r->ival_sum);
	if (r->ival_sum_remote.n)
		ival_summary_json(j, "server_to_client_summary", &r->ival_sum_remote);
	lp_json_arr_begin(j, "series");
	for (size_t i = 0; i < r->nival; i++) {
		const struct lp_ival *iv = &r->ival[i];

		lp_json_obj_begin(j, NULL);
		lp_json_num(j, "start_s", iv->start_s);
		lp_json_num(j, "seconds", iv->len_s);
		if (lat) {
			lp_json_uint(j, "samples", iv->n);
			lp_json_num(j, "p50_us", iv->p50);
			lp_json_num(j, "p99_us", iv->p99);
		} else {
			lp_json_uint(j, "messages", iv->n);
			lp_json_num(j, "gbytes_per_s", iv->gbytes_s);
			lp_json_num(j, "mmsg_per_s", iv->mmsg_s);
		}
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_obj_end(j);
}

void lp_rdma_result_free(struct lp_rdma_result *r)
{
	free(r->ival);
	r->ival = NULL;
	r->nival = 0;
}

void lp_rdma_result_json(const struct lp_rdma_result *r, const struct lp_rdma_params *p,
			 struct lp_json *j)
{
	lp_json_str(j, "test", lp_rdma_test_names[r->test]);
	lp_json_uint(j, "size", r->size);
	lp_json_str(j, "status", r->status ? "error" : "ok");
	if (r->status) {
		lp_json_int(j, "errno", -r->status);
		lp_json_str(j, "error", r->error);
	}
	lp_json_obj_begin(j, "params");
	lp_json_uint(j, "iterations", p->duration_s > 0 ? 0 : p->iters);
	lp_json_num(j, "duration_s", p->duration_s);
	lp_json_uint(j, "warmup", p->warmup);
	lp_json_uint(j, "tx_depth", p->tx_depth);
	lp_json_uint(j, "rx_depth", p->rx_depth);
	lp_json_uint(j, "cq_moderation", p->cq_mod);
	lp_json_uint(j, "post_list", p->post_list);
	lp_json_uint(j, "qps", p->num_qps);
	lp_json_bool(j, "bidirectional", p->bidir);
	lp_json_bool(j, "verify", p->verify);
	lp_json_str(j, "connection", p->use_cm ? "rdma_cm" : "exchange");
	lp_json_num(j, "interval_s", p->interval_s);
	lp_json_obj_end(j);
	lp_json_uint(j, "mtu", r->mtu);
	lp_json_uint(j, "max_inline", r->inline_size);
	lp_json_str(j, "local_mem", r->local_mem);
	lp_json_str(j, "remote_mem", r->remote_mem);
	gdr_json(j, r);
	lp_json_uint(j, "timed_iterations", r->iters);
	if (p->verify)
		verified_json(j, r, p);
	/* Each side's port counters that moved (null: not read there), outside the timed loop. */
	lp_json_obj_begin(j, "counters");
	lp_ctr_moved_json(&r->ctr_local, "client", j);
	lp_ctr_moved_json(&r->ctr_remote, "server", j);
	lp_json_obj_end(j);
	if (r->status)
		return;
	if (p->interval_s > 0)
		intervals_json(j, r, p);
	if (lp_rdma_test_is_lat(r->test)) {
		lp_json_str(j, "latency_method", r->lat_method);
		lp_json_str(j, "latency_kind", r->lat_halved ? "one_way=rtt/2" : "full_completion");
		lp_json_uint(j, "warmup_iterations", r->warmup);
		summary_json(j, "latency_us", &r->lat_us);
		summary_json(j, "rtt_us", &r->rtt_us);
	} else {
		lp_json_num(j, "link_rate_gbps", r->rate_gbps);
		bw_json(j, p->bidir ? "client_to_server" : "bandwidth", &r->local);
		if (p->bidir) {
			bw_json(j, "server_to_client", &r->remote);
			lp_json_obj_begin(j, "sum");
			lp_json_num(j, "gbytes_per_s", r->sum_gbytes_s);
			lp_json_num(j, "gbits_per_s", r->sum_gbits_s);
			lp_json_str(j, "sum_method", LP_RDMA_BIDIR_SUM_METHOD);
			lp_json_obj_end(j);
		}
	}
}
