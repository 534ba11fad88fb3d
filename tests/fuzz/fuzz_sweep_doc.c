// SPDX-License-Identifier: MIT
/*
 * A linkperf.sweep document (/2 or /1) as --diagnose reads it: any bytes. What reads is
 * diagnosed and written again as /2; that document reads back and writes the same bytes (the
 * reader and the writer agree); nothing is allocated beyond what the input holds.
 */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/sweep_run.h"

LP_FUZZ_QUIET_INIT

/* r written as /2 into *buf (its length in *len). */
static void write_doc(const struct lp_sweep_run *r, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f || lp_sweep_write_json(r, f, 0) || fclose(f))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_sweep_run r, back;
	struct lp_fail why = { 0 };
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;

	if (lp_sweep_read_text(&r, (const char *)data, size, NULL))
		return 0;
	if (r.n > 64 || r.ncells > 4096) { /* a big run is fine, but slow to fuzz */
		lp_sweep_run_free(&r);
		return 0;
	}
	write_doc(&r, &a, &alen);
	if (lp_sweep_read_text(&back, a, alen, &why)) {
		fprintf(stderr, "the writer's own document does not read back: %s\n",
			lp_fail_msg(&why));
		abort();
	}
	write_doc(&back, &b, &blen);
	if (alen != blen || memcmp(a, b, alen))
		abort(); /* written, read and written again: other bytes */
	lp_sweep_run_free(&back);
	if (r.n <= 16)
		lp_fuzz_sweep_report(&r);
	lp_sweep_run_free(&r);
	free(a);
	free(b);
	return 0;
}
