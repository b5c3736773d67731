// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data path's access to memory regions: key lookup with the checks of
 * every remote and local access (key, PD, access rights, bounds), copies
 * between MRs or SGE lists and packet buffers, atomics, and the fast
 * registration and invalidation work requests.
 *
 * User MRs are reached through their pinned pages; DMA and fast
 * registration MRs hold kernel virtual addresses, since srdma, like every
 * software device, is a virtual-DMA device (ib_uses_virt_dma()).
 */
#include <kunit/visibility.h>
#include <linux/highmem.h>
#include <linux/skbuff.h>

#include "srdma_engine.h"

/**
 * srdma_mr_access_ok() - an MR found by its key allows an access to bytes:
 * at lookup, and again for each later packet of a message
 * @mr: the MR, referenced
 * @key: the key it was found with
 * @va: first byte
 * @len: bytes
 *
 * Between two packets of a WRITE, or two responses of a READ, a fast
 * registration MR may have been invalidated (LOCAL_INV, SEND with
 * invalidate) and mapped again elsewhere: its pages may be gone.
 *
 * Return: true if @key still names @mr and the bytes are inside it.
 */
bool srdma_mr_access_ok(struct srdma_mr *mr, u32 key, u64 va, u64 len)
{
	if (READ_ONCE(mr->key) != key)
		return false;
	return mr->kind == SRDMA_MR_DMA ||
	       srdma_range_ok(READ_ONCE(mr->ibmr.iova),
			      READ_ONCE(mr->ibmr.length), va, len);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mr_access_ok);

/**
 * srdma_rkey_access_ok() - srdma_mr_access_ok() for a remote access, whose
 * key may be a memory window's
 * @mr: the MR srdma_mr_lookup() gave for @rkey
 * @rkey: the key of the access
 * @va: first byte
 * @len: bytes
 */
static bool srdma_rkey_access_ok(struct srdma_mr *mr, u32 rkey, u64 va,
				 u64 len)
{
	if (READ_ONCE(mr->key) == rkey)
		return srdma_mr_access_ok(mr, rkey, va, len);
	return srdma_mw_access_ok(mr, rkey, va, len);
}

/**
 * srdma_rkey_access_begin() - srdma_rkey_access_ok(), and the bytes may be
 * placed or read until srdma_rkey_access_end()
 * @mr: the MR srdma_mr_lookup() gave for @rkey
 * @rkey: the key of the access
 * @va: first byte
 * @len: bytes
 *
 * An invalidation, rebinding or deallocation that takes the key away
 * meanwhile, on any QP, completes only after the access ended
 * (srdma_mr_fence()): once its work completion is out, no byte moves
 * through the old key. The caller is an engine (bottom halves off) and
 * waits for nothing before it ends the access: the fence spins.
 *
 * Return: true if the access may go on; false if the key no longer allows
 * it (then it is not under way).
 */
bool srdma_rkey_access_begin(struct srdma_mr *mr, u32 rkey, u64 va, u64 len)
{
	atomic_inc(&mr->accessing);
	/* counted before the key is read: pairs with srdma_mr_fence() */
	smp_mb__after_atomic();
	if (srdma_rkey_access_ok(mr, rkey, va, len))
		return true;
	atomic_dec(&mr->accessing);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_rkey_access_begin);

/**
 * srdma_rkey_access_end() - the access srdma_rkey_access_begin() let in is
 * done with the bytes
 * @mr: its MR
 */
void srdma_rkey_access_end(struct srdma_mr *mr)
{
	/* the bytes before the count: a fence that sees it sees them done */
	smp_mb__before_atomic();
	atomic_dec(&mr->accessing);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_rkey_access_end);

/**
 * srdma_mr_lookup() - find the MR of a key and check an access to it
 * @qp: the QP the access is for; the MR must be in its PD
 * @key: an lkey or rkey
 * @va: first byte accessed
 * @length: bytes accessed
 * @access: IB_ACCESS_* bits the MR must grant (0 for a local read)
 * @mrp: the MR, referenced, on success
 *
 * A memory window's key gives the MR the window is bound to, after the
 * window's own checks (srdma_mw_lookup()).
 *
 * Return: 0, or -EINVAL for an unknown key or another PD's MR, -EACCES for
 * missing rights, -ERANGE for bytes outside the MR.
 */
