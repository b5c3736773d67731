// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * alloc_failures: a process's verbs while the kernel fails some of its
 * allocations.
 *
 *   alloc_failures [-r ROUNDS] DEVICE PEER_DEVICE
 *
 * Each round makes, on both devices, everything an RC connection needs:
 * a context, a PD, two CQs, an SRQ, a registered buffer and a QP taken
 * from Reset to RTS against the other device's QP. Every one of these
 * verbs is called with this task's allocations failing
 * (/proc/thread-self/make-it-fail; tools/scenarios/alloc_failures.sh sets
 * failslab and fail_page_alloc to fail a share of the allocations of the
 * tasks that ask); one that fails with ENOMEM is called again, up to
 * TRIES times, then once without failures. A modify that failed must have
 * left the QP in its state. The round then moves a message by RDMA WRITE,
 * posted with failures on too (write_round()), checks its bytes, and
 * destroys it all, each destroy with failures too (one that fails must
 * succeed when called again without them).
 *
 * Checks: every failure says the kernel ran out of memory (ENOMEM; see
 * struct verb_info for ibv_open_device and ibv_modify_qp), each kind of verb that makes
 * something both failed and succeeded with failures on, every round's
 * WRITE placed its bytes. The scenario then checks that nothing
 * leaked (kmemleak, restrack) and that the devices still work.
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

#include "fail_inject.h"
#include "rc_pair.h"

#define DEFAULT_ROUNDS		40
#define TRIES			20	/* with failures, then once without */
#define RUN_TIMEOUT_S		240
#define MSG_BYTES		16384	/* 16 packets at the veths' MTU */
#define BUF_BYTES		MSG_BYTES
#define POLL_TIMEOUT_MS		5000
#define SEED			0x5a

enum verb {
	V_OPEN,
	V_PD,
	V_CQ,
	V_SRQ,
	V_QP,
	V_MR,
	V_MODIFY,
	V_POST,
	V_DESTROY,
	NR_VERBS
};

/*
 * @nomem_too: the errno besides ENOMEM that says the kernel ran out of
 * memory: libibverbs opens the uverbs character device and, when that
 * fails, looks for it elsewhere (rdma-core's open_cdev()), which ends in
 * ENOENT; a modify to RTR resolves the path, and a route lookup that
 * cannot allocate its entry says ENOBUFS.
 * @need_not_fail: a run may see it never fail: a destroy allocates
 * nothing on the way, a post once (the doorbell's command).
 */
static const struct verb_info {
	const char *name;
	int nomem_too;
	bool need_not_fail;
} verbs[NR_VERBS] = {
	[V_OPEN] = { "ibv_open_device", ENOENT },
	[V_PD] = { "ibv_alloc_pd" },
	[V_CQ] = { "ibv_create_cq" },
	[V_SRQ] = { "ibv_create_srq" },
	[V_QP] = { "ibv_create_qp" },
	[V_MR] = { "ibv_reg_mr" },
	[V_MODIFY] = { "ibv_modify_qp", ENOBUFS },
	[V_POST] = { "ibv_post_send", 0, true },
	[V_DESTROY] = { "destroy, dealloc, dereg", 0, true },
};

/* What the calls with failures on gave, per kind of verb */
struct tally {
	unsigned int ok, nomem, unarmed;	/* nomem: ENOMEM or nomem_too */
	unsigned int other;		/* any other errno: a bug */
	int other_err;
};

/* One end of a round's connection */
struct end {
	struct ibv_device *device;
	struct rc_dev dev;
	struct rc_end e;
	struct rc_conn conn;
	struct ibv_mr *mr;
	unsigned char *buf;
	int state;			/* of the QP, as far as modifies went */
	unsigned int posted;		/* the round's WRITEs in the ring */
};

static struct tally tally[NR_VERBS];
static int make_it_fail = -1;

static void arm(bool on)
{
	fail_inject_arm(make_it_fail, on);
}

/* A verb's call: 0 or an errno value */
typedef int (*verb_call)(struct end *x, struct end *peer, int arg);

