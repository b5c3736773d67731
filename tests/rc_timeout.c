// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rc_timeout: how long an RC requester takes to give up, against what the
 * IBTA says it should take.
 *
 *   rc_timeout [-a [-l]] [-b PCT,MS] [-r REPS] ack DEVICE PEER_IPV4
 *   rc_timeout [-a [-l]] [-b PCT,MS] [-r REPS] rnr DEVICE PEER_DEVICE
 *   rc_timeout [-r REPS] sleep
 *
 * ack: an RC QP on DEVICE sends to PEER_IPV4, where nothing answers (no RDMA
 * device listens there; the destination QPN is that of a QP in Reset on
 * DEVICE). For each local ACK timeout T (10..16) and retry count R (0, 1,
 * 3, 7) the time from ibv_post_send() to the IBV_WC_RETRY_EXC_ERR
 * completion is measured, by busy-polling the CQ against CLOCK_MONOTONIC,
 * and compared with (R + 1) x 4.096 us x 2^T: the first transmission and
 * each of the R retries wait one timeout.
 *
 * rnr: a requester on DEVICE sends to a responder QP on PEER_DEVICE (which
 * may be DEVICE itself) that never posts a receive. For each min_rnr_timer
 * code of the responder and rnr_retry count R (0..3) of the requester the
 * time to IBV_WC_RNR_RETRY_EXC_ERR is compared with R x the RNR timer of
 * the IBTA table: every RNR NAK but the last makes the requester wait one
 * timer before it retries; the (R + 1)th NAK fails the request at once.
 * The R + 1 round trips add network time, measured first with SENDs that
 * find a receive: under TCG a SEND that meets an RNR NAK and fails was
 * seen to take up to about twice a SEND that meets its ACK (2.6 against
 * 1.4 ms, best of 5; not understood yet), so each is allowed twice the
 * largest of 5, and one round trip more.
 *
 * sleep: the same delays slept with clock_nanosleep(), which uses an
 * hrtimer: what a timer of this machine can achieve at best, to judge the
 * bound of -a by.
 *
 * Each row is measured REPS times (default 3) with fresh QPs (connected by
 * rc_pair.h); the median is reported (and min..max); the first row of a
 * table is measured once more first, untimed, to warm up. A repetition
 * that sees no completion within twice the expected time plus one second
 * counts as "without"; if the first one does, the row is reported as
 * "none" and not repeated. With -a, a row whose fastest repetition is
 * later than its upper bound is measured up to LATE_EXTRA_REPS times more
 * before it fails, each after a pause of LATE_PAUSE_US: a stalled guest
 * only adds time, and on a loaded TCG host all of three repetitions were
 * once late by a few hundredths of a millisecond, and all of four of
 * timeout 10 retry_cnt 3 by 0.5 ms in a CI run whose other rows were
 * late too.
 * Tables are printed as TAP diagnostics ("# | ..."), one per mode.
 *
 * Without -a, only the completions are checked: a row may end without a
 * completion (reported), but a completion must have the expected status.
 * With -a, every row must complete with that status, no repetition may
 * be earlier than the expected time less max(PCT %, MS ms) (default 5,1),
 * and the fastest must be within that much after it: a host that stalls
 * the guest only ever adds time, so the best repetition shows what the
 * timer does. Two rows in a row without any completion end the run (Bail
 * out). With -l as well, the upper bound grows by the timer latency of
 * this machine (the least overshoot of clock_nanosleep() for the same
 * delay, measured before the rows) for each timer expiry of the row: under
 * TCG a perfect hrtimer is still observed late by that much. RNR rows also
 * allow their 2 x (R + 1) + 1 round trips on the upper side; with -l, ACK
 * rows allow the least round trip of a SEND between two QPs of DEVICE once,
 * for what no timer governs in them (the post, the first transmit, the
 * completion: about 1 to 2 ms in a busy debug guest).
 *
 * The poll loop calls sched_yield() when the CQ is empty, so that on a
 * single CPU the kernel's softirq and worker threads still run promptly.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "rc_pair.h"

