// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Transmit scheduling: every QP's token bucket, and a round-robin of the
 * port's QPs.
 *
 * An engine asks srdma_sched_may_send() before it builds a packet that
 * carries data (a request, a read response) and sends every packet through
 * srdma_qp_xmit(), which charges the frame to the QP's bucket. ACKs and
 * NAKs are charged but never held back: holding them would only make the
 * peer time out. A QP out of tokens stops, and an hrtimer set for the
 * exact time they return kicks its engine: nothing polls.
 *
 * The round-robin is deficit round-robin in rounds. A QP that has data to
 * send joins the port's round with a quantum of SRDMA_DRR_QUANTUM_BYTES;
 * once it has used its quantum it waits for the next round if other QPs
 * are still sending in this one; the round ends when no QP in it sends any
 * more (quantum used, out of tokens, or nothing to send), and the QPs that
 * waited start the next one. However a QP's engine gets its CPU time, no
 * backlogged QP sends more than a quantum (and one frame) more than
 * another per round. A QP takes the port's lock to join or leave a round
 * and once its quantum is used, not for every packet; and while no rate is
 * set on the port or any of its QPs there are no rounds at all: fairness
 * between unlimited QPs is then their engines' CPU time, as between
 * sockets without a qdisc.
 *
 * Both halves of a QP's engine send (the requester its requests, the
 * responder its ACKs and read responses): what they change as they send
 * (the bucket, the deficit, the retry of a refused transmit) is under the
 * QP's xmit_lock, a lock of that QP alone, held for a few instructions,
 * and taken only while a rate is set somewhere on the port or the netdev
 * refuses packets: without, each half counts its own bytes and nothing
 * else. The QP is in a round while either half sends data, and leaves it
 * when both have run dry.
 */
#include <kunit/visibility.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>

#include "srdma_engine.h"
#include "srdma_trace.h"

/* a frame of the path MTU: what the next packet may cost at most */
static u32 srdma_sched_mtu_frame(struct srdma_qp *qp)
{
	return qp->mtu_bytes + SRDMA_MAX_HDR_BYTES + ETH_HLEN;
}

/* Ethernet frame bytes of a packet from srdma_pkt_alloc() of @len bytes */
static u32 srdma_frame_bytes(const struct srdma_av *av, u32 len)
{
	u32 ip = av->network_type == RXE_NETWORK_TYPE_IPV4 ?
		 sizeof(struct iphdr) : sizeof(struct ipv6hdr);

	return ETH_HLEN + ip + sizeof(struct udphdr) + len;
}

/* a rate is set on the port or one of its QPs: the round-robin is on */
static bool srdma_port_shaping(struct srdma_port_rate *port)
{
	return READ_ONCE(port->default_kbps) || READ_ONCE(port->ceiling_kbps) ||
	       atomic_read(&port->nr_rate_qps);
}

/* a new round: the QPs that waited join it; under the port's lock */
static void srdma_sched_new_round(struct srdma_port_rate *port)
{
	struct srdma_qp_rate *r, *next;

	lockdep_assert_held(&port->lock);
	list_for_each_entry_safe(r, next, &port->waiting, wait_node) {
		list_del_init(&r->wait_node);
		r->deficit = SRDMA_DRR_QUANTUM_BYTES;
		/* its engine reads in_round, then the deficit, without the lock */
		smp_store_release(&r->in_round, true);
		port->nr_active++;
		/* not inline: that engine would take this lock again */
		srdma_task_kick_both_later(container_of(r, struct srdma_qp,
							rate));
	}
}

/* the QP stops sending in this round; under the port's lock */
static void srdma_sched_leave_round(struct srdma_port_rate *port,
				    struct srdma_qp_rate *r)
{
	lockdep_assert_held(&port->lock);
	if (!r->in_round)
		return;
	WRITE_ONCE(r->in_round, false);
	if (!--port->nr_active)
		srdma_sched_new_round(port);
}

