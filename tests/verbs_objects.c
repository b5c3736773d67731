// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_objects: the verbs objects of one RDMA device, through libibverbs
 * and the device's provider (librxe for srdma).
 *
 *   verbs_objects [DEVICE]        DEVICE defaults to srdma0
 *
 * Protection domains, memory regions, completion queues, shared receive
 * queues, address handles and queue pairs are created and destroyed within
 * the limits the device reports, and beyond them. Queue pairs of each type
 * walk Reset -> Init -> RTR -> RTS with exactly the attributes ibv_modify_qp(3)
 * requires; invalid transitions and attributes must fail with EINVAL and
 * leave the QP as it was. Moving a QP to the error state must flush every
 * outstanding work request.
 *
 * One TAP line per check ("ok N - ..." or "not ok N - ..." followed by "#"
 * lines saying what was seen), the plan at the end; exit status 1 if any
 * check failed, 2 if the device cannot be opened or used at all.
 *
 * The device's netdev must have MTU 1500 (active MTU 1024) and an IPv4
 * address, and 198.18.0.2 must be a neighbour on it: what
 * tools/scenarios/verbs_objects.sh sets up on a veth pair.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "rc_pair.h"

#define BIT(nr)			(1UL << (nr))

#define DEFAULT_DEVICE		"srdma0"
#define PORT			1
#define PEER_IPV4		"198.18.0.2"	/* the veth peer */
#define RUN_TIMEOUT_S		150	/* the whole program; then bail out */
#define EVENT_TIMEOUT_MS	2000	/* a completion or an event */

#define PSN_LIMIT		BIT(24)	/* PSNs and QPNs are 24-bit */
#define QPN_FIRST_USER		2	/* 0 and 1 are the special QPs */
#define TIMEOUT_LIMIT		32	/* 5-bit fields */
#define RETRY_LIMIT		8	/* 3-bit fields */

#define BUF_BYTES		65536
#define MSG_BYTES		64	/* payload of the sends and receives */

/* What the QPs are set to; all differ from zero so that queries tell. */
#define QP_QKEY			0x1ee7c0deu	/* not a controlled Q_Key */
#define QP_SQ_PSN		0x123456u
#define QP_RQ_PSN		0xabcdefu
#define QP_DEST_QPN		0xabcdu		/* no such QP anywhere */
#define QP_MIN_RNR_TIMER	12
#define QP_TIMEOUT		14	/* 67 ms, x retry_cnt: no timeout here */
#define QP_RETRY_CNT		7
#define QP_RNR_RETRY		6
#define QP_MAX_RD_ATOMIC	2
#define QP_MAX_DEST_RD_ATOMIC	4
#define QP_HOP_LIMIT		64
#define QP_WR			16	/* max_send_wr and max_recv_wr */
#define QP_INLINE_BYTES		64
#define QP_ABSURD_INLINE_BYTES	BIT(20)

struct env {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* shared by the QPs of most tests */
	struct ibv_mr *mr;		/* over buf, local write */
	char *buf;
	struct ibv_sge msg;		/* MSG_BYTES of buf: what the WRs carry */
	int sgid_index;			/* a RoCE v2 IPv4 GID, -1 if none */
	bool gid_255_valid;
	union ibv_gid dgid;		/* ::ffff:PEER_IPV4 */
};

/* TAP */

static const char *err_name(int err)
{
	const char *name;

	if (!err)
		return "success";
	name = strerrorname_np(err);
	return name ? name : "an unknown errno";
}

/*
 * check_err() - a call must have ended with @want (an errno value, or 0 for
 * success); @got is what it ended with
 */
static bool __printf(3, 4) check_err(int got, int want, const char *fmt, ...)
{
	va_list ap;
	bool ret;

	va_start(ap, fmt);
	ret = vcheck(got == want, fmt, ap);
	va_end(ap);
	if (!ret)
		diag("got %s (%d), expected %s", err_name(got), got,
		     err_name(want));
	return ret;
}

/* check_fails() - a call must have failed, with any errno */
static bool __printf(2, 3) check_fails(int got, const char *fmt, ...)
{
	va_list ap;
	bool ret;

	va_start(ap, fmt);
	ret = vcheck(got != 0, fmt, ap);
	va_end(ap);
	if (ret)
		diag("failed with %s", err_name(got));
	else
		diag("it succeeded");
	return ret;
}

/* The errno of a verb returning an errno value (or -1 and errno) */
static int verb_err(int ret)
{
	return ret < 0 ? errno : ret;
}

/* The errno of a verb returning an object or NULL and errno */
static int ptr_err(const void *p)
{
	if (p)
		return 0;
	return errno ? errno : EIO;
}

/* Tables: QP types, after ibv_modify_qp(3); state names: rc_state_name() */

/*
 * The attributes each transition requires. Init also accepts them from
 * Init, RTR from Init, RTS from RTR; every other transition requires only
 * IBV_QP_STATE.
 */
struct qp_type_info {
	const char *name;
	int init_mask;
	int rtr_mask;
	int rts_mask;
	unsigned int access;		/* qp_access_flags this test sets */
};

#define RC_RTR_MASK	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RC_RTS_MASK	(IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | \
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
			 IBV_QP_MAX_QP_RD_ATOMIC)
#define UC_RTR_MASK	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)

static const struct qp_type_info qp_types[] = {
	[IBV_QPT_RC] = {
		.name = "RC",
		.init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS,
		.rtr_mask = RC_RTR_MASK,
		.rts_mask = RC_RTS_MASK,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
	},
	[IBV_QPT_UC] = {
		.name = "UC",
		.init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS,
		.rtr_mask = UC_RTR_MASK,
		.rts_mask = IBV_QP_STATE | IBV_QP_SQ_PSN,
		.access = IBV_ACCESS_REMOTE_WRITE,
	},
	[IBV_QPT_UD] = {
		.name = "UD",
		.init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_QKEY,
		.rtr_mask = IBV_QP_STATE,
		.rts_mask = IBV_QP_STATE | IBV_QP_SQ_PSN,
	},
};

static const enum ibv_qp_type tested_types[] = {
	IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
};

#define N_TESTED_TYPES	(ARRAY_SIZE(tested_types))
#define TYPE_BIT(t)	BIT(t)
#define ALL_TYPES	(TYPE_BIT(IBV_QPT_RC) | TYPE_BIT(IBV_QPT_UC) | \
			 TYPE_BIT(IBV_QPT_UD))
#define CONNECTED	(TYPE_BIT(IBV_QPT_RC) | TYPE_BIT(IBV_QPT_UC))
#define RC_ONLY		TYPE_BIT(IBV_QPT_RC)

static int required_mask(enum ibv_qp_type type, enum ibv_qp_state to)
{
	switch (to) {
	case IBV_QPS_INIT:
		return qp_types[type].init_mask;
	case IBV_QPS_RTR:
		return qp_types[type].rtr_mask;
	case IBV_QPS_RTS:
		return qp_types[type].rts_mask;
	default:
		return IBV_QP_STATE;
	}
}

/* Every attribute ibv_query_qp() can return */
#define QUERY_MASK	(IBV_QP_STATE | IBV_QP_CUR_STATE | \
			 IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS | \
			 IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | \
			 IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT | \
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | \
			 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH | \
			 IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN | \
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE | \
			 IBV_QP_CAP | IBV_QP_DEST_QPN)

/*
 * Comparing two struct ibv_qp_attr field by field, the fields that
 * ibv_query_qp() reports and that the mask bits in @mask set.
 */
enum cmp_mode {
	CMP_COUNT,	/* count the differences */
	CMP_DIAG,	/* and diag() each */
	CMP_CHECK,	/* one check per field */
};

struct attr_cmp {
	enum cmp_mode mode;
	int mask;
	const char *what;
	const char *ref;	/* what the second struct is: "set", "before" */
	unsigned int differ;
};

static void cmp_val(struct attr_cmp *c, int bit, const char *name,
		    unsigned long got, unsigned long want)
{
	bool same = got == want;

	if (!(c->mask & bit))
		return;
	if (!same)
		c->differ++;
	if (c->mode == CMP_CHECK &&
	    check(same, "%s: ibv_query_qp returns the %s set", c->what, name))
		return;
	if (!same && c->mode != CMP_COUNT)
		diag("%s: %s is %lu (%#lx), %s %lu (%#lx)", c->what, name,
		     got, got, c->ref, want, want);
}

static void cmp_gid(struct attr_cmp *c, int bit, const char *name,
		    const union ibv_gid *got, const union ibv_gid *want)
{
	char sg[INET6_ADDRSTRLEN], sw[INET6_ADDRSTRLEN];
	bool same = !memcmp(got, want, sizeof(*got));

	if (!(c->mask & bit))
		return;
	if (!same)
		c->differ++;
	if (c->mode == CMP_CHECK &&
	    check(same, "%s: ibv_query_qp returns the %s set", c->what, name))
		return;
	if (!same && c->mode != CMP_COUNT)
		diag("%s: %s is %s, %s %s", c->what, name,
		     inet_ntop(AF_INET6, got, sg, sizeof(sg)), c->ref,
		     inet_ntop(AF_INET6, want, sw, sizeof(sw)));
}

