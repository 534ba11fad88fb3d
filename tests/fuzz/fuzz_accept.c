// SPDX-License-Identifier: MIT
/* ACCEPT: the server's device, decoded by the client and written into its JSON document. */
#include "tests/fuzz/fuzz.h"

#include "rdma/report.h"

LP_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_rdma_result res = { 0 };
	struct lp_rdma_params p;
	union lp_fuzz_msg m;
	struct lp_rdma_report rep = { .role = "client",
				      .server = "peer",
				      .port = 1,
				      .qp_timeout = LP_RDMA_QP_TIMEOUT_DEFAULT,
				      .n = 1 };
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
	rep.local_dev = &m.accept;
	rep.params = &p;
	rep.res = &res;
	if (lp_rdma_report_json_write(f, &rep, NULL))
		abort();
	fclose(f);
	free(out);
	return 0;
}
