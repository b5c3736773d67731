/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Rings in the rxe layout (struct rxe_queue_buf), shared with librxe.
 *
 * A ring has one producer and one consumer, and the kernel is always one of
 * them: the producer of a CQ, the consumer of a send, receive or shared
 * receive queue. The kernel keeps its own index privately and publishes it;
 * it reads the other side's index from the ring, masked, and never reads
 * the ring's geometry back. Whatever a process writes into its ring can
 * therefore only hand the kernel garbage WQEs, which are copied out before
 * they are used, never an index or a size outside the ring.
 *
 * One slot always stays empty: a ring of 2^n slots holds 2^n - 1 entries,
 * and indices run from 0 to 2^n - 1, as librxe expects.
 */
#ifndef SRDMA_QUEUE_H
#define SRDMA_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

enum srdma_queue_role {
	SRDMA_QUEUE_KERNEL_PRODUCES,	/* CQ */
	SRDMA_QUEUE_KERNEL_CONSUMES,	/* SQ, RQ, SRQ */
};

/**
 * struct srdma_mmap_entry - a ring that a process may mmap
 * @rdma: the entry in the user context's mmap table
 * @buf: the ring; freed with the entry, after the last mmap is done with it
 */
struct srdma_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	struct rxe_queue_buf *buf;
};

/**
 * struct srdma_queue - one ring
 * @buf: the ring: header with the indices, then the slots
 * @mmap: the mmap entry of a user ring, NULL for a kernel ring
 * @role: whether the kernel produces or consumes
 * @index_mask: number of slots - 1
 * @log2_slot_bytes: slot size
 * @index: the kernel's own index (producer or consumer), the trusted copy
 */
struct srdma_queue {
	struct rxe_queue_buf *buf;
	struct srdma_mmap_entry *mmap;
	enum srdma_queue_role role;
	u32 index_mask;
	u32 log2_slot_bytes;
	u32 index;
};

int srdma_queue_init(struct srdma_queue *q, struct ib_device *ib_dev,
		     struct ib_udata *udata, enum srdma_queue_role role,
		     u32 num_entries, size_t entry_bytes, struct mminfo *mi);
void srdma_queue_free(struct srdma_queue *q);
void srdma_queue_reset(struct srdma_queue *q);
int srdma_queue_copy(struct srdma_queue *dst, struct srdma_queue *src);
int srdma_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void srdma_mmap_free(struct rdma_user_mmap_entry *rdma);
#if IS_ENABLED(CONFIG_KUNIT)
u32 srdma_queue_slots(u32 num_entries);
#endif

/* entries the ring can hold */
static inline u32 srdma_queue_capacity(const struct srdma_queue *q)
{
	return q->index_mask;
}

static inline u32 srdma_queue_producer(const struct srdma_queue *q)
{
	if (q->role == SRDMA_QUEUE_KERNEL_PRODUCES)
		return q->index;
	/* acquire: the entries are read after the index that covers them */
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}

static inline u32 srdma_queue_consumer(const struct srdma_queue *q)
{
	if (q->role == SRDMA_QUEUE_KERNEL_CONSUMES)
		return q->index;
	/* acquire: slots are reused only after the consumer is done */
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

/* entries between the consumer and the producer */
static inline u32 srdma_queue_count(const struct srdma_queue *q)
{
	return (srdma_queue_producer(q) - srdma_queue_consumer(q)) &
	       q->index_mask;
}

static inline bool srdma_queue_empty(const struct srdma_queue *q)
{
	return srdma_queue_count(q) == 0;
}

static inline bool srdma_queue_full(const struct srdma_queue *q)
{
	return srdma_queue_count(q) == q->index_mask;
}

static inline void *srdma_queue_slot(const struct srdma_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) <<
			       q->log2_slot_bytes);
}

static inline void *srdma_queue_producer_slot(const struct srdma_queue *q)
{
	return srdma_queue_slot(q, srdma_queue_producer(q));
}

static inline void *srdma_queue_consumer_slot(const struct srdma_queue *q)
{
	return srdma_queue_slot(q, srdma_queue_consumer(q));
}

/* publish one more entry: a CQ's, or a kernel consumer's WQE */
static inline void srdma_queue_advance_producer(struct srdma_queue *q)
{
	u32 next = (srdma_queue_producer(q) + 1) & q->index_mask;

	if (q->role == SRDMA_QUEUE_KERNEL_PRODUCES)
		q->index = next;
	/* release: the entry's bytes before the index that covers them */
	smp_store_release(&q->buf->producer_index, next);
}

static inline void srdma_queue_advance_consumer(struct srdma_queue *q)
{
	u32 next = (srdma_queue_consumer(q) + 1) & q->index_mask;

	if (q->role == SRDMA_QUEUE_KERNEL_CONSUMES)
		q->index = next;
	/* release: done reading the entry before its slot is given back */
	smp_store_release(&q->buf->consumer_index, next);
}

/* a queue the kernel consumes gives every entry back unread */
static inline void srdma_queue_consume_all(struct srdma_queue *q)
{
	u32 producer = srdma_queue_producer(q);

	q->index = producer;
	/* release: as srdma_queue_advance_consumer() */
	smp_store_release(&q->buf->consumer_index, producer);
}

#endif /* SRDMA_QUEUE_H */
