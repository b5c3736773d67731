// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Two RC (or UC) queue pairs connected to each other (tests/rc_pair.h):
 * devices and their GIDs, PD/CQ/SRQ/QP creation, Reset -> Init -> RTR ->
 * RTS, registered buffers and the per-byte pattern.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rc_pair.h"

/* Time */

long long rc_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* rc_ack_timeout_us() - the IBTA local ACK timeout, 4.096 us * 2^@t */
long long rc_ack_timeout_us(unsigned int t)
{
	return t ? (4096LL << t) / 1000 : 0;
}

/* Names */

const char *rc_state_name(int state)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET",
		[IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR",
		[IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD",
		[IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
		[IBV_QPS_UNKNOWN] = "UNKNOWN",
	};

	if (state < 0 || state >= (int)ARRAY_SIZE(names) || !names[state])
		return "?";
	return names[state];
}

/* rc_errno() - set errno to @err and return it */
int rc_errno(int err)
{
	errno = err;
	return err;
}

/* The errno of a verb returning an errno value, or -1 and errno */
int rc_verb_err(int ret)
{
	if (!ret)
		return 0;
	if (ret < 0)
		return errno ? errno : EIO;
	return ret;
}

/* The errno of a verb returning an object, or NULL and errno */
int rc_ptr_err(const void *p)
{
	if (p)
		return 0;
	return errno ? errno : EIO;
}

/* Devices and GIDs */

static bool rc_gid_is_ipv4(const union ibv_gid *gid)
{
	static const unsigned char prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

/*
 * rc_gid_type() - the type of GID @index of @port, as sysfs gives it
 * ("RoCE v2", "IB/RoCE v1"); false for an empty entry
 */
static bool rc_gid_type(const char *dev, int port, int index,
			char *type, size_t size)
{
	char path[256];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%d/gid_attrs/types/%d",
		 dev, port, index);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(type, size, f);
	fclose(f);
	if (ok)
		type[strcspn(type, "\n")] = '\0';
	return ok;
}

/*
 * rc_find_gid() - the first RoCE v2 GID of port 1 that holds an IPv4
 * address: its type from sysfs, its value from ibv_query_gid()
 */
int rc_find_gid(struct rc_dev *d)
{
	char type[32];
	int i;

	for (i = 0; i < d->port.gid_tbl_len; i++) {
		if (!rc_gid_type(d->name, RC_PORT, i, type, sizeof(type)) ||
		    strcmp(type, "RoCE v2"))
			continue;
		if (ibv_query_gid(d->ctx, RC_PORT, i, &d->gid) ||
		    !rc_gid_is_ipv4(&d->gid))
			continue;
		d->gid_index = i;
		return 0;
	}
	diag("%s: no RoCE v2 IPv4 GID on port %d", d->name, RC_PORT);
	return rc_errno(ENODATA);
}

void rc_dev_close(struct rc_dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
}

/* rc_dev_open() - open @name, query it and port 1, find the GID, make a PD */
int rc_dev_open(struct rc_dev *d, const char *name)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->name = name;
	d->gid_index = -1;
	d->ctx = open_device(name);
	if (!d->ctx) {
		err = errno ? errno : ENODEV;
		diag("%s: cannot open: %s", name, strerror(err));
		return err;
	}
	err = rc_verb_err(ibv_query_device(d->ctx, &d->attr));
	if (!err)
		err = rc_verb_err(ibv_query_port(d->ctx, RC_PORT, &d->port));
	if (err) {
		diag("%s: cannot query: %s", name, strerror(err));
		goto fail;
	}
	err = rc_find_gid(d);
	if (err)
		goto fail;
	d->pd = ibv_alloc_pd(d->ctx);
	err = rc_ptr_err(d->pd);
	if (err) {
		diag("%s: ibv_alloc_pd: %s", name, strerror(err));
		goto fail;
	}
	return 0;
fail:
	rc_dev_close(d);
	d->name = name;
	return err;
}

/* Queue pairs */

