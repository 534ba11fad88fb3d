// SPDX-License-Identifier: MIT
/* Gates per node: each node's own profile, its port's state, GPU memory's allowance (qual/node.h). */
#include "qual/node.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"

/* clang-format off */
const struct lp_record lp_qual_gate_record = LP_RECORD(struct lp_qual_gate,
	LP_REC_STR(struct lp_qual_gate, profile, LP_REC_DOC("the profile the node's own port matches, \"\" none")),
	LP_REC_ENUM(struct lp_qual_gate, verdict, lp_qual_verdict_names, LP_REC_DOC("none: nothing to judge (software RDMA, no device); FAIL: reason says why")),
	LP_REC_STR(struct lp_qual_gate, reason));
/* clang-format on */

static const char *const speed_order[] = { "SDR", "DDR", "QDR", "FDR", "EDR",
					   "HDR", "NDR", "XDR", NULL };

static int speed_rank(const char *s)
{
	for (int i = 0; s && speed_order[i]; i++)
		if (!strcmp(s, speed_order[i]))
			return i;
	return -1;
}

int lp_qual_node_profile(const struct lp_qual_hw *hw, char *name, size_t len, struct lp_fail *f)
{
	struct lp_qual_opts o = { .expect = "auto" };
	struct lp_qual q;
	int ret = lp_qual_setup(&q, "gate", &o, hw);

	name[0] = '\0';
	if (!ret && q.profiles[0])
		snprintf(name, len, "%s", q.profiles);
	else if (!ret)
		ret = lp_fail_set(f, -ENOENT, "%s", q.note[0] ? q.note : "no profile matches");
	else
		lp_fail_take(f, &q.fail); /* the profiles could not be read */
	lp_qual_free(&q);
	return ret;
}

/* The port's own state: narrower or slower than both ends support, PCIe lanes lost. */
static bool port_trained_down(const struct lp_qual_port *p, char *why, size_t len)
{
	if (p->max_width && p->hw.width && p->hw.width < p->max_width) {
		snprintf(
			why, len,
			"port runs %uX of the %uX it supports: lanes lost (cable, transceiver, switch port)",
			p->hw.width, p->max_width);
		return true;
	}
	const char *best = p->max_speed;

	if (p->peer_max_speed && (!best || speed_rank(p->peer_max_speed) < speed_rank(best)))
		best = p->peer_max_speed; /* the link's best is the lower of its two ends' */
	if (best && speed_rank(p->hw.speed) >= 0 && speed_rank(p->hw.speed) < speed_rank(best)) {
		snprintf(
			why, len,
			"port runs %s, below the %s both ends support: check the cable's rating and forced speeds",
			p->hw.speed, best);
		return true;
	}
	if (p->pcie_max_width && p->pcie_width && p->pcie_width < p->pcie_max_width) {
		snprintf(why, len,
			 "the HCA's PCIe link runs x%u of x%u: reseat the card, check the riser",
			 p->pcie_width, p->pcie_max_width);
		return true;
	}
	return false;
}

/* The profile most nodes match ("" none). */
static void fleet_profile(const struct lp_qual_gate *g, int n, char *out, size_t len)
{
	int best = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		int votes = 0;

		for (int k = 0; g[i].profile[0] && k < n; k++)
			votes += !strcmp(g[i].profile, g[k].profile);
		if (votes > best) {
			best = votes;
			snprintf(out, len, "%s", g[i].profile);
		}
	}
}

int lp_qual_nodes_judge(const struct lp_qual_port *ports, int n, struct lp_qual_gate *gates,
			char *fleet, size_t fleet_len)
{
	char fl[64], why[256];
	int fails = 0;

	for (int i = 0; i < n; i++) {
		struct lp_fail none = { 0 };

		memset(&gates[i], 0, sizeof(gates[i]));
		/* why none applies (or why the profiles could not be read): the gate's reason */
		if (ports[i].hw.rdma_dev && ports[i].hw.rdma_dev[0] &&
		    lp_qual_node_profile(&ports[i].hw, gates[i].profile, sizeof(gates[i].profile),
					 &none))
			snprintf(gates[i].reason, sizeof(gates[i].reason), "%s",
				 lp_fail_msg(&none));
	}
	fleet_profile(gates, n, fl, sizeof(fl));
	for (int i = 0; i < n; i++) {
		struct lp_qual_gate *g = &gates[i];
		const struct lp_qual_port *p = &ports[i];

		if (!p->hw.rdma_dev || !p->hw.rdma_dev[0])
			continue; /* no device: the sweep's own node_failed says so */
		if (port_trained_down(p, why, sizeof(why)))
			g->verdict = LP_QUAL_FAIL;
		else if (fl[0] && !g->profile[0])
			snprintf(
				why, sizeof(why),
				"matches no profile (%s %s %ux, %g Gb/s) while the fleet matches %s: trained down or wrong speed",
				p->hw.link_layer ? p->hw.link_layer : "?",
				p->hw.speed ? p->hw.speed : "-", p->hw.width, p->hw.rate_gbps, fl);
		else if (fl[0] && strcmp(g->profile, fl))
			snprintf(why, sizeof(why),
				 "its port matches %s while the fleet matches %s (%s %ux, %g Gb/s)",
				 g->profile, fl, p->hw.speed ? p->hw.speed : "-", p->hw.width,
				 p->hw.rate_gbps);
		else if (g->profile[0])
			snprintf(why, sizeof(why), "port at %s %ux, %g Gb/s: profile %s",
				 p->hw.speed ? p->hw.speed : "-", p->hw.width, p->hw.rate_gbps,
				 g->profile);
		else
			continue; /* nothing to hold it against (software RDMA, no profile anywhere) */
		g->verdict = g->verdict == LP_QUAL_FAIL || (fl[0] && strcmp(g->profile, fl))
				     ? LP_QUAL_FAIL
				     : LP_QUAL_PASS;
		snprintf(g->reason, sizeof(g->reason), "%s", why);
		fails += g->verdict == LP_QUAL_FAIL;
	}
	if (fleet)
		snprintf(fleet, fleet_len, "%s", fl);
	return fails;
}

double lp_qual_gpu_allowance_us(unsigned sides, double notify_us)
{
	return sides && isfinite(notify_us) && notify_us > 0 ? sides * notify_us / 2 : 0;
}
