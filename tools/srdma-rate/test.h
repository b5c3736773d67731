/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * TAP output for srdma-rate's host tests (tests/tap.h needs libibverbs,
 * these must not).
 */
#ifndef SRDMA_RATE_TEST_H
#define SRDMA_RATE_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))

static unsigned int tests_run, tests_failed;

/* check() - one TAP line; returns @cond */
static inline bool __printf(2, 3) check(bool cond, const char *fmt, ...)
{
	va_list ap;

	tests_run++;
	if (!cond)
		tests_failed++;
	printf("%sok %u - ", cond ? "" : "not ", tests_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

static inline void __printf(1, 2) diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* the plan goes last, as TAP allows; the exit status says it all */
static inline int test_done(void)
{
	printf("1..%u\n", tests_run);
	if (tests_failed)
		diag("%u of %u failed", tests_failed, tests_run);
	return tests_failed ? 1 : 0;
}

#endif /* SRDMA_RATE_TEST_H */
