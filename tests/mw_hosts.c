// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mw_hosts: memory windows between two hosts, so that one RDMA device is
 * tested against another (srdma against srdma, and against rdma_rxe:
 * tools/distro/rxe_interop.sh).
 *
 *   mw_hosts [-x rxe] DEVICE              the owner of the windows; waits
 *                                         for the accessor on TCP PORT
 *   mw_hosts [-x rxe] DEVICE OWNER_IPV4   the accessor
 *
 * Every round connects a new RC QP on each end (the QP numbers, PSNs,
 * GIDs and MTUs go over TCP). The owner binds a window onto an MR of its
 * own that grants MW_BIND, prefilled with a background pattern, and tells
 * the accessor where the window is and its rkey. Then:
 *
 * - type 1, bound by ibv_bind_mw(): the accessor WRITEs the window whole,
 *   READs it back (same bytes), and WRITEs 16 bytes across its end:
 *   IBV_WC_REM_ACCESS_ERR, and the owner finds the window holding the
 *   first WRITE, not one byte of the refused one, and its MR around the
 *   window untouched;
 * - type 2, bound by ibv_wr_bind_mw(): a WRITE, then a SEND_WITH_INV of
 *   the window's rkey, which the owner receives with IBV_WC_WITH_INV and
 *   that rkey, then a WRITE through the key: IBV_WC_REM_ACCESS_ERR, and
 *   the window holds the first WRITE;
 * - the races, RACE_ROUNDS of each: the accessor posts RACE_SLOTS - 1
 *   WRITEs of RACE_BYTES through the window, each to its own slot, and
 *   says so after the first; the owner then takes the key away under
 *   them (a type 2 window by a LOCAL_INV posted on another QP of its PD, a
 *   type 1 by ibv_dealloc_mw()), and once that completed or returned notes
 *   the window's bytes and says so; the accessor posts one more WRITE.
 *   Its completions, in order, must be successes, then one
 *   IBV_WC_REM_ACCESS_ERR, then flushes, the last WRITE not a success;
 *   the owner finds its window as it was once the key was gone (nothing
 *   placed after that), and every slot of a successful WRITE holding that
 *   WRITE's bytes.
 *
 * -x rxe, on both ends: the owner is the kernel's rdma_rxe, and what it is
 * known to do otherwise are TAP TODO lines, which do not fail the run.
 * Linux 6.1.192's and 6.12.117's rdma_rxe (found by this program):
 *  - it checks an access through a window against the window's MR, not
 *    the window (rxe_resp.c check_rkey(): mr_check_range() on the MR):
 *    the WRITE across the window's end succeeds and lands past it;
 *  - it gives a process's receive completion the kernel's
 *    IB_WC_WITH_INVALIDATE (1 << 2), which libibverbs reads as
 *    IBV_WC_IP_CSUM_OK: no IBV_WC_WITH_INV.
 *
 * Output is TAP; exit status 0 if every check of this end passed (TODOs
 * aside), 1 if one failed, 2 if the ends could not connect.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hosts.h"
#include "tap.h"

#define PORT		18621
#define CONNECT_S	30
#define RUN_TIMEOUT_S	180
#define CQE_MS		5000
#define BACKGROUND	0xb6		/* the seed of the owner's MR */
#define WIN_OFF		(RC_PAGE_BYTES + 256)	/* not page aligned */
#define WIN_BYTES	(2 * RC_PAGE_BYTES)
#define RACE_ROUNDS	4
#define RACE_SLOTS	8
#define RACE_BYTES	(2 * RC_PAGE_BYTES)
#define MR_BYTES	(WIN_OFF + RACE_SLOTS * RACE_BYTES + RC_PAGE_BYTES)
#define CROSS_BYTES	16		/* the WRITE across the window's end */

static const char RXE_MR_RANGE[] = "rxe: a window's range is its MR's";
static const char RXE_INV_FLAG[] =
	"rxe: the kernel's IB_WC_WITH_INVALIDATE, IBV_WC_IP_CSUM_OK here";

/* the owner is rdma_rxe (-x rxe) */
static bool rxe_owner;

/* how rdma_rxe is known to deviate from the check, if the owner is it */
static const char *rxe_todo(const char *deviation)
{
	return rxe_owner ? deviation : NULL;
}

enum round_kind {
	TYPE1,
	TYPE2_SEND_INV,
	RACE_LOCAL_INV,
	RACE_DEALLOC,
};

