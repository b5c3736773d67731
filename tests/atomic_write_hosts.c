// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * atomic_write_hosts: ATOMIC_WRITE and FLUSH between two hosts, so that one
 * RDMA device is tested against another (srdma against rdma_rxe of 6.2 and
 * later: tools/distro/rxe_interop.sh).
 *
 *   atomic_write_hosts DEVICE                  the responder; waits for
 *                                              the requester on TCP PORT
 *   atomic_write_hosts DEVICE RESPONDER_IPV4   the requester
 *
 * The two ends exchange their QP number, first PSN, GID and active MTU over
 * TCP, the responder also the address and rkey of two MRs, and connect an
 * RC QP each. The requester makes N_WRITES ATOMIC_WRITEs
 * (ibv_wr_atomic_write()) of distinct values, each to its own 8 bytes of
 * the first MR, one at a time: each must complete with IBV_WC_SUCCESS and
 * opcode IBV_WC_ATOMIC_WRITE. Then a FLUSH (placement type global) of the
 * range written, and one of the whole MR, each IBV_WC_SUCCESS with opcode
 * IB_UVERBS_WC_FLUSH (librxe 44 has no ibv_wr_flush(): rxe_wr_flush()
 * writes the WQE as librxe 47 does; the first MR and the responder's QP
 * grant IB_ACCESS_FLUSH_GLOBAL). Then an ATOMIC_WRITE to the second MR,
 * which has no REMOTE_WRITE: it must complete with IBV_WC_REM_ACCESS_ERR.
 * The responder
 * then checks that the first MR holds exactly the values written and that
 * the second is unchanged. Output is TAP; exit status 0 if every check of
 * this end passed, 1 if one failed, 2 if the ends could not connect.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hosts.h"
#include "tap.h"
#include "rxe_ring.h"

#define PORT		18620
#define N_WRITES	64
#define CONNECT_S	30
#define RUN_TIMEOUT_S	120
#define CQE_MS		5000

/* what each end tells the other */
struct hello {
	struct hosts_qp qp;
	unsigned long long addr[2];		/* the responder's MRs */
	unsigned int rkey[2];
};

static unsigned long long value_of(unsigned int i)
{
	return 0x0123456789abcdefULL ^ (i * 0x9e3779b97f4a7c15ULL);
}

/* one ATOMIC_WRITE, signaled; its completion in *@wc */
static bool atomic_write(struct rc_end *e, unsigned int i, unsigned int rkey,
			 unsigned long long addr, unsigned long long value, struct ibv_wc *wc)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(e->qp);

	ibv_wr_start(qpx);
	qpx->wr_id = i;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, rkey, addr, &value);
	if (ibv_wr_complete(qpx))
		return false;
	return rc_poll(e->scq, wc, 1, 1, CQE_MS) == 1 && wc->wr_id == i;
}

/* one FLUSH, signaled; its completion in *@wc */
static bool flush(struct rc_end *e, unsigned int i, unsigned int rkey,
		  unsigned long long addr, unsigned int len, unsigned int level,
		  struct ibv_wc *wc)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(e->qp);

	ibv_wr_start(qpx);
	qpx->wr_id = i;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	if (rxe_wr_flush(qpx, rkey, addr, len, FLUSH_GLOBAL, level)) {
		ibv_wr_abort(qpx);
		diag("the FLUSH's WQE is not in a send ring");
		return false;
	}
	if (ibv_wr_complete(qpx))
		return false;
	return rc_poll(e->scq, wc, 1, 1, CQE_MS) == 1 && wc->wr_id == i;
}