static unsigned int cmp_attrs(struct attr_cmp *c, const struct ibv_qp_attr *g,
			      const struct ibv_qp_attr *w)
{
	const struct ibv_global_route *gg = &g->ah_attr.grh;
	const struct ibv_global_route *gw = &w->ah_attr.grh;

	c->differ = 0;
	cmp_val(c, IBV_QP_STATE, "qp_state", g->qp_state, w->qp_state);
	cmp_val(c, IBV_QP_PKEY_INDEX, "pkey_index", g->pkey_index,
		w->pkey_index);
	cmp_val(c, IBV_QP_PORT, "port_num", g->port_num, w->port_num);
	cmp_val(c, IBV_QP_QKEY, "qkey", g->qkey, w->qkey);
	cmp_val(c, IBV_QP_ACCESS_FLAGS, "qp_access_flags", g->qp_access_flags,
		w->qp_access_flags);
	cmp_val(c, IBV_QP_PATH_MTU, "path_mtu", g->path_mtu, w->path_mtu);
	cmp_val(c, IBV_QP_DEST_QPN, "dest_qp_num", g->dest_qp_num,
		w->dest_qp_num);
	cmp_val(c, IBV_QP_RQ_PSN, "rq_psn", g->rq_psn, w->rq_psn);
	cmp_val(c, IBV_QP_MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic",
		g->max_dest_rd_atomic, w->max_dest_rd_atomic);
	cmp_val(c, IBV_QP_MIN_RNR_TIMER, "min_rnr_timer", g->min_rnr_timer,
		w->min_rnr_timer);
	cmp_val(c, IBV_QP_SQ_PSN, "sq_psn", g->sq_psn, w->sq_psn);
	cmp_val(c, IBV_QP_TIMEOUT, "timeout", g->timeout, w->timeout);
	cmp_val(c, IBV_QP_RETRY_CNT, "retry_cnt", g->retry_cnt, w->retry_cnt);
	cmp_val(c, IBV_QP_RNR_RETRY, "rnr_retry", g->rnr_retry, w->rnr_retry);
	cmp_val(c, IBV_QP_MAX_QP_RD_ATOMIC, "max_rd_atomic", g->max_rd_atomic,
		w->max_rd_atomic);
	cmp_val(c, IBV_QP_AV, "ah_attr.is_global", g->ah_attr.is_global,
		w->ah_attr.is_global);
	cmp_gid(c, IBV_QP_AV, "ah_attr.grh.dgid", &gg->dgid, &gw->dgid);
	cmp_val(c, IBV_QP_AV, "ah_attr.grh.sgid_index", gg->sgid_index,
		gw->sgid_index);
	cmp_val(c, IBV_QP_AV, "ah_attr.grh.hop_limit", gg->hop_limit,
		gw->hop_limit);
	cmp_val(c, IBV_QP_AV, "ah_attr.port_num", g->ah_attr.port_num,
		w->ah_attr.port_num);
	cmp_val(c, IBV_QP_CAP, "cap.max_send_wr", g->cap.max_send_wr,
		w->cap.max_send_wr);
	cmp_val(c, IBV_QP_CAP, "cap.max_recv_wr", g->cap.max_recv_wr,
		w->cap.max_recv_wr);
	cmp_val(c, IBV_QP_CAP, "cap.max_send_sge", g->cap.max_send_sge,
		w->cap.max_send_sge);
	cmp_val(c, IBV_QP_CAP, "cap.max_recv_sge", g->cap.max_recv_sge,
		w->cap.max_recv_sge);
	cmp_val(c, IBV_QP_CAP, "cap.max_inline_data", g->cap.max_inline_data,
		w->cap.max_inline_data);
	return c->differ;
}

/* Objects */

static struct ibv_qp *create_qp_cap(struct ibv_pd *pd, enum ibv_qp_type type,
				    struct ibv_cq *cq, struct ibv_srq *srq,
				    const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = *cap,
		.qp_type = type,
	};

	return ibv_create_qp(pd, &init);
}

static const struct ibv_qp_cap default_cap = {
	.max_send_wr = QP_WR,
	.max_recv_wr = QP_WR,
	.max_send_sge = 1,
	.max_recv_sge = 1,
};

/* an RC QP with these caps must not be created (EINVAL) */
static void check_create_refused(struct env *e, const struct ibv_qp_cap *cap,
				 const char *what)
{
	struct ibv_qp *qp = create_qp_cap(e->pd, IBV_QPT_RC, e->cq, NULL, cap);

	check_err(ptr_err(qp), EINVAL, "%s", what);
	if (qp)
		ibv_destroy_qp(qp);
}

static struct ibv_qp *create_qp(struct env *e, enum ibv_qp_type type,
				struct ibv_cq *cq)
{
	return create_qp_cap(e->pd, type, cq, NULL, &default_cap);
}

/*
 * fill_attr() - every attribute this test sets, for a move to @to; the mask
 * given to ibv_modify_qp() says which of them count
 */
static void fill_attr(const struct env *e, enum ibv_qp_type type,
		      enum ibv_qp_state to, struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = to;
	a->pkey_index = 0;
	a->port_num = PORT;
	a->qkey = QP_QKEY;
	a->qp_access_flags = qp_types[type].access;
	a->path_mtu = e->port.active_mtu;
	a->dest_qp_num = QP_DEST_QPN;
	a->rq_psn = QP_RQ_PSN;
	a->sq_psn = QP_SQ_PSN;
	a->max_dest_rd_atomic = QP_MAX_DEST_RD_ATOMIC;
	if (a->max_dest_rd_atomic > e->dev.max_qp_rd_atom)
		a->max_dest_rd_atomic = e->dev.max_qp_rd_atom;
	a->max_rd_atomic = QP_MAX_RD_ATOMIC;
	if (a->max_rd_atomic > e->dev.max_qp_init_rd_atom)
		a->max_rd_atomic = e->dev.max_qp_init_rd_atom;
	a->min_rnr_timer = QP_MIN_RNR_TIMER;
	a->timeout = QP_TIMEOUT;
	a->retry_cnt = QP_RETRY_CNT;
	a->rnr_retry = QP_RNR_RETRY;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = PORT;
	a->ah_attr.grh.dgid = e->dgid;
	a->ah_attr.grh.sgid_index = e->sgid_index < 0 ? 0 : e->sgid_index;
	a->ah_attr.grh.hop_limit = QP_HOP_LIMIT;
}

/* modify_state() - a transition that requires nothing but IBV_QP_STATE */
static int modify_state(struct ibv_qp *qp, enum ibv_qp_state to)
{
	struct ibv_qp_attr a = { .qp_state = to };

	return verb_err(ibv_modify_qp(qp, &a, IBV_QP_STATE));
}

static int modify_to(const struct env *e, struct ibv_qp *qp,
		     enum ibv_qp_state to)
{
	struct ibv_qp_attr a;

	fill_attr(e, qp->qp_type, to, &a);
	return verb_err(ibv_modify_qp(qp, &a, required_mask(qp->qp_type, to)));
}

/*
 * goto_state() - take @qp to @target through Reset and the required
 * transitions (to ERR from INIT); returns 0 or the errno of the step that
 * failed
 */
static int goto_state(const struct env *e, struct ibv_qp *qp,
		      enum ibv_qp_state target)
{
	static const enum ibv_qp_state walk[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD,
	};
	unsigned int i;
	int err;

	err = modify_to(e, qp, IBV_QPS_RESET);
	if (err || target == IBV_QPS_RESET)
		return err;
	if (target == IBV_QPS_ERR) {
		err = modify_to(e, qp, IBV_QPS_INIT);
		return err ? err : modify_state(qp, IBV_QPS_ERR);
	}
	for (i = 0; !err && i < ARRAY_SIZE(walk); i++) {
		err = modify_to(e, qp, walk[i]);
		if (walk[i] == target)
			break;
	}
	return err;
}

static int query_qp(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	struct ibv_qp_init_attr init;

	memset(a, 0, sizeof(*a));
	return verb_err(ibv_query_qp(qp, a, QUERY_MASK, &init));
}

/* wait_drained() - wait until a QP in SQD reports its SQ drained */
static int wait_drained(struct ibv_qp *qp)
{
	long long deadline = now_ms() + EVENT_TIMEOUT_MS;
	struct ibv_qp_attr a;
	int err;

	for (;;) {
		err = query_qp(qp, &a);
		if (err || !a.sq_draining)
			return err;
		if (now_ms() > deadline) {
			errno = ETIMEDOUT;
			return errno;
		}
		sleep_ms(1);
	}
}

static bool check_state(struct ibv_qp *qp, enum ibv_qp_state want,
			const char *what)
{
	struct ibv_qp_attr a;
	int err = query_qp(qp, &a);

	if (!check(!err && a.qp_state == want, "%s: ibv_query_qp says %s",
		   what, rc_state_name(want))) {
		if (err)
			diag("ibv_query_qp: %s", err_name(err));
		else
			diag("state %s", rc_state_name(a.qp_state));
		return false;
	}
	return true;
}

static int post_sends(const struct env *e, struct ibv_qp *qp,
		      unsigned long long wr_id, unsigned int n)
{
	struct ibv_send_wr wr, *bad;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		wr = rc_send_wr(wr_id + i, IBV_WR_SEND, &e->msg, 1,
				IBV_SEND_SIGNALED, 0, 0);
		err = verb_err(ibv_post_send(qp, &wr, &bad));
		if (err)
			return err;
	}
	return 0;
}

