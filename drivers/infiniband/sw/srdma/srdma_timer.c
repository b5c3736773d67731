// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC timers: the ACK timeout (4.096 us x 2^timeout, 0 = none) and the
 * RNR NAK delay (IBTA table 45, by min_rnr_timer), both hrtimers, absolute,
 * pinned and soft, plus a short one that retries a transmit the netdev
 * refused. They only flag what expired and kick the engine, which does the
 * rest; destroy and RESET stop them with the engine paused, so no QP
 * reference is needed while they are armed.
 */
#include <kunit/visibility.h>

#include "srdma_engine.h"

#define SRDMA_ACK_TIMEOUT_UNIT_NS	4096ULL

/**
 * srdma_ack_timeout_ns() - the local ACK timeout of a QP
 * @timeout: the 5-bit timeout attribute
 *
 * Return: nanoseconds, or 0 for timeout 0: wait without end.
 */
u64 srdma_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	return SRDMA_ACK_TIMEOUT_UNIT_NS << min_t(u8, timeout,
						  SRDMA_QP_TIMEOUT_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_ack_timeout_ns);

/* IBTA table 45: the RNR NAK timer field, in microseconds x 100 */
static const u32 srdma_rnr_delay_cus[SRDMA_QP_TIMEOUT_MAX + 1] = {
	[IB_RNR_TIMER_655_36] = 65536,
	[IB_RNR_TIMER_000_01] = 1,
	[IB_RNR_TIMER_000_02] = 2,
	[IB_RNR_TIMER_000_03] = 3,
	[IB_RNR_TIMER_000_04] = 4,
	[IB_RNR_TIMER_000_06] = 6,
	[IB_RNR_TIMER_000_08] = 8,
	[IB_RNR_TIMER_000_12] = 12,
	[IB_RNR_TIMER_000_16] = 16,
	[IB_RNR_TIMER_000_24] = 24,
	[IB_RNR_TIMER_000_32] = 32,
	[IB_RNR_TIMER_000_48] = 48,
	[IB_RNR_TIMER_000_64] = 64,
	[IB_RNR_TIMER_000_96] = 96,
	[IB_RNR_TIMER_001_28] = 128,
	[IB_RNR_TIMER_001_92] = 192,
	[IB_RNR_TIMER_002_56] = 256,
	[IB_RNR_TIMER_003_84] = 384,
	[IB_RNR_TIMER_005_12] = 512,
	[IB_RNR_TIMER_007_68] = 768,
	[IB_RNR_TIMER_010_24] = 1024,
	[IB_RNR_TIMER_015_36] = 1536,
	[IB_RNR_TIMER_020_48] = 2048,
	[IB_RNR_TIMER_030_72] = 3072,
	[IB_RNR_TIMER_040_96] = 4096,
	[IB_RNR_TIMER_061_44] = 6144,
	[IB_RNR_TIMER_081_92] = 8192,
	[IB_RNR_TIMER_122_88] = 12288,
	[IB_RNR_TIMER_163_84] = 16384,
	[IB_RNR_TIMER_245_76] = 24576,
	[IB_RNR_TIMER_327_68] = 32768,
	[IB_RNR_TIMER_491_52] = 49152,
};

/**
 * srdma_rnr_delay_ns() - how long a requester waits after an RNR NAK
 * @min_rnr_timer: the 5-bit timer field of the NAK
 *
 * Return: nanoseconds.
 */
u64 srdma_rnr_delay_ns(u8 min_rnr_timer)
{
	return (u64)srdma_rnr_delay_cus[min_rnr_timer & SRDMA_QP_TIMEOUT_MAX] *
	       10 * NSEC_PER_USEC;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_rnr_delay_ns);

static enum hrtimer_restart srdma_retry_expired(struct hrtimer *timer)
{
	struct srdma_qp *qp = container_of(timer, struct srdma_qp, retry_timer);

	set_bit(SRDMA_EV_RETRY, &qp->events);
	srdma_task_kick(qp, SRDMA_HALF_SEND);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart srdma_rnr_expired(struct hrtimer *timer)
{
	struct srdma_qp *qp = container_of(timer, struct srdma_qp, rnr_timer);

	set_bit(SRDMA_EV_RNR, &qp->events);
	srdma_task_kick(qp, SRDMA_HALF_SEND);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart srdma_xmit_expired(struct hrtimer *timer)
{
	srdma_task_kick_both(container_of(timer, struct srdma_qp, xmit_timer));
	return HRTIMER_NORESTART;
}

/**
 * srdma_timer_arm() - (re)arm one of a QP's timers
 * @timer: the timer
 * @delay_ns: from now
 */
void srdma_timer_arm(struct hrtimer *timer, u64 delay_ns)
{
	srdma_timer_arm_at(timer, ktime_get_ns() + delay_ns);
}

/* expire at @when_ns of CLOCK_MONOTONIC (ktime_get_ns()) */
void srdma_timer_arm_at(struct hrtimer *timer, u64 when_ns)
{
	hrtimer_start(timer, ns_to_ktime(when_ns), HRTIMER_MODE_ABS_PINNED_SOFT);
}

void srdma_timers_setup(struct srdma_qp *qp)
{
	hrtimer_init(&qp->retry_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_PINNED_SOFT);
	qp->retry_timer.function = srdma_retry_expired;
	hrtimer_init(&qp->rnr_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_PINNED_SOFT);
	qp->rnr_timer.function = srdma_rnr_expired;
	hrtimer_init(&qp->xmit_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_PINNED_SOFT);
	qp->xmit_timer.function = srdma_xmit_expired;
	qp->xmit_retry_ns = SRDMA_XMIT_RETRY_NS;
}

/* the engine is paused: nothing re-arms them */
void srdma_timers_cancel(struct srdma_qp *qp)
{
	hrtimer_cancel(&qp->retry_timer);
	hrtimer_cancel(&qp->rnr_timer);
	hrtimer_cancel(&qp->xmit_timer);
	hrtimer_cancel(&qp->rate.timer);
	qp->comp.deadline_ns = 0;
	clear_bit(SRDMA_EV_RETRY, &qp->events);
	clear_bit(SRDMA_EV_RNR, &qp->events);
}
