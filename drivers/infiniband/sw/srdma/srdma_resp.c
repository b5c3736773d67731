// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC responder: executes requests in PSN order (IBTA 9.7.4, 9.7.5).
 *
 * A request with the expected PSN is executed: a SEND fills a receive WQE
 * (RNR NAK if there is none), an RDMA WRITE goes to the MR its RETH names,
 * an RDMA READ is answered with responses from its MR, an atomic executes
 * and is answered with the original value, an ATOMIC WRITE places its 8
 * bytes and is answered with an empty READ response. Every remote access checks the
 * key, the PD, the MR's rights and the bounds. A request past the expected
 * PSN is held and executed when its turn comes (srdma_reorder.c); once the
 * gap looks like a loss it gets one sequence NAK. An older request is a
 * duplicate: SENDs and WRITEs are acknowledged again, reads and atomics are
 * answered again from the responder resources (an atomic is never executed
 * twice).
 *
 * ACKs are coalesced: one, for the newest PSN, after each batch of
 * requests that asked for one; a message that fills a receive WQE with no
 * request behind it is acknowledged before its completion is posted. An
 * error NAKs the request, completes the receive WQE under way in error and
 * moves the QP to ERR.
 *
 * UC requests go through the same execution without ACKs or NAKs (see
 * srdma_resp_uc_pkt()); srdma_resp_run() also hands UD datagrams and raw
 * frames to srdma_ud.c and srdma_raw.c. All take and complete receive WQEs
 * through srdma_wq.c.
 */
#include <srdma/psn.h>

#include "srdma_engine.h"

enum srdma_resp_verdict {
	SRDMA_RESP_DONE,	/* executed: the expected PSN moves on */
	SRDMA_RESP_ANSWERED,	/* read or atomic: it moved the PSN itself */
	SRDMA_RESP_RNR,		/* no receive WQE: RNR NAK */
	SRDMA_RESP_INVALID,	/* invalid request */
	SRDMA_RESP_TOO_LONG,	/* more than the receive WQE holds */
	SRDMA_RESP_ACCESS,	/* remote access error */
	SRDMA_RESP_LOCAL,	/* the receive WQE's own memory failed */
	SRDMA_RESP_MALFORMED,	/* the receive WQE is malformed */
};

static int srdma_resp_send_ack(struct srdma_qp *qp, enum srdma_aeth_type type,
			       u8 value, u32 psn)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_bth *bth;
	struct srdma_aeth *aeth;
	struct sk_buff *skb;

	if (type == SRDMA_AETH_ACK && srdma_av_is_local(sdev, &qp->av) &&
	    srdma_recv_local_ack(sdev, qp, psn))
		return 0;
	skb = srdma_pkt_alloc(sdev, IB_OPCODE_RC_ACKNOWLEDGE, 0, &bth);
	if (!skb)
		return -ENOMEM;
	aeth = srdma_hdr(bth, SRDMA_OP_AETH);
	aeth->smsn = srdma_aeth_make(type, value, qp->resp.msn);
	srdma_bth_init(bth, IB_OPCODE_RC_ACKNOWLEDGE, false, 0,
		       qp->attr.dest_qp_num, false, psn);
	return srdma_qp_xmit(qp, SRDMA_HALF_RECV, skb);
}

static void srdma_resp_send_atomic_ack(struct srdma_qp *qp, u32 psn, u64 orig)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_atmack *atmack;
	struct srdma_aeth *aeth;
	struct srdma_bth *bth;
	struct sk_buff *skb;

	/* if it is lost, the requester asks again and gets it from res */
	skb = srdma_pkt_alloc(sdev, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, 0, &bth);
	if (!skb)
		return;
	aeth = srdma_hdr(bth, SRDMA_OP_AETH);
	aeth->smsn = srdma_aeth_make(SRDMA_AETH_ACK, SRDMA_AETH_CREDITS_NONE,
				     qp->resp.msn);
	atmack = srdma_hdr(bth, SRDMA_OP_ATMACK);
	atmack->orig = cpu_to_be64(orig);
	srdma_bth_init(bth, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, false, 0,
		       qp->attr.dest_qp_num, false, psn);
	srdma_qp_xmit(qp, SRDMA_HALF_RECV, skb);
}

/* the coalesced ACK of the newest PSN executed */
static bool srdma_resp_flush_ack(struct srdma_qp *qp)
{
	if (!qp->resp.ack_pending)
		return false;
	if (srdma_resp_send_ack(qp, SRDMA_AETH_ACK, SRDMA_AETH_CREDITS_NONE,
				srdma_psn_add(qp->resp.epsn, SRDMA_PSN_MASK))) {
		srdma_qp_xmit_refused(qp);
		return false;
	}
	qp->resp.ack_pending = false;
	return true;
}

/* take the receive WQE of a SEND or WRITE with immediate */
static enum srdma_resp_verdict srdma_resp_take_rwqe(struct srdma_qp *qp)
{
	switch (srdma_rwqe_take(qp)) {
	case 0:
		return SRDMA_RESP_DONE;
	case -ENOENT:
		return SRDMA_RESP_RNR;
	default:
		return SRDMA_RESP_MALFORMED;
	}
}

