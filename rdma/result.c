// SPDX-License-Identifier: MIT
/* A result's heap memory (its JSON form is rdma/report.c's, written from records). */
#include "rdma/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lp_rdma_result_free(struct lp_rdma_result *r)
{
	free(r->ival);
	r->ival = NULL;
	r->nival = 0;
}