/* poll_until() - poll @cq until @want completions or @timeout_ms passed */
static int poll_until(struct ibv_cq *cq, struct ibv_wc *wc, int max, int want,
		      int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	int n = 0, got;

	while (n < max) {
		got = ibv_poll_cq(cq, max - n, wc + n);
		if (got < 0) {
			diag("ibv_poll_cq returned %d", got);
			break;
		}
		n += got;
		if (n >= want || now_ms() > deadline)
			break;
		if (!got)
			sleep_ms(1);
	}
	return n;
}

/* wait_cq_event() - a completion event for @cq on @ch, acked; 0 or errno */
static int wait_cq_event(struct ibv_comp_channel *ch, struct ibv_cq *cq)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int ret;

	ret = poll(&pfd, 1, EVENT_TIMEOUT_MS);
	if (ret < 0)
		return errno;
	if (!ret) {
		errno = ETIMEDOUT;
		return errno;
	}
	if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
		return errno ? errno : EIO;
	ibv_ack_cq_events(ev_cq, 1);
	return ev_cq == cq ? 0 : EBADR;
}

/* 0. The device and its port */

static int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

static void test_device(struct env *e)
{
	static const struct {
		const char *name;
		size_t offset;
	} limits[] = {
#define LIMIT(f) { #f, offsetof(struct ibv_device_attr, f) }
		LIMIT(max_qp), LIMIT(max_cq), LIMIT(max_cqe), LIMIT(max_mr),
		LIMIT(max_pd), LIMIT(max_qp_wr), LIMIT(max_sge),
		LIMIT(max_srq), LIMIT(max_srq_wr), LIMIT(max_srq_sge),
		LIMIT(max_ah), LIMIT(max_qp_rd_atom),
		LIMIT(max_qp_init_rd_atom),
#undef LIMIT
	};
	unsigned int i;
	int v;

	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		memcpy(&v, (const char *)&e->dev + limits[i].offset, sizeof(v));
		check(v > 0, "device: %s is nonzero (%d)", limits[i].name, v);
	}
	check(e->dev.atomic_cap != IBV_ATOMIC_NONE,
	      "device: atomic_cap is not IBV_ATOMIC_NONE (%d)",
	      e->dev.atomic_cap);
	check(e->port.state == IBV_PORT_ACTIVE, "port %d: active", PORT);
	check(e->port.active_mtu == IBV_MTU_1024,
	      "port %d: active_mtu 1024 on a netdev MTU 1500 (%d)", PORT,
	      mtu_bytes(e->port.active_mtu));
}

/* 1. Protection domains */

static void test_pd(struct env *e)
{
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	int err;

	pd = ibv_alloc_pd(e->ctx);
	check_err(ptr_err(pd), 0, "pd: ibv_alloc_pd");
	if (!pd)
		return;
	check_err(verb_err(ibv_dealloc_pd(pd)), 0, "pd: ibv_dealloc_pd");

	pd = ibv_alloc_pd(e->ctx);
	if (!pd)
		return;
	mr = ibv_reg_mr(pd, e->buf, BUF_BYTES, IBV_ACCESS_LOCAL_WRITE);
	check_err(ptr_err(mr), 0, "pd: ibv_reg_mr in a second PD");
	if (mr) {
		err = verb_err(ibv_dealloc_pd(pd));
		check_err(err, EBUSY, "pd: ibv_dealloc_pd with an MR fails");
		if (!err)
			return;	/* the MR is gone with it, or leaked */
		check_err(verb_err(ibv_dereg_mr(mr)), 0, "pd: ibv_dereg_mr");
	}
	check_err(verb_err(ibv_dealloc_pd(pd)), 0,
		  "pd: ibv_dealloc_pd after the MR is gone");
}

/* 2. Memory regions */

static void test_mr(struct env *e)
{
	static const struct {
		const char *name;
		int access;
	} good[] = {
		{ "no access flag", 0 },
		{ "LOCAL_WRITE", IBV_ACCESS_LOCAL_WRITE },
		{ "REMOTE_READ", IBV_ACCESS_REMOTE_READ },
		{ "LOCAL_WRITE|REMOTE_WRITE",
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE },
		{ "LOCAL_WRITE|REMOTE_ATOMIC",
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC },
		{ "LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC",
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC },
	};
	static const struct {
		const char *name;
		int access;
		int want;
	} bad[] = {
		{ "REMOTE_WRITE without LOCAL_WRITE", IBV_ACCESS_REMOTE_WRITE,
		  EINVAL },
		{ "REMOTE_ATOMIC without LOCAL_WRITE", IBV_ACCESS_REMOTE_ATOMIC,
		  EINVAL },
		{ "unknown access bit 8", IBV_ACCESS_LOCAL_WRITE | 1 << 8,
		  EINVAL },
		{ "unknown access bit 30", IBV_ACCESS_LOCAL_WRITE | 1 << 30,
		  EINVAL },
	};
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ;
	struct ibv_mr *mr, *mr2;
	unsigned int i;
	unsigned int lkey, rkey;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		mr = ibv_reg_mr(e->pd, e->buf, BUF_BYTES, good[i].access);
		if (!check_err(ptr_err(mr), 0, "mr: ibv_reg_mr %s", good[i].name))
			continue;
		if (!check(mr->addr == e->buf && mr->length == BUF_BYTES,
			   "mr: %s: addr and length as registered",
			   good[i].name))
			diag("addr %p length %zu, registered %p %d", mr->addr,
			     mr->length, (void *)e->buf, BUF_BYTES);
		check_err(verb_err(ibv_dereg_mr(mr)), 0, "mr: ibv_dereg_mr %s",
			  good[i].name);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		mr = ibv_reg_mr(e->pd, e->buf, BUF_BYTES, bad[i].access);
		check_err(ptr_err(mr), bad[i].want, "mr: ibv_reg_mr %s fails",
			  bad[i].name);
		if (mr)
			ibv_dereg_mr(mr);
	}
	mr = ibv_reg_mr(e->pd, e->buf, 0, IBV_ACCESS_LOCAL_WRITE);
	check_fails(ptr_err(mr), "mr: ibv_reg_mr of length 0 fails");
	if (mr)
		ibv_dereg_mr(mr);

	/* Two registrations of one buffer, both alive */
	mr = ibv_reg_mr(e->pd, e->buf, BUF_BYTES, rw);
	mr2 = ibv_reg_mr(e->pd, e->buf, BUF_BYTES, rw);
	if (check(mr && mr2, "mr: the same buffer registered twice")) {
		if (!check(mr->lkey != mr2->lkey && mr->rkey != mr2->rkey,
			   "mr: the two registrations have different keys"))
			diag("lkeys %#x %#x, rkeys %#x %#x", mr->lkey,
			     mr2->lkey, mr->rkey, mr2->rkey);
	}
	if (mr2)
		ibv_dereg_mr(mr2);
	if (!mr)
		return;

	/* A key must not come back right after its MR is gone */
	lkey = mr->lkey;
	rkey = mr->rkey;
	check_err(verb_err(ibv_dereg_mr(mr)), 0, "mr: ibv_dereg_mr");
	mr = ibv_reg_mr(e->pd, e->buf, BUF_BYTES, rw);
	if (check_err(ptr_err(mr), 0, "mr: register again")) {
		if (!check(mr->lkey != lkey && mr->rkey != rkey,
			   "mr: new keys differ from the deregistered MR's"))
			diag("old lkey %#x rkey %#x, new lkey %#x rkey %#x",
			     lkey, rkey, mr->lkey, mr->rkey);
		ibv_dereg_mr(mr);
	}
}

/* 3. Completion queues */

static void test_cq(struct env *e)
{
	const int sizes[] = { 1, 100, e->dev.max_cqe };
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		cq = ibv_create_cq(e->ctx, sizes[i], NULL, NULL, 0);
		if (!check_err(ptr_err(cq), 0, "cq: ibv_create_cq cqe=%d",
			       sizes[i]))
			continue;
		if (!check(cq->cqe >= sizes[i], "cq: cqe=%d: cqe >= requested",
			   sizes[i]))
			diag("cqe %d", cq->cqe);
		check_err(verb_err(ibv_destroy_cq(cq)), 0,
			  "cq: ibv_destroy_cq cqe=%d", sizes[i]);
	}
	cq = ibv_create_cq(e->ctx, e->dev.max_cqe + 1, NULL, NULL, 0);
	check_err(ptr_err(cq), EINVAL, "cq: ibv_create_cq cqe=max_cqe+1 fails");
	if (cq)
		ibv_destroy_cq(cq);

	cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	if (!check_err(ptr_err(cq), 0, "cq: ibv_create_cq cqe=16"))
		return;
	err = verb_err(ibv_resize_cq(cq, 256));
	if (check_err(err, 0, "cq: ibv_resize_cq grows to 256"))
		if (!check(cq->cqe >= 256, "cq: cqe >= 256 after growing"))
			diag("cqe %d", cq->cqe);
	err = verb_err(ibv_resize_cq(cq, 32));
	if (check_err(err, 0, "cq: ibv_resize_cq shrinks an empty CQ to 32"))
		if (!check(cq->cqe >= 32, "cq: cqe >= 32 after shrinking"))
			diag("cqe %d", cq->cqe);
	err = verb_err(ibv_resize_cq(cq, e->dev.max_cqe + 1));
	check_err(err, EINVAL, "cq: ibv_resize_cq to max_cqe+1 fails");
	check_err(verb_err(ibv_req_notify_cq(cq, 0)), 0,
		  "cq: ibv_req_notify_cq next completion");
	check_err(verb_err(ibv_req_notify_cq(cq, 1)), 0,
		  "cq: ibv_req_notify_cq solicited only");
	check_err(verb_err(ibv_destroy_cq(cq)), 0, "cq: ibv_destroy_cq");

	ch = ibv_create_comp_channel(e->ctx);
	if (!check_err(ptr_err(ch), 0, "cq: ibv_create_comp_channel"))
		return;
	cq = ibv_create_cq(e->ctx, 16, NULL, ch, 0);
	if (check_err(ptr_err(cq), 0, "cq: ibv_create_cq with a channel")) {
		check_err(verb_err(ibv_req_notify_cq(cq, 0)), 0,
			  "cq: ibv_req_notify_cq on a channel's CQ");
		check_err(verb_err(ibv_destroy_cq(cq)), 0,
			  "cq: ibv_destroy_cq of a channel's CQ");
	}
	check_err(verb_err(ibv_destroy_comp_channel(ch)), 0,
		  "cq: ibv_destroy_comp_channel");
}