/*
 * attempt() - @call with failures on until it does not fail with ENOMEM
 * (TRIES times at most), then once without; the errno of the last call
 */
static int attempt(enum verb v, verb_call call, struct end *x,
		   struct end *peer, int arg)
{
	const struct verb_info *info = &verbs[v];
	struct tally *t = &tally[v];
	bool nomem = true;
	int i, err = 0;

	for (i = 0; i < TRIES && nomem; i++) {
		arm(true);
		errno = 0;
		err = call(x, peer, arg);
		arm(false);
		nomem = err == ENOMEM || (err && err == info->nomem_too);
		if (!err) {
			t->ok++;
		} else if (nomem) {
			t->nomem++;
		} else {
			t->other++;
			t->other_err = err;
		}
	}
	if (nomem) {
		t->unarmed++;
		err = call(x, peer, arg);
	}
	if (err)
		diag("%s (%s): %s", info->name, x->dev.name, strerror(err));
	return err;
}

static int do_open(struct end *x, struct end *peer, int arg)
{
	(void)peer;
	(void)arg;
	x->dev.ctx = ibv_open_device(x->device);
	return rc_ptr_err(x->dev.ctx);
}

static int do_pd(struct end *x, struct end *peer, int arg)
{
	(void)peer;
	(void)arg;
	x->dev.pd = ibv_alloc_pd(x->dev.ctx);
	return rc_ptr_err(x->dev.pd);
}

/* arg: 0 the send CQ, 1 the receive CQ */
static int do_cq(struct end *x, struct end *peer, int arg)
{
	struct ibv_cq **cq = arg ? &x->e.rcq : &x->e.scq;

	(void)peer;
	*cq = ibv_create_cq(x->dev.ctx, RC_CQE, NULL, NULL, 0);
	return rc_ptr_err(*cq);
}

static int do_srq(struct end *x, struct end *peer, int arg)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = RC_WR, .max_sge = RC_SGE },
	};

	(void)peer;
	(void)arg;
	x->e.srq = ibv_create_srq(x->dev.pd, &sa);
	return rc_ptr_err(x->e.srq);
}

static int do_qp(struct end *x, struct end *peer, int arg)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.send_cq = x->e.scq,
		.recv_cq = x->e.rcq,
		.srq = x->e.srq,
		.cap = {
			.max_send_wr = RC_WR,
			.max_send_sge = RC_SGE,
			.max_inline_data = RC_INLINE_BYTES,
		},
	};

	(void)peer;
	(void)arg;
	x->e.qp = ibv_create_qp(x->dev.pd, &init);
	return rc_ptr_err(x->e.qp);
}

static int do_mr(struct end *x, struct end *peer, int arg)
{
	(void)peer;
	(void)arg;
	x->mr = ibv_reg_mr(x->dev.pd, x->buf, BUF_BYTES, RC_ACCESS_ALL);
	return rc_ptr_err(x->mr);
}

/*
 * arg: the state to go to. A modify that fails must leave the QP in its
 * state (asked without failures): EPROTO if not.
 */
static int do_modify(struct end *x, struct end *peer, int arg)
{
	int err, now;

	switch (arg) {
	case IBV_QPS_INIT:
		err = rc_modify_init(&x->e, &x->conn);
		break;
	case IBV_QPS_RTR:
		err = rc_modify_rtr(&x->e, &x->conn, &peer->e, &peer->conn);
		break;
	default:
		err = rc_modify_rts(&x->e, &x->conn);
		break;
	}
	if (!err) {
		x->state = arg;
		return 0;
	}
	arm(false);
	now = rc_qp_state(x->e.qp);
	arm(true);
	return now == x->state ? err : EPROTO;
}

/* arg: which object, in the order they go */
enum { D_QP, D_SRQ, D_MR, D_SCQ, D_RCQ, D_PD, NR_DESTROYS };

