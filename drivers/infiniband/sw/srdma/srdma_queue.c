// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Rings shared with userspace in the rxe layout: allocation, mmap, reset and
 * copy on resize. The index arithmetic is inline in srdma_queue.h.
 */
#include <kunit/visibility.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "srdma.h"

/**
 * srdma_queue_slots() - slots of a ring that holds at least @num_entries
 * @num_entries: entries asked for
 *
 * Return: a power of two greater than @num_entries (one slot stays empty).
 */
VISIBLE_IF_KUNIT u32 srdma_queue_slots(u32 num_entries)
{
	return roundup_pow_of_two(num_entries + 1);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_queue_slots);

/**
 * srdma_queue_init() - allocate a ring
 * @q: the ring
 * @ib_dev: the device
 * @udata: set for a ring a process will mmap
 * @role: whether the kernel produces or consumes its entries
 * @num_entries: entries it must hold, below 2^31
 * @entry_bytes: size of an entry; slots are the next power of two
 * @mi: for a user ring, filled with the offset and size to mmap
 *
 * Return: 0 or -ENOMEM.
 */
int srdma_queue_init(struct srdma_queue *q, struct ib_device *ib_dev,
		     struct ib_udata *udata, enum srdma_queue_role role,
		     u32 num_entries, size_t entry_bytes, struct mminfo *mi)
{
	struct srdma_ucontext *uc;
	size_t bytes;
	u32 slots;
	int err;

	memset(q, 0, sizeof(*q));
	slots = srdma_queue_slots(num_entries);
	q->role = role;
	q->index_mask = slots - 1;
	q->log2_slot_bytes = order_base_2(entry_bytes);
	bytes = PAGE_ALIGN(sizeof(*q->buf) + ((size_t)slots << q->log2_slot_bytes));

	q->buf = vmalloc_user(bytes);
	if (!q->buf)
		return -ENOMEM;
	q->buf->log2_elem_size = q->log2_slot_bytes;
	q->buf->index_mask = q->index_mask;
	if (!udata)
		return 0;

	q->mmap = kzalloc(sizeof(*q->mmap), GFP_KERNEL);
	if (!q->mmap) {
		err = -ENOMEM;
		goto err_buf;
	}
	q->mmap->buf = q->buf;
	uc = rdma_udata_to_drv_context(udata, struct srdma_ucontext, ibuc);
	err = rdma_user_mmap_entry_insert(&uc->ibuc, &q->mmap->rdma, bytes);
	if (err)
		goto err_mmap;
	mi->offset = rdma_user_mmap_get_offset(&q->mmap->rdma);
	mi->size = bytes;
	return 0;

err_mmap:
	kfree(q->mmap);
	q->mmap = NULL;
err_buf:
	vfree(q->buf);
	q->buf = NULL;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_queue_init);

/**
 * srdma_queue_free() - release a ring
 * @q: the ring
 *
 * A user ring goes when its last mapping does: srdma_mmap_free() frees it.
 */
void srdma_queue_free(struct srdma_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->buf = NULL;
	q->mmap = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_queue_free);

/**
 * srdma_queue_reset() - empty a ring
 * @q: the ring; its owner's lock is held
 */
void srdma_queue_reset(struct srdma_queue *q)
{
	q->index = 0;
	WRITE_ONCE(q->buf->producer_index, 0);
	WRITE_ONCE(q->buf->consumer_index, 0);
}

/**
 * srdma_queue_copy() - move the entries of a ring into a new, empty one
 * @dst: the new ring, same role, slots at least as large
 * @src: the old ring; both owners' locks are held
 *
 * Return: 0, or -EINVAL if the entries do not fit in @dst.
 */
int srdma_queue_copy(struct srdma_queue *dst, struct srdma_queue *src)
{
	u32 count = srdma_queue_count(src);
	u32 index = srdma_queue_consumer(src);
	u32 i;

	if (count > srdma_queue_capacity(dst) ||
	    dst->log2_slot_bytes < src->log2_slot_bytes)
		return -EINVAL;
	for (i = 0; i < count; i++)
		memcpy(srdma_queue_slot(dst, i), srdma_queue_slot(src, index + i),
		       1 << src->log2_slot_bytes);
	if (dst->role == SRDMA_QUEUE_KERNEL_PRODUCES)
		dst->index = count;
	/* release: the copied entries before the index that covers them */
	smp_store_release(&dst->buf->producer_index, count);
	return 0;
}

/**
 * srdma_mmap() - map a ring into a process
 * @ibuc: the process's context
 * @vma: the mapping; its offset names the ring and its size must match
 *
 * Return: 0 or a negative errno.
 */
int srdma_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct srdma_mmap_entry *entry;
	int err;

	rdma = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma)
		return -EINVAL;
	entry = container_of(rdma, struct srdma_mmap_entry, rdma);
	/* the mapping holds the pages: they outlive a vfree() of the ring */
	err = remap_vmalloc_range(vma, entry->buf, 0);
	rdma_user_mmap_entry_put(rdma);
	return err;
}

/**
 * srdma_mmap_free() - free a user ring once nothing refers to it
 * @rdma: its mmap entry
 */
void srdma_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct srdma_mmap_entry *entry =
		container_of(rdma, struct srdma_mmap_entry, rdma);

	vfree(entry->buf);
	kfree(entry);
}
