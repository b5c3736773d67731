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
 * sent, and perftest gave no figure). A QP's ACK timeout is fixed (IBTA),
 * so the queues must stay short: losses shrink the windows, and QPs that
 * join a busy link start with a few packets, not a whole window.
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
