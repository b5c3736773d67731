// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Work requests and completions (tests/rc_pair.h): building and posting
 * them, polling that ends by a deadline, events, and the check of a flush.
 */
#include <poll.h>

#include "rc_pair.h"

/* Posting */

/**
 * rc_send_wr() - an ordinary send work request, all else in it zero
 * @wr_id: its wr_id
 * @op: its opcode
 * @sge: its scatter/gather list, @num_sge entries (NULL and 0: none)
 * @num_sge: how many
 * @flags: IBV_SEND_* flags
 * @remote_addr: for an RDMA or atomic opcode, the address at the peer
 * @rkey: and its key; both are ignored for the other opcodes
 *
 * The immediate data, the key to invalidate and an atomic's operands are
 * the caller's to set in what this returns.
 */
struct ibv_send_wr rc_send_wr(unsigned long long wr_id, enum ibv_wr_opcode op,
			      const struct ibv_sge *sge, int num_sge,
			      unsigned int flags, uint64_t remote_addr,
			      uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		/* not const in libibverbs, but no verb writes it */
		.sg_list = (struct ibv_sge *)sge,
		.num_sge = num_sge,
		.opcode = op,
		.send_flags = flags,
	};

	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		wr.wr.rdma.remote_addr = remote_addr;
		wr.wr.rdma.rkey = rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wr.wr.atomic.remote_addr = remote_addr;
		wr.wr.atomic.rkey = rkey;
		break;
	default:
		break;
	}
	return wr;
}

int rc_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int err = rc_verb_err(ibv_post_send(qp, wr, &bad));

	if (err)
		diag("ibv_post_send wr_id %#llx: %s",
		     bad ? (unsigned long long)bad->wr_id : 0ULL,
		     strerror(err));
	return err;
}

/* The SGEs of one receive rc_post_recvs() takes */
#define RC_RECV_SGE_MAX		32

/**
 * rc_post_recvs() - receives, one by one, on @srq if not NULL, else on @qp
 * @qp: the QP
 * @srq: or its SRQ
 * @wr_id: the first one's wr_id; the next ones count up from it
 * @n: how many
 * @sge: the first one's scatter list (NULL and 0: none)
 * @num_sge: its entries
 * @stride: receive i's entries are @sge's moved up by i * @stride bytes
 *
 * Return: 0, or the errno value of the first that failed (said with diag())
 */
int rc_post_recvs(struct ibv_qp *qp, struct ibv_srq *srq,
		  unsigned long long wr_id, unsigned int n,
		  const struct ibv_sge *sge, int num_sge, size_t stride)
{
	struct ibv_sge s[RC_RECV_SGE_MAX];
	struct ibv_recv_wr wr = {
		.sg_list = s,
		.num_sge = num_sge,
	}, *bad = NULL;
	unsigned int i;
	int j, err = 0;

	if (num_sge > RC_RECV_SGE_MAX)
		err = rc_errno(EINVAL);
	for (i = 0; !err && i < n; i++) {
		for (j = 0; j < num_sge; j++) {
			s[j] = sge[j];
			s[j].addr += i * stride;
		}
		wr.wr_id = wr_id + i;
		if (srq)
			err = rc_verb_err(ibv_post_srq_recv(srq, &wr, &bad));
		else
			err = rc_verb_err(ibv_post_recv(qp, &wr, &bad));
		if (err)
			wr_id = wr.wr_id;
	}
	if (err)
		diag("ibv_post_%srecv wr_id %#llx: %s", srq ? "srq_" : "",
		     wr_id, strerror(err));
	return err;
}

/* rc_post_recv() - one receive on @e's SRQ if it has one, else on its QP */
int rc_post_recv(struct rc_end *e, unsigned long long wr_id,
		 const struct ibv_sge *sge, int num_sge)
{
	return rc_post_recvs(e->qp, e->srq, wr_id, 1, sge, num_sge, 0);
}

/* Completions and events: nothing here waits longer than it is told */

