// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: creation with rings in the rxe layout, query, destruction,
 * and modify_qp, which is the IBTA state machine of srdma_qp_table.c plus a
 * range check of every attribute given.
 *
 * modify_qp is all or nothing: every check runs before the first attribute
 * is written, so a refused call changes nothing. Each refusal names the
 * attribute and the transition in a rate-limited debug message.
 */
#include <kunit/visibility.h>
#include <linux/hash.h>
#include <rdma/uverbs_ioctl.h>
#include <srdma/psn.h>

#include "srdma.h"
#include "srdma_qp_table.h"

static size_t srdma_send_wqe_bytes(u32 max_sge, u32 max_inline_bytes)
{
	return sizeof(struct rxe_send_wqe) +
	       max_t(size_t, max_sge * sizeof(struct rxe_sge), max_inline_bytes);
}

/* room of a WQE slot after its fixed part, as SGEs or inline bytes */
static u32 srdma_slot_room(const struct srdma_queue *q, size_t fixed_bytes)
{
	return (1U << q->log2_slot_bytes) - fixed_bytes;
}

static int srdma_qp_check_init(struct srdma_dev *sdev,
			       const struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;
	const char *why = NULL;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_RAW_PACKET:
		break;
	case IB_QPT_GSI:
		if (init->port_num != SRDMA_PORT)
			why = "GSI QP on a port other than 1";
		break;
	default:
		ibdev_dbg(&sdev->ib_dev, "QP type %d not supported\n",
			  init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		why = "no CQ";
	else if (init->srq && init->qp_type != IB_QPT_RC &&
		 init->qp_type != IB_QPT_UD)
		why = "an SRQ serves RC and UD QPs only";
	else if (cap->max_send_wr > sdev->attr.max_qp_wr)
		why = "max_send_wr above the device's max_qp_wr";
	else if (cap->max_send_sge > sdev->attr.max_send_sge)
		why = "max_send_sge above the device's";
	else if (cap->max_inline_data > SRDMA_MAX_INLINE_BYTES)
		why = "max_inline_data above the device's";
	else if (!init->srq && cap->max_recv_wr > sdev->attr.max_qp_wr)
		why = "max_recv_wr above the device's max_qp_wr";
	else if (!init->srq && cap->max_recv_sge > sdev->attr.max_recv_sge)
		why = "max_recv_sge above the device's";
	if (why) {
		ibdev_dbg(&sdev->ib_dev, "QP refused: %s\n", why);
		return -EINVAL;
	}
	return 0;
}

static int srdma_qp_alloc_qpn(struct srdma_dev *sdev, struct srdma_qp *qp)
{
	u32 qpn = SRDMA_GSI_QPN;
	int err;

	/* one GSI QP per port, ib_mad's: a second one gets -EBUSY */
	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		err = xa_insert(&sdev->qp_xa, qpn, qp, GFP_KERNEL);
		if (err)
			return err;
	} else {
		err = xa_alloc_cyclic(&sdev->qp_xa, &qpn, qp,
				      XA_LIMIT(SRDMA_MIN_QPN, SRDMA_MAX_QPN),
				      &sdev->qp_next, GFP_KERNEL);
		if (err < 0)
			return err == -EBUSY ? -ENOMEM : err;
	}
	qp->ibqp.qp_num = qpn;
	return 0;
}

static int srdma_qp_init_queues(struct srdma_qp *qp,
				struct ib_qp_init_attr *init,
				struct ib_udata *udata,
				struct rxe_create_qp_resp *resp)
{
	struct ib_device *ib_dev = qp->ibqp.device;
	struct ib_qp_cap *cap = &init->cap;
	u32 room;
	int err;

	err = srdma_queue_init(&qp->sq.queue, ib_dev, udata,
			       SRDMA_QUEUE_KERNEL_CONSUMES, cap->max_send_wr,
			       srdma_send_wqe_bytes(max(cap->max_send_sge, 1U),
						    cap->max_inline_data),
			       &resp->sq_mi);
	if (err)
		return err;
	/* the slot rounded up to a power of two: offer all of it */
	room = srdma_slot_room(&qp->sq.queue, sizeof(struct rxe_send_wqe));
	qp->sq.max_wr = srdma_queue_capacity(&qp->sq.queue);
	qp->sq.max_sge = min_t(u32, room / sizeof(struct rxe_sge),
			       SRDMA_MAX_SGE);
	qp->sq.max_inline_bytes = min_t(u32, room, SRDMA_MAX_INLINE_BYTES);
	if (qp->srq)
		return 0;