/* a setting of the QP or the port changed: the rate in force follows */
static void srdma_sched_apply(struct srdma_qp *qp, struct srdma_port_rate *port,
			      u64 now)
{
	struct srdma_qp_rate *r = &qp->rate;
	u64 dflt, ceiling, port_kbps, kbps;
	struct srdma_rate_cfg cfg;
	u32 burst, gen;

	spin_lock(&port->lock);
	dflt = port->default_kbps;
	ceiling = port->ceiling_kbps;
	burst = port->burst;
	port_kbps = port->port_kbps;
	gen = r->gen + port->gen;
	spin_lock(&r->lock);
	cfg = r->cfg;
	spin_unlock(&r->lock);
	spin_unlock(&port->lock);

	r->source = srdma_rate_resolve(&cfg, dflt, ceiling, port_kbps, &kbps);
	if (r->source == SRDMA_RATE_ADMIN && cfg.admin_burst)
		burst = cfg.admin_burst;
	srdma_tbf_set(&r->tbf, kbps, burst, now);
	r->applied_gen = gen;
}

/*
 * Out of tokens for @wait ns: stop, and have the timer kick the engine once
 * half the burst is back too. Woken as soon as a frame may go, a paced QP
 * would pay a timer, a context switch and an ACK request for each frame;
 * the half it does not wait for is there for an engine that runs late.
 */
static void srdma_sched_throttle(struct srdma_qp *qp,
				 struct srdma_port_rate *port, u64 now, u64 wait)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_qp_rate *r = &qp->rate;

	if (!r->throttled_since) {
		r->throttled_since = now;
		WRITE_ONCE(r->throttle_events, r->throttle_events + 1);
		srdma_count(sdev, SRDMA_CNT_RATE_THROTTLES);
	}
	spin_lock(&port->lock);
	srdma_sched_leave_round(port, r);
	spin_unlock(&port->lock);
	trace_srdma_throttle(qp->ibqp.qp_num, wait, wait + r->tbf.depth_ns / 2);
	hrtimer_start(&r->timer, ns_to_ktime(now + wait + r->tbf.depth_ns / 2),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/* srdma_sched_may_send() under the QP's xmit_lock */
static enum srdma_send srdma_sched_may_send_locked(struct srdma_qp *qp)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_port_rate *port = &sdev->rate;
	struct srdma_qp_rate *r = &qp->rate;
	enum srdma_send ret = SRDMA_SEND_OK;
	bool changed = READ_ONCE(r->gen) + READ_ONCE(port->gen) !=
		       r->applied_gen;
	u64 now = 0, wait;
	s64 frame;

	lockdep_assert_held(&r->xmit_lock);
	/*
	 * Kicked before its timer (by an ACK, say): it waits on for the half
	 * burst, or it would send a frame per kick. A new rate looks again.
	 */
	if (r->throttled_since && !changed && hrtimer_is_queued(&r->timer))
		return SRDMA_SEND_WAIT;
	/* the clock only where a bucket or a change needs it */
	if (r->tbf.kbps || r->throttled_since || changed)
		now = ktime_get_ns();
	if (changed)
		srdma_sched_apply(qp, port, now);
	wait = srdma_tbf_wait_ns(&r->tbf, now);
	if (wait) {
		srdma_sched_throttle(qp, port, now, wait);
		return SRDMA_SEND_WAIT;
	}
	if (r->throttled_since) {
		WRITE_ONCE(r->throttled_ns,
			   r->throttled_ns + now - r->throttled_since);
		srdma_count_add(sdev, SRDMA_CNT_RATE_THROTTLED_NS,
				now - r->throttled_since);
		r->throttled_since = 0;
	}

	frame = srdma_sched_mtu_frame(qp);
	/* pairs with the release in srdma_sched_new_round(): its deficit */
	if (smp_load_acquire(&r->in_round)) {
		/* within its quantum: nothing of the port's to look at */
		if (r->deficit - (s64)r->uncharged > frame) {
			r->deficit -= r->uncharged;
			r->uncharged = 0;
			goto tokens;
		}
	} else if (!srdma_port_shaping(port) && list_empty(&r->wait_node)) {
		r->uncharged = 0;
		goto tokens;
	}

	spin_lock(&port->lock);
	r->deficit -= r->uncharged;
	r->uncharged = 0;
	if (!r->in_round) {
		if (!list_empty(&r->wait_node)) {
			spin_unlock(&port->lock);
			return SRDMA_SEND_WAIT;	/* the next round kicks it */
		}
		r->in_round = true;
		r->deficit = SRDMA_DRR_QUANTUM_BYTES;
		port->nr_active++;
	}
	if (r->deficit <= 0) {
		if (port->nr_active > 1) {
			r->in_round = false;
			port->nr_active--;
			list_add_tail(&r->wait_node, &port->waiting);
			trace_srdma_rr_wait(qp->ibqp.qp_num, port->nr_active);
			spin_unlock(&port->lock);
			srdma_count(sdev, SRDMA_CNT_RR_WAITS);
			return SRDMA_SEND_WAIT;
		}
		/* the last one sending in this round: the next one starts */
		srdma_sched_new_round(port);
		r->deficit += SRDMA_DRR_QUANTUM_BYTES;
	}
	if (r->deficit <= frame && (port->nr_active > 1 ||
				    !list_empty(&port->waiting)))
		ret = SRDMA_SEND_LAST;
	spin_unlock(&port->lock);
tokens:
	if (r->tbf.kbps &&
	    r->tbf.tokens_ns < srdma_rate_cost_ns(frame, r->tbf.kbps))
		ret = SRDMA_SEND_LAST;
	return ret;
}

