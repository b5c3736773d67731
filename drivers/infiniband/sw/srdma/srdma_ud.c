// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UD and GSI datagrams (IBTA 9.8.4, 10.2.5; Annex A17 for RoCEv2).
 *
 * A send WQE is one packet, SEND_ONLY or SEND_ONLY_WITH_IMMEDIATE with a
 * DETH, to the QP number and through the AH its WQE names; it completes as
 * soon as the packet is out. A message larger than the port's MTU
 * completes with IB_WC_LOC_LEN_ERR. The Q_Key sent is the WQE's, or the
 * QP's own when the WQE's has its high bit set; the GSI QP always sends
 * and accepts IB_QP1_QKEY.
 *
 * A received datagram whose Q_Key is not the QP's is dropped and counted,
 * as is one that finds no receive WQE. The first 40 bytes of the receive
 * buffer get the GRH area: the IPv6 header, or 20 zero bytes and the IPv4
 * header (union rdma_network_hdr); the payload follows. A buffer too small
 * for both completes with IB_WC_LOC_LEN_ERR and the datagram is dropped.
 */
#include <kunit/visibility.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_mad.h>
#include <srdma/psn.h>

#include "srdma_engine.h"

/* the AV of the AH a WQE names, copied: the AH may be destroyed meanwhile */
static bool srdma_ud_av(struct srdma_qp *qp, u32 ah_num, struct srdma_av *av)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_ah *ah;
	unsigned long flags;
	bool found;

	xa_lock_irqsave(&sdev->ah_xa, flags);
	ah = xa_load(&sdev->ah_xa, ah_num);
	found = ah && ah->ibah.pd == qp->ibqp.pd;
	if (found)
		*av = ah->av;
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	return found;
}

/**
 * srdma_ud_send_qkey() - the Q_Key a UD send carries in its DETH
 * @qp: the sending QP
 * @wr_qkey: the Q_Key of its WQE
 *
 * Return: IB_QP1_QKEY for the GSI QP; the QP's own Q_Key if @wr_qkey has
 * the high bit set (IBTA 10.2.5); else @wr_qkey.
 */
u32 srdma_ud_send_qkey(const struct srdma_qp *qp, u32 wr_qkey)
{
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		return IB_QP1_QKEY;
	return wr_qkey & IB_QP_SET_QKEY ? qp->attr.qkey : wr_qkey;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_ud_send_qkey);

/* the port's MTU in bytes: a UD message fits in one packet */
static u32 srdma_ud_mtu_bytes(struct srdma_dev *sdev)
{
	/* port_lock is not a softirq lock: one aligned word, read once */
	return ib_mtu_enum_to_int(READ_ONCE(sdev->active_mtu));
}

/* build and send the one packet of @swqe; 0, or an errno from the netdev */
static int srdma_ud_send_pkt(struct srdma_qp *qp, struct srdma_swqe *swqe,
			     const struct srdma_av *av)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct rxe_send_wr *wr = &swqe->wqe.wr;
	u32 len = swqe->length;
	struct srdma_deth *deth;
	struct srdma_bth *bth;
	struct sk_buff *skb;
	u8 opcode;

	opcode = wr->opcode == IB_WR_SEND_WITH_IMM ?
		 IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE : IB_OPCODE_UD_SEND_ONLY;
	skb = srdma_pkt_alloc(sdev, opcode, len, &bth);
	if (!skb)
		return -ENOMEM;
	deth = srdma_hdr(bth, SRDMA_OP_DETH);
	deth->qkey = cpu_to_be32(srdma_ud_send_qkey(qp, wr->wr.ud.remote_qkey));
	deth->sqp = cpu_to_be32(qp->ibqp.qp_num);
	if (srdma_op_flags(opcode) & SRDMA_OP_IMMDT)
		*(__be32 *)srdma_hdr(bth, SRDMA_OP_IMMDT) = wr->ex.imm_data;
	if (srdma_swqe_copy(qp, swqe, 0, (u8 *)bth + srdma_op_hdr_bytes(opcode),
			    len)) {
		kfree_skb(skb);
		return -EACCES;
	}
	srdma_bth_init(bth, opcode, wr->send_flags & IB_SEND_SOLICITED,
		       srdma_pad_bytes(len), wr->wr.ud.remote_qpn, false,
		       qp->req.psn);
	return srdma_qp_xmit_to(qp, SRDMA_HALF_SEND, av, NULL, skb);
}

/*
 * A UD QP's address vector rate is the static_rate of the AH it sends to
 * now: one bucket, at the rate of the path of the datagram at its head.
 */
static void srdma_ud_rate(struct srdma_qp *qp, const struct srdma_av *av)
{
	/* a stale read costs one needless update, under the lock */
	if (READ_ONCE(qp->rate.cfg.av_kbps) !=
	    srdma_static_rate_kbps(av->static_rate))
		srdma_qp_rate_set_av(qp, av->static_rate);
}

/**
 * srdma_ud_req_step() - send one WQE of a UD or GSI QP
 * @qp: the QP, in RTS
 * @swqe: the WQE the requester is at, not done
 *
 * Return: true if it did something.
 */
