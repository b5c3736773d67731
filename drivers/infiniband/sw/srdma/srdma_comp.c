// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC completer: what comes back from the responder, and the timers.
 *
 * An ACK of PSN n acknowledges every PSN up to n; a read response or an
 * atomic ACK also acknowledges every PSN before its own (IBTA 9.7.5.1.3).
 * Send WQEs are done, and then complete in order (srdma_sq_complete() in
 * srdma_wq.c), once acknowledged (SEND, RDMA WRITE), once their data is in
 * (RDMA READ, atomics), once their response came (ATOMIC WRITE), or once
 * executed (LOCAL_INV, REG_MR).
 *
 * Go-back-N from the oldest PSN not acknowledged happens on a sequence NAK,
 * on a gap in read responses that lasts (responses that overtook the one
 * expected are held for it, srdma_reorder.c), on an ACK past a read whose
 * responses did not all come (an implied NAK), and when the ACK timeout
 * expires: each counts against retry_cnt, and the WQE fails with
 * IB_WC_RETRY_EXC_ERR when none is left. Once gone back, later NAKs and
 * gaps are ignored until news comes, that is until something acknowledges
 * a PSN not acknowledged before: an ACK, a response, or a NAK past the PSN
 * gone back to (the responder took the retransmission up to there and
 * lacks the rest; waiting for the timeout would stall the QP). Each
 * go-back shrinks the congestion window (srdma_cwnd.c): a timeout to one
 * PSN, so that only the oldest packet goes out, asking for an ACK, until
 * news comes: a responder that is only slow gets one packet more to chew,
 * not a window. An RNR NAK stops the requester for the delay
 * it names, against rnr_retry (7: without end). Any progress gives both
 * counts back.
 *
 * The ACK timeout runs from the last response received, whatever it said:
 * it is there to find a peer that stopped answering. A packet the netdev's
 * full queue refuses starts it again (srdma_req.c): a QP that cannot send
 * is not answered, whatever the peer.
 */
#include <srdma/psn.h>

#include "srdma_engine.h"
#include "srdma_trace.h"

/**
 * srdma_comp_outstanding() - whether packets sent are not all acknowledged
 * @qp: the RC QP
 */
bool srdma_comp_outstanding(struct srdma_qp *qp)
{
	return qp->req.psn_end != qp->comp.psn;
}

/**
 * srdma_comp_restart_timer() - the ACK timeout from now, or none if
 * nothing is outstanding or the QP's timeout is 0
 * @qp: the QP
 */
void srdma_comp_restart_timer(struct srdma_qp *qp)
{
	u64 ns = srdma_rtt_timeout_ns(&qp->comp.rtt,
				      srdma_ack_timeout_ns(qp->attr.timeout));

	if (!ns || !srdma_comp_outstanding(qp) ||
	    qp->comp.recovery == SRDMA_COMP_RNR_WAIT) {
		qp->comp.deadline_ns = 0;	/* a timer still set finds nothing */
		return;
	}
	qp->comp.deadline_ns = ktime_get_ns() + ns;
	/*
	 * Setting an hrtimer can reprogram the clock event device, dear at
	 * every packet: a timer already set moves on to the deadline when
	 * it fires (srdma_comp_retry_timer()).
	 */
	if (!hrtimer_is_queued(&qp->retry_timer))
		srdma_timer_arm_at(&qp->retry_timer, qp->comp.deadline_ns);
}

/* go back N: the requester sends again from the oldest PSN not acknowledged */
static void srdma_comp_rewind(struct srdma_qp *qp)
{
	qp->req.index = srdma_queue_consumer(&qp->sq.queue);
	qp->req.psn = qp->comp.psn;
	qp->req.noack_pkts = 0;
}

/* the one place where the recovery state changes: traced */
static void srdma_comp_recover(struct srdma_qp *qp,
			       enum srdma_comp_recovery to)
{
	if (qp->comp.recovery == to)
		return;
	trace_srdma_comp_recovery(qp->ibqp.qp_num, qp->comp.recovery, to,
				  qp->comp.psn);
	qp->comp.recovery = to;
}

