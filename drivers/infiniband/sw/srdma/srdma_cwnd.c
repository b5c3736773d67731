// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC requester's congestion window, in PSNs: how many may be
 * unacknowledged, at most SRDMA_MAX_INFLIGHT_PSNS. A loss the peer tells
 * of (a sequence NAK, a gap in read responses) halves it; an ACK timeout
 * takes it down to one PSN. It grows back by one PSN per PSN acknowledged
 * up to half what it was (slow start), then by one per window acknowledged
 * (congestion avoidance): TCP Reno's rules (RFC 5681), counted in PSNs.
 * A QP that loses nothing keeps the whole window, as before there was one.
 *
 * Why: QPs sharing a link each keep their window in flight. With many of
 * them the queues in front of the link hold more than an ACK timeout
 * drains: every QP times out, sends again and, with a whole window after
 * each probe, keeps the queues as full (256 QPs over the rig's link
 * retransmitted half of what they sent). Shrunk windows let the queues
 * drain; each QP's timeouts then mean what they should.
 */
#include <kunit/visibility.h>

#include "srdma_engine.h"

/**
 * srdma_cwnd_acked() - @npsn PSNs not acknowledged before are
 * @cw: the window
 * @npsn: how many
 */
void srdma_cwnd_acked(struct srdma_cwnd *cw, u32 npsn)
{
	u32 grow;

	if (cw->size < cw->ssthresh) {
		grow = min(npsn, cw->ssthresh - cw->size);
		cw->size += grow;
		npsn -= grow;
	}
	if (cw->size >= SRDMA_MAX_INFLIGHT_PSNS) {
		cw->acked = 0;
		return;
	}
	cw->acked += npsn;
	while (cw->acked >= cw->size && cw->size < SRDMA_MAX_INFLIGHT_PSNS) {
		cw->acked -= cw->size;
		cw->size++;
	}
}
EXPORT_SYMBOL_IF_KUNIT(srdma_cwnd_acked);

/**
 * srdma_cwnd_lost() - a packet was lost with @flight PSNs unacknowledged
 * @cw: the window
 * @flight: PSNs sent and not acknowledged when the loss was found
 * @timeout: found by the ACK timeout, not by the peer's word
 */
void srdma_cwnd_lost(struct srdma_cwnd *cw, u32 flight, bool timeout)
{
	/* a QP that did not fill its window halves what it used */
	cw->ssthresh = max(min(flight, cw->size) / 2, 2U);
	cw->size = timeout ? 1 : cw->ssthresh;
	cw->acked = 0;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_cwnd_lost);

/**
 * srdma_cwnd_ackreq_pkts() - packets between two that ask for an ACK
 * @cw: the window
 *
 * Two per window at least, so that a small window is not left waiting
 * for the ACK timeout: the ACK of its first half reopens it.
 */
u32 srdma_cwnd_ackreq_pkts(const struct srdma_cwnd *cw)
{
	return clamp(cw->size / 2, 1U, (u32)SRDMA_ACKREQ_EVERY_PKTS);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_cwnd_ackreq_pkts);
