/* SPDX-License-Identifier: MIT */
/*
 * Checks the unit tests apply to what the tools show and write (include after lp_test.h):
 *  - lp_text_rules: a table or summary for people follows docs/METHOD.md's rules for numbers
 *    (tests/text-rules.ere): no exponent ("2.808e+04"), no "nan" or "inf", sizes as "64 KiB";
 *  - lp_doc_validate: a JSON document satisfies its published schema (docs/schema/), checked
 *    by scripts/json-validate with Debian's python3-jsonschema (missing: the test is skipped);
 *  - lp_schema_same: a tool's schema, as its records give it now, is the published file.
 */
#ifndef LP_DOC_CHECK_H
#define LP_DOC_CHECK_H

#include <regex.h>
#include <sys/wait.h>

/* The path of a file of the source tree (the tests run from its root, or LP_ROOT). */
static inline const char *lp_src_path(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", getenv("LP_ROOT") ? getenv("LP_ROOT") : ".", rel);
	return buf;
}

/*
 * 0 when text follows every rule of tests/text-rules.ere (one POSIX extended regular
 * expression a line, each a way a number must not be shown: an exponent, nan or inf, a size
 * without the space before its unit; the shell tests grep with the same file); else -1 with
 * the rule and the line in why.
 */
static inline int lp_text_rules(const char *text, char *why, size_t len)
{
	char path[512], rule[256];
	FILE *f = fopen(lp_src_path("tests/text-rules.ere", path, sizeof(path)), "r");
	int ret = 0;

	if (!f)
		fail_msg("%s: not found", path);
	while (!ret && fgets(rule, sizeof(rule), f)) {
		regex_t re;
		regmatch_t m;

		rule[strcspn(rule, "\n")] = '\0';
		if (regcomp(&re, rule, REG_EXTENDED | REG_NEWLINE))
			fail_msg("bad rule %s", rule);
		if (!regexec(&re, text, 1, &m, 0)) {
			const char *a = text + m.rm_so, *b = a;

			while (a > text && a[-1] != '\n')
				a--;
			while (*b && *b != '\n')
				b++;
			snprintf(why, len, "/%s/ matches \"%.*s\"", rule, (int)(b - a), a);
			ret = -1;
		}
		regfree(&re);
	}
	fclose(f);
	return ret;
}

static inline void lp_assert_text_rules(const char *text)
{
	char why[512];

	if (lp_text_rules(text, why, sizeof(why)))
		fail_msg("%s", why);
}

/* scripts/json-validate's exit status for doc against schema_file; 77 (127): no validator here. */
static inline int lp_doc_validate(const char *schema_file, const char *doc)
{
	char path[] = "/tmp/lp-doc-XXXXXX", cmd[1024], schema[512], tool[512];
	int fd = mkstemp(path), rc;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(doc, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s %s >&2",
		 lp_src_path("scripts/json-validate", tool, sizeof(tool)),
		 lp_src_path(schema_file, schema, sizeof(schema)), path);
	rc = system(cmd);
	unlink(path);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Assert doc is valid; skip the test where python3-jsonschema is missing. */
static inline void lp_assert_doc_valid(const char *schema_file, const char *doc)
{
	int rc = lp_doc_validate(schema_file, doc);

	if (rc == 77 || rc == 127) /* python3-jsonschema (or python3) is not installed here */
		skip();
	if (rc)
		fail_msg("the document does not satisfy %s (json-validate exit %d)", schema_file,
			 rc);
}

/* The text emit(f) writes, malloc'ed. */
static inline char *lp_capture(int (*emit)(FILE *f, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(emit(f, arg), 0);
	fclose(f);
	return buf;
}

/* The schema a tool's records give now is the published file (make schemas rewrites it). */
static inline void lp_assert_schema_same(int (*schema)(FILE *f), const char *schema_file)
{
	char path[512], *now = NULL, *file = NULL;
	size_t len = 0, flen = 0;
	FILE *f = open_memstream(&now, &len);

	assert_non_null(f);
	assert_int_equal(schema(f), 0);
	fclose(f);
	f = fopen(lp_src_path(schema_file, path, sizeof(path)), "r");
	if (!f)
		fail_msg("%s: not there (make schemas)", schema_file);
	assert_int_equal(getdelim(&file, &flen, '\0', f) > 0, 1);
	fclose(f);
	if (strcmp(now, file))
		fail_msg("%s differs from what the records give now: run make schemas",
			 schema_file);
	free(now);
	free(file);
}

#endif