/*
 * The peer moved forward to @psn: the retry counts are whole again, and a
 * go-back under way is over (an RNR delay is not: it ends with its timer).
 */
static void srdma_comp_progress(struct srdma_qp *qp, u32 psn)
{
	srdma_cwnd_acked(&qp->comp.cwnd, srdma_psn_diff(psn, qp->comp.psn));
	srdma_rtt_acked(&qp->comp.rtt, psn);
	qp->comp.psn = psn;
	/*
	 * After a go-back, the ACKs of what was already on its way: nothing
	 * acknowledged is sent again (the requester skips the WQEs sent in
	 * full before @psn). After a timeout only the probe went again: an
	 * ACK past it says that what was sent before is getting through and
	 * the timeout came before its ACKs, behind a long queue. None of it
	 * is sent again: the requester goes on after the newest PSN sent, as
	 * the window allows; a loss among them draws a NAK or a timeout.
	 */
	if (srdma_psn_before(qp->req.psn, psn))
		qp->req.psn = qp->comp.recovery == SRDMA_COMP_PROBING ?
			      qp->req.psn_end : psn;
	if (qp->comp.recovery != SRDMA_COMP_RNR_WAIT)
		srdma_comp_recover(qp, SRDMA_COMP_STEADY);
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_retry_left = qp->attr.rnr_retry;
	srdma_comp_restart_timer(qp);
}

/*
 * The first WQE under way (sent in part or whole, not done) from SQ index
 * *@i on, *@i moved to it; NULL at the first WQE still NEW (the requester
 * sends in order), at the end, or at an index never copied (a flush moved
 * the consumer past the copies)
 */
static struct srdma_swqe *srdma_comp_next_sent(struct srdma_qp *qp, u32 *i)
{
	struct srdma_swqe *swqe;

	for (; *i != qp->req.fetched; *i = (*i + 1) & qp->sq.queue.index_mask) {
		swqe = srdma_swqe(qp, *i);
		if (!swqe || swqe->state == SRDMA_SWQE_NEW)
			return NULL;
		if (swqe->state != SRDMA_SWQE_DONE)
			return swqe;
	}
	return NULL;
}

/* the oldest WQE under way, or NULL */
static struct srdma_swqe *srdma_comp_oldest(struct srdma_qp *qp)
{
	u32 i = srdma_queue_consumer(&qp->sq.queue);

	return srdma_comp_next_sent(qp, &i);
}

/* the oldest WQE under way fails with @status; the QP goes to ERR */
static void srdma_comp_fail(struct srdma_qp *qp, enum ib_wc_status status)
{
	struct srdma_swqe *swqe = srdma_comp_oldest(qp);

	if (!swqe)
		return;
	swqe->status = status;
	swqe->state = SRDMA_SWQE_DONE;
	qp->comp.deadline_ns = 0;
}

/*
 * Go back N, against retry_cnt: once until news comes back (@once), or
 * whatever happened before (a timeout). During an RNR delay a NAK or a gap
 * is older than the RNR NAK: the delay's end goes back.
 */
