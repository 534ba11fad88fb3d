// SPDX-License-Identifier: MIT
/* lp-sweep --check: every host's pre-flight report, as a table and as one JSON document. */
#include "sweep/check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/lp.h"
#include "common/record.h"

int lp_sweep_check_init(struct lp_sweep_check *c, int n)
{
	c->n = n;
	c->hosts = calloc(n > 0 ? n : 1, sizeof(*c->hosts));
	return c->hosts ? 0 : -ENOMEM;
}

void lp_sweep_check_free(struct lp_sweep_check *c)
{
	for (int i = 0; c->hosts && i < c->n; i++)
		lp_check_free(&c->hosts[i].rep);
	free(c->hosts);
	memset(c, 0, sizeof(*c));
}

static enum lp_check_status host_worst(const struct lp_sweep_check_host *h)
{
	return h->status ? LP_CHECK_FAIL : lp_check_worst(&h->rep);
}

enum lp_check_status lp_sweep_check_worst(const struct lp_sweep_check *c)
{
	enum lp_check_status w = LP_CHECK_OK;

	for (int i = 0; i < c->n; i++)
		w = LP_MAX(w, host_worst(&c->hosts[i]));
	return w;
}

void lp_sweep_check_print(const struct lp_sweep_check *c, FILE *f)
{
	unsigned per[3] = { 0 };

	for (int i = 0; i < c->n; i++) {
		const struct lp_sweep_check_host *h = &c->hosts[i];
		enum lp_check_status w = host_worst(h);

		per[w]++;
		fprintf(f, "== %s (rank %d): %u checks, worst %s\n", h->name, h->rank, h->rep.n,
			lp_check_status_name(w));
		if (h->status)
			fprintf(f, "FAIL  %-12s  %-24s  %s\n", "report", h->name, h->error);
		lp_check_print(&h->rep, f);
	}
	fprintf(f, "lp-sweep --check: %d hosts: %u FAIL, %u WARN, %u OK; worst %s\n", c->n,
		per[LP_CHECK_FAIL], per[LP_CHECK_WARN], per[LP_CHECK_OK],
		lp_check_status_name(lp_sweep_check_worst(c)));
}

/* clang-format off */
static const struct lp_record host_record = LP_RECORD(struct lp_sweep_check_host,
	LP_REC_STR(struct lp_sweep_check_host, name, LP_REC_DOC("the rank's label (\"host\", \"host/rail\")")),
	LP_REC_I32(struct lp_sweep_check_host, rank),
	LP_REC_I32(struct lp_sweep_check_host, status, LP_REC_DOC("0, or a negative errno: the check did not run there or no report came")),
	LP_REC_STR(struct lp_sweep_check_host, error));
/* clang-format on */

int lp_sweep_check_write_json(const struct lp_sweep_check *c, FILE *f, int exit_code)
{
	struct lp_json j;

	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_json_str(&j, "tool", "lp-sweep");
	lp_json_str(&j, "schema", LP_SWEEP_CHECK_SCHEMA);
	lp_json_str(&j, "role", "check");
	lp_json_arr_begin(&j, "hosts");
	for (int i = 0; i < c->n; i++) {
		const struct lp_sweep_check_host *h = &c->hosts[i];

		lp_json_obj_begin(&j, NULL);
		lp_record_json(&host_record, h, &j);
		if (h->status) { /* no report: a FAIL, no lines */
			lp_json_str(&j, "worst", lp_check_status_name(LP_CHECK_FAIL));
			lp_json_arr_begin(&j, "checks");
			lp_json_arr_end(&j);
		} else {
			lp_check_json(&h->rep, &j);
		}
		lp_json_obj_end(&j);
	}
	lp_json_arr_end(&j);
	lp_json_str(&j, "worst", lp_check_status_name(lp_sweep_check_worst(c)));
	lp_json_int(&j, "exit_code", exit_code);
	lp_json_obj_end(&j);
	return lp_json_finish(&j);
}
