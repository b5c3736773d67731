// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ring_scribble: a user process writes garbage into the queues it shares
 * with the kernel; the kernel must not crash, leak or hang.
 *
 *   ring_scribble [DEVICE [SEED [ITERATIONS]]]
 *
 * librxe maps the CQ, SQ, RQ and SRQ rings of its objects from the uverbs
 * device file: struct rxe_queue_buf, a header with the element size and
 * index mask, the producer and consumer indices on cache lines of their
 * own, then the elements. The program finds each ring by comparing
 * /proc/self/maps before and after creating its object, then, driven by a
 * pseudo-random generator with a fixed seed, interleaves writes of random
 * values over the indices, the header and the elements with every verb that
 * makes the kernel read a ring: posting sends and receives (through librxe
 * and with raw uverbs write() commands, the doorbell included), polling and
 * arming CQs, moving QPs to every state, resizing CQs and SRQs.
 *
 * librxe trusts the rings it owns: before a call that has librxe itself
 * read a ring, the header and indices are put back in range, so that the
 * garbage reaches the kernel and not the library. The work runs in rounds,
 * each in a child process with a device context of its own; a child killed
 * by SIGSEGV is reported and accepted, since what is tested is the kernel.
 * Every other round leaves its objects to the kernel's clean-up at exit;
 * the others, and the last, destroy them. The rounds of the second half
 * run THREADS threads on the one context and its objects at once, with a
 * generator each: the kernel then reads rings while another thread
 * scribbles over them, and a round that leaves its objects to the exit
 * ends while the other threads are still calling. (Only what makes librxe
 * itself read a ring waits for scribbles to pass, and remaps wait for
 * everything: librxe trusts its rings. Destroying an object another thread
 * uses would test librxe, not the kernel, so destroys wait for the other
 * threads.) A round that does not end within
 * ROUND_TIMEOUT_S is a failure (a hang in the kernel), and so is one whose
 * calls entered the kernel fewer times than a fifth of its iterations (the
 * garbage made librxe refuse nearly everything: the kernel was not tested).
 *
 * Before the rounds, three directed checks build ring contents that random
 * garbage rarely does: an RDMA READ marked inline whose num_sge is
 * 0xffffffff, a producer index moved back over WQEs still waiting for
 * their ACK with a new WQE written into the first one's slot, and a
 * receive WQE whose num_sge is 0xffffffff. Each must end in an error
 * completion (the last in IBV_WC_LOC_QP_OP_ERR), with the kernel unharmed.
 *
 * Output is TAP: a line per directed check, per round and per final check.
 * Exit status 0 when every check passed, every round ended and the device
 * still works afterwards.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "tap.h"
#include "rc_pair.h"
#include "rxe_ring.h"

#define DEFAULT_DEVICE		"srdma0"
#define DEFAULT_SEED		20261122ULL
#define DEFAULT_ITERATIONS	4000
#define ROUNDS			8
#define THREADS			3	/* in each round of the second half */
#define MAX_THREADS		8
#define ROUND_TIMEOUT_S		60	/* a round that takes longer hangs */
#define MIN_KERNEL_CALLS_DIV	5	/* of a round's iterations, at least */
#define KILL_GRACE_S		10	/* for a killed child to be reaped */
#define FLUSH_TIMEOUT_MS	2000
#define PORT			1
#define PEER_IPV4		"198.18.0.2"

#define BUF_BYTES		65536
#define CQ_CQE			64
#define CQ_CQE_MAX_RESIZE	512
#define SRQ_WR			32
#define SRQ_WR_MAX_RESIZE	256
#define QP_WR			16
#define QP_SGE			2
#define QP_INLINE_BYTES		64
#define QP_QKEY			0x1ee7c0deu
#define QP_DEST_QPN		0xabcdu		/* no such QP */
#define MAX_CHAIN		4	/* work requests per post */
#define MAX_POLL		16
#define MAX_SCRIBBLE_BYTES	64
#define RAW_BYTES		256	/* a raw uverbs command */
#define QUERY_MASK		(IBV_QP_STATE | IBV_QP_CAP | IBV_QP_AV | \
				 IBV_QP_SQ_PSN | IBV_QP_RQ_PSN)

/* Output */

/* A small generator (xorshift64*), seeded through splitmix64 */

struct rng {
	unsigned long long s;
};

/* a worker thread's own generator; NULL in the round's first thread */
static __thread struct rng *worker_rng;

static void rng_seed(struct rng *r, unsigned long long seed)
{
	unsigned long long z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r->s = (z ^ (z >> 31)) | 1;
}

static unsigned long long rnd64(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

static unsigned int rnd32(struct rng *r)
{
	return rnd64(r) >> 32;
}

/* rnd_below() - uniform enough in [0, n) for n > 0 */
static unsigned int rnd_below(struct rng *r, unsigned int n)
{
	return (unsigned int)((rnd64(r) >> 32) * n >> 32);
}

static bool one_in(struct rng *r, unsigned int n)
{
	return rnd_below(r, n) == 0;
}

static void rnd_bytes(struct rng *r, void *p, size_t len)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = rnd64(r) >> 56;
}

/* A value likely to hurt an index or a size */
static unsigned int nasty32(struct rng *r, unsigned int mask)
{
	static const unsigned int fixed[] = {
		0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe,
		0x10000, 0xffff,
	};

	switch (rnd_below(r, 6)) {
	case 0:
		return fixed[rnd_below(r, ARRAY_SIZE(fixed))];
	case 1:
		return mask;
	case 2:
		return mask + 1;
	case 3:
		return rnd_below(r, mask + 1);
	case 4:
		return mask + 1 + rnd_below(r, 64);
	default:
		return rnd32(r);
	}
}

/* Rings, found in /proc/self/maps */

static bool maps_have(const struct maps *maps, const struct mapping *m)
{
	unsigned int i;

	for (i = 0; i < maps->n; i++)
		if (maps->m[i].start == m->start && maps->m[i].end == m->end &&
		    maps->m[i].pgoff == m->pgoff)
			return true;
	return false;
}

/* new_maps() - the mappings in @after and not in @before, at most @max */
static unsigned int new_maps(const struct maps *before,
			     const struct maps *after, struct mapping *out,
			     unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < after->n; i++)
		if (!maps_have(before, &after->m[i]) && n < max)
			out[n++] = after->m[i];
	return n;
}

enum ring_kind { RING_CQ, RING_SQ, RING_RQ, RING_SRQ };

static const char *const ring_kind_names[] = {
	[RING_CQ] = "CQ",
	[RING_SQ] = "SQ",
	[RING_RQ] = "RQ",
	[RING_SRQ] = "SRQ",
};

struct ring {
	enum ring_kind kind;
	bool live;			/* mapped, and librxe may read it */
	struct mapping map;
	struct rxe_queue_buf *q;
	unsigned int log2_elem;		/* the header as the kernel wrote it */
	unsigned int mask;
};

static size_t ring_bytes(const struct ring *ring)
{
	return ring->map.end - ring->map.start;
}

