// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Work requests: posting by kernel consumers into the same rxe-layout rings
 * that librxe fills for processes, and the doorbell of user QPs.
 *
 * A send is posted in RTS, SQD, SQE and ERR only; before, the post fails
 * with EINVAL (a process's doorbell too, and the WQEs it wrote leave its
 * ring unsent). A receive is posted in every state but RESET. In ERR
 * every WQE, outstanding or newly posted, completes with
 * IB_WC_WR_FLUSH_ERR; a completion that finds its CQ full stays in the
 * queue and is flushed by the next post, doorbell or move to ERR: the post
 * kicks the half of the engine the queue belongs to (a process's doorbell,
 * its one system call, both), which flushes it (srdma_sq_flush(),
 * srdma_rq_flush()) once no WQE of it is in use.
 */
#include <kunit/visibility.h>

#include "srdma.h"

static u64 srdma_sge_bytes(const struct ib_sge *sg_list, int num_sge)
{
	u64 bytes = 0;
	int i;

	for (i = 0; i < num_sge; i++)
		bytes += sg_list[i].length;
	return bytes;
}

static int srdma_send_wr_check(struct srdma_qp *qp,
			       const struct ib_send_wr *wr, u64 length)
{
	enum ib_qp_type type = qp->ibqp.qp_type;

	/*
	 * A process's ATOMIC WRITE carries its 8 bytes and a FLUSH its
	 * target, which ib_send_wr cannot; memory windows are for processes
	 * only
	 */
	if (!srdma_send_opcode_ok(type, wr->opcode) ||
	    wr->opcode == IB_WR_ATOMIC_WRITE || wr->opcode == IB_WR_FLUSH ||
	    wr->opcode == IB_WR_BIND_MW ||
	    wr->num_sge < 0 ||
	    length > SRDMA_MAX_MSG_BYTES)
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE) {
		/* inline is for the opcodes with a payload */
		if (srdma_wr_is_rd_atomic(wr->opcode) ||
		    length > qp->sq.max_inline_bytes)
			return -EINVAL;
	} else if (wr->num_sge > qp->sq.max_sge) {
		return -EINVAL;
	}
	switch (wr->opcode) {
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (wr->num_sge != 1 || length != sizeof(u64) ||
		    !IS_ALIGNED(atomic_wr(wr)->remote_addr, sizeof(u64)))
			return -EINVAL;
		break;
	case IB_WR_REG_MR:
		if (!reg_wr(wr)->mr ||
		    reg_wr(wr)->mr->device != qp->ibqp.device ||
		    srdma_mr_check_access(reg_wr(wr)->access))
			return -EINVAL;
		break;
	default:
		break;
	}
	if ((type == IB_QPT_UD || type == IB_QPT_GSI) &&
	    (!ud_wr(wr)->ah || ud_wr(wr)->ah->device != qp->ibqp.device ||
	     ud_wr(wr)->remote_qpn > SRDMA_MAX_QPN))
		return -EINVAL;
	return 0;
}

static void srdma_send_wqe_fill(struct srdma_qp *qp, struct rxe_send_wqe *wqe,
				const struct ib_send_wr *wr, u32 length)
{
	struct rxe_send_wr *w = &wqe->wr;
	int i;

	memset(wqe, 0, sizeof(*wqe));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_INV || wr->opcode == IB_WR_LOCAL_INV)
		w->ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else
		w->ex.imm_data = wr->ex.imm_data;

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		w->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->wr.rdma.rkey = rdma_wr(wr)->rkey;
		wqe->iova = rdma_wr(wr)->remote_addr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->wr.atomic.swap = atomic_wr(wr)->swap;
		w->wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->iova = atomic_wr(wr)->remote_addr;
		break;
	case IB_WR_REG_MR:
		w->wr.reg.mr = reg_wr(wr)->mr;
		w->wr.reg.key = reg_wr(wr)->key;
		w->wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		w->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		w->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		w->wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		w->wr.ud.ah_num = to_srdma_ah(ud_wr(wr)->ah)->ah_num;
	}

	wqe->dma.length = length;
	wqe->dma.resid = length;
	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *data = wqe->dma.inline_data;

		/* kernel consumers' addresses are virtual (ib_uses_virt_dma) */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(data, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			data += wr->sg_list[i].length;
		}
		return;
	}
	wqe->dma.num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
	}
}

static void srdma_recv_wqe_fill(struct rxe_recv_wqe *wqe,
				const struct ib_recv_wr *wr, u32 length)
{
	int i;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
	}
}

/* the verbs refuse a send before RTS */
static bool srdma_send_state_ok(enum ib_qp_state state)
{
	return state != IB_QPS_RESET && state != IB_QPS_INIT &&
	       state != IB_QPS_RTR;
}

