// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: rate limiting (srdma_rate.c, srdma_sched.c): token arithmetic from
 * 1 kbit/s to 100 Gbit/s and beyond, bursts and their bounds, the
 * static_rate mapping, which source wins, and the port's round-robin on
 * two QPs that are only what the scheduler looks at.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/bottom_half.h>

#include "srdma_engine.h"

#define KBPS_1G		(1000ULL * 1000)
#define KBPS_100G	(100 * KBPS_1G)

static void rate_cost(struct kunit *test)
{
	/* 8 Mbit/s is one byte per microsecond */
	KUNIT_EXPECT_EQ(test, srdma_rate_cost_ns(1000, 8000), 1000000ULL);
	/* 1 kbit/s: 125 bytes a second */
	KUNIT_EXPECT_EQ(test, srdma_rate_cost_ns(125, 1), NSEC_PER_SEC);
	/* 100 Gbit/s: a 1500-byte frame in 120 ns */
	KUNIT_EXPECT_EQ(test, srdma_rate_cost_ns(1500, KBPS_100G), 120ULL);
	/* rounded to the nearest: 8e6 / 3 = 2666666.67 */
	KUNIT_EXPECT_EQ(test, srdma_rate_cost_ns(1, 3), 2666667ULL);
	KUNIT_EXPECT_EQ(test, srdma_rate_cost_ns(1, 6), 1333333ULL);
	/* no overflow at the extremes: 4 GiB at 1 kbit/s, 1 byte at 1 Tbit/s */
	KUNIT_EXPECT_EQ(test, srdma_rate_cost_ns(U32_MAX, 1),
			(u64)U32_MAX * 8 * USEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, srdma_rate_cost_ns(1, 1000 * KBPS_1G), 0ULL);
}

static void rate_default_burst(struct kunit *test)
{
	/* 4 ms at the rate, at least 64 KiB, at most 64 MiB */
	KUNIT_EXPECT_EQ(test, srdma_rate_default_burst(1), SRDMA_MIN_BURST_BYTES);
	KUNIT_EXPECT_EQ(test, srdma_rate_default_burst(10 * KBPS_1G), 5000000U);
	KUNIT_EXPECT_EQ(test, srdma_rate_default_burst(KBPS_100G), 50000000U);
	KUNIT_EXPECT_EQ(test, srdma_rate_default_burst(U64_MAX / 2000),
			SRDMA_MAX_BURST_BYTES);
}

static void tbf_debt_and_refill(struct kunit *test)
{
	struct srdma_tbf tbf = {};

	/* 1 byte/us, a burst of 1000 bytes: 1 ms of tokens, full at first */
	srdma_tbf_set(&tbf, 8000, 1000, 0);
	KUNIT_EXPECT_EQ(test, tbf.depth_ns, 1000000LL);
	KUNIT_EXPECT_EQ(test, srdma_tbf_wait_ns(&tbf, 0), 0ULL);
	/* a frame larger than the burst still goes, and leaves a debt */
	srdma_tbf_charge(&tbf, 1500);
	KUNIT_EXPECT_EQ(test, srdma_tbf_wait_ns(&tbf, 0), 500000ULL);
	KUNIT_EXPECT_EQ(test, srdma_tbf_wait_ns(&tbf, 250000), 250000ULL);
	KUNIT_EXPECT_EQ(test, srdma_tbf_wait_ns(&tbf, 500000), 0ULL);
	/* idle for a long time: the tokens stop at the depth */
	KUNIT_EXPECT_EQ(test, srdma_tbf_wait_ns(&tbf, 100ULL * NSEC_PER_SEC *
						  3600 * 24 * 365), 0ULL);
	KUNIT_EXPECT_EQ(test, tbf.tokens_ns, tbf.depth_ns);
	/* unlimited: never waits, charges nothing */
	srdma_tbf_set(&tbf, 0, 0, 0);
	srdma_tbf_charge(&tbf, 1 << 30);
	KUNIT_EXPECT_EQ(test, srdma_tbf_wait_ns(&tbf, 0), 0ULL);
}

/* bytes a bucket lets through in @ns of frames of @frame bytes, from full */
static u64 tbf_run(struct srdma_tbf *tbf, u64 *t, u64 ns, u32 frame)
{
	u64 end = *t + ns, sent = 0, wait;

	while (*t < end) {
		wait = srdma_tbf_wait_ns(tbf, *t);
		if (wait) {
			*t += wait;
			continue;
		}
		srdma_tbf_charge(tbf, frame);
		sent += frame;
	}
	return sent;
}