	err = srdma_queue_init(&qp->rq.queue, ib_dev, udata,
			       SRDMA_QUEUE_KERNEL_CONSUMES, cap->max_recv_wr,
			       srdma_recv_wqe_bytes(max(cap->max_recv_sge, 1U)),
			       &resp->rq_mi);
	if (err) {
		srdma_queue_free(&qp->sq.queue);
		return err;
	}
	room = srdma_slot_room(&qp->rq.queue, sizeof(struct rxe_recv_wqe));
	qp->rq.max_wr = srdma_queue_capacity(&qp->rq.queue);
	qp->rq.max_sge = min_t(u32, room / sizeof(struct rxe_sge),
			       SRDMA_MAX_SGE);
	return 0;
}

static void srdma_qp_free_queues(struct srdma_qp *qp)
{
	srdma_queue_free(&qp->sq.queue);
	if (!qp->srq)
		srdma_queue_free(&qp->rq.queue);
}

/* the engine's copies of send WQEs and of the receive WQE under way */
static int srdma_qp_init_engine(struct srdma_qp *qp)
{
	const struct srdma_queue *rq = qp->srq ? &qp->srq->rq.queue :
						 &qp->rq.queue;
	int err;

	err = srdma_swqes_init(qp);
	if (err)
		return err;
	qp->resp.rwqe = kzalloc(1 << rq->log2_slot_bytes, GFP_KERNEL);
	if (!qp->resp.rwqe)
		goto err_swqes;
	refcount_set(&qp->refs, 1);
	init_completion(&qp->released);
	srdma_task_setup(qp);
	srdma_odp_init_qp(qp);
	srdma_timers_setup(qp);
	srdma_qp_rate_init(qp);
	skb_queue_head_init(&qp->resp_pkts);
	skb_queue_head_init(&qp->comp_pkts);
	__skb_queue_head_init(&qp->resp_ahead);
	__skb_queue_head_init(&qp->comp_ahead);
	return 0;

err_swqes:
	srdma_swqes_free(qp);
	return -ENOMEM;
}

static void srdma_qp_free_engine(struct srdma_qp *qp)
{
	srdma_task_drop_queued(qp, &qp->resp_pkts, &qp->resp_ahead);
	srdma_task_drop_queued(qp, &qp->comp_pkts, &qp->comp_ahead);
	srdma_resp_release(qp);
	srdma_route_forget(&qp->route[SRDMA_HALF_SEND]);
	srdma_route_forget(&qp->route[SRDMA_HALF_RECV]);
	kfree(qp->resp.res);
	kfree(qp->resp.rwqe);
	srdma_swqes_free(qp);
}

static void srdma_qp_get_cap(const struct srdma_qp *qp, struct ib_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.max_wr;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->sq.max_inline_bytes;
	cap->max_recv_wr = qp->rq.max_wr;
	cap->max_recv_sge = qp->rq.max_sge;
}

int srdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibqp->device);
	struct srdma_qp *qp = to_srdma_qp(ibqp);
	struct rxe_create_qp_resp resp = {};
	int err;

	err = srdma_qp_check_init(sdev, init);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->qp_count) > sdev->attr.max_qp) {
		err = -ENOMEM;
		goto err_count;
	}

	mutex_init(&qp->lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->user = udata;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_srdma_cq(init->send_cq);
	qp->rcq = to_srdma_cq(init->recv_cq);
	qp->srq = to_srdma_srq(init->srq);
	qp->state = IB_QPS_RESET;

	err = srdma_qp_init_queues(qp, init, udata, &resp);
	if (err)
		goto err_count;
	err = srdma_qp_init_engine(qp);
	if (err)
		goto err_queues;
	err = srdma_qp_alloc_qpn(sdev, qp);
	if (err)
		goto err_engine;
	qp->src_port = SRDMA_UDP_SPORT_BASE +
		       hash_32(ibqp->qp_num, SRDMA_UDP_SPORT_BITS);
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_qpn;
	}
	if (ibqp->qp_type == IB_QPT_RAW_PACKET)
		srdma_raw_qp_add(qp);
	srdma_qp_get_cap(qp, &init->cap);
	return 0;

