// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The engine of a QP has two halves, each with its own task: the send half
 * (completer, then requester) and the receive half (responder). Each half
 * runs in one place at a time; the two may run at once, on two CPUs, so
 * that a doorbell never waits behind the ACK of a request just received,
 * and a QP with traffic both ways uses two CPUs. They share no state but
 * the QP's (its state, under the WQ locks) and what they send with (the
 * rate's xmit_lock, srdma_sched.c).
 *
 * Whoever has new work for a half (a received packet, a doorbell, a post,
 * a timer) kicks its task: if no one runs the half, the kicker runs it
 * inline, with bottom halves disabled; otherwise the runner sees the kick
 * and goes round once more. A runner that has handled SRDMA_TASK_BUDGET
 * packets (several batches of each sub-engine) hands the rest to a work
 * item, so that one busy QP does not keep a softirq or a system call for
 * itself, and re-enables bottom halves: the packets it sent to a peer on
 * this CPU are received, and answered, before it sends more.
 *
 * Different QPs run on different CPUs at the same time; there is no lock
 * on this path, only the RUNNING and MORE bits.
 *
 * A netdev such as veth queues a packet on the CPU that sends it, so a QP
 * whose send half moves to another CPU can have its new packets overtake
 * the old ones: the peer sees them out of order, and may NAK. So the send
 * half stays where it last ran while an RC QP has packets not acknowledged
 * (a kick from elsewhere hands it to the work item there), and the work
 * item always runs there; once everything is acknowledged, whoever kicks
 * runs it. The receive half goes where it is kicked.
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

static struct srdma_qp *srdma_task_qp(struct srdma_task *t)
{
	return container_of(t - t->half, struct srdma_qp, task[0]);
}

/* run the half from the work item, on the CPU it last ran on */
static void srdma_task_queue(struct srdma_qp *qp, struct srdma_task *t)
{
	if (queue_work_on(READ_ONCE(t->cpu), srdma_engine_wq, &t->work))
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
 * One pass over the send half: how many packets and events it handled. It
 * asks for another pass (@again) only where its own work may have left
 * some: the requester's WQEs done complete in the completer, the completer
 * stopped at its batch, packets or events that came meanwhile. A pass that
 * only confirmed there was nothing left was two of the five passes of a
 * small message.
 */
static unsigned int srdma_send_step(struct srdma_qp *qp, bool *again)
{
	unsigned int comp, req, events = 0;

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
	req = srdma_req_run(qp);
	*again = req || events || comp >= SRDMA_ENGINE_BATCH ||
		 !skb_queue_empty_lockless(&qp->comp_pkts) ||
		 READ_ONCE(qp->events);
	return comp + events + req;
}

/* one pass over the receive half, as srdma_send_step() */
static unsigned int srdma_recv_step(struct srdma_qp *qp, bool *again)
{
	unsigned int resp = srdma_resp_run(qp);

	*again = resp >= SRDMA_ENGINE_BATCH || qp->resp.read ||
		 !skb_queue_empty_lockless(&qp->resp_pkts);
	return resp;
}

/*
 * Where the half's next run goes, as its run ends or hands over: this
 * CPU, unless the run is nested and has no request of its own in flight
 */
static void srdma_task_settle(struct srdma_qp *qp, struct srdma_task *t,
			      bool nested)
{
	bool unacked = t->half == SRDMA_HALF_SEND &&
		       qp->ibqp.qp_type == IB_QPT_RC &&
		       srdma_comp_outstanding(qp);

	if (!nested || unacked)
		WRITE_ONCE(t->cpu, smp_processor_id());
	WRITE_ONCE(t->unacked, unacked);
}

/* run the half; the caller holds its SRDMA_TASK_RUNNING */
static void srdma_task_run(struct srdma_task *t)
{
	struct srdma_qp *qp = srdma_task_qp(t);
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
			done = t->half == SRDMA_HALF_SEND ?
			       srdma_send_step(qp, &again) :
			       srdma_recv_step(qp, &again);
			if (done >= budget) {
				/* the work item goes on, still RUNNING */
				srdma_task_settle(qp, t, nested);
				srdma_task_queue(qp, t);
				goto out;
			}
			budget -= done;
			if (!done ||
			    (!again && !test_bit(SRDMA_TASK_MORE, &t->flags)))
				break;
		}
		/* nothing more to send: the round-robin goes on without it */
		srdma_sched_idle(qp, t->half);
		srdma_task_settle(qp, t, nested);
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
	srdma_task_run(container_of(work, struct srdma_task, work));
}

/* there is work: true if the caller is now the one to run the half */
static bool srdma_task_claim(struct srdma_task *t)
{
	set_bit(SRDMA_TASK_MORE, &t->flags);
	/* MORE before looking at RUNNING: pairs with srdma_task_run() */
	smp_mb__after_atomic();
	return !test_bit(SRDMA_TASK_PAUSED, &t->flags) &&
	       !test_and_set_bit_lock(SRDMA_TASK_RUNNING, &t->flags);
}

/* the half should run where it last ran, not here (see the top) */
static bool srdma_task_elsewhere(struct srdma_task *t)
{
	return READ_ONCE(t->unacked) &&
	       READ_ONCE(t->cpu) != raw_smp_processor_id();
}

/**
 * srdma_task_kick() - @half of @qp's engine has work: run it, or make sure
 * its runner sees the work
 * @qp: the QP
 * @half: enum srdma_half
 *
 * Callable from any context; with interrupts disabled the half runs from
 * its work item.
 */
