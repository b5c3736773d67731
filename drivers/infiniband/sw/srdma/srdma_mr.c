// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions: the DMA MR of kernel consumers, user MRs over pinned
 * memory, and fast registration MRs filled by map_mr_sg.
 *
 * A key is an index into the device's MR table (upper 24 bits) and a key
 * byte (lower 8) that changes with every registration, so a key kept after
 * its MR was deregistered does not find the MR that reuses its index. The
 * lkey and the rkey are the same key. Lookups take no lock: the table is
 * an xarray read under RCU, and a reference keeps the MR while it is used.
 * Memory windows (srdma_mw.c) take their keys from the same table.
 */
#include <kunit/visibility.h>
#include <linux/scatterlist.h>
#include <rdma/ib_umem.h>

#include "srdma_engine.h"

#define SRDMA_MR_KEY_BYTE_BITS	8
#define SRDMA_MR_INDEX_MAX	(BIT(32 - SRDMA_MR_KEY_BYTE_BITS) - 1)

/**
 * srdma_mr_make_key() - the key of an MR from its table index and key byte
 * @index: index in the MR table, 1 to SRDMA_MR_INDEX_MAX
 * @key_byte: the changing byte
 *
 * Return: the lkey and rkey.
 */
VISIBLE_IF_KUNIT u32 srdma_mr_make_key(u32 index, u8 key_byte)
{
	return index << SRDMA_MR_KEY_BYTE_BITS | key_byte;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mr_make_key);

/* the table index of a key */
static u32 srdma_mr_key_index(u32 key)
{
	return key >> SRDMA_MR_KEY_BYTE_BITS;
}

/**
 * srdma_mr_same_index() - whether two keys name the same table entry
 * @a: a key
 * @b: another
 */
bool srdma_mr_same_index(u32 a, u32 b)
{
	return srdma_mr_key_index(a) == srdma_mr_key_index(b);
}

/**
 * srdma_mr_check_access() - are these MR access flags acceptable
 * @access: enum ib_access_flags
 *
 * Remote write and remote atomic need local write (IBTA 10.6.3.1): the
 * remote side writes the memory.
 *
 * Return: 0, -EINVAL for a forbidden combination, -EOPNOTSUPP for a flag
 * srdma does not implement.
 */
int srdma_mr_check_access(int access)
{
	const int supported = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			      IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
			      IB_ACCESS_MW_BIND | IB_ACCESS_RELAXED_ORDERING |
			      IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_ON_DEMAND;

	if (access & ~supported)
		return -EOPNOTSUPP;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mr_check_access);

/**
 * srdma_mr_reserve() - an index of the key table for @mr, and its first key
 * (in its lkey and rkey); nothing finds it before srdma_mr_publish()
 * @sdev: the device
 * @mr: an MR or a window's entry, zeroed but for its kind
 *
 * Return: 0, or -ENOMEM if the table is full.
 */