/*
 * 3b. Resizing keeps the completions present and does not go below their
 * number. The completions come from flushing receives.
 */
#define RESIZE_WRID	0x3b00u
#define RESIZE_ENTRIES	20
#define RESIZE_SETTLE_MS 300	/* after the first completion, for the rest */

static void test_cq_resize_entries(struct env *e)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = QP_WR,
		.max_recv_wr = 2 * RESIZE_ENTRIES,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};
	const struct wr_ids range = { RESIZE_WRID, RESIZE_ENTRIES };
	struct ibv_wc wc[2 * RESIZE_ENTRIES];
	struct ibv_comp_channel *ch;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	int n, err;

	ch = ibv_create_comp_channel(e->ctx);
	if (ch)
		cq = ibv_create_cq(e->ctx, 64, NULL, ch, 0);
	if (cq)
		qp = create_qp_cap(e->pd, IBV_QPT_RC, cq, NULL, &cap);
	if (!check(qp, "cq resize: a QP on a CQ with a channel"))
		goto out;
	err = goto_state(e, qp, IBV_QPS_INIT);
	if (!check_err(err, 0, "cq resize: QP to INIT"))
		goto out;
	err = rc_post_recvs(qp, NULL, RESIZE_WRID, RESIZE_ENTRIES, &e->msg, 1,
			    0);
	if (!check_err(err, 0, "cq resize: %d receives posted", RESIZE_ENTRIES))
		goto out;
	ibv_req_notify_cq(cq, 0);
	err = modify_to(e, qp, IBV_QPS_ERR);
	if (!check_err(err, 0, "cq resize: QP to ERR"))
		goto out;
	err = wait_cq_event(ch, cq);
	if (!check_err(err, 0, "cq resize: completion event after the flush"))
		goto out;
	sleep_ms(RESIZE_SETTLE_MS);

	err = verb_err(ibv_resize_cq(cq, RESIZE_ENTRIES / 2));
	check_err(err, EINVAL,
		  "cq resize: below the %d completions present fails",
		  RESIZE_ENTRIES);
	err = verb_err(ibv_resize_cq(cq, RESIZE_ENTRIES + 1));
	if (check_err(err, 0, "cq resize: to %d with %d completions present",
		      RESIZE_ENTRIES + 1, RESIZE_ENTRIES))
		check(cq->cqe >= RESIZE_ENTRIES + 1, "cq resize: cqe >= %d",
		      RESIZE_ENTRIES + 1);
	n = poll_until(cq, wc, 2 * RESIZE_ENTRIES, 2 * RESIZE_ENTRIES, 100);
	check_flushed("cq resize: completions kept", qp, wc, n, &range, 1,
		      FLUSH_CHECK_EACH_FIELD);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (ch)
		ibv_destroy_comp_channel(ch);
}

/* 4. Shared receive queues */

#define SRQ_WR		16
#define SRQ_WR_GROWN	64
#define SRQ_LIMIT	4

/* post_srq_until_full() - the number of receives posted; @err: last errno */
static unsigned int post_srq_until_full(const struct env *e,
					struct ibv_srq *srq, unsigned int limit,
					int *err)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf,
		.length = MSG_BYTES,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	unsigned int n;

	*err = 0;
	for (n = 0; n < limit; n++) {
		wr.wr_id = n;
		*err = verb_err(ibv_post_srq_recv(srq, &wr, &bad));
		if (*err)
			break;
	}
	return n;
}

static void test_srq(struct env *e)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	struct ibv_srq_attr a;
	struct ibv_srq *srq;
	unsigned int n, total;
	int err;

	init.attr.max_wr = e->dev.max_srq_wr + 1;
	srq = ibv_create_srq(e->pd, &init);
	check_err(ptr_err(srq), EINVAL,
		  "srq: ibv_create_srq max_wr=max_srq_wr+1 fails");
	if (srq)
		ibv_destroy_srq(srq);
	init.attr.max_wr = SRQ_WR;
	init.attr.max_sge = e->dev.max_srq_sge + 1;
	srq = ibv_create_srq(e->pd, &init);
	check_err(ptr_err(srq), EINVAL,
		  "srq: ibv_create_srq max_sge=max_srq_sge+1 fails");
	if (srq)
		ibv_destroy_srq(srq);

	init.attr.max_sge = 1;
	srq = ibv_create_srq(e->pd, &init);
	if (!check_err(ptr_err(srq), 0, "srq: ibv_create_srq max_wr=%d",
		       SRQ_WR))
		return;
	check(init.attr.max_wr >= SRQ_WR && init.attr.max_sge >= 1,
	      "srq: max_wr and max_sge written back >= requested (%u %u)",
	      init.attr.max_wr, init.attr.max_sge);
	err = verb_err(ibv_query_srq(srq, &a));
	if (check_err(err, 0, "srq: ibv_query_srq")) {
		check(a.max_wr >= SRQ_WR, "srq: query max_wr >= %d (%u)",
		      SRQ_WR, a.max_wr);
		check(a.srq_limit == 0, "srq: query srq_limit 0 (%u)",
		      a.srq_limit);
	}
	a.srq_limit = SRQ_LIMIT;
	err = verb_err(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT));
	check_err(err, 0, "srq: ibv_modify_srq IBV_SRQ_LIMIT=%d", SRQ_LIMIT);
	err = verb_err(ibv_query_srq(srq, &a));
	check(!err && a.srq_limit == SRQ_LIMIT, "srq: query srq_limit %d (%u)",
	      SRQ_LIMIT, a.srq_limit);
	a.srq_limit = a.max_wr + 1;
	err = verb_err(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT));
	check_err(err, EINVAL, "srq: ibv_modify_srq srq_limit > max_wr fails");

	err = verb_err(ibv_query_srq(srq, &a));
	n = post_srq_until_full(e, srq, 4 * a.max_wr + 64, &err);
	if (!check(n >= a.max_wr && err == ENOMEM,
		   "srq: %u receives posted (max_wr %u), then ENOMEM", n,
		   a.max_wr))
		diag("the last post: %s", err_name(err));

	check(e->dev.device_cap_flags & IBV_DEVICE_SRQ_RESIZE,
	      "srq: device advertises IBV_DEVICE_SRQ_RESIZE");
	a.max_wr = SRQ_WR_GROWN;
	err = verb_err(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR));
	if (check_err(err, 0, "srq: ibv_modify_srq IBV_SRQ_MAX_WR grows a full SRQ to %d",
		      SRQ_WR_GROWN)) {
		err = verb_err(ibv_query_srq(srq, &a));
		check(!err && a.max_wr >= SRQ_WR_GROWN,
		      "srq: query max_wr >= %d (%u)", SRQ_WR_GROWN, a.max_wr);
		total = n + post_srq_until_full(e, srq, 4 * a.max_wr + 64,
						&err);
		if (!check(total >= a.max_wr && err == ENOMEM,
			   "srq: %u receives in the grown SRQ (max_wr %u), then ENOMEM",
			   total, a.max_wr))
			diag("the last post: %s", err_name(err));
	}
	check_err(verb_err(ibv_destroy_srq(srq)), 0,
		  "srq: ibv_destroy_srq with receives posted");
}

/*
 * wait_qp_event() - the asynchronous event @type of @qp, within @ms; the
 * other events that come first are acknowledged and passed over
 */
static bool wait_qp_event(struct env *e, struct ibv_qp *qp,
			  enum ibv_event_type type, int ms)
{
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	bool found;

	while (poll(&pfd, 1, ms) == 1) {
		if (ibv_get_async_event(e->ctx, &ev))
			return false;
		found = ev.event_type == type && ev.element.qp == qp;
		ibv_ack_async_event(&ev);
		if (found)
			return true;
	}
	return false;
}

/*
 * A QP on an SRQ moved to ERR takes no more of its WQEs: the last-WQE-
 * reached event (IBTA 11.6.3, as rdma_rxe since 6.5)
 */
static void test_srq_last_wqe(struct env *e)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	struct ibv_qp *qp = NULL;
	struct ibv_srq *srq;
	int err;

	srq = ibv_create_srq(e->pd, &init);
	if (srq)
		qp = create_qp_cap(e->pd, IBV_QPT_RC, e->cq, srq, &default_cap);
	if (!check(qp, "srq: an RC QP on an SRQ"))
		goto out;
	err = modify_to(e, qp, IBV_QPS_INIT);
	if (check_err(err, 0, "srq: its QP to INIT"))
		err = modify_state(qp, IBV_QPS_ERR);
	if (check_err(err, 0, "srq: its QP to ERR"))
		check(wait_qp_event(e, qp, IBV_EVENT_QP_LAST_WQE_REACHED,
				    EVENT_TIMEOUT_MS),
		      "srq: IBV_EVENT_QP_LAST_WQE_REACHED for that QP");
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
}

