// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Received RoCEv2 packets: checked, then queued for the engine of their QP.
 *
 * In softirq context, srdma checks what a packet claims about itself
 * (lengths, opcode, version, P_Key, ICRC), finds its QP, checks that it
 * comes from the QP's peer, and queues it: requests for the responder,
 * responses and ACKs for the completer. The engine runs inline if no one
 * else runs it. Each refused packet is counted, never logged.
 */
#include <kunit/visibility.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>

#include "srdma_engine.h"
#include "srdma_trace.h"

/* the packet's source address as a GID, to compare with the QP's peer */
static void srdma_pkt_sgid(struct sk_buff *skb, bool ipv6, union ib_gid *gid)
{
	if (ipv6)
		memcpy(gid->raw, &ipv6_hdr(skb)->saddr, sizeof(gid->raw));
	else
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr,
				       (struct in6_addr *)gid->raw);
}

/**
 * srdma_pkt_parse() - the lengths and fields a packet must have
 * @skb: the packet, skb->data at the BTH, its network header set
 *
 * The transport headers are pulled into the skb's linear part; the
 * payload stays where it is (in the pages of a NIC's receive buffers, say),
 * read from there by the ICRC check and copied from there into its
 * destination.
 *
 * Return: true if they are right; srdma_pkt(skb) is then filled.
 */
VISIBLE_IF_KUNIT bool srdma_pkt_parse(struct sk_buff *skb)
{
	struct srdma_pkt *pkt = srdma_pkt(skb);
	struct srdma_bth *bth;
	unsigned int hdr, pad;
	u32 flags;

	if (skb->len < SRDMA_BTH_BYTES + SRDMA_ICRC_BYTES ||
	    !pskb_may_pull(skb, SRDMA_BTH_BYTES))
		return false;
	bth = (struct srdma_bth *)skb->data;
	flags = srdma_op_flags(bth->opcode);
	hdr = srdma_op_hdr_bytes(bth->opcode);
	pad = srdma_bth_pad(bth);
	if (!flags || srdma_bth_tver(bth) ||
	    skb->len < hdr + pad + SRDMA_ICRC_BYTES || !pskb_may_pull(skb, hdr))
		return false;
	/* the pull may have moved the linear part */
	bth = (struct srdma_bth *)skb->data;
	if ((be16_to_cpu(bth->pkey) & ~SRDMA_PKEY_MEMBER) !=
	    (SRDMA_PKEY_DEFAULT & ~SRDMA_PKEY_MEMBER))
		return false;
	pkt->opcode = bth->opcode;
	pkt->psn = srdma_bth_psn(bth);
	pkt->paylen = skb->len - hdr - pad - SRDMA_ICRC_BYTES;
	pkt->ipv6 = skb->protocol == htons(ETH_P_IPV6);
	if (!(flags & SRDMA_OP_PAYLOAD) && (pkt->paylen || pad))
		return false;
	if (!pkt->ipv6 && ip_hdr(skb)->ihl != sizeof(struct iphdr) >> 2)
		return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_pkt_parse);

/* the transport of each QP type's packets */
static bool srdma_recv_transport_ok(const struct srdma_qp *qp, u8 transport)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return transport == IB_OPCODE_RC;
	case IB_QPT_UC:
		return transport == IB_OPCODE_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return transport == IB_OPCODE_UD;
	default:
		return false;
	}
}

/*
 * Whether @qp takes a packet of @transport from @sgid: the counter of the
 * reason if not, else SRDMA_NUM_COUNTERS. A connected QP takes packets from
 * its peer only; a datagram may come from anyone (its Q_Key is checked
 * later, in order).
 */
static enum srdma_counter srdma_recv_check(struct srdma_qp *qp,
					   const union ib_gid *sgid,
					   u8 transport)
{
	enum ib_qp_state state;

	if (!srdma_recv_transport_ok(qp, transport))
		return SRDMA_CNT_DROP_BAD_HEADER;
	if (transport != IB_OPCODE_UD &&
	    memcmp(sgid, &qp->av.dgid, sizeof(*sgid)))
		return SRDMA_CNT_DROP_BAD_HEADER;
	state = READ_ONCE(qp->state);
	if (state < IB_QPS_RTR || state == IB_QPS_ERR)
		return SRDMA_CNT_DROP_QP_STATE;
	return SRDMA_NUM_COUNTERS;
}

