// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The engine of a QP (completer, responder, requester) runs in one place at
 * a time. Whoever has new work for it (a received packet, a doorbell, a
 * post, a timer) kicks the task: if no one runs the engine, the kicker runs
 * it inline, with bottom halves disabled; otherwise the runner sees the
 * kick and goes round once more. A runner that has handled SRDMA_TASK_BUDGET
 * packets (several batches of each sub-engine) hands the rest to a work
 * item, so that one busy QP does not keep a softirq or a system call for
 * itself, and re-enables bottom halves: the packets it sent to a peer on
 * this CPU are received, and answered, before it sends more.
 *
 * Different QPs run on different CPUs at the same time; there is no lock
 * on this path, only the RUNNING and MORE bits.
 *
 * A netdev such as veth queues a packet on the CPU that sends it, so a QP
 * whose engine moves to another CPU can have its new packets overtake the
 * old ones: the peer sees them out of order, and may NAK. So the engine
 * stays where it last ran while an RC QP has packets not acknowledged (a
 * kick from elsewhere hands it to the work item there), and the work item
 * always runs there; once everything is acknowledged, whoever kicks runs
 * it.
 *
 * A run nested in another engine's run on the same CPU (a packet to this
 * host's own address is received by the sender's engine, which kicks the
 * receiver's) does not take the nested engine's CPU for it, unless it
 * leaves requests of its own unacknowledged: else a responder would follow
 * its requester onto one CPU and stay there. Bulk packets from the wire
 * are handled on the CPU they arrive on (the NIC's queue for that flow),
 * where their data was just read, unless ordering keeps the engine
 * elsewhere.
 */
#include <kunit/visibility.h>

#include "srdma_engine.h"

static struct workqueue_struct *srdma_engine_wq;

/* engine runs under way on this CPU, nested ones included */
static DEFINE_PER_CPU(unsigned int, srdma_task_depth);

/* run the engine from the work item, on the CPU it last ran on */
static void srdma_task_queue(struct srdma_qp *qp)
{
	if (queue_work_on(READ_ONCE(qp->task.cpu), srdma_engine_wq,
			  &qp->task.work))
		srdma_count(to_srdma_dev(qp->ibqp.device),
			    SRDMA_CNT_ENGINE_WORK_ITEMS);
}

/* a timer's event for the engine, taken (test first: no atomic write) */
static bool srdma_task_event(struct srdma_qp *qp, int event)
{
	return test_bit(event, &qp->events) &&
	       test_and_clear_bit(event, &qp->events);
}

/*
 * One pass over the engine: how many packets and events it handled. It
 * asks for another pass (@again) only where its own work may have left
 * some: the requester's WQEs done complete in the completer, a sub-engine
 * stopped at its batch, a read to answer, packets that came meanwhile.
 * A pass that only confirmed there was nothing left was two of the five
 * passes of a small message.
 */
static unsigned int srdma_engine_step(struct srdma_qp *qp, bool *again)
{
	unsigned int comp, resp, req, events = 0;

	comp = srdma_comp_run(qp);
	/*
	 * The ACK timeout is judged once the responses that came are taken:
	 * an engine that runs late must not time out on an ACK it holds.
	 */
	if (skb_queue_empty_lockless(&qp->comp_pkts) &&
	    srdma_task_event(qp, SRDMA_EV_RETRY)) {
		srdma_comp_retry_timer(qp);
		events++;
	}
	if (srdma_task_event(qp, SRDMA_EV_RNR)) {
		srdma_comp_rnr_timer(qp);
		events++;
	}
	resp = srdma_resp_run(qp);
	req = srdma_req_run(qp);
	*again = req || events || comp >= SRDMA_ENGINE_BATCH ||
		 resp >= SRDMA_ENGINE_BATCH || qp->resp.read ||
		 !skb_queue_empty_lockless(&qp->comp_pkts) ||
		 !skb_queue_empty_lockless(&qp->resp_pkts) ||
		 READ_ONCE(qp->events);
	return comp + events + resp + req;
}

/*
 * Where the engine's next run goes, as its run ends or hands over: this
 * CPU, unless the run is nested and has no request of its own in flight
 */
static void srdma_task_settle(struct srdma_qp *qp, bool nested)
{
	bool unacked = qp->ibqp.qp_type == IB_QPT_RC &&
		       srdma_comp_outstanding(qp);

	if (!nested || unacked)
		WRITE_ONCE(qp->task.cpu, smp_processor_id());
	WRITE_ONCE(qp->task.unacked, unacked);
}

/* run the engine; the caller holds SRDMA_TASK_RUNNING */
static void srdma_task_run(struct srdma_qp *qp)
{
	struct srdma_task *t = &qp->task;
	unsigned int budget = SRDMA_TASK_BUDGET, done;
	bool again, nested;

	local_bh_disable();
	nested = this_cpu_inc_return(srdma_task_depth) > 1;
	do {
		/* at every claim, the one below too: another CPU ran it since */
		WRITE_ONCE(t->run_cpu, smp_processor_id());
		while (!test_bit(SRDMA_TASK_PAUSED, &t->flags)) {
			/*
			 * Before each pass: a kick whose work a pass took
			 * costs no pass more. A kick that comes after the
			 * test is seen once RUNNING is cleared, below.
			 */
			if (test_bit(SRDMA_TASK_MORE, &t->flags)) {
				clear_bit(SRDMA_TASK_MORE, &t->flags);
				/* look at the work after clearing MORE */
				smp_mb__after_atomic();
			}
			done = srdma_engine_step(qp, &again);
			if (done >= budget) {
				/* the work item goes on, still RUNNING */
				srdma_task_settle(qp, nested);
				srdma_task_queue(qp);
				goto out;
			}
			budget -= done;
			if (!done ||
			    (!again && !test_bit(SRDMA_TASK_MORE, &t->flags)))
				break;
		}
		/* nothing more to send: the round-robin goes on without it */
		srdma_sched_idle(qp);
		srdma_task_settle(qp, nested);
		clear_bit_unlock(SRDMA_TASK_RUNNING, &t->flags);
		/*
		 * Pairs with srdma_task_kick(): a MORE set now is seen below;
		 * and with srdma_task_pause(), which sets PAUSED, then waits.
		 */
		smp_mb__after_atomic();
		if (test_bit(SRDMA_TASK_PAUSED, &t->flags))
			wake_up_bit(&t->flags, SRDMA_TASK_RUNNING);
	} while (test_bit(SRDMA_TASK_MORE, &t->flags) &&
		 !test_bit(SRDMA_TASK_PAUSED, &t->flags) &&
		 !test_and_set_bit_lock(SRDMA_TASK_RUNNING, &t->flags));
out:
	this_cpu_dec(srdma_task_depth);
	local_bh_enable();
}

static void srdma_task_work(struct work_struct *work)
{
	srdma_task_run(container_of(work, struct srdma_qp, task.work));
}

/* there is work: true if the caller is now the one to run the engine */
static bool srdma_task_claim(struct srdma_qp *qp)
{
	struct srdma_task *t = &qp->task;

	set_bit(SRDMA_TASK_MORE, &t->flags);
	/* MORE before looking at RUNNING: pairs with srdma_task_run() */
	smp_mb__after_atomic();
	return !test_bit(SRDMA_TASK_PAUSED, &t->flags) &&
	       !test_and_set_bit_lock(SRDMA_TASK_RUNNING, &t->flags);
}

/* the engine should run where it last ran, not here (see the top) */
static bool srdma_task_elsewhere(struct srdma_task *t)
{
	return READ_ONCE(t->unacked) &&
	       READ_ONCE(t->cpu) != raw_smp_processor_id();
}

/**
 * srdma_task_kick() - the engine of @qp has work: run it, or make sure its
 * runner sees the work
 * @qp: the QP
 *
 * Callable from any context; with interrupts disabled the engine runs from
 * the work item.
 */
void srdma_task_kick(struct srdma_qp *qp)
{
	if (!srdma_task_claim(qp))
		return;
	if (irqs_disabled() || in_hardirq() || srdma_task_elsewhere(&qp->task)) {
		srdma_task_queue(qp);
		return;
	}
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_ENGINE_RUNS_INLINE);
	srdma_task_run(qp);
}

