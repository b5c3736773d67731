// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the RC congestion window (srdma_cwnd.c): slow start to the whole
 * window, kept until a loss, halved by a NAKed loss, one PSN after an ACK
 * timeout, slow start back to half, one PSN per window above it, never
 * past SRDMA_MAX_INFLIGHT_PSNS; the ACK requests that keep a small
 * window moving; and the round-trip estimate that stretches the ACK
 * timeout.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <srdma/psn.h>

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

/* @psn timed as if sent @ms milliseconds ago, then acknowledged */
static void rtt_sample(struct srdma_rtt *rtt, u32 psn, u64 ms)
{
	srdma_rtt_sending(rtt, psn);
	rtt->sent_ns -= ms * NSEC_PER_MSEC;
	srdma_rtt_acked(rtt, srdma_psn_add(psn, 1));
}

/* timeout 12 (16.8 ms) against round trips of 40 ms, then of 1 ms */
static void rtt_stretches_timeout(struct kunit *test)
{
	u64 qp_ns = srdma_ack_timeout_ns(12);
	struct srdma_rtt rtt = {};
	u32 i;

	/* nothing measured (a peer that never answered): the QP's */
	KUNIT_EXPECT_EQ(test, srdma_rtt_timeout_ns(&rtt, qp_ns), qp_ns);
	KUNIT_EXPECT_EQ(test, srdma_rtt_timeout_ns(&rtt, 0), 0ULL);
	rtt_sample(&rtt, 5, 40);
	KUNIT_EXPECT_GE(test, rtt.srtt_us, 40000U);
	KUNIT_EXPECT_EQ(test, srdma_rtt_timeout_ns(&rtt, qp_ns),
			qp_ns * SRDMA_ACK_TIMEOUT_STRETCH);
	/* timeout 0 stays none */
	KUNIT_EXPECT_EQ(test, srdma_rtt_timeout_ns(&rtt, 0), 0ULL);
	for (i = 0; i < 200; i++)
		rtt_sample(&rtt, i, 1);
	KUNIT_EXPECT_LT(test, rtt.srtt_us, 16800U);
	KUNIT_EXPECT_EQ(test, srdma_rtt_timeout_ns(&rtt, qp_ns), qp_ns);
}

/* one PSN timed at a time; sent again, timed from then; PSN 2^24 wraps */
static void rtt_one_psn_timed(struct kunit *test)
{
	struct srdma_rtt rtt = {};
	u64 first;

	srdma_rtt_sending(&rtt, SRDMA_PSN_MASK);
	first = rtt.sent_ns;
	KUNIT_EXPECT_NE(test, first, 0ULL);
	srdma_rtt_sending(&rtt, 0);
	KUNIT_EXPECT_EQ(test, rtt.psn, (u32)SRDMA_PSN_MASK);
	KUNIT_EXPECT_EQ(test, rtt.sent_ns, first);
	/* an ACK short of it measures nothing */
	srdma_rtt_acked(&rtt, SRDMA_PSN_MASK);
	KUNIT_EXPECT_EQ(test, rtt.srtt_us, 0U);
	/* sent again: timed from the last sending */
	rtt.sent_ns -= 500 * NSEC_PER_MSEC;
	srdma_rtt_sending(&rtt, SRDMA_PSN_MASK);
	srdma_rtt_acked(&rtt, 1);
	KUNIT_EXPECT_GT(test, rtt.srtt_us, 0U);
	KUNIT_EXPECT_LT(test, rtt.srtt_us, 500000U);
	KUNIT_EXPECT_EQ(test, rtt.sent_ns, 0ULL);
}

static struct kunit_case cwnd_cases[] = {
	KUNIT_CASE(cwnd_whole_until_loss),
	KUNIT_CASE(cwnd_nak_halves),
	KUNIT_CASE(cwnd_timeout_then_slow_start),
	KUNIT_CASE(cwnd_avoidance),
	KUNIT_CASE(rtt_stretches_timeout),
	KUNIT_CASE(rtt_one_psn_timed),
	{}
};

static struct kunit_suite cwnd_suite = {
	.name = "srdma_cwnd",
	.test_cases = cwnd_cases,
};

kunit_test_suite(cwnd_suite);