/**
 * srdma_resp_release() - drop what the responder holds: MR references,
 * the message and the read under way
 * @qp: the QP, its engine paused or running
 */
void srdma_resp_release(struct srdma_qp *qp)
{
	struct srdma_resp *resp = &qp->resp;

	if (resp->mr)
		srdma_mr_put(resp->mr);
	if (resp->read_mr)
		srdma_mr_put(resp->read_mr);
	resp->mr = NULL;
	resp->read_mr = NULL;
	resp->read = NULL;
	resp->msg = 0;
}

/*
 * The QP is in ERR: a WQE taken from the SRQ completes as flushed, and the
 * QP takes no more of the SRQ's: IB_EVENT_QP_LAST_WQE_REACHED, once.
 */
static void srdma_resp_abort(struct srdma_qp *qp)
{
	struct ib_wc wc = { .status = IB_WC_WR_FLUSH_ERR, .opcode = IB_WC_RECV };

	srdma_resp_release(qp);
	if (qp->resp.rwqe_valid && qp->resp.rwqe_srq)
		srdma_rwqe_complete(qp, &wc, false);
	qp->resp.rwqe_valid = false;
	if (qp->srq && !qp->resp.last_wqe_raised) {
		qp->resp.last_wqe_raised = true;
		srdma_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	}
}

static void srdma_resp_start_read(struct srdma_qp *qp, struct srdma_res *res,
				  struct srdma_mr *mr, u32 psn, u64 va, u32 len)
{
	struct srdma_resp *resp = &qp->resp;

	if (resp->read_mr)
		srdma_mr_put(resp->read_mr);
	resp->read = res;
	resp->read_mr = mr;
	resp->read_rkey = res->rkey;
	resp->read_psn = psn;
	resp->read_va = va;
	resp->read_resid = len;
	resp->read_first = true;
}

static void srdma_resp_fail(struct srdma_qp *qp, u32 psn,
			    enum srdma_resp_verdict verdict);

/* where a read's responses stand: what a refused batch goes back to */
struct srdma_read_pos {
	u32 psn;
	u64 va;
	u32 resid;
	bool first;
};

static void srdma_read_pos_get(const struct srdma_resp *resp,
			       struct srdma_read_pos *pos)
{
	pos->psn = resp->read_psn;
	pos->va = resp->read_va;
	pos->resid = resp->read_resid;
	pos->first = resp->read_first;
}

/*
 * Hand the read responses batched to the stack. Refused for a while (a
 * full queue, no memory), none went: the read goes back to the batch's
 * first packet, @at. Refused otherwise, they are lost as on a wire, and
 * the requester asks again for what it misses.
 */
static int srdma_resp_read_flush(struct srdma_qp *qp, struct srdma_tx_batch *b,
				 const struct srdma_read_pos *at)
{
	struct srdma_resp *resp = &qp->resp;
	int err;

	if (!b->pkts)
		return 0;
	err = srdma_qp_batch_flush(qp, SRDMA_HALF_RECV, b);
	if (!err || !srdma_xmit_busy(err))
		return 0;
	resp->read_psn = at->psn;
	resp->read_va = at->va;
	resp->read_resid = at->resid;
	resp->read_first = at->first;
	return err;
}

/* a read response: into batch @b if it may join it, else alone after it */
static int srdma_resp_read_xmit(struct srdma_qp *qp, struct srdma_tx_batch *b,
				struct srdma_read_pos *at, struct sk_buff *skb)
{
	int err;

	if (b->pkts && srdma_qp_batch_fits(qp, b, skb->len))
		return srdma_qp_batch_add(qp, SRDMA_HALF_RECV, b, skb);
	err = srdma_resp_read_flush(qp, b, at);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	if (!srdma_qp_batch_fits(qp, b, skb->len))
		return srdma_qp_xmit(qp, SRDMA_HALF_RECV, skb);
	srdma_read_pos_get(&qp->resp, at);
	return srdma_qp_batch_add(qp, SRDMA_HALF_RECV, b, skb);
}

/*
 * send read responses, up to a batch; how many it sent. They go in
 * batches (srdma_xmit_batch_add()) that never outlive the call: the read
 * is released once its last packet has gone.
 */