/*
 * rc_poll() - poll @cq into @wc until @want completions arrived (want <= 0:
 * until @timeout_ms passed) or @max are there or @timeout_ms passed;
 * returns how many, or -1 if ibv_poll_cq() failed
 */
int rc_poll(struct ibv_cq *cq, struct ibv_wc *wc, int max,
	    int want, int timeout_ms)
{
	long long deadline = rc_now_us() + timeout_ms * 1000LL;
	struct timespec nap = { .tv_nsec = 50000 };
	int n = 0, got;

	while (n < max) {
		got = ibv_poll_cq(cq, max - n, wc + n);
		if (got < 0) {
			diag("ibv_poll_cq: %d", got);
			return -1;
		}
		n += got;
		if ((want > 0 && n >= want) || rc_now_us() > deadline)
			break;
		if (!got)
			nanosleep(&nap, NULL);
	}
	return n;
}

/* rc_wait_cq_event() - a completion event on @ch, acked; 0 or ETIMEDOUT */
int rc_wait_cq_event(struct ibv_comp_channel *ch,
		     struct ibv_cq **cq, int timeout_ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	void *cq_ctx;
	int ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno;
	if (!ret)
		return rc_errno(ETIMEDOUT);
	if (ibv_get_cq_event(ch, cq, &cq_ctx))
		return errno ? errno : EIO;
	ibv_ack_cq_events(*cq, 1);
	return 0;
}

/*
 * rc_wait_async_event() - an asynchronous event of @ctx, copied to @ev and
 * acked; 0 or ETIMEDOUT
 */
int rc_wait_async_event(struct ibv_context *ctx,
			struct ibv_async_event *ev,
			int timeout_ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event got;
	int ret;

	memset(ev, 0, sizeof(*ev));
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno;
	if (!ret)
		return rc_errno(ETIMEDOUT);
	if (ibv_get_async_event(ctx, &got))
		return errno ? errno : EIO;
	*ev = got;
	ibv_ack_async_event(&got);
	return 0;
}

/* The flush */

/* wr_id_seen() - how many of the @n completions at @wc are of @wr_id */
static unsigned int wr_id_seen(const struct ibv_wc *wc, int n,
			       unsigned long long wr_id)
{
	unsigned int seen = 0;
	int i;

	for (i = 0; i < n; i++)
		if (wc[i].wr_id == wr_id)
			seen++;
	return seen;
}

/* wr_id_known() - @wr_id is in one of the @n_ids runs at @ids */
static bool wr_id_known(const struct wr_ids *ids, unsigned int n_ids,
			unsigned long long wr_id)
{
	unsigned int r;

	for (r = 0; r < n_ids; r++)
		if (wr_id >= ids[r].first && wr_id < ids[r].first + ids[r].count)
			return true;
	return false;
}

/* What is wrong with a flush: the work requests and their completions */
struct flush_tally {
	unsigned int want;		/* work requests */
	unsigned int wrong;		/* not completed once, or unexpected */
	unsigned int bad_status;	/* completions not IBV_WC_WR_FLUSH_ERR */
	unsigned int bad_qpn;		/* completions of another QP */
	unsigned int bad;		/* completions with either */
};

static struct flush_tally flush_tally(struct ibv_qp *qp,
				      const struct ibv_wc *wc, int n,
				      const struct wr_ids *ids,
				      unsigned int n_ids)
{
	struct flush_tally t = { 0 };
	unsigned int r, k;
	int i;

	for (r = 0; r < n_ids; r++) {
		t.want += ids[r].count;
		for (k = 0; k < ids[r].count; k++)
			if (wr_id_seen(wc, n, ids[r].first + k) != 1)
				t.wrong++;
	}
	for (i = 0; i < n; i++) {
		t.bad_status += wc[i].status != IBV_WC_WR_FLUSH_ERR;
		t.bad_qpn += wc[i].qp_num != qp->qp_num;
		t.bad += wc[i].status != IBV_WC_WR_FLUSH_ERR ||
			 wc[i].qp_num != qp->qp_num;
		if (!wr_id_known(ids, n_ids, wc[i].wr_id))
			t.wrong++;
	}
	return t;
}