/* 5. Address handles */

static void find_gids(struct env *e)
{
	struct ibv_gid_entry *entries;
	unsigned int v2 = 0, i;
	struct in6_addr mine;
	ssize_t n;

	e->sgid_index = -1;
	entries = calloc(e->port.gid_tbl_len, sizeof(*entries));
	if (!entries)
		return;
	n = ibv_query_gid_table(e->ctx, entries, e->port.gid_tbl_len, 0);
	if (!check(n > 0, "gid: ibv_query_gid_table lists GIDs")) {
		diag("returned %zd", n);
		free(entries);
		return;
	}
	for (i = 0; i < n; i++) {
		if (entries[i].gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    entries[i].port_num != PORT)
			continue;
		v2++;
		memcpy(&mine, entries[i].gid.raw, sizeof(mine));
		if (IN6_IS_ADDR_V4MAPPED(&mine) && e->sgid_index < 0)
			e->sgid_index = entries[i].gid_index;
		if (entries[i].gid_index == 255)
			e->gid_255_valid = true;
	}
	check(v2 == n, "gid: all %zd GIDs are RoCE v2 (%u are)", n, v2);
	check(e->sgid_index >= 0, "gid: port %d has an IPv4 RoCE v2 GID (%d)",
	      PORT, e->sgid_index);
	free(entries);
}

static void test_ah(struct env *e)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = PORT,
		.grh = {
			.dgid = e->dgid,
			.sgid_index = e->sgid_index,
			.hop_limit = QP_HOP_LIMIT,
		},
	};
	struct ibv_ah *ah;

	ah = ibv_create_ah(e->pd, &attr);
	if (check_err(ptr_err(ah), 0, "ah: ibv_create_ah to %s", PEER_IPV4))
		check_err(verb_err(ibv_destroy_ah(ah)), 0, "ah: ibv_destroy_ah");
	attr.is_global = 0;
	ah = ibv_create_ah(e->pd, &attr);
	check_err(ptr_err(ah), EINVAL, "ah: ibv_create_ah with is_global=0 fails");
	if (ah)
		ibv_destroy_ah(ah);
}

/* 6. Creating QPs */

static bool drop_cap_net_raw(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	data[0].effective &= ~(1u << CAP_NET_RAW);
	return !syscall(SYS_capset, &hdr, data);
}

/*
 * create_raw_qp_unprivileged() - the errno of creating a RAW_PACKET QP
 * without CAP_NET_RAW (0 if it succeeds), or -1 if that could not be tried
 *
 * In a child process, on a context of its own: uverbs refuses the write()
 * commands librxe uses on a file opened with other credentials than the
 * caller's, so the test's own context must keep its credentials.
 */
#define CHILD_SETUP_FAILED	255

static int create_raw_qp_unprivileged(const struct env *e)
{
	struct ibv_context *ctx;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_pd *pd = NULL;
	int status, err;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		ctx = drop_cap_net_raw() ? open_device(e->name) : NULL;
		if (ctx)
			pd = ibv_alloc_pd(ctx);
		if (pd)
			cq = ibv_create_cq(ctx, QP_WR, NULL, NULL, 0);
		if (!cq)
			_exit(CHILD_SETUP_FAILED);
		qp = create_qp_cap(pd, IBV_QPT_RAW_PACKET, cq, NULL,
				   &default_cap);
		err = ptr_err(qp);
		if (qp)
			ibv_destroy_qp(qp);
		_exit(err < CHILD_SETUP_FAILED ? err : EIO);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == CHILD_SETUP_FAILED) {
		check(false, "qp create: a process without CAP_NET_RAW opens %s",
		      e->name);
		return -1;
	}
	return WEXITSTATUS(status);
}

static void check_qp_created(struct ibv_qp *qp, const char *what,
			     const struct ibv_qp_cap *want,
			     const struct ibv_qp_cap *got)
{
	if (!check(got->max_send_wr >= want->max_send_wr &&
		   got->max_recv_wr >= want->max_recv_wr &&
		   got->max_send_sge >= want->max_send_sge &&
		   got->max_recv_sge >= want->max_recv_sge &&
		   got->max_inline_data >= want->max_inline_data,
		   "%s: caps written back >= requested", what))
		diag("send_wr %u recv_wr %u send_sge %u recv_sge %u inline %u",
		     got->max_send_wr, got->max_recv_wr, got->max_send_sge,
		     got->max_recv_sge, got->max_inline_data);
	check(qp->qp_num >= QPN_FIRST_USER && qp->qp_num < PSN_LIMIT,
	      "%s: qp_num %u is a user QPN", what, qp->qp_num);
	check_state(qp, IBV_QPS_RESET, what);
}

static void test_qp_create(struct env *e)
{
	const struct ibv_qp_cap want = {
		.max_send_wr = QP_WR,
		.max_recv_wr = QP_WR,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.max_inline_data = QP_INLINE_BYTES,
	};
	static const struct {
		const char *name;
		enum ibv_qp_type type;
	} types[] = {
		{ "RC", IBV_QPT_RC },
		{ "UC", IBV_QPT_UC },
		{ "UD", IBV_QPT_UD },
		{ "RAW_PACKET", IBV_QPT_RAW_PACKET },
	};
	struct ibv_srq_init_attr srq_init = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	struct ibv_qp_cap cap;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	char what[64];
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		struct ibv_qp_init_attr init = {
			.send_cq = e->cq,
			.recv_cq = e->cq,
			.cap = want,
			.qp_type = types[i].type,
		};

		snprintf(what, sizeof(what), "qp create %s", types[i].name);
		qp = ibv_create_qp(e->pd, &init);
		if (!check_err(ptr_err(qp), 0, "%s", what))
			continue;
		check_qp_created(qp, what, &want, &init.cap);
		check_err(verb_err(ibv_destroy_qp(qp)), 0, "%s: ibv_destroy_qp",
			  what);
	}

	err = create_raw_qp_unprivileged(e);
	if (err >= 0)
		check_err(err, EPERM,
			  "qp create RAW_PACKET without CAP_NET_RAW fails");

	/* Beyond the device's limits */
	cap = want;
	cap.max_send_wr = e->dev.max_qp_wr + 1;
	check_create_refused(e, &cap, "qp create: max_send_wr > max_qp_wr fails");
	cap = want;
	cap.max_recv_wr = e->dev.max_qp_wr + 1;
	check_create_refused(e, &cap, "qp create: max_recv_wr > max_qp_wr fails");
	cap = want;
	cap.max_send_sge = e->dev.max_sge + 1;
	check_create_refused(e, &cap, "qp create: max_send_sge > max_sge fails");
	cap = want;
	cap.max_recv_sge = e->dev.max_sge + 1;
	check_create_refused(e, &cap, "qp create: max_recv_sge > max_sge fails");
	cap = want;
	cap.max_inline_data = QP_ABSURD_INLINE_BYTES;
	check_create_refused(e, &cap, "qp create: max_inline_data 1 MiB fails");

	/* With an SRQ: the receive queue's caps are ignored */
	srq = ibv_create_srq(e->pd, &srq_init);
	if (!check_err(ptr_err(srq), 0, "qp create: an SRQ for QPs"))
		return;
	for (i = 0; i < 2; i++) {
		enum ibv_qp_type type = i ? IBV_QPT_UD : IBV_QPT_RC;

		cap = want;
		cap.max_recv_wr = e->dev.max_qp_wr + 1;
		cap.max_recv_sge = e->dev.max_sge + 1;
		qp = create_qp_cap(e->pd, type, e->cq, srq, &cap);
		if (check_err(ptr_err(qp), 0,
			      "qp create %s with an SRQ, recv caps beyond the limits",
			      qp_types[type].name)) {
			err = goto_state(e, qp, IBV_QPS_RTS);
			check_err(err, 0, "qp create %s with an SRQ: to RTS",
				  qp_types[type].name);
			check_err(verb_err(ibv_destroy_qp(qp)), 0,
				  "qp create %s with an SRQ: ibv_destroy_qp",
				  qp_types[type].name);
		}
	}
	/* ibv_create_qp(3): only RC and UD QPs take an SRQ */
	qp = create_qp_cap(e->pd, IBV_QPT_UC, e->cq, srq, &want);
	check_fails(ptr_err(qp), "qp create UC with an SRQ fails");
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_srq(srq);
}

/* 7. The state machine */

static void check_attrs_after_rts(struct env *e, struct ibv_qp *qp)
{
	enum ibv_qp_type type = qp->qp_type;
	struct ibv_qp_attr want, got;
	char what[64];
	struct attr_cmp c = {
		.mode = CMP_CHECK,
		.mask = qp_types[type].init_mask | qp_types[type].rtr_mask |
			qp_types[type].rts_mask,
		.what = what,
		.ref = "set",
	};
	int err;

	snprintf(what, sizeof(what), "qp %s in RTS", qp_types[type].name);
	fill_attr(e, type, IBV_QPS_RTS, &want);
	err = query_qp(qp, &got);
	if (check_err(err, 0, "%s: ibv_query_qp", what))
		cmp_attrs(&c, &got, &want);
}

