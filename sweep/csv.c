// SPDX-License-Identifier: MIT
/* lp-sweep's CSV files: one matrix per metric and one row per cell. */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/table.h"
#include "sweep/load.h"

/* ---- CSV ---- */

/* PREFIX-<test>-<size>.csv: the matrix of metric m, ERR for failed cells. */
static int csv_matrix(const struct lp_sweep_run *r, int m, const char *prefix,
		      struct lp_sweep_mx *mx)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	char path[4096], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s-%s-%llu.csv", prefix, mt->test,
		 (unsigned long long)mt->size);
	if (lp_sweep_mx_fill(r, m, mx))
		return -ENOMEM;
	f = lp_out_open(path);
	if (!f)
		return -EIO;
	snprintf(buf, sizeof(buf), "client\\server [%s]", lp_sweep_unit(mt));
	lp_csv_field(f, buf, 0);
	for (int b = 0; b < r->n; b++)
		lp_csv_field(f, r->nodes[b].name, b == r->n - 1);
	for (int a = 0; a < r->n; a++) {
		lp_csv_field(f, r->nodes[a].name, 0);
		for (int b = 0; b < r->n; b++) {
			size_t x = (size_t)a * r->n + b;

			if (mx->fail[x])
				snprintf(buf, sizeof(buf), "ERR");
			else if (isfinite(mx->v[x]))
				snprintf(buf, sizeof(buf), "%.6g", mx->v[x]);
			else
				buf[0] = 0;
			lp_csv_field(f, buf, b == r->n - 1);
		}
	}
	return lp_out_close(f, path);
}

/*
 * PREFIX-cells.csv: one row per attempt: the test, size and the nodes' names, then the attempt
 * record's fields (common/record.h's CSV form of lp_sweep_cell_record: its keys, nested ones as
 * latency.p50), then whether the run was interrupted or incomplete.
 */
static int csv_cells(const struct lp_sweep_run *r, const char *prefix)
{
	static const char *const sparse[] = { "ctr_client", "ctr_server", NULL };
	uint64_t skip = lp_record_mask(&lp_sweep_cell_record, sparse);
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s-cells.csv", prefix);
	f = lp_out_open(path);
	if (!f)
		return -EIO;
	fputs("test,size,client_name,server_name,unit,", f);
	lp_record_csv_header(&lp_sweep_cell_record, skip, f, true);
	fputs(",error,run_interrupted,run_incomplete\n", f);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_metric *mt = &r->metrics[r->cells[i].metric];
		struct lp_sweep_cell c;

		lp_sweep_cell_get(r, i, &c);
		fprintf(f, "%s,%llu,", mt->test, (unsigned long long)mt->size);
		lp_csv_field(f, r->nodes[c.a].name, 0);
		lp_csv_field(f, r->nodes[c.b].name, 0);
		fprintf(f, "%s,", mt->unit);
		lp_record_csv_row(&lp_sweep_cell_record, &c, skip, f, true);
		fputc(',', f);
		lp_csv_field(f, c.error, 0);
		fprintf(f, "%d,%d\n", r->interrupted, r->incomplete);
	}
	return lp_out_close(f, path);
}

int lp_sweep_write_csv(const struct lp_sweep_run *r, const char *prefix)
{
	struct lp_sweep_mx mx;
	int rc;

	if (lp_sweep_mx_alloc(&mx, r->n))
		return -ENOMEM;
	for (int m = 0; m < r->nmetrics; m++) {
		rc = csv_matrix(r, m, prefix, &mx);
		if (rc)
			goto out;
	}
	rc = csv_cells(r, prefix);
	if (!rc)
		rc = lp_sweep_load_csv(r, prefix);
out:
	lp_sweep_mx_free(&mx);
	return rc;
}