#define RUN_TIMEOUT_S		600	/* the whole program; then bail out */
#define MAX_REPS		15
#define LATE_EXTRA_REPS		4
/* before measuring a late row again: a stall of the host may pass */
#define LATE_PAUSE_US		250000
#define MSG_BYTES		64
#define WR_ID			0x5eed0001u
#define RTT_REPS		6	/* the first one is discarded */
#define LATENCY_REPS		5

/* RNR rows: the responder's NAKs must not race the ACK timer */
#define RNR_ACK_TIMEOUT		20	/* 4.3 s */
#define RNR_ACK_RETRY		7

static const unsigned int ack_timeouts[] = { 10, 11, 12, 13, 14, 15, 16 };
static const unsigned int ack_retries[] = { 0, 1, 3, 7 };
static const unsigned int rnr_codes[] = { 1, 14, 20, 26, 0 };
static const unsigned int rnr_retries[] = { 0, 1, 2, 3 };

/*
 * The RNR NAK timer of each 5-bit min_rnr_timer code, in microseconds
 * (InfiniBand Architecture Specification vol. 1, 9.7.5.2.8; the same as
 * enum ib_rnr_timeout's names).
 */
static const unsigned int rnr_table_us[32] = {
	655360,     10,     20,     30,     40,     60,     80,    120,
	   160,    240,    320,    480,    640,    960,   1280,   1920,
	  2560,   3840,   5120,   7680,  10240,  15360,  20480,  30720,
	 40960,  61440,  81920, 122880, 163840, 245760, 327680, 491520,
};

struct opts {
	bool assert;
	bool latency;			/* -l: allow for this machine's timers */
	double bound_pct;
	double bound_ms;
	unsigned int reps;
};

