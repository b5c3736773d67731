// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The host's TSC frequency in kHz, measured against CLOCK_MONOTONIC_RAW over
 * 100 ms. Under TCG a guest's TSC counts at the host's rate: tools/vm/run
 * gives the guest this figure (tsc_early_khz=), so that its kernel does not
 * calibrate against the PIT, which a starved guest can fail.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	double t0 = now_s(), t1;
	unsigned long long c0 = __rdtsc(), c1;

	nanosleep(&pause, NULL);
	c1 = __rdtsc();
	t1 = now_s();
	printf("%.0f\n", (c1 - c0) / (t1 - t0) / 1000);
	return 0;
}