static void walk_to_rts(struct env *e, struct ibv_qp *qp)
{
	const char *name = qp_types[qp->qp_type].name;
	static const enum ibv_qp_state steps[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
	};
	enum ibv_qp_state from = IBV_QPS_RESET;
	char what[64];
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		snprintf(what, sizeof(what), "qp %s %s->%s", name,
			 rc_state_name(from), rc_state_name(steps[i]));
		err = modify_to(e, qp, steps[i]);
		if (!check_err(err, 0, "%s with the required attributes", what))
			return;
		check_state(qp, steps[i], what);
		from = steps[i];
	}
	check_attrs_after_rts(e, qp);
}

/*
 * Invalid modify_qp requests. Each must fail with EINVAL and change
 * nothing. The request is the attributes @to requires, minus @drop, plus
 * @add, with one value made invalid (@bad).
 */
enum bad_value {
	BAD_NONE,
	BAD_PORT_2,
	BAD_PKEY_INDEX_1,
	BAD_MTU_2048,
	BAD_MTU_4096,
	BAD_DEST_QPN,
	BAD_TIMEOUT,
	BAD_RETRY_CNT,
	BAD_RNR_RETRY,
	BAD_MIN_RNR_TIMER,
	BAD_MAX_RD_ATOMIC,
	BAD_MAX_DEST_RD_ATOMIC,
	BAD_NOT_GLOBAL,
	BAD_SGID_INDEX,
	BAD_CUR_STATE,
	BAD_SQD_NOTIFY,
	BAD_CAP,
};

struct bad_modify {
	int err;		/* the errno expected; 0 means EINVAL */
	const char *name;
	unsigned int types;		/* TYPE_BIT()s it applies to */
	enum ibv_qp_state from, to;
	int add, drop;
	enum bad_value bad;
};

/*
 * set_bad_value() - make @a carry @bad; false if this device cannot be
 * given that value (its limit is the largest the field holds)
 */
static bool set_bad_value(const struct env *e, enum ibv_qp_type type,
			  enum bad_value bad, struct ibv_qp_attr *a)
{
	switch (bad) {
	case BAD_NONE:
		break;
	case BAD_PORT_2:
		a->port_num = PORT + 1;
		break;
	case BAD_PKEY_INDEX_1:
		a->pkey_index = 1;
		break;
	case BAD_MTU_2048:
		a->path_mtu = IBV_MTU_2048;
		break;
	case BAD_MTU_4096:
		a->path_mtu = IBV_MTU_4096;
		break;
	case BAD_DEST_QPN:
		a->dest_qp_num = PSN_LIMIT;
		break;
	case BAD_TIMEOUT:
		a->timeout = TIMEOUT_LIMIT;
		break;
	case BAD_RETRY_CNT:
		a->retry_cnt = RETRY_LIMIT;
		break;
	case BAD_RNR_RETRY:
		a->rnr_retry = RETRY_LIMIT;
		break;
	case BAD_MIN_RNR_TIMER:
		a->min_rnr_timer = TIMEOUT_LIMIT;
		break;
	case BAD_MAX_RD_ATOMIC:
		if (e->dev.max_qp_init_rd_atom >= UCHAR_MAX)
			return false;
		a->max_rd_atomic = e->dev.max_qp_init_rd_atom + 1;
		break;
	case BAD_MAX_DEST_RD_ATOMIC:
		if (e->dev.max_qp_rd_atom >= UCHAR_MAX)
			return false;
		a->max_dest_rd_atomic = e->dev.max_qp_rd_atom + 1;
		break;
	case BAD_NOT_GLOBAL:
		a->ah_attr.is_global = 0;
		break;
	case BAD_SGID_INDEX:
		if (e->gid_255_valid)
			return false;
		a->ah_attr.grh.sgid_index = 255;
		break;
	case BAD_CUR_STATE:
		/*
		 * A state from which the request (STATE and CUR_STATE only)
		 * would be valid: RTS -> RTS for RC, SQE -> RTS otherwise.
		 */
		a->cur_qp_state = type == IBV_QPT_RC ? IBV_QPS_RTS :
						       IBV_QPS_SQE;
		break;
	case BAD_SQD_NOTIFY:
		a->en_sqd_async_notify = 1;
		break;
	case BAD_CAP:
		if (e->dev.device_cap_flags & IBV_DEVICE_RESIZE_MAX_WR)
			return false;
		a->cap = default_cap;
		a->cap.max_send_wr *= 2;
		break;
	}
	return true;
}

static const struct bad_modify bad_modifies[] = {
	{
		.name = "RESET->RTR",
		.types = ALL_TYPES, .from = IBV_QPS_RESET, .to = IBV_QPS_RTR,
	}, {
		.name = "INIT->RTS",
		.types = ALL_TYPES, .from = IBV_QPS_INIT, .to = IBV_QPS_RTS,
	}, {
		.name = "RESET->INIT with IBV_QP_QKEY",
		.types = CONNECTED, .from = IBV_QPS_RESET, .to = IBV_QPS_INIT,
		.add = IBV_QP_QKEY,
	}, {
		.name = "INIT->RTR with IBV_QP_SQ_PSN",
		.types = ALL_TYPES, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.add = IBV_QP_SQ_PSN,
	}, {
		.name = "INIT->RTR without IBV_QP_MIN_RNR_TIMER",
		.types = RC_ONLY, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.drop = IBV_QP_MIN_RNR_TIMER,
	}, {
		.name = "INIT->RTR without IBV_QP_AV",
		.types = CONNECTED, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.drop = IBV_QP_AV,
	}, {
		.name = "RTR->RTS without IBV_QP_SQ_PSN",
		.types = ALL_TYPES, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.drop = IBV_QP_SQ_PSN,
	}, {
		.name = "RTR->RTS without IBV_QP_RETRY_CNT",
		.types = RC_ONLY, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.drop = IBV_QP_RETRY_CNT,
	}, {
		.name = "RESET->INIT with port_num 2",
		.types = ALL_TYPES, .from = IBV_QPS_RESET, .to = IBV_QPS_INIT,
		.bad = BAD_PORT_2,
	}, {
		.name = "RESET->INIT with pkey_index 1",
		.types = ALL_TYPES, .from = IBV_QPS_RESET, .to = IBV_QPS_INIT,
		.bad = BAD_PKEY_INDEX_1,
	}, {
		.name = "INIT->RTR with path_mtu 2048",
		.types = CONNECTED, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.bad = BAD_MTU_2048,
	}, {
		.name = "INIT->RTR with path_mtu 4096",
		.types = CONNECTED, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.bad = BAD_MTU_4096,
	}, {
		.name = "INIT->RTR with dest_qp_num 2^24",
		.types = CONNECTED, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.bad = BAD_DEST_QPN,
	}, {
		.name = "RTR->RTS with timeout 32",
		.types = RC_ONLY, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.bad = BAD_TIMEOUT,
	}, {
		.name = "RTR->RTS with retry_cnt 8",
		.types = RC_ONLY, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.bad = BAD_RETRY_CNT,
	}, {
		.name = "RTR->RTS with rnr_retry 8",
		.types = RC_ONLY, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.bad = BAD_RNR_RETRY,
	}, {
		.name = "INIT->RTR with min_rnr_timer 32",
		.types = RC_ONLY, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.bad = BAD_MIN_RNR_TIMER,
	}, {
		.name = "RTR->RTS with max_rd_atomic > max_qp_init_rd_atom",
		.types = RC_ONLY, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.bad = BAD_MAX_RD_ATOMIC,
	}, {
		.name = "INIT->RTR with max_dest_rd_atomic > max_qp_rd_atom",
		.types = RC_ONLY, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.bad = BAD_MAX_DEST_RD_ATOMIC,
	}, {
		.name = "INIT->RTR with is_global=0 in the AV",
		.types = CONNECTED, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.bad = BAD_NOT_GLOBAL,
	}, {
		/* ib_core looks the GID up first: ENODATA */
		.name = "INIT->RTR with sgid_index 255 (no GID there)",
		.types = CONNECTED, .from = IBV_QPS_INIT, .to = IBV_QPS_RTR,
		.bad = BAD_SGID_INDEX, .err = ENODATA,
	}, {
		.name = "RTR->RTS with IBV_QP_CUR_STATE not the current state",
		.types = ALL_TYPES, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.drop = ~IBV_QP_STATE, .add = IBV_QP_CUR_STATE,
		.bad = BAD_CUR_STATE,
	}, {
		.name = "RTR->RTS with IBV_QP_EN_SQD_ASYNC_NOTIFY",
		.types = ALL_TYPES, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.add = IBV_QP_EN_SQD_ASYNC_NOTIFY, .bad = BAD_SQD_NOTIFY,
	}, {
		.name = "RTR->RTS with IBV_QP_CAP (resizing not advertised)",
		.types = ALL_TYPES, .from = IBV_QPS_RTR, .to = IBV_QPS_RTS,
		.add = IBV_QP_CAP, .bad = BAD_CAP,
	},
};

#define N_BAD_MODIFIES	(ARRAY_SIZE(bad_modifies))