static const char * const kind_name[] = {
	[TYPE1] = "type 1",
	[TYPE2_SEND_INV] = "type 2, SEND_WITH_INV",
	[RACE_LOCAL_INV] = "race, type 2, LOCAL_INV",
	[RACE_DEALLOC] = "race, type 1, ibv_dealloc_mw()",
};

/* the window the owner tells the accessor of */
struct window {
	unsigned long long addr;
	unsigned int len;
	unsigned int rkey;
};

/* one end: its device, the round's QP, and a buffer */
struct end {
	struct rc_dev d;
	struct rc_qp_opts o;
	struct rc_end e;
	struct rc_conn c;
	struct rc_buf buf;
	int fd;
	unsigned int round;
	unsigned long long wr_id;
};

static unsigned int seed_of(unsigned int round, unsigned int slot)
{
	return round * 131 + slot * 7 + 1;
}

/* how many bytes at @p differ from @seed's pattern from byte @start on */
static size_t differ(const void *p, size_t len, unsigned int seed,
		     size_t start)
{
	size_t bad;

	rc_mismatch_at(p, len, seed, start, &bad);
	return bad;
}

static enum round_kind kind_of(unsigned int round)
{
	if (round < 2)
		return round;
	return round < 2 + RACE_ROUNDS ? RACE_LOCAL_INV : RACE_DEALLOC;
}

static bool is_race(enum round_kind k)
{
	return k == RACE_LOCAL_INV || k == RACE_DEALLOC;
}

/* the status of the next completion on @cq, which must be WR @wr_id */
static int wc_status(struct ibv_cq *cq, unsigned long long wr_id,
		     struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	if (rc_poll(cq, wc, 1, 1, CQE_MS) != 1 || wc->wr_id != wr_id)
		return -1;
	return wc->status;
}

static bool send_ok(struct end *me, int status, const char *what)
{
	return check(status == IBV_WC_SUCCESS, "round %u: %s: IBV_WC_SUCCESS",
		     me->round, what) ||
	       (diag("status %d", status), false);
}

/* A new QP connected to the other end's */
static int round_connect(struct end *me)
{
	struct hosts_qp mine, peer;

	if (rc_end_create(&me->e, &me->d, &me->o))
		return -1;
	rc_conn_default(&me->c, getpid() * 7919 + me->round * 4099);
	mine = hosts_qp(&me->e, &me->c);
	if (!hosts_io(me->fd, &mine, sizeof(mine), true) ||
	    !hosts_io(me->fd, &peer, sizeof(peer), false) ||
	    hosts_connect_qp(&me->e, &me->c, &peer) || !hosts_sync(me->fd))
		return -1;
	return 0;
}

/* ---- the accessor ---- */

static int post_rdma(struct end *me, enum ibv_wr_opcode op, size_t off,
		     unsigned int len, unsigned long long addr,
		     unsigned int rkey)
{
	struct ibv_sge sge = rc_sge(&me->buf, off, len);
	struct ibv_send_wr wr = rc_send_wr(++me->wr_id, op, &sge, 1,
					   IBV_SEND_SIGNALED, addr, rkey);

	return rc_post_send(me->e.qp, &wr);
}

/* one RDMA WRITE or READ, waited for: its status, or -1 */
static int rdma(struct end *me, enum ibv_wr_opcode op, size_t off,
		unsigned int len, unsigned long long addr, unsigned int rkey)
{
	struct ibv_wc wc;

	if (post_rdma(me, op, off, len, addr, rkey))
		return -1;
	return wc_status(me->e.scq, me->wr_id, &wc);
}

static void access_type1(struct end *me, const struct window *w)
{
	unsigned int seed = seed_of(me->round, 0);

	rc_fill(me->buf.p, w->len, seed);
	send_ok(me, rdma(me, IBV_WR_RDMA_WRITE, 0, w->len, w->addr, w->rkey),
		"WRITE of the window");
	memset(me->buf.p + w->len, 0, w->len);
	if (send_ok(me, rdma(me, IBV_WR_RDMA_READ, w->len, w->len, w->addr,
			     w->rkey), "READ of the window"))
		check(!differ(me->buf.p + w->len, w->len, seed, 0),
		      "round %u: the READ brought the WRITE's bytes", me->round);
	check_todo(rdma(me, IBV_WR_RDMA_WRITE, 0, CROSS_BYTES,
			w->addr + w->len - CROSS_BYTES / 2, w->rkey) ==
		   IBV_WC_REM_ACCESS_ERR, rxe_todo(RXE_MR_RANGE),
		   "round %u: a WRITE across the window's end: IBV_WC_REM_ACCESS_ERR",
		   me->round);
}