void rc_qp_opts_default(struct rc_qp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->send_wr = RC_WR;
	o->recv_wr = RC_WR;
	o->send_sge = RC_SGE;
	o->recv_sge = RC_SGE;
	o->inline_bytes = RC_INLINE_BYTES;
	o->cqe = RC_CQE;
}

void rc_end_destroy(struct rc_end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->srq)
		ibv_destroy_srq(e->srq);
	if (e->rcq)
		ibv_destroy_cq(e->rcq);
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->ch)
		ibv_destroy_comp_channel(e->ch);
	memset(e, 0, sizeof(*e));
}

/* rc_end_create() - CQs, the SRQ if asked for, and a QP in Reset */
int rc_end_create(struct rc_end *e, struct rc_dev *d,
		  const struct rc_qp_opts *o)
{
	struct ibv_qp_init_attr init = {
		.qp_type = o->qp_type ? o->qp_type : IBV_QPT_RC,
		.sq_sig_all = o->sq_sig_all,
		.cap = {
			.max_send_wr = o->send_wr,
			.max_recv_wr = o->srq_wr ? 0 : o->recv_wr,
			.max_send_sge = o->send_sge,
			.max_recv_sge = o->srq_wr ? 0 : o->recv_sge,
			.max_inline_data = o->inline_bytes,
		},
	};
	const char *what;
	int err;

	memset(e, 0, sizeof(*e));
	e->dev = d;
	if (o->recv_channel) {
		what = "ibv_create_comp_channel";
		e->ch = ibv_create_comp_channel(d->ctx);
		err = rc_ptr_err(e->ch);
		if (err)
			goto fail;
	}
	what = "ibv_create_cq";
	e->scq = ibv_create_cq(d->ctx, o->cqe, NULL, NULL, 0);
	err = rc_ptr_err(e->scq);
	if (err)
		goto fail;
	e->rcq = ibv_create_cq(d->ctx, o->cqe, NULL, e->ch, 0);
	err = rc_ptr_err(e->rcq);
	if (err)
		goto fail;
	if (o->srq_wr) {
		struct ibv_srq_init_attr sa = {
			.attr = {
				.max_wr = o->srq_wr,
				.max_sge = o->recv_sge,
			},
		};

		what = "ibv_create_srq";
		e->srq = ibv_create_srq(d->pd, &sa);
		err = rc_ptr_err(e->srq);
		if (err)
			goto fail;
	}
	init.send_cq = e->scq;
	init.recv_cq = e->rcq;
	init.srq = e->srq;
	if (o->send_ops) {
		struct ibv_qp_init_attr_ex ex = {
			.qp_type = init.qp_type,
			.sq_sig_all = init.sq_sig_all,
			.send_cq = init.send_cq,
			.recv_cq = init.recv_cq,
			.srq = init.srq,
			.cap = init.cap,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = d->pd,
			.send_ops_flags = o->send_ops,
		};

		what = "ibv_create_qp_ex";
		e->qp = ibv_create_qp_ex(d->ctx, &ex);
		init.cap = ex.cap;
	} else {
		what = "ibv_create_qp";
		e->qp = ibv_create_qp(d->pd, &init);
	}
	err = rc_ptr_err(e->qp);
	if (err)
		goto fail;
	e->cap = init.cap;
	return 0;
fail:
	diag("%s: %s: %s", d->name, what, strerror(err));
	rc_end_destroy(e);
	return err;
}

void rc_conn_default(struct rc_conn *c, unsigned int sq_psn)
{
	memset(c, 0, sizeof(*c));
	c->access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		    IBV_ACCESS_REMOTE_ATOMIC;
	c->sq_psn = sq_psn & 0xffffff;
	c->timeout = RC_TIMEOUT;
	c->retry_cnt = RC_RETRY_CNT;
	c->rnr_retry = RC_RNR_RETRY;
	c->min_rnr_timer = RC_MIN_RNR_TIMER;
	c->max_rd_atomic = RC_RD_ATOMIC;
	c->max_dest_rd_atomic = RC_RD_ATOMIC;
}

