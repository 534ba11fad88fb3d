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
#include <stdio.h>
#include <string.h>

#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "qual/qual.h"
#include "sweep/result.h"

static const char *const schema_names[] = { "sweep", NULL };

struct cli {
	int schema;
	bool schema_set, help, version;
	const char *json_path;
	struct lp_qual_opts qual;
};

static int judge(const struct cli *o, const char *doc)
{
	struct lp_qual q;
	int rc = lp_qual_setup(&q, "lp-judge", &o->qual, NULL);

	if (rc)
		return rc == -EOPNOTSUPP ? LP_EXIT_UNSUPPORTED : LP_EXIT_USAGE;
	rc = lp_qual_judge_doc(&q, doc, o->json_path);
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

int main(int argc, char **argv)
{
	struct cli o = { 0 };
	const struct lp_opt opts[] = {
		LP_QUAL_OPT_ROWS(&o.qual),
		{ .name = "json",
		  .kind = LP_OPT_STR,
		  .dst = &o.json_path,
		  .metavar = "FILE",
		  .help = "write the judged document: the input with its \"qualification\" section" },
		{ .name = "schema",
		  .kind = LP_OPT_CHOICE,
		  .dst = &o.schema,
		  .choices = schema_names,
		  .set = &o.schema_set,
		  .metavar = "KIND",
		  .help = "print the JSON Schema of a document kind (sweep: linkperf.sweep/2, from its records) and exit" },
		{ .name = "version",
		  .kind = LP_OPT_FLAG,
		  .dst = &o.version,
		  .help = "print the version" },
		{ 0 },
	};
	const char *pos[2];
	int npos = 0;

	if (lp_opt_parse(opts, argc, argv, pos, 2, &npos, &o.help))
		return LP_EXIT_USAGE;
	if (o.help) {
		lp_opt_usage(
			stdout,
			"lp-judge DOC.json [--expect ...] [--baseline OLD.json] [--json OUT.json]",
			opts);
		return LP_EXIT_OK;
	}
	if (o.version) {
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
