/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Range checks of (address, length) pairs from WQEs, packets and keys, and
 * of ring indices a process writes.
 *
 * Every sum is made in u64 with check_add_overflow(): a region or an access
 * whose end passes or reaches 2^64 is never in range (srdma refuses to
 * register an MR that would end there, so nothing valid is lost).
 */
#ifndef SRDMA_RANGE_H
#define SRDMA_RANGE_H

#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/types.h>

/**
 * srdma_range_ok() - whether [@va, @va + @len) lies in [@start, @start + @length)
 * @start: first byte of the region (an MR's iova, a READ's address)
 * @length: bytes of the region
 * @va: first byte accessed
 * @len: bytes accessed; 0 is in range anywhere from @start to the end
 */
static inline bool srdma_range_ok(u64 start, u64 length, u64 va, u64 len)
{
	u64 end, va_end;

	if (check_add_overflow(start, length, &end) ||
	    check_add_overflow(va, len, &va_end))
		return false;
	return va >= start && va_end <= end;
}

/* bytes @placed + @len of a message fit in a receive buffer of @room */
static inline bool srdma_recv_fits(u64 placed, u64 len, u64 room)
{
	u64 end;

	return !check_add_overflow(placed, len, &end) && end <= room;
}

/**
 * srdma_sq_may_fetch() - whether the requester may go on to send queue
 * slot @index
 * @consumer: the kernel's consumer index: the oldest WQE not completed
 * @index: the requester's index, never behind @consumer
 * @posted: the producer index the requester may send up to; a process
 *          writes it, so it is masked but otherwise untrusted
 * @mask: the ring's index mask
 *
 * Distances from @consumer, not equality with @posted: a producer index
 * moved back, or forward by a whole ring, must not make the requester lap
 * @consumer and copy a new WQE over one still under way.
 */
static inline bool srdma_sq_may_fetch(u32 consumer, u32 index, u32 posted,
				      u32 mask)
{
	return ((index - consumer) & mask) < ((posted - consumer) & mask);
}

/**
 * srdma_swqe_window_room() - whether the requester may copy one more send
 * WQE: its copies of those under way, from @consumer up to @fetched, take
 * fewer entries than its window has
 * @consumer: the oldest WQE not completed
 * @fetched: the first WQE not copied yet, never behind @consumer
 * @mask: the ring's index mask
 * @window_mask: the window's entries less one (a power of two less one, at
 *               most @mask)
 *
 * Then the copy of index i, at i & @window_mask, never overwrites the copy
 * of a WQE still under way.
 */
static inline bool srdma_swqe_window_room(u32 consumer, u32 fetched, u32 mask,
					  u32 window_mask)
{
	return ((fetched - consumer) & mask) <= window_mask;
}

/* PSNs of a message of @length bytes at @mtu bytes a packet, at least one */
static inline u32 srdma_msg_npsn(u32 length, u32 mtu)
{
	return max_t(u64, 1, DIV_ROUND_UP_ULL((u64)length, mtu));
}

#endif /* SRDMA_RANGE_H */
