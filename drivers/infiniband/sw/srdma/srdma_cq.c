// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues: a ring of completions in the rxe layout, produced by
 * srdma and consumed by librxe (struct ib_uverbs_wc) or by poll_cq for
 * kernel consumers (struct ib_wc).
 *
 * A completion that finds the ring full is not written: srdma_cq_post()
 * refuses it, raises IB_EVENT_CQ_ERR once per episode, and the caller keeps
 * the work request, so that no completion is ever lost or overwritten.
 * Completion and event handlers run with no srdma lock held
 * (srdma_cq_notify()).
 */
#include <kunit/visibility.h>
#include <rdma/uverbs_ioctl.h>

#include "srdma_engine.h"

static size_t srdma_cqe_bytes(bool user)
{
	return user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

static int srdma_cq_check_size(struct srdma_dev *sdev, int cqe)
{
	if (cqe < 1 || cqe > sdev->attr.max_cqe) {
		ibdev_dbg(&sdev->ib_dev, "CQ of %d entries: 1 to %d\n", cqe,
			  sdev->attr.max_cqe);
		return -EINVAL;
	}
	return 0;
}

int srdma_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibcq->device);
	struct srdma_cq *cq = to_srdma_cq(ibcq);
	struct rxe_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	err = srdma_cq_check_size(sdev, attr->cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->cq_count) > SRDMA_MAX_CQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	cq->user = udata;
	err = srdma_queue_init(&cq->queue, ibcq->device, udata,
			       SRDMA_QUEUE_KERNEL_PRODUCES, attr->cqe,
			       srdma_cqe_bytes(cq->user), &resp.mi);
	if (err)
		goto err_count;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}
	ibcq->cqe = srdma_queue_capacity(&cq->queue);
	return 0;

err_queue:
	srdma_queue_free(&cq->queue);
err_count:
	atomic_dec(&sdev->cq_count);
	return err;
}

int srdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct srdma_cq *cq = to_srdma_cq(ibcq);

	srdma_queue_free(&cq->queue);
	atomic_dec(&to_srdma_dev(ibcq->device)->cq_count);
	return 0;
}

int srdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibcq->device);
	struct srdma_cq *cq = to_srdma_cq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct srdma_queue new, old;
	unsigned long flags;
	int err;

	err = srdma_cq_check_size(sdev, cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = srdma_queue_init(&new, ibcq->device, udata,
			       SRDMA_QUEUE_KERNEL_PRODUCES, cqe,
			       srdma_cqe_bytes(cq->user), &resp.mi);
	if (err)
		return err;

	spin_lock_irqsave(&cq->lock, flags);
	err = srdma_queue_copy(&new, &cq->queue);
	if (!err) {
		old = cq->queue;
		cq->queue = new;
		ibcq->cqe = srdma_queue_capacity(&new);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err) {
		ibdev_dbg(ibcq->device, "CQ resize to %d: %u entries present\n",
			  cqe, srdma_queue_count(&cq->queue));
		srdma_queue_free(&new);
		return err;
	}
	srdma_queue_free(&old);

	/* librxe maps the new ring after this; a failure leaves it unmapped */
	if (udata)
		return ib_copy_to_udata(udata, &resp, sizeof(resp));
	return 0;
}

/* IBV_WC_WITH_INV of libibverbs, which the uapi headers do not define */
#define SRDMA_UWC_WITH_INV	BIT(3)

VISIBLE_IF_KUNIT void srdma_wc_to_uverbs(struct ib_uverbs_wc *uwc,
					 const struct ib_wc *wc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp->qp_num;
	uwc->src_qp = wc->src_qp;
	/*
	 * The user ABI's flags (ibv_poll_cq(3)) agree with the kernel's on
	 * GRH and WITH_IMM only: IBV_WC_WITH_INV is bit 3, where
	 * IB_WC_WITH_INVALIDATE is bit 2 (IBV_WC_IP_CSUM_OK there), and bits
	 * 4 to 6 are tag matching's. rdma_rxe copies them unchanged.
	 */
	uwc->wc_flags = wc->wc_flags & (IB_WC_GRH | IB_WC_WITH_IMM);
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		uwc->wc_flags |= SRDMA_UWC_WITH_INV;
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = ib_lid_cpu16(wc->slid);
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_wc_to_uverbs);

