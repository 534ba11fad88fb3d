/* SPDX-License-Identifier: MIT */
/*
 * A growable array of any element type: one append, declared once. The
 * array (*arr), its count (*n) and capacity (*cap) belong to the caller;
 * capacity doubles from 16 elements.
 */
#ifndef LP_VEC_H
#define LP_VEC_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Copy elem (sz bytes) to the end of *arr. 0 or -ENOMEM (the array is left as it was). */
static inline int lp_vec_push(void *arr, size_t *n, size_t *cap, const void *elem, size_t sz)
{
	void **a = arr;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		void *p = realloc(*a, nc * sz);

		if (!p)
			return -ENOMEM;
		*a = p;
		*cap = nc;
	}
	memcpy((char *)*a + *n * sz, elem, sz);
	(*n)++;
	return 0;
}

#endif