int srdma_mr_reserve(struct srdma_dev *sdev, struct srdma_mr *mr)
{
	u32 index, key;
	int err;

	refcount_set(&mr->refs, 1);
	init_completion(&mr->released);
	err = xa_alloc_cyclic(&sdev->mr_xa, &index, NULL,
			      XA_LIMIT(1, min_t(u32, SRDMA_MR_INDEX_MAX,
						sdev->attr.max_mr)),
			      &sdev->mr_next, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	key = srdma_mr_make_key(index, atomic_inc_return(&sdev->mr_key_gen));
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

static struct srdma_mr *srdma_mr_alloc(struct ib_pd *ibpd, int access,
				       enum srdma_mr_kind kind)
{
	struct srdma_dev *sdev = to_srdma_dev(ibpd->device);
	struct srdma_mr *mr;
	int err;

	err = srdma_mr_check_access(access);
	if (err) {
		ibdev_dbg(&sdev->ib_dev, "MR access flags %#x refused\n",
			  access);
		return ERR_PTR(err);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->kind = kind;
	mr->access = access;
	/* reserve the index first, publish the MR once it is complete */
	err = srdma_mr_reserve(sdev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return mr;
}

/* lookups find @mr from now on */
void srdma_mr_publish(struct srdma_dev *sdev, struct srdma_mr *mr)
{
	/* fast registration MRs and windows answer to no key until bound */
	if (mr->kind != SRDMA_MR_FAST_REG && mr->kind != SRDMA_MR_MW)
		mr->key = mr->ibmr.lkey;
	xa_store(&sdev->mr_xa, srdma_mr_key_index(mr->ibmr.lkey), mr,
		 GFP_KERNEL);
}

/* undo srdma_mr_alloc() for an MR that was never published */
static void srdma_mr_unreserve(struct srdma_dev *sdev, struct srdma_mr *mr)
{
	xa_erase(&sdev->mr_xa, srdma_mr_key_index(mr->ibmr.lkey));
	kfree(mr);
}

/* the entry of @key's table index, held; its key byte must match if asked */
static struct srdma_mr *srdma_mr_find(struct srdma_dev *sdev, u32 key,
				      bool key_byte_too)
{
	struct srdma_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, srdma_mr_key_index(key));
	/* the key read first: pairs with srdma_rereg_user_mr()'s release */
	if (mr && ((key_byte_too && smp_load_acquire(&mr->key) != key) ||
		   !refcount_inc_not_zero(&mr->refs)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * srdma_mr_get() - find an MR by lkey or rkey and hold it
 * @sdev: the device
 * @key: the key; its key byte must match too
 *
 * Return: the MR, to be released with srdma_mr_put(), or NULL.
 */
struct srdma_mr *srdma_mr_get(struct srdma_dev *sdev, u32 key)
{
	return srdma_mr_find(sdev, key, true);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mr_get);

/**
 * srdma_mr_get_index() - the entry at the table index of @key, whatever key
 * it answers to now (an unbound window answers to none), held
 * @sdev: the device
 * @key: a key of the entry, its key byte ignored
 *
 * Return: the entry, to be released with srdma_mr_put(), or NULL.
 */
struct srdma_mr *srdma_mr_get_index(struct srdma_dev *sdev, u32 key)
{
	return srdma_mr_find(sdev, key, false);
}

/**
 * srdma_mr_put() - release an MR from srdma_mr_get()
 * @mr: the MR
 */
void srdma_mr_put(struct srdma_mr *mr)
{
	if (refcount_dec_and_test(&mr->refs))
		complete(&mr->released);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mr_put);

struct ib_mr *srdma_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct srdma_mr *mr = srdma_mr_alloc(ibpd, access, SRDMA_MR_DMA);

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->ibmr.length = U64_MAX;
	srdma_mr_publish(to_srdma_dev(ibpd->device), mr);
	return &mr->ibmr;
}

/* what the data path uses of a user MR's pinned memory */
struct srdma_user_pages {
	struct ib_umem *umem;
	struct page **pages;	/* of every PAGE_SIZE block */
	u32 num_pages;
};

/* @length bytes from @start pinned for @access, and their pages */
static int srdma_user_pages_get(struct ib_device *ibdev, u64 start,
				u64 length, int access,
				struct srdma_user_pages *up)
{
	struct sg_page_iter iter;
	u32 n = 0;

	up->umem = ib_umem_get(ibdev, start, length, access);
	if (IS_ERR(up->umem))
		return PTR_ERR(up->umem);
	up->num_pages = ib_umem_num_pages(up->umem);
	up->pages = kvcalloc(up->num_pages, sizeof(*up->pages), GFP_KERNEL);
	if (!up->pages) {
		ib_umem_release(up->umem);
		return -ENOMEM;
	}
	for_each_sgtable_page(&up->umem->sgt_append.sgt, &iter, 0) {
		if (n == up->num_pages)
			break;
		up->pages[n++] = sg_page_iter_page(&iter);
	}
	up->num_pages = n;
	return 0;
}

static void srdma_user_pages_put(struct srdma_user_pages *up)
{
	ib_umem_release(up->umem);
	kvfree(up->pages);
}

/* @mr takes @up; what it had goes to @up */
static void srdma_mr_swap_pages(struct srdma_mr *mr,
				struct srdma_user_pages *up)
{
	swap(mr->umem, up->umem);
	swap(mr->pages, up->pages);
	swap(mr->num_pages, up->num_pages);
	mr->first_page_offset = ib_umem_offset(mr->umem);
}

/**
 * srdma_user_mr_check() - the geometry of a user MR
 * @start: its user address
 * @length: its bytes
 * @iova: the address peers and SGEs use for @start
 * @max_bytes: the device's max_mr_size
 *
 * Seen from @start or from @iova, the MR must end below 2^64, and @iova
 * must sit at the same offset in its page as @start (ib_uverbs checks that
 * too; atomics rely on it for their alignment).
 *
 * Return: 0 or -EINVAL.
 */
VISIBLE_IF_KUNIT int srdma_user_mr_check(u64 start, u64 length, u64 iova,
					 u64 max_bytes)
{
	u64 end;

	if (!length || length > max_bytes ||
	    check_add_overflow(start, length, &end) ||
	    check_add_overflow(iova, length, &end) ||
	    offset_in_page(start ^ iova))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_user_mr_check);

struct ib_mr *srdma_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibpd->device);
	struct srdma_user_pages up;
	struct srdma_mr *mr;
	int err;

	if (srdma_user_mr_check(start, length, iova, sdev->attr.max_mr_size)) {
		ibdev_dbg(&sdev->ib_dev,
			  "user MR of %llu bytes at %#llx, iova %#llx, refused\n",
			  length, start, iova);
		return ERR_PTR(-EINVAL);
	}
	mr = srdma_mr_alloc(ibpd, access, access & IB_ACCESS_ON_DEMAND ?
				SRDMA_MR_ODP : SRDMA_MR_USER);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	if (mr->kind == SRDMA_MR_ODP)
		err = srdma_odp_get(mr, ibpd->device, start, length, access);
	else
		err = srdma_user_pages_get(ibpd->device, start, length, access,
					   &up);
	if (err) {
		srdma_mr_unreserve(sdev, mr);
		return ERR_PTR(err);
	}
	if (mr->kind == SRDMA_MR_USER)
		srdma_mr_swap_pages(mr, &up);
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	srdma_mr_publish(sdev, mr);
	return &mr->ibmr;
}

/*
 * No window binds to @mr while it is deregistered or re-registered
 * (@dying); false if windows are bound to it or one of those is under way
 */
static bool srdma_mr_stop_binds(struct srdma_dev *sdev, struct srdma_mr *mr)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&sdev->mw_lock, flags);
	ok = !mr->num_mw && !mr->dying;
	if (ok)
		mr->dying = true;
	spin_unlock_irqrestore(&sdev->mw_lock, flags);
	return ok;
}

/**
 * srdma_rereg_user_mr() - ibv_rereg_mr(3): a user MR takes new memory
 * (IB_MR_REREG_TRANS), access flags or PD, in place, its keys unchanged
 * @ibmr: the MR
 * @flags: enum ib_mr_rereg_flags
 * @start: new user address (TRANS)
 * @length: new length (TRANS)
 * @iova: new address for peers and SGEs (TRANS)
 * @access: new access flags (ACCESS)
 * @ibpd: new PD (PD), or the MR's
 * @udata: unused (the rxe ABI has no driver data here)
 *
 * While it changes, the key answers nothing (an access that comes then
 * fails as one with a bad key) and the accesses that hold it are waited
 * for, as a deregistration waits; then the MR answers to its key again
 * with everything new. Memory pinned for reading only is pinned again for
 * an access that writes (its pages are then dirtied when released). An MR
 * with windows bound to it stays as it is (EBUSY, as for a
 * deregistration); a window does not bind to it while it changes.
 *
 * Return: NULL (changed in place), or an ERR_PTR with nothing changed.
 */
struct ib_mr *srdma_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibmr->device);
	struct srdma_mr *mr = to_srdma_mr(ibmr);
	struct srdma_user_pages up = {};
	unsigned long irqflags;
	u32 key = mr->key;
	int err;

	if (mr->kind != SRDMA_MR_USER)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	err = srdma_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	if (!(flags & IB_MR_REREG_TRANS) &&
	    ib_access_writable(access) && !ib_access_writable(mr->access)) {
		start = mr->umem->address;
		length = ibmr->length;
		iova = ibmr->iova;
		flags |= IB_MR_REREG_TRANS;
	}
	if (flags & IB_MR_REREG_TRANS) {
		if (srdma_user_mr_check(start, length, iova,
					sdev->attr.max_mr_size))
			return ERR_PTR(-EINVAL);
		err = srdma_user_pages_get(ibmr->device, start, length, access,
					   &up);
		if (err)
			return ERR_PTR(err);
	}
	if (!srdma_mr_stop_binds(sdev, mr)) {
		if (up.umem)
			srdma_user_pages_put(&up);
		return ERR_PTR(-EBUSY);
	}

	WRITE_ONCE(mr->key, 0);
	srdma_mr_put(mr);
	wait_for_completion(&mr->released);
	if (up.umem) {
		srdma_mr_swap_pages(mr, &up);
		ibmr->iova = iova;
		ibmr->length = length;
	}
	WRITE_ONCE(mr->access, access);
	/* ib_uverbs sets the PD too, but after the MR answers again */
	ibmr->pd = ibpd;
	reinit_completion(&mr->released);
	refcount_set(&mr->refs, 1);
	/* everything above is seen by a lookup that finds the key */
	smp_store_release(&mr->key, key);

	spin_lock_irqsave(&sdev->mw_lock, irqflags);
	mr->dying = false;
	spin_unlock_irqrestore(&sdev->mw_lock, irqflags);
	if (up.umem)
		srdma_user_pages_put(&up);
	return NULL;
}

