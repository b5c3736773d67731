// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What `rdma resource show qp -dd` prints of a QP beyond ib_core's own
 * fields: where its engine's halves run and, for RC, the state of its
 * transport (window, round trips, ACK timeout, retries left), so that a
 * user can see why a QP sends as it does. The values are read without the
 * engine's ownership: each is one the engine had at some moment, not a
 * snapshot of all at once. The RC fields are the send side's: none before
 * the QP has been taken to RTS.
 */
#include <rdma/restrack.h>
#include <srdma/psn.h>

#include "srdma_engine.h"

/* the RC transport's state, into the driver table being filled */
static int srdma_res_rc(struct sk_buff *msg, struct srdma_qp *qp)
{
	struct srdma_comp *comp = &qp->comp;
	struct srdma_rtt rtt = {
		.srtt_us = READ_ONCE(comp->rtt.srtt_us),
		.rttvar_us = READ_ONCE(comp->rtt.rttvar_us),
	};
	/* timeout 0 waits for ever: 0 here too */
	u64 timeout_ns = srdma_rtt_timeout_ns(&rtt,
			srdma_ack_timeout_ns(READ_ONCE(qp->attr.timeout)));
	/* two reads apart, the ACK may have come first */
	s32 unacked = srdma_psn_diff(READ_ONCE(qp->req.psn_end),
				     READ_ONCE(comp->psn));

	if (rdma_nl_put_driver_u32(msg, "cwnd", READ_ONCE(comp->cwnd.size)) ||
	    rdma_nl_put_driver_u32(msg, "ssthresh",
				   READ_ONCE(comp->cwnd.ssthresh)) ||
	    rdma_nl_put_driver_u32(msg, "unacked", max(unacked, 0)) ||
	    rdma_nl_put_driver_u32(msg, "srtt_us", rtt.srtt_us) ||
	    rdma_nl_put_driver_u32(msg, "rttvar_us", rtt.rttvar_us) ||
	    rdma_nl_put_driver_u64(msg, "ack_timeout_us",
				   div_u64(timeout_ns, NSEC_PER_USEC)) ||
	    rdma_nl_put_driver_u32(msg, "retry_left",
				   READ_ONCE(comp->retry_left)) ||
	    rdma_nl_put_driver_u32(msg, "rnr_retry_left",
				   READ_ONCE(comp->rnr_retry_left)))
		return -EMSGSIZE;
	return 0;
}

/**
 * srdma_fill_res_qp_entry() - the driver's attributes of a QP for
 * `rdma resource show qp -dd`
 * @msg: the netlink message being built
 * @ibqp: the QP
 *
 * Return: 0, or -EMSGSIZE if the message is full.
 */
int srdma_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct srdma_qp *qp = to_srdma_qp(ibqp);
	struct nlattr *table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);

	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "send_cpu",
				   READ_ONCE(qp->task[SRDMA_HALF_SEND].cpu)) ||
	    rdma_nl_put_driver_u32(msg, "recv_cpu",
				   READ_ONCE(qp->task[SRDMA_HALF_RECV].cpu)) ||
	    /* a window is opened with the send side (to RTS, IB_QP_SQ_PSN) */
	    (ibqp->qp_type == IB_QPT_RC && READ_ONCE(qp->comp.cwnd.size) &&
	     srdma_res_rc(msg, qp))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}