/* ring_attach() - take @m as @ring's mapping; false if it cannot be one */
static bool ring_attach(struct ring *ring, const struct mapping *m)
{
	struct rxe_queue_buf *q = (struct rxe_queue_buf *)m->start;
	unsigned long long data_bytes;

	ring->map = *m;
	ring->q = q;
	ring->log2_elem = q->log2_elem_size;
	ring->mask = q->index_mask;
	data_bytes = ((unsigned long long)ring->mask + 1) << ring->log2_elem;
	ring->live = ring->log2_elem < 32 &&
		     sizeof(*q) + data_bytes <= ring_bytes(ring);
	if (!ring->live)
		diag("%s ring at %#lx: log2_elem_size %u index_mask %#x do not fit its %zu bytes",
		     ring_kind_names[ring->kind], m->start, ring->log2_elem,
		     ring->mask, ring_bytes(ring));
	return ring->live;
}

/* ring_sane() - put the header and indices back in range for librxe */
static void ring_sane(struct ring *ring)
{
	struct rxe_queue_buf *q = ring->q;

	q->log2_elem_size = ring->log2_elem;
	q->index_mask = ring->mask;
	q->producer_index &= ring->mask;
	q->consumer_index &= ring->mask;
}

/* The objects of a round */

enum { QP_RC, QP_UC, QP_UD, QP_RC_SRQ, N_QPS };

static const struct {
	const char *name;
	enum ibv_qp_type type;
	bool srq;
	unsigned int cq_send, cq_recv;
} qp_defs[N_QPS] = {
	[QP_RC] = { "RC", IBV_QPT_RC, false, 0, 1 },
	[QP_UC] = { "UC", IBV_QPT_UC, false, 0, 0 },
	[QP_UD] = { "UD", IBV_QPT_UD, false, 1, 1 },
	[QP_RC_SRQ] = { "RC+SRQ", IBV_QPT_RC, true, 1, 0 },
};

enum op {
	OP_SCRIBBLE_INDEX,
	OP_SCRIBBLE_HEADER,
	OP_SCRIBBLE_ELEMENT,
	OP_SCRIBBLE_ANYWHERE,
	OP_POST_SEND,
	OP_POST_RECV,
	OP_POST_SRQ_RECV,
	OP_POLL_CQ,
	OP_NOTIFY_CQ,
	OP_MODIFY_QP,
	OP_RESIZE_CQ,
	OP_MODIFY_SRQ,
	OP_DOORBELL,
	OP_RAW_POST,
	OP_QUERY,
	OP_CQ_EVENTS,
	N_OPS
};

/* kernel: the call enters the kernel (a uverbs command), which then reads
 * what the rings hold; the others stay in librxe
 */
static const struct {
	const char *name;
	unsigned int weight;
	bool kernel;
} op_defs[N_OPS] = {
	[OP_SCRIBBLE_INDEX] = { "scribble index", 14, false },
	[OP_SCRIBBLE_HEADER] = { "scribble header", 4, false },
	[OP_SCRIBBLE_ELEMENT] = { "scribble element", 12, false },
	[OP_SCRIBBLE_ANYWHERE] = { "scribble anywhere", 4, false },
	[OP_POST_SEND] = { "ibv_post_send", 12, true },
	[OP_POST_RECV] = { "ibv_post_recv", 8, false },
	[OP_POST_SRQ_RECV] = { "ibv_post_srq_recv", 5, false },
	[OP_POLL_CQ] = { "ibv_poll_cq", 8, false },
	[OP_NOTIFY_CQ] = { "ibv_req_notify_cq", 4, true },
	[OP_MODIFY_QP] = { "ibv_modify_qp", 10, true },
	[OP_RESIZE_CQ] = { "ibv_resize_cq", 3, true },
	[OP_MODIFY_SRQ] = { "ibv_modify_srq", 3, true },
	[OP_DOORBELL] = { "raw doorbell", 8, true },
	[OP_RAW_POST] = { "raw post command", 4, true },
	[OP_QUERY] = { "ibv_query_qp/srq", 2, true },
	[OP_CQ_EVENTS] = { "ibv_get_cq_event", 1, false },
};

struct round {
	struct rng rng;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;
	struct ibv_comp_channel *ch;	/* of cq[1] */
	struct ibv_cq *cq[2];
	struct ring cq_ring[2];
	struct ibv_srq *srq;
	struct ring srq_ring;
	struct ibv_ah *ah;
	struct ibv_qp *qp[N_QPS];
	struct ring sq[N_QPS];
	struct ring rq[N_QPS];
	int sgid_index;
	union ibv_gid sgid, dgid;
	unsigned int calls[N_OPS];
	unsigned int failed[N_OPS];	/* calls that returned an error */
	int last_err[N_OPS];		/* the errno of the last of them */
	unsigned int skipped[N_OPS];	/* no live ring or object for them */
	/*
	 * Held shared by calls that have librxe read a ring (put in range
	 * just before), exclusively by scribbles and remaps: librxe must not
	 * read garbage, the kernel may.
	 */
	pthread_rwlock_t ring_lock;
};

/* the generator of the calling thread */
static struct rng *rng_of(struct round *r)
{
	return worker_rng ? worker_rng : &r->rng;
}

/* find_sgid() - an IPv4 RoCE v2 GID of the port, for address vectors */
static int find_sgid(struct round *r)
{
	struct ibv_gid_entry e;
	struct ibv_port_attr port;
	int i;

	if (ibv_query_port(r->ctx, PORT, &port))
		return -1;
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(r->ctx, PORT, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    IN6_IS_ADDR_V4MAPPED((struct in6_addr *)e.gid.raw)) {
			r->sgid = e.gid;
			return i;
		}
	}
	return -1;
}

static void fill_av(struct round *r, struct ibv_ah_attr *av, bool loopback)
{
	memset(av, 0, sizeof(*av));
	av->is_global = 1;
	av->port_num = PORT;
	av->grh.dgid = loopback ? r->sgid : r->dgid;
	av->grh.sgid_index = r->sgid_index;
	av->grh.hop_limit = 64;
}

/* mapped_by() - the uverbs mappings made since @before, at most @max */
static unsigned int mapped_by(const struct maps *before, struct mapping *out,
			      unsigned int max)
{
	struct maps after;

	read_maps(&after);
	return new_maps(before, &after, out, max);
}

static bool create_cq(struct round *r, unsigned int i)
{
	struct mapping m;
	struct maps before;

	r->cq_ring[i].kind = RING_CQ;
	read_maps(&before);
	r->cq[i] = ibv_create_cq(r->ctx, CQ_CQE, NULL, i ? r->ch : NULL, 0);
	if (!r->cq[i]) {
		diag("ibv_create_cq: %s", strerror(errno));
		return false;
	}
	if (mapped_by(&before, &m, 1) != 1) {
		diag("ibv_create_cq: no new mapping of the uverbs device");
		return false;
	}
	return ring_attach(&r->cq_ring[i], &m);
}