static void srdma_comp_go_back(struct srdma_qp *qp, bool once)
{
	if (once && qp->comp.recovery != SRDMA_COMP_STEADY)
		return;
	if (!qp->comp.retry_left) {
		srdma_comp_fail(qp, IB_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry_left--;
	/* a probe that times out again leaves the window as it is */
	if (qp->comp.recovery != SRDMA_COMP_PROBING)
		srdma_cwnd_lost(&qp->comp.cwnd,
				srdma_psn_diff(qp->req.psn_end, qp->comp.psn),
				!once);
	trace_srdma_go_back(qp->ibqp.qp_num, qp->comp.psn, qp->req.psn_end,
			    !once, qp->comp.retry_left, qp->comp.cwnd.size);
	/* after a timeout, the pipe may be full: probe it before refilling */
	srdma_comp_recover(qp, once ? SRDMA_COMP_REWOUND : SRDMA_COMP_PROBING);
	srdma_comp_rewind(qp);
	srdma_comp_restart_timer(qp);
}

/* every PSN up to @psn is acknowledged; true if news */
static bool srdma_comp_ack(struct srdma_qp *qp, u32 psn)
{
	u32 mask = qp->sq.queue.index_mask;
	struct srdma_swqe *swqe;
	u32 i, next = srdma_psn_add(psn, 1);

	/* older than what is known, or of a PSN never sent */
	if (!srdma_psn_before(qp->comp.psn, next) ||
	    srdma_psn_before(qp->req.psn_end, next))
		return false;
	for (i = srdma_queue_consumer(&qp->sq.queue);
	     (swqe = srdma_comp_next_sent(qp, &i)); i = (i + 1) & mask) {
		if (srdma_wr_is_rd_atomic(swqe->wqe.wr.opcode)) {
			if (srdma_psn_before(psn, swqe->first_psn))
				break;
			/* past a read whose responses did not all come */
			if (srdma_psn_before(qp->comp.psn, swqe->first_psn))
				srdma_comp_progress(qp, swqe->first_psn);
			srdma_comp_go_back(qp, true);
			return true;
		}
		if (srdma_psn_before(psn, srdma_psn_add(swqe->first_psn,
							swqe->npsn - 1)))
			break;
		swqe->state = SRDMA_SWQE_DONE;
	}
	srdma_comp_progress(qp, next);
	return true;
}

static void srdma_comp_rnr_nak(struct srdma_qp *qp, u32 psn, u8 timer)
{
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_RNR_NAKS_RCVD);
	srdma_comp_ack(qp, srdma_psn_add(psn, SRDMA_PSN_MASK));
	if (psn != qp->comp.psn || qp->comp.recovery == SRDMA_COMP_RNR_WAIT)
		return;
	if (!qp->comp.rnr_retry_left) {
		srdma_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	if (qp->attr.rnr_retry != SRDMA_QP_RETRY_MAX)
		qp->comp.rnr_retry_left--;
	srdma_comp_recover(qp, SRDMA_COMP_RNR_WAIT);
	qp->comp.deadline_ns = 0;
	srdma_timer_arm(&qp->rnr_timer, srdma_rnr_delay_ns(timer));
}

static const u8 srdma_nak_status[] = {
	[SRDMA_NAK_INVALID_REQUEST] = IB_WC_REM_INV_REQ_ERR,
	[SRDMA_NAK_REMOTE_ACCESS] = IB_WC_REM_ACCESS_ERR,
	[SRDMA_NAK_REMOTE_OP] = IB_WC_REM_OP_ERR,
};

static void srdma_comp_nak(struct srdma_qp *qp, u32 psn, u8 code)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);

	srdma_comp_ack(qp, srdma_psn_add(psn, SRDMA_PSN_MASK));
	if (psn != qp->comp.psn)
		return;
	if (code == SRDMA_NAK_PSN_SEQ) {
		srdma_count(sdev, SRDMA_CNT_SEQ_NAKS_RCVD);
		srdma_comp_go_back(qp, true);
		return;
	}
	srdma_count(sdev, SRDMA_CNT_REMOTE_ERRORS);
	if (code >= ARRAY_SIZE(srdma_nak_status) || !srdma_nak_status[code])
		code = SRDMA_NAK_REMOTE_OP;	/* reserved codes */
	srdma_comp_fail(qp, srdma_nak_status[code]);
}

/*
 * The response with PSN @psn to the oldest read or atomic: everything
 * before it is acknowledged. Returns the WQE, or NULL if the response is
 * old, out of order (go back N) or answers nothing.
 */
