// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * many_qps: many RC connections at once, each moving verified data, and
 * the kernel memory each QP costs.
 *
 *   many_qps [-n PAIRS] [-s BYTES] [-i INLINE] DEVICE [PEER_DEVICE]
 *
 * PAIRS (default 500) pairs of RC QPs are created with the capabilities
 * perftest's ib_write_bw asks for by default (128 send WRs, 1 receive WR,
 * one SGE each way, INLINE bytes inline, default 220), the first QP of
 * each pair on DEVICE, the second on PEER_DEVICE (DEVICE again if not
 * given). All QPs of a device share one send CQ and one receive CQ, so
 * what the QPs cost is their own. Then every pair connects (Reset to
 * RTS), and every first QP writes its own BYTES (default 4096) into its
 * peer's slice of one registered buffer, all at once; every write must
 * complete successfully and every destination byte be its pattern.
 *
 * The memory: /proc/meminfo's Slab, VmallocUsed, PageTables, Percpu and
 * KernelStack summed before the QPs are created and once they all exist;
 * the difference over the number of QPs is printed as
 * "# kernel memory per QP: N bytes" (other activity on the machine adds
 * noise: use many QPs), and again once the writes are done, as "# kernel
 * memory per QP connected, its write done: N bytes" (what a connection
 * that has moved data holds while idle). It includes the rings a process
 * maps (vmalloc) and their page tables, not the process's own memory.
 */
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "rc_pair.h"

#define DEF_PAIRS		500
#define DEF_BYTES		4096
#define PERFTEST_SEND_WR	128	/* ib_write_bw's default -t */
#define PERFTEST_RECV_WR	1	/* its receive queue for RDMA tests */
#define PERFTEST_INLINE		220	/* its default inline for WRITE */
#define SEED			0x4d51u
#define POLL_MS			60000
#define ALARM_SECONDS		600

/* What the kernel holds, kB: the /proc/meminfo lines that grow with QPs */
static long long kernel_kb(void)
{
	static const char *const fields[] = {
		"Slab:", "VmallocUsed:", "PageTables:", "Percpu:",
		"KernelStack:",
	};
	char name[64];
	long long kb, sum = 0;
	unsigned int i;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld kB", name, &kb) == 2)
		for (i = 0; i < ARRAY_SIZE(fields); i++)
			if (!strcmp(name, fields[i]))
				sum += kb;
	fclose(f);
	return sum;
}

/* One side: a device, the CQs its QPs share, a buffer */
struct side {
	struct rc_dev dev;
	struct ibv_cq *scq, *rcq;
	struct rc_buf buf;
};

static int side_open(struct side *s, const char *name, unsigned int pairs,
		     size_t bytes)
{
	int err = rc_dev_open(&s->dev, name);

	if (err)
		return err;
	s->scq = ibv_create_cq(s->dev.ctx, pairs, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->dev.ctx, pairs, NULL, NULL, 0);
	if (!s->scq || !s->rcq) {
		diag("%s: ibv_create_cq(%u): %s", name, pairs, strerror(errno));
		return errno;
	}
	return rc_buf_reg(&s->buf, s->dev.pd, pairs * bytes, RC_ACCESS_ALL);
}

static void side_close(struct side *s)
{
	rc_buf_free(&s->buf);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	rc_dev_close(&s->dev);
}

static int end_create(struct rc_end *e, struct side *s,
		      unsigned int inline_bytes)
{
	struct ibv_qp_init_attr init = {
		.send_cq = s->scq,
		.recv_cq = s->rcq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = PERFTEST_SEND_WR,
			.max_recv_wr = PERFTEST_RECV_WR,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = inline_bytes,
		},
	};

	memset(e, 0, sizeof(*e));
	e->dev = &s->dev;
	e->scq = s->scq;
	e->rcq = s->rcq;
	e->qp = ibv_create_qp(s->dev.pd, &init);
	if (!e->qp)
		return errno;
	e->cap = init.cap;
	return 0;
}

#define USAGE	"usage: many_qps [-n PAIRS] [-s BYTES] [-i INLINE] DEVICE [PEER_DEVICE]\n"

