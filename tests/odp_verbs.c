// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * odp_verbs: on-demand paging MRs (IBV_ACCESS_ON_DEMAND) through stock
 * librxe, between two RC QPs of one process.
 *
 *   odp_verbs DEVICE_A [DEVICE_B]   (one device: QP to QP through its
 *                                    loopback)
 *
 * Both ends register anonymous memory that no one has touched with
 * IBV_ACCESS_ON_DEMAND, so that the device meets each page unmapped first:
 * - ibv_query_device_ex() reports ODP for RC SEND, RECV, WRITE, READ and
 *   ATOMIC;
 * - a WRITE of 64 KiB from a's ODP memory into b's (faults on both
 *   sides), a READ of it back into a's untouched memory, a SEND into b's
 *   ODP receive buffer, a fetch-and-add and a compare-and-swap on b's
 *   memory with the old values into a's: each completes successfully and
 *   every byte is where it should be;
 * - b's memory dropped by MADV_DONTNEED (the kernel takes its pages away;
 *   the device must not write into the old ones), then written again: b
 *   sees the new bytes; then b's memory unmapped and mapped anew at the
 *   same address with new bytes: a READ brings those;
 * - ibv_advise_mr() prefetch of b's memory (through ib_uverbs' command:
 *   librxe 44 has no advise_mr), then a WRITE into it; a prefetch with a
 *   key of no ODP MR: EINVAL;
 * - an implicit ODP MR (address NULL, length SIZE_MAX) is refused;
 * - a hole unmapped in each MR: a WRITE into b's gets
 *   IBV_WC_REM_ACCESS_ERR, a SEND from a's IBV_WC_LOC_PROT_ERR.
 *
 * Output is TAP; exit status 0 if every check passed, 1 if one failed, 2
 * if the devices cannot be used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rc_pair.h"
#include "uverbs_cmd.h"

#define RUN_TIMEOUT_S	120
#define CQE_MS		10000
#define MSG_BYTES	(64 * 1024)
#define SEND_BYTES	(8 * 1024)
/* a's memory: what it writes, then where READs land; b's: the target */
#define A_SRC		0
#define A_DST		(2 * MSG_BYTES)
#define A_ATOMIC	(4 * MSG_BYTES)
#define B_RECV		(2 * MSG_BYTES)
#define B_ATOMIC	(3 * MSG_BYTES)
#define BUF_BYTES	(5 * MSG_BYTES)
#define ODP_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_ON_DEMAND)

/* anonymous memory no one touched, registered for ODP on @pd */
struct odp_buf {
	unsigned char *p;
	struct ibv_mr *mr;
};

static unsigned long long wr_id;

static int odp_buf_get(struct odp_buf *b, struct ibv_pd *pd)
{
	b->p = mmap(NULL, BUF_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->p == MAP_FAILED)
		return errno;
	b->mr = ibv_reg_mr(pd, b->p, BUF_BYTES, ODP_ACCESS);
	return b->mr ? 0 : errno;
}

static void odp_buf_put(struct odp_buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	if (b->p && b->p != MAP_FAILED)
		munmap(b->p, BUF_BYTES);
}

static struct ibv_sge sge_at(struct odp_buf *b, size_t off, unsigned int len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->p + off,
		.length = len,
		.lkey = b->mr->lkey,
	};

	return sge;
}

/* one work request of a's, signaled, waited for: its status or -1 */
static int post_wait(struct rc_end *e, struct ibv_send_wr *wr)
{
	struct ibv_wc wc;

	if (rc_post_send(e->qp, wr) ||
	    rc_poll(e->scq, &wc, 1, 1, CQE_MS) != 1 || wc.wr_id != wr->wr_id)
		return -1;
	return wc.status;
}

static bool rdma(struct rc_pair *p, enum ibv_wr_opcode op,
		 struct odp_buf *a, size_t a_off, struct odp_buf *b,
		 size_t b_off, unsigned int len, const char *what)
{
	struct ibv_sge sge = sge_at(a, a_off, len);
	struct ibv_send_wr wr = rc_send_wr(++wr_id, op, &sge, 1,
					   IBV_SEND_SIGNALED,
					   (uintptr_t)b->p + b_off,
					   b->mr->rkey);
	int status = post_wait(&p->a, &wr);

	return check(status == IBV_WC_SUCCESS, "%s: IBV_WC_SUCCESS", what) ||
	       (diag("status %d", status), false);
}

static bool same(const void *p, size_t len, unsigned int seed,
		 const char *what)
{
	size_t bad;

	rc_mismatch(p, len, seed, &bad);
	return check(!bad, "%s", what) || (diag("%zu bytes differ", bad), false);
}

