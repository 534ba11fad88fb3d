// SPDX-License-Identifier: MIT
/* ACCEPT: the server's device, decoded by the client and written into its JSON result. */
#include "tests/fuzz/fuzz.h"

#include "common/json.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_rdma_result res = { 0 };
	struct lp_rdma_params p;
	union lp_fuzz_msg m;
	struct lp_json j;
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	if (lp_fuzz_msg(LP_MSG_ACCEPT, &m, data, size))
		return 0;
	res.remote_dev = m.accept;
	/* The peer's strings end up in the JSON document: it must stay well formed. */
	lp_rdma_params_default(&p, LP_RDMA_WRITE_BW);
	f = open_memstream(&out, &outlen);
	if (!f)
		abort();
	lp_json_init(&j, f, false);
	lp_json_obj_begin(&j, NULL);
	lp_rdma_result_json(&res, &p, &j);
	lp_json_obj_end(&j);
	if (lp_json_finish(&j))
		abort();
	fclose(f);
	free(out);
	return 0;
}