/*
 * Nothing of the bucket's or the round's to look at: no rate on the QP or
 * its port (nor a new one to apply), and it is in no round. Read without
 * the lock: a rate set meanwhile takes effect at the next packet.
 */
static bool srdma_sched_unshaped(struct srdma_qp *qp,
				 struct srdma_port_rate *port)
{
	struct srdma_qp_rate *r = &qp->rate;

	return !READ_ONCE(r->tbf.kbps) && !READ_ONCE(r->throttled_since) &&
	       !READ_ONCE(r->in_round) && list_empty_careful(&r->wait_node) &&
	       READ_ONCE(r->gen) + READ_ONCE(port->gen) ==
	       READ_ONCE(r->applied_gen) && !srdma_port_shaping(port);
}

/**
 * srdma_sched_may_send() - may the QP send a packet with data now?
 * @qp: the QP
 * @half: enum srdma_half: the half of its engine that asks, running
 *
 * Return: SRDMA_SEND_WAIT if not (its engine is kicked when it may),
 * SRDMA_SEND_LAST if it may but will then wait: that packet should ask for
 * an ACK, or SRDMA_SEND_OK.
 */
enum srdma_send srdma_sched_may_send(struct srdma_qp *qp,
				     enum srdma_half half)
{
	struct srdma_qp_rate *r = &qp->rate;
	enum srdma_send ret;

	srdma_engine_assert_owned(qp, half);
	if (srdma_sched_unshaped(qp, &to_srdma_dev(qp->ibqp.device)->rate))
		return SRDMA_SEND_OK;
	spin_lock(&r->xmit_lock);
	ret = srdma_sched_may_send_locked(qp);
	if (ret != SRDMA_SEND_WAIT && r->in_round)
		r->sending |= BIT(half);
	spin_unlock(&r->xmit_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_sched_may_send);

/**
 * srdma_qp_xmit() - send a packet of the QP and charge it
 * @qp: the QP
 * @half: enum srdma_half: the half of its engine that sends, running; the
 *	  route it keeps is used
 * @skb: from srdma_pkt_alloc(), filled; consumed
 *
 * Return: as srdma_xmit().
 */
int srdma_qp_xmit(struct srdma_qp *qp, enum srdma_half half,
		  struct sk_buff *skb)
{
	srdma_engine_assert_owned(qp, half);
	return srdma_qp_xmit_to(qp, half, &qp->av, &qp->route[half], skb);
}

/**
 * srdma_qp_xmit_to() - send and charge one packet of a QP on a path of
 * its own choosing (a UD datagram's AH)
 * @qp: the QP
 * @half: enum srdma_half: the half of its engine that sends
 * @av: where it goes
 * @route: the route of @av kept, or NULL to look it up
 * @skb: from srdma_pkt_alloc(), filled; consumed
 *
 * Return: as srdma_xmit().
 */
int srdma_qp_xmit_to(struct srdma_qp *qp, enum srdma_half half,
		     const struct srdma_av *av, struct srdma_route *route,
		     struct sk_buff *skb)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	u32 bytes = srdma_frame_bytes(av, skb->len);
	int err;

