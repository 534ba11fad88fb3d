// SPDX-License-Identifier: MIT
/*
 * The records of lp-sweep's document (linkperf.sweep/2), its journal and its
 * MPI gathers: every structure that leaves rank 0's memory, declared once here
 * (common/record.h gives the wire form, the JSON form, the strict reader and
 * the JSON Schema from these tables). A new field is one line in its table.
 */
#include "sweep/internal.h"

#include "common/fail.h"

#include <errno.h>
#include <stdio.h>

#include "rdma/counters.h"
#include "sweep/load.h"

const char *const lp_sweep_class_names[] = { "none", "ok", "slow", "fail", "unconfirmed", NULL };
static const char *const item_kind_names[] = { "client", "server", "link", NULL };

/* Checks run after a record is read from JSON. */
static int cell_check(const void *obj, struct lp_fail *f)
{
	const struct lp_sweep_cell *c = obj;

	if (c->a == c->b && c->a >= 0)
		return lp_fail_set(f, -EINVAL, "client == server (%d): a self pair", c->a);
	return 0;
}

/* The thresholds a recorded run may carry: those the diagnosis takes (sweep/diag.h). */
static int dopts_check(const void *obj, struct lp_fail *f)
{
	const struct lp_diag_opts *o = obj;
	const char *bad = !(o->fp_rate >= 1e-9 && o->fp_rate <= 0.5)	  ? "fp_rate"
			  : !(o->k >= 0 && o->k < 1e6)			  ? "k_mad"
			  : !(o->rel >= 0 && o->rel < 1)		  ? "rel"
			  : !(o->rel_max > 0 && o->rel_max < 1)		  ? "rel_max"
			  : !(o->vote > 0 && o->vote < 1)		  ? "vote"
			  : !(o->min_gbps >= 0 && o->min_gbps < 1e9)	  ? "min_gbps"
			  : !(o->max_lat_us >= 0 && o->max_lat_us < 1e12) ? "max_lat_us"
			  : !(o->min_errors >= 0 && o->min_errors < 1e18) ? "min_errors"
			  : !(o->impact_max >= 1 && o->impact_max <= 1e6) ? "impact_max"
			  : !(o->fair_min >= 0 && o->fair_min <= 1)	  ? "fair_min"
									  : NULL;

	if (bad)
		return lp_fail_set(f, -EINVAL, "%s: out of the range the diagnosis takes", bad);
	return 0;
}

/* A run's node gates: none yet, or one per node. */
static int run_check(const void *obj, struct lp_fail *f)
{
	const struct lp_sweep_run *r = obj;

	if (r->ngates && r->ngates != r->n)
		return lp_fail_set(f, -EINVAL, "node_gates: %d for %d nodes", r->ngates, r->n);
	return 0;
}

/* clang-format off */

/* ---- what travels from the ranks (wire, journal, document) ---- */

const struct lp_record lp_sweep_node_record = LP_RECORD(struct lp_sweep_node,
	LP_REC_I32(struct lp_sweep_node, rank, LP_REC_DOC("MPI world rank; -1: a node without a rank (absent, or gone since a resumed run)")),
	LP_REC_I32(struct lp_sweep_node, rail, LP_REC_DOC("local rank with --rails (the rail), else 0")),
	LP_REC_STR(struct lp_sweep_node, host),
	LP_REC_STR(struct lp_sweep_node, name, LP_REC_DOC("unique label: \"host\", or \"host/rail\" with --rails")),
	LP_REC_I32(struct lp_sweep_node, status, LP_REC_DOC("0, or the negative errno of opening its device")),
	LP_REC_STR(struct lp_sweep_node, error, LP_REC_DOC("why, when status is not 0, else \"\"")),
	LP_REC_NEST(struct lp_sweep_node, dev, lp_rdma_devinfo_record, LP_REC_DOC("the RDMA port as opened (lp-rdma's device record)")),
	LP_REC_STR(struct lp_sweep_node, mem, LP_REC_DOC("memory the tests used: \"host\", \"cuda:1\"")),
	LP_REC_STR(struct lp_sweep_node, gpu_bdf, LP_REC_DOC("PCI address of that GPU, \"\" unknown or host memory")),
	LP_REC_STR(struct lp_sweep_node, gpu_nic, LP_REC_KEY("gpu_nic_distance"), LP_REC_DOC("GPU-NIC PCIe distance: PIX, PXB, PHB, NODE, SYS, \"\" unknown")),
	LP_REC_STR(struct lp_sweep_node, kernel),
	LP_REC_NEST(struct lp_sweep_node, gpus, lp_inv_gpus_record, LP_REC_DOC("the host's GPUs: name, serial, VBIOS, UUID, part number, slot and PCIe link (gpu/inventory.h)")),
	LP_REC_I32(struct lp_sweep_node, dscp, LP_REC_RANGE(-1, 63), LP_REC_OPTIONAL, LP_REC_DOC("RoCE: the DSCP its QPs carry, as the device reports it (mlx5's Global tclass, bnxt_re's configfs) or derived from the class (rdma/check_roce.h); -1 not RoCE or not known")),
	LP_REC_STR(struct lp_sweep_node, dscp_src, LP_REC_KEY("dscp_source"), LP_REC_OPTIONAL, LP_REC_DOC("where dscp came from: \"tc/PORT/traffic_class: every QP\", \"bnxt_re configfs cc/roce_dscp\", \"derived: tclass N >> 2\"; \"\" none")));

