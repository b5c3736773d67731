// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The requester: turns send WQEs into packets. This file is RC's and UC's
 * (UC: the same packets with UC opcodes, no ACK asked for, no window, a
 * WQE done when its last packet is out); UD and RAW_PACKET have their
 * steps in srdma_ud.c and srdma_raw.c, run by srdma_req_run() here.
 *
 * Each WQE is copied out of the ring once (srdma_swqe) and checked; it then
 * gets its PSNs: one per packet of a SEND or RDMA WRITE segmented by the
 * path MTU, one per expected response of an RDMA READ, one for an atomic.
 * At most the congestion window's PSNs are unacknowledged (srdma_cwnd.c,
 * SRDMA_MAX_INFLIGHT_PSNS at most), and at most max_rd_atomic reads and
 * atomics outstanding. Packets ask for an ACK at the end of each message
 * and twice per window (every SRDMA_ACKREQ_EVERY_PKTS packets at most).
 *
 * Go-back-N: the completer rewinds the requester to the oldest PSN not
 * acknowledged (srdma_comp_rewind()), which sends again from there with the
 * same PSNs; a read is asked again for the bytes still missing. LOCAL_INV,
 * REG_MR and BIND_MW execute when the requester reaches them and complete
 * in order.
 * A transmit the netdev refuses is retried later (srdma_qp_xmit_refused());
 * an RC requester refused with nothing in flight fails with RETRY_EXC_ERR
 * after as long as an ACK timeout would make it, unless what refused it is
 * a full transmit queue (-ENOBUFS), which only says the link is busy; UC
 * loses the packet unless the refusal is brief (srdma_xmit_busy()). Each
 * packet waits for its turn and its rate (srdma_sched.c); the last before
 * a wait asks for an ACK, so that the wait never looks like a lost ACK.
 */
#include <kunit/visibility.h>
#include <srdma/psn.h>

#include "srdma_engine.h"

enum srdma_msg_pos { POS_FIRST, POS_MIDDLE, POS_LAST, POS_ONLY };

#define RC(op)	IB_OPCODE_RC_##op

/* the BTH opcode of each packet of a SEND or RDMA WRITE work request */
static const u8 srdma_req_opcodes[][4] = {
	[IB_WR_SEND] = { RC(SEND_FIRST), RC(SEND_MIDDLE), RC(SEND_LAST),
			 RC(SEND_ONLY) },
	[IB_WR_SEND_WITH_IMM] = { RC(SEND_FIRST), RC(SEND_MIDDLE),
				  RC(SEND_LAST_WITH_IMMEDIATE),
				  RC(SEND_ONLY_WITH_IMMEDIATE) },
	[IB_WR_SEND_WITH_INV] = { RC(SEND_FIRST), RC(SEND_MIDDLE),
				  RC(SEND_LAST_WITH_INVALIDATE),
				  RC(SEND_ONLY_WITH_INVALIDATE) },
	[IB_WR_RDMA_WRITE] = { RC(RDMA_WRITE_FIRST), RC(RDMA_WRITE_MIDDLE),
			       RC(RDMA_WRITE_LAST), RC(RDMA_WRITE_ONLY) },
	[IB_WR_RDMA_WRITE_WITH_IMM] = {
		RC(RDMA_WRITE_FIRST), RC(RDMA_WRITE_MIDDLE),
		RC(RDMA_WRITE_LAST_WITH_IMMEDIATE),
		RC(RDMA_WRITE_ONLY_WITH_IMMEDIATE) },
};

static u32 srdma_sq_next(struct srdma_qp *qp, u32 index)
{
	return (index + 1) & qp->sq.queue.index_mask;
}

/**
 * srdma_swqe_length() - the data checks of a send WQE, on srdma's copy
 * @wqe: the copy; an inline WQE's num_sge is set to 0 (its SGE area holds
 *       data)
 * @max_sge: the QP's max_sge
 * @max_inline_bytes: the QP's max inline data
 * @length: the message's bytes, on success
 *
 * Inline data is for the opcodes that carry a payload (ibv_post_send(3):
 * "valid only for Send and RDMA Write"): a READ or an atomic has no SGE
 * list to take its answer then.
 *
 * Return: IB_WC_SUCCESS, or the status the WQE completes with.
 */