static unsigned int srdma_resp_send_read(struct srdma_qp *qp)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_resp *resp = &qp->resp;
	struct srdma_tx_batch batch = {};
	struct srdma_read_pos at = {};
	struct srdma_aeth *aeth;
	struct srdma_bth *bth;
	struct sk_buff *skb;
	bool refused = true, last = false, paged;
	unsigned int sent = 0;
	int err = 0;
	u8 opcode;
	u32 n;

	while (!last) {
		if (sent == SRDMA_ENGINE_BATCH ||
		    srdma_sched_may_send(qp, SRDMA_HALF_RECV) ==
		    SRDMA_SEND_WAIT) {
			refused = false;	/* the engine comes back */
			break;
		}
		n = min(qp->mtu_bytes, resp->read_resid);
		last = resp->read_resid <= qp->mtu_bytes;
		if (resp->read_first)
			opcode = last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
					IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST;
		else
			opcode = last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
					IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;
		paged = srdma_pkt_paged_ok(sdev, &qp->av, n);
		skb = paged ? srdma_pkt_alloc_paged(sdev, opcode, &bth) :
			      srdma_pkt_alloc(sdev, opcode, n, &bth);
		if (!skb) {
			last = false;
			break;
		}
		if (srdma_op_flags(opcode) & SRDMA_OP_AETH) {
			aeth = srdma_hdr(bth, SRDMA_OP_AETH);
			aeth->smsn = srdma_aeth_make(SRDMA_AETH_ACK,
						     SRDMA_AETH_CREDITS_NONE,
						     resp->msn);
		}
		if (n && !srdma_rkey_access_begin(resp->read_mr, resp->read_rkey,
						  resp->read_va, n)) {
			/* the MR went since the READ was checked */
			kfree_skb(skb);
			if (srdma_resp_read_flush(qp, &batch, &at))
				srdma_qp_xmit_refused(qp);
			else
				srdma_resp_fail(qp, resp->read_psn,
						SRDMA_RESP_ACCESS);
			return sent;
		}
		if (n) {
			err = paged ?
			      srdma_mr_attach(resp->read_mr, resp->read_va,
					      skb, n) ?:
			      srdma_pkt_end_paged(sdev, skb) :
			      srdma_mr_copy(resp->read_mr, resp->read_va,
					    (u8 *)bth + srdma_op_hdr_bytes(opcode),
					    n, false);
			srdma_rkey_access_end(resp->read_mr);
		}
		if (n && err == -ENOMEM) {
			/* as an skb not had: the engine tries again */
			kfree_skb(skb);
			last = false;
			break;
		}
		if (n && err) {
			/* an ODP page: sent once the fault kicks the engine */
			kfree_skb(skb);
			if (srdma_resp_read_flush(qp, &batch, &at)) {
				srdma_qp_xmit_refused(qp);
				return sent;
			}
			if (srdma_odp_defer(qp, resp->read_mr, resp->read_va, n,
					    false) == -EINPROGRESS)
				return sent;
			srdma_resp_fail(qp, resp->read_psn, SRDMA_RESP_ACCESS);
			return sent;
		}
		srdma_bth_init(bth, opcode, false, srdma_pad_bytes(n),
			       qp->attr.dest_qp_num, false, resp->read_psn);
		if (srdma_resp_read_xmit(qp, &batch, &at, skb)) {
			last = false;
			break;
		}
		resp->read_psn = srdma_psn_add(resp->read_psn, 1);
		resp->read_va += n;
		resp->read_resid -= n;
		resp->read_first = false;
		sent++;
	}
	if (srdma_resp_read_flush(qp, &batch, &at)) {
		last = false;
		refused = true;
	}
	if (last) {
		if (resp->read_mr)
			srdma_mr_put(resp->read_mr);
		resp->read_mr = NULL;
		resp->read = NULL;
	} else if (refused) {
		srdma_qp_xmit_refused(qp);
	}
	return sent;
}

/* the RC request @skb is executed: the next PSN is expected, an ACK due */
static void srdma_resp_executed(struct srdma_qp *qp, struct sk_buff *skb)
{
	qp->resp.epsn = srdma_psn_add(srdma_pkt(skb)->psn, 1);
	if (srdma_bth_ackreq((struct srdma_bth *)skb->data))
		qp->resp.ack_pending = true;
}

/*
 * The message of @skb filled its receive WQE. On RC its ACK goes first,
 * unless more requests wait (one ACK then covers them all): the process
 * that polls this completion may post its answer at once, and should find
 * the engine done, not still sending the ACK, so that the answer goes out
 * from its own CPU.
 */
static void srdma_resp_recv_done(struct srdma_qp *qp, struct sk_buff *skb,
				 struct ib_wc *wc)
{
	if (qp->ibqp.qp_type == IB_QPT_RC) {
		srdma_resp_executed(qp, skb);
		if (skb_queue_empty_lockless(&qp->resp_pkts))
			srdma_resp_flush_ack(qp);
	}
	srdma_rwqe_complete(qp, wc, srdma_bth_se((struct srdma_bth *)skb->data));
}

