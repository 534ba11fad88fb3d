// SPDX-License-Identifier: MIT
/* linkperf.rdma/2 as records, and a run's view (rdma/doc.h). */
#include "rdma/doc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ival.h"
#include "rdma/internal.h"

const char *const lp_rdma_doc_more[] = { "method",    "check",	       "snapshot",
					 "inventory", "qualification", NULL };

/* clang-format off */
#define DR struct lp_rdma_doc_result
static const struct lp_record params_rec = LP_RECORD(struct lp_rdma_doc_params,
	LP_REC_U64(struct lp_rdma_doc_params, iters, LP_REC_DOC("timed iterations; 0 when the run lasted duration_s")),
	LP_REC_F64(struct lp_rdma_doc_params, duration_s),
	LP_REC_U64(struct lp_rdma_doc_params, warmup),
	LP_REC_U32(struct lp_rdma_doc_params, tx_depth),
	LP_REC_U32(struct lp_rdma_doc_params, rx_depth),
	LP_REC_U32(struct lp_rdma_doc_params, cq_moderation),
	LP_REC_U32(struct lp_rdma_doc_params, post_list),
	LP_REC_U32(struct lp_rdma_doc_params, qps),
	LP_REC_BOOL(struct lp_rdma_doc_params, bidirectional),
	LP_REC_BOOL(struct lp_rdma_doc_params, verify),
	LP_REC_STR(struct lp_rdma_doc_params, connection, LP_REC_DOC("exchange or rdma_cm")),
	LP_REC_F64(struct lp_rdma_doc_params, interval_s));
static const struct lp_record head_rec = LP_RECORD(struct lp_rdma_doc_head,
	LP_REC_STR(struct lp_rdma_doc_head, test),
	LP_REC_U64(struct lp_rdma_doc_head, size, LP_REC_DOC("message size, bytes")),
	LP_REC_STR(struct lp_rdma_doc_head, status, LP_REC_DOC("ok or error")));
static const struct lp_record run_rec = LP_RECORD(struct lp_rdma_doc_run,
	LP_REC_U32(struct lp_rdma_doc_run, mtu),
	LP_REC_U32(struct lp_rdma_doc_run, max_inline),
	LP_REC_STR(struct lp_rdma_doc_run, local_mem),
	LP_REC_STR(struct lp_rdma_doc_run, remote_mem),
	LP_REC_U64(struct lp_rdma_doc_run, timed_iters));
static const struct lp_record setup_rec = LP_RECORD(struct lp_rdma_doc_setup,
	LP_REC_STR(struct lp_rdma_doc_setup, scatter_to_cqe),
	LP_REC_BOOL(struct lp_rdma_doc_setup, relaxed_ordering),
	LP_REC_STR(struct lp_rdma_doc_setup, gpu_rdma_writes_ordering));
static const struct lp_record gpu_poll_rec = LP_RECORD(struct lp_rdma_doc_gpu_poll,
	LP_REC_U32(struct lp_rdma_doc_gpu_poll, sides, LP_REC_RANGE(1, 2)),
	LP_REC_STR(struct lp_rdma_doc_gpu_poll, includes),
	LP_REC_F64(struct lp_rdma_doc_gpu_poll, notification_us),
	LP_REC_F64(struct lp_rdma_doc_gpu_poll, p50_without_notification_us));
static const struct lp_record verified_rec = LP_RECORD(struct lp_rdma_doc_verified,
	LP_REC_FLAT(struct lp_rdma_doc_verified, v, lp_rdma_verified_record),
	LP_REC_U32(struct lp_rdma_doc_verified, seed),
	LP_REC_STR(struct lp_rdma_doc_verified, method));
static const struct lp_record lat_rec = LP_RECORD(struct lp_rdma_doc_lat,
	LP_REC_STR(struct lp_rdma_doc_lat, latency_method),
	LP_REC_STR(struct lp_rdma_doc_lat, latency_kind),
	LP_REC_U64(struct lp_rdma_doc_lat, warmup_iters),
	LP_REC_NEST(struct lp_rdma_doc_lat, latency_us, lp_summary_record),
	LP_REC_NEST(struct lp_rdma_doc_lat, rtt_us, lp_summary_record));