static const struct lp_record ctr_end_record = LP_RECORD(struct lp_sweep_ctr_end,
	LP_REC_BOOL(struct lp_sweep_ctr_end, valid, LP_REC_DOC("read before and after the test on this end")),
	LP_REC_U32(struct lp_sweep_ctr_end, more, LP_REC_KEY("omitted"), LP_REC_DOC("counters that moved but are not listed")),
	LP_REC_U32(struct lp_sweep_ctr_end, n, LP_REC_RANGE(0, LP_SWEEP_CELL_CTR), LP_REC_NOJSON),
	LP_REC_ARRAY_NEST(struct lp_sweep_ctr_end, c, n, lp_counter_record, LP_REC_KEY("moved")));

const struct lp_record lp_sweep_cell_record = LP_RECORD_CHECKED(struct lp_sweep_cell, cell_check,
	LP_REC_I32(struct lp_sweep_cell, metric, LP_REC_RANGE(0, LP_SWEEP_MAX_METRICS - 1), LP_REC_DOC("index into metrics")),
	LP_REC_I32(struct lp_sweep_cell, a, LP_REC_RANGE(0, INT32_MAX), LP_REC_KEY("client"), LP_REC_DOC("node index of the client (data source for write and send)")),
	LP_REC_I32(struct lp_sweep_cell, b, LP_REC_RANGE(0, INT32_MAX), LP_REC_KEY("server"), LP_REC_DOC("node index of the server")),
	LP_REC_ENUM(struct lp_sweep_cell, phase, lp_sweep_phase_names, LP_REC_DOC("what it was measured in: the sweep, an isolated retest, or a load mode")),
	LP_REC_I32(struct lp_sweep_cell, round, LP_REC_DOC("the schedule's round (retests: the retest round)")),
	LP_REC_I32(struct lp_sweep_cell, attempt, LP_REC_RANGE(1, INT32_MAX), LP_REC_DOC("the run's attempt that measured it: 1, then one more per --resume")),
	LP_REC_I32(struct lp_sweep_cell, status, LP_REC_DOC("0, or the negative errno of the test")),
	LP_REC_STR(struct lp_sweep_cell, error, LP_REC_SPARSE, LP_REC_DOC("why, when status is not 0")),
	LP_REC_F64(struct lp_sweep_cell, value, LP_REC_DOC("this attempt's value: Gb/s (bandwidth) or one-way p50 us (latency); null: failed")),
	LP_REC_F64(struct lp_sweep_cell, wall_s, LP_REC_DOC("wall time of the test, both sides' set-up included")),
	LP_REC_NEST(struct lp_sweep_cell, lat, lp_summary_record, LP_REC_KEY("latency"), LP_REC_DOC("latency tests: the one-way figure, us (nulls for bandwidth)")),
	LP_REC_BOOL(struct lp_sweep_cell, halved, LP_REC_KEY("one_way_is_rtt_half")),
	LP_REC_F64(struct lp_sweep_cell, gbytes_s, LP_REC_DOC("bandwidth tests: the client's direction, GB/s")),
	LP_REC_F64(struct lp_sweep_cell, gbits_s),
	LP_REC_F64(struct lp_sweep_cell, mmsg_s),
	LP_REC_F64(struct lp_sweep_cell, pct_link, LP_REC_DOC("percent of the port's theoretical data rate")),
	LP_REC_U64(struct lp_sweep_cell, iters),
	LP_REC_F64(struct lp_sweep_cell, ival_min, LP_REC_KEY("interval_min"), LP_REC_DOC("--interval: the worst interval in value's unit")),
	LP_REC_F64(struct lp_sweep_cell, ival_max, LP_REC_KEY("interval_max")),
	LP_REC_NEST(struct lp_sweep_cell, ctr_client, ctr_end_record, LP_REC_SPARSE, LP_REC_KEY("counters_client"), LP_REC_DOC("error and congestion counters that moved on the client's port")),
	LP_REC_NEST(struct lp_sweep_cell, ctr_server, ctr_end_record, LP_REC_SPARSE, LP_REC_KEY("counters_server")));

