// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rate_bw: RDMA WRITE (or READ) streams on RC (or UC) QPs side by side,
 * each with its own rate limit, and the rate each one achieved on the wire.
 *
 *   rate_bw [-t SECONDS] [-w WARMUP] [-s BYTES] [-d DEPTH] [-R TOOL]
 *           [-c AT:LIMIT] [-u | -r] DEVICE PEER_DEVICE LIMIT...
 *
 * One QP pair per LIMIT (kbit/s, 0: none), requester on DEVICE, responder
 * on PEER_DEVICE. A nonzero LIMIT is set before any traffic with
 * "TOOL qp set DEVICE QPN rate LIMITkbit" (TOOL: tools/srdma-rate/srdma-rate
 * by default). Every QP then keeps DEPTH (default 8) RDMA WRITEs of BYTES
 * (default 65536) outstanding for SECONDS (default 3). -u: UC QPs (a WRITE
 * completes once sent). -r: RDMA READs instead, the limit on the
 * responder's QP (PEER_DEVICE), which sends the data. The rate is measured
 * over the completions after the first WARMUP seconds (default 0.5: the
 * initial burst and the start-up stay out of it): the least-squares slope
 * of messages completed against the time each was seen. A poller that gets
 * the CPU in slices sees completions in bunches; the first and the last of
 * them alone could be off by a whole bunch, the slope over all of them is
 * not.
 *
 * The rate counts Ethernet frames as the bucket does, from the path MTU:
 * each packet's Ethernet (14), IPv4 (20), UDP (8), BTH (12) and ICRC (4)
 * bytes, the RETH (16) of the first (a READ's responses: the AETH (4) of
 * the first and the last), and the payload. It is computed here, not read
 * from the driver. One line per QP:
 *
 *   result QP QPN LIMIT_KBPS ACHIEVED_KBPS MESSAGES
 *
 * (QPN: of the paced QP).
 *
 * With -c, QP 0's limit changes to LIMIT at AT seconds, while it sends: its
 * result line covers the time before AT, and a line
 *
 *   changed 0 QPN LIMIT_KBPS ACHIEVED_KBPS MESSAGES
 *
 * the time from AT + WARMUP to the end.
 *
 * Exit 0 if every WR completed successfully, 1 if not, 2 on bad usage or
 * set-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"

#define MAX_QPS		8
#define FRAME_OVERHEAD	(14 + 20 + 8 + 12 + 4)
#define RETH_BYTES	16
#define AETH_BYTES	4

struct stream {
	struct rc_pair p;
	struct rc_buf src, dst;
	unsigned long long limit;
	unsigned long long frame_bytes;	/* of one message */
	struct window {
		unsigned long long messages;
		long long first_us;		/* of its first completion */
		double st, stt, sn, stn;	/* sums for the slope */
	} win[2];			/* before a change (-c), after it */
	unsigned int outstanding;
};

/* bad_usage()'s text */
#define USAGE	\
	"usage: rate_bw [-t SECONDS] [-w WARMUP] [-s BYTES] [-d DEPTH] [-R TOOL]\n" \
	"               [-c AT:LIMIT] [-u | -r] DEVICE PEER_DEVICE LIMIT_KBPS...\n"

static bool read_mode;

static int post(struct stream *s, unsigned int msg)
{
	struct ibv_sge sge = rc_sge(&s->src, 0, msg);
	struct ibv_send_wr wr = rc_send_wr(0, read_mode ? IBV_WR_RDMA_READ :
						       IBV_WR_RDMA_WRITE,
					   &sge, 1, IBV_SEND_SIGNALED,
					   (uintptr_t)s->dst.p,
					   s->dst.mr->rkey);

	if (rc_post_send(s->p.a.qp, &wr))
		return -1;
	s->outstanding++;
	return 0;
}

/* a completion at @now_us in window @w: the n-th is at time t */
static void count(struct window *w, long long now_us)
{
	double t, n = w->messages++;

	if (!n)
		w->first_us = now_us;
	t = now_us - w->first_us;
	w->st += t;
	w->stt += t * t;
	w->sn += n;
	w->stn += t * n;
}

/* kbit/s of a window's completions, messages of @bytes on the wire */
static unsigned long long kbps(const struct window *w, unsigned long long bytes)
{
	double n = w->messages, var = n * w->stt - w->st * w->st;

	/* all seen at once: no time to measure a rate over */
	if (n < 2 || var <= 0)
		return 0;
	/* messages per us, x bytes x 8 bits x 1000 = kbit/s */
	return (n * w->stn - w->st * w->sn) / var * bytes * 8 * 1000.0;
}

/* the QP that sends the data: the requester's, or a READ's responder's */
static unsigned int paced_qpn(const struct stream *s)
{
	return (read_mode ? s->p.b.qp : s->p.a.qp)->qp_num;
}

/* "TOOL qp set DEVICE QPN rate LIMITkbit" */
static int set_limit(const char *tool, const char *dev, unsigned int qpn,
		     unsigned long long limit)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s qp set %s %u rate %llukbit", tool, dev,
		 qpn, limit);
	if (!system(cmd))
		return 0;
	diag("failed: %s", cmd);
	return -1;
}

/* the frames of one message: its request packets, or a READ's responses */
static unsigned long long frame_bytes(unsigned int msg, unsigned int mtu)
{
	unsigned int pkts = msg ? (msg + mtu - 1) / mtu : 1;
	unsigned int ext = RETH_BYTES;

	if (read_mode)
		ext = pkts > 1 ? 2 * AETH_BYTES : AETH_BYTES;
	return msg + (unsigned long long)pkts * FRAME_OVERHEAD + ext +
	       (4 - msg % 4) % 4;
}