static void try_bad_modify(struct env *e, struct ibv_qp *qp,
			   const struct bad_modify *b)
{
	enum ibv_qp_type type = qp->qp_type;
	struct ibv_qp_attr a, before, after;
	char what[128];
	struct attr_cmp c = {
		.mode = CMP_COUNT,
		.mask = QUERY_MASK,
		.what = what,
		.ref = "before",
	};
	int mask, err;

	snprintf(what, sizeof(what), "qp %s %s", qp_types[type].name, b->name);
	fill_attr(e, type, b->to, &a);
	if (!set_bad_value(e, type, b->bad, &a)) {
		diag("%s: the device's limits leave no invalid value", what);
		return;
	}
	mask = (required_mask(type, b->to) & ~b->drop) | b->add;

	err = goto_state(e, qp, b->from);
	if (!check_err(err, 0, "%s: set-up to %s", what, rc_state_name(b->from)))
		return;
	err = query_qp(qp, &before);
	if (!check_err(err, 0, "%s: ibv_query_qp before", what))
		return;
	err = verb_err(ibv_modify_qp(qp, &a, mask));
	check_err(err, b->err ? b->err : EINVAL, "%s fails", what);
	err = query_qp(qp, &after);
	if (!check_err(err, 0, "%s: ibv_query_qp after", what))
		return;
	if (!check(!cmp_attrs(&c, &after, &before),
		   "%s: state and attributes unchanged", what)) {
		c.mode = CMP_DIAG;
		cmp_attrs(&c, &after, &before);
	}
}

/*
 * ib_core masks PSNs wider than 24 bits (with a kernel warning) before the
 * driver sees them: the modify succeeds with the low 24 bits.
 */
static void check_psn_masked(struct env *e, struct ibv_qp *qp)
{
	const char *name = qp_types[qp->qp_type].name;
	struct ibv_qp_attr a, q;
	int err;

	if (qp->qp_type == IBV_QPT_UD)
		return;		/* UD has no rq_psn */
	err = goto_state(e, qp, IBV_QPS_INIT);
	if (!check_err(err, 0, "qp %s rq_psn 2^24 + 0x123: set-up to INIT",
		       name))
		return;
	fill_attr(e, qp->qp_type, IBV_QPS_RTR, &a);
	a.rq_psn = PSN_LIMIT | 0x123;
	err = verb_err(ibv_modify_qp(qp, &a, required_mask(qp->qp_type,
							   IBV_QPS_RTR)));
	check_err(err, 0, "qp %s INIT->RTR with rq_psn 2^24 + 0x123", name);
	err = query_qp(qp, &q);
	if (check_err(err, 0, "qp %s rq_psn 2^24 + 0x123: ibv_query_qp", name))
		check(q.rq_psn == 0x123, "qp %s rq_psn masked to 24 bits (0x%x)",
		      name, q.rq_psn);
}

static void test_states(struct env *e, enum ibv_qp_type type)
{
	static const enum ibv_qp_state all[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
		IBV_QPS_SQD, IBV_QPS_ERR,
	};
	const char *name = qp_types[type].name;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	char what[64];
	unsigned int i, j;
	int err;

	qp = create_qp(e, type, e->cq);
	if (!check_err(ptr_err(qp), 0, "qp %s: ibv_create_qp", name))
		return;
	walk_to_rts(e, qp);

	/* RTS -> RTS with the right current state */
	fill_attr(e, type, IBV_QPS_RTS, &a);
	a.cur_qp_state = IBV_QPS_RTS;
	err = verb_err(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE));
	check_err(err, 0, "qp %s RTS->RTS with IBV_QP_CUR_STATE RTS", name);

	/* RTS -> SQD -> RTS */
	snprintf(what, sizeof(what), "qp %s RTS->SQD", name);
	err = modify_to(e, qp, IBV_QPS_SQD);
	if (check_err(err, 0, "%s", what)) {
		check_state(qp, IBV_QPS_SQD, what);
		err = wait_drained(qp);
		check_err(err, 0, "%s: drained within %d ms", what,
			  EVENT_TIMEOUT_MS);
		snprintf(what, sizeof(what), "qp %s SQD->RTS", name);
		err = modify_state(qp, IBV_QPS_RTS);
		if (check_err(err, 0, "%s", what))
			check_state(qp, IBV_QPS_RTS, what);
	}

	/* RTS -> ERR -> RESET -> INIT: usable again */
	err = goto_state(e, qp, IBV_QPS_RTS);
	err = err ? err : modify_to(e, qp, IBV_QPS_ERR);
	check_err(err, 0, "qp %s RTS->ERR", name);
	err = modify_to(e, qp, IBV_QPS_RESET);
	check_err(err, 0, "qp %s ERR->RESET", name);
	err = modify_to(e, qp, IBV_QPS_INIT);
	check_err(err, 0, "qp %s RESET->INIT after ERR", name);
	err = modify_to(e, qp, IBV_QPS_RTR);
	err = err ? err : modify_to(e, qp, IBV_QPS_RTS);
	check_err(err, 0, "qp %s to RTS again after reset", name);
	err = rc_post_recvs(qp, NULL, 0, 1, &e->msg, 1, 0);
	check_err(err, 0, "qp %s ibv_post_recv after reset", name);

	check_psn_masked(e, qp);

	/* Every state to ERR and to RESET */
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		for (j = 0; j < 2; j++) {
			enum ibv_qp_state to = j ? IBV_QPS_RESET : IBV_QPS_ERR;

			err = goto_state(e, qp, all[i]);
			if (!check_err(err, 0, "qp %s set-up to %s", name,
				       rc_state_name(all[i])))
				continue;
			snprintf(what, sizeof(what), "qp %s %s->%s", name,
				 rc_state_name(all[i]), rc_state_name(to));
			/* the IBTA table (and ib_core's) has no RESET->ERR */
			if (all[i] == IBV_QPS_RESET && to == IBV_QPS_ERR) {
				err = modify_to(e, qp, to);
				if (check_err(err, EINVAL, "%s fails", what))
					check_state(qp, IBV_QPS_RESET, what);
				continue;
			}
			err = modify_to(e, qp, to);
			if (check_err(err, 0, "%s", what))
				check_state(qp, to, what);
		}
	}

	for (i = 0; i < N_BAD_MODIFIES; i++) {
		if (!(bad_modifies[i].types & TYPE_BIT(type)))
			continue;
		try_bad_modify(e, qp, &bad_modifies[i]);
	}
	check_err(verb_err(ibv_destroy_qp(qp)), 0, "qp %s: ibv_destroy_qp",
		  name);
}

/* 7b. Flushing */

#define FLUSH_RECV_WRID		0x7100u
#define FLUSH_SEND_WRID		0x7200u
#define ERR_SEND_WRID		0x7300u
#define ERR_RECV_WRID		0x7400u
#define DOORBELL_WRID		0x7500u
#define FLUSH_RECVS		5
#define FLUSH_SENDS		3
#define ERR_SENDS		2
#define ERR_RECVS		2
#define QUIET_MS		100
#define EARLY_SEND_WRID		0x7600u

static void test_flush(struct env *e)
{
	const struct wr_ids flushed[] = {
		{ FLUSH_RECV_WRID, FLUSH_RECVS },
		{ FLUSH_SEND_WRID, FLUSH_SENDS },
	};
	const struct wr_ids in_err[] = { { ERR_SEND_WRID, ERR_SENDS } };
	const struct wr_ids doorbell[] = {
		{ ERR_RECV_WRID, ERR_RECVS },
		{ DOORBELL_WRID, 1 },
	};
	struct ibv_comp_channel *ch;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_wc wc[32];
	int n, err;

	ch = ibv_create_comp_channel(e->ctx);
	if (ch)
		cq = ibv_create_cq(e->ctx, 64, NULL, ch, 0);
	if (cq)
		qp = create_qp(e, IBV_QPT_RC, cq);
	if (!check(qp, "flush: an RC QP on a CQ with a completion channel"))
		goto out;
	err = goto_state(e, qp, IBV_QPS_RTR);
	if (!check_err(err, 0, "flush: QP to RTR"))
		goto out;
	err = rc_post_recvs(qp, NULL, FLUSH_RECV_WRID, FLUSH_RECVS, &e->msg, 1,
			    0);
	if (!check_err(err, 0, "flush: %d receives posted in RTR",
		       FLUSH_RECVS))
		goto out;
	err = modify_to(e, qp, IBV_QPS_RTS);
	if (!check_err(err, 0, "flush: QP to RTS"))
		goto out;
	err = post_sends(e, qp, FLUSH_SEND_WRID, FLUSH_SENDS);
	if (!check_err(err, 0, "flush: %d sends posted to a QP nobody has",
		       FLUSH_SENDS))
		goto out;
	err = verb_err(ibv_req_notify_cq(cq, 0));
	check_err(err, 0, "flush: ibv_req_notify_cq armed");
	err = modify_to(e, qp, IBV_QPS_ERR);
	if (!check_err(err, 0, "flush: RTS->ERR"))
		goto out;
	n = poll_until(cq, wc, 32, FLUSH_RECVS + FLUSH_SENDS, EVENT_TIMEOUT_MS);
	check_flushed("flush: RTS->ERR", qp, wc, n, flushed, 2,
		      FLUSH_CHECK_EACH_FIELD);
	err = wait_cq_event(ch, cq);
	check_err(err, 0, "flush: a completion event on the channel");

	err = post_sends(e, qp, ERR_SEND_WRID, ERR_SENDS);
	check_err(err, 0, "flush: ibv_post_send in ERR");
	n = poll_until(cq, wc, 32, ERR_SENDS, EVENT_TIMEOUT_MS);
	check_flushed("flush: sends posted in ERR", qp, wc, n, in_err, 1,
		      FLUSH_CHECK_EACH_FIELD);

	err = rc_post_recvs(qp, NULL, ERR_RECV_WRID, ERR_RECVS, &e->msg, 1,
			    0);
	check_err(err, 0, "flush: ibv_post_recv in ERR");
	err = post_sends(e, qp, DOORBELL_WRID, 1);
	check_err(err, 0, "flush: ibv_post_send in ERR (the doorbell)");
	n = poll_until(cq, wc, 32, ERR_RECVS + 1, EVENT_TIMEOUT_MS);
	check_flushed("flush: receives posted in ERR, after a doorbell", qp,
		      wc, n, doorbell, 2, FLUSH_CHECK_EACH_FIELD);

	sleep_ms(QUIET_MS);
	n = ibv_poll_cq(cq, 32, wc);
	check(n == 0, "flush: no other completion (%d)", n);
out:
	if (qp)
		check_err(verb_err(ibv_destroy_qp(qp)), 0,
			  "flush: ibv_destroy_qp");
	if (cq)
		check_err(verb_err(ibv_destroy_cq(cq)), 0,
			  "flush: ibv_destroy_cq");
	if (ch)
		ibv_destroy_comp_channel(ch);
}