static enum srdma_resp_verdict srdma_resp_send(struct srdma_qp *qp,
					       struct sk_buff *skb, u32 flags)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_resp *resp = &qp->resp;
	u32 len = srdma_pkt(skb)->paylen;
	struct ib_wc wc = { .opcode = IB_WC_RECV };
	enum srdma_resp_verdict verdict;
	u32 rkey;
	int err;

	verdict = srdma_resp_take_rwqe(qp);
	if (verdict != SRDMA_RESP_DONE)
		return verdict;
	if (!srdma_recv_fits(resp->placed, len, resp->rwqe_length))
		return SRDMA_RESP_TOO_LONG;
	err = srdma_sge_copy_skb(qp, resp->rwqe->dma.sge,
				 resp->rwqe->dma.num_sge, resp->placed, skb,
				 srdma_op_hdr_bytes(bth->opcode), len);
	/* an ODP page being faulted in: RNR NAK, as an RNIC does */
	if (err == -EINPROGRESS)
		return SRDMA_RESP_RNR;
	if (err)
		return SRDMA_RESP_LOCAL;
	resp->placed += len;
	if (!(flags & SRDMA_OP_LAST)) {
		resp->msg = SRDMA_OP_SEND;
		return SRDMA_RESP_DONE;
	}
	if (flags & SRDMA_OP_IMMDT) {
		wc.ex.imm_data = *(__be32 *)srdma_hdr(bth, SRDMA_OP_IMMDT);
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	if (flags & SRDMA_OP_IETH) {
		rkey = be32_to_cpu(*(__be32 *)srdma_hdr(bth, SRDMA_OP_IETH));
		if (srdma_mr_invalidate(qp, rkey))
			return SRDMA_RESP_INVALID;
		wc.ex.invalidate_rkey = rkey;
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	wc.byte_len = resp->placed;
	resp->msg = 0;
	resp->msn++;
	srdma_resp_recv_done(qp, skb, &wc);
	return SRDMA_RESP_DONE;
}

/*
 * A page of the WRITE's ODP MR is not there: RNR NAK while a work item
 * faults it in, the responder as before the packet (a first packet's MR
 * reference dropped: the retry looks the key up again); a remote access
 * error if that fault failed
 */
static enum srdma_resp_verdict srdma_resp_write_fault(struct srdma_qp *qp,
						      u32 flags, u32 len)
{
	struct srdma_resp *resp = &qp->resp;
	int err = srdma_odp_defer(qp, resp->mr, resp->va, len, true);

	if (err != -EINPROGRESS)
		return SRDMA_RESP_ACCESS;
	if (flags & SRDMA_OP_RETH) {
		srdma_mr_put(resp->mr);
		resp->mr = NULL;
	}
	return SRDMA_RESP_RNR;
}

static enum srdma_resp_verdict srdma_resp_write(struct srdma_qp *qp,
						struct sk_buff *skb, u32 flags)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_resp *resp = &qp->resp;
	u32 len = srdma_pkt(skb)->paylen;
	struct ib_wc wc = { .opcode = IB_WC_RECV_RDMA_WITH_IMM };
	struct srdma_reth *reth;
	enum srdma_resp_verdict verdict;
	struct srdma_mr *mr = NULL;
	u64 va;
	u32 dma_len;
	int err;

	/* before anything is written: a retry must find the same state */
	if (flags & SRDMA_OP_IMMDT) {
		verdict = srdma_resp_take_rwqe(qp);
		if (verdict != SRDMA_RESP_DONE)
			return verdict;
	}
	if (flags & SRDMA_OP_RETH) {
		reth = srdma_hdr(bth, SRDMA_OP_RETH);
		va = be64_to_cpu(reth->va);
		dma_len = be32_to_cpu(reth->len);
		if (dma_len > SRDMA_MAX_MSG_BYTES)
			return SRDMA_RESP_INVALID;
		if (dma_len && srdma_mr_lookup(qp, be32_to_cpu(reth->rkey), va,
					       dma_len, IB_ACCESS_REMOTE_WRITE,
					       &mr))
			return SRDMA_RESP_ACCESS;
		resp->mr = mr;
		resp->rkey = be32_to_cpu(reth->rkey);
		resp->va = va;
		resp->resid = dma_len;
		resp->write_length = dma_len;
	}
	/* checked before a byte is written: a refused packet places none */
	if (len > resp->resid || ((flags & SRDMA_OP_LAST) && len != resp->resid))
		return SRDMA_RESP_INVALID;
	if (len) {
		if (!srdma_rkey_access_begin(resp->mr, resp->rkey, resp->va, len))
			return SRDMA_RESP_ACCESS;
		err = srdma_mr_copy_skb(resp->mr, resp->va, skb,
					srdma_op_hdr_bytes(bth->opcode), len);
		srdma_rkey_access_end(resp->mr);
		if (err)
			return srdma_resp_write_fault(qp, flags, len);
	}
	resp->va += len;
	resp->resid -= len;
	if (!(flags & SRDMA_OP_LAST)) {
		resp->msg = SRDMA_OP_WRITE;
		return SRDMA_RESP_DONE;
	}
	if (resp->mr)
		srdma_mr_put(resp->mr);
	resp->mr = NULL;
	resp->msg = 0;
	resp->msn++;
	if (flags & SRDMA_OP_IMMDT) {
		wc.ex.imm_data = *(__be32 *)srdma_hdr(bth, SRDMA_OP_IMMDT);
		wc.wc_flags = IB_WC_WITH_IMM;
		wc.byte_len = resp->write_length;
		srdma_resp_recv_done(qp, skb, &wc);
	}
	return SRDMA_RESP_DONE;
}

static struct srdma_res *srdma_resp_new_res(struct srdma_qp *qp)
{
	struct srdma_resp *resp = &qp->resp;
	struct srdma_res *res = &resp->res[resp->res_next];

	resp->res_next = (resp->res_next + 1) % resp->num_res;
	return res;
}

