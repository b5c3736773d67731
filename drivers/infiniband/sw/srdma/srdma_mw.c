// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows (IBTA 10.6.7): remote access to a range of an MR, with
 * rights and a key of their own. Type 1 windows are bound by the
 * ibv_bind_mw() verb, type 2 (2B) windows by a work request, to one QP;
 * librxe turns both into a BIND_MW work request, which the requester
 * executes in order (srdma_mw_bind()).
 *
 * A window's key comes from the MR key table: its entry (srdma_mw.win)
 * answers to the key while the window is bound, so srdma_mr_lookup() finds
 * it like an MR and hands the access to srdma_mw_lookup(), which checks the
 * window and returns the MR it is bound to; later packets of the message
 * check the window again (srdma_mw_access_ok()). A bound window holds its
 * MR, which cannot be deregistered meanwhile. Invalidation (LOCAL_INV, SEND
 * with invalidate) is for type 2 windows; it, a new bind and deallocation
 * take effect for every access that starts after them, and complete after
 * the accesses under way through the window ended (srdma_mr_fence()).
 */
#include <srdma/range.h>

#include "srdma_engine.h"

#define SRDMA_MW_ACCESS		(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)
#define SRDMA_REMOTE_ACCESS	(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

static struct srdma_mw *to_srdma_mw(struct srdma_mr *win)
{
	return container_of(win, struct srdma_mw, win);
}

int srdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibmw->device);
	struct srdma_mw *mw = container_of(ibmw, struct srdma_mw, ibmw);
	int err;

	spin_lock_init(&mw->lock);
	mw->win.kind = SRDMA_MR_MW;
	mw->win.ibmr.device = ibmw->device;
	mw->win.ibmr.pd = ibmw->pd;
	err = srdma_mr_reserve(sdev, &mw->win);
	if (err)
		return err;
	mw->rkey = mw->win.ibmr.rkey;
	ibmw->rkey = mw->rkey;
	srdma_mr_publish(sdev, &mw->win);
	return 0;
}

/* a window's MR, counted and referenced, is let go of */
static void srdma_mw_drop_mr(struct srdma_dev *sdev, struct srdma_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->mw_lock, flags);
	mr->num_mw--;
	spin_unlock_irqrestore(&sdev->mw_lock, flags);
	srdma_mr_put(mr);
}

/*
 * The window answers to no key and lets go of its MR, which it returns for
 * srdma_mw_unbound() to call once the window's lock is dropped.
 */
static struct srdma_mr *srdma_mw_unbind(struct srdma_mw *mw)
{
	struct srdma_mr *mr = mw->mr;

	lockdep_assert_held(&mw->lock);
	WRITE_ONCE(mw->win.key, 0);
	mw->mr = NULL;
	mw->qpn = 0;
	return mr;
}

/* the accesses through the window that were under way are over */
static void srdma_mw_unbound(struct srdma_dev *sdev, struct srdma_mr *mr)
{
	if (!mr)
		return;
	srdma_mr_fence(mr);
	srdma_mw_drop_mr(sdev, mr);
}

int srdma_dealloc_mw(struct ib_mw *ibmw)
{
	struct srdma_dev *sdev = to_srdma_dev(ibmw->device);
	struct srdma_mw *mw = container_of(ibmw, struct srdma_mw, ibmw);
	struct srdma_mr *mr;
	unsigned long flags;

	srdma_mr_withdraw(sdev, &mw->win);
	spin_lock_irqsave(&mw->lock, flags);
	mr = srdma_mw_unbind(mw);
	spin_unlock_irqrestore(&mw->lock, flags);
	srdma_mw_unbound(sdev, mr);
	/* ib_core frees the window at once: no lookup under RCU may be left */
	synchronize_rcu();
	return 0;
}

/*
 * The MR of a bind: in the QP's PD, granting MW_BIND (C10-73) and the
 * local write a writable window needs (C10-74), holding the window's range
 * (C10-75), not being deregistered; referenced, with the window counted.
 */