static void access_type2(struct end *me, const struct window *w)
{
	struct ibv_sge sge = rc_sge(&me->buf, 0, 8);
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	rc_fill(me->buf.p, w->len, seed_of(me->round, 0));
	send_ok(me, rdma(me, IBV_WR_RDMA_WRITE, 0, w->len, w->addr, w->rkey),
		"WRITE of the window");
	wr = rc_send_wr(++me->wr_id, IBV_WR_SEND_WITH_INV, &sge, 1,
			IBV_SEND_SIGNALED, 0, 0);
	wr.invalidate_rkey = w->rkey;
	send_ok(me, rc_post_send(me->e.qp, &wr) ? -1 :
		wc_status(me->e.scq, me->wr_id, &wc), "SEND_WITH_INV");
	rc_fill(me->buf.p, w->len, seed_of(me->round, 1));
	check(rdma(me, IBV_WR_RDMA_WRITE, 0, w->len, w->addr, w->rkey) ==
	      IBV_WC_REM_ACCESS_ERR,
	      "round %u: a WRITE after the invalidation: IBV_WC_REM_ACCESS_ERR",
	      me->round);
}

/*
 * The race's WRITEs and their completions; the slots whose WRITE
 * succeeded go to the owner as a bit mask.
 */
static void access_race(struct end *me, const struct window *w)
{
	unsigned long long first = me->wr_id + 1;
	unsigned int i, n = 0, placed = 0, refused = 0, flushed = 0, mask = 0;
	bool failed = false, order = true;
	struct ibv_wc wc[RACE_SLOTS];
	char b = 1;

	for (i = 0; i < RACE_SLOTS; i++) {
		/* the owner cuts once the first is posted; the last WRITE
		 * once it said the key is gone
		 */
		if ((i == 1 && !hosts_io(me->fd, &b, 1, true)) ||
		    (i == RACE_SLOTS - 1 && !hosts_io(me->fd, &b, 1, false)))
			break;
		rc_fill(me->buf.p + i * RACE_BYTES, RACE_BYTES,
			seed_of(me->round, i));
		if (n == i &&
		    !post_rdma(me, IBV_WR_RDMA_WRITE, i * RACE_BYTES,
			       RACE_BYTES, w->addr + i * RACE_BYTES, w->rkey))
			n++;
	}
	if (!check(n == RACE_SLOTS && rc_poll(me->e.scq, wc, n, n, CQE_MS) ==
		   (int)n, "round %u: %u WRITEs posted, each completed",
		   me->round, RACE_SLOTS))
		n = 0;
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id != first + i)
			order = false;
		if (failed) {
			order &= wc[i].status == IBV_WC_WR_FLUSH_ERR;
			flushed++;
		} else if (wc[i].status == IBV_WC_REM_ACCESS_ERR) {
			failed = true;
			refused++;
		} else if (wc[i].status == IBV_WC_SUCCESS &&
			   i < RACE_SLOTS - 1) {
			mask |= 1u << i;
			placed++;
		} else {
			order = false;
		}
	}
	if (n)
		check(order && failed,
		      "round %u: successes, then IBV_WC_REM_ACCESS_ERR, then flushes; the WRITE after the cut failed (%u placed, %u refused, %u flushed)",
		      me->round, placed, refused, flushed);
	hosts_io(me->fd, &mask, sizeof(mask), true);
}

/* ---- the owner ---- */

struct owner {
	struct end me;
	struct rc_pair inv;	/* inv.a's QP invalidates: same PD */
	struct rc_buf recv;	/* where the SEND_WITH_INV lands */
	struct ibv_mw *mw;
	unsigned char *before;	/* the window's bytes once the key was gone */
};

