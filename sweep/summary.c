// SPDX-License-Identifier: MIT
/* lp-sweep's readable summary: matrices, noise, missing cells, verdicts. */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "sweep/collrun.h"
#include "sweep/fast.h"
#include "sweep/load.h"

/* ---- summary ---- */

/* Metric m's matrix as a table (! slow, x failed), with its reference and noise. */
static void summary_metric(FILE *f, const struct lp_sweep_run *r, int m,
			   const struct lp_sweep_mx *mx, int w)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	const struct lp_diag *d = r->diag ? &r->diag[m] : NULL;
	int n = r->n;
	char ref[32];

	lp_sweep_fmt_val(ref, sizeof(ref), d ? d->ref : NAN, mt->lat);
	fprintf(f,
		"\n%s [%s], rows = client, columns = server; reference %s %s (! slow, ? unconfirmed, "
		"x failed)\n",
		mt->label, mt->lat ? "one-way p50 us" : "Gb/s", ref, lp_sweep_unit(mt));
	if (d) {
		char noise[160];

		lp_sweep_fmt_noise(noise, sizeof(noise), d);
		fprintf(f, "  %s; found with 90%% power: node ", noise);
		fprintf(f, d->min_node >= 0.005 ? "%.2fx" : "none (too few cells or df)",
			d->min_node);
		fprintf(f, ", link ");
		fprintf(f, d->min_link >= 0.005 ? "%.2fx" : "none (no retest reaches it)",
			d->min_link);
		if (isfinite(d->min_group))
			fprintf(f, ", leaf %.2fx", d->min_group);
		fprintf(f, "%s\n", d->inconclusive ? " (inconclusive)" : "");
		if (d->nround_fx)
			fprintf(f, "  %d congested sweep round(s) fitted as round effects\n",
				d->nround_fx);
	}
	if (n > 32) {
		fprintf(f, "  (matrix of %d nodes: see the CSV/JSON)\n", n);
		return;
	}
	fprintf(f, "%*s", w, "");
	for (int b = 0; b < n; b++)
		fprintf(f, " %*.*s", w, w, r->nodes[b].name);
	fprintf(f, "\n");
	for (int a = 0; a < n; a++) {
		fprintf(f, "%*.*s", w, w, r->nodes[a].name);
		for (int b = 0; b < n; b++) {
			size_t x = (size_t)a * n + b;
			char cell[40], val[32];
			uint8_t c = d ? d->cls[lp_diag_at(&d->lay, a, b)] : LP_CELL_NONE;

			if (a == b)
				snprintf(cell, sizeof(cell), "-");
			else if (mx->fail[x])
				snprintf(cell, sizeof(cell), "x");
			else {
				lp_sweep_fmt_val(val, sizeof(val), mx->v[x], mt->lat);
				snprintf(cell, sizeof(cell), "%s%s", val,
					 c == LP_CELL_SLOW     ? "!"
					 : c == LP_CELL_UNCONF ? "?"
							       : "");
			}
			fprintf(f, " %*s", w, cell);
		}
		fprintf(f, "\n");
	}
}

static void summary_verdict(FILE *f, const struct lp_sweep_run *r, const struct lp_verdict *vd)
{
	if (vd->a < 0 || vd->kind == LP_VERDICT_PAIR_SLOW)
		fprintf(f, "verdict: %s: %s\n", lp_verdict_names[vd->kind], vd->reason);
	else if (lp_sweep_is_link(vd))
		fprintf(f, "verdict: %s %s%s%s: %s\n", lp_verdict_names[vd->kind],
			r->nodes[vd->dirs == LP_DIR_YX ? vd->b : vd->a].name,
			vd->dirs == LP_DIR_BOTH ? "<->" : "->",
			r->nodes[vd->dirs == LP_DIR_YX ? vd->a : vd->b].name, vd->reason);
	else
		fprintf(f, "verdict: %s %s: %s\n", lp_verdict_names[vd->kind], r->nodes[vd->a].name,
			vd->reason);
}

struct missing_lines {
	FILE *f;
	int shown;
};

static void summary_missing_pair(void *arg, const struct lp_sweep_run *r, int a, int b,
				 const char *labels)
{
	struct missing_lines *ml = arg;

	if (ml->shown++ < 20)
		fprintf(ml->f, "  missing: %s -> %s: %s\n", r->nodes[a].name, r->nodes[b].name,
			labels);
}

/* An incomplete run says so, and which cells it lacks (the first 20 pairs; the JSON has all). */
static void summary_missing(FILE *f, const struct lp_sweep_run *r)
{
	struct missing_lines ml = { f, 0 };
	size_t cnt = lp_sweep_missing(r, NULL);

	if (!cnt && !r->incomplete)
		return;
	fprintf(f, "run incomplete%s: %zu scheduled cell(s) never measured\n",
		r->incomplete ? " (the journal has no end)" : "", cnt);
	lp_sweep_each_missing(r, summary_missing_pair, &ml);
	if (ml.shown > 20)
		fprintf(f, "  ... and %d more pair(s) (see the JSON's \"missing\")\n",
			ml.shown - 20);
}

void lp_sweep_print_summary(const struct lp_sweep_run *r, FILE *f)
{
	struct lp_sweep_mx mx;
	size_t rounds;
	int w = 8;

	if (lp_sweep_mx_alloc(&mx, r->n))
		return;
	for (int i = 0; i < r->n; i++)
		w = LP_MAX(w, (int)strlen(r->nodes[i].name) + 1);
	w = LP_MIN(w, 20);
	rounds = r->sched ? r->sched->nrounds : r->rounds;
	fprintf(f, "lp-sweep: %d nodes, schedule %s", r->n, r->sched_name);
	if (rounds) /* a list schedule read back does not know its rounds */
		fprintf(f, ", %zu rounds", rounds);
	fprintf(f, ", %zu cells (%zu retests), %.1f s\n", r->ncells, r->nretests, r->wall_s);
	if (r->model[0])
		fprintf(f,
			"lp-sweep: the model transport: every value drawn from %s, none measured\n",
			r->model);
	for (int m = 0; m < r->nmetrics; m++) {
		if (!lp_sweep_metric_screened(r, m))
			continue; /* --fast: its pairs are in the size sweep's table */
		if (lp_sweep_mx_fill(r, m, &mx))
			break;
		summary_metric(f, r, m, &mx, w);
	}
	lp_sweep_fast_summary(f, r);
	lp_sweep_load_summary(r, f);
	lp_sweep_coll_summary(r, f);
	fprintf(f,
		"\nerror control: a healthy run names something with at most %.2g (nodes and "
		"groups: Sidak; links: Benjamini-Hochberg, confirmed by retests)\n",
		r->dopts.fp_rate);
	summary_missing(f, r);
	if (r->nverdicts == 0 && !lp_coll_flagged(r->coll) && !lp_coll_inconclusive(r->coll))
		fprintf(f, "verdict: healthy (nothing flagged)\n");
	for (int i = 0; i < r->nverdicts; i++)
		summary_verdict(f, r, &r->verdicts[i]);
	lp_sweep_mx_free(&mx);
}
