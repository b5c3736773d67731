// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Work queues: what the engines take from the send and receive queues and
 * give back to them, for every QP type.
 *
 * The requester, UD and RAW copy a send WQE's message (srdma_swqe_copy())
 * and mark it done (srdma_swqe_done()); srdma_sq_complete() completes the
 * done WQEs in order. The responder, UD and RAW take a receive WQE from the
 * RQ or the SRQ (srdma_rwqe_take()) and complete it (srdma_rwqe_complete(),
 * srdma_rwqe_fail()). A failed WQE moves its QP to ERR, under the locks of
 * both WQs, before its completion can be polled; in ERR every WQE left
 * completes with IB_WC_WR_FLUSH_ERR (srdma_qp_flush()).
 */
#include <kunit/visibility.h>

#include "srdma_engine.h"
#include "srdma_trace.h"

#define QPT(_type)	BIT(IB_QPT_##_type)

/* the QP types each send opcode is valid on */
static const u32 srdma_send_opcode_qp_types[] = {
	[IB_WR_RDMA_WRITE] = QPT(RC) | QPT(UC),
	[IB_WR_RDMA_WRITE_WITH_IMM] = QPT(RC) | QPT(UC),
	[IB_WR_SEND] = QPT(RC) | QPT(UC) | QPT(UD) | QPT(GSI) |
		       QPT(RAW_PACKET),
	[IB_WR_SEND_WITH_IMM] = QPT(RC) | QPT(UC) | QPT(UD) | QPT(GSI),
	[IB_WR_RDMA_READ] = QPT(RC),
	[IB_WR_ATOMIC_CMP_AND_SWP] = QPT(RC),
	[IB_WR_ATOMIC_FETCH_AND_ADD] = QPT(RC),
	[IB_WR_SEND_WITH_INV] = QPT(RC),
	[IB_WR_LOCAL_INV] = QPT(RC) | QPT(UC),
	[IB_WR_REG_MR] = QPT(RC) | QPT(UC),
	[IB_WR_ATOMIC_WRITE] = QPT(RC),
	[IB_WR_FLUSH] = QPT(RC),
	[IB_WR_BIND_MW] = QPT(RC) | QPT(UC),
};