/*
 * A process's doorbell in RESET, INIT or RTR: true if refused, its WQEs
 * dropped; false if a modify_qp to RTS came first.
 */
static bool srdma_user_post_refused(struct srdma_qp *qp)
{
	bool refused;

	mutex_lock(&qp->lock);
	refused = !srdma_send_state_ok(qp->state);
	if (refused)
		srdma_req_drop_unposted(qp);
	mutex_unlock(&qp->lock);
	return refused;
}

int srdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct srdma_qp *qp = to_srdma_qp(ibqp);
	enum ib_qp_state state;
	unsigned long flags;
	int err = 0;
	u64 length;

	/* librxe's doorbell: the WQEs are already in the ring */
	if (qp->user) {
		if (!srdma_send_state_ok(READ_ONCE(qp->state)) &&
		    srdma_user_post_refused(qp))
			return -EINVAL;
		srdma_req_doorbell(qp);
		/* in ERR, what the process wrote into its receive ring too */
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			srdma_task_kick_both(qp);
		else
			srdma_task_kick(qp, SRDMA_HALF_SEND);
		return 0;
	}

	spin_lock_irqsave(&qp->sq.lock, flags);
	state = qp->state;
	for (; wr; wr = wr->next) {
		length = srdma_sge_bytes(wr->sg_list, max(wr->num_sge, 0));
		if (!srdma_send_state_ok(state))
			err = -EINVAL;
		else if (srdma_queue_full(&qp->sq.queue))
			err = -ENOMEM;
		else
			err = srdma_send_wr_check(qp, wr, length);
		if (err)
			break;
		srdma_send_wqe_fill(qp, srdma_queue_producer_slot(&qp->sq.queue),
				    wr, length);
		srdma_queue_advance_producer(&qp->sq.queue);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (err)
		*bad_wr = wr;
	if (state == IB_QPS_RTS || state == IB_QPS_SQD || state == IB_QPS_ERR)
		srdma_task_kick(qp, SRDMA_HALF_SEND);
	return err;
}

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * srdma_post_send_wqe() - a send WQE written into a kernel QP's ring as a
 * process writes its own (no SGE), for what ib_send_wr cannot carry: a
 * FLUSH's target; the requester checks it as a process's
 */
int srdma_post_send_wqe(struct ib_qp *ibqp, const struct rxe_send_wqe *wqe)
{
	struct srdma_qp *qp = to_srdma_qp(ibqp);
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->state != IB_QPS_RTS)
		err = -EINVAL;
	else if (srdma_queue_full(&qp->sq.queue))
		err = -ENOMEM;
	if (!err) {
		memcpy(srdma_queue_producer_slot(&qp->sq.queue), wqe,
		       sizeof(*wqe));
		srdma_queue_advance_producer(&qp->sq.queue);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (!err)
		srdma_task_kick(qp, SRDMA_HALF_SEND);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_post_send_wqe);
#endif

/* post to a receive queue or an SRQ; the caller checked the QP state */
static int srdma_wq_post_recv(struct srdma_wq *wq,
			      const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr)
{
	int err = 0;
	u64 length;

	lockdep_assert_held(&wq->lock);
	for (; wr; wr = wr->next) {
		length = srdma_sge_bytes(wr->sg_list, max(wr->num_sge, 0));
		if (srdma_queue_full(&wq->queue))
			err = -ENOMEM;
		else if (wr->num_sge < 0 || wr->num_sge > wq->max_sge ||
			 length > SRDMA_MAX_MSG_BYTES)
			err = -EINVAL;
		if (err) {
			*bad_wr = wr;
			break;
		}
		srdma_recv_wqe_fill(srdma_queue_producer_slot(&wq->queue), wr,
				    length);
		srdma_queue_advance_producer(&wq->queue);
	}
	return err;
}

int srdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct srdma_qp *qp = to_srdma_qp(ibqp);
	enum ib_qp_state state;
	unsigned long flags;
	int err;

	/* a QP on an SRQ has no receive queue; a process posts in its ring */
	if (qp->srq || qp->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	state = qp->state;
	if (state == IB_QPS_RESET) {
		*bad_wr = wr;
		err = -EINVAL;
	} else {
		err = srdma_wq_post_recv(&qp->rq, wr, bad_wr);
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (state == IB_QPS_ERR)
		srdma_task_kick(qp, SRDMA_HALF_RECV);
	return err;
}

int srdma_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct srdma_srq *srq = to_srdma_srq(ibsrq);
	unsigned long flags;
	int err;

	if (srq->rq.queue.mmap) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->rq.lock, flags);
	err = srdma_wq_post_recv(&srq->rq, wr, bad_wr);
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return err;
}