static void tbf_long_run_rate(struct kunit *test)
{
	static const u64 rates[] = { 1, 10 * 1000, 10 * 1000 * 1000, KBPS_100G };
	struct srdma_tbf tbf;
	u64 t, sent, want;
	int i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		memset(&tbf, 0, sizeof(tbf));
		t = 0;
		srdma_tbf_set(&tbf, rates[i], 0, t);
		/* 10 s at 1 kbit/s (1250 bytes), 10 ms at the others */
		sent = tbf_run(&tbf, &t, i ? 10 * NSEC_PER_MSEC : 10 * NSEC_PER_SEC,
			       i ? 4154 : 100);
		want = i ? rates[i] * 10 / 8 : 1250;
		/* the rate, plus the burst, within one frame */
		want += srdma_rate_default_burst(rates[i]);
		KUNIT_EXPECT_LE_MSG(test, sent, want + (i ? 4154 : 100),
				    "%llu kbit/s", rates[i]);
		KUNIT_EXPECT_GE_MSG(test, sent, want - (i ? 4154 : 100),
				    "%llu kbit/s", rates[i]);
	}
}

static void tbf_rate_change(struct kunit *test)
{
	struct srdma_tbf tbf = {};
	u64 t = 0, sent;

	srdma_tbf_set(&tbf, 8000, 1000, t);	/* 1 MB/s */
	tbf_run(&tbf, &t, 10 * NSEC_PER_MSEC, 1000);
	/* double it: a debt of bytes stays the same bytes */
	srdma_tbf_set(&tbf, 16000, 1000, t);
	sent = tbf_run(&tbf, &t, 100 * NSEC_PER_MSEC, 1000);
	KUNIT_EXPECT_GE(test, sent, 199000ULL);
	KUNIT_EXPECT_LE(test, sent, 202000ULL);
	/* the burst shrinks: the tokens follow at once */
	srdma_tbf_wait_ns(&tbf, t + NSEC_PER_SEC);
	srdma_tbf_set(&tbf, 16000, 100, t + NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, tbf.tokens_ns, tbf.depth_ns);
	KUNIT_EXPECT_EQ(test, tbf.depth_ns, 50000LL);
}

static void rate_static_rate(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, srdma_static_rate_kbps(IB_RATE_PORT_CURRENT), 0ULL);
	KUNIT_EXPECT_EQ(test, srdma_static_rate_kbps(IB_RATE_2_5_GBPS), 2500000ULL);
	KUNIT_EXPECT_EQ(test, srdma_static_rate_kbps(IB_RATE_10_GBPS), 10000000ULL);
	KUNIT_EXPECT_EQ(test, srdma_static_rate_kbps(IB_RATE_14_GBPS), 14062000ULL);
	/* ib_rate_to_mbps() says 637500 for 600 Gb/s (its signalling rate) */
	KUNIT_EXPECT_EQ(test, srdma_static_rate_kbps(IB_RATE_600_GBPS), 637500000ULL);
	KUNIT_EXPECT_EQ(test, srdma_static_rate_kbps(IB_RATE_5_GBPS), 5000000ULL);
	/* not an enum ib_rate: no limit (the AV check refuses it first) */
	KUNIT_EXPECT_EQ(test, srdma_static_rate_kbps(200), 0ULL);
}

struct resolve_case {
	struct srdma_rate_cfg cfg;
	u64 dflt, ceiling, want;
	enum srdma_rate_source source;
};