	trace_srdma_xmit(qp->ibqp.qp_num, (struct srdma_bth *)skb->data, bytes);
	err = srdma_xmit(sdev, av, route, qp->src_port, skb);
	if (err)
		return err;
	srdma_qp_charge(qp, half, bytes);
	return 0;
}

/**
 * srdma_qp_batch_fits() - may a packet of a half, of @bytes from BTH to
 * ICRC, go into batch @b (struct srdma_tx_batch), or start it? Not while a
 * rate is to be accounted packet by packet.
 * @qp: the QP, the half of @b running
 * @b: the half's batch
 * @bytes: the packet's
 */
bool srdma_qp_batch_fits(struct srdma_qp *qp, const struct srdma_tx_batch *b,
			 u32 bytes)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);

	return srdma_sched_unshaped(qp, &sdev->rate) &&
	       srdma_xmit_batch_fits(sdev, &qp->av, b, bytes);
}

/**
 * srdma_qp_batch_add() - put a packet of a half into its batch
 * @qp: the QP
 * @half: enum srdma_half: the half that sends, running
 * @b: its batch, which srdma_qp_batch_fits() said the packet fits
 * @skb: from srdma_pkt_alloc(), filled; consumed
 *
 * Return: as srdma_xmit_batch_add().
 */
int srdma_qp_batch_add(struct srdma_qp *qp, enum srdma_half half,
		       struct srdma_tx_batch *b, struct sk_buff *skb)
{
	u32 bytes = srdma_frame_bytes(&qp->av, skb->len);
	int err;

	srdma_engine_assert_owned(qp, half);
	trace_srdma_xmit(qp->ibqp.qp_num, (struct srdma_bth *)skb->data, bytes);
	err = srdma_xmit_batch_add(to_srdma_dev(qp->ibqp.device), &qp->av,
				   &qp->route[half], qp->src_port, b, skb);
	if (!err)
		b->frame_bytes += bytes;
	return err;
}

/**
 * srdma_qp_batch_flush() - hand a half's batch to the stack and charge it
 * @qp: the QP
 * @half: enum srdma_half: the half that sends, running
 * @b: its batch
 *
 * Return: as srdma_xmit_batch_flush().
 */
int srdma_qp_batch_flush(struct srdma_qp *qp, enum srdma_half half,
			 struct srdma_tx_batch *b)
{
	u32 bytes = b->frame_bytes;
	int err;

	srdma_engine_assert_owned(qp, half);
	err = srdma_xmit_batch_flush(to_srdma_dev(qp->ibqp.device), b);
	if (!err)
		srdma_qp_charge(qp, half, bytes);
	return err;
}

/**
 * srdma_qp_xmit_refused() - the netdev refused a packet of @qp: both halves
 * of its engine run again after a delay that backs off while refusals go
 * on (a link down, a route gone), so that they cost little
 * @qp: the QP, a half of its engine running
 */
void srdma_qp_xmit_refused(struct srdma_qp *qp)
{
	spin_lock(&qp->rate.xmit_lock);
	/* not hrtimer_active(): its callback may be what runs the engine */
	if (!hrtimer_is_queued(&qp->xmit_timer)) {
		srdma_timer_arm(&qp->xmit_timer, qp->xmit_retry_ns);
		WRITE_ONCE(qp->xmit_retry_ns,
			   min_t(u64, 2 * qp->xmit_retry_ns,
				 SRDMA_XMIT_RETRY_MAX_NS));
	}
	spin_unlock(&qp->rate.xmit_lock);
}

/**
 * srdma_qp_charge() - a QP sent a frame of @bytes: its bucket pays
 * @qp: the QP
 * @half: enum srdma_half: the half of its engine that sent it, running
 * @bytes: the Ethernet frame's bytes
 */
void srdma_qp_charge(struct srdma_qp *qp, enum srdma_half half, u32 bytes)
{
	struct srdma_qp_rate *r = &qp->rate;

	BUILD_BUG_ON(ARRAY_SIZE(r->tx_bytes) != SRDMA_HALVES);
	WRITE_ONCE(r->tx_bytes[half], r->tx_bytes[half] + bytes);
	/* no bucket, no round, no backoff to end: nothing shared to change */
	if (!READ_ONCE(r->tbf.kbps) && !READ_ONCE(r->in_round) &&
	    READ_ONCE(qp->xmit_retry_ns) == SRDMA_XMIT_RETRY_NS)
		return;
	spin_lock(&r->xmit_lock);
	WRITE_ONCE(qp->xmit_retry_ns, SRDMA_XMIT_RETRY_NS);
	srdma_tbf_charge(&r->tbf, bytes);
	/* the deficit is the port lock's: srdma_sched_may_send() takes it */
	r->uncharged += bytes;
	spin_unlock(&r->xmit_lock);
}