bool srdma_ud_req_step(struct srdma_qp *qp, struct srdma_swqe *swqe)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_req *req = &qp->req;
	struct srdma_av av;
	int err;

	if (swqe->length > srdma_ud_mtu_bytes(sdev)) {
		srdma_swqe_done(qp, swqe, IB_WC_LOC_LEN_ERR);
		return true;
	}
	if (!srdma_ud_av(qp, swqe->wqe.wr.wr.ud.ah_num, &av)) {
		srdma_swqe_done(qp, swqe, IB_WC_LOC_QP_OP_ERR);
		return true;
	}
	srdma_ud_rate(qp, &av);
	if (srdma_sched_may_send(qp, SRDMA_HALF_SEND) == SRDMA_SEND_WAIT)
		return false;
	err = srdma_ud_send_pkt(qp, swqe, &av);
	if (err == -EACCES) {
		srdma_swqe_done(qp, swqe, IB_WC_LOC_PROT_ERR);
		return true;
	}
	if (srdma_xmit_busy(err)) {
		/* out of memory or the queue is full: try again soon */
		srdma_qp_xmit_refused(qp);
		return false;
	}
	/* any other error lost the datagram on its way (counted): UD is so */
	req->psn = srdma_psn_add(req->psn, 1);
	srdma_swqe_done(qp, swqe, IB_WC_SUCCESS);
	srdma_swqe_next(qp);
	return true;
}

/**
 * srdma_ud_grh() - the 40-byte GRH area of a receive buffer
 * @skb: the received packet, its network header set, srdma_pkt() filled
 * @grh: filled from its IP header
 */
void srdma_ud_grh(struct sk_buff *skb, union rdma_network_hdr *grh)
{
	memset(grh, 0, sizeof(*grh));
	if (srdma_pkt(skb)->ipv6)
		memcpy(&grh->ibgrh, ipv6_hdr(skb), sizeof(grh->ibgrh));
	else
		memcpy(&grh->roce4grh, ip_hdr(skb), sizeof(grh->roce4grh));
}
EXPORT_SYMBOL_IF_KUNIT(srdma_ud_grh);

/* the Q_Key a received datagram must carry */
static u32 srdma_ud_recv_qkey(const struct srdma_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_GSI ? IB_QP1_QKEY : qp->attr.qkey;
}

/**
 * srdma_ud_recv_pkt() - deliver one received datagram
 * @qp: the UD or GSI QP, in RTR, RTS, SQD or SQE
 * @skb: the packet
 */
void srdma_ud_recv_pkt(struct srdma_qp *qp, struct sk_buff *skb)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_deth *deth = srdma_hdr(bth, SRDMA_OP_DETH);
	struct srdma_pkt *pkt = srdma_pkt(skb);
	u32 flags = srdma_op_flags(pkt->opcode);
	struct ib_wc wc = { .opcode = IB_WC_RECV };
	struct srdma_resp *resp = &qp->resp;
	union rdma_network_hdr grh;
	int err;

	/* a datagram is one packet within the port's MTU: longer is malformed */
	if (pkt->paylen > srdma_ud_mtu_bytes(sdev)) {
		srdma_count(sdev, SRDMA_CNT_DROP_TOO_LONG);
		return;
	}
	if (be32_to_cpu(deth->qkey) != srdma_ud_recv_qkey(qp)) {
		srdma_count(sdev, SRDMA_CNT_DROP_BAD_QKEY);
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
	if (!srdma_recv_fits(sizeof(grh), pkt->paylen, resp->rwqe_length)) {
		wc.status = IB_WC_LOC_LEN_ERR;
		srdma_count(sdev, SRDMA_CNT_LOCAL_ERRORS);
		srdma_rwqe_complete(qp, &wc, false);
		return;
	}
	srdma_ud_grh(skb, &grh);
	err = srdma_sge_copy(qp, resp->rwqe->dma.sge, resp->rwqe->dma.num_sge,
			     0, &grh, sizeof(grh), true) ?:
	      srdma_sge_copy_skb(qp, resp->rwqe->dma.sge,
				 resp->rwqe->dma.num_sge, sizeof(grh), skb,
				 srdma_op_hdr_bytes(bth->opcode), pkt->paylen);
	/* an ODP page being faulted in: the datagram is lost, the WQE stays */
	if (err == -EINPROGRESS)
		return;
	if (err) {
		srdma_rwqe_fail(qp, IB_WC_LOC_PROT_ERR, IB_EVENT_QP_FATAL);
		return;
	}
	wc.byte_len = sizeof(grh) + pkt->paylen;
	wc.src_qp = be32_to_cpu(deth->sqp) & SRDMA_BTH_QPN_MASK;
	wc.wc_flags = IB_WC_GRH;
	if (flags & SRDMA_OP_IMMDT) {
		wc.ex.imm_data = *(__be32 *)srdma_hdr(bth, SRDMA_OP_IMMDT);
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	if (!qp->rcq->user) {
		/* ib_init_ah_attr_from_wc() reads the GRH area by this */
		wc.wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
		wc.network_hdr_type = pkt->ipv6 ? RDMA_NETWORK_IPV6 :
						  RDMA_NETWORK_IPV4;
	}
	srdma_rwqe_complete(qp, &wc, srdma_bth_se(bth));
}