VISIBLE_IF_KUNIT enum ib_wc_status srdma_swqe_length(struct rxe_send_wqe *wqe,
						     u32 max_sge,
						     u32 max_inline_bytes,
						     u32 *length)
{
	u32 opcode = wqe->wr.opcode;
	u64 total = 0;
	u32 i;

	/*
	 * Its 8 bytes are in the WQE (atomic_wr, where inline data goes); an
	 * unaligned address is the responder's to refuse, as on rdma_rxe
	 */
	if (opcode == IB_WR_ATOMIC_WRITE) {
		if (wqe->dma.length != sizeof(u64))
			return IB_WC_LOC_QP_OP_ERR;
		wqe->dma.num_sge = 0;
		*length = sizeof(u64);
		return IB_WC_SUCCESS;
	}
	/* a FLUSH moves no data: its dma.length is the remote range's */
	if (opcode == IB_WR_FLUSH) {
		if (!srdma_flush_target_ok(srdma_wr_flush(&wqe->wr)->type,
					   srdma_wr_flush(&wqe->wr)->level))
			return IB_WC_LOC_QP_OP_ERR;
		wqe->dma.num_sge = 0;
		*length = 0;
		return IB_WC_SUCCESS;
	}
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (srdma_wr_is_rd_atomic(opcode))
			return IB_WC_LOC_QP_OP_ERR;
		if (wqe->dma.length > max_inline_bytes)
			return IB_WC_LOC_LEN_ERR;
		wqe->dma.num_sge = 0;
		*length = wqe->dma.length;
		return IB_WC_SUCCESS;
	}
	if (wqe->dma.num_sge > max_sge)
		return IB_WC_LOC_LEN_ERR;
	for (i = 0; i < wqe->dma.num_sge; i++)
		if (check_add_overflow(total, (u64)wqe->dma.sge[i].length,
				       &total))
			return IB_WC_LOC_LEN_ERR;
	if (total > SRDMA_MAX_MSG_BYTES)
		return IB_WC_LOC_LEN_ERR;
	if (srdma_wr_is_atomic(opcode) &&
	    (total != sizeof(u64) ||
	     !IS_ALIGNED(wqe->wr.wr.atomic.remote_addr, sizeof(u64))))
		return IB_WC_LOC_QP_OP_ERR;
	*length = total;
	return IB_WC_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_swqe_length);

/**
 * srdma_read_npsn_ok() - whether the responses of a READ fit the PSN space
 * @length: bytes read
 * @mtu: path MTU in bytes
 *
 * A READ takes all its PSNs at once, on top of up to
 * SRDMA_MAX_INFLIGHT_PSNS others: together they must stay below half the
 * PSN circle, where srdma_psn_diff() changes sign. Only a READ of nearly
 * 2 GiB at MTU 256 comes near.
 */
VISIBLE_IF_KUNIT bool srdma_read_npsn_ok(u32 length, u32 mtu)
{
	return srdma_msg_npsn(length, mtu) <=
	       BIT(SRDMA_PSN_BITS - 1) - SRDMA_MAX_INFLIGHT_PSNS;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_read_npsn_ok);

/* the checks of a WQE copied from the ring; its status if refused */
static enum ib_wc_status srdma_swqe_check(struct srdma_qp *qp,
					  struct srdma_swqe *swqe)
{
	struct rxe_send_wqe *wqe = &swqe->wqe;
	u32 opcode = wqe->wr.opcode;
	enum ib_wc_status status;
	u32 length;

	/* REG_MR names a kernel MR; a process's BIND_MW, its own window */
	if (!srdma_send_opcode_ok(qp->ibqp.qp_type, opcode) ||
	    (qp->user && opcode == IB_WR_REG_MR) ||
	    (!qp->user && opcode == IB_WR_BIND_MW))
		return IB_WC_LOC_QP_OP_ERR;
	status = srdma_swqe_length(wqe, qp->sq.max_sge,
				   qp->sq.max_inline_bytes, &length);
	if (status != IB_WC_SUCCESS)
		return status;
	if (opcode == IB_WR_RDMA_READ &&
	    !srdma_read_npsn_ok(length, qp->mtu_bytes))
		return IB_WC_LOC_LEN_ERR;
	swqe->length = length;
	return IB_WC_SUCCESS;
}

