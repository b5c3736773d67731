/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The calling thread's allocations failing on demand: failslab and
 * fail_page_alloc with their task filter on (the scenario sets them up,
 * lib.sh's fail_tasks_allocations), armed per thread through
 * /proc/thread-self/make-it-fail.
 *
 * The program locks its memory first: a page of its code faulted in while
 * its allocations fail would have the reads of the 9p root fail. Nothing is
 * printed while they fail, for the same reason.
 */
#ifndef SRDMA_TESTS_FAIL_INJECT_H
#define SRDMA_TESTS_FAIL_INJECT_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* fail_inject_open() - this thread's switch, its memory locked; -1 if not */
static inline int fail_inject_open(void)
{
	int fd = open("/proc/thread-self/make-it-fail", O_WRONLY);

	if (fd < 0 || mlockall(MCL_CURRENT | MCL_FUTURE)) {
		printf("Bail out! make-it-fail or mlockall: %s\n",
		       strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* fail_inject_arm() - this thread's allocations fail (a share) or not */
static inline void fail_inject_arm(int fd, bool on)
{
	if (pwrite(fd, on ? "1" : "0", 1, 0) != 1) {
		printf("Bail out! /proc/thread-self/make-it-fail: %s\n",
		       strerror(errno));
		exit(1);
	}
}

#endif
