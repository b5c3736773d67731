// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RAW_PACKET QPs: whole Ethernet frames, to and from the port's netdev.
 *
 * Creating one needs CAP_NET_RAW (ib_uverbs checks it). A send WQE holds
 * one whole frame, from the destination MAC on, of ETH_HLEN bytes up to
 * the netdev's MTU plus its Ethernet (and one VLAN) header; it goes to
 * the netdev's transmit queue as it is and completes when handed over. A
 * frame the netdev drops is lost, as on a wire, and counted.
 *
 * What a RAW_PACKET QP receives, from RTR on: a copy of every frame that
 * arrives on the netdev, from the destination MAC on, except the RoCEv2
 * packets (UDP port 4791, which srdma's own QPs take) and the frames the
 * host itself sends. librxe has no flow steering, so there is no filter:
 * every such QP of the device gets every such frame. A frame takes the
 * QP's oldest receive WQE; with none posted, or one too small, it is
 * dropped and counted (the WQE too small completes with LOC_LEN_ERR).
 */
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/udp.h>
#include <rdma/ib_verbs.h>

#include "srdma_engine.h"

/* the largest frame the netdev sends: its MTU, Ethernet and a VLAN tag */
static u32 srdma_raw_max_frame(struct srdma_dev *sdev)
{
	return READ_ONCE(sdev->ndev->mtu) + VLAN_ETH_HLEN;
}

/* the frame of @swqe, built; NULL and *@status set if it cannot be */
static struct sk_buff *srdma_raw_frame(struct srdma_qp *qp,
				       struct srdma_swqe *swqe,
				       enum ib_wc_status *status)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	u32 len = swqe->length;
	struct sk_buff *skb;
	void *data;

	if (len < ETH_HLEN || len > srdma_raw_max_frame(sdev)) {
		*status = IB_WC_LOC_LEN_ERR;
		return NULL;
	}
	skb = alloc_skb(LL_RESERVED_SPACE(sdev->ndev) + len, GFP_ATOMIC);
	if (!skb) {
		*status = IB_WC_SUCCESS;	/* try again */
		return NULL;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(sdev->ndev));
	data = skb_put(skb, len);
	if (srdma_swqe_copy(qp, swqe, 0, data, len)) {
		kfree_skb(skb);
		*status = IB_WC_LOC_PROT_ERR;
		return NULL;
	}
	skb->dev = sdev->ndev;
	skb_reset_mac_header(skb);
	skb->protocol = eth_hdr(skb)->h_proto;
	skb_set_network_header(skb, ETH_HLEN);
	return skb;
}

/**
 * srdma_raw_req_step() - send the frame of one WQE
 * @qp: the RAW_PACKET QP, in RTS
 * @swqe: the WQE the requester is at, not done
 *
 * Return: true if it did something.
 */
bool srdma_raw_req_step(struct srdma_qp *qp, struct srdma_swqe *swqe)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	enum ib_wc_status status;
	struct sk_buff *skb;
	u32 bytes;

	if (srdma_sched_may_send(qp, SRDMA_HALF_SEND) == SRDMA_SEND_WAIT)
		return false;
	skb = srdma_raw_frame(qp, swqe, &status);
	if (!skb) {
		if (status == IB_WC_SUCCESS) {
			srdma_qp_xmit_refused(qp);
			return false;
		}
		srdma_swqe_done(qp, swqe, status);
		return true;
	}
	bytes = skb->len;
	if (dev_queue_xmit(skb)) {
		srdma_count(sdev, SRDMA_CNT_XMIT_REFUSED);
	} else {
		srdma_count(sdev, SRDMA_CNT_SENT_PKTS);
		srdma_qp_charge(qp, SRDMA_HALF_SEND, bytes);
	}
	srdma_swqe_done(qp, swqe, IB_WC_SUCCESS);
	srdma_swqe_next(qp);
	return true;
}

/**
 * srdma_raw_recv_frame() - deliver one received frame
 * @qp: the RAW_PACKET QP, in RTR, RTS or SQD
 * @skb: the frame, from the destination MAC on
 */
void srdma_raw_recv_frame(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct ib_wc wc = { .opcode = IB_WC_RECV };
	struct srdma_resp *resp = &qp->resp;
	int err;

	if (skb_linearize(skb)) {
		srdma_count(sdev, SRDMA_CNT_DROP_QUEUE_FULL);
		return;
	}
	err = srdma_rwqe_take(qp);
	if (err == -ENOENT) {
		srdma_count(sdev, SRDMA_CNT_DROP_NO_RWQE);
		return;
	}
	if (err) {
		srdma_rwqe_fail(qp, IB_WC_LOC_QP_OP_ERR, IB_EVENT_QP_FATAL);
		return;
	}
	if (skb->len > resp->rwqe_length) {
		wc.status = IB_WC_LOC_LEN_ERR;
		srdma_count(sdev, SRDMA_CNT_LOCAL_ERRORS);
	} else {
		err = srdma_sge_copy(qp, resp->rwqe->dma.sge,
				     resp->rwqe->dma.num_sge, 0, skb->data,
				     skb->len, true);
		/* an ODP page being faulted in: the frame is lost */
		if (err == -EINPROGRESS)
			return;
		if (err) {
			srdma_rwqe_fail(qp, IB_WC_LOC_PROT_ERR,
					IB_EVENT_QP_FATAL);
			return;
		}
	}
	wc.byte_len = skb->len;
	srdma_rwqe_complete(qp, &wc, false);
}