static struct srdma_swqe *srdma_comp_response_wqe(struct srdma_qp *qp,
						  u32 psn)
{
	struct srdma_swqe *swqe;

	if (srdma_psn_before(psn, qp->comp.psn)) {
		srdma_count(to_srdma_dev(qp->ibqp.device),
			    SRDMA_CNT_DUPLICATES);
		return NULL;
	}
	if (psn != qp->comp.psn)
		srdma_comp_ack(qp, srdma_psn_add(psn, SRDMA_PSN_MASK));
	if (psn != qp->comp.psn) {
		srdma_comp_go_back(qp, true);
		return NULL;
	}
	swqe = srdma_comp_oldest(qp);
	if (!swqe || !srdma_wr_is_rd_atomic(swqe->wqe.wr.opcode) ||
	    !srdma_psn_in_window(psn, swqe->first_psn, swqe->npsn))
		return NULL;
	return swqe;
}

static void srdma_comp_wqe_done(struct srdma_qp *qp, struct srdma_swqe *swqe,
				u32 psn)
{
	if (psn == srdma_psn_add(swqe->first_psn, swqe->npsn - 1)) {
		swqe->state = SRDMA_SWQE_DONE;
		qp->req.rd_atomic--;
	}
	srdma_comp_progress(qp, srdma_psn_add(psn, 1));
}

/*
 * false, or true if @skb must be taken again once an ODP page of its
 * destination is faulted in (the fault kicks the engine)
 */
static bool srdma_comp_read_response(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_pkt *pkt = srdma_pkt(skb);
	u32 flags = srdma_op_flags(pkt->opcode);
	struct srdma_swqe *swqe;
	u64 offset;
	bool last;
	int err;

	if ((flags & SRDMA_OP_AETH) &&
	    srdma_aeth_type(((struct srdma_aeth *)srdma_hdr(bth, SRDMA_OP_AETH))->smsn) !=
	    SRDMA_AETH_ACK)
		return false;
	swqe = srdma_comp_response_wqe(qp, pkt->psn);
	if (!swqe || srdma_wr_is_atomic(swqe->wqe.wr.opcode))
		return false;
	if (srdma_wr_is_no_payload_rd(swqe->wqe.wr.opcode)) {
		if ((flags & SRDMA_OP_ONLY) != SRDMA_OP_ONLY || pkt->paylen)
			srdma_comp_fail(qp, IB_WC_BAD_RESP_ERR);
		else
			srdma_comp_wqe_done(qp, swqe, pkt->psn);
		return false;
	}
	offset = (u64)srdma_psn_diff(pkt->psn, swqe->first_psn) *
		 qp->mtu_bytes;
	last = pkt->psn == srdma_psn_add(swqe->first_psn, swqe->npsn - 1);
	/* every response but the last is full; the last ends the read */
	if ((flags & SRDMA_OP_LAST) != (last ? SRDMA_OP_LAST : 0) ||
	    (!last && pkt->paylen != qp->mtu_bytes) ||
	    (last && offset + pkt->paylen != swqe->length)) {
		srdma_comp_fail(qp, IB_WC_BAD_RESP_ERR);
		return false;
	}
	err = srdma_sge_copy_skb(qp, swqe->wqe.dma.sge, swqe->wqe.dma.num_sge,
				 offset, skb, srdma_op_hdr_bytes(pkt->opcode),
				 pkt->paylen);
	if (err == -EINPROGRESS)
		return true;
	if (err) {
		srdma_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return false;
	}
	srdma_comp_wqe_done(qp, swqe, pkt->psn);
	return false;
}

