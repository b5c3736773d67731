// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * TAP output, the usage error, time and opening a device: what every test
 * program does the same way.
 */
#include <stdlib.h>

#include "tap.h"

unsigned int tests_run, tests_failed;

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

bool vcheck(bool cond, const char *fmt, va_list ap)
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

bool vcheck_todo(bool cond, const char *todo, const char *fmt, va_list ap)
{
	if (!todo)
		return vcheck(cond, fmt, ap);
	tests_run++;
	printf("%sok %u - ", cond ? "" : "not ", tests_run);
	vprintf(fmt, ap);
	printf(" # TODO %s\n", todo);
	fflush(stdout);
	return cond;
}

bool check_todo(bool cond, const char *todo, const char *fmt, ...)
{
	va_list ap;
	bool ret;

	va_start(ap, fmt);
	ret = vcheck_todo(cond, todo, fmt, ap);
	va_end(ap);
	return ret;
}

bool check(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool ret;

	va_start(ap, fmt);
	ret = vcheck(cond, fmt, ap);
	va_end(ap);
	return ret;
}

void tap_bail_out_on_alarm(int sig)
{
	static const char msg[] = "Bail out! timed out\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(1);
}

void bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	exit(2);
}

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	nanosleep(&ts, NULL);
}

struct ibv_context *open_device(const char *name)
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