int main(int argc, char **argv)
{
	unsigned int pairs = DEF_PAIRS, inline_bytes = PERFTEST_INLINE;
	unsigned int i, created = 0, connected = 0, good = 0, bad_data = 0;
	long long before, with_qps, used, after;
	struct rc_end *a_ends, *b_ends;
	struct rc_conn ca, cb;
	size_t bytes = DEF_BYTES;
	struct side a, b;
	struct ibv_wc *wc;
	int c, err, n;

	while ((c = getopt(argc, argv, "n:s:i:")) != -1) {
		switch (c) {
		case 'n':
			pairs = strtoul(optarg, NULL, 0);
			break;
		case 's':
			bytes = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			inline_bytes = strtoul(optarg, NULL, 0);
			break;
		default:
			bad_usage(USAGE);
		}
	}
	if (optind + 1 != argc && optind + 2 != argc)
		bad_usage(USAGE);
	if (!pairs || !bytes)
		bad_usage(USAGE);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(ALARM_SECONDS);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a_ends = calloc(pairs, sizeof(*a_ends));
	b_ends = calloc(pairs, sizeof(*b_ends));
	wc = calloc(pairs, sizeof(*wc));
	if (!a_ends || !b_ends || !wc ||
	    side_open(&a, argv[optind], pairs, bytes) ||
	    side_open(&b, argv[argc - 1], pairs, bytes)) {
		printf("Bail out! cannot set up\n");
		return 1;
	}
	rc_fill(a.buf.p, a.buf.len, SEED);

	before = kernel_kb();
	for (; created < pairs; created++) {
		err = end_create(&a_ends[created], &a, inline_bytes);
		if (!err)
			err = end_create(&b_ends[created], &b, inline_bytes);
		if (err) {
			diag("pair %u: ibv_create_qp: %s", created, strerror(err));
			if (a_ends[created].qp)
				ibv_destroy_qp(a_ends[created].qp);
			break;
		}
	}
	with_qps = kernel_kb();
	check(created == pairs,
	      "%u of %u pairs of RC QPs created (%u send WRs, %u receive WR, one SGE, %u bytes inline)",
	      created, pairs, PERFTEST_SEND_WR, PERFTEST_RECV_WR, inline_bytes);
	if (created && before >= 0 && with_qps >= 0)
		diag("kernel memory per QP: %lld bytes (%lld kB for %u QPs)",
		     (with_qps - before) * 1024 / (2 * created),
		     with_qps - before, 2 * created);

	for (i = 0; i < created; i++) {
		rc_conn_default(&ca, 0x1000 + i);
		rc_conn_default(&cb, 0x800000 + i);
		if (rc_connect(&a_ends[i], &ca, &b_ends[i], &cb))
			break;
		connected++;
	}
	check(connected == pairs, "%u of %u pairs connected", connected, pairs);

	for (i = 0; i < connected; i++) {
		struct ibv_sge sge = rc_sge(&a.buf, i * bytes, bytes);
		struct ibv_send_wr wr = rc_send_wr(i, IBV_WR_RDMA_WRITE, &sge,
						   1, IBV_SEND_SIGNALED,
						   (uintptr_t)b.buf.p + i * bytes,
						   b.buf.mr->rkey);

		if (rc_post_send(a_ends[i].qp, &wr))
			break;
	}
	n = i ? rc_poll(a.scq, wc, i, i, POLL_MS) : 0;
	for (c = 0; c < n; c++)
		good += wc[c].status == IBV_WC_SUCCESS;
	check(connected == pairs && n == (int)connected && good == connected,
	      "%u of %u RDMA WRITEs of %zu bytes completed successfully (%d completions)",
	      good, pairs, bytes, n);
	for (i = 0; i < pairs; i++) {
		size_t bad;

		rc_mismatch_at(b.buf.p + i * bytes, bytes, SEED, i * bytes,
			       &bad);
		if (bad)
			bad_data++;
	}
	check(!bad_data && good == pairs,
	      "every destination byte is its pattern (%u slices wrong)", bad_data);
	used = kernel_kb();
	if (created && before >= 0 && used >= 0)
		diag("kernel memory per QP connected, its write done: %lld bytes",
		     (used - before) * 1024 / (2 * created));

	for (i = 0; i < created; i++) {
		ibv_destroy_qp(a_ends[i].qp);
		ibv_destroy_qp(b_ends[i].qp);
	}
	after = kernel_kb();
	if (after >= 0 && before >= 0)
		diag("kernel memory after destroying them: %+lld kB against before",
		     after - before);
	side_close(&b);
	side_close(&a);
	free(wc);
	free(b_ends);
	free(a_ends);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
}