/* rc_qp_state() - the state ibv_query_qp() reports, or -errno */
int rc_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	err = rc_verb_err(ibv_query_qp(qp, &a, IBV_QP_STATE, &init));
	return err ? -err : (int)a.qp_state;
}

/* rc_modify_state() - a transition needing only IBV_QP_STATE (ERR, RESET) */
int rc_modify_state(struct ibv_qp *qp, enum ibv_qp_state to)
{
	struct ibv_qp_attr a = { .qp_state = to };

	return rc_verb_err(ibv_modify_qp(qp, &a, IBV_QP_STATE));
}

static bool rc_is_uc(const struct rc_end *e)
{
	return e->qp->qp_type == IBV_QPT_UC;
}

int rc_modify_init(struct rc_end *e, const struct rc_conn *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = RC_PORT,
		.qp_access_flags = c->access,
	};

	/* UC has no RDMA READ or atomics */
	if (rc_is_uc(e))
		a.qp_access_flags &= IBV_ACCESS_REMOTE_WRITE;

	return rc_verb_err(ibv_modify_qp(e->qp, &a, IBV_QP_STATE |
					 IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS));
}

/* rc_path_mtu() - @c's MTU, or the smaller active MTU of both ports */
enum ibv_mtu rc_path_mtu(const struct rc_end *e,
			 const struct rc_end *peer,
			 const struct rc_conn *c)
{
	if (c->path_mtu)
		return c->path_mtu;
	if (peer->dev->port.active_mtu < e->dev->port.active_mtu)
		return peer->dev->port.active_mtu;
	return e->dev->port.active_mtu;
}

int rc_modify_rtr(struct rc_end *e, const struct rc_conn *c,
		  const struct rc_end *peer,
		  const struct rc_conn *peer_c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = rc_path_mtu(e, peer, c),
		.dest_qp_num = peer->qp->qp_num,
		.rq_psn = peer_c->sq_psn,
		.max_dest_rd_atomic = c->max_dest_rd_atomic,
		.min_rnr_timer = c->min_rnr_timer,
		.ah_attr = {
			.is_global = 1,
			.port_num = RC_PORT,
			.grh = {
				.dgid = peer->dev->gid,
				.sgid_index = e->dev->gid_index,
				.hop_limit = RC_HOP_LIMIT,
			},
		},
	};

	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	if (a.max_dest_rd_atomic > e->dev->attr.max_qp_rd_atom)
		a.max_dest_rd_atomic = e->dev->attr.max_qp_rd_atom;
	if (!rc_is_uc(e))
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return rc_verb_err(ibv_modify_qp(e->qp, &a, mask));
}

int rc_modify_rts(struct rc_end *e, const struct rc_conn *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = c->sq_psn,
		.timeout = c->timeout,
		.retry_cnt = c->retry_cnt,
		.rnr_retry = c->rnr_retry,
		.max_rd_atomic = c->max_rd_atomic,
	};

	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (a.max_rd_atomic > e->dev->attr.max_qp_init_rd_atom)
		a.max_rd_atomic = e->dev->attr.max_qp_init_rd_atom;
	if (!rc_is_uc(e))
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return rc_verb_err(ibv_modify_qp(e->qp, &a, mask));
}

/* rc_connect() - both QPs from Reset to RTS, connected to each other */
int rc_connect(struct rc_end *a, const struct rc_conn *ca,
	       struct rc_end *b, const struct rc_conn *cb)
{
	const char *what;
	int err;

	what = "INIT";
	err = rc_modify_init(a, ca);
	if (!err)
		err = rc_modify_init(b, cb);
	if (err)
		goto fail;
	what = "RTR";
	err = rc_modify_rtr(a, ca, b, cb);
	if (!err)
		err = rc_modify_rtr(b, cb, a, ca);
	if (err)
		goto fail;
	what = "RTS";
	err = rc_modify_rts(a, ca);
	if (!err)
		err = rc_modify_rts(b, cb);
	if (err)
		goto fail;
	return 0;
fail:
	diag("QPs %#x and %#x: modify to %s: %s", a->qp->qp_num,
	     b->qp->qp_num, what, strerror(err));
	return err;
}