/* a RoCEv2 packet (UDP to port 4791): srdma's QPs take it, not raw ones */
static bool srdma_raw_is_rocev2(struct sk_buff *skb)
{
	struct udphdr _uh, *uh;
	unsigned int off;
	u8 proto;

	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr _iph, *iph;

		iph = skb_header_pointer(skb, 0, sizeof(_iph), &_iph);
		if (!iph || iph->ihl < 5)
			return false;
		proto = iph->protocol;
		off = iph->ihl * 4;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		struct ipv6hdr _ip6h, *ip6h;

		ip6h = skb_header_pointer(skb, 0, sizeof(_ip6h), &_ip6h);
		if (!ip6h)
			return false;
		proto = ip6h->nexthdr;
		off = sizeof(*ip6h);
	} else {
		return false;
	}
	if (proto != IPPROTO_UDP)
		return false;
	uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
	return uh && uh->dest == htons(ROCE_V2_UDP_DPORT);
}

/* every frame the netdev receives (ETH_P_ALL); @skb is shared */
static int srdma_raw_tap(struct sk_buff *skb, struct net_device *ndev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	struct srdma_dev *sdev = container_of(pt, struct srdma_dev, raw_tap);
	enum srdma_counter drop;
	enum ib_qp_state state;
	struct sk_buff *copy;
	struct srdma_qp *qp;

	if (skb->pkt_type == PACKET_OUTGOING || srdma_raw_is_rocev2(skb))
		goto out;
	rcu_read_lock();
	list_for_each_entry_rcu(qp, &sdev->raw_qps, raw_node) {
		state = srdma_qp_state(qp);
		if (state < IB_QPS_RTR || state == IB_QPS_ERR)
			continue;
		copy = skb_clone(skb, GFP_ATOMIC);
		if (!copy)
			break;
		/* from the destination MAC on */
		skb_push(copy, skb->data - skb_mac_header(skb));
		drop = srdma_task_enqueue(qp, &qp->resp_pkts, copy, false);
		if (drop != SRDMA_NUM_COUNTERS) {
			srdma_count(sdev, drop);
			kfree_skb(copy);
		}
	}
	rcu_read_unlock();
out:
	kfree_skb(skb);
	return 0;
}

/**
 * srdma_raw_qp_add() - a RAW_PACKET QP starts to see the netdev's frames
 * @qp: the new QP
 *
 * The first one of the device starts the tap.
 */
void srdma_raw_qp_add(struct srdma_qp *qp)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);

	mutex_lock(&sdev->raw_mutex);
	if (list_empty(&sdev->raw_qps)) {
		sdev->raw_tap.type = htons(ETH_P_ALL);
		sdev->raw_tap.dev = sdev->ndev;
		sdev->raw_tap.func = srdma_raw_tap;
		dev_add_pack(&sdev->raw_tap);
	}
	list_add_tail_rcu(&qp->raw_node, &sdev->raw_qps);
	mutex_unlock(&sdev->raw_mutex);
}

/**
 * srdma_raw_qp_del() - a RAW_PACKET QP goes
 * @qp: the QP; the caller waits for an RCU grace period before freeing it
 *
 * The last one of the device stops the tap.
 */
void srdma_raw_qp_del(struct srdma_qp *qp)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);

	mutex_lock(&sdev->raw_mutex);
	list_del_rcu(&qp->raw_node);
	if (list_empty(&sdev->raw_qps))
		dev_remove_pack(&sdev->raw_tap);
	mutex_unlock(&sdev->raw_mutex);
}

/**
 * srdma_raw_init() - no RAW_PACKET QPs yet
 * @sdev: the device
 */
void srdma_raw_init(struct srdma_dev *sdev)
{
	INIT_LIST_HEAD(&sdev->raw_qps);
	mutex_init(&sdev->raw_mutex);
}

/**
 * srdma_raw_exit() - the RAW_PACKET QPs are gone
 * @sdev: the device
 */
void srdma_raw_exit(struct srdma_dev *sdev)
{
	WARN_ON(!list_empty(&sdev->raw_qps));
	mutex_destroy(&sdev->raw_mutex);
}
