/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * TAP output, time and device helpers shared by the test programs. Every
 * line is flushed, since the programs fork and a child's crash must not
 * lose the parent's buffered lines.
 */
#ifndef SRDMA_TESTS_TAP_H
#define SRDMA_TESTS_TAP_H

#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef __printf
#define __printf(a, b)
#endif
#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))

static unsigned int tests_run, tests_failed;

static inline void __printf(1, 2) diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline bool vcheck(bool cond, const char *fmt, va_list ap)
{
	tests_run++;
	if (!cond)
		tests_failed++;
	printf("%sok %u - ", cond ? "" : "not ", tests_run);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

/* SIGALRM handler: a program that overran its time says so and stops */
static inline void tap_bail_out_on_alarm(int sig)
{
	static const char msg[] = "Bail out! timed out\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(1);
}

/* check() - one TAP line; returns @cond */
static inline bool __printf(2, 3) check(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool ret;

	va_start(ap, fmt);
	ret = vcheck(cond, fmt, ap);
	va_end(ap);
	return ret;
}

static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static inline void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	nanosleep(&ts, NULL);
}

/* open_device() - a context on the device called @name, or NULL */
static inline struct ibv_context *open_device(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

#endif /* SRDMA_TESTS_TAP_H */