static bool create_srq(struct round *r)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = SRQ_WR, .max_sge = QP_SGE },
	};
	struct maps before;
	struct mapping m;

	r->srq_ring.kind = RING_SRQ;
	read_maps(&before);
	r->srq = ibv_create_srq(r->pd, &init);
	if (!r->srq) {
		diag("ibv_create_srq: %s", strerror(errno));
		return false;
	}
	if (mapped_by(&before, &m, 1) != 1) {
		diag("ibv_create_srq: no new mapping of the uverbs device");
		return false;
	}
	return ring_attach(&r->srq_ring, &m);
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	return ret < 0 ? errno : ret;
}

/* to_init() - RESET -> INIT with the attributes the type requires */
static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = PORT,
		.qkey = QP_QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return modify(qp, &a, mask);
}

/*
 * identify_rq() - which of a new QP's two mappings is the receive queue:
 * the one whose producer index moves when librxe posts a receive
 */
static int identify_rq(struct round *r, unsigned int i,
		       const struct mapping m[2])
{
	const struct rxe_queue_buf *q0 = (void *)m[0].start;
	const struct rxe_queue_buf *q1 = (void *)m[1].start;
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf,
		.length = 16,
		.lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	unsigned int p0 = q0->producer_index, p1 = q1->producer_index;
	int err;

	err = to_init(r->qp[i]);
	if (!err)
		err = ibv_post_recv(r->qp[i], &wr, &bad);
	if (err) {
		diag("%s QP: cannot post a receive to find its RQ: %s",
		     qp_defs[i].name, strerror(err));
		return -1;
	}
	if (q0->producer_index != p0 && q1->producer_index == p1)
		return 0;
	if (q1->producer_index != p1 && q0->producer_index == p0)
		return 1;
	diag("%s QP: the posted receive moved no single producer index",
	     qp_defs[i].name);
	return -1;
}

static bool create_qp(struct round *r, unsigned int i)
{
	struct ibv_qp_init_attr init = {
		.send_cq = r->cq[qp_defs[i].cq_send],
		.recv_cq = r->cq[qp_defs[i].cq_recv],
		.srq = qp_defs[i].srq ? r->srq : NULL,
		.cap = {
			.max_send_wr = QP_WR,
			.max_recv_wr = QP_WR,
			.max_send_sge = QP_SGE,
			.max_recv_sge = QP_SGE,
			.max_inline_data = QP_INLINE_BYTES,
		},
		.qp_type = qp_defs[i].type,
	};
	unsigned int want = qp_defs[i].srq ? 1 : 2;
	struct mapping m[2];
	struct maps before;
	int rq;

	r->sq[i].kind = RING_SQ;
	r->rq[i].kind = RING_RQ;
	read_maps(&before);
	r->qp[i] = ibv_create_qp(r->pd, &init);
	if (!r->qp[i]) {
		diag("ibv_create_qp %s: %s", qp_defs[i].name, strerror(errno));
		return false;
	}
	if (mapped_by(&before, m, 2) != want) {
		diag("ibv_create_qp %s: not %u new mappings", qp_defs[i].name,
		     want);
		return false;
	}
	if (want == 1)
		return ring_attach(&r->sq[i], &m[0]);
	rq = identify_rq(r, i, m);
	if (rq < 0)
		return false;
	return ring_attach(&r->rq[i], &m[rq]) &&
	       ring_attach(&r->sq[i], &m[!rq]);
}