/* as srdma_task_kick(), but never runs the engine in the caller's context */
void srdma_task_kick_later(struct srdma_qp *qp)
{
	if (srdma_task_claim(qp))
		srdma_task_queue(qp);
}

/*
 * srdma_task_kick_later() for bulk packets that came from the wire: on this
 * CPU if the engine may move. A packet to this host's own address arrives
 * within its sender's run: the receiver's engine stays where it ran.
 */
static void srdma_task_kick_bulk(struct srdma_qp *qp)
{
	struct srdma_task *t = &qp->task;

	if (!srdma_task_claim(qp))
		return;
	if (!READ_ONCE(t->unacked) && !this_cpu_read(srdma_task_depth))
		WRITE_ONCE(t->cpu, raw_smp_processor_id());
	srdma_task_queue(qp);
}

/**
 * srdma_task_recv() - queue a RoCEv2 packet for its QP's engine: requests
 * for the responder, the rest for the completer
 * @qp: the QP, held
 * @skb: the packet, checked; consumed unless refused
 *
 * A packet of a message of several is bulk: its engine runs from the work
 * item, so that a stream of them does not keep the softirq, and the other
 * QPs of the CPU, waiting. A message of one packet and an ACK are handled
 * at once: that is the latency a ping-pong sees.
 *
 * Return: as srdma_task_enqueue().
 */
