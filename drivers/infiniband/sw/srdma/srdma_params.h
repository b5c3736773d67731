/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * srdma's parameters: the identity it reports, the limits it advertises,
 * and the transport's tuning.
 */
#ifndef SRDMA_PARAMS_H
#define SRDMA_PARAMS_H

#include <linux/bits.h>
#include <linux/time64.h>

/* The rxe user ABI, so that stock librxe from rdma-core drives srdma. */
#define SRDMA_UVERBS_ABI_VERSION	2

/* No IEEE OUI of our own: the value rdma_rxe also reports. */
#define SRDMA_VENDOR_ID			0xffffff
#define SRDMA_VENDOR_PART_ID		0x5344	/* "SD" */
#define SRDMA_HW_VERSION		1
/* Firmware version major.minor.sub, packed as librxe unpacks attr.fw_ver */
#define SRDMA_FW_MAJOR			0
#define SRDMA_FW_MINOR			1
#define SRDMA_FW_SUB			0
#define SRDMA_FW_VERSION		((u64)SRDMA_FW_MAJOR << 32 | \
					 SRDMA_FW_MINOR << 16 | SRDMA_FW_SUB)

#define SRDMA_PORT			1	/* srdma devices have one port */
#define SRDMA_GID_TABLE_LEN		256
#define SRDMA_PKEY_TABLE_LEN		1
#define SRDMA_MAX_MSG_BYTES		BIT(31)
#define SRDMA_MAX_PD			BIT(16)

/* Object limits, advertised in the device attributes */
#define SRDMA_MAX_QP			BIT(16)
#define SRDMA_MAX_QP_WR			BIT(14)
#define SRDMA_MAX_SGE			32
#define SRDMA_MAX_INLINE_BYTES		512
#define SRDMA_MAX_CQ			BIT(16)
#define SRDMA_MAX_CQE			(BIT(16) - 1)
#define SRDMA_MAX_MR			BIT(16)
#define SRDMA_MAX_MR_BYTES		U64_MAX
#define SRDMA_MAX_FAST_REG_PAGES	512
#define SRDMA_MAX_SRQ			BIT(14)
#define SRDMA_MAX_SRQ_WR		BIT(14)
#define SRDMA_MAX_SRQ_SGE		SRDMA_MAX_SGE
#define SRDMA_MAX_AH			BIT(16)
#define SRDMA_MAX_MCAST_GRP		8192
#define SRDMA_MAX_MCAST_QP_ATTACH	56
/* outstanding RDMA reads and atomics, as responder and as requester */
#define SRDMA_MAX_RD_ATOMIC		128
#define SRDMA_PAGE_SIZE_CAP		0xfffff000

/* QP numbers: 0 and 1 are the special QPs, the rest are 24 bits */
#define SRDMA_GSI_QPN			1
#define SRDMA_MIN_QPN			16
#define SRDMA_MAX_QPN			(BIT(24) - 1)

/* widths of QP attributes: 5-bit timers, 3-bit retry counts */
#define SRDMA_QP_TIMEOUT_MAX		31
#define SRDMA_QP_RETRY_MAX		7

/*
 * Bytes a RoCEv2 packet needs around its payload at most: IPv6 (40), UDP (8),
 * BTH (12), the largest extension headers that travel with payload (RETH and
 * ImmDt, 16 + 4) and the ICRC (4). The active MTU is the largest IB MTU that
 * fits in the netdev MTU after them.
 */
#define SRDMA_MAX_HDR_BYTES		(40 + 8 + 12 + 16 + 4 + 4)

/* RC transport tuning */
#define SRDMA_MAX_INFLIGHT_PSNS		64	/* requester window */
/*
 * Send WQEs between the oldest not completed and the newest the requester
 * copied from the ring, at most: the copies (struct srdma_swqe) take this
 * many entries, whatever the queue's depth. As many as the PSN window: a
 * WQE sent takes a PSN at least, so only WQEs without one (local
 * operations) ever wait for this window rather than for that one.
 */
#define SRDMA_SWQE_WINDOW		64
#define SRDMA_ACKREQ_EVERY_PKTS		16	/* AckReq at least this often */
/*
 * PSNs of a new connection's congestion window (32 KiB at the MTU of 4096;
 * TCP starts with 10 segments, RFC 6928)
 */
#define SRDMA_CWND_INITIAL		8
/*
 * The ACK timeout runs up to this many times the QP's when the round trips
 * measured are that long (srdma_rtt_timeout_ns())
 */
#define SRDMA_ACK_TIMEOUT_STRETCH	4
#define SRDMA_REORDER_NAK_PKTS		3	/* held ahead of a gap: NAK it */
#define SRDMA_ENGINE_BATCH		16	/* packets per call of one engine */
#define SRDMA_TASK_BUDGET		64	/* packets per run, then others */
#define SRDMA_MAX_QUEUED_PKTS		4096	/* received, per QP and engine */
/*
 * An RC payload of this many bytes or more is sent from the memory it is
 * in, as page fragments (srdma_mr_attach()); a smaller one is copied into
 * the packet, which costs less than the page references and the pad and
 * ICRC's own fragment. RC only: its WQEs complete when ACKed, so the
 * memory is not given back while the packet may still be sent; UC and UD
 * complete as they send.
 */
#define SRDMA_TX_PAGED_MIN_BYTES	512
#define SRDMA_XMIT_RETRY_NS		(20 * NSEC_PER_USEC)
#define SRDMA_XMIT_RETRY_MAX_NS		(4 * NSEC_PER_MSEC)	/* backed off */
#define SRDMA_UDP_SPORT_BASE		0xc000	/* RoCEv2 source ports from here */
#define SRDMA_UDP_SPORT_BITS		14

#endif /* SRDMA_PARAMS_H */