static bool setup(struct round *r, const char *dev)
{
	struct ibv_ah_attr av;
	unsigned int i;

	r->ctx = open_device(dev);
	if (!r->ctx) {
		diag("cannot open %s: %s", dev, strerror(errno));
		return false;
	}
	r->sgid_index = find_sgid(r);
	if (r->sgid_index < 0) {
		diag("%s: no IPv4 RoCE v2 GID", dev);
		return false;
	}
	r->dgid.raw[10] = 0xff;
	r->dgid.raw[11] = 0xff;
	inet_pton(AF_INET, PEER_IPV4, &r->dgid.raw[12]);
	r->buf = calloc(1, BUF_BYTES);
	r->pd = ibv_alloc_pd(r->ctx);
	if (r->pd && r->buf)
		r->mr = ibv_reg_mr(r->pd, r->buf, BUF_BYTES,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	r->ch = ibv_create_comp_channel(r->ctx);
	if (!r->mr || !r->ch) {
		diag("no PD, MR or completion channel: %s", strerror(errno));
		return false;
	}
	/* events are drained without blocking */
	fcntl(r->ch->fd, F_SETFL, fcntl(r->ch->fd, F_GETFL) | O_NONBLOCK);
	fill_av(r, &av, false);
	r->ah = ibv_create_ah(r->pd, &av);
	if (!r->ah) {
		diag("ibv_create_ah: %s", strerror(errno));
		return false;
	}
	if (!create_cq(r, 0) || !create_cq(r, 1) || !create_srq(r))
		return false;
	for (i = 0; i < N_QPS; i++)
		if (!create_qp(r, i))
			return false;
	return true;
}

/* drain_events() - read and ack the completion events there are */
static void drain_events(struct round *r)
{
	struct ibv_cq *cq;
	void *ctx;

	while (!ibv_get_cq_event(r->ch, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
}

static bool teardown(struct round *r)
{
	bool ok = true;
	unsigned int i;
	int err;

	for (i = 0; i < N_QPS; i++) {
		err = r->qp[i] ? ibv_destroy_qp(r->qp[i]) : 0;
		if (err) {
			diag("ibv_destroy_qp %s: %s", qp_defs[i].name,
			     strerror(err));
			ok = false;
		}
	}
	if (r->ah && ibv_destroy_ah(r->ah)) {
		diag("ibv_destroy_ah failed");
		ok = false;
	}
	if (r->srq && ibv_destroy_srq(r->srq)) {
		diag("ibv_destroy_srq failed");
		ok = false;
	}
	if (r->ch)
		drain_events(r);
	for (i = 0; i < 2; i++) {
		if (r->cq[i] && ibv_destroy_cq(r->cq[i])) {
			diag("ibv_destroy_cq %u failed", i);
			ok = false;
		}
	}
	if (r->ch && ibv_destroy_comp_channel(r->ch)) {
		diag("ibv_destroy_comp_channel failed");
		ok = false;
	}
	if (r->mr && ibv_dereg_mr(r->mr)) {
		diag("ibv_dereg_mr failed");
		ok = false;
	}
	if (r->pd && ibv_dealloc_pd(r->pd)) {
		diag("ibv_dealloc_pd failed");
		ok = false;
	}
	if (r->ctx && ibv_close_device(r->ctx)) {
		diag("ibv_close_device failed");
		ok = false;
	}
	free(r->buf);
	return ok;
}

/* The operations */

/* pick_ring() - any ring still mapped, or NULL */
static struct ring *pick_ring(struct round *r)
{
	struct ring *all[2 + 1 + 2 * N_QPS];
	unsigned int i, n = 0;

	for (i = 0; i < 2; i++)
		if (r->cq_ring[i].live)
			all[n++] = &r->cq_ring[i];
	if (r->srq_ring.live)
		all[n++] = &r->srq_ring;
	for (i = 0; i < N_QPS; i++) {
		if (r->sq[i].live)
			all[n++] = &r->sq[i];
		if (r->rq[i].live)
			all[n++] = &r->rq[i];
	}
	return n ? all[rnd_below(rng_of(r), n)] : NULL;
}

static bool scribble(struct round *r, enum op op)
{
	struct ring *ring;
	struct rxe_queue_buf *q;
	size_t off, len, elem;

	pthread_rwlock_wrlock(&r->ring_lock);
	ring = pick_ring(r);
	if (!ring) {
		pthread_rwlock_unlock(&r->ring_lock);
		return false;
	}
	q = ring->q;
	switch (op) {
	case OP_SCRIBBLE_INDEX:
		if (one_in(rng_of(r), 2))
			q->producer_index = nasty32(rng_of(r), ring->mask);
		else
			q->consumer_index = nasty32(rng_of(r), ring->mask);
		break;
	case OP_SCRIBBLE_HEADER:
		if (one_in(rng_of(r), 2))
			q->log2_elem_size = nasty32(rng_of(r), 31);
		else
			q->index_mask = nasty32(rng_of(r), ring->mask);
		break;
	case OP_SCRIBBLE_ELEMENT:
		elem = (size_t)1 << ring->log2_elem;
		off = (size_t)rnd_below(rng_of(r), ring->mask + 1) << ring->log2_elem;
		len = one_in(rng_of(r), 2) ? elem : rnd_below(rng_of(r), elem) + 1;
		rnd_bytes(rng_of(r), q->data + off, len);
		break;
	default:
		off = rnd_below(rng_of(r), ring_bytes(ring));
		len = rnd_below(rng_of(r), MAX_SCRIBBLE_BYTES) + 1;
		if (off + len > ring_bytes(ring))
			len = ring_bytes(ring) - off;
		rnd_bytes(rng_of(r), (unsigned char *)q + off, len);
		break;
	}
	pthread_rwlock_unlock(&r->ring_lock);
	return true;
}

static unsigned int rnd_lkey(struct round *r)
{
	return one_in(rng_of(r), 3) ? rnd32(rng_of(r)) : r->mr->lkey;
}

static void rnd_sge(struct round *r, struct ibv_sge *sge)
{
	sge->lkey = rnd_lkey(r);
	switch (rnd_below(rng_of(r), 4)) {
	case 0:
		sge->addr = rnd64(rng_of(r));
		sge->length = rnd32(rng_of(r));
		break;
	case 1:		/* across the end of the MR */
		sge->addr = (uintptr_t)r->buf + BUF_BYTES - 8;
		sge->length = 64;
		break;
	default:
		sge->addr = (uintptr_t)r->buf + rnd_below(rng_of(r), BUF_BYTES);
		sge->length = rnd_below(rng_of(r), BUF_BYTES);
		break;
	}
}

/*
 * post_send() - a chain of random send WRs, most of them malformed: built
 * field by field on purpose, every union member and flag left as drawn
 */
static int post_send(struct round *r)
{
	static const enum ibv_wr_opcode opcodes[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV,
	};
	struct ibv_send_wr wr[MAX_CHAIN], *bad;
	struct ibv_sge sge[MAX_CHAIN][QP_SGE];
	unsigned int i = rnd_below(rng_of(r), N_QPS), n, k, j;
	struct ibv_qp *qp = r->qp[i];
	int err;

	if (!r->sq[i].live)
		return -1;
	n = rnd_below(rng_of(r), MAX_CHAIN) + 1;
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < n; k++) {
		wr[k].wr_id = rnd64(rng_of(r));
		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
		wr[k].sg_list = sge[k];
		wr[k].num_sge = rnd_below(rng_of(r), QP_SGE + 1);
		for (j = 0; j < QP_SGE; j++)
			rnd_sge(r, &sge[k][j]);
		wr[k].opcode = qp->qp_type == IBV_QPT_UD ?
			IBV_WR_SEND : opcodes[rnd_below(rng_of(r), ARRAY_SIZE(opcodes))];
		wr[k].send_flags = rnd32(rng_of(r)) &
			(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE);
		if (one_in(rng_of(r), 4)) {
			/* librxe copies inline data from the SGEs: keep them real */
			wr[k].send_flags |= IBV_SEND_INLINE;
			for (j = 0; j < QP_SGE; j++) {
				sge[k][j].addr = (uintptr_t)r->buf;
				sge[k][j].length = rnd_below(rng_of(r),
							     QP_INLINE_BYTES / QP_SGE + 1);
			}
		}
		wr[k].imm_data = rnd32(rng_of(r));
		wr[k].wr.rdma.remote_addr = one_in(rng_of(r), 2) ?
			rnd64(rng_of(r)) : (uintptr_t)r->buf;
		wr[k].wr.rdma.rkey = one_in(rng_of(r), 2) ?
			rnd32(rng_of(r)) : r->mr->rkey;
		if (wr[k].opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    wr[k].opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr[k].wr.atomic.remote_addr = (uintptr_t)r->buf;
			wr[k].wr.atomic.rkey = r->mr->rkey;
			wr[k].wr.atomic.compare_add = rnd64(rng_of(r));
			wr[k].wr.atomic.swap = rnd64(rng_of(r));
		}
		if (qp->qp_type == IBV_QPT_UD) {
			wr[k].wr.ud.ah = r->ah;
			wr[k].wr.ud.remote_qpn = one_in(rng_of(r), 2) ?
				rnd32(rng_of(r)) : r->qp[QP_UD]->qp_num;
			wr[k].wr.ud.remote_qkey = QP_QKEY;
		}
	}
	pthread_rwlock_rdlock(&r->ring_lock);
	ring_sane(&r->sq[i]);
	err = ibv_post_send(qp, wr, &bad);
	pthread_rwlock_unlock(&r->ring_lock);
	return err;
}

/* post_recv_list() - a chain of random receives, like post_send()'s */
static int post_recv_list(struct round *r, struct ibv_qp *qp,
			  struct ibv_srq *srq, struct ring *ring)
{
	struct ibv_recv_wr wr[MAX_CHAIN], *bad;
	struct ibv_sge sge[MAX_CHAIN][QP_SGE];
	unsigned int n, k, j;
	int err;

	n = rnd_below(rng_of(r), MAX_CHAIN) + 1;
	for (k = 0; k < n; k++) {
		wr[k].wr_id = rnd64(rng_of(r));
		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
		wr[k].sg_list = sge[k];
		wr[k].num_sge = rnd_below(rng_of(r), QP_SGE + 1);
		for (j = 0; j < QP_SGE; j++)
			rnd_sge(r, &sge[k][j]);
	}
	pthread_rwlock_rdlock(&r->ring_lock);
	ring_sane(ring);
	err = srq ? ibv_post_srq_recv(srq, wr, &bad) :
		    ibv_post_recv(qp, wr, &bad);
	pthread_rwlock_unlock(&r->ring_lock);
	return err;
}

static int post_recv(struct round *r)
{
	unsigned int i = rnd_below(rng_of(r), N_QPS);

	if (!r->rq[i].live)
		return -1;
	return post_recv_list(r, r->qp[i], NULL, &r->rq[i]);
}

static int post_srq_recv(struct round *r)
{
	if (!r->srq_ring.live)
		return -1;
	return post_recv_list(r, NULL, r->srq, &r->srq_ring);
}

static int poll_cq(struct round *r)
{
	unsigned int i = rnd_below(rng_of(r), 2);
	struct ibv_wc wc[MAX_POLL];
	int n;

	if (!r->cq_ring[i].live)
		return -1;
	pthread_rwlock_rdlock(&r->ring_lock);
	ring_sane(&r->cq_ring[i]);
	n = ibv_poll_cq(r->cq[i], rnd_below(rng_of(r), MAX_POLL) + 1, wc);
	pthread_rwlock_unlock(&r->ring_lock);
	return n < 0 ? -n : 0;	/* librxe never fails it */
}

static int notify_cq(struct round *r)
{
	unsigned int i = rnd_below(rng_of(r), 2);

	return ibv_req_notify_cq(r->cq[i], one_in(rng_of(r), 2));
}

/*
 * modify_qp() - to ERR, RESET or SQD, or walk from RESET to INIT, RTR and
 * RTS, or a transition with random attributes (the address vector kept
 * resolvable, since resolving one that is not waits for a timeout)
 */
static int modify_qp(struct round *r)
{
	static const enum ibv_qp_state simple[] = {
		IBV_QPS_ERR, IBV_QPS_RESET, IBV_QPS_SQD,
	};
	unsigned int i = rnd_below(rng_of(r), N_QPS);
	struct ibv_qp *qp = r->qp[i];
	struct ibv_qp_attr a;
	int err, mask;

	memset(&a, 0, sizeof(a));
	switch (rnd_below(rng_of(r), 4)) {
	case 0:
		a.qp_state = simple[rnd_below(rng_of(r), ARRAY_SIZE(simple))];
		return modify(qp, &a, IBV_QP_STATE);
	case 1:
		rnd_bytes(rng_of(r), &a, sizeof(a));
		a.qp_state %= IBV_QPS_ERR + 1;
		a.cur_qp_state %= IBV_QPS_ERR + 1;
		fill_av(r, &a.ah_attr, one_in(rng_of(r), 2));
		mask = rnd32(rng_of(r)) & ~IBV_QP_ALT_PATH;
		return modify(qp, &a, mask | IBV_QP_STATE);
	default:
		break;
	}
	a.qp_state = IBV_QPS_RESET;
	err = modify(qp, &a, IBV_QP_STATE);
	if (!err)
		err = to_init(qp);
	if (err || one_in(rng_of(r), 3))
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = one_in(rng_of(r), 2) ? QP_DEST_QPN :
		r->qp[rnd_below(rng_of(r), N_QPS)]->qp_num;
	a.rq_psn = rnd32(rng_of(r)) & 0xffffff;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	fill_av(r, &a.ah_attr, one_in(rng_of(r), 2));
	mask = IBV_QP_STATE;
	if (qp->qp_type != IBV_QPT_UD)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	err = modify(qp, &a, mask);
	if (err || one_in(rng_of(r), 3))
		return err;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = rnd32(rng_of(r)) & 0xffffff;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return modify(qp, &a, mask);
}

/*
 * remapped() - after a verb that may have replaced @ring's mapping (librxe
 * unmaps the old ring and maps the new one), follow it; @resized: the verb
 * succeeded
 */
static void remapped(struct ring *ring, const struct maps *before,
		     bool resized)
{
	struct mapping m;
	struct maps after;

	read_maps(&after);
	if (new_maps(before, &after, &m, 1) == 1) {
		ring_attach(ring, &m);
	} else if (!maps_have(&after, &ring->map)) {
		diag("%s ring unmapped and not mapped again",
		     ring_kind_names[ring->kind]);
		ring->live = false;
	} else if (resized) {
		/* mapped again where it was: read the new header */
		ring_attach(ring, &ring->map);
	}
}

static int resize_cq(struct round *r)
{
	unsigned int i = rnd_below(rng_of(r), 2);
	struct maps before;
	int err;

	pthread_rwlock_wrlock(&r->ring_lock);
	if (!r->cq_ring[i].live) {
		pthread_rwlock_unlock(&r->ring_lock);
		return -1;
	}
	read_maps(&before);
	err = ibv_resize_cq(r->cq[i], rnd_below(rng_of(r), CQ_CQE_MAX_RESIZE) + 1);
	remapped(&r->cq_ring[i], &before, !err);
	pthread_rwlock_unlock(&r->ring_lock);
	return err;
}

static int modify_srq(struct round *r)
{
	struct ibv_srq_attr a = {
		.max_wr = rnd_below(rng_of(r), SRQ_WR_MAX_RESIZE) + 1,
		.srq_limit = rnd_below(rng_of(r), SRQ_WR_MAX_RESIZE),
	};
	struct maps before;
	int err, mask;

	pthread_rwlock_wrlock(&r->ring_lock);
	if (!r->srq_ring.live) {
		pthread_rwlock_unlock(&r->ring_lock);
		return -1;
	}
	mask = one_in(rng_of(r), 2) ? IBV_SRQ_LIMIT : IBV_SRQ_MAX_WR;
	read_maps(&before);
	err = ibv_modify_srq(r->srq, &a, mask);
	if (mask & IBV_SRQ_MAX_WR)
		remapped(&r->srq_ring, &before, !err);
	pthread_rwlock_unlock(&r->ring_lock);
	return err;
}

/*
 * raw_post() - a uverbs write() command, posting @wr_count work requests
 * (0: the doorbell librxe rings after filling the send queue). The three
 * post commands share one layout; struct ib_uverbs_post_send stands for it.
 */
static int raw_post(struct round *r, unsigned int command, unsigned int handle,
		    unsigned int wr_count)
{
	union {
		unsigned char bytes[RAW_BYTES];
		struct {
			struct ib_uverbs_cmd_hdr hdr;
			struct ib_uverbs_post_send cmd;
		};
	} req;
	struct ib_uverbs_post_send_resp resp;
	struct ib_uverbs_send_wr *swr;
	struct ib_uverbs_recv_wr *rwr;
	struct ib_uverbs_sge *sge;
	size_t len = sizeof(req.hdr) + sizeof(req.cmd);
	unsigned int k, nsge = 0;
	bool send = command == IB_USER_VERBS_CMD_POST_SEND;

	memset(&req, 0, sizeof(req));
	req.hdr.command = command;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = handle;
	req.cmd.wqe_size = send ? sizeof(*swr) : sizeof(*rwr);
	req.cmd.wr_count = wr_count;
	for (k = 0; k < wr_count; k++) {
		if (send) {
			swr = (void *)(req.bytes + len);
			rnd_bytes(rng_of(r), swr, sizeof(*swr));
			swr->num_sge = rnd_below(rng_of(r), 2);
			swr->opcode %= IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD + 2;
			if (one_in(rng_of(r), 2))
				swr->wr.ud.ah = r->ah->handle;
			nsge += swr->num_sge;
			len += sizeof(*swr);
		} else {
			rwr = (void *)(req.bytes + len);
			rnd_bytes(rng_of(r), rwr, sizeof(*rwr));
			rwr->num_sge = rnd_below(rng_of(r), 2);
			nsge += rwr->num_sge;
			len += sizeof(*rwr);
		}
	}
	for (k = 0; k < nsge; k++) {
		struct ibv_sge s;

		rnd_sge(r, &s);
		sge = (void *)(req.bytes + len);
		sge->addr = s.addr;
		sge->length = s.length;
		sge->lkey = s.lkey;
		len += sizeof(*sge);
	}
	req.cmd.sge_count = one_in(rng_of(r), 8) ? rnd32(rng_of(r)) : nsge;
	req.hdr.in_words = len / 4;
	if (write(r->ctx->cmd_fd, req.bytes, len) != (ssize_t)len)
		return errno;
	return 0;
}

static int doorbell(struct round *r)
{
	unsigned int i = rnd_below(rng_of(r), N_QPS);

	return raw_post(r, IB_USER_VERBS_CMD_POST_SEND, r->qp[i]->handle, 0);
}

static int raw_post_wrs(struct round *r)
{
	unsigned int i = rnd_below(rng_of(r), N_QPS);
	unsigned int n = rnd_below(rng_of(r), 2) + 1;

	switch (rnd_below(rng_of(r), 3)) {
	case 0:
		return raw_post(r, IB_USER_VERBS_CMD_POST_SEND,
				r->qp[i]->handle, n);
	case 1:
		return raw_post(r, IB_USER_VERBS_CMD_POST_RECV,
				r->qp[i]->handle, n);
	default:
		return raw_post(r, IB_USER_VERBS_CMD_POST_SRQ_RECV,
				r->srq->handle, n);
	}
}

static int query(struct round *r)
{
	struct ibv_qp_init_attr init;
	struct ibv_srq_attr sa;
	struct ibv_qp_attr a;

	if (one_in(rng_of(r), 3))
		return ibv_query_srq(r->srq, &sa);
	return ibv_query_qp(r->qp[rnd_below(rng_of(r), N_QPS)], &a, QUERY_MASK,
			    &init);
}

static enum op pick_op(struct round *r)
{
	unsigned int total = 0, x, i;

	for (i = 0; i < N_OPS; i++)
		total += op_defs[i].weight;
	x = rnd_below(rng_of(r), total);
	for (i = 0; i < N_OPS - 1; i++) {
		if (x < op_defs[i].weight)
			break;
		x -= op_defs[i].weight;
	}
	return i;
}

/* step() - one operation; its result: 0, an errno, or -1 for skipped */
static int step(struct round *r, enum op op)
{
	switch (op) {
	case OP_SCRIBBLE_INDEX:
	case OP_SCRIBBLE_HEADER:
	case OP_SCRIBBLE_ELEMENT:
	case OP_SCRIBBLE_ANYWHERE:
		return scribble(r, op) ? 0 : -1;
	case OP_POST_SEND:
		return post_send(r);
	case OP_POST_RECV:
		return post_recv(r);
	case OP_POST_SRQ_RECV:
		return post_srq_recv(r);
	case OP_POLL_CQ:
		return poll_cq(r);
	case OP_NOTIFY_CQ:
		return notify_cq(r);
	case OP_MODIFY_QP:
		return modify_qp(r);
	case OP_RESIZE_CQ:
		return resize_cq(r);
	case OP_MODIFY_SRQ:
		return modify_srq(r);
	case OP_DOORBELL:
		return doorbell(r);
	case OP_RAW_POST:
		return raw_post_wrs(r);
	case OP_QUERY:
		return query(r);
	case OP_CQ_EVENTS:
		drain_events(r);
		return 0;
	default:
		return -1;
	}
}

static void print_stats(const struct round *r, unsigned int round)
{
	unsigned int i;

	for (i = 0; i < N_OPS; i++)
		if (r->calls[i] || r->skipped[i])
			diag("round %u: %-18s %5u calls, %5u failed (last: %s), %4u skipped",
			     round, op_defs[i].name, r->calls[i], r->failed[i],
			     r->failed[i] ? strerrorname_np(r->last_err[i]) : "-",
			     r->skipped[i]);
}

/* a round whose calls entered the kernel fewer times than this tested little */
static unsigned int min_kernel_calls(unsigned int iterations)
{
	return iterations / MIN_KERNEL_CALLS_DIV;
}

/* run_ops() - @n operations of @r, counted (by any of its threads) */
static void run_ops(struct round *r, unsigned int n)
{
	unsigned int it;
	enum op op;
	int ret;

	for (it = 0; it < n; it++) {
		op = pick_op(r);
		ret = step(r, op);
		if (ret < 0) {
			__atomic_fetch_add(&r->skipped[op], 1, __ATOMIC_RELAXED);
			continue;
		}
		__atomic_fetch_add(&r->calls[op], 1, __ATOMIC_RELAXED);
		if (ret) {
			__atomic_fetch_add(&r->failed[op], 1, __ATOMIC_RELAXED);
			__atomic_store_n(&r->last_err[op], ret, __ATOMIC_RELAXED);
		}
	}
}

struct worker {
	pthread_t thread;
	struct round *r;
	struct rng rng;
	unsigned int ops;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	worker_rng = &w->rng;
	run_ops(w->r, w->ops);
	return NULL;
}

/*
 * run_round() - the body of a round's child process, with @threads threads
 * sharing the context and its objects; its exit status: 0 done, 1 the
 * objects could not be made, 2 destroying them failed, 3 too few calls
 * reached the kernel. A round that leaves its objects to the exit ends
 * while its other threads still make calls.
 */
static int run_round(const char *dev, unsigned long long seed,
		     unsigned int round, unsigned int iterations, bool destroy,
		     unsigned int threads)
{
	struct round *r = calloc(1, sizeof(*r));
	struct worker workers[MAX_THREADS];
	unsigned int t, kernel_calls = 0;
	enum op op;

	if (!r || threads > MAX_THREADS)
		return 1;
	rng_seed(rng_of(r), seed + round);
	pthread_rwlock_init(&r->ring_lock, NULL);
	if (!setup(r, dev)) {
		teardown(r);
		return 1;
	}
	for (t = 1; t < threads; t++) {
		workers[t].r = r;
		workers[t].ops = iterations / threads;
		rng_seed(&workers[t].rng, (seed + round) * MAX_THREADS + t);
		if (pthread_create(&workers[t].thread, NULL, worker_main,
				   &workers[t]))
			return 1;
	}
	run_ops(r, iterations - (threads - 1) * (iterations / threads));
	if (destroy)
		for (t = 1; t < threads; t++)
			pthread_join(workers[t].thread, NULL);
	if (threads > 1)
		diag("round %u: %u threads%s", round, threads,
		     destroy ? "" : ", the others still calling at the exit");
	print_stats(r, round);
	for (op = 0; op < N_OPS; op++)
		if (op_defs[op].kernel)
			kernel_calls += r->calls[op];
	diag("round %u: %u calls entered the kernel (at least %u wanted)",
	     round, kernel_calls, min_kernel_calls(iterations));
	if (kernel_calls < min_kernel_calls(iterations))
		return 3;
	if (!destroy)
		return 0;	/* the kernel cleans up at exit */
	return teardown(r) ? 0 : 2;
}

/* wait_round() - reap @pid within the round's time; false if it hangs */
static bool wait_round(pid_t pid, int *status)
{
	long long deadline = now_ms() + ROUND_TIMEOUT_S * 1000LL;
	pid_t got;

	for (;;) {
		got = waitpid(pid, status, WNOHANG);
		if (got == pid)
			return true;
		if (got < 0 && errno != EINTR)
			return false;
		if (now_ms() > deadline)
			break;
		sleep_ms(20);
	}
	kill(pid, SIGKILL);
	deadline = now_ms() + KILL_GRACE_S * 1000LL;
	while (now_ms() < deadline) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return false;
		sleep_ms(20);
	}
	diag("round process %d does not die: stuck in the kernel", (int)pid);
	return false;
}

static bool report_round(unsigned int round, bool destroy, bool ended,
			 int status)
{
	const char *how = destroy ? "destroying its objects" :
				    "leaving its objects to the exit";

	if (!ended)
		return check(false, "round %u (%s) ends within %d s", round,
			     how, ROUND_TIMEOUT_S);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) {
		diag("round %u: SIGSEGV in user space (librxe read a ring it trusts): accepted",
		     round);
		return check(true, "round %u (%s) ends", round, how);
	}
	if (WIFSIGNALED(status))
		return check(false, "round %u (%s) ends: killed by signal %d",
			     round, how, WTERMSIG(status));
	switch (WEXITSTATUS(status)) {
	case 0:
		return check(true, "round %u (%s) ends", round, how);
	case 1:
		return check(false, "round %u: its objects could not be made",
			     round);
	case 3:
		return check(false, "round %u: its calls entered the kernel often enough",
			     round);
	default:
		return check(false, "round %u: destroying its objects failed",
			     round);
	}
}