static enum srdma_resp_verdict srdma_resp_read(struct srdma_qp *qp,
					       struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_reth *reth = srdma_hdr(bth, SRDMA_OP_RETH);
	u32 psn = srdma_pkt(skb)->psn, len = be32_to_cpu(reth->len);
	u64 va = be64_to_cpu(reth->va);
	struct srdma_mr *mr = NULL;
	struct srdma_res *res;

	if (!qp->attr.max_dest_rd_atomic || len > SRDMA_MAX_MSG_BYTES)
		return SRDMA_RESP_INVALID;
	if (len && srdma_mr_lookup(qp, be32_to_cpu(reth->rkey), va, len,
				   IB_ACCESS_REMOTE_READ, &mr))
		return SRDMA_RESP_ACCESS;
	/* an ACK past the read, sent before its responses, would NAK it */
	srdma_resp_flush_ack(qp);
	res = srdma_resp_new_res(qp);
	res->kind = SRDMA_RES_READ;
	res->first_psn = psn;
	res->npsn = max_t(u32, 1, DIV_ROUND_UP(len, qp->mtu_bytes));
	res->va = va;
	res->rkey = be32_to_cpu(reth->rkey);
	res->length = len;
	qp->resp.epsn = srdma_psn_add(psn, res->npsn);
	qp->resp.msn++;
	srdma_resp_start_read(qp, res, mr, psn, va, len);
	return SRDMA_RESP_ANSWERED;
}

/*
 * The MR of an atomic's 8 bytes at @va by @rkey, with @access: referenced,
 * its access under way (srdma_rkey_access_begin()); NULL if not allowed.
 */
static struct srdma_mr *srdma_resp_atomic_begin(struct srdma_qp *qp, u32 rkey,
						u64 va, int access)
{
	struct srdma_mr *mr;

	if (srdma_mr_lookup(qp, rkey, va, sizeof(u64), access, &mr))
		return NULL;
	if (srdma_rkey_access_begin(mr, rkey, va, sizeof(u64)))
		return mr;
	srdma_mr_put(mr);
	return NULL;
}

static void srdma_resp_atomic_end(struct srdma_mr *mr)
{
	srdma_rkey_access_end(mr);
	srdma_mr_put(mr);
}

/*
 * A request of one PSN that takes a responder resource is executed: the
 * ACK due before it goes first; its resource answers a duplicate.
 */
static struct srdma_res *srdma_resp_executed_res(struct srdma_qp *qp,
						 u8 kind, u32 psn)
{
	struct srdma_res *res;

	srdma_resp_flush_ack(qp);
	res = srdma_resp_new_res(qp);
	res->kind = kind;
	res->first_psn = psn;
	res->npsn = 1;
	qp->resp.epsn = srdma_psn_add(psn, 1);
	qp->resp.msn++;
	return res;
}

