/* SPDX-License-Identifier: MIT */
/* Inside the qualification module: rules, and the parts of lp_qual_setup/lp_qual_judge. */
#ifndef LP_QUAL_INTERNAL_H
#define LP_QUAL_INTERNAL_H

#include "qual/qual.h"

/* One limit for one test (or every test of the kind when test is ""). */
struct lp_qual_rule {
	enum lp_qual_kind kind;
	char test[LP_QUAL_NAME];
	uint64_t min_size, max_size; /* inclusive */
	double min_fraction;	     /* of the cell's ceiling, else of the profile's theoretical */
	double min_gbytes_s, max_lat_us;
	double theoretical; /* GB/s, the profile's; 0 unknown */
	bool floor;	    /* from the options */
	char source[480];   /* "--min-gbps 350" or "profile ib-ndr: <its source>" */
};

/* Load one profile file; hw NULL: unconditionally (--expect FILE), else only if it matches
 * (*matched_p says whether it did). 0 or -EINVAL with the cause in q->fail. */
int lp_qual_profile_load(struct lp_qual *q, const char *path, const struct lp_qual_hw *hw);
/* Every profile in the profile directory that matches hw; q->note says so when none does. */
int lp_qual_profiles_auto(struct lp_qual *q, const struct lp_qual_hw *hw);
struct lp_qual_rule *lp_qual_rule_new(struct lp_qual *q);
int lp_qual_prom_write(const struct lp_qual *q, const char *path);
void lp_qual_cell_judge(const struct lp_qual *q, struct lp_qual_cell *c);
/* Compare the judged cells with the baseline's (sets change/base_*, q->missing). */
int lp_qual_compare(struct lp_qual *q);

#endif
