// SPDX-License-Identifier: MIT
/*
 * The importer of nccl-tests' tables and NCCL's INFO lines (sweep/collimport.c): any bytes are
 * refused with a reason or imported; what is imported maps onto nodes, gives a ceiling and
 * writes a well-formed JSON document and a summary.
 */
#include "tests/fuzz/fuzz.h"

#include <math.h>

#include "common/json.h"
#include "sweep/coll.h"
#include "sweep/collimport.h"

LP_FUZZ_QUIET_INIT

/* What an import leads to: the nodes gpu-a and gpu-b, their links, the document. */
static void use(struct lp_coll_run *cr)
{
	static const char *const hosts[] = { "gpu-a", "gpu-b" };
	double bw[] = { NAN, 40, 45, NAN };
	struct lp_coll_fabric f = { .n = 2, .bw = bw, .names = hosts };
	struct lp_coll_ceiling c;
	struct lp_json j;
	char *out = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&out, &len);

	if (!mf)
		abort();
	for (int t = 0; t < cr->ntopo; t++) {
		lp_coll_topo_map(cr->topo[t], hosts, NULL, 2);
		if (!lp_coll_topo_ceiling(cr->topo[t], &f, &c) && lp_coll_run_add_ceiling(cr, &c))
			abort();
	}
	lp_json_init(&j, mf, false);
	lp_json_obj_begin(&j, NULL);
	lp_coll_json(&j, cr, hosts, 2);
	lp_json_obj_end(&j);
	if (lp_json_finish(&j))
		abort();
	lp_coll_summary(mf, cr, hosts, 2);
	fclose(mf);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_coll_run *cr = lp_coll_run_new();
	struct lp_fail why = { 0 };

	if (!cr)
		abort();
	if (!lp_coll_import_text(cr, (const char *)data, size, "fuzz", NULL, &why))
		use(cr);
	else if (!why.msg[0])
		abort(); /* a refusal always says why */
	lp_coll_run_free(cr);
	return 0;
}