static struct srdma_mr *srdma_mw_bind_mr(struct srdma_qp *qp,
					 const struct rxe_send_wr *wr)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_mr *mr = srdma_mr_get(sdev, wr->wr.mw.mr_lkey);
	unsigned long flags;
	bool ok;

	if (!mr)
		return NULL;
	ok = mr->kind != SRDMA_MR_MW && mr->kind != SRDMA_MR_DMA &&
	     mr->ibmr.pd == qp->ibqp.pd &&
	     (READ_ONCE(mr->access) & IB_ACCESS_MW_BIND) &&
	     (!(wr->wr.mw.access & (IB_ACCESS_REMOTE_WRITE |
				    IB_ACCESS_REMOTE_ATOMIC)) ||
	      (READ_ONCE(mr->access) & IB_ACCESS_LOCAL_WRITE)) &&
	     srdma_range_ok(READ_ONCE(mr->ibmr.iova), READ_ONCE(mr->ibmr.length),
			    wr->wr.mw.addr, wr->wr.mw.length);
	spin_lock_irqsave(&sdev->mw_lock, flags);
	ok = ok && !mr->dying;
	if (ok)
		mr->num_mw++;
	spin_unlock_irqrestore(&sdev->mw_lock, flags);
	if (!ok) {
		srdma_mr_put(mr);
		return NULL;
	}
	return mr;
}

/**
 * srdma_mw_bind() - execute a BIND_MW work request of a process
 * @qp: its QP
 * @wr: the request: the window by its current key (mw_rkey), its new key
 *      (rkey: the same index, another key byte), the MR by its lkey, the
 *      range and the rights; length 0 unbinds a type 1 window
 *
 * Return: IB_WC_SUCCESS, or IB_WC_MW_BIND_ERR with nothing changed.
 */
enum ib_wc_status srdma_mw_bind(struct srdma_qp *qp,
				const struct rxe_send_wr *wr)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	u32 key = wr->wr.mw.mw_rkey, rkey = wr->wr.mw.rkey;
	struct srdma_mr *win, *old, *mr = NULL;
	enum ib_wc_status status;
	struct srdma_mw *mw;
	unsigned long flags;
	bool type2;

	if (!srdma_mr_same_index(key, rkey) ||
	    (wr->wr.mw.access & ~SRDMA_MW_ACCESS))
		return IB_WC_MW_BIND_ERR;
	/* by its index: an unbound window answers to no key */
	win = srdma_mr_get_index(sdev, key);
	if (!win)
		return IB_WC_MW_BIND_ERR;
	if (win->kind != SRDMA_MR_MW) {
		srdma_mr_put(win);
		return IB_WC_MW_BIND_ERR;
	}
	mw = to_srdma_mw(win);
	type2 = mw->ibmw.type == IB_MW_TYPE_2;
	status = IB_WC_MW_BIND_ERR;
	/* a type 2 window is bound to something (o10-37.2.40) */
	if (win->ibmr.pd != qp->ibqp.pd || (type2 && !wr->wr.mw.length))
		goto out;
	if (wr->wr.mw.length) {
		mr = srdma_mw_bind_mr(qp, wr);
		if (!mr)
			goto out;
	}
	spin_lock_irqsave(&mw->lock, flags);
	/* by its current key; a type 2 window only when free (o10-37.2.30) */
	if (READ_ONCE(mw->rkey) != key || (type2 && mw->mr)) {
		spin_unlock_irqrestore(&mw->lock, flags);
		goto out;
	}
	old = srdma_mw_unbind(mw);
	mw->mr = mr;
	mr = NULL;
	mw->qpn = type2 ? qp->ibqp.qp_num : 0;
	WRITE_ONCE(win->ibmr.iova, wr->wr.mw.addr);
	WRITE_ONCE(win->ibmr.length, wr->wr.mw.length);
	WRITE_ONCE(win->access, wr->wr.mw.access);
	WRITE_ONCE(mw->rkey, rkey);
	if (mw->mr)
		WRITE_ONCE(win->key, rkey);
	spin_unlock_irqrestore(&mw->lock, flags);
	srdma_mw_unbound(sdev, old);
	status = IB_WC_SUCCESS;
out:
	if (mr)
		srdma_mw_drop_mr(sdev, mr);
	srdma_mr_put(win);
	return status;
}

