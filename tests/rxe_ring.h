/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The rings librxe maps from the uverbs device file (struct rxe_queue_buf:
 * a header with the element size and index mask, the producer and consumer
 * indices on cache lines of their own, then the elements), found in
 * /proc/self/maps, for the tests that write them behind librxe's back.
 */
#ifndef SRDMA_TESTS_RXE_RING_H
#define SRDMA_TESTS_RXE_RING_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

static_assert(offsetof(struct rxe_queue_buf, producer_index) == 128,
	      "producer index on the second cache line");
static_assert(offsetof(struct rxe_queue_buf, consumer_index) == 256,
	      "consumer index on the third cache line");
static_assert(offsetof(struct rxe_queue_buf, data) == 384,
	      "elements after the indices");

#define MAX_MAPS	64

struct mapping {
	unsigned long start, end, pgoff;
};

struct maps {
	unsigned int n;
	struct mapping m[MAX_MAPS];
};

/* read_maps() - the mappings of uverbs device files in this process */
void read_maps(struct maps *maps);

/*
 * RDMA FLUSH as the user ABI of 6.2 has it and rdma-core 44's headers do
 * not: IB_UVERBS_WR_FLUSH, IB_UVERBS_WC_FLUSH,
 * IB_UVERBS_DEVICE_FLUSH_GLOBAL, IB_UVERBS_ACCESS_FLUSH_GLOBAL, enum
 * ib_uverbs_flush_{type,level}
 */
#define WR_FLUSH		14
#define WC_FLUSH		8
#define DEVICE_FLUSH_GLOBAL	0x4000000000ULL		/* bit 38 */
#define ACCESS_FLUSH_GLOBAL	0x100			/* bit 8 */
#define FLUSH_GLOBAL		1
#define FLUSH_PERSISTENT	2
#define FLUSH_RANGE		0
#define FLUSH_MR		1

/*
 * rxe_wr_flush() - ibv_wr_flush() of rdma-core 47 for librxe 44, which has
 * none: between ibv_wr_start() and ibv_wr_complete(), a FLUSH of @len bytes
 * at @addr by @rkey. librxe writes an ATOMIC_WRITE into its send ring, made
 * a FLUSH as librxe 47 writes one before ibv_wr_complete() publishes it.
 * The QP needs IBV_QP_EX_WITH_ATOMIC_WRITE in its send_ops_flags.
 *
 * Return: 0, or ENOENT if the WQE is not found in a ring of this process.
 */
int rxe_wr_flush(struct ibv_qp_ex *qpx, unsigned int rkey,
		 unsigned long long addr, unsigned int len, unsigned int type,
		 unsigned int level);

#endif /* SRDMA_TESTS_RXE_RING_H */