/* ---- how it ran ---- */

static const struct lp_record dopts_record = LP_RECORD_CHECKED(struct lp_diag_opts, dopts_check,
	LP_REC_F64(struct lp_diag_opts, fp_rate, LP_REC_OPTIONAL, LP_REC_DOC("per run: the chance that a healthy run names anything (half to nodes and groups, Sidak; half to links, Benjamini-Hochberg); absent in older documents: 0.01")),
	LP_REC_F64(struct lp_diag_opts, k, LP_REC_KEY("k_mad"), LP_REC_DOC("floor on the node threshold in standard errors (links: one more); fp_rate sets the threshold")),
	LP_REC_F64(struct lp_diag_opts, rel, LP_REC_DOC("relative floor: a smaller deviation is never flagged")),
	LP_REC_F64(struct lp_diag_opts, rel_max),
	LP_REC_F64(struct lp_diag_opts, vote),
	LP_REC_F64(struct lp_diag_opts, min_gbps, LP_REC_DOC("bandwidth floor, Gb/s; 0 off")),
	LP_REC_F64(struct lp_diag_opts, max_lat_us, LP_REC_DOC("latency ceiling, us; 0 off")),
	LP_REC_F64(struct lp_diag_opts, min_errors),
	LP_REC_F64(struct lp_diag_opts, impact_max),
	LP_REC_F64(struct lp_diag_opts, fair_min));

const struct lp_record lp_sweep_run_record = LP_RECORD_CHECKED(struct lp_sweep_run, run_check,
	LP_REC_STR(struct lp_sweep_run, started, LP_REC_DOC("UTC, ISO 8601")),
	LP_REC_BOOL(struct lp_sweep_run, interrupted, LP_REC_DOC("SIGINT/SIGTERM: the cells are those done until then")),
	LP_REC_BOOL(struct lp_sweep_run, incomplete, LP_REC_DOC("read from a journal without its end: a rank or rank 0 died")),
	LP_REC_I32(struct lp_sweep_run, attempt, LP_REC_RANGE(1, INT32_MAX)),
	LP_REC_STR(struct lp_sweep_run, resumed, LP_REC_KEY("resumed_from"), LP_REC_DOC("the journal it resumes, \"\" none")),
	LP_REC_STR(struct lp_sweep_run, model, LP_REC_OPTIONAL, LP_REC_DOC("lp-sweep --model: the model file every value was drawn from (no measurement); \"\" measured over RDMA")),
	LP_REC_F64(struct lp_sweep_run, wall_s),
	LP_REC_F64(struct lp_sweep_run, sweep_s),
	LP_REC_F64(struct lp_sweep_run, retest_s),
	LP_REC_F64(struct lp_sweep_run, load_s),
	LP_REC_I32(struct lp_sweep_run, n, LP_REC_RANGE(1, LP_SWEEP_MAX_NODES), LP_REC_KEY("nodes"), LP_REC_DOC("nodes (ranks, and nodes without a rank)")),
	LP_REC_I32(struct lp_sweep_run, rails, LP_REC_RANGE(0, 1024), LP_REC_DOC("0: one rank per node, else ranks per node (pairs stay within a rail)")),
	LP_REC_NAME(struct lp_sweep_run, sched_name, lp_sched_names, LP_REC_KEY("schedule")),
	LP_REC_I32(struct lp_sweep_run, random_k, LP_REC_KEY("partners"), LP_REC_DOC("random schedule: partners drawn per node")),
	LP_REC_U64(struct lp_sweep_run, seed, LP_REC_DOC("random schedule: its seed")),
	LP_REC_U64(struct lp_sweep_run, rounds, LP_REC_DOC("the schedule's rounds; 0 unknown (a list schedule read back)")),
	LP_REC_F64(struct lp_sweep_run, pair_timeout_s),
	LP_REC_I32(struct lp_sweep_run, tclass, LP_REC_RANGE(-1, 255), LP_REC_OPTIONAL, LP_REC_DOC("--tclass: every QP's traffic class (DSCP << 2 | ECN); -1 the device's")),
	LP_REC_I32(struct lp_sweep_run, sl, LP_REC_RANGE(0, 15), LP_REC_OPTIONAL, LP_REC_DOC("--sl: every QP's service level")),
	LP_REC_I32(struct lp_sweep_run, qp_timeout, LP_REC_RANGE(0, 31), LP_REC_OPTIONAL, LP_REC_DOC("--qp-timeout: every QP's local ACK timeout, 4.096 us << N per try (0: not recorded)")),
	LP_REC_U64(struct lp_sweep_run, bw_iters),
	LP_REC_U64(struct lp_sweep_run, lat_iters),
	LP_REC_U64(struct lp_sweep_run, nretests, LP_REC_KEY("retests")),
	LP_REC_U64(struct lp_sweep_run, test_bytes, LP_REC_OPTIONAL, LP_REC_DOC("--test-bytes: the bytes each bandwidth test moved (iterations derived from the size); 0: its iterations")),
	LP_REC_U32(struct lp_sweep_run, screen, LP_REC_OPTIONAL, LP_REC_KEY("screen_mask"), LP_REC_DOC("--fast: bit m set, metric m ran on every pair and only these are judged as matrices (the others: the size sweep of the suspects and two reference pairs, phase \"sizes\"); 0: every metric on every pair")),
	LP_REC_I32(struct lp_sweep_run, retest_max),
	LP_REC_I32(struct lp_sweep_run, retest_rounds),
	LP_REC_F64(struct lp_sweep_run, retest_time_s, LP_REC_OPTIONAL, LP_REC_DOC("--retest-time: the retest budget in time over all rounds; 0: as long as the sweep took, 60 s at least")),
	LP_REC_NAME(struct lp_sweep_run, load, lp_sweep_load_names, LP_REC_KEY("load_modes"), LP_REC_NULL, LP_REC_DOC("--load: the load modes run, null none")),
	LP_REC_F64(struct lp_sweep_run, load_time_s),
	LP_REC_I32(struct lp_sweep_run, incast_k),
	LP_REC_NEST(struct lp_sweep_run, dopts, dopts_record, LP_REC_KEY("diagnosis"), LP_REC_DOC("the thresholds the diagnosis used")),
	LP_REC_STR(struct lp_sweep_run, fleet_profile, LP_REC_DOC("the profile most nodes' ports match (--expect auto judges against it); \"\" none")),
	LP_REC_I32(struct lp_sweep_run, ngates, LP_REC_RANGE(0, LP_SWEEP_MAX_NODES), LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_sweep_run, gates, ngates, lp_qual_gate_record, LP_REC_KEY("node_gates"), LP_REC_DOC("per node, in nodes' order: its own port's profile and gate (qual/node.h); empty: not judged (a journal's header)")));