int main(int argc, char **argv)
{
	double seconds = 3, warmup = 0.5, change_at = 0;
	unsigned long long change_limit = 0;
	unsigned int msg = 65536, depth = 8, n = 0, i;
	const char *tool = "tools/srdma-rate/srdma-rate", *paced_dev;
	struct stream st[MAX_QPS] = {};
	struct rc_dev da, db;
	struct rc_qp_opts qo;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	long long t0, t_warm, t_end, t_change = 0, t_warm2 = 0;
	bool failed = false, changed = false;
	struct timespec nap = { .tv_nsec = 1000000 };
	long long now;
	int c;

	rc_qp_opts_default(&qo);
	while ((c = getopt(argc, argv, "t:w:s:d:R:c:ur")) != -1) {
		switch (c) {
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 'w':
			warmup = strtod(optarg, NULL);
			break;
		case 's':
			msg = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			depth = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			tool = optarg;
			break;
		case 'c':
			if (sscanf(optarg, "%lf:%llu", &change_at,
				   &change_limit) != 2 || change_at <= 0)
				bad_usage(USAGE);
			break;
		case 'u':
			qo.qp_type = IBV_QPT_UC;
			break;
		case 'r':
			read_mode = true;
			break;
		default:
			bad_usage(USAGE);
		}
	}
	n = argc - optind - 2;
	if (argc - optind < 3 || n > MAX_QPS || seconds <= warmup ||
	    warmup < 0 || !msg || !depth || depth > RC_WR ||
	    change_at + warmup >= seconds ||
	    (read_mode && qo.qp_type == IBV_QPT_UC))
		bad_usage(USAGE);
	/* the device whose QP sends the data, and is paced */
	paced_dev = argv[optind + read_mode];

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm((unsigned int)seconds + 60);

	if (rc_dev_open(&da, argv[optind]) || rc_dev_open(&db, argv[optind + 1]))
		goto bail;
	for (i = 0; i < n; i++) {
		struct stream *s = &st[i];

		s->limit = strtoull(argv[optind + 2 + i], NULL, 0);
		if (rc_buf_reg(&s->src, da.pd, msg, IBV_ACCESS_LOCAL_WRITE) ||
		    rc_buf_reg(&s->dst, db.pd, msg,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ) ||
		    rc_pair_create(&s->p, &da, &db, &qo) ||
		    rc_pair_connect(&s->p))
			goto bail;
		if (ibv_query_qp(s->p.a.qp, &attr, IBV_QP_PATH_MTU, &init))
			goto bail;
		s->frame_bytes = frame_bytes(msg, 128 << attr.path_mtu);
		if (s->limit && set_limit(tool, paced_dev, paced_qpn(s), s->limit))
			goto bail;
	}

	t0 = rc_now_us();
	t_warm = t0 + (long long)(warmup * 1e6);
	t_end = t0 + (long long)(seconds * 1e6);
	if (change_at)
		t_change = t0 + (long long)(change_at * 1e6);
	for (i = 0; i < n; i++)
		while (st[i].outstanding < depth)
			if (post(&st[i], msg))
				goto bail;
	while ((now = rc_now_us()) < t_end) {
		bool any = false;

		if (t_change && !changed && now >= t_change) {
			if (set_limit(tool, paced_dev, paced_qpn(&st[0]),
				      change_limit))
				goto bail;
			changed = true;
			now = rc_now_us();
			t_warm2 = now + (long long)(warmup * 1e6);
		}

		for (i = 0; i < n; i++) {
			struct stream *s = &st[i];
			struct ibv_wc wc[16];
			int k, got = ibv_poll_cq(s->p.a.scq, 16, wc);

			for (k = 0; k < got; k++) {
				s->outstanding--;
				if (wc[k].status != IBV_WC_SUCCESS) {
					diag("QP %u: %s", s->p.a.qp->qp_num,
					     ibv_wc_status_str(wc[k].status));
					failed = true;
					continue;
				}
				if (changed) {
					if (now >= t_warm2)
						count(&s->win[1], now);
				} else if (now >= t_warm) {
					count(&s->win[0], now);
				}
			}
			any |= got > 0;
			while (!failed && s->outstanding < depth)
				if (post(s, msg))
					goto bail;
		}
		if (failed)
			break;
		/*
		 * Nothing came: sleep rather than spin, the engines may need
		 * this CPU; 1 ms is short next to the messages outstanding
		 */
		if (!any)
			nanosleep(&nap, NULL);
	}
	now = rc_now_us();
	for (i = 0; i < n; i++)
		printf("result %u %u %llu %llu %llu\n", i, paced_qpn(&st[i]),
		       st[i].limit, kbps(&st[i].win[0], st[i].frame_bytes),
		       st[i].win[0].messages);
	if (changed)
		printf("changed 0 %u %llu %llu %llu\n", paced_qpn(&st[0]),
		       change_limit, kbps(&st[0].win[1], st[0].frame_bytes),
		       st[0].win[1].messages);
	/* the QPs are destroyed with WRs outstanding: they flush */
	for (i = 0; i < n; i++) {
		rc_pair_destroy(&st[i].p);
		rc_buf_free(&st[i].src);
		rc_buf_free(&st[i].dst);
	}
	rc_dev_close(&db);
	rc_dev_close(&da);
	return failed ? 1 : 0;
bail:
	printf("Bail out! cannot set up\n");
	return 2;
}