static const struct lp_record bw_rec = LP_RECORD(struct lp_rdma_doc_bw,
	LP_REC_F64(struct lp_rdma_doc_bw, bytes),
	LP_REC_F64(struct lp_rdma_doc_bw, messages),
	LP_REC_F64(struct lp_rdma_doc_bw, seconds),
	LP_REC_F64(struct lp_rdma_doc_bw, gbytes_per_s),
	LP_REC_F64(struct lp_rdma_doc_bw, gbits_per_s),
	LP_REC_F64(struct lp_rdma_doc_bw, mmsg_per_s),
	LP_REC_F64(struct lp_rdma_doc_bw, percent_of_link));
static const struct lp_record sum_rec = LP_RECORD(struct lp_rdma_doc_sum,
	LP_REC_F64(struct lp_rdma_doc_sum, gbytes_per_s),
	LP_REC_F64(struct lp_rdma_doc_sum, gbits_per_s),
	LP_REC_STR(struct lp_rdma_doc_sum, sum_method));
static const struct lp_record ival_point_rec = LP_RECORD(struct lp_rdma_doc_ival_point,
	LP_REC_F64(struct lp_rdma_doc_ival_point, start_s),
	LP_REC_F64(struct lp_rdma_doc_ival_point, seconds),
	LP_REC_U64(struct lp_rdma_doc_ival_point, count),
	LP_REC_F64(struct lp_rdma_doc_ival_point, p50_us),
	LP_REC_F64(struct lp_rdma_doc_ival_point, p99_us),
	LP_REC_F64(struct lp_rdma_doc_ival_point, gbits_per_s),
	LP_REC_F64(struct lp_rdma_doc_ival_point, gbytes_per_s),
	LP_REC_F64(struct lp_rdma_doc_ival_point, mmsg_per_s));
static const struct lp_record counter_rec = LP_RECORD(struct lp_rdma_doc_counter,
	LP_REC_STR(struct lp_rdma_doc_counter, name),
	LP_REC_ENUM(struct lp_rdma_doc_counter, source, lp_ctr_src_names),
	LP_REC_U64(struct lp_rdma_doc_counter, delta),
	LP_REC_ENUM(struct lp_rdma_doc_counter, cls, lp_ctr_class_names, LP_REC_KEY("class")),
	LP_REC_BOOL(struct lp_rdma_doc_counter, reset));
static const struct lp_record ctr_rec = LP_RECORD(struct lp_rdma_doc_ctr,
	LP_REC_STR(struct lp_rdma_doc_ctr, device),
	LP_REC_U32(struct lp_rdma_doc_ctr, port),
	LP_REC_STR(struct lp_rdma_doc_ctr, netdev, LP_REC_DOC("\"\" for InfiniBand")),
	LP_REC_U32(struct lp_rdma_doc_ctr, omitted, LP_REC_DOC("moved counters left out (traffic class first)")),
	LP_REC_U32(struct lp_rdma_doc_ctr, n, LP_REC_RANGE(0, LP_CTR_MOVED_MAX), LP_REC_NOJSON),
	LP_REC_ARRAY_NEST(struct lp_rdma_doc_ctr, moved, n, counter_rec));
static const struct lp_record counters_rec = LP_RECORD(DR,
	LP_REC_NEST(DR, ctr_client, ctr_rec, LP_REC_KEY("client"), LP_REC_NULL, LP_REC_WHEN(DR, has_ctr_client)),
	LP_REC_NEST(DR, ctr_server, ctr_rec, LP_REC_KEY("server"), LP_REC_NULL, LP_REC_WHEN(DR, has_ctr_server)));
static const struct lp_record intervals_rec = LP_RECORD(DR,
	LP_REC_F64(DR, period_s),
	LP_REC_U32(DR, step_messages, LP_REC_DOC("bandwidth: completions are reaped this many messages at a time")),
	LP_REC_STR(DR, value, LP_REC_DOC("what each interval's value is")),
	LP_REC_NEST(DR, ival_sum, lp_ival_summary_record, LP_REC_KEY("summary")),
	LP_REC_NEST(DR, ival_sum_remote, lp_ival_summary_record, LP_REC_KEY("server_to_client_summary"), LP_REC_WHEN(DR, has_ival_remote)),
	LP_REC_U32(DR, nseries, LP_REC_NOJSON),
	LP_REC_VEC_NEST(DR, series, nseries, ival_point_rec, LP_REC_DOC("each interval of the test, in time order")));