struct ib_mr *srdma_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct srdma_dev *sdev = to_srdma_dev(ibpd->device);
	struct srdma_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > sdev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);
	/* the access flags come with each registration work request */
	mr = srdma_mr_alloc(ibpd, 0, SRDMA_MR_FAST_REG);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->page_addrs = kcalloc(max_num_sg, sizeof(*mr->page_addrs),
				 GFP_KERNEL);
	if (!mr->page_addrs) {
		srdma_mr_unreserve(sdev, mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	srdma_mr_publish(sdev, mr);
	return &mr->ibmr;
}

static int srdma_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct srdma_mr *mr = to_srdma_mr(ibmr);

	if (mr->num_pages == mr->max_pages)
		return -ENOMEM;
	mr->page_addrs[mr->num_pages++] = addr;
	return 0;
}

int srdma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct srdma_mr *mr = to_srdma_mr(ibmr);
	int n;

	/* srdma_mr_map() splits an offset into page and byte with masks */
	if (!is_power_of_2(ibmr->page_size) ||
	    !(ibmr->page_size & SRDMA_PAGE_SIZE_CAP))
		return -EINVAL;
	mr->num_pages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, srdma_mr_set_page);
	/*
	 * Where the first byte sits in its page: a consumer may move the
	 * iova afterwards (ib_map_mr_sg_zbva() sets it to 0), not the data.
	 */
	mr->first_page_offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/**
 * srdma_mr_withdraw() - no lookup finds @mr from now on; returns once
 * those in progress are done with it
 * @sdev: the device
 * @mr: a published MR or window entry
 */