/* One measured row */
struct row {
	double expected_ms;
	double ms[MAX_REPS];
	unsigned int n;			/* repetitions that completed */
	unsigned int nones;		/* repetitions that saw no completion */
	bool bad_status;		/* a completion had another status */
	enum ibv_wc_status status;	/* the last one seen */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ACK timeout of code @t in ms: 4.096 us x 2^t */
static double ack_ms(unsigned int t)
{
	return (double)(4096ULL << t) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double minimum(const double *v, unsigned int n)
{
	double m = v[0];
	unsigned int i;

	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static double maximum(const double *v, unsigned int n)
{
	double m = v[0];
	unsigned int i;

	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

static double median(const double *v, unsigned int n)
{
	double s[MAX_REPS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double bound_ms(const struct opts *o, double expected)
{
	double pct = expected * o->bound_pct / 100;

	return pct > o->bound_ms ? pct : o->bound_ms;
}

/* gid_from_ipv4() - the IPv4-mapped GID of dotted quad @ip */
static int gid_from_ipv4(const char *ip, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	return inet_pton(AF_INET, ip, &gid->raw[12]) == 1 ? 0 : -1;
}

/*
 * post_and_time() - post one signaled SEND of @mr on @qp and busy-poll @cq
 * for its completion until @wait_ns have passed; returns 1 with the time
 * and status, 0 if nothing came, -1 if posting failed
 */
static int post_and_time(struct ibv_qp *qp, struct ibv_cq *cq,
			 struct ibv_mr *mr, long long wait_ns,
			 double *ms, enum ibv_wc_status *status)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr,
		.length = MSG_BYTES,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = rc_send_wr(WR_ID, IBV_WR_SEND, &sge, 1,
					   IBV_SEND_SIGNALED, 0, 0), *bad;
	long long t0, t;
	struct ibv_wc wc;
	int n, err;

	t0 = now_ns();
	err = ibv_post_send(qp, &wr, &bad);
	if (err) {
		diag("ibv_post_send: %s", strerror(err));
		return -1;
	}
	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		t = now_ns();
		if (n < 0) {
			diag("ibv_poll_cq failed");
			return -1;
		}
		if (n > 0 && wc.wr_id == WR_ID && wc.qp_num == qp->qp_num)
			break;
		if (n > 0) {
			diag("unexpected completion: wr_id %#llx qp %#x %s",
			     (unsigned long long)wc.wr_id, wc.qp_num,
			     ibv_wc_status_str(wc.status));
			continue;
		}
		if (t - t0 > wait_ns)
			return 0;
		sched_yield();
	}
	*ms = (t - t0) / 1e6;
	*status = wc.status;
	return 1;
}

static void row_add(struct row *r, int got, double ms,
		    enum ibv_wc_status status, enum ibv_wc_status want)
{
	if (got == 0) {
		r->nones++;
		return;
	}
	r->status = status;
	if (status != want)
		r->bad_status = true;
	r->ms[r->n++] = ms;
}

static void print_header(const char *what)
{
	diag("| %s | expected ms | measured ms (median) | ratio | min..max ms |",
	     what);
	diag("|---|---:|---:|---:|---|");
}

static void print_row(const char *label, const struct row *r)
{
	char ratio[32], nones[32] = "";
	double m;

	if (!r->n) {
		diag("| %s | %.3f | none | - | no completion in %.0f ms |",
		     label, r->expected_ms, 2 * r->expected_ms + 1000);
		return;
	}
	m = median(r->ms, r->n);
	if (r->nones)
		snprintf(nones, sizeof(nones), ", %u without", r->nones);
	if (r->expected_ms > 0)
		snprintf(ratio, sizeof(ratio), "%.3f", m / r->expected_ms);
	else
		snprintf(ratio, sizeof(ratio), "-");
	diag("| %s | %.3f | %.3f | %s | %.3f..%.3f%s |", label, r->expected_ms,
	     m, ratio, minimum(r->ms, r->n), maximum(r->ms, r->n), nones);
}

/* the upper bound of a row: the expected time, the bound, then @late_ms */
static double row_upper_ms(const struct opts *o, const struct row *r,
			   double late_ms)
{
	return r->expected_ms + bound_ms(o, r->expected_ms) + late_ms;
}

/*
 * check_row() - the TAP line of one row; see the top of the file. @late_ms
 * is what the row may take beyond the timers: round trips, and with -l the
 * latency of this machine's timers. A busy host only ever makes a guest
 * late, so the assertion takes the fastest repetition against the upper
 * bound (the timer can be that precise) and against the lower bound (no
 * repetition may be early).
 */
static void check_row(const struct opts *o, const char *label,
		      const struct row *r, enum ibv_wc_status want,
		      double late_ms)
{
	double m, b;

	if (!o->assert) {
		if (!check(!r->bad_status, "%s: no completion other than %s",
			   label, ibv_wc_status_str(want)))
			diag("saw %s", ibv_wc_status_str(r->status));
		return;
	}
	if (!r->n || r->bad_status) {
		check(false, "%s: %s", label, ibv_wc_status_str(want));
		if (r->bad_status)
			diag("saw %s", ibv_wc_status_str(r->status));
		else
			diag("no completion in %u repetitions", r->nones);
		return;
	}
	m = minimum(r->ms, r->n);
	b = bound_ms(o, r->expected_ms);
	check(m >= r->expected_ms - b && m <= row_upper_ms(o, r, late_ms),
	      "%s: %s after %.3f ms (best of %u), expected %.3f (-%.3f, +%.3f) ms",
	      label, ibv_wc_status_str(want), m, r->n, r->expected_ms, b,
	      b + late_ms);
}

/*
 * timer_latency() - how late this machine's timers are at least for a
 * delay of @ms: the smallest overshoot of LATENCY_REPS clock_nanosleep()
 * calls (an hrtimer, then a wakeup); 0 without -l
 */
static double timer_latency(const struct opts *o, double ms)
{
	long long ns = (long long)(ms * 1e6), t0;
	struct timespec ts = {
		.tv_sec = ns / 1000000000LL,
		.tv_nsec = ns % 1000000000LL,
	};
	double late[LATENCY_REPS], m;
	unsigned int i;

	if (!o->assert || !o->latency)
		return 0;
	for (i = 0; i < LATENCY_REPS; i++) {
		t0 = now_ns();
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		late[i] = (now_ns() - t0) / 1e6 - ms;
	}
	m = minimum(late, LATENCY_REPS);
	if (m < 0)
		m = 0;
	diag("timer latency here for %.3f ms: %.3f ms (least of %u clock_nanosleep)",
	     ms, m, LATENCY_REPS);
	return m;
}

/*
 * One measurement: fresh QPs, one SEND, the time to its completion. For
 * ack, the requester's AV points at @nowhere (the QPN is that of the
 * unconnected second QP of the pair, on the local device: nobody at
 * @nowhere has it); for rnr, the pair is connected and the responder posts
 * no receive.
 */
struct trial {
	struct rc_dev *da, *db;
	struct rc_buf *buf;		/* MSG_BYTES on da's PD */
	bool rnr;
	union ibv_gid nowhere;		/* ack */
	unsigned int timeout, retry_cnt;	/* ack */
	unsigned int code, rnr_retry;		/* rnr */
};

static int trial_run(const struct trial *t, long long wait_ns, double *ms,
		     enum ibv_wc_status *status)
{
	struct rc_qp_opts o;
	struct rc_pair p;
	int err, got;

	rc_qp_opts_default(&o);
	o.send_wr = 4;
	o.recv_wr = 4;
	o.cqe = 8;
	err = rc_pair_create(&p, t->da, t->rnr ? t->db : t->da, &o);
	if (err)
		return -1;
	if (t->rnr) {
		p.ca.timeout = RNR_ACK_TIMEOUT;
		p.ca.retry_cnt = RNR_ACK_RETRY;
		p.ca.rnr_retry = t->rnr_retry;
		p.cb.min_rnr_timer = t->code;
		err = rc_pair_connect(&p);
	} else {
		struct rc_dev nowhere = *t->da;
		struct rc_end ghost = p.b;

		nowhere.gid = t->nowhere;
		ghost.dev = &nowhere;
		p.ca.timeout = t->timeout;
		p.ca.retry_cnt = t->retry_cnt;
		err = rc_modify_init(&p.a, &p.ca);
		if (!err)
			err = rc_modify_rtr(&p.a, &p.ca, &ghost, &p.cb);
		if (!err)
			err = rc_modify_rts(&p.a, &p.ca);
		if (err)
			diag("QP %#x: connecting to nowhere: %s", p.a.qp->qp_num,
			     strerror(err));
	}
	got = err ? -1 : post_and_time(p.a.qp, p.a.scq, t->buf->mr, wait_ns,
				       ms, status);
	rc_pair_destroy(&p);
	return got;
}

/*
 * run_row() - measure @t o->reps times (once more first, discarded, if
 * @warm_up), and with -a up to LATE_EXTRA_REPS times more while the
 * fastest is later than the row's upper bound (@late_ms, as check_row()
 * takes it); returns 0, or -1 if the QPs could not be set up or posted to
 */
static int run_row(const struct opts *o, const struct trial *t, bool warm_up,
		   struct row *r, enum ibv_wc_status want, double late_ms)
{
	unsigned int extra = 0;

	long long wait_ns = (long long)((2 * r->expected_ms + 1000) * 1e6);
	enum ibv_wc_status st;
	unsigned int rep;
	double ms;
	int got;

	if (warm_up && trial_run(t, wait_ns, &ms, &st) < 0)
		return -1;
	for (rep = 0; rep < o->reps + extra && !(r->nones && !r->n); rep++) {
		st = IBV_WC_SUCCESS;
		ms = 0;
		got = trial_run(t, wait_ns, &ms, &st);
		if (got < 0)
			return -1;
		row_add(r, got, ms, st, want);
		if (rep + 1 == o->reps + extra && o->assert && r->n &&
		    !r->bad_status && r->n < MAX_REPS &&
		    extra < LATE_EXTRA_REPS &&
		    minimum(r->ms, r->n) > row_upper_ms(o, r, late_ms)) {
			diag("the fastest of %u is late: once more", r->n);
			usleep(LATE_PAUSE_US);
			extra++;
		}
	}
	return 0;
}

/*
 * Two rows in a row without a single completion, in assert mode: the
 * driver does not time out at all; waiting for every other row would
 * only take minutes to say the same.
 */
static bool give_up(const struct opts *o, const struct row *r,
		    unsigned int *silent)
{
	*silent = r->n ? 0 : *silent + 1;
	if (o->assert && *silent >= 2) {
		printf("Bail out! two rows without any completion\n");
		return true;
	}
	return false;
}

/*
 * measure_rtt() - what a SEND costs when the responder has a receive: one
 * request and its ACK, the part of an RNR row that no timer governs;
 * RTT_REPS samples on one connection into @r (0 on success)
 */
static int measure_rtt(struct rc_dev *da, struct rc_dev *db,
		       struct rc_buf *buf, struct row *r)
{
	struct rc_buf rbuf;
	struct rc_qp_opts o;
	struct rc_pair p;
	unsigned int i;
	int err, got;

	rc_qp_opts_default(&o);
	err = rc_buf_reg(&rbuf, db->pd, MSG_BYTES, IBV_ACCESS_LOCAL_WRITE);
	if (err)
		return err;
	err = rc_pair_create(&p, da, db, &o);
	if (!err)
		err = rc_pair_connect(&p);
	for (i = 0; !err && i < RTT_REPS; i++) {
		struct ibv_sge sge = rc_sge(&rbuf, 0, MSG_BYTES);
		enum ibv_wc_status st = IBV_WC_GENERAL_ERR;
		struct ibv_wc wc;
		double ms = 0;

		err = rc_post_recv(&p.b, i, &sge, 1);
		if (err)
			break;
		got = post_and_time(p.a.qp, p.a.scq, buf->mr, 2000000000LL,
				    &ms, &st);
		if (got != 1 || st != IBV_WC_SUCCESS) {
			diag("SEND %u: %s", i, got == 1 ?
			     ibv_wc_status_str(st) : "no completion");
			err = EIO;
			break;
		}
		if (rc_poll(p.b.rcq, &wc, 1, 1, 2000) != 1 ||
		    wc.status != IBV_WC_SUCCESS) {
			diag("receive %u did not complete", i);
			err = EIO;
			break;
		}
		if (i)		/* the first one warms up */
			r->ms[r->n++] = ms;
	}
	if (p.a.qp)
		rc_pair_destroy(&p);
	rc_buf_free(&rbuf);
	return err;
}

/* ack: a requester whose peer never answers */
static int run_ack(const struct opts *o, const char *dev, const char *peer)
{
	struct trial t = { .rnr = false };
	unsigned int ti, ri, silent = 0;
	struct row rtt = { .expected_ms = 0 };
	double rtt_min = 0;
	struct rc_buf buf;
	struct rc_dev d;

	if (!check(gid_from_ipv4(peer, &t.nowhere) == 0,
		   "%s is an IPv4 address", peer))
		return 2;
	if (!check(!rc_dev_open(&d, dev), "%s: opened", dev) ||
	    !check(!rc_buf_reg(&buf, d.pd, MSG_BYTES, IBV_ACCESS_LOCAL_WRITE),
		   "%s: buffer registered", dev))
		return 2;
	t.da = &d;
	t.buf = &buf;

	/* posting, the first transmit and the completion: no timer in them */
	if (o->assert && o->latency) {
		if (!check(!measure_rtt(&d, &d, &buf, &rtt),
			   "a SEND between two QPs of %s completes (the round trip)",
			   dev))
			return 2;
		rtt_min = minimum(rtt.ms, rtt.n);
		diag("SEND round trip on %s: least %.3f ms of %u, allowed once per row",
		     dev, rtt_min, rtt.n);
	}
	diag("ACK timeout on %s towards %s (nobody answers there), median of %u",
	     dev, peer, o->reps);
	diag("expected = (retry_cnt + 1) x 4.096 us x 2^timeout");
	print_header("timeout | retry_cnt");
	for (ti = 0; ti < ARRAY_SIZE(ack_timeouts); ti++) {
		double lat = timer_latency(o, ack_ms(ack_timeouts[ti]));

		for (ri = 0; ri < ARRAY_SIZE(ack_retries); ri++) {
			struct row r = {
				.expected_ms = (ack_retries[ri] + 1) *
					       ack_ms(ack_timeouts[ti]),
			};
			double late = rtt_min + (ack_retries[ri] + 1) * lat;
			char label[64];

			t.timeout = ack_timeouts[ti];
			t.retry_cnt = ack_retries[ri];
			if (run_row(o, &t, !ti && !ri, &r,
				    IBV_WC_RETRY_EXC_ERR, late)) {
				check(false, "timeout %u retry_cnt %u: QP ready",
				      t.timeout, t.retry_cnt);
				return 2;
			}
			snprintf(label, sizeof(label), "%u (%.3f ms) | %u",
				 t.timeout, ack_ms(t.timeout), t.retry_cnt);
			print_row(label, &r);
			snprintf(label, sizeof(label), "ack timeout %u retry_cnt %u",
				 t.timeout, t.retry_cnt);
			check_row(o, label, &r, IBV_WC_RETRY_EXC_ERR, late);
			if (give_up(o, &r, &silent))
				return 1;
		}
	}
	rc_buf_free(&buf);
	rc_dev_close(&d);
	return 0;
}

/* rnr: a responder that never posts a receive */
static int run_rnr(const struct opts *o, const char *dev, const char *peer)
{
	struct trial t = { .rnr = true };
	unsigned int ci, ri, silent = 0;
	struct row rtt = { .expected_ms = 0 };
	double rtt_max = 0;
	struct rc_dev da, db;
	struct rc_buf buf;

	if (!check(!rc_dev_open(&da, dev), "%s: opened", dev) ||
	    !check(!rc_dev_open(&db, peer), "%s: opened", peer) ||
	    !check(!rc_buf_reg(&buf, da.pd, MSG_BYTES, IBV_ACCESS_LOCAL_WRITE),
		   "%s: buffer registered", dev))
		return 2;
	t.da = &da;
	t.db = &db;
	t.buf = &buf;

	if (!check(!measure_rtt(&da, &db, &buf, &rtt),
		   "a SEND to a posted receive completes (the round trip)"))
		return 2;
	for (ci = 0; ci < rtt.n; ci++)
		if (rtt.ms[ci] > rtt_max)
			rtt_max = rtt.ms[ci];
	diag("RNR NAK timer: requester on %s, responder on %s posts no receive, median of %u",
	     dev, peer, o->reps);
	diag("round trip of a SEND and its ACK: median %.3f ms, max %.3f ms (%u samples)",
	     median(rtt.ms, rtt.n), rtt_max, rtt.n);
	diag("expected = rnr_retry x the RNR timer of the responder's min_rnr_timer");
	diag("(the first RNR NAK after rnr_retry retries fails the request at once)");
	print_header("min_rnr_timer | rnr_retry");
	for (ci = 0; ci < ARRAY_SIZE(rnr_codes); ci++) {
		double lat = timer_latency(o, rnr_table_us[rnr_codes[ci]] / 1000.0);

		for (ri = 0; ri < ARRAY_SIZE(rnr_retries); ri++) {
			unsigned int code = rnr_codes[ci];
			struct row r = {
				.expected_ms = rnr_retries[ri] *
					       rnr_table_us[code] / 1000.0,
			};
			double late = (2 * rnr_retries[ri] + 3) * rtt_max +
				      rnr_retries[ri] * lat;
			char label[64];

			t.code = code;
			t.rnr_retry = rnr_retries[ri];
			if (run_row(o, &t, !ci && !ri, &r,
				    IBV_WC_RNR_RETRY_EXC_ERR, late)) {
				check(false, "min_rnr_timer %u rnr_retry %u: QPs ready",
				      code, t.rnr_retry);
				return 2;
			}
			snprintf(label, sizeof(label), "%u (%.2f ms) | %u",
				 code, rnr_table_us[code] / 1000.0,
				 t.rnr_retry);
			print_row(label, &r);
			snprintf(label, sizeof(label), "min_rnr_timer %u rnr_retry %u",
				 code, t.rnr_retry);
			check_row(o, label, &r, IBV_WC_RNR_RETRY_EXC_ERR, late);
			if (give_up(o, &r, &silent))
				return 1;
		}
	}
	rc_buf_free(&buf);
	rc_dev_close(&db);
	rc_dev_close(&da);
	return 0;
}

/* sleep: clock_nanosleep() for each ACK timeout, the hrtimer reference */
static int run_sleep(const struct opts *o)
{
	unsigned int ti, rep;

	diag("clock_nanosleep(CLOCK_MONOTONIC) of 4.096 us x 2^timeout, %u repetitions",
	     o->reps);
	print_header("timeout");
	for (ti = 0; ti < ARRAY_SIZE(ack_timeouts); ti++) {
		struct row r = { .expected_ms = ack_ms(ack_timeouts[ti]) };
		long long ns = (long long)(r.expected_ms * 1e6);
		struct timespec ts = {
			.tv_sec = ns / 1000000000LL,
			.tv_nsec = ns % 1000000000LL,
		};
		char label[32];
		long long t0;

		for (rep = 0; rep < o->reps; rep++) {
			t0 = now_ns();
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
			r.ms[r.n++] = (now_ns() - t0) / 1e6;
		}
		snprintf(label, sizeof(label), "%u", ack_timeouts[ti]);
		print_row(label, &r);
		check(r.ms[0] >= r.expected_ms,
		      "sleep of timeout %u is not shorter than asked",
		      ack_timeouts[ti]);
	}
	return 0;
}

/* bad_usage()'s text */
#define USAGE	\
	"usage: rc_timeout [-a [-l]] [-b PCT,MS] [-r REPS] ack DEVICE PEER_IPV4\n" \
	"       rc_timeout [-a [-l]] [-b PCT,MS] [-r REPS] rnr DEVICE PEER_DEVICE\n" \
	"       rc_timeout [-r REPS] sleep\n"

int main(int argc, char **argv)
{
	struct opts o = { .bound_pct = 5, .bound_ms = 1, .reps = 3 };
	int c, ret;

	while ((c = getopt(argc, argv, "ab:lr:")) != -1) {
		switch (c) {
		case 'a':
			o.assert = true;
			break;
		case 'l':
			o.latency = true;
			break;
		case 'b':
			if (sscanf(optarg, "%lf,%lf", &o.bound_pct,
				   &o.bound_ms) != 2)
				bad_usage(USAGE);
			break;
		case 'r':
			o.reps = atoi(optarg);
			if (o.reps < 1 || o.reps > MAX_REPS)
				bad_usage(USAGE);
			break;
		default:
			bad_usage(USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		bad_usage(USAGE);

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(RUN_TIMEOUT_S);
	if (o.assert)
		diag("asserting: within max(%.1f %%, %.3f ms) of expected%s",
		     o.bound_pct, o.bound_ms, o.latency ?
		     ", later by up to the timer latency measured here per expiry" : "");
	if (!strcmp(argv[0], "ack") && argc == 3)
		ret = run_ack(&o, argv[1], argv[2]);
	else if (!strcmp(argv[0], "rnr") && argc == 3)
		ret = run_rnr(&o, argv[1], argv[2]);
	else if (!strcmp(argv[0], "sleep") && argc == 1)
		ret = run_sleep(&o);
	else
		bad_usage(USAGE);

	if (ret)
		printf("Bail out! cannot go on\n");
	printf("1..%u\n", tests_run);
	if (ret)
		return ret;
	return tests_failed ? 1 : 0;
}
