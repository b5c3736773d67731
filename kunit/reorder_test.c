// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: packets held until their turn (srdma_reorder.c): PSN order across
 * the 24-bit wrap, copies held once, the window and the list bounds, and
 * the packets left behind dropped.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/skbuff.h>
#include <srdma/psn.h>

#include "srdma_engine.h"

static struct sk_buff *reorder_skb(struct kunit *test, u32 psn)
{
	struct sk_buff *skb = alloc_skb(0, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	srdma_pkt(skb)->psn = psn;
	return skb;
}

/* hold @psn; the caller's reference goes, as the engines' loops drop it */
static enum srdma_reorder_verdict reorder_hold(struct kunit *test,
					       struct sk_buff_head *ahead,
					       u32 psn, u32 expected)
{
	struct sk_buff *skb = reorder_skb(test, psn);
	enum srdma_reorder_verdict v = srdma_reorder_hold(ahead, skb, expected);

	kfree_skb(skb);
	return v;
}

/* the PSN of the packet whose turn it is at @expected, or -1 */
static s64 reorder_take(struct sk_buff_head *ahead, u32 expected)
{
	struct sk_buff *skb = srdma_reorder_next(ahead, expected);
	s64 psn;

	if (!skb)
		return -1;
	psn = srdma_pkt(skb)->psn;
	kfree_skb(skb);
	return psn;
}

static void reorder_in_psn_order(struct kunit *test)
{
	const u32 base = 0xfffffd;	/* the held PSNs cross the wrap */
	struct sk_buff_head ahead;

	__skb_queue_head_init(&ahead);
	KUNIT_EXPECT_EQ(test, reorder_hold(test, &ahead, 2, base),
			SRDMA_REORDER_WAIT);
	KUNIT_EXPECT_EQ(test, reorder_hold(test, &ahead, 0xffffff, base),
			SRDMA_REORDER_WAIT);
	/* the third held behind the gap makes it a loss; it is held all the same */
	KUNIT_EXPECT_EQ(test, reorder_hold(test, &ahead, 0, base),
			SRDMA_REORDER_GAP);
	KUNIT_EXPECT_EQ(test, reorder_hold(test, &ahead, 0, base),
			SRDMA_REORDER_GAP);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&ahead), 3U);
	/* nothing until the gap at base and base + 1 is filled */
	KUNIT_EXPECT_EQ(test, reorder_take(&ahead, base), -1LL);
	KUNIT_EXPECT_EQ(test, reorder_take(&ahead, 0xfffffe), -1LL);
	KUNIT_EXPECT_EQ(test, reorder_take(&ahead, 0xffffff), 0xffffffLL);
	KUNIT_EXPECT_EQ(test, reorder_take(&ahead, 0), 0LL);
	KUNIT_EXPECT_EQ(test, reorder_take(&ahead, 1), -1LL);
	KUNIT_EXPECT_EQ(test, reorder_take(&ahead, 2), 2LL);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&ahead));
}

static void reorder_left_behind(struct kunit *test)
{
	struct sk_buff_head ahead;

	__skb_queue_head_init(&ahead);
	reorder_hold(test, &ahead, 11, 10);
	reorder_hold(test, &ahead, 12, 10);
	reorder_hold(test, &ahead, 20, 10);
	/* a read took 10 to 15: 11 and 12 are stale, 20 waits */
	KUNIT_EXPECT_EQ(test, reorder_take(&ahead, 16), -1LL);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&ahead), 1U);
	KUNIT_EXPECT_EQ(test, reorder_take(&ahead, 20), 20LL);
}

static void reorder_bounds(struct kunit *test)
{
	struct sk_buff_head ahead;
	u32 i;

	__skb_queue_head_init(&ahead);
	/* beyond the requester's window: never held */
	KUNIT_EXPECT_EQ(test, reorder_hold(test, &ahead,
					   5 + SRDMA_MAX_INFLIGHT_PSNS, 5),
			SRDMA_REORDER_DROP);
	KUNIT_EXPECT_EQ(test, reorder_hold(test, &ahead,
					   4 + SRDMA_MAX_INFLIGHT_PSNS, 5),
			SRDMA_REORDER_WAIT);
	__skb_queue_purge(&ahead);
	for (i = 1; i < SRDMA_MAX_INFLIGHT_PSNS; i++)
		KUNIT_EXPECT_NE(test, reorder_hold(test, &ahead, i, 0),
				SRDMA_REORDER_DROP);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&ahead),
			(u32)SRDMA_MAX_INFLIGHT_PSNS - 1);
	__skb_queue_purge(&ahead);
}

static struct kunit_case reorder_cases[] = {
	KUNIT_CASE(reorder_in_psn_order),
	KUNIT_CASE(reorder_left_behind),
	KUNIT_CASE(reorder_bounds),
	{}
};

static struct kunit_suite reorder_suite = {
	.name = "srdma_reorder",
	.test_cases = reorder_cases,
};

kunit_test_suite(reorder_suite);