/**
 * srdma_sched_idle() - a half of the QP's engine has nothing more to send
 * for now: the QP leaves its round once neither half has
 * @qp: the QP
 * @half: enum srdma_half: that half, running
 */
void srdma_sched_idle(struct srdma_qp *qp, enum srdma_half half)
{
	struct srdma_port_rate *port = &to_srdma_dev(qp->ibqp.device)->rate;
	struct srdma_qp_rate *r = &qp->rate;

	srdma_engine_assert_owned(qp, half);
	/* only a new round sets in_round behind our back, and then kicks us */
	if (!(READ_ONCE(r->sending) & BIT(half)) && !READ_ONCE(r->in_round))
		return;
	spin_lock(&r->xmit_lock);
	r->sending &= ~BIT(half);
	if (!r->sending && READ_ONCE(r->in_round)) {
		spin_lock(&port->lock);
		srdma_sched_leave_round(port, r);
		spin_unlock(&port->lock);
	}
	spin_unlock(&r->xmit_lock);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_sched_idle);

/**
 * srdma_sched_leave() - the QP leaves the round-robin for good (or until
 * its engine runs again)
 * @qp: the QP, its engine paused
 */
void srdma_sched_leave(struct srdma_qp *qp)
{
	struct srdma_port_rate *port = &to_srdma_dev(qp->ibqp.device)->rate;

	spin_lock_bh(&qp->rate.xmit_lock);
	qp->rate.sending = 0;
	spin_lock(&port->lock);
	srdma_sched_leave_round(port, &qp->rate);
	list_del_init(&qp->rate.wait_node);
	spin_unlock(&port->lock);
	spin_unlock_bh(&qp->rate.xmit_lock);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_sched_leave);

/**
 * srdma_port_rate_refresh() - read the netdev's speed again
 * @sdev: the device
 *
 * Return: the port's speed in kbit/s, SRDMA_UNKNOWN_PORT_KBPS if the netdev
 * reports none. The caller holds RTNL.
 */
u64 srdma_port_rate_refresh(struct srdma_dev *sdev)
{
	struct srdma_port_rate *port = &sdev->rate;
	struct ethtool_link_ksettings ks;
	u64 kbps = SRDMA_UNKNOWN_PORT_KBPS;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(sdev->ndev, &ks) &&
	    ks.base.speed && ks.base.speed != SPEED_UNKNOWN)
		kbps = (u64)ks.base.speed * 1000;

	spin_lock_bh(&port->lock);
	if (port->port_kbps != kbps) {
		port->port_kbps = kbps;
		port->gen++;
	}
	spin_unlock_bh(&port->lock);
	return kbps;
}

void srdma_port_rate_init(struct srdma_dev *sdev)
{
	struct srdma_port_rate *port = &sdev->rate;

	spin_lock_init(&port->lock);
	INIT_LIST_HEAD(&port->waiting);
	port->port_kbps = SRDMA_UNKNOWN_PORT_KBPS;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_port_rate_init);

static enum hrtimer_restart srdma_sched_timer_expired(struct hrtimer *timer)
{
	srdma_task_kick_both(container_of(timer, struct srdma_qp, rate.timer));
	return HRTIMER_NORESTART;
}