/**
 * srdma_recv_local_ack() - an ACK from a responder to a QP of the same
 * device, handed to that QP's completer without a packet
 * @sdev: the device of both
 * @from: the responder's QP, its receive half running; its path leads to
 *	  @sdev itself (srdma_av_is_local())
 * @psn: the newest PSN acknowledged
 *
 * Only while no response of @from waits in the peer's queue: the completer
 * takes this ACK before the packets queued after it, so it never passes a
 * read response sent before it. A newer ACK replaces one not taken yet:
 * an ACK covers every PSN before its own.
 *
 * Return: true if handed over; false if it must go as a packet.
 */
bool srdma_recv_local_ack(struct srdma_dev *sdev, struct srdma_qp *from,
			  u32 psn)
{
	struct srdma_qp *qp = srdma_qp_get(sdev, from->attr.dest_qp_num);
	bool taken = false;

	if (!qp)
		return false;
	/* as srdma_recv() takes an ACK packet from @from */
	if (srdma_recv_check(qp, &from->av.sgid, IB_OPCODE_RC) ==
	    SRDMA_NUM_COUNTERS &&
	    skb_queue_empty_lockless(&qp->comp_pkts)) {
		atomic_set(&qp->local_ack, psn | SRDMA_LOCAL_ACK);
		srdma_count(sdev, SRDMA_CNT_LOCAL_ACKS);
		srdma_task_kick(qp, SRDMA_HALF_SEND);
		taken = true;
	}
	srdma_qp_put(qp);
	return taken;
}

/**
 * srdma_recv() - take a received packet
 * @sdev: the device it came to
 * @skb: the packet, skb->data at the BTH, network header set; consumed
 * @trusted: built by this host (loopback): no ICRC to check
 *
 * Return: -ENOBUFS if the QP's queue was full, else 0 (the packet was
 * queued, or dropped and counted). On loopback the sender takes the first
 * as a full transmit queue and sends again a little later: UC and UD have
 * no window that would hold a fast sender back.
 */
int srdma_recv(struct srdma_dev *sdev, struct sk_buff *skb, bool trusted)
{
	enum srdma_counter drop = SRDMA_CNT_DROP_BAD_HEADER;
	union ib_gid sgid = {};
	struct srdma_qp *qp;
	u8 transport;
	u32 qpn;

	if (!srdma_pkt_parse(skb))
		goto drop;
	if (!trusted && !srdma_icrc_skb_ok(skb, srdma_pkt(skb)->ipv6)) {
		drop = SRDMA_CNT_DROP_BAD_ICRC;
		goto drop;
	}

	qpn = srdma_bth_qpn((struct srdma_bth *)skb->data);
	transport = srdma_op_transport(srdma_pkt(skb)->opcode);
	if (qpn == IB_MULTICAST_QPN && transport == IB_OPCODE_UD) {
		srdma_mcast_recv(sdev, skb);
		return 0;
	}
	drop = SRDMA_CNT_DROP_NO_QP;
	qp = srdma_qp_get(sdev, qpn);
	if (!qp)
		goto drop;
	/* a datagram's source is not checked here */
	if (transport != IB_OPCODE_UD)
		srdma_pkt_sgid(skb, srdma_pkt(skb)->ipv6, &sgid);
	drop = srdma_recv_check(qp, &sgid, transport);
	if (drop == SRDMA_NUM_COUNTERS) {
		trace_srdma_recv(qpn, (struct srdma_bth *)skb->data, skb->len);
		drop = srdma_task_recv(qp, skb);
	}
	srdma_qp_put(qp);
	if (drop == SRDMA_NUM_COUNTERS)
		return 0;
drop:
	srdma_count(sdev, drop);
	kfree_skb(skb);
	return drop == SRDMA_CNT_DROP_QUEUE_FULL ? -ENOBUFS : 0;
}