const struct lp_record lp_sweep_metric_record = LP_RECORD(struct lp_sweep_metric,
	LP_REC_STR(struct lp_sweep_metric, test, LP_REC_DOC("lp-rdma's test: write_lat, write_bw, ...")),
	LP_REC_U64(struct lp_sweep_metric, size, LP_REC_DOC("message size, bytes")),
	LP_REC_BOOL(struct lp_sweep_metric, lat, LP_REC_KEY("latency"), LP_REC_DOC("a latency metric (lower is better), else bandwidth")),
	LP_REC_STR(struct lp_sweep_metric, label, LP_REC_DOC("\"write_bw 64 KiB\"")),
	LP_REC_STR(struct lp_sweep_metric, unit, LP_REC_DOC("the values' unit: \"us\" (one-way p50) or \"Gb/s\"")));

/* ---- what the diagnosis made of it ---- */

const struct lp_record lp_sweep_diag_record = LP_RECORD(struct lp_diag,
	LP_REC_F64(struct lp_diag, ref, LP_REC_KEY("reference"), LP_REC_DOC("the healthy majority's value, in the metric's unit")),
	LP_REC_F64(struct lp_diag, sigma, LP_REC_KEY("sigma_log"), LP_REC_DOC("the noise per cell, log scale: the one noise field every output uses")),
	LP_REC_F64(struct lp_diag, cv, LP_REC_DOC("exp(sigma_log) - 1")),
	LP_REC_F64(struct lp_diag, sigma_fit, LP_REC_DOC("log-scale noise from the residuals (null: too few degrees of freedom)")),
	LP_REC_I32(struct lp_diag, df, LP_REC_KEY("residual_df")),
	LP_REC_F64(struct lp_diag, sigma_rep, LP_REC_DOC("log-scale noise between repeated attempts (null: none)")),
	LP_REC_I32(struct lp_diag, rep_pairs, LP_REC_KEY("repeat_pairs")),
	LP_REC_F64(struct lp_diag, sigma_link),
	LP_REC_I32(struct lp_diag, df_link),
	LP_REC_F64(struct lp_diag, min_node, LP_REC_KEY("min_detectable_node"), LP_REC_DOC("a node fault this run finds with 90 % power, as a ratio (0: none: too few cells or degrees of freedom)")),
	LP_REC_F64(struct lp_diag, min_node_noise, LP_REC_KEY("min_detectable_node_noise"), LP_REC_DOC("the same without the relative floor rel: what the noise alone allows")),
	LP_REC_F64(struct lp_diag, min_link, LP_REC_KEY("min_detectable_link"), LP_REC_DOC("a link fault found with 90 % power: it stands out in the sweep and its retests confirm it (0: none: no retest reaches it)")),
	LP_REC_F64(struct lp_diag, min_group, LP_REC_KEY("min_detectable_group"), LP_REC_DOC("a leaf switch's (or block's) fault found with 90 % power; null: no group")),
	LP_REC_F64(struct lp_diag, thresh, LP_REC_KEY("threshold_ratio"), LP_REC_DOC("cells below this ratio in a fault are marked slow")),
	LP_REC_BOOL(struct lp_diag, inconclusive),
	LP_REC_BOOL(struct lp_diag, few_df),
	LP_REC_BOOL(struct lp_diag, ambiguous),
	LP_REC_I32(struct lp_diag, nhealthy, LP_REC_KEY("healthy_nodes")));