static void requester(struct rc_end *e, const struct hello *peer)
{
	unsigned int i, ok = 0;
	struct ibv_wc wc;

	for (i = 0; i < N_WRITES; i++) {
		memset(&wc, 0, sizeof(wc));
		if (atomic_write(e, i, peer->rkey[0], peer->addr[0] + 8 * i,
				 value_of(i), &wc) &&
		    wc.status == IBV_WC_SUCCESS &&
		    wc.opcode == IBV_WC_ATOMIC_WRITE) {
			ok++;
			continue;
		}
		diag("ATOMIC_WRITE %u: status %s, opcode %d", i,
		     ibv_wc_status_str(wc.status), wc.opcode);
		break;
	}
	check(ok == N_WRITES,
	      "%u ATOMIC_WRITEs complete: IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE",
	      N_WRITES);
	for (i = 0; i < 2; i++) {
		memset(&wc, 0, sizeof(wc));
		if (!check(flush(e, N_WRITES + 1 + i, peer->rkey[0],
				 i ? 0 : peer->addr[0], i ? 0 : 8 * N_WRITES,
				 i ? FLUSH_MR : FLUSH_RANGE, &wc) &&
			   wc.status == IBV_WC_SUCCESS && wc.opcode == WC_FLUSH,
			   "FLUSH of %s: IBV_WC_SUCCESS, IB_UVERBS_WC_FLUSH",
			   i ? "the MR" : "the values' range"))
			diag("status %s, opcode %d",
			     ibv_wc_status_str(wc.status), wc.opcode);
	}
	memset(&wc, 0, sizeof(wc));
	atomic_write(e, N_WRITES, peer->rkey[1], peer->addr[1],
		     value_of(N_WRITES), &wc);
	if (!check(wc.wr_id == N_WRITES && wc.status == IBV_WC_REM_ACCESS_ERR,
		   "ATOMIC_WRITE to an MR without REMOTE_WRITE: IBV_WC_REM_ACCESS_ERR"))
		diag("status %s", ibv_wc_status_str(wc.status));
}

static void responder(const struct rc_buf *mrs)
{
	const unsigned long long *slot = (const unsigned long long *)mrs[0].p;
	unsigned int i, wrong = 0;
	size_t bad;

	for (i = 0; i < N_WRITES; i++)
		wrong += slot[i] != value_of(i);
	if (!check(!wrong, "the %u values written are in place", N_WRITES))
		diag("%u of them differ", wrong);
	rc_mismatch(mrs[1].p, mrs[1].len, 1, &bad);
	if (!check(!bad, "the MR without REMOTE_WRITE is unchanged"))
		diag("%zu bytes changed", bad);
	wrong = 0;
	for (i = N_WRITES; i < mrs[0].len / 8; i++)
		wrong += slot[i] != 0;
	check(!wrong, "nothing written past the last value");
}

int main(int argc, char **argv)
{
	struct rc_qp_opts o;
	struct rc_buf mrs[2] = { { 0 } };
	struct hello me = { 0 }, peer;
	struct rc_conn c;
	struct rc_end e;
	struct rc_dev d;
	bool req = argc == 3;
	int fd, i;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "%s DEVICE [RESPONDER_IPV4]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(RUN_TIMEOUT_S);
	if (rc_dev_open(&d, argv[1])) {
		printf("Bail out! %s cannot be used\n", argv[1]);
		return 2;
	}
	rc_qp_opts_default(&o);
	o.send_ops = IBV_QP_EX_WITH_ATOMIC_WRITE;
	if (rc_end_create(&e, &d, &o) ||
	    rc_buf_reg(&mrs[0], d.pd, RC_PAGE_BYTES,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       ACCESS_FLUSH_GLOBAL) ||
	    rc_buf_reg(&mrs[1], d.pd, RC_PAGE_BYTES,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ)) {
		printf("Bail out! no QP or MRs on %s\n", argv[1]);
		return 2;
	}
	rc_fill(mrs[1].p, mrs[1].len, 1);
	rc_conn_default(&c, getpid() * 7919);
	c.access |= ACCESS_FLUSH_GLOBAL;
	me.qp = hosts_qp(&e, &c);
	for (i = 0; i < 2; i++) {
		me.addr[i] = (uintptr_t)mrs[i].p;
		me.rkey[i] = mrs[i].mr->rkey;
	}

	fd = req ? hosts_connect(argv[2], PORT, CONNECT_S) : hosts_accept(PORT);
	if (fd < 0 || !hosts_io(fd, &me, sizeof(me), true) ||
	    !hosts_io(fd, &peer, sizeof(peer), false) ||
	    hosts_connect_qp(&e, &c, &peer.qp) || !hosts_sync(fd)) {
		printf("Bail out! the two ends did not connect\n");
		return 2;
	}
	diag("QP %#x on %s connected to QP %#x", me.qp.qpn, argv[1], peer.qp.qpn);
	if (req)
		requester(&e, &peer);
	/* the requester is done: the responder looks at its memory */
	if (!hosts_sync(fd))
		check(false, "the other end finished");
	else if (!req)
		responder(mrs);
	close(fd);
	rc_end_destroy(&e);
	rc_buf_free(&mrs[0]);
	rc_buf_free(&mrs[1]);
	rc_dev_close(&d);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
}