/*
 * Directed abuse: two shapes of ring contents that the random rounds are
 * unlikely to build, each once, in a child of its own before the rounds.
 * Each must end with an error completion; the kernel must live through it.
 */
enum {
	DIRECTED_SETUP = 1,		/* objects could not be made */
	DIRECTED_INLINE_READ = 2,	/* no error completion */
	DIRECTED_PRODUCER_BACK = 4,	/* no error completion */
	DIRECTED_RECV_NUM_SGE = 8,	/* no LOC_QP_OP_ERR completion */
};

#define DIRECTED_WC_TIMEOUT_MS	3000
#define DIRECTED_WR_ID		0xd1ec7edULL

static struct rxe_send_wqe *sq_slot(const struct ring *sq, unsigned int index)
{
	return (void *)(sq->q->data +
			((size_t)(index & sq->mask) << sq->log2_elem));
}

static void set_producer(const struct ring *sq, unsigned int index)
{
	__atomic_store_n(&sq->q->producer_index, index & sq->mask,
			 __ATOMIC_RELEASE);
}

/* ring_doorbell() - the POST_SEND command with no work request */
static int ring_doorbell(struct round *r, struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req = {
		.hdr = {
			.command = IB_USER_VERBS_CMD_POST_SEND,
			.in_words = sizeof(req) / 4,
			.out_words = sizeof(struct ib_uverbs_post_send_resp) / 4,
		},
		.cmd = {
			.qp_handle = qp->handle,
			.wqe_size = sizeof(struct ib_uverbs_send_wr),
		},
	};
	struct ib_uverbs_post_send_resp resp;

	req.cmd.response = (uintptr_t)&resp;
	return write(r->ctx->cmd_fd, &req, sizeof(req)) == sizeof(req) ? 0 : errno;
}

