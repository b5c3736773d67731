// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the RC congestion window (srdma_cwnd.c): slow start to the whole
 * window, kept until a loss, halved by a NAKed loss, one PSN after an ACK
 * timeout, slow start back to half, one PSN per window above it, never
 * past SRDMA_MAX_INFLIGHT_PSNS; and the ACK requests that keep a small
 * window moving.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>

#include "srdma_engine.h"

/* a window grown whole, as after slow start on a clean path */
static void cwnd_whole(struct srdma_cwnd *cw)
{
	srdma_cwnd_open(cw);
	srdma_cwnd_acked(cw, SRDMA_MAX_INFLIGHT_PSNS);
}

static void cwnd_whole_until_loss(struct kunit *test)
{
	struct srdma_cwnd cw;

	srdma_cwnd_open(&cw);
	KUNIT_EXPECT_EQ(test, cw.size, (u32)SRDMA_CWND_INITIAL);
	/* slow start: one PSN more per PSN acknowledged */
	srdma_cwnd_acked(&cw, 3);
	KUNIT_EXPECT_EQ(test, cw.size, SRDMA_CWND_INITIAL + 3U);
	srdma_cwnd_acked(&cw, 1000);
	KUNIT_EXPECT_EQ(test, cw.size, (u32)SRDMA_MAX_INFLIGHT_PSNS);
	KUNIT_EXPECT_EQ(test, srdma_cwnd_ackreq_pkts(&cw),
			(u32)SRDMA_ACKREQ_EVERY_PKTS);
}

static void cwnd_nak_halves(struct kunit *test)
{
	struct srdma_cwnd cw;

	cwnd_whole(&cw);
	srdma_cwnd_lost(&cw, SRDMA_MAX_INFLIGHT_PSNS, false);
	KUNIT_EXPECT_EQ(test, cw.size, (u32)SRDMA_MAX_INFLIGHT_PSNS / 2);
	/* a QP that used 10 PSNs of its window halves those */
	srdma_cwnd_lost(&cw, 10, false);
	KUNIT_EXPECT_EQ(test, cw.size, 5U);
	/* never below two */
	srdma_cwnd_lost(&cw, 1, false);
	KUNIT_EXPECT_EQ(test, cw.size, 2U);
	KUNIT_EXPECT_EQ(test, cw.ssthresh, 2U);
}

static void cwnd_timeout_then_slow_start(struct kunit *test)
{
	struct srdma_cwnd cw;

	cwnd_whole(&cw);
	srdma_cwnd_lost(&cw, SRDMA_MAX_INFLIGHT_PSNS, true);
	KUNIT_EXPECT_EQ(test, cw.size, 1U);
	KUNIT_EXPECT_EQ(test, srdma_cwnd_ackreq_pkts(&cw), 1U);
	/* one PSN more per PSN acknowledged, up to half the old window */
	srdma_cwnd_acked(&cw, 1);
	KUNIT_EXPECT_EQ(test, cw.size, 2U);
	srdma_cwnd_acked(&cw, 2);
	KUNIT_EXPECT_EQ(test, cw.size, 4U);
	KUNIT_EXPECT_EQ(test, srdma_cwnd_ackreq_pkts(&cw), 2U);
	/* past ssthresh in one ACK: what is left counts towards avoidance */
	srdma_cwnd_acked(&cw, 40);
	KUNIT_EXPECT_EQ(test, cw.size, 32U);
	KUNIT_EXPECT_EQ(test, cw.acked, 12U);
}

static void cwnd_avoidance(struct kunit *test)
{
	struct srdma_cwnd cw;
	u32 i;

	cwnd_whole(&cw);
	srdma_cwnd_lost(&cw, 20, false);
	KUNIT_EXPECT_EQ(test, cw.size, 10U);
	/* one window acknowledged: one PSN more */
	srdma_cwnd_acked(&cw, 9);
	KUNIT_EXPECT_EQ(test, cw.size, 10U);
	srdma_cwnd_acked(&cw, 1);
	KUNIT_EXPECT_EQ(test, cw.size, 11U);
	/* a large ACK grows it by as many windows as it holds */
	srdma_cwnd_acked(&cw, 11 + 12 + 5);
	KUNIT_EXPECT_EQ(test, cw.size, 13U);
	KUNIT_EXPECT_EQ(test, cw.acked, 5U);
	/* and never past the requester's window */
	for (i = 0; i < 100; i++)
		srdma_cwnd_acked(&cw, SRDMA_MAX_INFLIGHT_PSNS);
	KUNIT_EXPECT_EQ(test, cw.size, (u32)SRDMA_MAX_INFLIGHT_PSNS);
	KUNIT_EXPECT_EQ(test, cw.acked, 0U);
}

static struct kunit_case cwnd_cases[] = {
	KUNIT_CASE(cwnd_whole_until_loss),
	KUNIT_CASE(cwnd_nak_halves),
	KUNIT_CASE(cwnd_timeout_then_slow_start),
	KUNIT_CASE(cwnd_avoidance),
	{}
};

static struct kunit_suite cwnd_suite = {
	.name = "srdma_cwnd",
	.test_cases = cwnd_cases,
};

kunit_test_suite(cwnd_suite);
