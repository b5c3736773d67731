// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * On-demand paging MRs (IB_ACCESS_ON_DEMAND): a process's memory that is
 * not pinned. ib_core's umem ODP mirrors the process's page tables through
 * an MMU interval notifier. srdma keeps two bits per page: the page may be
 * read, and written. A fault sets them once it has mapped the page
 * (process context: hmm_range_fault() sleeps), and the notifier clears
 * them before the page goes, under the MR's odp lock.
 *
 * The data path runs with bottom halves off and cannot fault: under the
 * odp lock it either finds every page of an access valid and uses them
 * (srdma_odp_copy(), srdma_odp_atomic()), or gets -EAGAIN; then the engine
 * hands the range to srdma_odp_defer(), stops without consuming the packet
 * or work request, and is kicked again once a work item has faulted the
 * range in (Documentation/transport.md, "On-demand paging").
 */
#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <rdma/ib_umem_odp.h>

#include "srdma.h"
#include "srdma_engine.h"

/*
 * The page of the umem (which starts at @umem_start, page aligned) that
 * holds byte @va of an MR registered at user @address as @iova; @va is in
 * the MR (srdma_mr_lookup() checked it), so no step wraps
 */
VISIBLE_IF_KUNIT unsigned long srdma_odp_page_index(u64 umem_start,
						    u64 address, u64 iova,
						    u64 va)
{
	return (address + (va - iova) - umem_start) >> PAGE_SHIFT;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_odp_page_index);

/* the user address of byte @va of @mr */
static u64 srdma_odp_user(struct srdma_mr *mr, u64 va)
{
	return mr->umem->address + (va - mr->ibmr.iova);
}

/* the index in the umem of the page of user address @user */
static unsigned long srdma_odp_index(struct srdma_mr *mr, u64 user)
{
	return srdma_odp_page_index(ib_umem_start(to_ib_umem_odp(mr->umem)),
				    user, 0, 0);
}