/*
 * Sends before RTS: ibv_post_send and the ibv_wr_* API both fail with
 * EINVAL in INIT and RTR (the doorbell refuses them), and the WQEs librxe
 * wrote into the ring leave it: in RTS and then ERR none of them completes.
 */
static void test_send_before_rts(struct env *e)
{
	static const enum ibv_qp_state states[] = { IBV_QPS_INIT, IBV_QPS_RTR };
	struct ibv_qp_init_attr_ex init = {
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.cap = default_cap,
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	struct ibv_wc wc[8];
	unsigned int i;
	int n, err;

	qp = ibv_create_qp_ex(e->ctx, &init);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!check(qpx, "send before RTS: an RC QP with the ibv_wr_* API"))
		goto out;
	while (ibv_poll_cq(e->cq, ARRAY_SIZE(wc), wc) > 0)
		;	/* what earlier tests left */
	for (i = 0; i < ARRAY_SIZE(states); i++) {
		err = modify_to(e, qp, states[i]);
		if (!check_err(err, 0, "send before RTS: QP to %s",
			       rc_state_name(states[i])))
			goto out;
		err = post_sends(e, qp, EARLY_SEND_WRID + 2 * i, 1);
		check_err(err, EINVAL, "send before RTS: ibv_post_send in %s",
			  rc_state_name(states[i]));
		ibv_wr_start(qpx);
		qpx->wr_id = EARLY_SEND_WRID + 2 * i + 1;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, e->mr->lkey, (uintptr_t)e->buf, MSG_BYTES);
		err = ibv_wr_complete(qpx);
		check_err(err, EINVAL, "send before RTS: ibv_wr_complete in %s",
			  rc_state_name(states[i]));
	}
	err = modify_to(e, qp, IBV_QPS_RTS);
	if (!check_err(err, 0, "send before RTS: QP to RTS"))
		goto out;
	err = modify_to(e, qp, IBV_QPS_ERR);
	if (!check_err(err, 0, "send before RTS: RTS->ERR"))
		goto out;
	sleep_ms(QUIET_MS);
	n = ibv_poll_cq(e->cq, ARRAY_SIZE(wc), wc);
	check(n == 0, "send before RTS: none of the refused sends completes (%d)",
	      n);
out:
	if (qp)
		check_err(verb_err(ibv_destroy_qp(qp)), 0,
			  "send before RTS: ibv_destroy_qp");
}

/* 8. Destroying with work outstanding */

static void test_destroy_busy(struct env *e)
{
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	int err;

	cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	if (!check_err(ptr_err(cq), 0, "destroy: a CQ"))
		return;
	qp = create_qp(e, IBV_QPT_RC, cq);
	if (check_err(ptr_err(qp), 0, "destroy: an RC QP")) {
		err = goto_state(e, qp, IBV_QPS_RTR);
		err = err ? err : rc_post_recvs(qp, NULL, 0, 4, &e->msg, 1,
						0);
		err = err ? err : modify_to(e, qp, IBV_QPS_RTS);
		err = err ? err : post_sends(e, qp, 0, 4);
		check_err(err, 0, "destroy: 4 receives and 4 sends outstanding");
		check_err(verb_err(ibv_destroy_qp(qp)), 0,
			  "destroy: ibv_destroy_qp with work outstanding");
	}
	check_err(verb_err(ibv_destroy_cq(cq)), 0,
		  "destroy: then ibv_destroy_cq of its CQ");
}

/* 9. Destroying in the wrong order */

static void test_destroy_order(struct env *e)
{
	struct ibv_ah_attr ah_attr = {
		.is_global = 1,
		.port_num = PORT,
		.grh = {
			.dgid = e->dgid,
			.sgid_index = e->sgid_index,
			.hop_limit = QP_HOP_LIMIT,
		},
	};
	struct ibv_srq_init_attr srq_init = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_pd *pd;

	pd = ibv_alloc_pd(e->ctx);
	if (!check_err(ptr_err(pd), 0, "order: a PD"))
		return;
	cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	srq = ibv_create_srq(pd, &srq_init);
	if (cq && srq)
		qp = create_qp_cap(pd, IBV_QPT_RC, cq, srq, &default_cap);
	if (!check(qp, "order: a QP on a CQ and an SRQ"))
		goto out;
	check_err(verb_err(ibv_destroy_cq(cq)), EBUSY,
		  "order: ibv_destroy_cq of a CQ a QP uses fails");
	check_err(verb_err(ibv_destroy_srq(srq)), EBUSY,
		  "order: ibv_destroy_srq of an SRQ a QP uses fails");
	check_err(verb_err(ibv_dealloc_pd(pd)), EBUSY,
		  "order: ibv_dealloc_pd with a QP fails");
	check_err(verb_err(ibv_destroy_qp(qp)), 0, "order: ibv_destroy_qp");
	qp = NULL;
	check_err(verb_err(ibv_destroy_srq(srq)), 0,
		  "order: then ibv_destroy_srq");
	srq = NULL;
	check_err(verb_err(ibv_destroy_cq(cq)), 0, "order: then ibv_destroy_cq");
	cq = NULL;
	ah = ibv_create_ah(pd, &ah_attr);
	if (check_err(ptr_err(ah), 0, "order: an AH")) {
		check_err(verb_err(ibv_dealloc_pd(pd)), EBUSY,
			  "order: ibv_dealloc_pd with an AH fails");
		check_err(verb_err(ibv_destroy_ah(ah)), 0,
			  "order: ibv_destroy_ah");
		ah = NULL;
	}
	check_err(verb_err(ibv_dealloc_pd(pd)), 0,
		  "order: then ibv_dealloc_pd");
	pd = NULL;
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (ah)
		ibv_destroy_ah(ah);
	if (srq)
		ibv_destroy_srq(srq);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : DEFAULT_DEVICE;
	struct env env = { .sgid_index = -1 };
	struct env *e = &env;
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(RUN_TIMEOUT_S);

	e->name = name;
	e->ctx = open_device(name);
	if (!e->ctx) {
		printf("Bail out! cannot open %s: %s\n", name, strerror(errno));
		return 2;
	}
	if (ibv_query_device(e->ctx, &e->dev) ||
	    ibv_query_port(e->ctx, PORT, &e->port)) {
		printf("Bail out! cannot query %s: %s\n", name, strerror(errno));
		return 2;
	}
	diag("device %s, %s", name, ibv_node_type_str(e->ctx->device->node_type));
	e->dgid.raw[10] = 0xff;
	e->dgid.raw[11] = 0xff;
	inet_pton(AF_INET, PEER_IPV4, &e->dgid.raw[12]);
	e->buf = calloc(1, BUF_BYTES);
	e->pd = ibv_alloc_pd(e->ctx);
	if (e->pd && e->buf)
		e->mr = ibv_reg_mr(e->pd, e->buf, BUF_BYTES,
				   IBV_ACCESS_LOCAL_WRITE);
	e->cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
	if (!e->mr || !e->cq) {
		printf("Bail out! no PD, MR or CQ to test with: %s\n",
		       strerror(errno));
		return 2;
	}
	e->msg.addr = (uintptr_t)e->buf;
	e->msg.length = MSG_BYTES;
	e->msg.lkey = e->mr->lkey;

	test_device(e);
	find_gids(e);
	test_pd(e);
	test_mr(e);
	test_cq(e);
	test_srq(e);
	test_srq_last_wqe(e);
	test_ah(e);
	test_qp_create(e);
	for (i = 0; i < N_TESTED_TYPES; i++)
		test_states(e, tested_types[i]);
	test_flush(e);
	test_send_before_rts(e);
	test_cq_resize_entries(e);
	test_destroy_busy(e);
	test_destroy_order(e);

	check_err(verb_err(ibv_destroy_cq(e->cq)), 0, "teardown: ibv_destroy_cq");
	check_err(verb_err(ibv_dereg_mr(e->mr)), 0, "teardown: ibv_dereg_mr");
	check_err(verb_err(ibv_dealloc_pd(e->pd)), 0, "teardown: ibv_dealloc_pd");
	check_err(verb_err(ibv_close_device(e->ctx)), 0,
		  "teardown: ibv_close_device");
	free(e->buf);

	printf("1..%u\n", tests_run);
	diag("%u of %u checks passed", tests_run - tests_failed, tests_run);
	return tests_failed ? 1 : 0;
}