err_qpn:
	xa_erase(&sdev->qp_xa, ibqp->qp_num);
err_engine:
	srdma_qp_free_engine(qp);
err_queues:
	srdma_qp_free_queues(qp);
err_count:
	atomic_dec(&sdev->qp_count);
	return err;
}

int srdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibqp->device);
	struct srdma_qp *qp = to_srdma_qp(ibqp);

	/*
	 * No new lookup finds it; wait for the receivers that did, then stop
	 * the engine. Outstanding WQEs are discarded with the rings, without
	 * completions.
	 */
	xa_erase(&sdev->qp_xa, ibqp->qp_num);
	if (ibqp->qp_type == IB_QPT_RAW_PACKET)
		srdma_raw_qp_del(qp);
	synchronize_rcu();
	srdma_qp_put(qp);
	wait_for_completion(&qp->released);
	srdma_task_pause(qp);
	srdma_odp_cleanup_qp(qp);
	cancel_work_sync(&qp->task[SRDMA_HALF_SEND].work);
	cancel_work_sync(&qp->task[SRDMA_HALF_RECV].work);
	srdma_qp_rate_fini(qp);
	srdma_qp_free_engine(qp);
	srdma_qp_free_queues(qp);
	mutex_destroy(&qp->lock);
	atomic_dec(&sdev->qp_count);
	return 0;
}

static bool srdma_qp_psn_ok(u32 psn)
{
	return psn <= SRDMA_PSN_MASK;
}

static const char *srdma_qp_refuse(u32 *bad_bit, u32 bit, const char *why)
{
	*bad_bit = bit;
	return why;
}

/*
 * Range and consistency checks of every attribute in @mask. The table
 * decided which attributes may be there; this decides their values.
 */
static const char *srdma_qp_check_attrs(struct srdma_qp *qp,
					const struct ib_qp_attr *attr,
					u32 mask, enum ib_qp_state cur,
					struct srdma_av *av, u32 *bad_bit)
{
	struct srdma_dev *sdev = to_srdma_dev(qp->ibqp.device);
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			   IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
			   IB_ACCESS_RELAXED_ORDERING | IB_ACCESS_FLUSH_GLOBAL |
			   IB_ACCESS_FLUSH_PERSISTENT;
	struct srdma_av alt_av;
	enum ib_mtu active_mtu;
	const char *why = NULL;