static bool srdma_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *umem_odp =
		container_of(mni, struct ib_umem_odp, notifier);
	struct srdma_odp *odp = READ_ONCE(umem_odp->private);
	unsigned long start, end, first;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem_odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(umem_odp), range->start);
	end = min_t(u64, ib_umem_end(umem_odp), range->end);
	/* none is set before the MR is published: no fault ran */
	if (odp) {
		first = (start - ib_umem_start(umem_odp)) >> PAGE_SHIFT;
		spin_lock_bh(&odp->lock);
		bitmap_clear(odp->valid, first, (end - start) >> PAGE_SHIFT);
		bitmap_clear(odp->writable, first, (end - start) >> PAGE_SHIFT);
		spin_unlock_bh(&odp->lock);
	}
	ib_umem_odp_unmap_dma_pages(umem_odp, start, end);
	mutex_unlock(&umem_odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops srdma_odp_ops = {
	.invalidate = srdma_odp_invalidate,
};

/**
 * srdma_odp_get() - the unpinned memory of an ODP MR
 * @mr: the MR, not yet published
 * @ibdev: its device
 * @start: its user address
 * @length: its bytes
 * @access: its IB_ACCESS_* flags, IB_ACCESS_ON_DEMAND among them
 *
 * Return: 0 or a negative errno.
 */
int srdma_odp_get(struct srdma_mr *mr, struct ib_device *ibdev, u64 start,
		  u64 length, int access)
{
	struct ib_umem_odp *umem_odp;
	struct srdma_odp *odp;
	size_t pages;

	odp = kzalloc(sizeof(*odp), GFP_KERNEL);
	if (!odp)
		return -ENOMEM;
	spin_lock_init(&odp->lock);
	umem_odp = ib_umem_odp_get(ibdev, start, length, access,
				   &srdma_odp_ops);
	if (IS_ERR(umem_odp)) {
		kfree(odp);
		return PTR_ERR(umem_odp);
	}
	pages = ib_umem_odp_num_pages(umem_odp);
	odp->valid = bitmap_zalloc(pages, GFP_KERNEL);
	odp->writable = bitmap_zalloc(pages, GFP_KERNEL);
	if (!odp->valid || !odp->writable) {
		ib_umem_odp_release(umem_odp);
		bitmap_free(odp->valid);
		bitmap_free(odp->writable);
		kfree(odp);
		return -ENOMEM;
	}
	mr->umem = &umem_odp->umem;
	mr->odp = odp;
	WRITE_ONCE(umem_odp->private, odp);
	return 0;
}

/* srdma_odp_put() - what srdma_odp_get() took, once no access can come */
void srdma_odp_put(struct srdma_mr *mr)
{
	ib_umem_odp_release(to_ib_umem_odp(mr->umem));
	mr->umem = NULL;
	bitmap_free(mr->odp->valid);
	bitmap_free(mr->odp->writable);
	kfree(mr->odp);
	mr->odp = NULL;
}

/**
 * srdma_odp_fault() - map the pages of @len bytes at @va of @mr
 * @mr: an ODP MR, referenced
 * @va: the first byte, in the MR's addresses
 * @len: bytes, inside the MR
 * @write: for writing
 *
 * Process context: faults the pages in as the process would.
 *
 * Return: 0, or a negative errno (-EFAULT: the process has no memory there).
 */
static int srdma_odp_fault(struct srdma_mr *mr, u64 va, u64 len,
			   bool write)
{
	struct ib_umem_odp *umem_odp = to_ib_umem_odp(mr->umem);
	u64 access = ODP_READ_ALLOWED_BIT;
	u64 user = srdma_odp_user(mr, va);
	unsigned long first, need;
	int mapped;

	if (write)
		access |= ODP_WRITE_ALLOWED_BIT;
	first = srdma_odp_index(mr, user);
	need = srdma_odp_index(mr, user + len - 1) - first + 1;
	mapped = ib_umem_odp_map_dma_and_lock(umem_odp, user, len, access,
					      true);
	if (mapped < 0)
		return mapped;
	spin_lock_bh(&mr->odp->lock);
	bitmap_set(mr->odp->valid, first, mapped);
	if (write)
		bitmap_set(mr->odp->writable, first, mapped);
	spin_unlock_bh(&mr->odp->lock);
	mutex_unlock(&umem_odp->umem_mutex);
	return mapped < need ? -EFAULT : 0;
}

/* every page of @len bytes at @va may be used (@write: written) */
static bool srdma_odp_present(struct srdma_mr *mr, u64 va, u64 len,
			      bool write)
{
	u64 user = srdma_odp_user(mr, va);
	unsigned long first = srdma_odp_index(mr, user);
	unsigned long last = srdma_odp_index(mr, user + len - 1);
	unsigned long *bits = write ? mr->odp->writable : mr->odp->valid;

	lockdep_assert_held(&mr->odp->lock);
	return find_next_zero_bit(bits, last + 1, first) > last;
}

/*
 * The kernel address of byte @va of @mr, and the bytes after it in its
 * page; its page present. srdma's DMA addresses are kernel addresses
 * (ib_uses_virt_dma()).
 */
static void *srdma_odp_addr(struct srdma_mr *mr, u64 va, u32 *room)
{
	struct ib_umem_odp *umem_odp = to_ib_umem_odp(mr->umem);
	u64 user = srdma_odp_user(mr, va);
	dma_addr_t dma;

	/* the notifier unmaps the page only after taking the lock */
	lockdep_assert_held(&mr->odp->lock);
	dma = umem_odp->dma_list[srdma_odp_index(mr, user)];

	*room = PAGE_SIZE - offset_in_page(user);
	return (void *)(uintptr_t)(dma & ODP_DMA_ADDR_MASK) +
	       offset_in_page(user);
}

/**
 * srdma_odp_copy() - srdma_mr_copy() for an ODP MR
 * @mr: the MR, checked for these bytes
 * @va: first byte in the MR
 * @buf: the kernel buffer
 * @length: bytes, at least 1
 * @to_mr: copy from @buf into the MR, else from the MR into @buf
 *
 * Return: 0, or -EAGAIN if a page is not there (nothing copied: a fault
 * must come first, srdma_odp_defer()).
 */
int srdma_odp_copy(struct srdma_mr *mr, u64 va, void *buf, u32 length,
		   bool to_mr)
{
	int err = 0;
	void *addr;
	u32 room, n;

	spin_lock_bh(&mr->odp->lock);
	if (!srdma_odp_present(mr, va, length, to_mr)) {
		err = -EAGAIN;
		goto out;
	}
	while (length) {
		addr = srdma_odp_addr(mr, va, &room);
		n = min(room, length);
		if (to_mr)
			memcpy(addr, buf, n);
		else
			memcpy(buf, addr, n);
		va += n;
		buf += n;
		length -= n;
	}
out:
	spin_unlock_bh(&mr->odp->lock);
	return err;
}

/**
 * srdma_odp_atomic() - srdma_mr_atomic() for an ODP MR
 * @mr: the MR, checked for the 8 bytes at @va
 * @va: the address, 8-byte aligned
 * @op: the atomic: SRDMA_ATOMIC_CMP_SWAP, _FETCH_ADD or _WRITE
 * @value: the value to swap in, add or write
 * @compare: the value to compare with
 * @orig: the original value (not for _WRITE)
 *
 * Return: 0, or -EAGAIN as srdma_odp_copy().
 */
int srdma_odp_atomic(struct srdma_mr *mr, u64 va, enum srdma_atomic_op op,
		     u64 value, u64 compare, u64 *orig)
{
	int err = 0;
	u32 room;

	spin_lock_bh(&mr->odp->lock);
	if (srdma_odp_present(mr, va, sizeof(u64), true))
		srdma_atomic_apply(srdma_odp_addr(mr, va, &room), op, value,
				   compare, orig);
	else
		err = -EAGAIN;
	spin_unlock_bh(&mr->odp->lock);
	return err;
}

/* the QP's fault: the range faulted in, then its engine kicked */
static void srdma_odp_fault_work(struct work_struct *work)
{
	struct srdma_odp_fault *f =
		container_of(work, struct srdma_odp_fault, work);
	struct srdma_qp *qp = container_of(f, struct srdma_qp, odp_fault);
	int err;

	err = srdma_odp_fault(f->mr, f->va, f->len, f->write);
	if (err)
		ibdev_dbg(qp->ibqp.device, "QP %#x: ODP fault at %#llx: %d\n",
			  qp->ibqp.qp_num, f->va, err);
	/* the engine meets the range again: then the access fails */
	f->err = err;
	f->failed_mr = f->mr;	/* compared, never dereferenced */
	srdma_mr_put(f->mr);
	f->mr = NULL;
	clear_bit_unlock(0, &f->pending);
	/* either half may have deferred its access to it */
	srdma_task_kick_both(qp);
}

void srdma_odp_init_qp(struct srdma_qp *qp)
{
	INIT_WORK(&qp->odp_fault.work, srdma_odp_fault_work);
}

/* before the QP goes: no fault work runs or will */
void srdma_odp_cleanup_qp(struct srdma_qp *qp)
{
	struct srdma_odp_fault *f = &qp->odp_fault;

	if (cancel_work_sync(&f->work)) {
		srdma_mr_put(f->mr);
		f->mr = NULL;
		clear_bit_unlock(0, &f->pending);
	}
}

/**
 * srdma_odp_defer() - have a work item fault in what an access of @qp's
 * engine found missing (srdma_odp_copy() or srdma_odp_atomic(): -EAGAIN)
 * @qp: the QP; its engine stops and is kicked once the fault is served
 * @mr: the ODP MR, referenced by the caller (the work takes its own)
 * @va: the first byte
 * @len: bytes
 * @write: the access writes
 *
 * One fault at a time per QP: while one is pending, the engine meets the
 * missing page again after it and defers again.
 *
 * Return: -EINPROGRESS (the engine waits for the fault), or the errno of
 * the fault of this very range that failed last (the access fails).
 */
int srdma_odp_defer(struct srdma_qp *qp, struct srdma_mr *mr, u64 va,
		    u64 len, bool write)
{
	struct srdma_odp_fault *f = &qp->odp_fault;
	int err;

	if (test_and_set_bit_lock(0, &f->pending))
		return -EINPROGRESS;
	err = f->err;
	f->err = 0;
	if (err && f->failed_mr == mr && f->va == va && f->len == len) {
		clear_bit_unlock(0, &f->pending);
		return err;
	}
	refcount_inc(&mr->refs);
	f->mr = mr;
	f->va = va;
	f->len = len;
	f->write = write;
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_ODP_FAULTS);
	queue_work(system_unbound_wq, &f->work);
	return -EINPROGRESS;
}