/*
 * rc_pair_create() - end a on @da, end b on @db (may be the same device),
 * QPs in Reset; ca and cb hold the defaults, PSNs near the 24-bit wrap
 */
int rc_pair_create(struct rc_pair *p, struct rc_dev *da,
		   struct rc_dev *db, const struct rc_qp_opts *o)
{
	int err;

	memset(p, 0, sizeof(*p));
	err = rc_end_create(&p->a, da, o);
	if (err)
		return err;
	err = rc_end_create(&p->b, db, o);
	if (err) {
		rc_end_destroy(&p->a);
		return err;
	}
	rc_conn_default(&p->ca, 0xffffff - 40 - (p->a.qp->qp_num & 0xff));
	rc_conn_default(&p->cb, 0xffffff - 80 - (p->b.qp->qp_num & 0xff));
	return 0;
}

int rc_pair_connect(struct rc_pair *p)
{
	return rc_connect(&p->a, &p->ca, &p->b, &p->cb);
}

void rc_pair_destroy(struct rc_pair *p)
{
	rc_end_destroy(&p->a);
	rc_end_destroy(&p->b);
}

/* Buffers and the pattern */

void rc_buf_free(struct rc_buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* rc_buf_reg() - @len bytes, zeroed, page aligned, registered with @access */
int rc_buf_reg(struct rc_buf *b, struct ibv_pd *pd, size_t len,
	       unsigned int access)
{
	size_t alloc = (len + RC_PAGE_BYTES - 1) & ~(size_t)(RC_PAGE_BYTES - 1);
	int err;

	memset(b, 0, sizeof(*b));
	b->p = aligned_alloc(RC_PAGE_BYTES, alloc ? alloc : RC_PAGE_BYTES);
	if (!b->p)
		return rc_errno(ENOMEM);
	memset(b->p, 0, alloc);
	b->len = len;
	b->mr = ibv_reg_mr(pd, b->p, len, access);
	err = rc_ptr_err(b->mr);
	if (err) {
		diag("ibv_reg_mr of %zu bytes: %s", len, strerror(err));
		rc_buf_free(b);
	}
	return err;
}

/*
 * rc_pattern() - byte @i of pattern @seed: not periodic in any small power
 * of two, so that a byte moved to another offset or taken from another
 * transfer (another seed) shows
 */
unsigned char rc_pattern(unsigned int seed, size_t i)
{
	unsigned int x = (unsigned int)i * 2654435761u ^ seed * 0x9e3779b9u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return (unsigned char)x;
}

/* rc_fill_at() - bytes @start to @start + @len of pattern @seed, at @p */
void rc_fill_at(void *p, size_t len, unsigned int seed,
		size_t start)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = rc_pattern(seed, start + i);
}

void rc_fill(void *p, size_t len, unsigned int seed)
{
	rc_fill_at(p, len, seed, 0);
}

/*
 * rc_mismatch_at() - the first of the @len bytes at @p that is not byte
 * @start + i of pattern @seed, as an index from @p, or @len if all are;
 * @bad counts the wrong bytes
 */
size_t rc_mismatch_at(const void *p, size_t len,
		      unsigned int seed, size_t start,
		      size_t *bad)
{
	const unsigned char *b = p;
	size_t i, first = len;

	*bad = 0;
	for (i = 0; i < len; i++) {
		if (b[i] == rc_pattern(seed, start + i))
			continue;
		if (!*bad)
			first = i;
		(*bad)++;
	}
	return first;
}

size_t rc_mismatch(const void *p, size_t len, unsigned int seed,
		   size_t *bad)
{
	return rc_mismatch_at(p, len, seed, 0, bad);
}

struct ibv_sge rc_sge(const struct rc_buf *b, size_t off,
		      unsigned int len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(b->p + off),
		.length = len,
		.lkey = b->mr->lkey,
	};

	return sge;
}