static void test_caps(struct ibv_context *ctx)
{
	const unsigned int rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
				IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
				IBV_ODP_SUPPORT_ATOMIC;
	struct ibv_device_attr_ex attr;

	check(!ibv_query_device_ex(ctx, NULL, &attr) &&
	      (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	      (attr.odp_caps.per_transport_caps.rc_odp_caps & rc) == rc,
	      "ibv_query_device_ex(): ODP, and on RC SEND, RECV, WRITE, READ, ATOMIC");
}

static void test_data(struct rc_pair *p, struct odp_buf *a, struct odp_buf *b)
{
	struct ibv_sge sge = sge_at(a, A_SRC, SEND_BYTES), rsge;
	unsigned long long *old = (void *)(a->p + A_ATOMIC);
	unsigned long long *target = (void *)(b->p + B_ATOMIC);
	struct ibv_recv_wr rwr = { .wr_id = ++wr_id, .num_sge = 1 }, *bad;
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	rc_fill(a->p + A_SRC, MSG_BYTES, 1);
	if (rdma(p, IBV_WR_RDMA_WRITE, a, A_SRC, b, 0, MSG_BYTES,
		 "WRITE of 64 KiB between untouched ODP MRs"))
		same(b->p, MSG_BYTES, 1, "the WRITE's bytes in b's ODP memory");
	if (rdma(p, IBV_WR_RDMA_READ, a, A_DST, b, 0, MSG_BYTES,
		 "READ of them into a's untouched ODP memory"))
		same(a->p + A_DST, MSG_BYTES, 1,
		     "the READ's bytes in a's ODP memory");

	rsge = sge_at(b, B_RECV, SEND_BYTES);
	rwr.sg_list = &rsge;
	rc_fill(a->p + A_SRC, SEND_BYTES, 2);
	wr = rc_send_wr(++wr_id, IBV_WR_SEND, &sge, 1, IBV_SEND_SIGNALED, 0, 0);
	if (check(!ibv_post_recv(p->b.qp, &rwr, &bad) &&
		  post_wait(&p->a, &wr) == IBV_WC_SUCCESS &&
		  rc_poll(p->b.rcq, &wc, 1, 1, CQE_MS) == 1 &&
		  wc.status == IBV_WC_SUCCESS && wc.byte_len == SEND_BYTES,
		  "SEND of 8 KiB into an untouched ODP receive buffer"))
		same(b->p + B_RECV, SEND_BYTES, 2,
		     "the SEND's bytes in b's ODP memory");

	sge = sge_at(a, A_ATOMIC, sizeof(*old));
	wr = rc_send_wr(++wr_id, IBV_WR_ATOMIC_FETCH_AND_ADD, &sge, 1,
			IBV_SEND_SIGNALED, 0, 0);
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = b->mr->rkey;
	wr.wr.atomic.compare_add = 5;
	check(post_wait(&p->a, &wr) == IBV_WC_SUCCESS && *old == 0 &&
	      *target == 5,
	      "fetch-and-add on untouched ODP memory: old 0, now 5");
	wr = rc_send_wr(++wr_id, IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 1,
			IBV_SEND_SIGNALED, 0, 0);
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = b->mr->rkey;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 0x0123456789abcdefULL;
	check(post_wait(&p->a, &wr) == IBV_WC_SUCCESS && *old == 5 &&
	      *target == 0x0123456789abcdefULL,
	      "compare-and-swap on ODP memory: old 5, the new value in place");
}

/* b's memory taken away by the kernel: the device follows, both ways */
static void test_invalidation(struct rc_pair *p, struct odp_buf *a,
			      struct odp_buf *b)
{
	void *again;

	if (!check(!madvise(b->p, MSG_BYTES, MADV_DONTNEED),
		   "MADV_DONTNEED of b's ODP memory"))
		return;
	rc_fill(a->p + A_SRC, MSG_BYTES, 3);
	if (rdma(p, IBV_WR_RDMA_WRITE, a, A_SRC, b, 0, MSG_BYTES,
		 "WRITE after MADV_DONTNEED"))
		same(b->p, MSG_BYTES, 3,
		     "b sees the new bytes (not written into its old pages)");

	again = mmap(b->p, MSG_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (!check(again == b->p, "b's memory mapped anew at its address"))
		return;
	rc_fill(b->p, MSG_BYTES, 4);
	if (rdma(p, IBV_WR_RDMA_READ, a, A_DST, b, 0, MSG_BYTES,
		 "READ of the new mapping"))
		same(a->p + A_DST, MSG_BYTES, 4,
		     "the READ brings the new mapping's bytes");
}

static void test_advise(struct rc_pair *p, struct odp_buf *a,
			struct odp_buf *b, struct ibv_pd *pd_b)
{
	struct ibv_sge sge = sge_at(b, 0, MSG_BYTES);
	struct rc_buf plain = { 0 };
	int err;

	madvise(b->p, MSG_BYTES, MADV_DONTNEED);
	err = ibv_cmd_advise_mr(pd_b, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	if (!check(!err, "ibv_advise_mr() prefetch for writing of b's ODP memory"))
		diag("%s", strerror(err));
	rc_fill(a->p + A_SRC, MSG_BYTES, 5);
	if (rdma(p, IBV_WR_RDMA_WRITE, a, A_SRC, b, 0, MSG_BYTES,
		 "WRITE into the prefetched memory"))
		same(b->p, MSG_BYTES, 5, "its bytes in b's ODP memory");
	if (rc_buf_reg(&plain, pd_b, RC_PAGE_BYTES, IBV_ACCESS_LOCAL_WRITE))
		return;
	sge = rc_sge(&plain, 0, RC_PAGE_BYTES);
	check(ibv_cmd_advise_mr(pd_b, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge,
				1) == EINVAL,
	      "ibv_advise_mr() with the key of a pinned MR: EINVAL");
	rc_buf_free(&plain);
}

/*
 * A hole in an ODP MR (its memory unmapped, the MR still registered): a
 * WRITE into b's hole fails with IBV_WC_REM_ACCESS_ERR, a SEND from a's
 * with IBV_WC_LOC_PROT_ERR; each on a pair of its own (the error puts
 * the QPs in ERR)
 */
static void test_holes(struct rc_dev *da, struct rc_dev *db,
		       const struct rc_qp_opts *o, struct odp_buf *a,
		       struct odp_buf *b)
{
	unsigned char *hole_a = a->p + A_ATOMIC, *hole_b = b->p + B_RECV;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct rc_pair p;
	int status;

	if (!check(!munmap(hole_a, MSG_BYTES) && !munmap(hole_b, MSG_BYTES),
		   "a hole in each ODP MR (munmap)"))
		return;
	if (check(!rc_pair_create(&p, da, db, o) && !rc_pair_connect(&p),
		  "a new pair for the WRITE into b's hole")) {
		sge = sge_at(a, A_SRC, SEND_BYTES);
		wr = rc_send_wr(++wr_id, IBV_WR_RDMA_WRITE, &sge, 1,
				IBV_SEND_SIGNALED, (uintptr_t)hole_b,
				b->mr->rkey);
		status = post_wait(&p.a, &wr);
		if (!check(status == IBV_WC_REM_ACCESS_ERR,
			   "WRITE into a hole of b's ODP MR: IBV_WC_REM_ACCESS_ERR"))
			diag("status %d", status);
		rc_pair_destroy(&p);
	}
	if (check(!rc_pair_create(&p, da, db, o) && !rc_pair_connect(&p),
		  "a new pair for the SEND from a's hole")) {
		sge = sge_at(a, A_ATOMIC, SEND_BYTES);
		wr = rc_send_wr(++wr_id, IBV_WR_SEND, &sge, 1,
				IBV_SEND_SIGNALED, 0, 0);
		status = post_wait(&p.a, &wr);
		if (!check(status == IBV_WC_LOC_PROT_ERR,
			   "SEND from a hole of a's ODP MR: IBV_WC_LOC_PROT_ERR"))
			diag("status %d", status);
		rc_pair_destroy(&p);
	}
}

int main(int argc, char **argv)
{
	struct rc_dev da = { 0 }, db = { 0 }, *pb = &da;
	struct odp_buf a = { 0 }, b = { 0 };
	struct rc_qp_opts o;
	struct ibv_mr *mr;
	struct rc_pair p;

	if (argc != 2 && argc != 3)
		bad_usage("odp_verbs DEVICE_A [DEVICE_B]\n");
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(RUN_TIMEOUT_S);
	if (argc == 3)
		pb = &db;
	if (rc_dev_open(&da, argv[1]) ||
	    (pb == &db && rc_dev_open(&db, argv[2]))) {
		printf("Bail out! the devices cannot be used\n");
		return 2;
	}
	test_caps(da.ctx);
	rc_qp_opts_default(&o);
	if (!check(!odp_buf_get(&a, da.pd) && !odp_buf_get(&b, pb->pd),
		   "ibv_reg_mr() of untouched memory with IBV_ACCESS_ON_DEMAND") ||
	    !check(!rc_pair_create(&p, &da, pb, &o) && !rc_pair_connect(&p),
		   "two RC QPs in RTS")) {
		printf("Bail out! no ODP MRs or QPs\n");
		return 2;
	}
	test_data(&p, &a, &b);
	test_invalidation(&p, &a, &b);
	test_advise(&p, &a, &b, pb->pd);
	mr = ibv_reg_mr(da.pd, NULL, SIZE_MAX, ODP_ACCESS);
	check(!mr, "an implicit ODP MR (NULL, SIZE_MAX) is refused");
	if (mr)
		ibv_dereg_mr(mr);

	rc_pair_destroy(&p);
	test_holes(&da, pb, &o, &a, &b);
	odp_buf_put(&a);
	odp_buf_put(&b);
	if (pb == &db)
		rc_dev_close(&db);
	rc_dev_close(&da);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
}