/**
 * srdma_mw_invalidate() - LOCAL_INV or SEND with invalidate of a window
 * @qp: the QP of the request or of the receive
 * @win: the window's entry, found by its key and referenced by the caller
 *
 * Only type 2 windows are invalidated (o10-37.2.26), in the QP's PD; the
 * window is free to be bound again.
 *
 * Return: 0, or -EINVAL.
 */
int srdma_mw_invalidate(struct srdma_qp *qp, struct srdma_mr *win)
{
	struct srdma_mw *mw = to_srdma_mw(win);
	struct srdma_mr *mr;
	unsigned long flags;

	if (mw->ibmw.type != IB_MW_TYPE_2 || win->ibmr.pd != qp->ibqp.pd)
		return -EINVAL;
	spin_lock_irqsave(&mw->lock, flags);
	mr = srdma_mw_unbind(mw);
	spin_unlock_irqrestore(&mw->lock, flags);
	srdma_mw_unbound(to_srdma_dev(qp->ibqp.device), mr);
	return 0;
}

/* the bytes lie in the window's MR, still registered where it was */
static bool srdma_mw_mr_ok(struct srdma_mr *mr, u64 va, u64 len)
{
	return READ_ONCE(mr->key) &&
	       srdma_range_ok(READ_ONCE(mr->ibmr.iova),
			      READ_ONCE(mr->ibmr.length), va, len);
}

/**
 * srdma_mw_lookup() - a remote access through a window
 * @qp: the QP the access is for
 * @win: the window's entry, found by its key; its reference is dropped
 * @va: first byte
 * @length: bytes
 * @access: the IB_ACCESS_REMOTE_* rights the access needs
 * @mrp: the window's MR, referenced, on success
 *
 * A window is for remote accesses only, from its PD's QPs (type 2: from
 * the QP it is bound to), with its rights and inside its range.
 *
 * Return: 0, or -EINVAL, -EACCES or -ERANGE as srdma_mr_lookup().
 */
int srdma_mw_lookup(struct srdma_qp *qp, struct srdma_mr *win, u64 va,
		    u64 length, int access, struct srdma_mr **mrp)
{
	struct srdma_mw *mw = to_srdma_mw(win);
	struct srdma_mr *mr;
	unsigned long flags;
	int err = -EINVAL;

	spin_lock_irqsave(&mw->lock, flags);
	mr = mw->mr;
	if (!(access & SRDMA_REMOTE_ACCESS) || win->ibmr.pd != qp->ibqp.pd ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->qpn != qp->ibqp.qp_num) ||
	    !mr)
		goto out;
	err = -EACCES;
	if ((win->access & access) != access)
		goto out;
	err = -ERANGE;
	if (!srdma_range_ok(win->ibmr.iova, win->ibmr.length, va, length) ||
	    !srdma_mw_mr_ok(mr, va, length))
		goto out;
	refcount_inc(&mr->refs);	/* the window holds one */
	*mrp = mr;
	err = 0;
out:
	spin_unlock_irqrestore(&mw->lock, flags);
	srdma_mr_put(win);
	return err;
}

/**
 * srdma_mw_access_ok() - a later packet of a message that a window let in:
 * the window still answers to its key, is bound to @mr and holds the bytes
 * @mr: the MR srdma_mw_lookup() gave
 * @key: the window's key
 * @va: first byte
 * @len: bytes
 */
bool srdma_mw_access_ok(struct srdma_mr *mr, u32 key, u64 va, u64 len)
{
	struct srdma_mr *win = srdma_mr_get(to_srdma_dev(mr->ibmr.device), key);
	struct srdma_mw *mw;
	unsigned long flags;
	bool ok;

	if (!win)
		return false;
	ok = win->kind == SRDMA_MR_MW;
	if (ok) {
		mw = to_srdma_mw(win);
		spin_lock_irqsave(&mw->lock, flags);
		ok = mw->mr == mr &&
		     srdma_range_ok(win->ibmr.iova, win->ibmr.length, va, len) &&
		     srdma_mw_mr_ok(mr, va, len);
		spin_unlock_irqrestore(&mw->lock, flags);
	}
	srdma_mr_put(win);
	return ok;
}