	if ((mask & IB_QP_STATE) && (unsigned int)attr->qp_state > IB_QPS_ERR)
		return srdma_qp_refuse(bad_bit, IB_QP_STATE,
				       "is not a QP state");
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return srdma_qp_refuse(bad_bit, IB_QP_CUR_STATE,
				       "is not the QP's current state");
	if ((mask & IB_QP_PORT) && attr->port_num != SRDMA_PORT)
		return srdma_qp_refuse(bad_bit, IB_QP_PORT, "is not 1");
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= SRDMA_PKEY_TABLE_LEN)
		return srdma_qp_refuse(bad_bit, IB_QP_PKEY_INDEX,
				       "is beyond the P_Key table");
	if ((mask & IB_QP_ACCESS_FLAGS) && (attr->qp_access_flags & ~access))
		return srdma_qp_refuse(bad_bit, IB_QP_ACCESS_FLAGS,
				       "has flags a QP does not take");
	if (mask & IB_QP_PATH_MTU) {
		spin_lock_bh(&sdev->port_lock);
		active_mtu = sdev->active_mtu;
		spin_unlock_bh(&sdev->port_lock);
		if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)
			return srdma_qp_refuse(bad_bit, IB_QP_PATH_MTU,
					       "is not an IB MTU");
		if (attr->path_mtu > active_mtu)
			return srdma_qp_refuse(bad_bit, IB_QP_PATH_MTU,
					       "is above the port's active MTU");
	}
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > SRDMA_QP_TIMEOUT_MAX)
		return srdma_qp_refuse(bad_bit, IB_QP_TIMEOUT,
				       "is wider than 5 bits");
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > SRDMA_QP_RETRY_MAX)
		return srdma_qp_refuse(bad_bit, IB_QP_RETRY_CNT,
				       "is wider than 3 bits");
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > SRDMA_QP_RETRY_MAX)
		return srdma_qp_refuse(bad_bit, IB_QP_RNR_RETRY,
				       "is wider than 3 bits");
	if ((mask & IB_QP_MIN_RNR_TIMER) &&
	    attr->min_rnr_timer > SRDMA_QP_TIMEOUT_MAX)
		return srdma_qp_refuse(bad_bit, IB_QP_MIN_RNR_TIMER,
				       "is wider than 5 bits");
	if ((mask & IB_QP_RQ_PSN) && !srdma_qp_psn_ok(attr->rq_psn))
		return srdma_qp_refuse(bad_bit, IB_QP_RQ_PSN,
				       "is wider than 24 bits");
	if ((mask & IB_QP_SQ_PSN) && !srdma_qp_psn_ok(attr->sq_psn))
		return srdma_qp_refuse(bad_bit, IB_QP_SQ_PSN,
				       "is wider than 24 bits");
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SRDMA_MAX_QPN)
		return srdma_qp_refuse(bad_bit, IB_QP_DEST_QPN,
				       "is wider than 24 bits");
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > sdev->attr.max_qp_init_rd_atom)
		return srdma_qp_refuse(bad_bit, IB_QP_MAX_QP_RD_ATOMIC,
				       "is above max_qp_init_rd_atom");
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > sdev->attr.max_qp_rd_atom)
		return srdma_qp_refuse(bad_bit, IB_QP_MAX_DEST_RD_ATOMIC,
				       "is above max_qp_rd_atom");
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    (unsigned int)attr->path_mig_state > IB_MIG_ARMED)
		return srdma_qp_refuse(bad_bit, IB_QP_PATH_MIG_STATE,
				       "is not a migration state");
	if ((mask & IB_QP_RATE_LIMIT) &&
	    attr->rate_limit > READ_ONCE(sdev->rate.port_kbps))
		return srdma_qp_refuse(bad_bit, IB_QP_RATE_LIMIT,
				       "is above the port's speed");
	if ((mask & IB_QP_AV) &&
	    srdma_av_from_attr(sdev, av, &attr->ah_attr, &why))
		return srdma_qp_refuse(bad_bit, IB_QP_AV, why);
	if (mask & IB_QP_ALT_PATH) {
		if (attr->alt_port_num != SRDMA_PORT)
			return srdma_qp_refuse(bad_bit, IB_QP_ALT_PATH,
					       "alt_port_num is not 1");
		if (attr->alt_pkey_index >= SRDMA_PKEY_TABLE_LEN)
			return srdma_qp_refuse(bad_bit, IB_QP_ALT_PATH,
					       "alt_pkey_index is beyond the table");
		if (attr->alt_timeout > SRDMA_QP_TIMEOUT_MAX)
			return srdma_qp_refuse(bad_bit, IB_QP_ALT_PATH,
					       "alt_timeout is wider than 5 bits");
		if (srdma_av_from_attr(sdev, &alt_av, &attr->alt_ah_attr, &why))
			return srdma_qp_refuse(bad_bit, IB_QP_ALT_PATH, why);
	}
	return NULL;
}

static void srdma_qp_store_attrs(struct srdma_qp *qp,
				 const struct ib_qp_attr *attr, u32 mask,
				 const struct srdma_av *av)
{
	struct ib_qp_attr *a = &qp->attr;

	lockdep_assert_held(&qp->lock);
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		a->ah_attr = attr->ah_attr;
		a->ah_attr.grh.sgid_attr = NULL;	/* ib_core holds it */
		qp->av = *av;
	}
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_ALT_PATH) {
		a->alt_ah_attr = attr->alt_ah_attr;
		a->alt_ah_attr.grh.sgid_attr = NULL;
		a->alt_pkey_index = attr->alt_pkey_index;
		a->alt_port_num = attr->alt_port_num;
		a->alt_timeout = attr->alt_timeout;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RATE_LIMIT)
		a->rate_limit = attr->rate_limit;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		qp->sqd_notify = attr->en_sqd_async_notify;
}