void srdma_qp_rate_init(struct srdma_qp *qp)
{
	struct srdma_qp_rate *r = &qp->rate;

	memset(r, 0, sizeof(*r));
	spin_lock_init(&r->lock);
	spin_lock_init(&r->xmit_lock);
	INIT_LIST_HEAD(&r->wait_node);
	/*
	 * Hard: a soft timer expires in a softirq, which a busy CPU leaves
	 * to ksoftirqd, late by a time slice; this one queues the engine's
	 * high-priority work from the interrupt.
	 */
	hrtimer_init(&r->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	r->timer.function = srdma_sched_timer_expired;
	/* differs from any sum of generations until the first apply */
	r->applied_gen = U32_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_rate_init);

/* whether the port counts the QP among those that set a rate */
static void srdma_qp_rate_count(struct srdma_qp *qp, bool counted)
{
	struct srdma_port_rate *port = &to_srdma_dev(qp->ibqp.device)->rate;
	struct srdma_qp_rate *r = &qp->rate;

	lockdep_assert_held(&r->lock);
	if (r->counted == counted)
		return;
	r->counted = counted;
	if (counted)
		atomic_inc(&port->nr_rate_qps);
	else
		atomic_dec(&port->nr_rate_qps);
}

/* one source of the QP's rate changed: its engine applies it */
static void srdma_qp_rate_changed(struct srdma_qp *qp)
{
	const struct srdma_rate_cfg *cfg = &qp->rate.cfg;

	lockdep_assert_held(&qp->rate.lock);
	qp->rate.gen++;
	srdma_qp_rate_count(qp, cfg->admin_kbps || cfg->verbs_kbps ||
			    cfg->av_kbps);
}

/**
 * srdma_qp_rate_fini() - the QP goes: the port no longer counts its rate
 * @qp: the QP, its engine paused
 */
void srdma_qp_rate_fini(struct srdma_qp *qp)
{
	spin_lock_bh(&qp->rate.lock);
	srdma_qp_rate_count(qp, false);
	spin_unlock_bh(&qp->rate.lock);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_rate_fini);

/**
 * srdma_qp_rate_set_verbs() - IB_QP_RATE_LIMIT
 * @qp: the QP
 * @kbps: 0: none
 */
void srdma_qp_rate_set_verbs(struct srdma_qp *qp, u64 kbps)
{
	spin_lock_bh(&qp->rate.lock);
	qp->rate.cfg.verbs_kbps = kbps;
	srdma_qp_rate_changed(qp);
	spin_unlock_bh(&qp->rate.lock);
}

/**
 * srdma_qp_rate_set_av() - the static_rate of the QP's address vector
 * @qp: the QP
 * @static_rate: enum ib_rate
 */
void srdma_qp_rate_set_av(struct srdma_qp *qp, u8 static_rate)
{
	spin_lock_bh(&qp->rate.lock);
	qp->rate.cfg.av_kbps = srdma_static_rate_kbps(static_rate);
	srdma_qp_rate_changed(qp);
	spin_unlock_bh(&qp->rate.lock);
}

/**
 * srdma_qp_rate_set_admin() - an administrator's rate for the QP
 * @qp: the QP
 * @kbps: 0: none (the other sources apply again)
 * @burst: bytes; 0: the default
 *
 * Takes effect at once: the engine is kicked, and a QP waiting for tokens
 * at the old rate looks again.
 */
void srdma_qp_rate_set_admin(struct srdma_qp *qp, u64 kbps, u32 burst)
{
	spin_lock_bh(&qp->rate.lock);
	qp->rate.cfg.admin_kbps = kbps;
	qp->rate.cfg.admin_burst = kbps ? burst : 0;
	srdma_qp_rate_changed(qp);
	spin_unlock_bh(&qp->rate.lock);
	srdma_task_kick_both_later(qp);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_rate_set_admin);

/**
 * srdma_qp_rate_read() - what netlink shows of a QP
 * @qp: the QP
 * @cfg: set to its sources
 * @info: set to the rate in force and the counters
 */
void srdma_qp_rate_read(struct srdma_qp *qp, struct srdma_rate_cfg *cfg,
			struct srdma_qp_rate_info *info)
{
	struct srdma_qp_rate *r = &qp->rate;

	spin_lock_bh(&r->lock);
	*cfg = r->cfg;
	spin_unlock_bh(&r->lock);
	/* the engine's own view; at worst one change behind */
	info->kbps = READ_ONCE(r->tbf.kbps);
	info->source = READ_ONCE(r->source);
	info->depth_ns = READ_ONCE(r->tbf.depth_ns);
	info->throttle_events = READ_ONCE(r->throttle_events);
	info->throttled_ns = READ_ONCE(r->throttled_ns);
	info->tx_bytes = READ_ONCE(r->tx_bytes[SRDMA_HALF_SEND]) +
			 READ_ONCE(r->tx_bytes[SRDMA_HALF_RECV]);
}