static int do_destroy(struct end *x, struct end *peer, int arg)
{
	void **obj[NR_DESTROYS] = {
		[D_QP] = (void **)&x->e.qp,
		[D_SRQ] = (void **)&x->e.srq,
		[D_MR] = (void **)&x->mr,
		[D_SCQ] = (void **)&x->e.scq,
		[D_RCQ] = (void **)&x->e.rcq,
		[D_PD] = (void **)&x->dev.pd,
	};
	int ret;

	(void)peer;
	if (!*obj[arg])
		return 0;
	switch (arg) {
	case D_QP:
		ret = ibv_destroy_qp(x->e.qp);
		break;
	case D_SRQ:
		ret = ibv_destroy_srq(x->e.srq);
		break;
	case D_MR:
		ret = ibv_dereg_mr(x->mr);
		break;
	case D_SCQ:
		ret = ibv_destroy_cq(x->e.scq);
		break;
	case D_RCQ:
		ret = ibv_destroy_cq(x->e.rcq);
		break;
	default:
		ret = ibv_dealloc_pd(x->dev.pd);
		break;
	}
	if (!ret)
		*obj[arg] = NULL;
	return rc_verb_err(ret);
}

/* make() - one end's objects, the QP in Reset */
static int make(struct end *x)
{
	const char *name = x->dev.name;

	memset(&x->dev, 0, sizeof(x->dev));
	memset(&x->e, 0, sizeof(x->e));
	x->dev.name = name;
	x->dev.gid_index = -1;
	x->e.dev = &x->dev;
	x->state = IBV_QPS_RESET;
	return attempt(V_OPEN, do_open, x, NULL, 0) ?:
	       rc_verb_err(ibv_query_device(x->dev.ctx, &x->dev.attr)) ?:
	       rc_verb_err(ibv_query_port(x->dev.ctx, RC_PORT, &x->dev.port)) ?:
	       rc_find_gid(&x->dev) ?:
	       attempt(V_PD, do_pd, x, NULL, 0) ?:
	       attempt(V_CQ, do_cq, x, NULL, 0) ?:
	       attempt(V_CQ, do_cq, x, NULL, 1) ?:
	       attempt(V_SRQ, do_srq, x, NULL, 0) ?:
	       attempt(V_QP, do_qp, x, NULL, 0) ?:
	       attempt(V_MR, do_mr, x, NULL, 0);
}

/* connect() - both QPs to RTS, as rc_connect() but every modify failing */
static int connect_ends(struct end *a, struct end *b)
{
	return attempt(V_MODIFY, do_modify, a, b, IBV_QPS_INIT) ?:
	       attempt(V_MODIFY, do_modify, b, a, IBV_QPS_INIT) ?:
	       attempt(V_MODIFY, do_modify, a, b, IBV_QPS_RTR) ?:
	       attempt(V_MODIFY, do_modify, b, a, IBV_QPS_RTR) ?:
	       attempt(V_MODIFY, do_modify, a, b, IBV_QPS_RTS) ?:
	       attempt(V_MODIFY, do_modify, b, a, IBV_QPS_RTS);
}

/*
 * do_post() - the round's RDMA WRITE of @x's buffer into @peer's. librxe
 * writes the WQE into the ring before the doorbell: one whose post failed
 * with ENOMEM is there too, and goes with the next doorbell.
 */
static int do_post(struct end *x, struct end *peer, int arg)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)x->buf,
		.length = MSG_BYTES,
		.lkey = x->mr->lkey,
	};
	struct ibv_send_wr wr = rc_send_wr(0, IBV_WR_RDMA_WRITE, &sge, 1,
					   IBV_SEND_SIGNALED,
					   (uintptr_t)peer->buf,
					   peer->mr->rkey), *bad;

	(void)arg;
	x->posted++;
	return ibv_post_send(x->e.qp, &wr, &bad);
}

/*
 * write_round() - @a's buffer into @b's by RDMA WRITE, posted with
 * failures on: the doorbell runs the engine in this task, so the
 * allocations of the packets fail too (srdma counts them in pkt_nomem and
 * tries again). Whether every WQE posted completed and the bytes arrived.
 */
