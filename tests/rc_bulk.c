// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rc_bulk: move a buffer by RDMA WRITE and by RDMA READ over one RC
 * connection, check every byte, and say how fast it went. A write that
 * fails leaves the connection in error (or stuck): the read then runs on a
 * new one, so that its verdict is its own.
 *
 *   rc_bulk [-m MIB] [-s BYTES] [-d DEPTH] [-t TIMEOUT] [-T SECONDS]
 *           [-g GUARD] [-p PAUSE] DEVICE PEER_DEVICE
 *
 * The requester QP is on DEVICE, the responder on PEER_DEVICE (DEVICE
 * itself for a loopback connection); rc_pair.h connects them in this
 * process. MIB MiB (default 16) go in messages of BYTES (default 65536)
 * with up to DEPTH (default 8) outstanding, every one signaled:
 *
 *   WRITE: the requester's buffer, filled with pattern A, is written into
 *          the responder's zeroed buffer;
 *   READ:  the responder's buffer, filled with pattern B, is read into the
 *          requester's zeroed buffer (DEPTH is also the QP's max_rd_atomic,
 *          as far as the device allows).
 *
 * Each is checked: every work request completes with IBV_WC_SUCCESS, in
 * order, and every byte of the destination is its pattern (rc_pattern():
 * a byte at the wrong offset or from the other transfer shows). Lines
 * "# result write|read MIB MiB SECONDS s RATE MiB/s" give the time from the
 * first post to the last completion (MiB/s is 2^20 bytes per second, as
 * perftest's MB/sec). TIMEOUT (default 14) is the QP's local ACK timeout,
 * retry_cnt and rnr_retry are 7. SECONDS (default 120) bounds the whole
 * run: a transfer that has not finished by then is a failure ("Bail out!"
 * and exit 1), never a hang.
 *
 * The four buffers are registered GUARD bytes (default 0) longer than what
 * moves. 0 makes the last message end exactly at the end of its MRs, an
 * edge worth testing; rdma_rxe of Linux 6.1 reads one pointer beyond its
 * page map there when an MR is a multiple of 1 MiB (rxe_mr_copy(), KASAN
 * slab-out-of-bounds), so runs on rxe pass -g 4096.
 *
 * PAUSE seconds (default 0) pass between connecting and the first work
 * request, so that a test can change the link under an idle QP; SECONDS
 * starts after them.
 *
 * The poll loop yields the CPU when the CQ is empty, so that on one CPU
 * the kernel's softirq and worker threads run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "rc_pair.h"

#define SEED_WRITE		0x57u
#define SEED_READ		0x52u
#define POLL_BATCH		16

struct opts {
	size_t bytes;			/* of each buffer */
	unsigned int msg;		/* bytes per work request */
	unsigned int depth;		/* outstanding work requests */
	unsigned int timeout;		/* local ACK timeout code */
	unsigned int seconds;		/* the whole run */
	size_t guard;			/* registered beyond what moves */
	unsigned int pause;		/* seconds idle after connecting */
};

static long long deadline_us;

/* the reason a transfer failed, printed after its "not ok" line */
static char why[256];

/*
 * transfer() - move all of @local to or from @remote with @op, DEPTH
 * outstanding; returns 0 and the time taken in @secs, or a negative errno
 * value with the reason in why[]
 */
static int transfer(const struct opts *o, struct rc_pair *p,
		    enum ibv_wr_opcode op, struct rc_buf *local,
		    struct rc_buf *remote, double *secs)
{
	unsigned int nmsg = o->bytes / o->msg, posted = 0, done = 0;
	struct ibv_send_wr *bad;
	struct ibv_wc wc[POLL_BATCH];
	long long t0;
	int i, n, err;

	t0 = rc_now_us();
	while (done < nmsg) {
		while (posted < nmsg && posted - done < o->depth) {
			size_t off = (size_t)posted * o->msg;
			struct ibv_sge sge = rc_sge(local, off, o->msg);
			struct ibv_send_wr wr =
				rc_send_wr(posted, op, &sge, 1,
					   IBV_SEND_SIGNALED,
					   (uintptr_t)(remote->p + off),
					   remote->mr->rkey);

			err = rc_verb_err(ibv_post_send(p->a.qp, &wr, &bad));
			if (err) {
				snprintf(why, sizeof(why),
					 "ibv_post_send of work request %u: %s (%u completed)",
					 posted, strerror(err), done);
				return -err;
			}
			posted++;
		}
		n = ibv_poll_cq(p->a.scq, POLL_BATCH, wc);
		if (n < 0) {
			snprintf(why, sizeof(why), "ibv_poll_cq: %d", n);
			return -EIO;
		}
		for (i = 0; i < n; i++, done++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				snprintf(why, sizeof(why),
					 "work request %llu: %s (vendor error %#x) after %.3f s",
					 (unsigned long long)wc[i].wr_id,
					 ibv_wc_status_str(wc[i].status),
					 wc[i].vendor_err,
					 (rc_now_us() - t0) / 1e6);
				return -EIO;
			}
			if (wc[i].wr_id != done) {
				snprintf(why, sizeof(why),
					 "completion of work request %llu where %u was due",
					 (unsigned long long)wc[i].wr_id, done);
				return -EIO;
			}
		}
		if (n)
			continue;
		if (rc_now_us() > deadline_us) {
			snprintf(why, sizeof(why),
				 "%u of %u messages completed, %u posted, when time ran out",
				 done, nmsg, posted);
			return -ETIMEDOUT;
		}
		sched_yield();
	}
	*secs = (rc_now_us() - t0) / 1e6;
	return 0;
}