static enum srdma_resp_verdict srdma_resp_atomic(struct srdma_qp *qp,
						 struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_atmeth *atm = srdma_hdr(bth, SRDMA_OP_ATMETH);
	u32 psn = srdma_pkt(skb)->psn, rkey = be32_to_cpu(atm->rkey);
	u64 va = be64_to_cpu(atm->va);
	struct srdma_res *res;
	struct srdma_mr *mr;
	u64 orig;
	int err;

	if (!qp->attr.max_dest_rd_atomic || !IS_ALIGNED(va, sizeof(u64)))
		return SRDMA_RESP_INVALID;
	mr = srdma_resp_atomic_begin(qp, rkey, va, IB_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return SRDMA_RESP_ACCESS;
	err = srdma_mr_atomic(mr, va,
			      bth->opcode == IB_OPCODE_RC_COMPARE_SWAP ?
			      SRDMA_ATOMIC_CMP_SWAP : SRDMA_ATOMIC_FETCH_ADD,
			      be64_to_cpu(atm->swap_add),
			      be64_to_cpu(atm->compare), &orig);
	if (err)
		err = srdma_odp_defer(qp, mr, va, sizeof(u64), true);
	srdma_resp_atomic_end(mr);
	if (err)
		return err == -EINPROGRESS ? SRDMA_RESP_RNR : SRDMA_RESP_ACCESS;
	res = srdma_resp_executed_res(qp, SRDMA_RES_ATOMIC, psn);
	res->orig = orig;
	srdma_resp_send_atomic_ack(qp, psn, orig);
	return SRDMA_RESP_ANSWERED;
}

/*
 * An ATOMIC WRITE (IBTA A19): its 8 bytes placed in one store, after
 * everything before it; answered by a READ response with no payload, as
 * rdma_rxe answers, and kept as a responder resource so that a duplicate
 * gets the answer again without a second store.
 */
static enum srdma_resp_verdict srdma_resp_atomic_write(struct srdma_qp *qp,
						       struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_reth *reth = srdma_hdr(bth, SRDMA_OP_RETH);
	u32 psn = srdma_pkt(skb)->psn, rkey = be32_to_cpu(reth->rkey);
	u64 va = be64_to_cpu(reth->va), orig, value;
	struct srdma_res *res;
	struct srdma_mr *mr;
	int err;

	if (!qp->attr.max_dest_rd_atomic ||
	    be32_to_cpu(reth->len) != sizeof(u64) ||
	    srdma_pkt(skb)->paylen != sizeof(u64) || srdma_bth_pad(bth) ||
	    !IS_ALIGNED(va, sizeof(u64)) ||
	    skb_copy_bits(skb, srdma_op_hdr_bytes(bth->opcode), &value,
			  sizeof(value)))
		return SRDMA_RESP_INVALID;
	mr = srdma_resp_atomic_begin(qp, rkey, va, IB_ACCESS_REMOTE_WRITE);
	if (!mr)
		return SRDMA_RESP_ACCESS;
	err = srdma_mr_atomic(mr, va, SRDMA_ATOMIC_WRITE, value, 0, &orig);
	if (err)
		err = srdma_odp_defer(qp, mr, va, sizeof(u64), true);
	srdma_resp_atomic_end(mr);
	if (err)
		return err == -EINPROGRESS ? SRDMA_RESP_RNR : SRDMA_RESP_ACCESS;
	res = srdma_resp_executed_res(qp, SRDMA_RES_NO_PAYLOAD, psn);
	srdma_resp_start_read(qp, res, NULL, psn, va, 0);
	return SRDMA_RESP_ANSWERED;
}

/*
 * A FLUSH (IBTA A19): the bytes placed before it are made visible to every
 * later reader of the memory, then it is answered as an ATOMIC WRITE is.
 * Placement type global only: no MR is persistent memory, so none grants
 * IB_ACCESS_FLUSH_PERSISTENT. Level MR flushes the whole MR, whatever the
 * RETH's range.
 */
static enum srdma_resp_verdict srdma_resp_flush(struct srdma_qp *qp,
						struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_feth *feth = srdma_hdr(bth, SRDMA_OP_FETH);
	struct srdma_reth *reth = srdma_hdr(bth, SRDMA_OP_RETH);
	u32 bits = be32_to_cpu(feth->bits), psn = srdma_pkt(skb)->psn;
	u32 type = bits & SRDMA_FETH_PLT_MASK;
	u32 level = (bits >> SRDMA_FETH_SEL_SHIFT) & SRDMA_FETH_SEL_MASK;
	u64 va = be64_to_cpu(reth->va);
	int access = 0, err;
	struct srdma_res *res;
	struct srdma_mr *mr;

	if (type & IB_FLUSH_GLOBAL)
		access |= IB_ACCESS_FLUSH_GLOBAL;
	if (type & IB_FLUSH_PERSISTENT)
		access |= IB_ACCESS_FLUSH_PERSISTENT;
	if (!qp->attr.max_dest_rd_atomic || !srdma_flush_target_ok(type, level) ||
	    (qp->attr.qp_access_flags & access) != access)
		return SRDMA_RESP_INVALID;
	/* for level MR only the key, PD and rights count: not the range */
	err = srdma_mr_lookup(qp, be32_to_cpu(reth->rkey), va,
			      level == IB_FLUSH_MR ? 0 : be32_to_cpu(reth->len),
			      access, &mr);
	if (err && !(err == -ERANGE && level == IB_FLUSH_MR))
		return SRDMA_RESP_ACCESS;
	if (!err)
		srdma_mr_put(mr);
	/* the earlier requests' bytes are placed: order them before the answer */
	wmb();
	res = srdma_resp_executed_res(qp, SRDMA_RES_NO_PAYLOAD, psn);
	srdma_resp_start_read(qp, res, NULL, psn, va, 0);
	return SRDMA_RESP_ANSWERED;
}

/* a request with the expected PSN */
static enum srdma_resp_verdict srdma_resp_execute(struct srdma_qp *qp,
						  struct sk_buff *skb)
{
	struct srdma_pkt *pkt = srdma_pkt(skb);
	u32 flags = srdma_op_flags(pkt->opcode);
	int access = qp->attr.qp_access_flags;

	/* a packet continues the message under way, or starts one */
	if (qp->resp.msg ? !(flags & qp->resp.msg) || (flags & SRDMA_OP_FIRST) :
			   !(flags & SRDMA_OP_FIRST))
		return SRDMA_RESP_INVALID;
	/* every packet of a message but its last is full */
	if ((flags & SRDMA_OP_PAYLOAD) &&
	    (flags & SRDMA_OP_LAST ? pkt->paylen > qp->mtu_bytes :
				     pkt->paylen != qp->mtu_bytes))
		return SRDMA_RESP_INVALID;
	if (flags & SRDMA_OP_SEND)
		return srdma_resp_send(qp, skb, flags);
	if (flags & SRDMA_OP_WRITE)
		return access & IB_ACCESS_REMOTE_WRITE ?
		       srdma_resp_write(qp, skb, flags) : SRDMA_RESP_INVALID;
	if (flags & SRDMA_OP_READ)
		return access & IB_ACCESS_REMOTE_READ ?
		       srdma_resp_read(qp, skb) : SRDMA_RESP_INVALID;
	if (flags & SRDMA_OP_ATOMIC_WRITE)
		return access & IB_ACCESS_REMOTE_WRITE ?
		       srdma_resp_atomic_write(qp, skb) : SRDMA_RESP_INVALID;
	if (flags & SRDMA_OP_FLUSH)
		return srdma_resp_flush(qp, skb);
	return access & IB_ACCESS_REMOTE_ATOMIC ?
	       srdma_resp_atomic(qp, skb) : SRDMA_RESP_INVALID;
}

static struct srdma_res *srdma_resp_find_res(struct srdma_qp *qp, u8 kind,
					     u32 psn)
{
	struct srdma_res *res;
	u32 i;

	for (i = 0; i < qp->resp.num_res; i++) {
		res = &qp->resp.res[i];
		if (res->kind == kind &&
		    srdma_psn_in_window(psn, res->first_psn, res->npsn))
			return res;
	}
	return NULL;
}

/* a request older than the expected PSN: its answer got lost */
static void srdma_resp_duplicate(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	u32 flags = srdma_op_flags(bth->opcode), psn = srdma_pkt(skb)->psn;
	struct srdma_mr *mr = NULL;
	struct srdma_reth *reth;
	struct srdma_res *res;
	u64 va;
	u32 len;

	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_DUPLICATES);
	if (flags & (SRDMA_OP_SEND | SRDMA_OP_WRITE)) {
		qp->resp.ack_pending = true;
		return;
	}
	if (flags & SRDMA_OP_ATOMIC) {
		res = srdma_resp_find_res(qp, SRDMA_RES_ATOMIC, psn);
		if (res)
			srdma_resp_send_atomic_ack(qp, psn, res->orig);
		return;
	}
	if (flags & (SRDMA_OP_ATOMIC_WRITE | SRDMA_OP_FLUSH)) {
		res = srdma_resp_find_res(qp, SRDMA_RES_NO_PAYLOAD, psn);
		if (res)
			srdma_resp_start_read(qp, res, NULL, psn, 0, 0);
		return;
	}
	/* a read asked again, maybe for its tail only: answer from there */
	res = srdma_resp_find_res(qp, SRDMA_RES_READ, psn);
	if (!res)
		return;
	reth = srdma_hdr(bth, SRDMA_OP_RETH);
	va = be64_to_cpu(reth->va);
	len = be32_to_cpu(reth->len);
	/* its PSN is in the read's window: the distance is not negative */
	if (be32_to_cpu(reth->rkey) != res->rkey ||
	    !srdma_range_ok(res->va, res->length, va, len) ||
	    va - res->va != (u64)(u32)srdma_psn_diff(psn, res->first_psn) *
			    qp->mtu_bytes)
		return;
	if (len && srdma_mr_lookup(qp, res->rkey, va, len,
				   IB_ACCESS_REMOTE_READ, &mr))
		return;
	srdma_resp_start_read(qp, res, mr, psn, va, len);
}