/* bind @o's window of @len bytes at WIN_OFF: its rkey, or 0 */
static unsigned int bind(struct owner *o, enum ibv_mw_type type,
			 unsigned int len)
{
	struct end *me = &o->me;
	struct ibv_mw_bind_info info = {
		.mr = me->buf.mr,
		.addr = (uintptr_t)me->buf.p + WIN_OFF,
		.length = len,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(me->e.qp);
	struct ibv_mw_bind bind1 = {
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = info,
	};
	unsigned int rkey;
	struct ibv_wc wc;
	int err;

	o->mw = ibv_alloc_mw(me->d.pd, type);
	if (!o->mw)
		return 0;
	rkey = ibv_inc_rkey(o->mw->rkey);
	if (type == IBV_MW_TYPE_1) {
		bind1.wr_id = ++me->wr_id;
		err = ibv_bind_mw(me->e.qp, o->mw, &bind1);
		rkey = o->mw->rkey;	/* librxe gives the next key at once */
	} else {
		ibv_wr_start(qpx);
		qpx->wr_id = ++me->wr_id;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(qpx, o->mw, rkey, &info);
		err = ibv_wr_complete(qpx);
	}
	if (err || !send_ok(me, wc_status(me->e.scq, me->wr_id, &wc),
			    type == IBV_MW_TYPE_1 ? "ibv_bind_mw()" :
						    "ibv_wr_bind_mw()"))
		return 0;
	return rkey;
}

/* the MR but the window holds the background, the window @seed's bytes */
static void check_mr(struct owner *o, unsigned int len, unsigned int seed,
		     const char *what)
{
	const unsigned char *p = o->me.buf.p;
	size_t n;

	n = differ(p, WIN_OFF, BACKGROUND, 0) +
	    differ(p + WIN_OFF + len, MR_BYTES - WIN_OFF - len, BACKGROUND,
		   WIN_OFF + len);
	check_todo(!n, rxe_todo(RXE_MR_RANGE),
		   "round %u: the MR around the window is untouched",
		   o->me.round) || (diag("%zu bytes differ", n), false);
	n = differ(p + WIN_OFF, len, seed, 0);
	check_todo(!n, rxe_todo(RXE_MR_RANGE), "round %u: the window holds %s",
		   o->me.round, what) || (diag("%zu bytes differ", n), false);
}

/* take the key away: 0, or -1 */
static int cut(struct owner *o, enum round_kind k, unsigned int rkey)
{
	struct ibv_send_wr wr = rc_send_wr(++o->me.wr_id, IBV_WR_LOCAL_INV,
					   NULL, 0, IBV_SEND_SIGNALED, 0, 0);
	struct ibv_wc wc;

	if (k == RACE_DEALLOC) {
		if (!check(!ibv_dealloc_mw(o->mw),
			   "round %u: ibv_dealloc_mw() of the bound window",
			   o->me.round))
			return -1;
		o->mw = NULL;
		return 0;
	}
	wr.invalidate_rkey = rkey;
	return send_ok(&o->me, rc_post_send(o->inv.a.qp, &wr) ? -1 :
		       wc_status(o->inv.a.scq, o->me.wr_id, &wc),
		       "LOCAL_INV on another QP") ? 0 : -1;
}

static void own_race(struct owner *o, enum round_kind k, unsigned int rkey)
{
	unsigned int i, mask = 0, len = RACE_SLOTS * RACE_BYTES;
	unsigned char *win = o->me.buf.p + WIN_OFF;
	size_t wrong = 0;
	bool gone;
	char b;

	if (!hosts_io(o->me.fd, &b, 1, false))
		return;
	gone = !cut(o, k, rkey);
	memcpy(o->before, win, len);
	if (!hosts_io(o->me.fd, &b, 1, true) ||
	    !hosts_io(o->me.fd, &mask, sizeof(mask), false) || !gone)
		return;
	check(!memcmp(o->before, win, len),
	      "round %u: nothing placed once the key was gone", o->me.round);
	for (i = 0; i < RACE_SLOTS; i++)
		if (mask & (1u << i))
			wrong += differ(win + i * RACE_BYTES, RACE_BYTES,
					seed_of(o->me.round, i), 0);
	check(!wrong, "round %u: each successful WRITE's bytes in its slot",
	      o->me.round);
}

static void own(struct owner *o, enum round_kind k)
{
	struct end *me = &o->me;
	unsigned int len = is_race(k) ? RACE_SLOTS * RACE_BYTES : WIN_BYTES;
	struct ibv_sge sge = rc_sge(&o->recv, 0, 8);
	struct window w = { .addr = (uintptr_t)me->buf.p + WIN_OFF, .len = len };
	unsigned long long recv_id = ++me->wr_id;
	struct ibv_wc wc;

	rc_fill(me->buf.p, MR_BYTES, BACKGROUND);
	/* the accessor hears of a window in any case: rkey 0 if none */
	if (k != TYPE2_SEND_INV || !rc_post_recv(&me->e, recv_id, &sge, 1))
		w.rkey = bind(o, k == TYPE1 || k == RACE_DEALLOC ?
				 IBV_MW_TYPE_1 : IBV_MW_TYPE_2, len);
	if (!hosts_io(me->fd, &w, sizeof(w), true) || !w.rkey)
		return;
	if (is_race(k)) {
		own_race(o, k, w.rkey);
		return;
	}
	if (!hosts_sync(me->fd))
		return;
	if (k == TYPE2_SEND_INV &&
	    check(wc_status(me->e.rcq, recv_id, &wc) == IBV_WC_SUCCESS &&
		  wc.opcode == IBV_WC_RECV,
		  "round %u: the SEND_WITH_INV received", me->round))
		check_todo((wc.wc_flags & IBV_WC_WITH_INV) &&
			   wc.invalidated_rkey == w.rkey,
			   rxe_todo(RXE_INV_FLAG),
			   "round %u: IBV_WC_WITH_INV, the window's rkey %#x",
			   me->round, w.rkey) ||
			(diag("wc_flags %#x, rkey %#x", wc.wc_flags,
			      wc.invalidated_rkey), false);
	check_mr(o, len, seed_of(me->round, 0), "the first WRITE's bytes");
}

/* one end of all the rounds */
static void run(struct end *me, struct owner *o)
{
	unsigned int rounds = 2 + 2 * RACE_ROUNDS;
	struct window w;
	enum round_kind k;

	for (me->round = 0; me->round < rounds; me->round++) {
		k = kind_of(me->round);
		diag("round %u: %s", me->round, kind_name[k]);
		if (!check(!round_connect(me), "round %u: QPs connected",
			   me->round))
			return;
		if (o) {
			own(o, k);
		} else if (hosts_io(me->fd, &w, sizeof(w), false) && w.rkey) {
			if (k == TYPE1)
				access_type1(me, &w);
			else if (k == TYPE2_SEND_INV)
				access_type2(me, &w);
			else
				access_race(me, &w);
			if (!is_race(k))
				hosts_sync(me->fd);
		}
		if (o && o->mw)
			ibv_dealloc_mw(o->mw);
		if (o)
			o->mw = NULL;
		rc_end_destroy(&me->e);
		if (!check(hosts_sync(me->fd), "round %u: both ends done",
			   me->round))
			return;
	}
}

int main(int argc, char **argv)
{
	static const char usage[] = "mw_hosts [-x rxe] DEVICE [OWNER_IPV4]\n";
	int access = RC_ACCESS_ALL | IBV_ACCESS_MW_BIND;
	struct owner o = { 0 };
	struct end *me = &o.me;
	bool accessor;
	int opt;

	while ((opt = getopt(argc, argv, "x:")) != -1) {
		if (opt != 'x' || strcmp(optarg, "rxe"))
			bad_usage(usage);
		rxe_owner = true;
	}
	argv += optind - 1;
	argc -= optind - 1;
	if (argc != 2 && argc != 3)
		bad_usage(usage);
	accessor = argc == 3;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(RUN_TIMEOUT_S);
	if (rc_dev_open(&me->d, argv[1])) {
		printf("Bail out! %s cannot be used\n", argv[1]);
		return 2;
	}
	rc_qp_opts_default(&me->o);
	me->o.send_ops = IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_RDMA_WRITE |
			 IBV_QP_EX_WITH_SEND;
	o.before = malloc(RACE_SLOTS * RACE_BYTES);
	if (!o.before || rc_buf_reg(&me->buf, me->d.pd, MR_BYTES, access) ||
	    rc_buf_reg(&o.recv, me->d.pd, RC_PAGE_BYTES,
		       IBV_ACCESS_LOCAL_WRITE) ||
	    (!accessor && (rc_pair_create(&o.inv, &me->d, &me->d, &me->o) ||
			   rc_pair_connect(&o.inv)))) {
		printf("Bail out! no MR or QPs on %s\n", argv[1]);
		return 2;
	}
	me->fd = accessor ? hosts_connect(argv[2], PORT, CONNECT_S) :
			    hosts_accept(PORT);
	if (me->fd < 0) {
		printf("Bail out! the two ends did not meet\n");
		return 2;
	}
	run(me, accessor ? NULL : &o);
	close(me->fd);
	if (!accessor)
		rc_pair_destroy(&o.inv);
	rc_buf_free(&me->buf);
	rc_buf_free(&o.recv);
	free(o.before);
	rc_dev_close(&me->d);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
}
