// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Packets that came before their turn, held in PSN order.
 *
 * RC is go-back-N: a packet past the expected PSN would be dropped, and
 * the gap NAKed (responder) or asked again (requester, for read
 * responses), which sends the whole window again. On a path that reorders
 * (ECMP, netem, a busy veth) the packet in the gap is usually only late.
 * Both engines therefore hold the packets that overtook it, up to the
 * requester's window, and take them when their turn comes; only once
 * SRDMA_REORDER_NAK_PKTS are held, or one cannot be, is the gap a loss
 * (TCP's duplicate ACK threshold works the same way). On the wire nothing
 * changes: a held packet looks like one the network delivered later.
 *
 * The engine of the QP owns its lists: no lock.
 */
#include <kunit/visibility.h>
#include <srdma/psn.h>

#include "srdma_engine.h"

/**
 * srdma_reorder_hold() - hold a packet that came before its turn
 * @ahead: the held packets, in PSN order
 * @skb: the packet; held with a reference of its own
 * @expected: the PSN whose turn it is
 *
 * A copy of a packet held already is not held again, and counts as held.
 *
 * Return: SRDMA_REORDER_WAIT if it waits for its turn; SRDMA_REORDER_GAP
 * if it is held but SRDMA_REORDER_NAK_PKTS are now held behind the gap;
 * SRDMA_REORDER_DROP if it cannot be held (too far ahead, list full).
 */
enum srdma_reorder_verdict srdma_reorder_hold(struct sk_buff_head *ahead,
					      struct sk_buff *skb,
					      u32 expected)
{
	u32 psn = srdma_pkt(skb)->psn;
	struct sk_buff *pos;
	s32 d;

	if (srdma_psn_diff(psn, expected) >= SRDMA_MAX_INFLIGHT_PSNS ||
	    skb_queue_len(ahead) >= SRDMA_MAX_INFLIGHT_PSNS)
		return SRDMA_REORDER_DROP;
	skb_queue_walk(ahead, pos) {
		d = srdma_psn_diff(srdma_pkt(pos)->psn, psn);
		if (!d)
			goto held;
		if (d > 0) {
			__skb_queue_before(ahead, pos, skb_get(skb));
			goto held;
		}
	}
	__skb_queue_tail(ahead, skb_get(skb));
held:
	return skb_queue_len(ahead) < SRDMA_REORDER_NAK_PKTS ?
	       SRDMA_REORDER_WAIT : SRDMA_REORDER_GAP;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_reorder_hold);

/**
 * srdma_reorder_next() - the held packet whose turn it is
 * @ahead: the held packets, in PSN order
 * @expected: the PSN whose turn it is
 *
 * Packets left behind (their PSN was taken by a retransmission, or inside
 * a read) are dropped.
 *
 * Return: the packet, unlinked, or NULL.
 */
struct sk_buff *srdma_reorder_next(struct sk_buff_head *ahead, u32 expected)
{
	struct sk_buff *skb;
	s32 d;

	while ((skb = skb_peek(ahead))) {
		d = srdma_psn_diff(srdma_pkt(skb)->psn, expected);
		if (d > 0)
			return NULL;
		__skb_unlink(skb, ahead);
		if (!d)
			return skb;
		kfree_skb(skb);
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_reorder_next);

/**
 * srdma_reorder_dequeue() - the packet an engine takes next: a held one
 * whose turn it is, else the oldest received
 * @qp: the QP
 * @ahead: its held packets
 * @expected: the PSN whose turn it is
 * @queue: its received packets
 *
 * Return: the packet, or NULL if there is none.
 */
struct sk_buff *srdma_reorder_dequeue(struct srdma_qp *qp,
				      struct sk_buff_head *ahead, u32 expected,
				      struct sk_buff_head *queue)
{
	struct sk_buff *skb = srdma_reorder_next(ahead, expected);

	if (!skb)
		/* an engine pass that finds nothing takes no lock */
		return skb_queue_empty_lockless(queue) ? NULL :
			skb_dequeue(queue);
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_REORDERED);
	return skb;
}