/**
 * srdma_cq_post() - add a completion
 * @cq: the CQ
 * @wc: the completion; @wc->qp is set
 * @solicited: the completion is of a solicited receive
 *
 * Return: SRDMA_CQ_ADDED if the completion was written, and what the caller
 * owes the consumer once it holds no lock: SRDMA_CQ_FIRE (the armed
 * condition was met), SRDMA_CQ_OVERFLOWED (the ring was full, first time
 * since it last had room). Pass them, or-ed, to srdma_cq_notify().
 */
unsigned int srdma_cq_post(struct srdma_cq *cq, const struct ib_wc *wc,
			   bool solicited)
{
	return srdma_cq_post_wqe(cq, wc, solicited, NULL);
}

/**
 * srdma_cq_post_wqe() - as srdma_cq_post(), for the oldest WQE of @wq
 * @cq: the CQ
 * @wc: the completion
 * @solicited: the completion is solicited
 * @wq: its queue, whose lock the caller holds; NULL: none
 *
 * The WQE's slot is freed before the completion shows (not at all if the CQ
 * is full): a process that polls the completion may post again at once,
 * and would find the ring full otherwise.
 *
 * Return: as srdma_cq_post().
 */
unsigned int srdma_cq_post_wqe(struct srdma_cq *cq, const struct ib_wc *wc,
			       bool solicited, struct srdma_wq *wq)
{
	unsigned int due = 0;
	unsigned long flags;

	if (wq)
		lockdep_assert_held(&wq->lock);
	spin_lock_irqsave(&cq->lock, flags);
	if (srdma_queue_full(&cq->queue)) {
		if (!cq->overflow)
			due = SRDMA_CQ_OVERFLOWED;
		cq->overflow = true;
		goto unlock;
	}
	cq->overflow = false;
	if (wq)
		srdma_queue_advance_consumer(&wq->queue);
	if (cq->user)
		srdma_wc_to_uverbs(srdma_queue_producer_slot(&cq->queue), wc);
	else
		memcpy(srdma_queue_producer_slot(&cq->queue), wc, sizeof(*wc));
	srdma_queue_advance_producer(&cq->queue);
	due = SRDMA_CQ_ADDED;
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && solicited)) {
		cq->notify = 0;
		due |= SRDMA_CQ_FIRE;
	}
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);
	return due;
}

/**
 * srdma_cq_notify() - run the handlers that completions made due
 * @cq: the CQ
 * @due: SRDMA_CQ_* bits from srdma_cq_post()
 *
 * The caller holds no srdma lock: a completion handler may poll and post.
 */
void srdma_cq_notify(struct srdma_cq *cq, unsigned int due)
{
	struct ib_event event = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if ((due & SRDMA_CQ_OVERFLOWED) && cq->ibcq.event_handler) {
		ibdev_warn_ratelimited(cq->ibcq.device, "CQ overflow\n");
		cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
	}
	if ((due & SRDMA_CQ_FIRE) && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

int srdma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct srdma_cq *cq = to_srdma_cq(ibcq);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries && !srdma_queue_empty(&cq->queue); n++) {
		memcpy(&wc[n], srdma_queue_consumer_slot(&cq->queue),
		       sizeof(wc[n]));
		srdma_queue_advance_consumer(&cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int srdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct srdma_cq *cq = to_srdma_cq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* a NEXT_COMP request covers a SOLICITED one, not the reverse */
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_SOLICITED;
	/* only kernel consumers ask, and their consumer index is trusted */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !srdma_queue_empty(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
