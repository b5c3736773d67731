// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: where a kick runs a half of a QP's engine (srdma_task.c). From a
 * softirq, the send half goes to its work item and the receive half runs
 * at once; from a process, with bottom halves enabled or not (a doorbell,
 * an engine's own run), both run at once.
 */
#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/timer.h>

#include "srdma_engine.h"

struct task_softirq_probe {
	struct timer_list timer;
	struct completion done;
	bool in_softirq;
	bool defer[SRDMA_HALVES];
};

/* a timer's callback runs in the timer softirq */
static void task_softirq_probe_fn(struct timer_list *timer)
{
	struct task_softirq_probe *p = from_timer(p, timer, timer);

	p->in_softirq = in_serving_softirq();
	p->defer[SRDMA_HALF_SEND] = srdma_task_defer_here(SRDMA_HALF_SEND);
	p->defer[SRDMA_HALF_RECV] = srdma_task_defer_here(SRDMA_HALF_RECV);
	complete(&p->done);
}

static void task_defer_here_test(struct kunit *test)
{
	struct task_softirq_probe p = {};

	KUNIT_EXPECT_FALSE(test, srdma_task_defer_here(SRDMA_HALF_SEND));
	KUNIT_EXPECT_FALSE(test, srdma_task_defer_here(SRDMA_HALF_RECV));
	local_bh_disable();
	KUNIT_EXPECT_FALSE(test, srdma_task_defer_here(SRDMA_HALF_SEND));
	KUNIT_EXPECT_FALSE(test, srdma_task_defer_here(SRDMA_HALF_RECV));
	local_bh_enable();

	init_completion(&p.done);
	timer_setup_on_stack(&p.timer, task_softirq_probe_fn, 0);
	mod_timer(&p.timer, jiffies);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p.done, 10 * HZ),
			0UL);
	del_timer_sync(&p.timer);
	destroy_timer_on_stack(&p.timer);
	KUNIT_ASSERT_TRUE(test, p.in_softirq);
	KUNIT_EXPECT_TRUE(test, p.defer[SRDMA_HALF_SEND]);
	KUNIT_EXPECT_FALSE(test, p.defer[SRDMA_HALF_RECV]);
}

static struct kunit_case task_test_cases[] = {
	KUNIT_CASE(task_defer_here_test),
	{}
};

static struct kunit_suite task_suite = {
	.name = "srdma_task",
	.test_cases = task_test_cases,
};

kunit_test_suite(task_suite);
