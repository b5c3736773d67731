// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues: a ring of receive WQEs in the rxe layout that
 * several QPs take from, resizable, with the limit event armed by
 * modify_srq(IB_SRQ_LIMIT).
 */
#include <kunit/visibility.h>
#include <rdma/uverbs_ioctl.h>

#include "srdma_engine.h"

int srdma_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibsrq->device);
	struct srdma_srq *srq = to_srdma_srq(ibsrq);
	struct rxe_create_srq_resp resp = {};
	struct ib_srq_attr *attr = &init->attr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > sdev->attr.max_srq_wr ||
	    attr->max_sge > sdev->attr.max_srq_sge) {
		ibdev_dbg(&sdev->ib_dev, "SRQ of %u WRs, %u SGEs refused\n",
			  attr->max_wr, attr->max_sge);
		return -EINVAL;
	}
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	spin_lock_init(&srq->rq.lock);
	srq->rq.max_sge = max(attr->max_sge, 1U);
	err = srdma_queue_init(&srq->rq.queue, ibsrq->device, udata,
			       SRDMA_QUEUE_KERNEL_CONSUMES, attr->max_wr,
			       srdma_recv_wqe_bytes(srq->rq.max_sge), &resp.mi);
	if (err)
		return err;
	srq->rq.max_wr = srdma_queue_capacity(&srq->rq.queue);

	err = xa_alloc_cyclic(&sdev->srq_xa, &srq->srq_num, srq,
			      XA_LIMIT(1, sdev->attr.max_srq), &sdev->srq_next,
			      GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_queue;
	}
	if (udata) {
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_xa;
	}
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	return 0;

err_xa:
	xa_erase(&sdev->srq_xa, srq->srq_num);
err_queue:
	srdma_queue_free(&srq->rq.queue);
	return err;
}

/* a bigger or smaller ring with the same WQEs, same slot size */
static int srdma_srq_resize(struct srdma_srq *srq, u32 max_wr,
			    struct ib_udata *udata)
{
	struct rxe_modify_srq_cmd cmd = {};
	struct srdma_queue new, old;
	struct mminfo mi = {};
	int err;

	if (udata) {
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}
	err = srdma_queue_init(&new, srq->ibsrq.device, udata,
			       SRDMA_QUEUE_KERNEL_CONSUMES, max_wr,
			       1 << srq->rq.queue.log2_slot_bytes, &mi);
	if (err)
		return err;

	spin_lock_irq(&srq->rq.lock);
	err = srdma_queue_copy(&new, &srq->rq.queue);
	if (!err) {
		old = srq->rq.queue;
		srq->rq.queue = new;
		srq->rq.max_wr = srdma_queue_capacity(&new);
	}
	spin_unlock_irq(&srq->rq.lock);
	if (err) {
		srdma_queue_free(&new);
		return err;
	}
	srdma_queue_free(&old);

	/* librxe maps the ring described at the address it gave */
	if (udata && copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				  sizeof(mi)))
		return -EFAULT;
	return 0;
}

int srdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibsrq->device);
	struct srdma_srq *srq = to_srdma_srq(ibsrq);
	u32 max_wr = srq->rq.max_wr;
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		if (!attr->max_wr || attr->max_wr > sdev->attr.max_srq_wr) {
			ibdev_dbg(&sdev->ib_dev, "SRQ resize to %u WRs refused\n",
				  attr->max_wr);
			return -EINVAL;
		}
		max_wr = attr->max_wr;
	}
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > max_wr) {
		ibdev_dbg(&sdev->ib_dev, "SRQ limit %u above its %u WRs\n",
			  attr->srq_limit, max_wr);
		return -EINVAL;
	}
	if (mask & IB_SRQ_MAX_WR) {
		err = srdma_srq_resize(srq, max_wr, udata);
		if (err)
			return err;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irq(&srq->rq.lock);
		srq->limit = attr->srq_limit;
		spin_unlock_irq(&srq->rq.lock);
	}
	return 0;
}

/**
 * srdma_srq_pop() - take the oldest receive WQE of an SRQ
 * @srq: the SRQ
 * @wqe: receives a copy of the WQE, as many bytes as a slot holds
 *
 * Raises IB_EVENT_SRQ_LIMIT_REACHED, once per arming, when fewer WQEs than
 * the limit remain. Callable from any context.
 *
 * Return: true if a WQE was taken, false if the SRQ is empty.
 */
bool srdma_srq_pop(struct srdma_srq *srq, struct rxe_recv_wqe *wqe)
{
	struct ib_event event = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	struct srdma_queue *q = &srq->rq.queue;
	unsigned long flags;
	bool limit_reached;

	spin_lock_irqsave(&srq->rq.lock, flags);
	if (srdma_queue_empty(q)) {
		spin_unlock_irqrestore(&srq->rq.lock, flags);
		return false;
	}
	/* a process may rewrite the slot meanwhile: one copy, then trusted */
	memcpy(wqe, srdma_queue_consumer_slot(q), 1 << q->log2_slot_bytes);
	srdma_queue_advance_consumer(q);
	limit_reached = srq->limit && srdma_queue_count(q) < srq->limit;
	if (limit_reached)
		srq->limit = 0;
	spin_unlock_irqrestore(&srq->rq.lock, flags);

	if (limit_reached && srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&event, srq->ibsrq.srq_context);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_srq_pop);

int srdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct srdma_srq *srq = to_srdma_srq(ibsrq);

	spin_lock_irq(&srq->rq.lock);
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irq(&srq->rq.lock);
	return 0;
}

int srdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct srdma_srq *srq = to_srdma_srq(ibsrq);

	xa_erase(&to_srdma_dev(ibsrq->device)->srq_xa, srq->srq_num);
	srdma_queue_free(&srq->rq.queue);
	return 0;
}