static void srdma_resp_fail(struct srdma_qp *qp, u32 psn,
			    enum srdma_resp_verdict verdict)
{
	static const struct {
		u8 nak;
		u8 status;
		u8 event;
	} fail[] = {
		[SRDMA_RESP_INVALID] = { SRDMA_NAK_INVALID_REQUEST,
					 IB_WC_REM_INV_REQ_ERR,
					 IB_EVENT_QP_REQ_ERR },
		[SRDMA_RESP_TOO_LONG] = { SRDMA_NAK_INVALID_REQUEST,
					  IB_WC_LOC_LEN_ERR,
					  IB_EVENT_QP_REQ_ERR },
		[SRDMA_RESP_ACCESS] = { SRDMA_NAK_REMOTE_ACCESS,
					IB_WC_REM_ACCESS_ERR,
					IB_EVENT_QP_ACCESS_ERR },
		[SRDMA_RESP_LOCAL] = { SRDMA_NAK_REMOTE_OP,
				       IB_WC_LOC_PROT_ERR,
				       IB_EVENT_QP_FATAL },
		[SRDMA_RESP_MALFORMED] = { SRDMA_NAK_REMOTE_OP,
					   IB_WC_LOC_QP_OP_ERR,
					   IB_EVENT_QP_FATAL },
	};

	if (qp->ibqp.qp_type == IB_QPT_RC)
		srdma_resp_send_ack(qp, SRDMA_AETH_NAK, fail[verdict].nak, psn);
	srdma_resp_release(qp);
	srdma_rwqe_fail(qp, fail[verdict].status, fail[verdict].event);
}