static const struct lp_record result_rec = LP_RECORD(DR,
	LP_REC_FLAT(DR, head, head_rec),
	LP_REC_I32(DR, head.err_no, LP_REC_KEY("errno"), LP_REC_WHEN(DR, failed)),
	LP_REC_STR(DR, head.error, LP_REC_KEY("error"), LP_REC_WHEN(DR, failed)),
	LP_REC_NEST(DR, params, params_rec),
	LP_REC_FLAT(DR, run, run_rec),
	LP_REC_NEST(DR, setup, setup_rec, LP_REC_KEY("local_setup"), LP_REC_DOC("this side's GPUDirect RDMA choices")),
	LP_REC_NEST(DR, gpu_poll, gpu_poll_rec, LP_REC_WHEN(DR, has_gpu_poll), LP_REC_DOC("write_lat polled by a GPU: the GPU->CPU notification the latency includes")),
	LP_REC_NEST(DR, verified, verified_rec, LP_REC_WHEN(DR, has_verified), LP_REC_DOC("what --verify checked")),
	LP_REC_INLINE(DR, "counters", counters_rec, LP_REC_DOC("port counters that moved on each side (null: not read)")),
	LP_REC_INLINE(DR, "intervals", intervals_rec, LP_REC_WHEN(DR, has_ival), LP_REC_DOC("--interval: the series and its summary (docs/METHOD.md, \"Intervals\")")),
	LP_REC_FLAT(DR, lat, lat_rec, LP_REC_WHEN(DR, is_lat)),
	LP_REC_F64(DR, link_rate_gbps, LP_REC_WHEN(DR, is_bw)),
	LP_REC_NEST(DR, bw, bw_rec, LP_REC_KEY("bandwidth"), LP_REC_WHEN(DR, one_way), LP_REC_DOC("the client's sending (or reading) direction")),
	LP_REC_NEST(DR, bw, bw_rec, LP_REC_KEY("client_to_server"), LP_REC_WHEN(DR, both_ways)),
	LP_REC_NEST(DR, reverse, bw_rec, LP_REC_KEY("server_to_client"), LP_REC_WHEN(DR, both_ways)),
	LP_REC_NEST(DR, sum, sum_rec, LP_REC_WHEN(DR, both_ways)));
#undef DR

#define DOC struct lp_rdma_doc
static const struct lp_record affinity_rec = LP_RECORD(struct lp_rdma_doc_affinity,
	LP_REC_STR(struct lp_rdma_doc_affinity, nic),
	LP_REC_I32(struct lp_rdma_doc_affinity, nic_numa_node),
	LP_REC_BOOL(struct lp_rdma_doc_affinity, numa_bound),
	LP_REC_STR(struct lp_rdma_doc_affinity, gpu_bus_id),
	LP_REC_STR(struct lp_rdma_doc_affinity, gpu_nic_distance));
static const struct lp_record counts_rec = LP_RECORD(struct lp_rdma_doc_counts,
	LP_REC_I32(struct lp_rdma_doc_counts, runs),
	LP_REC_I32(struct lp_rdma_doc_counts, failed),
	LP_REC_I32(struct lp_rdma_doc_counts, planned));

const struct lp_record lp_rdma_doc_record = LP_RECORD(DOC,
	LP_REC_STR(DOC, tool),
	LP_REC_STR(DOC, schema),
	LP_REC_STR(DOC, role, LP_REC_DOC("client, check or counters")),
	LP_REC_NEST(DOC, host, lp_host_meta_record),
	LP_REC_STR(DOC, server, LP_REC_WHEN(DOC, client)),
	LP_REC_U32(DOC, port, LP_REC_RANGE(1, 65535), LP_REC_WHEN(DOC, client)),
	LP_REC_I32(DOC, tclass, LP_REC_RANGE(-1, 255), LP_REC_WHEN(DOC, client), LP_REC_DOC("the QPs' traffic class (DSCP << 2 | ECN); -1 the device's")),
	LP_REC_I32(DOC, sl, LP_REC_RANGE(0, 15), LP_REC_WHEN(DOC, client), LP_REC_DOC("the QPs' service level")),
	LP_REC_I32(DOC, qp_timeout, LP_REC_RANGE(1, 31), LP_REC_WHEN(DOC, client), LP_REC_DOC("--qp-timeout: the QPs' local ACK timeout, 4.096 us << N per try")),
	LP_REC_NEST(DOC, local_device, lp_rdma_devinfo_record, LP_REC_WHEN(DOC, client)),
	LP_REC_NEST(DOC, affinity, affinity_rec, LP_REC_WHEN(DOC, has_affinity), LP_REC_DOC("the NIC opened, its NUMA node, the GPU's PCIe distance to it")),
	LP_REC_NEST(DOC, remote_device, lp_rdma_devinfo_record, LP_REC_WHEN(DOC, has_remote)),
	LP_REC_U32(DOC, nresults, LP_REC_NOJSON),
	LP_REC_VEC_NEST(DOC, results, nresults, result_rec, LP_REC_WHEN(DOC, client), LP_REC_DOC("one per test and size, in run order")),
	LP_REC_NEST(DOC, summary, counts_rec, LP_REC_WHEN(DOC, client)),
	LP_REC_BOOL(DOC, interrupted, LP_REC_WHEN(DOC, client)));