/* RESET: empty queues, attributes back to their defaults */
static void srdma_qp_reset(struct srdma_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	lockdep_assert_held(&qp->sq.lock);
	lockdep_assert_held(&qp->rq.lock);
	srdma_queue_reset(&qp->sq.queue);
	if (!qp->srq)
		srdma_queue_reset(&qp->rq.queue);
	memset(&qp->attr, 0, sizeof(qp->attr));
	qp->sqd_notify = false;
	qp->sqd_pending = false;

	/* the engine is paused: start it afresh */
	srdma_task_drop_queued(qp, &qp->resp_pkts, &qp->resp_ahead);
	srdma_task_drop_queued(qp, &qp->comp_pkts, &qp->comp_ahead);
	atomic_set(&qp->local_ack, 0);
	srdma_resp_release(qp);
	srdma_swqes_release(qp);
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	qp->resp.rwqe_valid = false;
	qp->resp.ack_pending = false;
	qp->resp.nak_sent = false;
	qp->resp.uc_dropping = false;
	qp->resp.last_wqe_raised = false;
	qp->resp.msn = 0;
	qp->events = 0;
}

/* what the engine takes from the attributes being set; it is paused */
static void srdma_qp_engine_attrs(struct srdma_qp *qp, u32 mask,
				  enum ib_qp_state cur, enum ib_qp_state next)
{
	if (mask & IB_QP_AV) {
		srdma_route_forget(&qp->route[SRDMA_HALF_SEND]);
		srdma_route_forget(&qp->route[SRDMA_HALF_RECV]);
	}
	if (mask & IB_QP_PATH_MTU)
		qp->mtu_bytes = ib_mtu_enum_to_int(qp->attr.path_mtu);
	if (mask & IB_QP_RQ_PSN)
		qp->resp.epsn = qp->attr.rq_psn;
	if (mask & IB_QP_SQ_PSN) {
		qp->req.psn = qp->attr.sq_psn;
		qp->req.psn_end = qp->attr.sq_psn;
		qp->comp.psn = qp->attr.sq_psn;
		srdma_cwnd_open(&qp->comp.cwnd);
		qp->comp.rtt = (struct srdma_rtt){};
	}
	if (mask & IB_QP_RETRY_CNT)
		qp->comp.retry_left = qp->attr.retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->comp.rnr_retry_left = qp->attr.rnr_retry;
	if (next == IB_QPS_SQD && cur != IB_QPS_SQD)
		qp->sqd_pending = qp->sqd_notify;
}

/* the rate the attributes ask for; RESET forgets it */
static void srdma_qp_rate_attrs(struct srdma_qp *qp,
				const struct ib_qp_attr *attr, u32 mask,
				enum ib_qp_state next)
{
	if (next == IB_QPS_RESET || (mask & IB_QP_AV))
		srdma_qp_rate_set_av(qp, next == IB_QPS_RESET ? IB_RATE_PORT_CURRENT :
						  qp->av.static_rate);
	if (next == IB_QPS_RESET || (mask & IB_QP_RATE_LIMIT))
		srdma_qp_rate_set_verbs(qp, next == IB_QPS_RESET ? 0 :
					attr->rate_limit);
}

/* responder resources for max_dest_rd_atomic, allocated before the commit */
static struct srdma_res *srdma_qp_alloc_res(const struct ib_qp_attr *attr,
					    u32 mask, u32 *num)
{
	if (!(mask & IB_QP_MAX_DEST_RD_ATOMIC))
		return NULL;
	*num = max_t(u32, attr->max_dest_rd_atomic, 1);
	return kcalloc(*num, sizeof(struct srdma_res), GFP_KERNEL);
}

