// SPDX-License-Identifier: MIT
/*
 * lp-judge: qualification after the fact, without MPI or devices. It judges
 * any linkperf document (lp-rdma, lp-gpu, lp-sweep) against floors, profiles
 * (--expect) and a baseline run, prints the table and writes the judged
 * document (--json: the document with its "qualification" section, the
 * judgement of qual/ recorded with its records); and it prints the JSON
 * Schema of lp-sweep's document (--schema sweep), generated from the records.
 * Exit: 0 pass, 1 a cell failed or regressed, 2 usage or a document that is
 * not one (a baseline matching under half of the cells), 77 no JSON library.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/lp.h"
#include "common/opt.h"
#include "qual/qual.h"
#include "sweep/result.h"

static const char *const schema_names[] = { "sweep", NULL };

struct cli {
	int schema;
	bool schema_set;
	const char *json_path;
	struct lp_out_opts out; /* -V */
	struct lp_qual_opts qual;
};

static int judge(const struct cli *o, const char *doc)
{
	struct lp_qual q;
	int rc = lp_qual_setup(&q, "lp-judge", &o->qual, NULL);

	if (rc) {
		lp_fail_report(&q.fail, 0);
		return rc == -EOPNOTSUPP ? LP_EXIT_UNSUPPORTED : LP_EXIT_USAGE;
	}
	rc = lp_qual_judge_doc(&q, doc, o->json_path);
	lp_fail_report(&q.fail, 0);
	if (!rc)
		lp_qual_print(&q, stdout);
	rc = rc == -EOPNOTSUPP	  ? LP_EXIT_UNSUPPORTED
	     : rc == -EINVAL	  ? LP_EXIT_USAGE
	     : rc		  ? LP_EXIT_FAIL
	     : lp_qual_failed(&q) ? LP_EXIT_FAIL
				  : LP_EXIT_OK;
	lp_qual_free(&q);
	return rc;
}

/* clang-format off */
static const struct lp_opt judge_rows[] = {
	{ .name = "json", LP_OPT_STR_AT(struct cli, json_path), .metavar = "FILE",
	  .help = "write the judged document: the input with its \"qualification\" section" },
	{ .name = "schema", LP_OPT_CHOICE_AT(struct cli, schema), LP_OPT_SET_AT(struct cli, schema_set),
	  .choices = schema_names, .metavar = "KIND",
	  .help = "print the JSON Schema of a document kind (sweep: linkperf.sweep/2, from its "
		  "records) and exit" },
	{ 0 },
};

static const struct lp_opt_exit judge_exits[] = {
	{ LP_EXIT_OK, "every judged cell passed (or nothing was judged)" },
	{ LP_EXIT_FAIL, "a cell failed or regressed" },
	{ LP_EXIT_USAGE, "usage error, a document that is not one, or a baseline matching under half "
			 "of the cells" },
	{ LP_EXIT_OUTPUT, "the judged document or the standard output could not be written (a full "
			  "disk, a missing directory, a symbolic link at the file)" },
	{ LP_EXIT_UNSUPPORTED, "built without jansson" },
	{ 0 },
};

static const struct lp_opt_cmd judge_cmd = {
	.synopsis = "lp-judge DOC.json [--expect ...] [--baseline OLD.json] [--json OUT.json]\n"
		    "lp-judge --schema sweep",
	.groups = (const struct lp_opt_group[]){
		{ "judge", judge_rows, 0 },
		{ "judge", lp_out_version_opt_rows, offsetof(struct cli, out) },
		{ "qualification", lp_qual_opt_rows, offsetof(struct cli, qual) },
		{ "qualification", lp_qual_gbps_opt_rows, offsetof(struct cli, qual) },
		{ 0 } },
	.max_pos = 1,
	.notes = "Floors as the documents' tools take them: --min-gbps in Gb/s (a GB/s suffix for "
		 "bytes: lp-gpu's copy rates).",
	.exits = judge_exits,
};
/* clang-format on */

int main(int argc, char **argv)
{
	struct cli o = { 0 };
	const char *pos[1];
	int npos = 0;
	bool help;

	lp_out_exit_guard(); /* an output not written (a full disk) exits LP_EXIT_OUTPUT */
	if (lp_opt_parse(&judge_cmd, &o, argc, argv, pos, &npos, &help))
		return LP_EXIT_USAGE;
	if (help) {
		lp_opt_usage(&judge_cmd, stdout);
		return LP_EXIT_OK;
	}
	if (o.out.version) {
		printf("lp-judge %s\n", LP_VERSION);
		return LP_EXIT_OK;
	}
	if (o.schema_set)
		return lp_sweep_write_schema_extra(stdout, lp_qual_schema) ? LP_EXIT_FAIL
									   : LP_EXIT_OK;
	if (npos != 1) {
		lp_err("one document to judge, please (lp-judge --help)");
		return LP_EXIT_USAGE;
	}
	o.qual.argv = argv;
	return judge(&o, pos[0]);
}