#undef DOC
/* clang-format on */

static void bw_view(struct lp_rdma_doc_bw *d, const struct lp_rdma_bw *b)
{
	*d = (struct lp_rdma_doc_bw){ b->bytes,	  b->msgs,   b->ns / 1e9, b->gbytes_s,
				      b->gbits_s, b->mmsg_s, b->pct_link };
}

/* What --verify checked, in numbers and in words (docs/METHOD.md, "Verification"). */
static void verified_view(struct lp_rdma_doc_verified *d, const struct lp_rdma_result *r,
			  const struct lp_rdma_params *p)
{
	d->v = r->verified;
	d->seed = p->seed;
	snprintf(d->method, sizeof(d->method),
		 "every byte of each message in its own ring slot, against the pattern of (run "
		 "seed, side, QP, slot)%s%s%s",
		 lp_rdma_test(r->test)->detect && p->lat_method == LP_LAT_POLL
			 ? "; the last byte against the message's counter"
			 : "",
		 lp_rdma_test(r->test)->needs_recv
			 ? "; receive completions counted against the messages sent"
			 : "",
		 r->verified.messages < r->verified.landed
			 ? "; slots reused: the last message of each slot"
			 : "");
}

static void lat_view(struct lp_rdma_doc_result *d, const struct lp_rdma_result *r)
{
	snprintf(d->lat.latency_method, sizeof(d->lat.latency_method), "%s", r->lat_method);
	snprintf(d->lat.latency_kind, sizeof(d->lat.latency_kind), "%s",
		 r->lat_halved ? "one_way=rtt/2" : "full_completion");
	d->lat.warmup_iters = r->warmup;
	d->lat.latency_us = r->lat_us;
	d->lat.rtt_us = r->rtt_us;
	d->has_gpu_poll = r->gpu_poll_sides > 0;
	d->gpu_poll = (struct lp_rdma_doc_gpu_poll){
		.sides = r->gpu_poll_sides,
		.notification_us = r->gpu_notify_us,
		.p50_without_notification_us =
			r->lat_us.p50 - r->gpu_poll_sides * r->gpu_notify_us / 2,
	};
	snprintf(d->gpu_poll.includes, sizeof(d->gpu_poll.includes),
		 "each GPU-polling side's detection includes a GPU->CPU notification: one-way "
		 "latency holds sides/2 of them");
}

static void bw_parts(struct lp_rdma_doc_result *d, const struct lp_rdma_result *r,
		     const struct lp_rdma_params *p)
{
	d->link_rate_gbps = r->rate_gbps;
	d->one_way = !p->bidir;
	d->both_ways = p->bidir;
	bw_view(&d->bw, &r->local);
	bw_view(&d->reverse, &r->remote);
	d->sum = (struct lp_rdma_doc_sum){ r->sum_gbytes_s, r->sum_gbits_s,
					   LP_RDMA_BIDIR_SUM_METHOD };
}

/* --interval: the series' head, summaries and points (d->series malloc'ed). 0 or -ENOMEM. */
static int ival_view(struct lp_rdma_doc_result *d, const struct lp_rdma_result *r,
		     const struct lp_rdma_params *p)
{
	d->period_s = p->interval_s;
	d->step_messages = d->is_lat ? 0 : p->cq_mod;
	snprintf(d->value, sizeof(d->value), "%s",
		 d->is_lat ? (r->lat_halved ? "latency p50, us, one-way" : "latency p50, us")
			   : "GB/s of the client's sending direction, by completion time");
	d->ival_sum = r->ival_sum;
	d->ival_sum_remote = r->ival_sum_remote;
	d->has_ival_remote = r->ival_sum_remote.n > 0;
	d->series = calloc(r->nival + 1, sizeof(*d->series));
	if (!d->series)
		return -ENOMEM;
	d->nseries = (uint32_t)r->nival;
	for (size_t i = 0; i < r->nival; i++) {
		const struct lp_ival *iv = &r->ival[i];
		struct lp_rdma_doc_ival_point *pt = &d->series[i];

		*pt = (struct lp_rdma_doc_ival_point){ iv->start_s, iv->len_s, iv->n, NAN,
						       NAN,	    NAN,       NAN,   NAN };
		if (iv->lat) {
			pt->p50_us = iv->p50;
			pt->p99_us = iv->p99;
		} else {
			pt->gbits_per_s = 8 * iv->gbytes_s;
			pt->gbytes_per_s = iv->gbytes_s;
			pt->mmsg_per_s = iv->mmsg_s;
		}
	}
	return 0;
}