static bool all_zero(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * run() - one direction: transfer, check, report; false if the transfer
 * failed (the connection is of no further use)
 */
static bool run(const struct opts *o, struct rc_pair *p, const char *name,
		enum ibv_wr_opcode op, struct rc_buf *local,
		struct rc_buf *remote, struct rc_buf *dst, unsigned int seed)
{
	double mib = (double)o->bytes / (1 << 20), secs = 0;
	size_t first, bad;
	int err;

	err = transfer(o, p, op, local, remote, &secs);
	if (!check(!err, "%s: %zu messages of %u bytes, %u outstanding, all fine, in order",
		   name, o->bytes / o->msg, o->msg, o->depth)) {
		diag("%s", why);
		return false;
	}
	first = rc_mismatch(dst->p, o->bytes, seed, &bad);
	if (!bad && o->guard)
		bad = !all_zero(dst->p + o->bytes, o->guard);
	if (!check(!bad, "%s: all %zu bytes arrived intact%s", name, o->bytes,
		   o->guard ? ", nothing beyond them" : "")) {
		diag("%zu bytes differ, the first at offset %zu: %#04x, pattern %#04x",
		     bad, first, dst->p[first], rc_pattern(seed, first));
		return true;
	}
	diag("result %s %.0f MiB %.3f s %.1f MiB/s", name, mib, secs,
	     secs > 0 ? mib / secs : 0);
	return true;
}

/* bulk_connect() - a fresh pair of RC QPs from @da to @peer, in RTS */
static bool bulk_connect(const struct opts *o, struct rc_pair *p,
			 struct rc_dev *da, struct rc_dev *peer)
{
	struct rc_qp_opts qo;

	rc_qp_opts_default(&qo);
	qo.send_wr = o->depth;
	qo.cqe = 2 * o->depth > RC_CQE ? 2 * o->depth : RC_CQE;
	if (!check(!rc_pair_create(p, da, peer, &qo), "RC QPs created"))
		return false;
	p->ca.timeout = o->timeout;
	p->ca.max_rd_atomic = o->depth > 255 ? 255 : o->depth;
	p->cb.max_dest_rd_atomic = p->ca.max_rd_atomic;
	if (check(!rc_pair_connect(p), "RC QPs connected (%s -> %s, timeout %u)",
		  da->name, peer->name, o->timeout))
		return true;
	rc_pair_destroy(p);
	return false;
}

/* bad_usage()'s text */
#define USAGE	"usage: rc_bulk [-m MIB] [-s BYTES] [-d DEPTH] [-t TIMEOUT] [-T SECONDS] [-g GUARD] [-p PAUSE] DEVICE PEER_DEVICE\n"

int main(int argc, char **argv)
{
	struct opts o = {
		.bytes = 16 << 20,
		.msg = 65536,
		.depth = 8,
		.timeout = 14,
		.seconds = 120,
	};
	struct rc_buf a_src, a_dst, b_src, b_dst;
	struct rc_dev da, db, *peer;
	struct rc_pair p;
	size_t len;
	int c;

	while ((c = getopt(argc, argv, "m:s:d:t:T:g:p:")) != -1) {
		switch (c) {
		case 'm':
			o.bytes = (size_t)strtoul(optarg, NULL, 0) << 20;
			break;
		case 's':
			o.msg = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			o.depth = strtoul(optarg, NULL, 0);
			break;
		case 't':
			o.timeout = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			o.seconds = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			o.guard = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			o.pause = strtoul(optarg, NULL, 0);
			break;
		default:
			bad_usage(USAGE);
		}
	}
	if (argc - optind != 2 || !o.bytes || !o.msg || o.bytes % o.msg ||
	    !o.depth || o.depth > 1024 || o.timeout > 31 || !o.seconds)
		bad_usage(USAGE);

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(o.seconds + o.pause + 30);	/* set-up and checks included */
	deadline_us = rc_now_us() + o.seconds * 1000000LL;

	if (!check(!rc_dev_open(&da, argv[optind]), "%s: opened", argv[optind]))
		goto bail;
	peer = &da;
	if (strcmp(argv[optind], argv[optind + 1])) {
		if (!check(!rc_dev_open(&db, argv[optind + 1]), "%s: opened",
			   argv[optind + 1]))
			goto bail;
		peer = &db;
	}
	len = o.bytes + o.guard;
	if (!check(!rc_buf_reg(&a_src, da.pd, len, IBV_ACCESS_LOCAL_WRITE) &&
		   !rc_buf_reg(&a_dst, da.pd, len, IBV_ACCESS_LOCAL_WRITE) &&
		   !rc_buf_reg(&b_src, peer->pd, len,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) &&
		   !rc_buf_reg(&b_dst, peer->pd, len,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
		   "four buffers of %zu MiB + %zu bytes registered",
		   o.bytes >> 20, o.guard))
		goto bail;
	rc_fill(a_src.p, o.bytes, SEED_WRITE);
	rc_fill(b_src.p, o.bytes, SEED_READ);

	if (!bulk_connect(&o, &p, &da, peer))
		goto bail;
	if (o.pause) {
		sleep(o.pause);
		deadline_us += o.pause * 1000000LL;
	}
	if (!run(&o, &p, "write", IBV_WR_RDMA_WRITE, &a_src, &b_dst, &b_dst,
		 SEED_WRITE)) {
		/*
		 * The connection failed (in error, or stuck with WRs
		 * outstanding): the read gets one of its own, and what is left
		 * of the time, so that its verdict is about the read.
		 */
		diag("the read runs on a new connection");
		rc_pair_destroy(&p);
		if (!bulk_connect(&o, &p, &da, peer))
			goto bail;
	}
	run(&o, &p, "read", IBV_WR_RDMA_READ, &a_dst, &b_src, &a_dst,
	    SEED_READ);

	rc_pair_destroy(&p);
	rc_buf_free(&b_dst);
	rc_buf_free(&b_src);
	rc_buf_free(&a_dst);
	rc_buf_free(&a_src);
	if (peer != &da)
		rc_dev_close(&db);
	rc_dev_close(&da);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
bail:
	printf("Bail out! cannot set up\n");
	return 2;
}