/* connect_rc() - RESET, then to RTS towards @dest_qpn on this device */
static int connect_rc(struct round *r, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	int err;

	err = modify(qp, &a, IBV_QP_STATE);
	if (!err)
		err = to_init(qp);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	fill_av(r, &a.ah_attr, true);
	err = modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;		/* 67 ms: time to rewrite the ring */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
		      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		      IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * wait_wc() - the status of the completion of @wr_id, or -1 if none comes
 * in time
 */
static int wait_wc(struct ibv_cq *cq, uint64_t wr_id, const char *what)
{
	long long deadline = now_ms() + DIRECTED_WC_TIMEOUT_MS;
	struct ibv_wc wc;
	int n;

	while (now_ms() < deadline) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			break;
		if (!n) {
			sleep_ms(1);
			continue;
		}
		if (wc.wr_id != wr_id)
			continue;
		diag("%s: completion %s", what, ibv_wc_status_str(wc.status));
		return wc.status;
	}
	diag("%s: no completion within %d ms", what, DIRECTED_WC_TIMEOUT_MS);
	return -1;
}

/* wait_error_wc() - a completion of @wr_id with an error status, in time */
static bool wait_error_wc(struct ibv_cq *cq, uint64_t wr_id, const char *what)
{
	return wait_wc(cq, wr_id, what) > IBV_WC_SUCCESS;
}

