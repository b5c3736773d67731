/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * TAP output, time and device helpers shared by the test programs
 * (tests/lib/tap.c). Every line is flushed, since the programs fork and a
 * child's crash must not lose the parent's buffered lines.
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

/* tests/Makefile gives the kernel's spellings of these attributes */
#ifndef __printf
#define __printf(a, b)
#endif
#ifndef __noreturn
#define __noreturn
#endif
#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))

/* The checks made so far by this process, and how many of them failed */
extern unsigned int tests_run, tests_failed;

void __printf(1, 2) diag(const char *fmt, ...);
bool vcheck(bool cond, const char *fmt, va_list ap);
/* check() - one TAP line; returns @cond */
bool __printf(2, 3) check(bool cond, const char *fmt, ...);
/*
 * check_todo() - check(), or with @todo a TAP TODO line that says it: not
 * ok then does not fail the run
 */
bool vcheck_todo(bool cond, const char *todo, const char *fmt, va_list ap);
bool __printf(3, 4) check_todo(bool cond, const char *todo,
			       const char *fmt, ...);
/* SIGALRM handler: a program that overran its time says so and stops */
void tap_bail_out_on_alarm(int sig);
/* bad_usage() - the program's usage text on stderr, and exit status 2 */
void __printf(1, 2) __noreturn bad_usage(const char *fmt, ...);

long long now_ms(void);
void sleep_ms(unsigned int ms);

/* open_device() - a context on the device called @name, or NULL */
struct ibv_context *open_device(const char *name);

#endif /* SRDMA_TESTS_TAP_H */