/* Each node's effects in one metric: columns over the metric's nodes. */
const struct lp_record lp_sweep_effects_record = LP_RECORD(struct lp_diag,
	LP_REC_I32(struct lp_diag, n, LP_REC_RANGE(0, LP_SWEEP_MAX_NODES), LP_REC_NOJSON),
	LP_REC_VEC(struct lp_diag, score_src, n, LP_REC_T_F64, double, LP_REC_KEY("score_client"), LP_REC_DOC("goodness ratio of the node's row (as client)")),
	LP_REC_VEC(struct lp_diag, score_dst, n, LP_REC_T_F64, double, LP_REC_KEY("score_server")),
	LP_REC_VEC(struct lp_diag, eff_src, n, LP_REC_T_F64, double, LP_REC_KEY("effect_client"), LP_REC_DOC("log effect as client")),
	LP_REC_VEC(struct lp_diag, eff_dst, n, LP_REC_T_F64, double, LP_REC_KEY("effect_server")),
	LP_REC_VEC(struct lp_diag, se_src, n, LP_REC_T_F64, double, LP_REC_KEY("se_client"), LP_REC_DOC("standard error of effect_client")),
	LP_REC_VEC(struct lp_diag, se_dst, n, LP_REC_T_F64, double, LP_REC_KEY("se_server")),
	LP_REC_VEC(struct lp_diag, slow_src, n, LP_REC_T_I32, int, LP_REC_KEY("agree_as_client"), LP_REC_DOC("partners agreeing (cells nearer the fault than normal)")),
	LP_REC_VEC(struct lp_diag, slow_dst, n, LP_REC_T_I32, int, LP_REC_KEY("agree_as_server")),
	LP_REC_VEC(struct lp_diag, n_src, n, LP_REC_T_I32, int, LP_REC_KEY("measured_as_client")),
	LP_REC_VEC(struct lp_diag, n_dst, n, LP_REC_T_I32, int, LP_REC_KEY("measured_as_server")),
	LP_REC_VEC(struct lp_diag, fail, n, LP_REC_T_I32, int, LP_REC_KEY("failed_cells")),
	LP_REC_VEC(struct lp_diag, node, n, LP_REC_T_U8, uint8_t, LP_REC_KEY("flags"), LP_REC_DOC("1 slow as client, 2 slow as server, 4 failed, 8 partial (slow in a share of its cells: one of its paths)")),
	LP_REC_VEC(struct lp_diag, unode, n, LP_REC_T_U8, uint8_t, LP_REC_KEY("close_calls"), LP_REC_DOC("roles (1 client, 2 server) that stood out but did not pass the run's error control: unconfirmed")),
	LP_REC_VEC(struct lp_diag, min_src, n, LP_REC_T_F64, double, LP_REC_KEY("min_detectable_client"), LP_REC_DOC("the node's own fault found with 90 % power as client (its cells)")),
	LP_REC_VEC(struct lp_diag, min_dst, n, LP_REC_T_F64, double, LP_REC_KEY("min_detectable_server")));