/* One side's moved counters; false when they were not read. */
static bool ctr_view(struct lp_rdma_doc_ctr *d, const struct lp_ctr_moved *m)
{
	if (!m->valid)
		return false;
	snprintf(d->device, sizeof(d->device), "%s", m->dev);
	d->port = m->port;
	snprintf(d->netdev, sizeof(d->netdev), "%s", m->netdev);
	d->omitted = m->more;
	d->n = LP_MIN(m->n, (unsigned)LP_CTR_MOVED_MAX);
	for (unsigned i = 0; i < d->n; i++) {
		const struct lp_counter *c = &m->c[i];

		snprintf(d->moved[i].name, sizeof(d->moved[i].name), "%s", c->name);
		d->moved[i].source = c->src;
		d->moved[i].delta = c->value;
		d->moved[i].cls = lp_counter_info(c->name)->cls;
		d->moved[i].reset = c->reset;
	}
	return true;
}

/* The head, the plan's parameters and this side's set-up of one run. */
static void head_view(struct lp_rdma_doc_result *d, const struct lp_rdma_result *r,
		      const struct lp_rdma_params *p)
{
	snprintf(d->head.test, sizeof(d->head.test), "%s", lp_rdma_test_names[r->test]);
	d->head.size = r->size;
	snprintf(d->head.status, sizeof(d->head.status), "%s", r->status ? "error" : "ok");
	d->head.err_no = -r->status;
	snprintf(d->head.error, sizeof(d->head.error), "%s", r->error);
	d->params = (struct lp_rdma_doc_params){ .iters = p->duration_s > 0 ? 0 : p->iters,
						 .duration_s = p->duration_s,
						 .warmup = p->warmup,
						 .tx_depth = p->tx_depth,
						 .rx_depth = p->rx_depth,
						 .cq_moderation = p->cq_mod,
						 .post_list = p->post_list,
						 .qps = p->num_qps,
						 .bidirectional = p->bidir,
						 .verify = p->verify,
						 .interval_s = p->interval_s };
	snprintf(d->params.connection, sizeof(d->params.connection), "%s",
		 p->use_cm ? "rdma_cm" : "exchange");
	d->run = (struct lp_rdma_doc_run){ .mtu = r->mtu,
					   .max_inline = r->inline_size,
					   .timed_iters = r->iters };
	snprintf(d->run.local_mem, sizeof(d->run.local_mem), "%s", r->local_mem);
	snprintf(d->run.remote_mem, sizeof(d->run.remote_mem), "%s", r->remote_mem);
	snprintf(d->setup.scatter_to_cqe, sizeof(d->setup.scatter_to_cqe), "%s",
		 r->scatter_to_cqe ? r->scatter_to_cqe : "");
	d->setup.relaxed_ordering = r->relaxed_ordering;
	snprintf(d->setup.gpu_rdma_writes_ordering, sizeof(d->setup.gpu_rdma_writes_ordering), "%s",
		 r->gpu_rdma_order ? r->gpu_rdma_order : "");
}

int lp_rdma_doc_result_view(struct lp_rdma_doc_result *d, const struct lp_rdma_result *r,
			    const struct lp_rdma_params *p)
{
	memset(d, 0, sizeof(*d));
	head_view(d, r, p);
	d->failed = r->status != 0;
	d->has_verified = p->verify;
	verified_view(&d->verified, r, p);
	d->has_ctr_client = ctr_view(&d->ctr_client, &r->ctr_local);
	d->has_ctr_server = ctr_view(&d->ctr_server, &r->ctr_remote);
	d->is_lat = !d->failed && lp_rdma_test_is_lat(r->test);
	d->is_bw = !d->failed && !d->is_lat;
	if (d->is_lat)
		lat_view(d, r);
	else if (d->is_bw)
		bw_parts(d, r, p);
	d->has_gpu_poll &= d->is_lat;
	d->has_ival = !d->failed && p->interval_s > 0;
	return d->has_ival ? ival_view(d, r, p) : 0;
}

void lp_rdma_doc_free(struct lp_rdma_doc *d)
{
	lp_record_free(&lp_rdma_doc_record, d);
}