/*
 * An RDMA READ marked inline, whose num_sge says 0xffffffff over an SGE
 * area of zeros: its response has no SGE list to go to. Refused as the
 * man page says (inline is for SEND and WRITE), it completes in error;
 * walked as an SGE list, it runs past the end of the kernel's copy.
 */
static bool directed_inline_read(struct round *r)
{
	struct ibv_qp *qa = r->qp[QP_RC], *qb = r->qp[QP_RC_SRQ];
	const struct ring *sq = &r->sq[QP_RC];
	struct rxe_send_wqe *wqe;
	unsigned int p;

	if (connect_rc(r, qa, qb->qp_num) || connect_rc(r, qb, qa->qp_num))
		return false;
	p = sq->q->producer_index;
	wqe = sq_slot(sq, p);
	memset(wqe, 0, (size_t)1 << sq->log2_elem);
	wqe->wr.wr_id = DIRECTED_WR_ID;
	wqe->wr.opcode = IBV_WR_RDMA_READ;
	wqe->wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	wqe->wr.wr.rdma.remote_addr = (uintptr_t)r->buf;
	wqe->wr.wr.rdma.rkey = r->mr->rkey;
	wqe->dma.length = 16;
	wqe->dma.resid = 16;
	wqe->dma.num_sge = 0xffffffff;
	set_producer(sq, p + 1);
	return !ring_doorbell(r, qa) &&
	       wait_error_wc(r->cq[qp_defs[QP_RC].cq_send], DIRECTED_WR_ID,
			     "inline READ");
}

/*
 * Three SENDs go to a QP that does not exist and wait for their ACK; the
 * producer index is then moved back to the first of them and a new WQE
 * written over it. The requester must not take that slot again while its
 * WQE is under way (the retransmission would send bytes from far outside
 * the new WQE); the three end in RETRY_EXC_ERR.
 */