void srdma_mr_withdraw(struct srdma_dev *sdev, struct srdma_mr *mr)
{
	xa_erase(&sdev->mr_xa, srdma_mr_key_index(mr->ibmr.lkey));
	srdma_mr_put(mr);
	wait_for_completion(&mr->released);
}

/**
 * srdma_mr_fence() - after a key that names @mr was taken away: wait for
 * the remote accesses to @mr that passed it
 * @mr: the MR, or the MR a window was bound to
 *
 * An access holds the count for one packet's bytes or one atomic, with
 * bottom halves off on its CPU, so the wait is short. The caller holds no
 * lock that srdma_rkey_access_begin() takes (a window's).
 */
void srdma_mr_fence(struct srdma_mr *mr)
{
	/* the key taken away before the count is read: pairs with begin */
	smp_mb();
	while (atomic_read_acquire(&mr->accessing))
		cpu_relax();
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mr_fence);

/* An MR with windows bound to it stays (-EBUSY; IBTA 10.6.7.2.6). */
int srdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibmr->device);
	struct srdma_mr *mr = to_srdma_mr(ibmr);

	if (!srdma_mr_stop_binds(sdev, mr)) {
		ibdev_dbg(&sdev->ib_dev, "MR %#x: windows are bound to it\n",
			  ibmr->lkey);
		return -EBUSY;
	}
	srdma_mr_withdraw(sdev, mr);

	if (mr->kind == SRDMA_MR_ODP)
		srdma_odp_put(mr);
	else if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->page_addrs);
	kfree_rcu(mr, rcu);
	return 0;
}
