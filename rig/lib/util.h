/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers every part of the host tool needs.
 */
#ifndef HZRIG_UTIL_H
#define HZRIG_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An optional integer that a file did not have (or had as null). */
#define HZRIG_ABSENT		INT64_MIN

/*
 * Room for element @n of the array @p of *@cap elements of @size bytes: @p
 * itself while there is, else @p grown to @first elements, then to twice as
 * many each time (*@cap updated). NULL when out of memory or when the size
 * would overflow; @p is then untouched and still owned by the caller.
 */
static inline void *hzrig_grow(void *p, size_t n, size_t *cap, size_t first,
			       size_t size)
{
	size_t c;

	if (n < *cap)
		return p;
	c = *cap ? *cap * 2 : first;
	if (c < *cap || (size && c > SIZE_MAX / size))
		return NULL;
	p = realloc(p, c * size);
	if (p)
		*cap = c;
	return p;
}

/*
 * Append one zeroed element to the array @arr of @n elements (capacity
 * @cap, growing from @first) and count it: a pointer to it, or NULL when out
 * of memory (the array is then as it was). GNU C: @arr, @n and @cap are
 * lvalues, each evaluated more than once.
 */
#define HZRIG_PUSH(arr, n, cap, first) ({				\
	__typeof__(arr) hzrig_q_ = hzrig_grow((arr), (n), &(cap), (first), \
					      sizeof(*(arr)));		\
	if (hzrig_q_) {							\
		(arr) = hzrig_q_;					\
		memset(&(arr)[(n)], 0, sizeof(*(arr)));			\
		hzrig_q_ = &(arr)[(n)++];				\
	}								\
	hzrig_q_;							\
})

/* strtoll with the whole string, range-checked. */
static inline int hzrig_parse_ll(const char *s, long long min,
				 long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * Nearest-rank percentile @p (0 < p <= 100) of @n ascending values: the
 * value at 1-based rank ceil(p/100 * n). It is always one of the values
 * (no interpolation); the median of an even count is the lower middle one,
 * and p95 of fewer than 20 values is the maximum. HZRIG_ABSENT for none.
 */
static inline int64_t hzrig_percentile(const int64_t *sorted, size_t n,
				       unsigned int p)
{
	size_t rank;

	if (!n)
		return HZRIG_ABSENT;
	if (p > 100)
		p = 100;
	/* ceil(p * n / 100) in integers; rank 0 (p = 0) means the first. */
	rank = ((size_t)p * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

/* qsort() comparator of int64_t, ascending: what hzrig_percentile() wants. */
static inline int hzrig_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

#endif /* HZRIG_UTIL_H */