static void rate_resolve(struct kunit *test)
{
	static const struct resolve_case cases[] = {
		{ {}, 0, 0, 0, SRDMA_RATE_NONE },
		{ { .admin_kbps = 5, .verbs_kbps = 6, .av_kbps = 7 }, 8, 0, 5,
		  SRDMA_RATE_ADMIN },
		{ { .verbs_kbps = 6, .av_kbps = 7 }, 8, 0, 6, SRDMA_RATE_VERBS },
		{ { .av_kbps = 7 }, 8, 0, 7, SRDMA_RATE_AV },
		{ {}, 8, 0, 8, SRDMA_RATE_DEFAULT },
		/* a static_rate of the port's speed limits nothing */
		{ { .av_kbps = 10 * KBPS_1G }, 0, 0, 0, SRDMA_RATE_NONE },
		{ { .av_kbps = 10 * KBPS_1G }, 8, 0, 8, SRDMA_RATE_DEFAULT },
		/* the ceiling caps any source and limits QPs without one */
		{ { .admin_kbps = 50 }, 0, 20, 20, SRDMA_RATE_CEILING },
		{ { .admin_kbps = 10 }, 0, 20, 10, SRDMA_RATE_ADMIN },
		{ {}, 0, 20, 20, SRDMA_RATE_CEILING },
	};
	u64 kbps;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_EXPECT_EQ_MSG(test, srdma_rate_resolve(&cases[i].cfg,
							     cases[i].dflt,
							     cases[i].ceiling,
							     10 * KBPS_1G, &kbps),
				    cases[i].source, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, kbps, cases[i].want, "case %d", i);
	}
}

/* a device and QPs with only what the scheduler looks at */
struct sched_fixture {
	struct srdma_dev *sdev;
	struct srdma_qp *qp[2];
};

static int sched_init(struct kunit *test)
{
	struct sched_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->sdev = kunit_kzalloc(test, sizeof(*f->sdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->sdev);
	f->sdev->counters = alloc_percpu(struct srdma_counters);
	/* sparse: a __percpu pointer is not compared with NULL */
	KUNIT_ASSERT_TRUE(test, !!f->sdev->counters);
	srdma_port_rate_init(f->sdev);
	for (i = 0; i < 2; i++) {
		f->qp[i] = kunit_kzalloc(test, sizeof(*f->qp[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f->qp[i]);
		f->qp[i]->ibqp.device = &f->sdev->ib_dev;
		f->qp[i]->mtu_bytes = 4096;
		srdma_task_setup(f->qp[i]);
		/* a kick only sets MORE: no engine runs on these */
		set_bit(SRDMA_TASK_PAUSED,
			&f->qp[i]->task[SRDMA_HALF_SEND].flags);
		set_bit(SRDMA_TASK_PAUSED,
			&f->qp[i]->task[SRDMA_HALF_RECV].flags);
		srdma_qp_rate_init(f->qp[i]);
	}
	test->priv = f;
	return 0;
}

static void sched_exit(struct kunit *test)
{
	struct sched_fixture *f = test->priv;
	int i;

	for (i = 0; i < 2; i++) {
		hrtimer_cancel(&f->qp[i]->rate.timer);
		srdma_sched_leave(f->qp[i]);
		srdma_qp_rate_fini(f->qp[i]);
	}
	free_percpu(f->sdev->counters);
}

/* may_send as the engine calls it, and the frame it then sends */
static enum srdma_send sched_send(struct srdma_qp *qp, u32 bytes)
{
	enum srdma_send send;

	local_bh_disable();
	send = srdma_sched_may_send(qp, SRDMA_HALF_SEND);
	local_bh_enable();
	if (send != SRDMA_SEND_WAIT) {
		srdma_tbf_charge(&qp->rate.tbf, bytes);
		qp->rate.uncharged += bytes;
	}
	return send;
}

static bool sched_kicked(struct srdma_qp *qp)
{
	return test_and_clear_bit(SRDMA_TASK_MORE,
				  &qp->task[SRDMA_HALF_SEND].flags);
}

/* no rate on the port or its QPs: no rounds, and nobody waits */
static void sched_unshaped(struct kunit *test)
{
	struct sched_fixture *f = test->priv;
	struct srdma_qp *a = f->qp[0], *b = f->qp[1];
	int n, quantum = SRDMA_DRR_QUANTUM_BYTES / 4096;

	for (n = 0; n < 3 * quantum; n++) {
		KUNIT_ASSERT_EQ(test, sched_send(a, 4096), SRDMA_SEND_OK);
		KUNIT_ASSERT_EQ(test, sched_send(b, 4096), SRDMA_SEND_OK);
	}
	KUNIT_EXPECT_FALSE(test, a->rate.in_round);
	KUNIT_EXPECT_FALSE(test, b->rate.in_round);
	KUNIT_EXPECT_EQ(test, f->sdev->rate.nr_active, 0U);
	KUNIT_EXPECT_EQ(test, srdma_counter_read(f->sdev, SRDMA_CNT_RR_WAITS),
			0LL);

	/* a rate on one QP turns the round-robin on for every QP */
	srdma_qp_rate_set_admin(b, 1000000, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->sdev->rate.nr_rate_qps), 1);
	KUNIT_EXPECT_NE(test, sched_send(a, 4096), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_TRUE(test, a->rate.in_round);
	local_bh_disable();
	srdma_sched_idle(a, SRDMA_HALF_SEND);
	local_bh_enable();
	/* and off once no QP has one: the QP that goes is not counted */
	srdma_qp_rate_set_admin(a, 2000, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->sdev->rate.nr_rate_qps), 2);
	srdma_qp_rate_set_admin(b, 0, 0);
	srdma_qp_rate_fini(a);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->sdev->rate.nr_rate_qps), 0);
	KUNIT_EXPECT_EQ(test, sched_send(b, 4096), SRDMA_SEND_OK);
	KUNIT_EXPECT_FALSE(test, b->rate.in_round);
}