/* as srdma_comp_read_response() */
static bool srdma_comp_atomic_ack(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_atmack *atmack = srdma_hdr(bth, SRDMA_OP_ATMACK);
	struct srdma_swqe *swqe;
	u64 orig;
	int err;

	swqe = srdma_comp_response_wqe(qp, srdma_pkt(skb)->psn);
	if (!swqe || !srdma_wr_is_atomic(swqe->wqe.wr.opcode))
		return false;
	orig = be64_to_cpu(atmack->orig);
	err = srdma_sge_copy(qp, swqe->wqe.dma.sge, swqe->wqe.dma.num_sge, 0,
			     &orig, sizeof(orig), true);
	if (err == -EINPROGRESS)
		return true;
	if (err) {
		srdma_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return false;
	}
	srdma_comp_wqe_done(qp, swqe, srdma_pkt(skb)->psn);
	return false;
}

/* the WQE under way whose PSNs hold @psn, or NULL */
static struct srdma_swqe *srdma_comp_wqe_at(struct srdma_qp *qp, u32 psn)
{
	u32 mask = qp->sq.queue.index_mask;
	struct srdma_swqe *swqe;
	u32 i;

	for (i = srdma_queue_consumer(&qp->sq.queue);
	     (swqe = srdma_comp_next_sent(qp, &i)); i = (i + 1) & mask)
		if (srdma_psn_in_window(psn, swqe->first_psn, swqe->npsn))
			return swqe;
	return NULL;
}

/*
 * Whether a packet from the responder answers a request sent: its PSN was
 * sent, and a read response or atomic ACK not yet taken falls on a read or
 * an atomic. Anything else is forged or from an earlier life of the QP, and
 * must neither be held for later nor acknowledge anything.
 */
static bool srdma_comp_solicited(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_pkt *pkt = srdma_pkt(skb);
	struct srdma_swqe *swqe;

	if (!srdma_psn_before(pkt->psn, qp->req.psn_end))
		return false;
	if (pkt->opcode == IB_OPCODE_RC_ACKNOWLEDGE ||
	    srdma_psn_before(pkt->psn, qp->comp.psn))
		return true;	/* duplicates are counted as such */
	swqe = srdma_comp_wqe_at(qp, pkt->psn);
	if (!swqe || !srdma_wr_is_rd_atomic(swqe->wqe.wr.opcode))
		return false;
	return (pkt->opcode == IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE) ==
	       srdma_wr_is_atomic(swqe->wqe.wr.opcode);
}

/* false, or true if @skb must be taken again (an ODP fault) */
static bool srdma_comp_pkt(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_pkt *pkt = srdma_pkt(skb);
	u32 psn = qp->comp.psn;
	bool again = false;
	__be32 smsn;

	if (!srdma_comp_solicited(qp, skb)) {
		srdma_count(to_srdma_dev(qp->ibqp.device),
			    SRDMA_CNT_DROP_UNSOLICITED);
		return false;
	}
	/* a response that overtook the one expected waits for it */
	if (pkt->opcode != IB_OPCODE_RC_ACKNOWLEDGE &&
	    srdma_psn_diff(pkt->psn, qp->comp.psn) > 0 &&
	    srdma_reorder_hold(&qp->comp_ahead, skb, qp->comp.psn) ==
	    SRDMA_REORDER_WAIT) {
		srdma_comp_restart_timer(qp);
		return false;
	}
	switch (pkt->opcode) {
	case IB_OPCODE_RC_ACKNOWLEDGE:
		smsn = ((struct srdma_aeth *)srdma_hdr(bth, SRDMA_OP_AETH))->smsn;
		switch (srdma_aeth_type(smsn)) {
		case SRDMA_AETH_ACK:
			srdma_comp_ack(qp, pkt->psn);
			break;
		case SRDMA_AETH_RNR_NAK:
			srdma_comp_rnr_nak(qp, pkt->psn, srdma_aeth_value(smsn));
			break;
		case SRDMA_AETH_NAK:
			srdma_comp_nak(qp, pkt->psn, srdma_aeth_value(smsn));
			break;
		default:
			break;
		}
		break;
	case IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE:
		again = srdma_comp_atomic_ack(qp, skb);
		break;
	default:
		again = srdma_comp_read_response(qp, skb);
		break;
	}
	/*
	 * Any response restarts the timeout: progress did already (and read
	 * no clock if all is acknowledged), a failure or an RNR wait stopped it.
	 */
	if (qp->comp.psn == psn && qp->comp.deadline_ns)
		srdma_comp_restart_timer(qp);
	return again;
}