int srdma_mr_lookup(struct srdma_qp *qp, u32 key, u64 va, u64 length,
		    int access, struct srdma_mr **mrp)
{
	struct srdma_mr *mr;

	mr = srdma_mr_get(to_srdma_dev(qp->ibqp.device), key);
	if (!mr)
		return -EINVAL;
	if (mr->kind == SRDMA_MR_MW)
		return srdma_mw_lookup(qp, mr, va, length, access, mrp);
	if (mr->ibmr.pd != qp->ibqp.pd) {
		srdma_mr_put(mr);
		return -EINVAL;
	}
	if ((READ_ONCE(mr->access) & access) != access) {
		srdma_mr_put(mr);
		return -EACCES;
	}
	if (!srdma_mr_access_ok(mr, key, va, length)) {
		srdma_mr_put(mr);
		return -ERANGE;
	}
	*mrp = mr;
	return 0;
}

/* kernel address of byte @va of @mr, and the bytes after it in its page */
static void *srdma_mr_map(struct srdma_mr *mr, u64 va, u32 *room,
			  struct page **mapped)
{
	u64 offset, page_size;

	*mapped = NULL;
	switch (mr->kind) {
	case SRDMA_MR_USER:
		offset = va - mr->ibmr.iova + mr->first_page_offset;
		*room = PAGE_SIZE - offset_in_page(offset);
		*mapped = mr->pages[offset >> PAGE_SHIFT];
		return kmap_local_page(*mapped) + offset_in_page(offset);
	case SRDMA_MR_FAST_REG:
		page_size = mr->ibmr.page_size;
		offset = va - mr->ibmr.iova + mr->first_page_offset;
		*room = page_size - (offset & (page_size - 1));
		return (void *)(uintptr_t)(mr->page_addrs[offset / page_size] +
					   (offset & (page_size - 1)));
	default:
		*room = U32_MAX;
		return (void *)(uintptr_t)va;
	}
}

static void srdma_mr_unmap(void *addr, struct page *mapped)
{
	if (mapped)
		kunmap_local(addr);
}

/**
 * srdma_mr_copy() - copy between an MR and a kernel buffer
 * @mr: checked by srdma_mr_lookup() for these bytes
 * @va: first byte in the MR
 * @buf: the kernel buffer
 * @length: bytes
 * @to_mr: copy from @buf into the MR, else from the MR into @buf
 *
 * Return: 0, or -EAGAIN if a page of an ODP MR is not there (nothing
 * copied: srdma_odp_defer() asks for it).
 */
int srdma_mr_copy(struct srdma_mr *mr, u64 va, void *buf, u32 length,
		  bool to_mr)
{
	struct page *mapped;
	void *addr;
	u32 room, n;

	if (mr->kind == SRDMA_MR_ODP && length)
		return srdma_odp_copy(mr, va, buf, length, to_mr);
	while (length) {
		addr = srdma_mr_map(mr, va, &room, &mapped);
		n = min(room, length);
		if (to_mr)
			memcpy(addr, buf, n);
		else
			memcpy(buf, addr, n);
		srdma_mr_unmap(addr, mapped);
		va += n;
		buf += n;
		length -= n;
	}
	return 0;
}

/*
 * srdma_sge_copy(), or with @skb srdma_sge_copy_skb(): each SGE's part
 * looked up once, then copied from or to @buf, or from @skb's bytes at
 * @skb_offset on, wherever the skb holds them
 */