/**
 * srdma_advise_mr() - ibv_advise_mr(): prefetch the ranges of @sg_list
 * @ibpd: the PD of their MRs
 * @advice: IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH{,_WRITE,_NO_FAULT}
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH: done when this returns (always)
 * @sg_list: lkey, address and length of each range
 * @num_sge: ranges
 * @attrs: unused
 *
 * Return: 0, or -EINVAL for a key of no ODP MR of @ibpd or bytes outside
 * it, or the fault's errno.
 */
int srdma_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs)
{
	bool write = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	struct srdma_dev *sdev = to_srdma_dev(ibpd->device);
	struct srdma_mr *mr;
	int err = 0;
	u32 i;

	for (i = 0; i < num_sge && !err; i++) {
		if (!sg_list[i].length)
			continue;
		mr = srdma_mr_get(sdev, sg_list[i].lkey);
		if (!mr)
			return -EINVAL;
		if (mr->kind != SRDMA_MR_ODP || mr->ibmr.pd != ibpd ||
		    !srdma_mr_access_ok(mr, sg_list[i].lkey, sg_list[i].addr,
					sg_list[i].length))
			err = -EINVAL;
		else if (advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
			err = srdma_odp_fault(mr, sg_list[i].addr,
					      sg_list[i].length, write);
		srdma_mr_put(mr);
	}
	return err;
}