/* What a test of metric m had to pass: the run's error control (sweep/diag.c). */
const struct lp_record lp_sweep_errctl_record = LP_RECORD(struct lp_diag,
	LP_REC_F64(struct lp_diag, fp_rate, LP_REC_DOC("the run's rate: a healthy run names something with at most this chance")),
	LP_REC_I32(struct lp_diag, ntests, LP_REC_KEY("node_tests"), LP_REC_DOC("node and group tests of this metric in the Sidak family (times the metrics)")),
	LP_REC_F64(struct lp_diag, alpha_node, LP_REC_KEY("node_level"), LP_REC_DOC("per node or group test: the Sidak level at fp_rate / 2")),
	LP_REC_F64(struct lp_diag, t_node, LP_REC_KEY("node_t"), LP_REC_DOC("its Student-t quantile at the residual df (at least k_mad)")),
	LP_REC_F64(struct lp_diag, q_link, LP_REC_KEY("link_fdr"), LP_REC_DOC("the links' false discovery rate in this metric (Benjamini-Hochberg): fp_rate / 2 / metrics")),
	LP_REC_F64(struct lp_diag, thr_first, LP_REC_KEY("link_threshold_first"), LP_REC_DOC("the p-value a first attempt passed to stand out (-1: none stood out)")),
	LP_REC_F64(struct lp_diag, thr_conf, LP_REC_KEY("link_threshold_retests"), LP_REC_DOC("the p-value the retests passed to confirm a link (-1: none confirmed)")),
	LP_REC_F64(struct lp_diag, blip, LP_REC_KEY("transient_rate"), LP_REC_DOC("share of attempts slowed by a transient as much as a retest would be (at least 0.5 %)")),
	LP_REC_I32(struct lp_diag, nunconf, LP_REC_KEY("unconfirmed_cells"), LP_REC_DOC("link cells that stood out once, not confirmed by retests")),
	LP_REC_I32(struct lp_diag, nretested, LP_REC_KEY("retested_cells")),
	LP_REC_I32(struct lp_diag, retest_rounds, LP_REC_DOC("retest rounds the run had (the link limit: how many can confirm)")),
	LP_REC_I32(struct lp_diag, nleaf, LP_REC_KEY("leaves"), LP_REC_DOC("leaf switches of the topology (0: none)")),
	LP_REC_I32(struct lp_diag, nrail, LP_REC_KEY("rails")),
	LP_REC_I32(struct lp_diag, ngroup, LP_REC_KEY("shared_faults"), LP_REC_DOC("shared faults found (switch, uplink, rail, block)")),
	LP_REC_I32(struct lp_diag, nround_fx, LP_REC_KEY("congested_rounds"), LP_REC_DOC("sweep rounds fitted with a congestion effect")),
	LP_REC_I32(struct lp_diag, nrounds, LP_REC_RANGE(0, INT32_MAX), LP_REC_NOJSON),
	LP_REC_VEC(struct lp_diag, round_fx, nrounds, LP_REC_T_F64, double, LP_REC_KEY("round_effects"), LP_REC_DOC("per sweep round: its effect as a ratio (1: none)")));

/* A cell as every output shows it: the value the diagnosis used. */
const struct lp_record lp_sweep_rcell_record = LP_RECORD(struct lp_sweep_rcell,
	LP_REC_F64(struct lp_sweep_rcell, value, LP_REC_DOC("the cell's value every output shows: its successful attempts combined (median; of two or four, the better middle one) as the diagnosis used it; null: none")),
	LP_REC_ENUM(struct lp_sweep_rcell, cls, lp_sweep_class_names, LP_REC_KEY("class"), LP_REC_DOC("the diagnosis's class: none (not measured), ok, slow, fail")),
	LP_REC_U8(struct lp_sweep_rcell, attempts, LP_REC_DOC("successful attempts behind value")),
	LP_REC_F64(struct lp_sweep_rcell, spread, LP_REC_DOC("log-scale spread of those attempts (null under two)")));

const struct lp_record lp_sweep_block_record = LP_RECORD(struct lp_sweep_block,
	LP_REC_I32(struct lp_sweep_block, metric, LP_REC_RANGE(0, LP_SWEEP_MAX_METRICS - 1)),
	LP_REC_I32(struct lp_sweep_block, rail, LP_REC_RANGE(0, 1024)),
	LP_REC_I32(struct lp_sweep_block, nb, LP_REC_RANGE(0, LP_SWEEP_MAX_NODES), LP_REC_NOJSON),
	LP_REC_VEC(struct lp_sweep_block, node, nb, LP_REC_T_I32, int, LP_REC_KEY("nodes"), LP_REC_DOC("the node index of each row and column")));