static int srdma_sge_walk(struct srdma_qp *qp, const struct rxe_sge *sge,
			  u32 num_sge, u64 offset, void *buf,
			  struct sk_buff *skb, u32 skb_offset, u32 length,
			  bool to_sge)
{
	int access = to_sge ? IB_ACCESS_LOCAL_WRITE : 0;
	struct srdma_mr *mr;
	u32 i, n;
	int err;

	for (i = 0; i < num_sge && length; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min_t(u64, sge[i].length - offset, length);
		err = srdma_mr_lookup(qp, sge[i].lkey, sge[i].addr + offset, n,
				      access, &mr);
		if (err)
			return err;
		err = skb ? srdma_mr_copy_skb(mr, sge[i].addr + offset, skb,
					      skb_offset, n) :
			    srdma_mr_copy(mr, sge[i].addr + offset, buf, n,
					  to_sge);
		if (err)
			err = srdma_odp_defer(qp, mr, sge[i].addr + offset, n,
					      to_sge);
		srdma_mr_put(mr);
		if (err)
			return err;
		if (skb)
			skb_offset += n;
		else
			buf += n;
		length -= n;
		offset = 0;
	}
	return length ? -EINVAL : 0;
}

/**
 * srdma_sge_copy() - copy between the buffers of an SGE list and a kernel
 * buffer, starting @offset bytes into the list
 * @qp: the QP whose WQE the list is
 * @sge: the list, from srdma's copy of the WQE
 * @num_sge: its entries
 * @offset: bytes of the list to skip
 * @buf: the kernel buffer
 * @length: bytes to copy; the list holds at least @offset + @length
 * @to_sge: copy into the SGEs' buffers (needs local write), else out of them
 *
 * Return: 0, or a negative errno if a key does not allow the access;
 * -EINPROGRESS if a page of an ODP MR is not there yet (a work item faults
 * it in, then kicks the engine).
 */
int srdma_sge_copy(struct srdma_qp *qp, const struct rxe_sge *sge,
		   u32 num_sge, u64 offset, void *buf, u32 length, bool to_sge)
{
	return srdma_sge_walk(qp, sge, num_sge, offset, buf, NULL, 0, length,
			      to_sge);
}

/*
 * The page of byte @va of @mr that a packet may hold a reference to, the
 * byte's offset in it and the bytes after it there; NULL where a packet
 * takes a copy: slab memory and memory outside the linear map (kernel
 * MRs: sendpage_ok()), and ODP pages, which an invalidation takes away.
 */
static struct page *srdma_mr_page(struct srdma_mr *mr, u64 va, u32 *offset,
				  u32 *room)
{
	struct page *page;
	void *addr;
	u64 off;

	switch (mr->kind) {
	case SRDMA_MR_USER:
		off = va - mr->ibmr.iova + mr->first_page_offset;
		*offset = offset_in_page(off);
		*room = PAGE_SIZE - *offset;
		return mr->pages[off >> PAGE_SHIFT];
	case SRDMA_MR_DMA:
	case SRDMA_MR_FAST_REG:
		/* kernel addresses: nothing is mapped */
		addr = srdma_mr_map(mr, va, room, &page);
		if (!virt_addr_valid(addr))
			return NULL;
		page = virt_to_page(addr);
		if (!sendpage_ok(page))
			return NULL;
		*offset = offset_in_page(addr);
		*room = min_t(u32, *room, PAGE_SIZE - *offset);
		return page;
	default:
		return NULL;
	}
}

/*
 * Add bytes of @mr from @va on to @skb as fragments of the MR's own pages,
 * each with a reference of the packet's, while the pages are ones a packet
 * may hold (srdma_mr_page()) and fragments are left for a copy of the rest
 * and for the pad and ICRC. Return: the bytes added.
 */
static u32 srdma_mr_hold_pages(struct srdma_mr *mr, u64 va,
			       struct sk_buff *skb, u32 length)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	u32 offset, room, n, done = 0;
	struct page *page;

	while (done < length && shinfo->nr_frags < MAX_SKB_FRAGS - 2) {
		page = srdma_mr_page(mr, va + done, &offset, &room);
		if (!page)
			break;
		n = min(room, length - done);
		if (skb_can_coalesce(skb, shinfo->nr_frags, page, offset)) {
			skb_frag_size_add(&shinfo->frags[shinfo->nr_frags - 1],
					  n);
		} else {
			get_page(page);
			skb_fill_page_desc(skb, shinfo->nr_frags, page, offset,
					   n);
		}
		skb_len_add(skb, n);
		done += n;
	}
	/* the sender may write them while the packet is queued */
	if (done)
		shinfo->flags |= SKBFL_SHARED_FRAG;
	return done;
}