static void srdma_resp_pkt(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_resp *resp = &qp->resp;
	u32 psn = srdma_pkt(skb)->psn;
	s32 d = srdma_psn_diff(psn, resp->epsn);
	enum srdma_reorder_verdict hold;
	enum srdma_resp_verdict verdict;

	if (d < 0) {
		srdma_resp_duplicate(qp, skb);
		return;
	}
	if (d > 0) {
		hold = srdma_reorder_hold(&qp->resp_ahead, skb, resp->epsn);
		if (hold == SRDMA_REORDER_WAIT)
			return;
		if (hold == SRDMA_REORDER_DROP)
			srdma_count(sdev, SRDMA_CNT_DROP_OUT_OF_SEQ);
		/*
		 * One NAK per gap: a reordering network delivers late
		 * originals that look like lost retransmissions, and each NAK
		 * costs the requester a retry.
		 */
		if (!resp->nak_sent &&
		    !srdma_resp_send_ack(qp, SRDMA_AETH_NAK, SRDMA_NAK_PSN_SEQ,
					 resp->epsn)) {
			resp->nak_sent = true;
			srdma_count(sdev, SRDMA_CNT_SEQ_NAKS_SENT);
		}
		return;
	}
	verdict = srdma_resp_execute(qp, skb);
	switch (verdict) {
	case SRDMA_RESP_DONE:
		/* unless its completion moved on already */
		if (resp->epsn == psn)
			srdma_resp_executed(qp, skb);
		fallthrough;
	case SRDMA_RESP_ANSWERED:
		resp->nak_sent = false;
		break;
	case SRDMA_RESP_RNR:
		/* nothing changed: the retry finds the same state */
		if (!srdma_resp_send_ack(qp, SRDMA_AETH_RNR_NAK,
					 qp->attr.min_rnr_timer, psn))
			srdma_count(sdev, SRDMA_CNT_RNR_NAKS_SENT);
		/* the packets behind it wait for the RNR delay, silently */
		resp->nak_sent = true;
		break;
	default:
		srdma_resp_fail(qp, psn, verdict);
		break;
	}
}

/* UC: the message under way is dropped; its receive WQE serves the next */
static void srdma_resp_uc_drop(struct srdma_qp *qp)
{
	srdma_resp_release(qp);
	qp->resp.placed = 0;
}

/*
 * A UC request (IBTA 9.8.3): no ACK and no NAK ever. A PSN gap drops the
 * message under way; a message the responder cannot take (no receive
 * WQE, too long, a bad rkey, out of order) is dropped whole, and the next
 * one that starts with a FIRST or ONLY packet is taken. Only a malformed
 * receive WQE or a failure of its own memory is an error of the QP.
 */
static void srdma_resp_uc_pkt(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_resp *resp = &qp->resp;
	u32 psn = srdma_pkt(skb)->psn;
	bool first = srdma_op_flags(srdma_pkt(skb)->opcode) & SRDMA_OP_FIRST;
	enum srdma_resp_verdict verdict;

	if (psn != resp->epsn && resp->msg) {
		srdma_resp_uc_drop(qp);
		srdma_count(sdev, SRDMA_CNT_DROP_UC_MSG);
		/* this packet may be the dropped message's next one */
		resp->uc_dropping = true;
	}
	resp->epsn = srdma_psn_add(psn, 1);
	verdict = srdma_resp_execute(qp, skb);
	if (verdict == SRDMA_RESP_DONE) {
		resp->uc_dropping = false;
		return;
	}
	if (verdict == SRDMA_RESP_LOCAL || verdict == SRDMA_RESP_MALFORMED) {
		srdma_resp_fail(qp, psn, verdict);
		return;
	}
	/*
	 * Its message is dropped, counted at its first packet that arrived:
	 * the rest of it ends up here too
	 */
	if (first || !resp->uc_dropping)
		srdma_count(sdev, SRDMA_CNT_DROP_UC_MSG);
	resp->uc_dropping = true;
	srdma_resp_uc_drop(qp);
}

/**
 * srdma_resp_run() - execute received requests, up to a batch
 * @qp: the QP
 *
 * Read responses under way go first: requests wait for them, in order.
 *
 * Return: how many packets it sent or took.
 */
unsigned int srdma_resp_run(struct srdma_qp *qp)
{
	enum ib_qp_state state = srdma_qp_state(qp);
	void (*take)(struct srdma_qp *qp, struct sk_buff *skb);
	unsigned int done = 0;
	struct sk_buff *skb;

	srdma_engine_assert_owned(qp, SRDMA_HALF_RECV);
	if (state < IB_QPS_RTR || state == IB_QPS_ERR) {
		srdma_task_drop_queued(qp, &qp->resp_pkts, &qp->resp_ahead);
		if (state == IB_QPS_ERR) {
			srdma_resp_abort(qp);
			/* the receive half's own queue: no WQE of it in use */
			srdma_rq_flush(qp);
		}
		return 0;
	}
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		take = srdma_resp_pkt;
		break;
	case IB_QPT_UC:
		take = srdma_resp_uc_pkt;
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		take = srdma_ud_recv_pkt;
		break;
	case IB_QPT_RAW_PACKET:
		take = srdma_raw_recv_frame;
		break;
	default:
		skb_queue_purge(&qp->resp_pkts);
		return 0;
	}
	/* only RC has reads; their responses go before later requests */
	if (qp->resp.read) {
		done = srdma_resp_send_read(qp);
		if (qp->resp.read)
			return done;
	}
	while (done < SRDMA_ENGINE_BATCH &&
	       (skb = srdma_reorder_dequeue(qp, &qp->resp_ahead, qp->resp.epsn,
					    &qp->resp_pkts))) {
		take(qp, skb);
		kfree_skb(skb);
		done++;
		if (qp->resp.read || srdma_qp_state(qp) == IB_QPS_ERR)
			break;
	}
	/* only RC has ACKs pending */
	return done + srdma_resp_flush_ack(qp);
}