static void srdma_qp_dbg_refused(struct srdma_qp *qp, enum ib_qp_state cur,
				 enum ib_qp_state next, u32 bits,
				 const char *why)
{
	if (bits)
		ibdev_dbg_ratelimited(qp->ibqp.device,
				      "QP %u %s->%s: %s %s\n", qp->ibqp.qp_num,
				      srdma_qp_state_names[cur],
				      srdma_qp_state_names[next],
				      srdma_qp_attr_name(bits), why);
	else
		ibdev_dbg_ratelimited(qp->ibqp.device, "QP %u %s->%s: %s\n",
				      qp->ibqp.qp_num,
				      srdma_qp_state_names[cur],
				      srdma_qp_state_names[next], why);
}

static const char *const srdma_qp_verdict_why[] = {
	[SRDMA_QP_OK] = "accepted",
	[SRDMA_QP_BAD_TYPE] = "no transitions for this QP type",
	[SRDMA_QP_BAD_STATE] = "not a QP state",
	[SRDMA_QP_BAD_TRANSITION] = "not a transition the IBTA allows",
	[SRDMA_QP_MISSING_ATTR] = "is required and missing",
	[SRDMA_QP_EXTRA_ATTR] = "is not allowed in this transition",
};

int srdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct srdma_qp *qp = to_srdma_qp(ibqp);
	enum srdma_qp_verdict verdict;
	enum ib_qp_state cur, next;
	struct srdma_res *res;
	struct srdma_av av;
	u32 num_res = 0;
	unsigned long flags;
	const char *why;
	u32 bits;

	mutex_lock(&qp->lock);
	cur = READ_ONCE(qp->state);
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	verdict = srdma_qp_check_mask(ibqp->qp_type, cur, next, mask, &bits);
	if (verdict != SRDMA_QP_OK) {
		if (verdict == SRDMA_QP_BAD_STATE)
			next = cur;
		srdma_qp_dbg_refused(qp, cur, next, bits,
				     srdma_qp_verdict_why[verdict]);
		goto refused;
	}
	why = srdma_qp_check_attrs(qp, attr, mask, cur, &av, &bits);
	if (why) {
		srdma_qp_dbg_refused(qp, cur, next, bits, why);
		goto refused;
	}
	res = srdma_qp_alloc_res(attr, mask, &num_res);
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) && !res) {
		mutex_unlock(&qp->lock);
		return -ENOMEM;
	}

	srdma_task_pause(qp);
	srdma_qp_lock_queues(qp, &flags);
	if (qp->state != cur) {
		/* an asynchronous error moved it to ERR meanwhile */
		srdma_qp_unlock_queues(qp, flags);
		srdma_task_resume(qp);
		kfree(res);
		srdma_qp_dbg_refused(qp, cur, next, 0,
				     "the QP changed state meanwhile");
		goto refused;
	}
	if (res) {
		swap(qp->resp.res, res);
		qp->resp.num_res = num_res;
		qp->resp.res_next = 0;
	}
	if (next == IB_QPS_RESET) {
		srdma_qp_reset(qp);
	} else {
		srdma_qp_store_attrs(qp, attr, mask, &av);
		srdma_qp_engine_attrs(qp, mask, cur, next);
	}
	srdma_qp_set_state(qp, next);
	srdma_qp_unlock_queues(qp, flags);
	srdma_qp_rate_attrs(qp, attr, mask, next);
	kfree(res);
	srdma_task_resume(qp);
	mutex_unlock(&qp->lock);

	if (next == IB_QPS_ERR)
		srdma_qp_flush(qp);
	return 0;

refused:
	mutex_unlock(&qp->lock);
	return -EINVAL;
}

int srdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct srdma_qp *qp = to_srdma_qp(ibqp);

	mutex_lock(&qp->lock);
	*attr = qp->attr;
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->sq_draining = attr->qp_state == IB_QPS_SQD &&
			    srdma_queue_consumer(&qp->sq.queue) !=
			    READ_ONCE(qp->req.index);
	srdma_qp_get_cap(qp, &attr->cap);
	mutex_unlock(&qp->lock);

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->port_num = SRDMA_PORT;
	return 0;
}