static const struct lp_record item_record = LP_RECORD(struct lp_diag_item,
	LP_REC_ENUM(struct lp_diag_item, kind, item_kind_names, LP_REC_DOC("a node slow as client or as server, or the link a->b")),
	LP_REC_I32(struct lp_diag_item, a, LP_REC_KEY("node")),
	LP_REC_I32(struct lp_diag_item, b, LP_REC_KEY("server"), LP_REC_DOC("links: the server")),
	LP_REC_F64(struct lp_diag_item, ratio));

static const struct lp_record verdict_ctr_record = LP_RECORD(struct lp_verdict_ctr,
	LP_REC_I32(struct lp_verdict_ctr, on, LP_REC_DOC("whose port: a node index, or -1: the partners of the verdict's node")),
	LP_REC_ENUM(struct lp_verdict_ctr, src, lp_ctr_src_names, LP_REC_KEY("source")),
	LP_REC_STR(struct lp_verdict_ctr, name),
	LP_REC_ENUM(struct lp_verdict_ctr, cls, lp_ctr_class_names, LP_REC_KEY("class")),
	LP_REC_U64(struct lp_verdict_ctr, delta),
	LP_REC_I32(struct lp_verdict_ctr, cells, LP_REC_DOC("cells in which it moved")));

const struct lp_record lp_verdict_record = LP_RECORD(struct lp_verdict,
	LP_REC_ENUM(struct lp_verdict, kind, lp_verdict_names),
	LP_REC_I32(struct lp_verdict, a, LP_REC_DOC("node index; for links and pairs the lower of the two; -1 none")),
	LP_REC_I32(struct lp_verdict, b, LP_REC_DOC("a node verdict: a again; a link or pair: the other node; -1 none")),
	LP_REC_U32(struct lp_verdict, dirs, LP_REC_DOC("links: 1 a->b slow, 2 b->a; nodes: 1 as client, 2 as server, 4 failed")),
	LP_REC_STR(struct lp_verdict, metrics, LP_REC_DOC("labels of the metrics that show it, comma separated")),
	LP_REC_STR(struct lp_verdict, reason),
	LP_REC_F64(struct lp_verdict, ratio, LP_REC_DOC("goodness ratio of the fault (0.5 = half as good)")),
	LP_REC_F64(struct lp_verdict, z, LP_REC_DOC("effect over its standard error")),
	LP_REC_F64(struct lp_verdict, noise_cv, LP_REC_DOC("the per-cell noise it stood out from")),
	LP_REC_I32(struct lp_verdict, cells),
	LP_REC_I32(struct lp_verdict, agree, LP_REC_KEY("partners_agreeing")),
	LP_REC_I32(struct lp_verdict, retests),
	LP_REC_F64(struct lp_verdict, p, LP_REC_DOC("p-value of its strongest metric's test (nodes: the effect; links: the retests; groups: the block); null none")),
	LP_REC_F64(struct lp_verdict, level, LP_REC_DOC("what p had to pass: the Sidak per-test level, or the Benjamini-Hochberg threshold; null none")),
	LP_REC_STR(struct lp_verdict, group, LP_REC_DOC("shared faults: \"leaf03\", \"leaf03->leaf07\", \"rail 2\"; \"\" a block or none")),
	LP_REC_STR(struct lp_verdict, scope, LP_REC_DOC("shared faults: which cells of the group are slow: all, cross, out, in, intra, path, pair; \"\" none")),
	LP_REC_BOOL(struct lp_verdict, partial, LP_REC_DOC("a share of its cells slow (fraction_slow), not all (ECMP: one uplink of several)")),
	LP_REC_F64(struct lp_verdict, frac, LP_REC_KEY("fraction_slow"), LP_REC_DOC("slow cells / cells in its scope")),
	LP_REC_I32(struct lp_verdict, nmembers, LP_REC_KEY("member_count"), LP_REC_DOC("shared faults: member nodes (the first 64 in members)")),
	LP_REC_U32(struct lp_verdict, nlisted, LP_REC_RANGE(0, LP_VERDICT_MEMBERS), LP_REC_NOJSON),
	LP_REC_ARRAY(struct lp_verdict, members, nlisted, LP_REC_T_I32, int, LP_REC_DOC("member node indices")),
	LP_REC_STR(struct lp_verdict, settle, LP_REC_DOC("unconfirmed: the command(s) that settle it; else \"\"")),
	LP_REC_I32(struct lp_verdict, ncand, LP_REC_RANGE(0, LP_DIAG_MAX_CAND), LP_REC_NOJSON),
	LP_REC_ARRAY_NEST(struct lp_verdict, cand, ncand, item_record, LP_REC_KEY("candidates")),
	LP_REC_I32(struct lp_verdict, nctr, LP_REC_RANGE(0, LP_VERDICT_CTR), LP_REC_NOJSON),
	LP_REC_ARRAY_NEST(struct lp_verdict, ctr, nctr, verdict_ctr_record, LP_REC_KEY("counters")));