/**
 * srdma_mr_attach() - add bytes of an MR to a packet as page fragments
 * @mr: checked by srdma_mr_lookup() for these bytes
 * @va: first byte in the MR
 * @skb: from srdma_pkt_alloc_paged(); the bytes follow what it holds
 * @length: bytes, at most a page
 *
 * The fragments are the MR's own pages where a packet may hold them
 * (srdma_mr_page()): the bytes are not copied to be sent; the ICRC reads
 * them, and on loopback the receiver copies them into its memory. The
 * rest, from the first page a packet may not hold on, is copied into one
 * fragment.
 *
 * Return: 0, -EAGAIN as srdma_mr_copy(), or -ENOMEM.
 */
int srdma_mr_attach(struct srdma_mr *mr, u64 va, struct sk_buff *skb,
		    u32 length)
{
	u32 held = srdma_mr_hold_pages(mr, va, skb, length);
	void *rest;

	if (held == length)
		return 0;
	rest = srdma_pkt_put_frag(skb, length - held);
	return rest ? srdma_mr_copy(mr, va + held, rest, length - held, false) :
		      -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mr_attach);

/**
 * srdma_sge_attach() - srdma_mr_attach() of the buffers of an SGE list:
 * from the first page a packet may not hold on, the rest of the list's
 * bytes are copied into one fragment
 * @qp: the QP whose WQE the list is
 * @sge: the list
 * @num_sge: its entries
 * @offset: bytes of the list to skip
 * @skb: the packet
 * @length: bytes, at most a page
 *
 * Return: as srdma_sge_copy(), or -ENOMEM.
 */
int srdma_sge_attach(struct srdma_qp *qp, const struct rxe_sge *sge,
		     u32 num_sge, u64 offset, struct sk_buff *skb, u32 length)
{
	u64 skip = offset;
	u32 i, n, held, done = 0;
	struct srdma_mr *mr;
	void *rest;
	int err;

	for (i = 0; i < num_sge && done < length; i++) {
		if (skip >= sge[i].length) {
			skip -= sge[i].length;
			continue;
		}
		n = min_t(u64, sge[i].length - skip, length - done);
		err = srdma_mr_lookup(qp, sge[i].lkey, sge[i].addr + skip, n, 0,
				      &mr);
		if (err)
			return err;
		held = srdma_mr_hold_pages(mr, sge[i].addr + skip, skb, n);
		srdma_mr_put(mr);
		done += held;
		if (held < n)
			break;
		skip = 0;
	}
	if (done == length)
		return 0;
	rest = srdma_pkt_put_frag(skb, length - done);
	if (!rest)
		return -ENOMEM;
	return srdma_sge_copy(qp, sge, num_sge, offset + done, rest,
			      length - done, false);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_sge_attach);

/**
 * srdma_mr_copy_skb() - srdma_mr_copy() into an MR from a received
 * packet's bytes, wherever the skb holds them: each contiguous piece (the
 * linear part, a page fragment) straight from where the NIC put it
 * @mr: checked by srdma_mr_lookup() for these bytes
 * @va: first byte in the MR
 * @skb: the packet
 * @skb_offset: where the bytes start, from skb->data
 * @length: bytes
 *
 * Return: as srdma_mr_copy(); on -EAGAIN some pieces may be copied (the
 * packet is handled again once the page is there).
 */
int srdma_mr_copy_skb(struct srdma_mr *mr, u64 va, struct sk_buff *skb,
		      u32 skb_offset, u32 length)
{
	struct skb_seq_state st;
	u32 done = 0, n;
	const u8 *data;
	int err;

	skb_prepare_seq_read(skb, skb_offset, skb_offset + length, &st);
	while ((n = skb_seq_read(done, &data, &st))) {
		/* a piece may go on past the end asked for */
		n = min(n, length - done);
		/* a copy into the MR: the source is only read */
		err = srdma_mr_copy(mr, va + done, (void *)data, n, true);
		if (err) {
			skb_abort_seq_read(&st);
			return err;
		}
		done += n;
	}
	return done == length ? 0 : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mr_copy_skb);