void srdma_task_kick(struct srdma_qp *qp, enum srdma_half half)
{
	struct srdma_task *t = &qp->task[half];

	if (!srdma_task_claim(t))
		return;
	if (irqs_disabled() || in_hardirq() || srdma_task_elsewhere(t)) {
		srdma_task_queue(qp, t);
		return;
	}
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_ENGINE_RUNS_INLINE);
	srdma_task_run(t);
}

/* as srdma_task_kick(), but never runs the half in the caller's context */
void srdma_task_kick_later(struct srdma_qp *qp, enum srdma_half half)
{
	struct srdma_task *t = &qp->task[half];

	if (srdma_task_claim(t))
		srdma_task_queue(qp, t);
}

/**
 * srdma_task_kick_both() - work for whichever half of @qp may have some (a
 * retry of a refused transmit, tokens back, the QP's state changed)
 * @qp: the QP
 */
void srdma_task_kick_both(struct srdma_qp *qp)
{
	srdma_task_kick(qp, SRDMA_HALF_SEND);
	srdma_task_kick(qp, SRDMA_HALF_RECV);
}

/* as srdma_task_kick_both(), never in the caller's context */
void srdma_task_kick_both_later(struct srdma_qp *qp)
{
	srdma_task_kick_later(qp, SRDMA_HALF_SEND);
	srdma_task_kick_later(qp, SRDMA_HALF_RECV);
}

/*
 * srdma_task_kick_later() for bulk packets that came from the wire: on this
 * CPU if the half may move. A packet to this host's own address arrives
 * within its sender's run: the receiver's half stays where it ran.
 */
static void srdma_task_kick_bulk(struct srdma_qp *qp, struct srdma_task *t)
{
	if (!srdma_task_claim(t))
		return;
	if (!READ_ONCE(t->unacked) && !this_cpu_read(srdma_task_depth))
		WRITE_ONCE(t->cpu, raw_smp_processor_id());
	srdma_task_queue(qp, t);
}

/**
 * srdma_task_recv() - queue a RoCEv2 packet for its QP's engine: requests
 * for the responder (the receive half), the rest for the completer (the
 * send half)
 * @qp: the QP, held
 * @skb: the packet, checked; consumed unless refused
 *
 * A packet of a message of several is bulk: its half runs from the work
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
 * and kick the half it is for
 * @qp: the QP, held or under RCU
 * @queue: its resp_pkts (the receive half's) or comp_pkts (the send half's)
 * @skb: consumed unless refused
 * @bulk: a packet of a message of several: kick the half's work item
 *        (srdma_task_kick_bulk()) rather than run it here
 *
 * Return: SRDMA_NUM_COUNTERS if queued, else the counter of the reason it
 * was refused.
 */
enum srdma_counter srdma_task_enqueue(struct srdma_qp *qp,
				      struct sk_buff_head *queue,
				      struct sk_buff *skb, bool bulk)
{
	enum srdma_half half = queue == &qp->resp_pkts ? SRDMA_HALF_RECV :
							 SRDMA_HALF_SEND;

	if (skb_queue_len(queue) >= SRDMA_MAX_QUEUED_PKTS)
		return SRDMA_CNT_DROP_QUEUE_FULL;
	srdma_count(to_srdma_dev(qp->ibqp.device), SRDMA_CNT_RCVD_PKTS);
	skb_queue_tail(queue, skb);
	if (bulk)
		srdma_task_kick_bulk(qp, &qp->task[half]);
	else
		srdma_task_kick(qp, half);
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
 * srdma_task_pause() - stop both halves of @qp's engine and wait until they
 * are idle
 * @qp: the QP
 *
 * From then until srdma_task_resume() kicks do nothing and the timers are
 * stopped: modify_qp and destroy change the engine's state safely.
 */
void srdma_task_pause(struct srdma_qp *qp)
{
	int half;

	might_sleep();
	for (half = 0; half < SRDMA_HALVES; half++)
		set_bit(SRDMA_TASK_PAUSED, &qp->task[half].flags);
	/* a runner that starts from now on sees PAUSED */
	smp_mb__after_atomic();
	/*
	 * Out of the port's round-robin, whose new rounds may have queued
	 * the work before PAUSED: the wait is for that too. Its engine may
	 * have put it back before it stopped: out again once it has.
	 */
	srdma_sched_leave(qp);
	for (half = 0; half < SRDMA_HALVES; half++) {
		struct srdma_task *t = &qp->task[half];

		wait_on_bit(&t->flags, SRDMA_TASK_RUNNING,
			    TASK_UNINTERRUPTIBLE);
		/* the work item that let go of RUNNING may still be returning */
		flush_work(&t->work);
	}
	srdma_sched_leave(qp);
	srdma_timers_cancel(qp);
}

/**
 * srdma_task_resume() - let both halves of @qp's engine run again, and kick
 * them
 * @qp: the QP
 */
void srdma_task_resume(struct srdma_qp *qp)
{
	int half;

	for (half = 0; half < SRDMA_HALVES; half++)
		clear_bit(SRDMA_TASK_PAUSED, &qp->task[half].flags);
	srdma_task_kick_both(qp);
}

/**
 * srdma_task_setup() - prepare the tasks of a new QP
 * @qp: the QP
 */
void srdma_task_setup(struct srdma_qp *qp)
{
	int half;

	for (half = 0; half < SRDMA_HALVES; half++) {
		struct srdma_task *t = &qp->task[half];

		t->flags = 0;
		t->half = half;
		t->cpu = raw_smp_processor_id();
		t->run_cpu = t->cpu;
		t->unacked = false;
		INIT_WORK(&t->work, srdma_task_work);
	}
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