static bool directed_producer_back(struct round *r)
{
	struct ibv_qp *qa = r->qp[QP_RC];
	const struct ring *sq = &r->sq[QP_RC];
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf,
		.length = QP_INLINE_BYTES,
	};
	struct ibv_send_wr wr, *bad;
	struct rxe_send_wqe *wqe;
	unsigned int first, i;

	if (connect_rc(r, qa, QP_DEST_QPN))
		return false;
	first = sq->q->producer_index;
	for (i = 0; i < 3; i++) {
		wr = rc_send_wr(DIRECTED_WR_ID + i, IBV_WR_SEND, &sge, 1,
				IBV_SEND_INLINE | IBV_SEND_SIGNALED, 0, 0);
		if (ibv_post_send(qa, &wr, &bad))
			return false;
	}
	set_producer(sq, first);
	if (ring_doorbell(r, qa))
		return false;
	wqe = sq_slot(sq, first);
	wqe->wr.wr_id = DIRECTED_WR_ID + 100;
	wqe->dma.length = 8;
	set_producer(sq, first + 1);
	return !ring_doorbell(r, qa) &&
	       wait_error_wc(r->cq[qp_defs[QP_RC].cq_send], DIRECTED_WR_ID,
			     "SEND under a producer index moved back");
}

/*
 * A receive WQE written into the RC QP's RQ with num_sge 0xffffffff and a
 * valid first SGE, then a SEND to it: no RQ holds that many SGEs, so it
 * completes with LOC_QP_OP_ERR (as rdma_rxe does); cut to the RQ's
 * max_sge, it would take the SEND as if nothing were wrong.
 */
static bool directed_recv_num_sge(struct round *r)
{
	struct ibv_qp *qa = r->qp[QP_RC], *qb = r->qp[QP_RC_SRQ];
	const struct ring *rq = &r->rq[QP_RC];
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf,
		.length = 16,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = rc_send_wr(DIRECTED_WR_ID + 200, IBV_WR_SEND,
					   &sge, 1, IBV_SEND_SIGNALED, 0, 0),
			   *bad;
	struct rxe_recv_wqe *wqe;
	unsigned int p;

	if (connect_rc(r, qa, qb->qp_num) || connect_rc(r, qb, qa->qp_num))
		return false;
	p = rq->q->producer_index;
	wqe = (void *)(rq->q->data +
		       ((size_t)(p & rq->mask) << rq->log2_elem));
	memset(wqe, 0, (size_t)1 << rq->log2_elem);
	wqe->wr_id = DIRECTED_WR_ID;
	wqe->dma.length = 64;
	wqe->dma.resid = 64;
	wqe->dma.num_sge = 0xffffffff;
	wqe->dma.sge[0].addr = (uintptr_t)r->buf + 1024;
	wqe->dma.sge[0].length = 64;
	wqe->dma.sge[0].lkey = r->mr->lkey;
	set_producer(rq, p + 1);
	return !ibv_post_send(qb, &wr, &bad) &&
	       wait_wc(r->cq[qp_defs[QP_RC].cq_recv], DIRECTED_WR_ID,
		       "receive WQE with num_sge 0xffffffff") ==
	       IBV_WC_LOC_QP_OP_ERR;
}

static int run_directed(const char *dev)
{
	struct round *r = calloc(1, sizeof(*r));
	int ret = 0;

	if (!r)
		return DIRECTED_SETUP;
	rng_seed(rng_of(r), DEFAULT_SEED);
	if (!setup(r, dev))
		return DIRECTED_SETUP;
	if (!directed_inline_read(r))
		ret |= DIRECTED_INLINE_READ;
	if (!directed_recv_num_sge(r))
		ret |= DIRECTED_RECV_NUM_SGE;
	if (!directed_producer_back(r))
		ret |= DIRECTED_PRODUCER_BACK;
	return teardown(r) ? ret : ret | DIRECTED_SETUP;
}

static void report_directed(bool ended, int status)
{
	int ret = ended && WIFEXITED(status) ? WEXITSTATUS(status) : -1;

	if (ret < 0)
		diag("directed: the process %s", ended ? "was killed" : "hangs");
	check(ret >= 0 && !(ret & DIRECTED_SETUP),
	      "directed: objects made and destroyed");
	check(ret >= 0 && !(ret & DIRECTED_INLINE_READ),
	      "directed: an inline READ with num_sge 0xffffffff completes in error");
	check(ret >= 0 && !(ret & DIRECTED_PRODUCER_BACK),
	      "directed: WQEs under a producer index moved back complete in error");
	check(ret >= 0 && !(ret & DIRECTED_RECV_NUM_SGE),
	      "directed: a receive WQE with num_sge 0xffffffff completes with LOC_QP_OP_ERR");
}

/*
 * still_works() - after the rounds, a fresh context still gets a flushed
 * completion for a receive posted to an RC QP moved to ERR
 */
static void still_works(const char *dev)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_recv_wr wr = { .wr_id = 42 }, *bad;
	struct ibv_context *ctx;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_wc wc;
	long long deadline;
	int n = 0;

	ctx = open_device(dev);
	if (!check(ctx, "after the rounds: %s opens", dev))
		return;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	init.send_cq = cq;
	init.recv_cq = cq;
	if (pd && cq)
		qp = ibv_create_qp(pd, &init);
	if (!check(qp, "after the rounds: a PD, a CQ and an RC QP"))
		goto out;
	if (!check(!to_init(qp) && !ibv_post_recv(qp, &wr, &bad) &&
		   !modify(qp, &a, IBV_QP_STATE),
		   "after the rounds: a receive posted, the QP to ERR"))
		goto out;
	deadline = now_ms() + FLUSH_TIMEOUT_MS;
	while (!n && now_ms() < deadline) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (!n)
			sleep_ms(1);
	}
	check(n == 1 && wc.wr_id == 42 && wc.status == IBV_WC_WR_FLUSH_ERR,
	      "after the rounds: the receive flushed");
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : DEFAULT_DEVICE;
	unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 0) :
					     DEFAULT_SEED;
	unsigned int iterations = argc > 3 ? strtoul(argv[3], NULL, 0) :
					     DEFAULT_ITERATIONS;
	unsigned int round, per_round = (iterations + ROUNDS - 1) / ROUNDS;
	bool destroy, ended;
	int status = 0;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	diag("device %s, seed %llu, %u iterations in %d rounds (rerun: %s %s %llu %u)",
	     dev, seed, per_round * ROUNDS, ROUNDS, argv[0], dev, seed,
	     iterations);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("Bail out! fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid)
		_exit(run_directed(dev));
	ended = wait_round(pid, &status);
	report_directed(ended, status);
	if (!ended) {
		printf("Bail out! the directed checks hang\n");
		return 1;
	}
	for (round = 1; round <= ROUNDS; round++) {
		destroy = round % 2 == 0 || round == ROUNDS;
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			printf("Bail out! fork: %s\n", strerror(errno));
			return 1;
		}
		if (!pid)
			_exit(run_round(dev, seed, round, per_round, destroy,
					round > ROUNDS / 2 ? THREADS : 1));
		ended = wait_round(pid, &status);
		report_round(round, destroy, ended, status);
		if (!ended) {
			printf("Bail out! round %u hangs\n", round);
			return 1;
		}
	}
	still_works(dev);
	printf("1..%u\n", tests_run);
	diag("%u of %u checks passed", tests_run - tests_failed, tests_run);
	return tests_failed ? 1 : 0;
}