static void sched_round_robin(struct kunit *test)
{
	struct sched_fixture *f = test->priv;
	struct srdma_qp *a = f->qp[0], *b = f->qp[1];
	int n, quantum = SRDMA_DRR_QUANTUM_BYTES / 4096;

	/* another QP of the port has a rate: the round-robin is on */
	atomic_inc(&f->sdev->rate.nr_rate_qps);

	/* alone, a QP never waits for a round */
	for (n = 0; n < 3 * quantum; n++)
		KUNIT_ASSERT_NE(test, sched_send(a, 4096), SRDMA_SEND_WAIT);
	local_bh_disable();
	srdma_sched_idle(a, SRDMA_HALF_SEND);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, f->sdev->rate.nr_active, 0U);

	/* two: each sends its quantum, then waits for the other's */
	KUNIT_EXPECT_NE(test, sched_send(a, 4096), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_NE(test, sched_send(b, 4096), SRDMA_SEND_WAIT);
	for (n = 1; sched_send(a, 4096) != SRDMA_SEND_WAIT; n++)
		KUNIT_ASSERT_LT(test, n, 4 * quantum);
	KUNIT_EXPECT_EQ(test, n, quantum);
	/* waiting for the round, A is not let through by another kick */
	KUNIT_EXPECT_EQ(test, sched_send(a, 4096), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_FALSE(test, sched_kicked(a));
	for (n = 1; n < quantum; n++)
		KUNIT_ASSERT_NE(test, sched_send(b, 4096), SRDMA_SEND_WAIT);
	/* B used its quantum too: the next round starts and A is kicked */
	KUNIT_EXPECT_FALSE(test, sched_kicked(a));
	KUNIT_EXPECT_NE(test, sched_send(b, 4096), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_TRUE(test, sched_kicked(a));
	KUNIT_EXPECT_NE(test, sched_send(a, 4096), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_EQ(test, f->sdev->rate.nr_active, 2U);
	KUNIT_EXPECT_EQ(test, srdma_counter_read(f->sdev, SRDMA_CNT_RR_WAITS),
			1LL);

	/* B has nothing more: A goes on alone */
	local_bh_disable();
	srdma_sched_idle(b, SRDMA_HALF_SEND);
	local_bh_enable();
	for (n = 0; n < 3 * quantum; n++)
		KUNIT_ASSERT_NE(test, sched_send(a, 4096), SRDMA_SEND_WAIT);
	atomic_dec(&f->sdev->rate.nr_rate_qps);
}

/*
 * Both halves of a QP's engine send (a requester's data, a responder's read
 * responses): the QP stays in its round while either does
 */
static void sched_halves_share_round(struct kunit *test)
{
	struct sched_fixture *f = test->priv;
	struct srdma_qp *a = f->qp[0];

	/* another QP of the port has a rate: the round-robin is on */
	atomic_inc(&f->sdev->rate.nr_rate_qps);
	local_bh_disable();
	KUNIT_EXPECT_NE(test, srdma_sched_may_send(a, SRDMA_HALF_SEND),
			SRDMA_SEND_WAIT);
	KUNIT_EXPECT_NE(test, srdma_sched_may_send(a, SRDMA_HALF_RECV),
			SRDMA_SEND_WAIT);
	KUNIT_EXPECT_TRUE(test, a->rate.in_round);
	/* the responder ran dry: the requester still sends in this round */
	srdma_sched_idle(a, SRDMA_HALF_RECV);
	KUNIT_EXPECT_TRUE(test, a->rate.in_round);
	KUNIT_EXPECT_EQ(test, f->sdev->rate.nr_active, 1U);
	srdma_sched_idle(a, SRDMA_HALF_SEND);
	local_bh_enable();
	KUNIT_EXPECT_FALSE(test, a->rate.in_round);
	KUNIT_EXPECT_EQ(test, f->sdev->rate.nr_active, 0U);
	atomic_dec(&f->sdev->rate.nr_rate_qps);
}

static void sched_token_wait(struct kunit *test)
{
	struct sched_fixture *f = test->priv;
	struct srdma_qp *a = f->qp[0], *b = f->qp[1];
	struct srdma_qp_rate *r = &a->rate;
	u64 t0 = ktime_get_ns(), expires;

	/* 1 Mbit/s, 16 KiB of burst: 24 KiB go (a debt of one frame), then a wait */
	srdma_qp_rate_set_admin(a, 1000, 16384);
	KUNIT_EXPECT_TRUE(test, sched_kicked(a));
	KUNIT_EXPECT_NE(test, sched_send(a, 8192), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_EQ(test, r->source, (u8)SRDMA_RATE_ADMIN);
	KUNIT_EXPECT_EQ(test, r->tbf.kbps, 1000ULL);
	KUNIT_EXPECT_NE(test, sched_send(a, 8192), SRDMA_SEND_WAIT);
	/* the last frame before the wait is told so: it asks for an ACK */
	KUNIT_EXPECT_EQ(test, sched_send(a, 8192), SRDMA_SEND_LAST);
	KUNIT_EXPECT_EQ(test, sched_send(a, 8192), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_TRUE(test, hrtimer_is_queued(&r->timer));
	KUNIT_EXPECT_EQ(test, r->throttle_events, 1ULL);
	/*
	 * the timer is set for when the debt is paid and half the burst is
	 * back: 8192 + 8192 B at 1 Mbit/s from when the bucket was filled (the
	 * first send), whatever time the test took since
	 */
	expires = ktime_to_ns(hrtimer_get_expires(&r->timer));
	KUNIT_EXPECT_GE(test, expires, t0 + 131072000ULL);
	KUNIT_EXPECT_LE(test, expires, ktime_get_ns() + 131072000ULL);
	/* a throttled QP leaves the round: B is never held up by it */
	KUNIT_EXPECT_EQ(test, f->sdev->rate.nr_active, 0U);
	KUNIT_EXPECT_NE(test, sched_send(b, 4096), SRDMA_SEND_WAIT);
	/* an administrator lifts the limit: A goes at once */
	srdma_qp_rate_set_admin(a, 0, 0);
	KUNIT_EXPECT_NE(test, sched_send(a, 8192), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_EQ(test, r->source, (u8)SRDMA_RATE_NONE);
	/* the port's ceiling reaches QPs that set nothing */
	spin_lock_bh(&f->sdev->rate.lock);
	f->sdev->rate.ceiling_kbps = 2000;
	f->sdev->rate.gen++;
	spin_unlock_bh(&f->sdev->rate.lock);
	KUNIT_EXPECT_NE(test, sched_send(b, 4096), SRDMA_SEND_WAIT);
	KUNIT_EXPECT_EQ(test, b->rate.source, (u8)SRDMA_RATE_CEILING);
	KUNIT_EXPECT_EQ(test, b->rate.tbf.kbps, 2000ULL);
	KUNIT_EXPECT_GT(test, r->throttled_ns, 0ULL);
}

static struct kunit_case rate_cases[] = {
	KUNIT_CASE(rate_cost),
	KUNIT_CASE(rate_default_burst),
	KUNIT_CASE(tbf_debt_and_refill),
	KUNIT_CASE(tbf_long_run_rate),
	KUNIT_CASE(tbf_rate_change),
	KUNIT_CASE(rate_static_rate),
	KUNIT_CASE(rate_resolve),
	{}
};

static struct kunit_suite rate_suite = {
	.name = "srdma_rate",
	.test_cases = rate_cases,
};

static struct kunit_case sched_cases[] = {
	KUNIT_CASE(sched_unshaped),
	KUNIT_CASE(sched_round_robin),
	KUNIT_CASE(sched_halves_share_round),
	KUNIT_CASE(sched_token_wait),
	{}
};

static struct kunit_suite sched_suite = {
	.name = "srdma_sched",
	.init = sched_init,
	.exit = sched_exit,
	.test_cases = sched_cases,
};

kunit_test_suites(&rate_suite, &sched_suite);