/*
 * The ACK a responder of this device handed over without a packet
 * (srdma_recv_local_ack()), taken as the ACK packet would be; true if
 * there was one
 */
static bool srdma_comp_local_ack(struct srdma_qp *qp)
{
	u32 psn = qp->comp.psn, ack;

	if (!atomic_read(&qp->local_ack))
		return false;
	ack = atomic_xchg(&qp->local_ack, 0);
	srdma_comp_ack(qp, ack & SRDMA_PSN_MASK);
	if (qp->comp.psn == psn && qp->comp.deadline_ns)
		srdma_comp_restart_timer(qp);
	return true;
}

/**
 * srdma_comp_run() - handle what came back, up to a batch, and complete
 * @qp: the QP
 *
 * Return: how many packets it took, plus one if it completed WQEs.
 */
unsigned int srdma_comp_run(struct srdma_qp *qp)
{
	enum ib_qp_state state = srdma_qp_state(qp);
	unsigned int done = 0;
	struct sk_buff *skb;

	srdma_engine_assert_owned(qp, SRDMA_HALF_SEND);
	if (state != IB_QPS_RTS && state != IB_QPS_SQD && state != IB_QPS_SQE) {
		srdma_task_drop_queued(qp, &qp->comp_pkts, &qp->comp_ahead);
		atomic_set(&qp->local_ack, 0);
		/* the send half's own queue: no WQE of it in use now */
		if (state == IB_QPS_ERR)
			srdma_sq_flush(qp);
		return 0;
	}
	/* after a pause (modify_qp), which stops the timers */
	if (!qp->comp.deadline_ns && srdma_comp_outstanding(qp))
		srdma_comp_restart_timer(qp);
	/* before the packets: it came before any of them was queued */
	done += srdma_comp_local_ack(qp);
	while (done < SRDMA_ENGINE_BATCH &&
	       (skb = srdma_reorder_dequeue(qp, &qp->comp_ahead, qp->comp.psn,
					    &qp->comp_pkts))) {
		if (srdma_comp_pkt(qp, skb)) {
			/* first again once the fault kicks the engine */
			skb_queue_head(&qp->comp_pkts, skb);
			break;
		}
		kfree_skb(skb);
		done++;
	}
	return done + srdma_sq_complete(qp);
}

/**
 * srdma_comp_retry_timer() - the ACK timeout expired
 * @qp: the QP
 */
void srdma_comp_retry_timer(struct srdma_qp *qp)
{
	enum ib_qp_state state = srdma_qp_state(qp);
	u64 now = ktime_get_ns();

	if ((state != IB_QPS_RTS && state != IB_QPS_SQD) ||
	    !srdma_comp_outstanding(qp) ||
	    qp->comp.recovery == SRDMA_COMP_RNR_WAIT || !qp->comp.deadline_ns)
		return;
	if (now < qp->comp.deadline_ns) {
		/* responses came since it was set: on to the deadline */
		srdma_timer_arm_at(&qp->retry_timer, qp->comp.deadline_ns);
		return;
	}
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_TIMEOUTS);
	srdma_comp_go_back(qp, false);
}

/**
 * srdma_comp_rnr_timer() - the RNR NAK delay is over: send again
 * @qp: the QP
 */
void srdma_comp_rnr_timer(struct srdma_qp *qp)
{
	if (qp->comp.recovery != SRDMA_COMP_RNR_WAIT)
		return;
	/* sent again from the PSN the RNR NAK named: gone back N there */
	srdma_comp_recover(qp, SRDMA_COMP_REWOUND);
	srdma_comp_rewind(qp);
	srdma_comp_restart_timer(qp);
}
