// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * memcpy_bw: the machine's own copy rate, the ceiling of an RDMA WRITE on
 * loopback (make bench): there srdma copies each byte once, from the
 * source MR to the destination MR.
 *
 *   memcpy_bw [-s BYTES] [-t SECONDS]
 *
 * Copies BYTES (default 65536) from one buffer to another, both touched
 * first and reused as perftest reuses its buffers, again and again for
 * SECONDS (default 1), and prints "# memcpy BYTES: X MB/s" (MB = 2^20
 * bytes, as perftest's). Exit status 0, or 1 on bad usage or no memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t bytes = 65536;
	double seconds = 1, start, elapsed;
	unsigned long long copies = 0;
	char *src, *dst;
	int opt;

	while ((opt = getopt(argc, argv, "s:t:")) != -1) {
		switch (opt) {
		case 's':
			bytes = strtoul(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr, "usage: memcpy_bw [-s BYTES] [-t SECONDS]\n");
			return 1;
		}
	}
	if (!bytes || seconds <= 0) {
		fprintf(stderr, "memcpy_bw: BYTES and SECONDS must be positive\n");
		return 1;
	}
	if (posix_memalign((void **)&src, 4096, bytes) ||
	    posix_memalign((void **)&dst, 4096, bytes)) {
		fprintf(stderr, "memcpy_bw: no memory for 2 x %zu bytes\n", bytes);
		return 1;
	}
	memset(src, 0x5a, bytes);
	memset(dst, 0, bytes);

	start = now_s();
	do {
		/* a batch between clock reads: the clock costs next to 4 KiB */
		for (int i = 0; i < 16; i++) {
			memcpy(dst, src, bytes);
			/* the copy is used: the compiler may not drop it */
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		copies += 16;
		elapsed = now_s() - start;
	} while (elapsed < seconds);

	printf("# memcpy %zu: %.2f MB/s\n", bytes,
	       copies * bytes / elapsed / (1 << 20));
	free(src);
	free(dst);
	return 0;
}