/* Two checks, what is wrong said before them */
static void flush_ids_then_status(const char *what, struct ibv_qp *qp,
				  const struct ibv_wc *wc, int n,
				  const struct wr_ids *ids, unsigned int n_ids)
{
	struct flush_tally t = flush_tally(qp, wc, n, ids, n_ids);
	unsigned int r, k, seen;
	int i;

	for (r = 0; r < n_ids; r++) {
		for (k = 0; k < ids[r].count; k++) {
			seen = wr_id_seen(wc, n, ids[r].first + k);
			if (seen != 1)
				diag("%s: wr_id %#llx completed %u times", what,
				     ids[r].first + k, seen);
		}
	}
	for (i = 0; i < n; i++) {
		if (!wr_id_known(ids, n_ids, wc[i].wr_id))
			diag("%s: unexpected wr_id %#llx (%s)", what,
			     (unsigned long long)wc[i].wr_id,
			     ibv_wc_status_str(wc[i].status));
		if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
		    wc[i].qp_num != qp->qp_num)
			diag("%s: wr_id %#llx: %s, qp_num %#x", what,
			     (unsigned long long)wc[i].wr_id,
			     ibv_wc_status_str(wc[i].status), wc[i].qp_num);
	}
	check(n == (int)t.want && !t.wrong,
	      "%s: %u flushed, each wr_id exactly once", what, t.want);
	if (n != (int)t.want)
		diag("%d completions", n);
	check(n > 0 && !t.bad, "%s: each IBV_WC_WR_FLUSH_ERR of QP %#x", what,
	      qp->qp_num);
}

/* Four checks, what is wrong said after the one that failed */
static void flush_each_field(const char *what, struct ibv_qp *qp,
			     const struct ibv_wc *wc, int n,
			     const struct wr_ids *ids, unsigned int n_ids)
{
	struct flush_tally t = flush_tally(qp, wc, n, ids, n_ids);
	unsigned int r, k;
	int i;

	if (!check(n == (int)t.want, "%s: %u completions", what, t.want))
		diag("got %d", n);
	if (!check(!t.bad_status, "%s: every status IBV_WC_WR_FLUSH_ERR", what))
		for (i = 0; i < n; i++)
			diag("wr_id %#llx: %s", (unsigned long long)wc[i].wr_id,
			     ibv_wc_status_str(wc[i].status));
	if (!check(!t.bad_qpn, "%s: every qp_num is the QP's (%u)", what,
		   qp->qp_num))
		for (i = 0; i < n; i++)
			diag("wr_id %#llx: qp_num %u",
			     (unsigned long long)wc[i].wr_id, wc[i].qp_num);
	if (check(!t.wrong, "%s: each wr_id completed exactly once", what))
		return;
	for (r = 0; r < n_ids; r++)
		for (k = 0; k < ids[r].count; k++)
			diag("wr_id %#llx completed %u times", ids[r].first + k,
			     wr_id_seen(wc, n, ids[r].first + k));
	for (i = 0; i < n; i++)
		if (!wr_id_known(ids, n_ids, wc[i].wr_id))
			diag("unexpected wr_id %#llx",
			     (unsigned long long)wc[i].wr_id);
}

/**
 * check_flushed() - the @n completions at @wc are exactly those of the work
 * requests in the @n_ids runs at @ids, each once, each IBV_WC_WR_FLUSH_ERR
 * of @qp
 * @what: what the TAP lines name
 * @qp: the QP that flushed them
 * @wc: the completions polled
 * @n: how many
 * @ids: the work requests flushed
 * @n_ids: runs of them at @ids
 * @checks: the TAP lines that say so: rc_verbs has two, verbs_objects four
 */
void check_flushed(const char *what, struct ibv_qp *qp,
		   const struct ibv_wc *wc, int n, const struct wr_ids *ids,
		   unsigned int n_ids, enum flush_checks checks)
{
	if (checks == FLUSH_CHECK_EACH_FIELD)
		flush_each_field(what, qp, wc, n, ids, n_ids);
	else
		flush_ids_then_status(what, qp, wc, n, ids, n_ids);
}