/* the completion opcode of each send opcode */
static const u8 srdma_send_wc_opcode[] = {
	[IB_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[IB_WR_RDMA_WRITE_WITH_IMM] = IB_WC_RDMA_WRITE,
	[IB_WR_SEND] = IB_WC_SEND,
	[IB_WR_SEND_WITH_IMM] = IB_WC_SEND,
	[IB_WR_RDMA_READ] = IB_WC_RDMA_READ,
	[IB_WR_ATOMIC_CMP_AND_SWP] = IB_WC_COMP_SWAP,
	[IB_WR_ATOMIC_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[IB_WR_SEND_WITH_INV] = IB_WC_SEND,
	[IB_WR_LOCAL_INV] = IB_WC_LOCAL_INV,
	[IB_WR_REG_MR] = IB_WC_REG_MR,
	[IB_WR_ATOMIC_WRITE] = IB_WC_ATOMIC_WRITE,
	[IB_WR_FLUSH] = IB_WC_FLUSH,
	[IB_WR_BIND_MW] = IB_WC_BIND_MW,
};

bool srdma_send_opcode_ok(enum ib_qp_type type, u32 opcode)
{
	return opcode < ARRAY_SIZE(srdma_send_opcode_qp_types) &&
	       (srdma_send_opcode_qp_types[opcode] & BIT(type));
}

/* the opcode of a WQE may come from a process: anything unknown is a send */
enum ib_wc_opcode srdma_wc_opcode(u32 wr_opcode)
{
	if (wr_opcode < ARRAY_SIZE(srdma_send_wc_opcode))
		return srdma_send_wc_opcode[wr_opcode];
	return IB_WC_SEND;
}

/**
 * srdma_qp_event() - raise an affiliated asynchronous event of @qp
 * @qp: the QP
 * @type: the event
 */
void srdma_qp_event(struct srdma_qp *qp, enum ib_event_type type)
{
	struct ib_event event = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&event, qp->ibqp.qp_context);
}

/* send queue lock, then receive queue lock (distinct lock classes) */
/**
 * srdma_qp_lock_queues() - take both WQ locks, the SQ's first
 * @qp: the QP
 * @flags: where the interrupt state is saved
 */
void srdma_qp_lock_queues(struct srdma_qp *qp, unsigned long *flags)
	__acquires(&qp->sq.lock) __acquires(&qp->rq.lock)
{
	spin_lock_irqsave(&qp->sq.lock, *flags);
	spin_lock(&qp->rq.lock);
}

/**
 * srdma_qp_unlock_queues() - release what srdma_qp_lock_queues() took
 * @qp: the QP
 * @flags: the interrupt state it saved
 */
void srdma_qp_unlock_queues(struct srdma_qp *qp, unsigned long flags)
	__releases(&qp->rq.lock) __releases(&qp->sq.lock)
{
	spin_unlock(&qp->rq.lock);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

/**
 * srdma_qp_set_state() - write the QP's state
 * @qp: the QP, both WQ locks held, so that either lock reads the state
 * @state: the new state
 *
 * An engine that completes a failed WQE moves the QP to ERR with this,
 * under the WQ's lock, before the CQE can be polled: a flush waits for that
 * lock, so it cannot complete the WQE first.
 */
void srdma_qp_set_state(struct srdma_qp *qp, enum ib_qp_state state)
{
	lockdep_assert_held(&qp->sq.lock);
	lockdep_assert_held(&qp->rq.lock);
	if (qp->state != state)
		trace_srdma_qp_state(qp->ibqp.qp_num, qp->state, state);
	qp->state = state;
}

/**
 * srdma_qp_error() - move a QP to ERR on an asynchronous error
 * @qp: the QP
 * @event: the affiliated event to raise, such as IB_EVENT_QP_FATAL
 *
 * Flushes its WQEs. Callable from any context.
 */
void srdma_qp_error(struct srdma_qp *qp, enum ib_event_type event)
{
	unsigned long flags;

	srdma_qp_lock_queues(qp, &flags);
	srdma_qp_set_state(qp, IB_QPS_ERR);
	srdma_qp_unlock_queues(qp, flags);
	srdma_qp_event(qp, event);
	/*
	 * Each half flushes its own queue once it sees ERR (the send half
	 * in srdma_comp_run(), the responder in srdma_resp_run(), which also
	 * lets go of the SRQ): never while it still uses a WQE's memory.
	 */
	srdma_task_kick_both(qp);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_error);

/* flush one WQ of a QP in ERR; returns what its CQ's consumer is due */
static unsigned int srdma_wq_flush(struct srdma_qp *qp, struct srdma_wq *wq,
				   struct srdma_cq *cq, bool send)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.qp = &qp->ibqp,
		.port_num = SRDMA_PORT,
	};
	unsigned int due = 0, one;
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	while (qp->state == IB_QPS_ERR && !srdma_queue_empty(&wq->queue)) {
		if (send) {
			struct rxe_send_wqe *wqe =
				srdma_queue_consumer_slot(&wq->queue);

			wc.wr_id = READ_ONCE(wqe->wr.wr_id);
			wc.opcode = srdma_wc_opcode(READ_ONCE(wqe->wr.opcode));
		} else {
			struct rxe_recv_wqe *wqe =
				srdma_queue_consumer_slot(&wq->queue);

			wc.wr_id = READ_ONCE(wqe->wr_id);
			wc.opcode = IB_WC_RECV;
		}
		one = srdma_cq_post(cq, &wc, false);
		due |= one;
		if (!(one & SRDMA_CQ_ADDED))
			break;
		srdma_queue_advance_consumer(&wq->queue);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
	return due;
}

/**
 * srdma_sq_flush() - complete every send WQE of a QP in ERR with a flush
 * error
 * @qp: the QP, its send half running or paused; no srdma lock held,
 *	completion handlers run from here
 */
void srdma_sq_flush(struct srdma_qp *qp)
{
	srdma_cq_notify(qp->scq, srdma_wq_flush(qp, &qp->sq, qp->scq, true));
}

/**
 * srdma_rq_flush() - srdma_sq_flush() for the receive queue; the receive
 * WQEs of an SRQ belong to the SRQ and are not flushed
 * @qp: the QP, its receive half running or paused
 */
void srdma_rq_flush(struct srdma_qp *qp)
{
	if (!qp->srq)
		srdma_cq_notify(qp->rcq,
				srdma_wq_flush(qp, &qp->rq, qp->rcq, false));
}

/**
 * srdma_qp_flush() - complete every WQE of a QP in ERR with a flush error
 * @qp: the QP, both halves of its engine paused, or seeing ERR since they
 *	were (modify_qp); no srdma lock held
 */
void srdma_qp_flush(struct srdma_qp *qp)
{
	srdma_sq_flush(qp);
	srdma_rq_flush(qp);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_flush);

/*
 * srdma's copies of send WQEs, by the SQ's slot size: a slot is the fixed
 * part and one SGE at least, at most SRDMA_MAX_SGE SGEs or
 * SRDMA_MAX_INLINE_BYTES, rounded up to a power of two. A copy is its slot
 * and srdma's header; kmalloc would round that up to twice the slot.
 */
#define SRDMA_SWQE_MIN_ORDER	8
#define SRDMA_SWQE_MAX_ORDER	10
static struct kmem_cache *srdma_swqe_caches[SRDMA_SWQE_MAX_ORDER + 1];
static const char * const srdma_swqe_cache_names[] = {
	[8] = "srdma_swqe_256", [9] = "srdma_swqe_512",
	[10] = "srdma_swqe_1024",
};

int srdma_swqe_caches_init(void)
{
	unsigned int order;

	BUILD_BUG_ON(order_base_2(sizeof(struct rxe_send_wqe) +
				  sizeof(struct rxe_sge)) !=
		     SRDMA_SWQE_MIN_ORDER);
	BUILD_BUG_ON(order_base_2(sizeof(struct rxe_send_wqe) +
				  max(SRDMA_MAX_SGE * sizeof(struct rxe_sge),
				      SRDMA_MAX_INLINE_BYTES)) !=
		     SRDMA_SWQE_MAX_ORDER);
	for (order = SRDMA_SWQE_MIN_ORDER; order <= SRDMA_SWQE_MAX_ORDER;
	     order++) {
		srdma_swqe_caches[order] =
			kmem_cache_create(srdma_swqe_cache_names[order],
					  offsetof(struct srdma_swqe, slot) +
					  (1 << order),
					  __alignof__(struct srdma_swqe), 0,
					  NULL);
		if (!srdma_swqe_caches[order]) {
			srdma_swqe_caches_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void srdma_swqe_caches_exit(void)
{
	unsigned int order;

	for (order = SRDMA_SWQE_MIN_ORDER; order <= SRDMA_SWQE_MAX_ORDER;
	     order++) {
		kmem_cache_destroy(srdma_swqe_caches[order]);
		srdma_swqe_caches[order] = NULL;
	}
}

/**
 * srdma_swqes_init() - the window of a new QP's send WQE copies, empty
 * @qp: the QP, its SQ made
 *
 * Return: 0 or -ENOMEM.
 */
int srdma_swqes_init(struct srdma_qp *qp)
{
	u32 order = qp->sq.queue.log2_slot_bytes;

	if (WARN_ON_ONCE(order < SRDMA_SWQE_MIN_ORDER ||
			 order > SRDMA_SWQE_MAX_ORDER))
		return -EINVAL;
	qp->swqe_cache = srdma_swqe_caches[order];
	BUILD_BUG_ON(!is_power_of_2(SRDMA_SWQE_WINDOW));
	qp->swqe_mask = min_t(u32, qp->sq.queue.index_mask,
			      SRDMA_SWQE_WINDOW - 1);
	qp->swqes = kcalloc(qp->swqe_mask + 1, sizeof(*qp->swqes),
			    GFP_KERNEL);
	return qp->swqes ? 0 : -ENOMEM;
}

/**
 * srdma_swqe_alloc() - the entry for the copy of the WQE in SQ slot @index
 * @qp: the QP
 * @index: the SQ index the requester copies next
 *
 * Entries stay while WQEs are under way (srdma_swqes_trim()), so a QP that
 * keeps them coming allocates only at first.
 *
 * Return: the entry, or NULL if memory is short.
 */
struct srdma_swqe *srdma_swqe_alloc(struct srdma_qp *qp, u32 index)
{
	struct srdma_swqe **entry = &qp->swqes[index & qp->swqe_mask];

	srdma_engine_assert_owned(qp, SRDMA_HALF_SEND);
	if (!*entry) {
		*entry = kmem_cache_alloc(qp->swqe_cache,
					  GFP_ATOMIC | __GFP_NOWARN);
		qp->swqes_held += !!*entry;
	}
	return *entry;
}

/* free the copies but the one at @keep (an entry of @qp->swqes, or NULL) */
static void srdma_swqes_free_but(struct srdma_qp *qp, struct srdma_swqe **keep)
{
	u32 i;

	for (i = 0; i <= qp->swqe_mask && qp->swqes_held; i++) {
		if (qp->swqes[i] && &qp->swqes[i] != keep) {
			kmem_cache_free(qp->swqe_cache, qp->swqes[i]);
			qp->swqes[i] = NULL;
			qp->swqes_held--;
		}
	}
}

/**
 * srdma_swqes_trim() - every WQE copied has completed: keep one entry, the
 * one the next WQE takes, and free the others
 * @qp: the QP, its engine owned, not in ERR
 *
 * An idle QP then holds one entry, where rdma_rxe holds none; a QP that
 * sends one WQE at a time allocates none.
 */
void srdma_swqes_trim(struct srdma_qp *qp)
{
	u32 fetched = qp->req.fetched;
	struct srdma_swqe **next = &qp->swqes[fetched & qp->swqe_mask];
	struct srdma_swqe **newest = &qp->swqes[(fetched - 1) & qp->swqe_mask];

	srdma_engine_assert_owned(qp, SRDMA_HALF_SEND);
	if (!*next) {
		*next = *newest;
		*newest = NULL;
	}
	if (qp->swqes_held > 1)
		srdma_swqes_free_but(qp, next);
}

/**
 * srdma_swqes_release() - free every copy: the queue is reset
 * @qp: the QP, its engine paused
 */
void srdma_swqes_release(struct srdma_qp *qp)
{
	srdma_engine_assert_owned(qp, SRDMA_HALF_SEND);
	srdma_swqes_free_but(qp, NULL);
}

/**
 * srdma_swqes_free() - free the window of a QP being destroyed
 * @qp: the QP, its engine stopped or never started
 */
void srdma_swqes_free(struct srdma_qp *qp)
{
	if (!qp->swqes)
		return;
	srdma_swqes_free_but(qp, NULL);
	kfree(qp->swqes);
	qp->swqes = NULL;
}

/**
 * srdma_swqe_next() - the requester is done with its WQE: on to the next
 * @qp: the QP
 */
void srdma_swqe_next(struct srdma_qp *qp)
{
	qp->req.index = (qp->req.index + 1) & qp->sq.queue.index_mask;
}

/**
 * srdma_swqe_done() - a WQE is done, with @status, and completes in order
 * @qp: the QP
 * @swqe: the WQE
 * @status: how it completes; an error counts as a local error
 */
void srdma_swqe_done(struct srdma_qp *qp, struct srdma_swqe *swqe,
		     enum ib_wc_status status)
{
	srdma_engine_assert_owned(qp, SRDMA_HALF_SEND);
	swqe->status = status;
	swqe->state = SRDMA_SWQE_DONE;
	if (status != IB_WC_SUCCESS)
		srdma_count(to_srdma_dev(qp->ibqp.device),
			    SRDMA_CNT_LOCAL_ERRORS);
}

/**
 * srdma_swqe_copy() - copy bytes of a send WQE's message: its inline data
 * or what its SGEs point at
 * @qp: the QP
 * @swqe: the WQE, checked
 * @offset: bytes of the message to skip
 * @buf: where they go
 * @len: bytes to copy, within the message (srdma_req_pkt_span())
 *
 * Return: 0, -EACCES if an SGE's key does not allow the access, or
 * -EINPROGRESS if a page of an ODP MR is being faulted in.
 */
int srdma_swqe_copy(struct srdma_qp *qp, struct srdma_swqe *swqe, u64 offset,
		    void *buf, u32 len)
{
	int err;

	if (swqe->wqe.wr.send_flags & IB_SEND_INLINE) {
		memcpy(buf, swqe->wqe.dma.inline_data + offset, len);
		return 0;
	}
	err = srdma_sge_copy(qp, swqe->wqe.dma.sge, swqe->wqe.dma.num_sge,
			     offset, buf, len, false);
	return err == -EINPROGRESS ? err : err ? -EACCES : 0;
}

/**
 * srdma_swqe_attach() - srdma_swqe_copy() into a packet's page fragments
 * (srdma_sge_attach()), for a WQE without inline data
 * @qp: the QP
 * @swqe: the WQE, checked
 * @offset: bytes of the message to skip
 * @skb: the packet, from srdma_pkt_alloc_paged()
 * @len: bytes, within the message
 *
 * Return: as srdma_swqe_copy(), or -ENOMEM.
 */
int srdma_swqe_attach(struct srdma_qp *qp, struct srdma_swqe *swqe,
		      u64 offset, struct sk_buff *skb, u32 len)
{
	int err;

	err = srdma_sge_attach(qp, swqe->wqe.dma.sge, swqe->wqe.dma.num_sge,
			       offset, skb, len);
	return err == -EINPROGRESS || err == -ENOMEM ? err :
	       err ? -EACCES : 0;
}

/*
 * Whether the oldest send WQE is done or a drain may have ended: read
 * without sq.lock, as only the engine, which calls this, moves them on.
 */
static bool srdma_sq_complete_due(struct srdma_qp *qp)
{
	struct srdma_swqe *swqe;
	u32 oldest;

	if (srdma_qp_state(qp) == IB_QPS_SQD)
		return true;
	oldest = srdma_queue_consumer(&qp->sq.queue);
	if (oldest == qp->req.fetched)
		return false;
	swqe = srdma_swqe(qp, oldest);
	return swqe && swqe->state == SRDMA_SWQE_DONE;
}

/**
 * srdma_sq_complete() - complete the send WQEs that are done, in order
 * @qp: the QP
 *
 * A WQE that failed completes with its status and moves the QP to ERR,
 * which flushes the rest. A full CQ is a fatal error of the QP.
 *
 * Return: true if it completed anything.
 */
bool srdma_sq_complete(struct srdma_qp *qp)
{
	struct srdma_queue *q = &qp->sq.queue;
	bool progress = false, failed = false, overflow = false;
	struct ib_wc wc = { .qp = &qp->ibqp, .port_num = SRDMA_PORT };
	struct srdma_swqe *swqe;
	unsigned int due = 0, one;
	unsigned long flags;
	u32 req_next;
	bool drained, idle;

	srdma_engine_assert_owned(qp, SRDMA_HALF_SEND);
	if (!srdma_sq_complete_due(qp))
		return false;
	spin_lock_irqsave(&qp->sq.lock, flags);
	while (qp->state != IB_QPS_ERR && srdma_queue_consumer(q) != qp->req.fetched) {
		swqe = srdma_swqe(qp, srdma_queue_consumer(q));
		if (swqe->state != SRDMA_SWQE_DONE)
			break;
		if (qp->req.index == srdma_queue_consumer(q))
			req_next = (qp->req.index + 1) & q->index_mask;
		else
			req_next = qp->req.index;
		failed = swqe->status != IB_WC_SUCCESS;
		/* in ERR before the CQE can be polled (srdma_qp_set_state()) */
		if (failed) {
			spin_lock(&qp->rq.lock);
			srdma_qp_set_state(qp, IB_QPS_ERR);
			spin_unlock(&qp->rq.lock);
		}
		if (qp->sq_sig_all || failed ||
		    (swqe->wqe.wr.send_flags & IB_SEND_SIGNALED)) {
			wc.wr_id = swqe->wqe.wr.wr_id;
			wc.status = swqe->status;
			wc.opcode = srdma_wc_opcode(swqe->wqe.wr.opcode);
			wc.byte_len = swqe->length;
			/* frees the slot (the CQE comes from srdma's copy) */
			one = srdma_cq_post_wqe(qp->scq, &wc, false, &qp->sq);
			due |= one;
			if (!(one & SRDMA_CQ_ADDED)) {
				overflow = true;
				break;
			}
		} else {
			srdma_queue_advance_consumer(q);
		}
		qp->req.index = req_next;
		progress = true;
	}
	drained = qp->state == IB_QPS_SQD && qp->sqd_pending &&
		  srdma_queue_consumer(q) == qp->req.index;
	if (drained)
		qp->sqd_pending = false;
	/* not in ERR: a flush may have moved the consumer past them */
	idle = qp->state != IB_QPS_ERR &&
	       srdma_queue_consumer(q) == qp->req.fetched;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	srdma_cq_notify(qp->scq, due);
	if (idle)
		srdma_swqes_trim(qp);

	if (overflow) {
		srdma_qp_error(qp, IB_EVENT_QP_FATAL);
	} else if (failed) {
		srdma_sq_flush(qp);
		/*
		 * the responder flushes its queue and drops what it holds
		 * (srdma_resp_run()), here: a work item would come between
		 * the CQE and its poller
		 */
		srdma_task_kick(qp, SRDMA_HALF_RECV);
	}
	if (drained)
		srdma_qp_event(qp, IB_EVENT_SQ_DRAINED);
	return progress;
}

/**
 * srdma_rwqe_take() - take the receive WQE the next message consumes, from
 * the SRQ or the RQ, unless one is taken already
 * @qp: the QP, its engine running
 *
 * Return: 0, -ENOENT if there is none, or -EINVAL if the one due is
 * malformed: more SGEs than its queue's max_sge, which only a process
 * writing its ring itself makes. That one is taken, with no SGE, for the
 * caller to complete with IB_WC_LOC_QP_OP_ERR.
 */
int srdma_rwqe_take(struct srdma_qp *qp)
{
	struct srdma_resp *resp = &qp->resp;
	struct rxe_recv_wqe *wqe = resp->rwqe;
	unsigned long flags;
	u64 length = 0;
	u32 max_sge, i;
	bool found;

	srdma_engine_assert_owned(qp, SRDMA_HALF_RECV);
	if (resp->rwqe_valid)
		return 0;
	if (qp->srq) {
		found = srdma_srq_pop(qp->srq, wqe);
		max_sge = qp->srq->rq.max_sge;
	} else {
		/* the RQ's oldest WQE stays there until it completes */
		spin_lock_irqsave(&qp->rq.lock, flags);
		found = !srdma_queue_empty(&qp->rq.queue);
		if (found)
			memcpy(wqe, srdma_queue_consumer_slot(&qp->rq.queue),
			       1 << qp->rq.queue.log2_slot_bytes);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		max_sge = qp->rq.max_sge;
	}
	if (!found)
		return -ENOENT;
	resp->rwqe_srq = qp->srq;
	resp->placed = 0;
	resp->rwqe_valid = true;
	if (wqe->dma.num_sge > max_sge) {
		wqe->dma.num_sge = 0;
		resp->rwqe_length = 0;
		return -EINVAL;
	}
	for (i = 0; i < wqe->dma.num_sge; i++)
		length += wqe->dma.sge[i].length;
	resp->rwqe_length = min_t(u64, length, U32_MAX);
	return 0;
}

/* what every completion of the receive WQE taken carries; it is let go */
static void srdma_rwqe_wc(struct srdma_qp *qp, struct ib_wc *wc)
{
	wc->wr_id = qp->resp.rwqe->wr_id;
	wc->qp = &qp->ibqp;
	wc->port_num = SRDMA_PORT;
	qp->resp.rwqe_valid = false;
}

/**
 * srdma_rwqe_complete() - complete the receive WQE taken
 * @qp: the QP, its engine running
 * @wc: status, opcode, lengths and flags; the rest is filled here
 * @solicited: the message asked for a solicited event
 */
void srdma_rwqe_complete(struct srdma_qp *qp, struct ib_wc *wc, bool solicited)
{
	unsigned int due = 0;
	unsigned long flags;
	bool posted = true;

	srdma_engine_assert_owned(qp, SRDMA_HALF_RECV);
	srdma_rwqe_wc(qp, wc);
	if (qp->resp.rwqe_srq) {
		if (srdma_qp_state(qp) == IB_QPS_ERR)
			wc->status = IB_WC_WR_FLUSH_ERR;
		due = srdma_cq_post(qp->rcq, wc, solicited);
	} else {
		spin_lock_irqsave(&qp->rq.lock, flags);
		/* in ERR the flush completed it already */
		posted = qp->state != IB_QPS_ERR;
		if (posted)
			due = srdma_cq_post_wqe(qp->rcq, wc, solicited, &qp->rq);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
	}
	srdma_cq_notify(qp->rcq, due);
	if (posted && !(due & SRDMA_CQ_ADDED))
		srdma_qp_error(qp, IB_EVENT_QP_FATAL);
}

/**
 * srdma_rwqe_fail() - an error of the QP's own (its memory, a WQE, a
 * request it cannot serve): the receive WQE taken, if any, completes with
 * @status, and the QP goes to ERR
 * @qp: the QP, its engine running
 * @status: the error
 * @event: the affiliated event to raise
 */
void srdma_rwqe_fail(struct srdma_qp *qp, enum ib_wc_status status,
		     enum ib_event_type event)
{
	struct ib_wc wc = { .status = status, .opcode = IB_WC_RECV };
	struct srdma_wq *rq = qp->resp.rwqe_srq ? NULL : &qp->rq;
	unsigned int due = 0;
	unsigned long flags;
	bool post;

	srdma_engine_assert_owned(qp, SRDMA_HALF_RECV);
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_LOCAL_ERRORS);
	/* in ERR before the CQE can be polled (srdma_qp_set_state()) */
	srdma_qp_lock_queues(qp, &flags);
	post = qp->resp.rwqe_valid && (!rq || qp->state != IB_QPS_ERR);
	if (post) {
		if (qp->state == IB_QPS_ERR)
			wc.status = IB_WC_WR_FLUSH_ERR;
		srdma_rwqe_wc(qp, &wc);
		srdma_qp_set_state(qp, IB_QPS_ERR);
		due = srdma_cq_post_wqe(qp->rcq, &wc, false, rq);
	}
	srdma_qp_unlock_queues(qp, flags);
	srdma_cq_notify(qp->rcq, due);
	srdma_qp_error(qp, event);
}