/**
 * srdma_sge_copy_skb() - srdma_sge_copy() into the list from a received
 * packet's bytes, wherever the skb holds them (srdma_mr_copy_skb())
 * @qp: the QP whose WQE the list is
 * @sge: the list
 * @num_sge: its entries
 * @offset: bytes of the list to skip
 * @skb: the packet
 * @skb_offset: where the bytes start, from skb->data
 * @length: bytes
 *
 * Return: as srdma_sge_copy().
 */
int srdma_sge_copy_skb(struct srdma_qp *qp, const struct rxe_sge *sge,
		       u32 num_sge, u64 offset, struct sk_buff *skb,
		       u32 skb_offset, u32 length)
{
	return srdma_sge_walk(qp, sge, num_sge, offset, NULL, skb, skb_offset,
			      length, true);
}

/**
 * srdma_mr_atomic() - execute an atomic on 8 aligned bytes of an MR
 * @mr: checked by srdma_mr_lookup() for the 8 bytes at @va
 * @va: the address, 8-byte aligned, so never across a page
 * @op: compare and swap, fetch and add, or ATOMIC WRITE's store
 * @value: the value to swap in, add or store
 * @compare: the value to compare with
 * @orig: the original value (not for the store)
 *
 * Atomic with respect to the CPUs and to every other srdma atomic.
 *
 * Return: 0, or -EAGAIN if the page of an ODP MR is not there (nothing
 * done: srdma_odp_defer() asks for it).
 */
int srdma_mr_atomic(struct srdma_mr *mr, u64 va, enum srdma_atomic_op op,
		    u64 value, u64 compare, u64 *orig)
{
	struct page *mapped;
	u32 room;
	u64 *p;

	if (mr->kind == SRDMA_MR_ODP)
		return srdma_odp_atomic(mr, va, op, value, compare, orig);
	p = srdma_mr_map(mr, va, &room, &mapped);
	srdma_atomic_apply(p, op, value, compare, orig);
	srdma_mr_unmap(p, mapped);
	return 0;
}

/**
 * srdma_mr_invalidate() - LOCAL_INV, or the invalidation of SEND_WITH_INV
 * @qp: the QP of the work request or of the receive
 * @key: the key of a fast registration MR in the QP's PD, or of a type 2
 *       memory window (srdma_mw_invalidate())
 *
 * Return: 0, or -EINVAL if @key names no registered MR that may be
 * invalidated.
 */
int srdma_mr_invalidate(struct srdma_qp *qp, u32 key)
{
	struct srdma_mr *mr;
	int err = 0;

	mr = srdma_mr_get(to_srdma_dev(qp->ibqp.device), key);
	if (!mr)
		return -EINVAL;
	if (mr->kind == SRDMA_MR_MW) {
		err = srdma_mw_invalidate(qp, mr);
	} else if (mr->kind != SRDMA_MR_FAST_REG ||
		   mr->ibmr.pd != qp->ibqp.pd) {
		err = -EINVAL;
	} else {
		WRITE_ONCE(mr->key, 0);
		srdma_mr_fence(mr);
	}
	srdma_mr_put(mr);
	return err;
}

/**
 * srdma_mr_register() - execute a REG_MR work request
 * @qp: its QP
 * @ibmr: the fast registration MR, its pages set by map_mr_sg
 * @key: the key it answers to from now on; its index part is the MR's
 * @access: the rights it grants
 *
 * Return: 0, or -EINVAL if the MR cannot be registered so.
 */
int srdma_mr_register(struct srdma_qp *qp, struct ib_mr *ibmr, u32 key,
		      int access)
{
	struct srdma_mr *mr = to_srdma_mr(ibmr);

	if (ibmr->device != qp->ibqp.device || mr->kind != SRDMA_MR_FAST_REG ||
	    ibmr->pd != qp->ibqp.pd || (key ^ ibmr->lkey) >> 8 ||
	    srdma_mr_check_access(access))
		return -EINVAL;
	WRITE_ONCE(mr->access, access);
	WRITE_ONCE(mr->key, key);
	return 0;
}