enum srdma_counter srdma_task_recv(struct srdma_qp *qp, struct sk_buff *skb)
{
	u32 flags = srdma_op_flags(srdma_pkt(skb)->opcode);
	/* every opcode is FIRST, MIDDLE, LAST or ONLY */
	bool bulk = (flags & SRDMA_OP_ONLY) != SRDMA_OP_ONLY;

	return srdma_task_enqueue(qp, flags & SRDMA_OP_REQ ? &qp->resp_pkts :
							   &qp->comp_pkts, skb, bulk);
}

/**
 * srdma_task_enqueue() - queue a received packet or frame for a QP's engine
 * and kick it
 * @qp: the QP, held or under RCU
 * @queue: its resp_pkts or comp_pkts
 * @skb: consumed unless refused
 * @bulk: a packet of a message of several: kick the engine's work item
 *        (srdma_task_kick_bulk()) rather than run the engine here
 *
 * Return: SRDMA_NUM_COUNTERS if queued, else the counter of the reason it
 * was refused.
 */
enum srdma_counter srdma_task_enqueue(struct srdma_qp *qp,
				      struct sk_buff_head *queue,
				      struct sk_buff *skb, bool bulk)
{
	if (skb_queue_len(queue) >= SRDMA_MAX_QUEUED_PKTS)
		return SRDMA_CNT_DROP_QUEUE_FULL;
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_RCVD_PKTS);
	skb_queue_tail(queue, skb);
	if (bulk)
		srdma_task_kick_bulk(qp);
	else
		srdma_task_kick(qp);
	return SRDMA_NUM_COUNTERS;
}

/**
 * srdma_task_drop_queued() - drop the packets an engine will not handle,
 * counted as for the QP's state
 * @qp: the QP, which left the states that receive or is going
 * @queue: its resp_pkts or comp_pkts
 * @ahead: the packets held out of order beside them (the engine's own)
 */
void srdma_task_drop_queued(struct srdma_qp *qp, struct sk_buff_head *queue,
			    struct sk_buff_head *ahead)
{
	u64 n = skb_queue_len(ahead);
	struct sk_buff *skb;

	__skb_queue_purge(ahead);
	while ((skb = skb_dequeue(queue))) {
		kfree_skb(skb);
		n++;
	}
	if (n)
		srdma_count_add(to_srdma_dev(qp->ibqp.device),
				SRDMA_CNT_DROP_QP_STATE, n);
}

/**
 * srdma_task_pause() - stop the engine of @qp and wait until it is idle
 * @qp: the QP
 *
 * From then until srdma_task_resume() kicks do nothing and the timers are
 * stopped: modify_qp and destroy change the engine's state safely.
 */
void srdma_task_pause(struct srdma_qp *qp)
{
	struct srdma_task *t = &qp->task;

	might_sleep();
	set_bit(SRDMA_TASK_PAUSED, &t->flags);
	/* a runner that starts from now on sees PAUSED */
	smp_mb__after_atomic();
	/*
	 * Out of the port's round-robin, whose new rounds may have queued
	 * the work before PAUSED: the wait is for that too. Its engine may
	 * have put it back before it stopped: out again once it has.
	 */
	srdma_sched_leave(qp);
	wait_on_bit(&t->flags, SRDMA_TASK_RUNNING, TASK_UNINTERRUPTIBLE);
	/* the work item that let go of RUNNING may still be returning */
	flush_work(&t->work);
	srdma_sched_leave(qp);
	srdma_timers_cancel(qp);
}

/**
 * srdma_task_resume() - let the engine of @qp run again, and kick it
 * @qp: the QP
 */
void srdma_task_resume(struct srdma_qp *qp)
{
	clear_bit(SRDMA_TASK_PAUSED, &qp->task.flags);
	srdma_task_kick(qp);
}

/**
 * srdma_task_setup() - prepare the task of a new QP
 * @qp: the QP
 */
void srdma_task_setup(struct srdma_qp *qp)
{
	qp->task.flags = 0;
	qp->task.cpu = raw_smp_processor_id();
	qp->task.run_cpu = qp->task.cpu;
	qp->task.unacked = false;
	INIT_WORK(&qp->task.work, srdma_task_work);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_task_setup);

int srdma_task_init(void)
{
	/* storage consumers (nvme-rdma) run over srdma: reclaim must progress */
	srdma_engine_wq = alloc_workqueue("srdma", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return srdma_engine_wq ? 0 : -ENOMEM;
}

void srdma_task_exit(void)
{
	destroy_workqueue(srdma_engine_wq);
}