static bool srdma_swqe_fetch(struct srdma_qp *qp, u32 index)
{
	struct srdma_swqe *swqe = srdma_swqe_alloc(qp, index);

	if (!swqe)
		return false;
	/* a process may rewrite the slot meanwhile: one copy, then trusted */
	memcpy(swqe->slot, srdma_queue_slot(&qp->sq.queue, index),
	       1 << qp->sq.queue.log2_slot_bytes);
	swqe->state = SRDMA_SWQE_NEW;
	swqe->status = srdma_swqe_check(qp, swqe);
	if (swqe->status != IB_WC_SUCCESS)
		swqe->state = SRDMA_SWQE_DONE;
	return true;
}

/**
 * srdma_req_doorbell() - a process rang the doorbell of its user QP: the
 * requester may send the WQEs its ring holds now
 * @qp: the user QP
 *
 * A process writes its ring, then rings: a WQE the engine found before the
 * doorbell would go out from wherever the engine runs then (often the
 * peer's CPU, inside the peer's system call), not from the process's own
 * system call. Under sq.lock, two threads' doorbells store the index in
 * the order they read it, so it never goes back (nor races a reset).
 */
void srdma_req_doorbell(struct srdma_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	/* pairs with srdma_req_posted(): the WQEs it covers are written */
	smp_store_release(&qp->req.doorbell,
			  srdma_queue_producer(&qp->sq.queue));
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

/**
 * srdma_req_drop_unposted() - a doorbell before RTS: the post fails, and the
 * WQEs the process wrote into its ring leave it unread, so that none of
 * them is sent later
 * @qp: the user QP, in RESET, INIT or RTR, its lock held (no modify_qp)
 *
 * Before RTS the requester never ran since RESET emptied the queue: every
 * WQE in the ring was written after, and it is at the consumer index.
 */
void srdma_req_drop_unposted(struct srdma_qp *qp)
{
	struct srdma_queue *q = &qp->sq.queue;
	unsigned long flags;

	lockdep_assert_held(&qp->lock);
	spin_lock_irqsave(&qp->sq.lock, flags);
	srdma_queue_consume_all(q);
	qp->req.index = srdma_queue_consumer(q);
	qp->req.fetched = qp->req.index;
	/* pairs with srdma_req_posted(), as srdma_req_doorbell() */
	smp_store_release(&qp->req.doorbell, qp->req.index);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

/* where the WQEs the requester may send end (see srdma_req_doorbell()) */
static u32 srdma_req_posted(struct srdma_qp *qp)
{
	/* pairs with srdma_req_doorbell() */
	return qp->user ? smp_load_acquire(&qp->req.doorbell) :
			  srdma_queue_producer(&qp->sq.queue);
}

/**
 * srdma_req_next_wqe() - the WQE the requester is at, copied from the ring
 * the first time it gets there
 * @qp: the QP
 * @fetched: set if it was copied now
 *
 * Return: srdma's copy, or NULL if the queue holds no more or an RNR NAK
 * delay runs.
 */
static struct srdma_swqe *srdma_req_next_wqe(struct srdma_qp *qp,
					     bool *fetched)
{
	struct srdma_req *req = &qp->req;

	*fetched = false;
	if (qp->comp.recovery == SRDMA_COMP_RNR_WAIT ||
	    !srdma_sq_may_fetch(srdma_queue_consumer(&qp->sq.queue),
				req->index, srdma_req_posted(qp),
				qp->sq.queue.index_mask))
		return NULL;
	if (req->index == req->fetched) {
		/* a full window waits for a completion to free an entry */
		if (!srdma_swqe_window_room(srdma_queue_consumer(&qp->sq.queue),
					    req->fetched,
					    qp->sq.queue.index_mask,
					    qp->swqe_mask))
			return NULL;
		/* no memory for the copy: try again as a refused transmit */
		if (!srdma_swqe_fetch(qp, req->index)) {
			srdma_count(to_srdma_dev(qp->ibqp.device),
				    SRDMA_CNT_PKT_NOMEM);
			srdma_qp_xmit_refused(qp);
			return NULL;
		}
		req->fetched = srdma_sq_next(qp, req->index);
		*fetched = true;
	}
	return srdma_swqe(qp, req->index);
}

/**
 * srdma_req_skip_done() - the requester is at a WQE that is done already
 * @qp: the QP
 * @swqe: the WQE, SRDMA_SWQE_DONE
 *
 * A WQE that failed stops the queue until it completes in error.
 *
 * Return: true if the requester moved on.
 */
static bool srdma_req_skip_done(struct srdma_qp *qp, struct srdma_swqe *swqe)
{
	if (swqe->status != IB_WC_SUCCESS)
		return false;
	srdma_swqe_next(qp);
	return true;
}

/*
 * LOCAL_INV, REG_MR and BIND_MW: executed in order, when the requester
 * gets there
 */
static void srdma_req_local_op(struct srdma_qp *qp, struct srdma_swqe *swqe)
{
	struct rxe_send_wr *wr = &swqe->wqe.wr;
	int err;

	swqe->state = SRDMA_SWQE_DONE;
	if (wr->opcode == IB_WR_BIND_MW) {
		swqe->status = srdma_mw_bind(qp, wr);
		return;
	}
	if (wr->opcode == IB_WR_LOCAL_INV)
		err = srdma_mr_invalidate(qp, wr->ex.invalidate_rkey);
	else
		err = srdma_mr_register(qp, wr->wr.reg.mr, wr->wr.reg.key,
					wr->wr.reg.access);
	swqe->status = err ? IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS;
}

static u32 srdma_swqe_npsn(struct srdma_qp *qp, struct srdma_swqe *swqe)
{
	if (srdma_wr_is_atomic(swqe->wqe.wr.opcode))
		return 1;
	return srdma_msg_npsn(swqe->length, qp->mtu_bytes);
}

/**
 * srdma_req_pkt_span() - where the packet with PSN @psn of a message starts
 * @psn: the PSN to send
 * @first_psn: the message's first
 * @npsn: its PSNs
 * @mtu: path MTU in bytes
 * @length: the message's bytes
 * @offset: its first byte in the message
 * @payload: its bytes (for a READ request: the most a response carries)
 *
 * Return: 0, or -ERANGE if @psn is not one of the message's.
 */
VISIBLE_IF_KUNIT int srdma_req_pkt_span(u32 psn, u32 first_psn, u32 npsn,
					u32 mtu, u32 length, u64 *offset,
					u32 *payload)
{
	s32 k = srdma_psn_diff(psn, first_psn);
	u64 off;

	if (k < 0 || (u32)k >= npsn || !mtu)
		return -ERANGE;
	off = (u64)k * mtu;
	if (off > length)
		return -ERANGE;
	*offset = off;
	*payload = min_t(u64, mtu, length - off);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_req_pkt_span);

/*
 * UC: the WQEs whose last packet was in the batch just handed to the stack
 * are done, as a lone packet's WQE is once it goes
 */
static void srdma_req_uc_batch_done(struct srdma_qp *qp)
{
	struct srdma_swqe *swqe;
	u32 i;

	if (qp->ibqp.qp_type != IB_QPT_UC)
		return;
	for (i = qp->req.batch_index; i != qp->req.index;
	     i = srdma_sq_next(qp, i)) {
		swqe = srdma_swqe(qp, i);
		if (swqe && swqe->state == SRDMA_SWQE_SENT)
			srdma_swqe_done(qp, swqe, IB_WC_SUCCESS);
	}
}

/*
 * Hand the batch of packets built to the stack. Refused for a while (a
 * full queue, no memory), none of them went: the requester goes back to
 * the first. Refused otherwise (by a filter, say), they are lost as on a
 * wire: RC's ACK timeout sends them again, UC's WQEs complete.
 */
static int srdma_req_flush(struct srdma_qp *qp)
{
	struct srdma_req *req = &qp->req;
	int err;

	if (!req->batch.pkts)
		return 0;
	err = srdma_qp_batch_flush(qp, SRDMA_HALF_SEND, &req->batch);
	if (!err || !srdma_xmit_busy(err)) {
		srdma_req_uc_batch_done(qp);
		return 0;
	}
	req->index = srdma_queue_consumer(&qp->sq.queue);
	req->psn = req->batch_psn;
	req->psn_end = req->batch_psn_end;
	req->noack_pkts = 0;
	return err;
}

/*
 * Send a packet of the requester's: into the batch if it may join it (an
 * RC or UC data packet, @batch), else alone, after the batch
 */
static int srdma_req_xmit(struct srdma_qp *qp, struct sk_buff *skb, u32 psn,
			  bool batch)
{
	struct srdma_req *req = &qp->req;
	int err;

	if (batch && req->batch.pkts &&
	    srdma_qp_batch_fits(qp, &req->batch, skb->len))
		return srdma_qp_batch_add(qp, SRDMA_HALF_SEND, &req->batch, skb);
	err = srdma_req_flush(qp);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	if (!batch || !srdma_qp_batch_fits(qp, &req->batch, skb->len))
		return srdma_qp_xmit(qp, SRDMA_HALF_SEND, skb);
	req->batch_psn = psn;
	req->batch_psn_end = req->psn_end;
	req->batch_index = req->index;
	return srdma_qp_batch_add(qp, SRDMA_HALF_SEND, &req->batch, skb);
}

/*
 * The packet of @swqe with PSN @psn; sets *@next_psn to the PSN after it.
 * @wait_next: the QP waits after it, so it asks for an ACK. Returns 0 once
 * sent, -ENOBUFS if the netdev's queue was full, -EAGAIN if the path
 * refused it otherwise, -ENOMEM without an skb, or the WQE's error.
 */
static int srdma_req_send_pkt(struct srdma_qp *qp, struct srdma_swqe *swqe,
			      u32 psn, u32 *next_psn, bool wait_next)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct rxe_send_wr *wr = &swqe->wqe.wr;
	bool uc = qp->ibqp.qp_type == IB_QPT_UC;
	bool ackreq = !uc, se = false, batch = false, first, last, paged;
	struct srdma_reth *reth;
	struct srdma_bth *bth;
	struct sk_buff *skb;
	u32 payload = 0, bytes, k;
	u64 offset;
	u8 opcode;
	int err;

	/* the WQE fails rather than send bytes that are not its own */
	if (srdma_req_pkt_span(psn, swqe->first_psn, swqe->npsn, qp->mtu_bytes,
			       swqe->length, &offset, &bytes))
		return -EINVAL;
	k = srdma_psn_diff(psn, swqe->first_psn);
	first = !k;
	last = k == swqe->npsn - 1;

	switch (wr->opcode) {
	case IB_WR_RDMA_READ:
		opcode = IB_OPCODE_RC_RDMA_READ_REQUEST;
		skb = srdma_pkt_alloc(sdev, opcode, 0, &bth);
		if (!skb)
			return -ENOMEM;
		reth = srdma_hdr(bth, SRDMA_OP_RETH);
		/* after a rewind: only the bytes still missing */
		reth->va = cpu_to_be64(wr->wr.rdma.remote_addr + offset);
		reth->rkey = cpu_to_be32(wr->wr.rdma.rkey);
		reth->len = cpu_to_be32(swqe->length - offset);
		*next_psn = srdma_psn_add(swqe->first_psn, swqe->npsn);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD: {
		struct srdma_atmeth *atm;
		bool cmp_swap = wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP;

		opcode = cmp_swap ? IB_OPCODE_RC_COMPARE_SWAP :
				    IB_OPCODE_RC_FETCH_ADD;
		skb = srdma_pkt_alloc(sdev, opcode, 0, &bth);
		if (!skb)
			return -ENOMEM;
		atm = srdma_hdr(bth, SRDMA_OP_ATMETH);
		atm->va = cpu_to_be64(wr->wr.atomic.remote_addr);
		atm->rkey = cpu_to_be32(wr->wr.atomic.rkey);
		atm->swap_add = cpu_to_be64(cmp_swap ? wr->wr.atomic.swap :
					    wr->wr.atomic.compare_add);
		atm->compare = cpu_to_be64(cmp_swap ? wr->wr.atomic.compare_add :
					   0);
		*next_psn = srdma_psn_add(psn, 1);
		break;
	}
	case IB_WR_ATOMIC_WRITE:
		opcode = IB_OPCODE_RC_ATOMIC_WRITE;
		payload = sizeof(u64);
		skb = srdma_pkt_alloc(sdev, opcode, payload, &bth);
		if (!skb)
			return -ENOMEM;
		reth = srdma_hdr(bth, SRDMA_OP_RETH);
		reth->va = cpu_to_be64(wr->wr.rdma.remote_addr);
		reth->rkey = cpu_to_be32(wr->wr.rdma.rkey);
		reth->len = cpu_to_be32(payload);
		/* the bytes as the process gave them: no byte order */
		memcpy((u8 *)bth + srdma_op_hdr_bytes(opcode),
		       swqe->wqe.dma.inline_data, payload);
		*next_psn = srdma_psn_add(psn, 1);
		break;
	case IB_WR_FLUSH: {
		typeof(srdma_wr_flush(wr)) flush = srdma_wr_flush(wr);
		struct srdma_feth *feth;

		opcode = IB_OPCODE_RC_FLUSH;
		skb = srdma_pkt_alloc(sdev, opcode, 0, &bth);
		if (!skb)
			return -ENOMEM;
		feth = srdma_hdr(bth, SRDMA_OP_FETH);
		feth->bits = cpu_to_be32(flush->type |
					 flush->level << SRDMA_FETH_SEL_SHIFT);
		reth = srdma_hdr(bth, SRDMA_OP_RETH);
		reth->va = cpu_to_be64(flush->remote_addr);
		reth->rkey = cpu_to_be32(flush->rkey);
		reth->len = cpu_to_be32(swqe->wqe.dma.length);
		*next_psn = srdma_psn_add(psn, 1);
		break;
	}
	default:
		payload = bytes;
		opcode = srdma_req_opcodes[wr->opcode][first ?
			(last ? POS_ONLY : POS_FIRST) :
			(last ? POS_LAST : POS_MIDDLE)];
		/* UC has the same opcodes in its own range */
		if (uc)
			opcode = opcode - IB_OPCODE_RC + IB_OPCODE_UC;
		paged = !uc && !(wr->send_flags & IB_SEND_INLINE) &&
			srdma_pkt_paged_ok(sdev, &qp->av, payload);
		skb = paged ? srdma_pkt_alloc_paged(sdev, opcode, &bth) :
			      srdma_pkt_alloc(sdev, opcode, payload, &bth);
		if (!skb)
			return -ENOMEM;
		if (srdma_op_flags(opcode) & SRDMA_OP_RETH) {
			reth = srdma_hdr(bth, SRDMA_OP_RETH);
			reth->va = cpu_to_be64(wr->wr.rdma.remote_addr);
			reth->rkey = cpu_to_be32(wr->wr.rdma.rkey);
			reth->len = cpu_to_be32(swqe->length);
		}
		if (srdma_op_flags(opcode) & SRDMA_OP_IMMDT)
			*(__be32 *)srdma_hdr(bth, SRDMA_OP_IMMDT) =
				wr->ex.imm_data;
		if (srdma_op_flags(opcode) & SRDMA_OP_IETH)
			*(__be32 *)srdma_hdr(bth, SRDMA_OP_IETH) =
				cpu_to_be32(wr->ex.invalidate_rkey);
		if (paged)
			err = srdma_swqe_attach(qp, swqe, offset, skb,
						payload) ?:
			      srdma_pkt_end_paged(sdev, skb);
		else
			err = srdma_swqe_copy(qp, swqe, offset,
					      (u8 *)bth +
					      srdma_op_hdr_bytes(opcode),
					      payload);
		if (err) {
			kfree_skb(skb);
			return err;
		}
		batch = true;
		se = last && (wr->send_flags & IB_SEND_SOLICITED);
		ackreq = !uc && (last || wait_next ||
				 ++qp->req.noack_pkts >=
				 srdma_cwnd_ackreq_pkts(&qp->comp.cwnd));
		*next_psn = srdma_psn_add(psn, 1);
		break;
	}
	if (ackreq)
		qp->req.noack_pkts = 0;
	srdma_bth_init(bth, opcode, se, srdma_pad_bytes(payload),
		       qp->attr.dest_qp_num, ackreq, psn);
	err = srdma_req_xmit(qp, skb, psn, batch);
	/* a full queue is waited on, by UC too */
	if (err == -ENOBUFS)
		return err;
	/* UC is unreliable: a packet its path refuses is lost, as on a wire */
	if (err && (!uc || srdma_xmit_busy(err)))
		return -EAGAIN;
	return 0;
}

/*
 * The netdev refuses the packet due while nothing is in flight, so that no
 * ACK timeout runs: true once that has lasted as long as the retries of a
 * lost packet would, timeout x (retry_cnt + 1); never with timeout 0.
 */
static bool srdma_req_refused_too_long(struct srdma_qp *qp)
{
	u64 ns = srdma_ack_timeout_ns(qp->attr.timeout);
	u64 now = ktime_get_ns();

	if (!ns || srdma_comp_outstanding(qp)) {
		qp->req.refused_since_ns = 0;
		return false;
	}
	if (!qp->req.refused_since_ns) {
		qp->req.refused_since_ns = now;
		return false;
	}
	return now - qp->req.refused_since_ns >=
	       ns * (qp->attr.retry_cnt + 1);
}

/* a WQE that has not started may start now: window, limits, fence */
static bool srdma_req_may_start(struct srdma_qp *qp, struct srdma_swqe *swqe)
{
	u32 opcode = swqe->wqe.wr.opcode;

	if (srdma_wr_is_rd_atomic(opcode) &&
	    qp->req.rd_atomic >= max_t(u32, qp->attr.max_rd_atomic, 1))
		return false;
	if ((swqe->wqe.wr.send_flags & IB_SEND_FENCE) && qp->req.rd_atomic)
		return false;
	return true;
}

/*
 * One step of the RC or UC requester at @swqe (not done): a local
 * operation, or one packet; true if it did something
 */
static bool srdma_req_rc_step(struct srdma_qp *qp, struct srdma_swqe *swqe)
{
	bool uc = qp->ibqp.qp_type == IB_QPT_UC;
	struct srdma_req *req = &qp->req;
	u32 psn = req->psn, next_psn;
	enum srdma_send send;
	int err;

	if (swqe->state == SRDMA_SWQE_NEW) {
		/* SQD finishes the message under way and starts no other */
		if (srdma_qp_state(qp) == IB_QPS_SQD)
			return false;
		if (swqe->wqe.wr.opcode == IB_WR_LOCAL_INV ||
		    swqe->wqe.wr.opcode == IB_WR_REG_MR ||
		    swqe->wqe.wr.opcode == IB_WR_BIND_MW) {
			srdma_req_local_op(qp, swqe);
			srdma_swqe_next(qp);
			return true;
		}
		if (!srdma_req_may_start(qp, swqe))
			return false;
		swqe->first_psn = psn;
		swqe->npsn = srdma_swqe_npsn(qp, swqe);
	} else if (!srdma_psn_before(psn, srdma_psn_add(swqe->first_psn,
							swqe->npsn))) {
		/* sent in full before a rewind to an older WQE */
		srdma_swqe_next(qp);
		return true;
	}
	if (!uc && srdma_psn_diff(psn, qp->comp.psn) >= qp->comp.cwnd.size)
		return false;
	/*
	 * The netdev refused the last try: its retry timer says when to
	 * try again, not the next kick (an ACK), which would build a packet
	 * for a queue still full, and take the room other QPs wait for
	 */
	if (srdma_qp_xmit_waiting(qp))
		return false;
	send = srdma_sched_may_send(qp, SRDMA_HALF_SEND);
	if (send == SRDMA_SEND_WAIT)
		return false;

	err = srdma_req_send_pkt(qp, swqe, psn, &next_psn,
				 send == SRDMA_SEND_LAST);
	/* an ODP page being faulted in: the fault kicks the engine */
	if (err == -EINPROGRESS)
		return false;
	if (err == -ENOBUFS) {
		/*
		 * The netdev's queue is full: the link lives and other QPs
		 * (or this one's earlier packets) fill it. Never a reason
		 * to fail the WQE: a QP that waits with nothing in flight
		 * would lose to those whose ACKs refill the queue first. Nor
		 * is the peer's silence meanwhile: the packets it has may not
		 * have asked for an ACK, and the one that would cannot go.
		 */
		req->refused_since_ns = 0;
		srdma_comp_restart_timer(qp);
		srdma_qp_xmit_refused(qp);
		return false;
	}
	if (err == -EAGAIN || err == -ENOMEM) {
		if (!uc && srdma_req_refused_too_long(qp)) {
			srdma_swqe_done(qp, swqe, IB_WC_RETRY_EXC_ERR);
			return true;
		}
		srdma_qp_xmit_refused(qp);
		return false;
	}
	req->refused_since_ns = 0;
	if (swqe->state == SRDMA_SWQE_NEW &&
	    srdma_wr_is_rd_atomic(swqe->wqe.wr.opcode))
		req->rd_atomic++;
	if (err) {
		srdma_swqe_done(qp, swqe, IB_WC_LOC_PROT_ERR);
		return true;
	}
	req->psn = next_psn;
	swqe->state = SRDMA_SWQE_SENDING;
	if (uc) {
		/*
		 * nothing comes back: done when its last packet is out, or
		 * with the batch that holds it (srdma_req_flush())
		 */
		if (!srdma_psn_before(next_psn, srdma_psn_add(swqe->first_psn,
							      swqe->npsn))) {
			if (req->batch.pkts)
				swqe->state = SRDMA_SWQE_SENT;
			else
				srdma_swqe_done(qp, swqe, IB_WC_SUCCESS);
			srdma_swqe_next(qp);
		}
		return true;
	}
	if (srdma_psn_before(psn, req->psn_end))
		srdma_count(to_srdma_dev(qp->ibqp.device),
			    SRDMA_CNT_RETRANSMITS);
	else
		req->psn_end = next_psn;
	srdma_rtt_sending(&qp->comp.rtt, psn);
	if (!srdma_psn_before(next_psn, srdma_psn_add(swqe->first_psn,
						      swqe->npsn))) {
		swqe->state = SRDMA_SWQE_SENT;
		srdma_swqe_next(qp);
	}
	if (!qp->comp.deadline_ns)
		srdma_comp_restart_timer(qp);
	return true;
}

/**
 * srdma_req_run() - send what the send queue holds, up to a batch
 * @qp: the QP
 *
 * Return: how many steps it made (packets sent, WQEs executed or passed).
 */
unsigned int srdma_req_run(struct srdma_qp *qp)
{
	enum ib_qp_state state = srdma_qp_state(qp);
	bool (*step)(struct srdma_qp *qp, struct srdma_swqe *swqe);
	struct srdma_swqe *swqe;
	unsigned int done = 0;
	bool fetched;

	srdma_engine_assert_owned(qp, SRDMA_HALF_SEND);
	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return 0;
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
		step = srdma_req_rc_step;
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		/* SQD: a datagram is a whole message, none is under way */
		if (state != IB_QPS_RTS)
			return 0;
		step = srdma_ud_req_step;
		break;
	case IB_QPT_RAW_PACKET:
		if (state != IB_QPS_RTS)
			return 0;
		step = srdma_raw_req_step;
		break;
	default:
		return 0;
	}
	while (done < SRDMA_ENGINE_BATCH) {
		swqe = srdma_req_next_wqe(qp, &fetched);
		if (!swqe)
			break;
		if (swqe->state == SRDMA_SWQE_DONE ?
		    !srdma_req_skip_done(qp, swqe) : !step(qp, swqe)) {
			/* refused as it was copied: the completer has work */
			done += fetched && swqe->state == SRDMA_SWQE_DONE;
			break;
		}
		done++;
	}
	if (srdma_req_flush(qp)) {
		/* as a packet refused for a full queue (srdma_req_rc_step()) */
		qp->req.refused_since_ns = 0;
		srdma_comp_restart_timer(qp);
		srdma_qp_xmit_refused(qp);
	}
	return done;
}