const struct lp_record lp_sweep_ctr_sum_record = LP_RECORD(struct lp_sweep_ctr_sum,
	LP_REC_I32(struct lp_sweep_ctr_sum, lo, LP_REC_DOC("the pair: lo < hi")),
	LP_REC_I32(struct lp_sweep_ctr_sum, hi),
	LP_REC_I32(struct lp_sweep_ctr_sum, on, LP_REC_DOC("whose port: lo or hi")),
	LP_REC_ENUM(struct lp_sweep_ctr_sum, src, lp_ctr_src_names, LP_REC_KEY("source")),
	LP_REC_STR(struct lp_sweep_ctr_sum, name),
	LP_REC_ENUM(struct lp_sweep_ctr_sum, cls, lp_ctr_class_names, LP_REC_KEY("class")),
	LP_REC_U64(struct lp_sweep_ctr_sum, delta),
	LP_REC_I32(struct lp_sweep_ctr_sum, cells));

const struct lp_record lp_sweep_ctr_node_record = LP_RECORD(struct lp_sweep_ctr_node,
	LP_REC_I32(struct lp_sweep_ctr_node, partners, LP_REC_DOC("partners with counters read on either end")),
	LP_REC_I32(struct lp_sweep_ctr_node, moved, LP_REC_KEY("partners_moved"), LP_REC_DOC("of those, partners whose pair moved an error counter")));

const struct lp_record lp_sweep_missing_record = LP_RECORD(struct lp_sweep_missing,
	LP_REC_I32(struct lp_sweep_missing, a, LP_REC_KEY("client")),
	LP_REC_I32(struct lp_sweep_missing, b, LP_REC_KEY("server")),
	LP_REC_STR(struct lp_sweep_missing, metrics, LP_REC_DOC("labels of the metrics never measured, comma separated")));

/* ---- where the nodes sit ---- */

static const struct lp_record topo_name_record = LP_RECORD(struct lp_sweep_topo_name,
	LP_REC_STR(struct lp_sweep_topo_name, name));

/* Every index a node holds within its table. */
static int topo_check(const void *obj, struct lp_fail *f)
{
	const struct lp_sweep_topo_doc *t = obj;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->leaf[i] < -1 || t->leaf[i] >= (int)t->nleaf || t->rail[i] < -1 ||
		    t->rail[i] >= (int)t->nrail)
			return lp_fail_set(f, -EINVAL, "node %u: a leaf or rail out of range", i);
	return 0;
}

const struct lp_record lp_sweep_topo_record = LP_RECORD_CHECKED(struct lp_sweep_topo_doc, topo_check,
	LP_REC_STR(struct lp_sweep_topo_doc, format, LP_REC_DOC("slurm, simple, ibnetdiscover, or rails (--rails alone)")),
	LP_REC_STR(struct lp_sweep_topo_doc, source, LP_REC_DOC("the file it was read from (rails: \"--rails\")")),
	LP_REC_U32(struct lp_sweep_topo_doc, nleaf, LP_REC_RANGE(0, LP_SWEEP_MAX_NODES), LP_REC_NOJSON),
	LP_REC_U32(struct lp_sweep_topo_doc, nrail, LP_REC_RANGE(0, LP_SWEEP_MAX_NODES), LP_REC_NOJSON),
	LP_REC_U32(struct lp_sweep_topo_doc, n, LP_REC_RANGE(0, LP_SWEEP_MAX_NODES), LP_REC_NOJSON),
	LP_REC_VEC_NEST(struct lp_sweep_topo_doc, leaves, nleaf, topo_name_record, LP_REC_DOC("leaf switch (or block) names")),
	LP_REC_VEC_NEST(struct lp_sweep_topo_doc, rails, nrail, topo_name_record),
	LP_REC_VEC(struct lp_sweep_topo_doc, leaf, n, LP_REC_T_I32, int, LP_REC_DOC("per node: its index into leaves, -1 unknown")),
	LP_REC_VEC(struct lp_sweep_topo_doc, rail, n, LP_REC_T_I32, int, LP_REC_DOC("per node: its index into rails, -1 unknown")));

/* clang-format on */