static bool write_round(struct end *a, struct end *b, unsigned int round)
{
	struct ibv_wc wc[TRIES + 1];
	size_t first, bad;
	int n, i;

	rc_fill(a->buf, MSG_BYTES, SEED + round);
	memset(b->buf, 0, MSG_BYTES);
	a->posted = 0;
	if (attempt(V_POST, do_post, a, b, 0))
		return false;
	n = rc_poll(a->e.scq, wc, a->posted, a->posted, POLL_TIMEOUT_MS);
	if (n != (int)a->posted) {
		diag("round %u: %d of %u WRITEs completed", round, n, a->posted);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			diag("round %u: a WRITE completed with %s", round,
			     ibv_wc_status_str(wc[i].status));
			return false;
		}
	}
	first = rc_mismatch(b->buf, MSG_BYTES, SEED + round, &bad);
	if (bad) {
		diag("round %u: %zu bytes of the WRITE are wrong, the first at %zu",
		     round, bad, first);
		return false;
	}
	return true;
}

/* destroy() - what make() made, each destroy failing as the rest */
static int destroy(struct end *x)
{
	int i, err = 0;

	for (i = 0; i < NR_DESTROYS; i++)
		err = attempt(V_DESTROY, do_destroy, x, NULL, i) ?: err;
	if (x->dev.ctx)
		err = rc_verb_err(ibv_close_device(x->dev.ctx)) ?: err;
	x->dev.ctx = NULL;
	return err;
}

static struct ibv_device *find_device(struct ibv_device **list, int n,
				      const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int rounds = DEFAULT_ROUNDS, r, written = 0;
	struct end ends[2] = {};
	struct ibv_device **list;
	int opt, n, i, v;
	bool made = true;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r')
			goto usage;
		rounds = strtoul(optarg, NULL, 0);
	}
	if (argc - optind != 2 || !rounds)
		goto usage;
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(RUN_TIMEOUT_S);

	list = ibv_get_device_list(&n);
	for (i = 0; i < 2; i++) {
		ends[i].dev.name = argv[optind + i];
		ends[i].device = list ? find_device(list, n, argv[optind + i]) : NULL;
		ends[i].buf = aligned_alloc(RC_PAGE_BYTES, BUF_BYTES);
		if (!ends[i].device || !ends[i].buf) {
			printf("Bail out! %s: no such device\n", argv[optind + i]);
			return 2;
		}
		rc_conn_default(&ends[i].conn, 0x100 * (i + 1));
		ends[i].conn.max_rd_atomic = RC_RD_ATOMIC;
		ends[i].conn.max_dest_rd_atomic = RC_RD_ATOMIC;
	}
	make_it_fail = fail_inject_open();
	if (make_it_fail < 0)
		return 2;

	for (r = 0; r < rounds && made; r++) {
		made = !make(&ends[0]) && !make(&ends[1]) &&
		       !connect_ends(&ends[0], &ends[1]);
		if (made && write_round(&ends[0], &ends[1], r))
			written++;
		for (i = 0; i < 2; i++)
			if (destroy(&ends[i]))
				made = false;
	}
	ibv_free_device_list(list);

	for (v = 0; v < NR_VERBS; v++) {
		struct tally *t = &tally[v];

		check(t->ok && (t->nomem || verbs[v].need_not_fail) && !t->other,
		      "%s with allocations failing: %u succeeded, %u out of memory, %u other errors%s%s; %u made without failures after %u tries",
		      verbs[v].name, t->ok, t->nomem, t->other,
		      t->other ? ", the last " : "",
		      t->other ? strerror(t->other_err) : "", t->unarmed, TRIES);
	}
	check(made && r == rounds, "%u of %u rounds made and destroyed every object",
	      r, rounds);
	check(written == rounds, "%u of %u rounds' RDMA WRITEs placed their bytes",
	      written, rounds);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s [-r ROUNDS] DEVICE PEER_DEVICE\n", argv[0]);
	return 2;
}
