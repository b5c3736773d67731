// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC requester's congestion window, in PSNs: how many may be
 * unacknowledged, at most SRDMA_MAX_INFLIGHT_PSNS. TCP Reno's rules
 * (RFC 5681), counted in PSNs: a new connection starts with
 * SRDMA_CWND_INITIAL; a loss the peer tells of (a sequence NAK, a gap in
 * read responses) halves the window, an ACK timeout takes it to one PSN;
 * it grows by one PSN per PSN acknowledged up to the threshold (the whole
 * window at first, then half what was in flight at the last loss: slow
 * start), then by one per window acknowledged.
 *
 * Why: QPs sharing a link each keep their window in flight. With many of
 * them the queues before the link held more than an ACK timeout drains:
 * every QP timed out, and sent its whole window again once its probe was
 * answered (256 QPs over the rig's link retransmitted half of what they
 * sent, and perftest gave no figure). So the queues must stay short:
 * losses shrink the windows, and QPs that join a busy link start with a
 * few packets, not a whole window.
 *
 * Beside it, the round trip, measured as TCP does (RFC 6298: one PSN timed
 * at a time, smoothed): the ACK timeout of a QP is the least it waits, and
 * a path whose round trips are longer than that (many QPs on one link)
 * gets a longer one, within bounds, rather than timeouts that send again
 * what is on its way.
 */
#include <kunit/visibility.h>
#include <srdma/psn.h>

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
 * srdma_rtt_acked() - every PSN before @next is acknowledged: a sample if
 * the PSN timed is among them
 * @rtt: the estimate
 * @next: the oldest PSN not acknowledged now
 *
 * A PSN sent again is timed from its last sending, so a sample may be
 * short (the ACK was of the first): the timeout never goes below the
 * QP's, which bounds what that costs.
 */
void srdma_rtt_acked(struct srdma_rtt *rtt, u32 next)
{
	u32 r, err;

	if (!rtt->sent_ns || !srdma_psn_before(rtt->psn, next))
		return;
	r = clamp_t(u64, div_u64(ktime_get_ns() - rtt->sent_ns, NSEC_PER_USEC),
		    1, U32_MAX / 8);
	rtt->sent_ns = 0;
	if (!rtt->srtt_us) {
		rtt->srtt_us = r;
		rtt->rttvar_us = r / 2;
		return;
	}
	/* RFC 6298: gains of 1/8 and 1/4 */
	err = r > rtt->srtt_us ? r - rtt->srtt_us : rtt->srtt_us - r;
	rtt->rttvar_us = rtt->rttvar_us - rtt->rttvar_us / 4 + err / 4;
	rtt->srtt_us = rtt->srtt_us - rtt->srtt_us / 8 + r / 8;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_rtt_acked);

/**
 * srdma_rtt_timeout_ns() - the ACK timeout to run
 * @rtt: the estimate
 * @timeout_ns: the QP's (srdma_ack_timeout_ns()); 0: none
 *
 * The QP's is the least a requester waits (ibv_modify_qp(3)). Where the
 * round trips measured are longer, smoothed plus four deviations (RFC
 * 6298), at most SRDMA_ACK_TIMEOUT_STRETCH times the QP's, so that a dead
 * peer is still found in bounded time; a peer that never answered leaves
 * the QP's.
 *
 * Return: nanoseconds, 0 for none.
 */
u64 srdma_rtt_timeout_ns(const struct srdma_rtt *rtt, u64 timeout_ns)
{
	u64 rto;

	if (!timeout_ns || !rtt->srtt_us)
		return timeout_ns;
	rto = ((u64)rtt->srtt_us + 4ULL * rtt->rttvar_us) * NSEC_PER_USEC;
	return clamp(rto, timeout_ns, timeout_ns * SRDMA_ACK_TIMEOUT_STRETCH);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_rtt_timeout_ns);
