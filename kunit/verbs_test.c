// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the kernel verbs API on a real srdma device. The suite makes a test
 * Ethernet netdev (its transmit drops everything), adds an srdma device on
 * it, and drives PDs, CQs, QPs, SRQs, MRs and AHs through ib_core as an
 * in-kernel consumer would: every QP state, refused transitions that change
 * nothing, flushes on ERR, full queues, CQ overflow and notification, and
 * the asynchronous events.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <rdma/ib_cache.h>

#include "srdma_engine.h"

#define VT_UD_QKEY	0x11111111

#define VT_DEV_NAME	"srdma_kunit0"
#define VT_WR		8

static struct {
	struct net_device *ndev;
	struct ib_device *ibdev;
	u8 gid_index;			/* a RoCEv2 GID of the port */
	union ib_gid gid;
} vt;

/* what the handlers saw */
struct vt_events {
	atomic_t by_type[IB_EVENT_GID_CHANGE + 1];
	atomic_t completions;
};

struct vt_ctx {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct vt_events ev;
	unsigned long mrs;	/* in the device's table when the test began */
};

static netdev_tx_t vt_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops vt_netdev_ops = {
	.ndo_start_xmit = vt_xmit,
};

static int vt_find_roce_v2_gid(void)
{
	const struct ib_gid_attr *attr;
	int tries, i;

	/* ib_core adds the default GIDs shortly after registration */
	for (tries = 0; tries < 100; tries++) {
		for (i = 0; i < 16; i++) {
			attr = rdma_get_gid_attr(vt.ibdev, SRDMA_PORT, i);
			if (IS_ERR(attr))
				continue;
			if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP) {
				vt.gid_index = i;
				vt.gid = attr->gid;
				rdma_put_gid_attr(attr);
				return 0;
			}
			rdma_put_gid_attr(attr);
		}
		msleep(20);
	}
	return -ENOENT;
}

static int vt_suite_init(struct kunit_suite *suite)
{
	int err;

	vt.ndev = alloc_etherdev(0);
	if (!vt.ndev)
		return -ENOMEM;
	strscpy(vt.ndev->name, "srdmakt%d", IFNAMSIZ);
	vt.ndev->netdev_ops = &vt_netdev_ops;
	eth_hw_addr_random(vt.ndev);
	err = register_netdev(vt.ndev);
	if (err)
		goto err_free;
	rtnl_lock();
	err = dev_open(vt.ndev, NULL);
	rtnl_unlock();
	if (err)
		goto err_unregister;
	netif_carrier_on(vt.ndev);

	err = srdma_newlink(VT_DEV_NAME, vt.ndev);
	if (err)
		goto err_unregister;
	vt.ibdev = ib_device_get_by_name(VT_DEV_NAME, RDMA_DRIVER_RXE);
	if (!vt.ibdev) {
		err = -ENODEV;
		goto err_unregister;
	}
	err = vt_find_roce_v2_gid();
	if (err)
		goto err_put;
	return 0;

err_put:
	ib_device_put(vt.ibdev);
err_unregister:
	unregister_netdev(vt.ndev);
	srdma_flush_unregistrations();
err_free:
	free_netdev(vt.ndev);
	return err;
}

static void vt_suite_exit(struct kunit_suite *suite)
{
	ib_device_put(vt.ibdev);
	/* the netdev going takes the srdma device with it */
	unregister_netdev(vt.ndev);
	srdma_flush_unregistrations();
	free_netdev(vt.ndev);
}

static void vt_event(struct ib_event *event, void *context)
{
	struct vt_events *ev = context;

	if (event->event < ARRAY_SIZE(ev->by_type))
		atomic_inc(&ev->by_type[event->event]);
}

static void vt_comp(struct ib_cq *cq, void *context)
{
	struct vt_events *ev = context;

	atomic_inc(&ev->completions);
}

static int vt_events_of(struct vt_events *ev, enum ib_event_type type)
{
	return atomic_read(&ev->by_type[type]);
}

static struct ib_cq *vt_create_cq(struct vt_ctx *ctx, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };

	return ib_create_cq(vt.ibdev, vt_comp, vt_event, &ctx->ev, &attr);
}

/* the MRs in the device's table */
static unsigned long vt_mrs(void)
{
	struct srdma_dev *sdev = to_srdma_dev(vt.ibdev);
	struct srdma_mr *mr;
	unsigned long i, n = 0;

	xa_for_each(&sdev->mr_xa, i, mr)
		n++;
	return n;
}

static int vt_init(struct kunit *test)
{
	struct vt_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->mrs = vt_mrs();
	ctx->pd = ib_alloc_pd(vt.ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->pd));
	ctx->cq = vt_create_cq(ctx, 64);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->cq));
	test->priv = ctx;
	return 0;
}

static void vt_exit(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;

	ib_destroy_cq(ctx->cq);
	ib_dealloc_pd(ctx->pd);
	/* every test leaves the table as it found it */
	KUNIT_EXPECT_EQ(test, vt_mrs(), ctx->mrs);
}

static struct ib_qp *vt_create_qp(struct kunit *test, enum ib_qp_type type,
				  struct ib_cq *cq, struct ib_srq *srq)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_init_attr init = {
		.event_handler = vt_event,
		.qp_context = &ctx->ev,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.port_num = SRDMA_PORT,
		.cap = { .max_send_wr = VT_WR, .max_recv_wr = VT_WR,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};

	return ib_create_qp(ctx->pd, &init);
}

static int vt_modify(struct ib_qp *qp, enum ib_qp_state state, int mask,
		     struct ib_qp_attr *attr)
{
	attr->qp_state = state;
	return ib_modify_qp(qp, attr, mask | IB_QP_STATE);
}

static enum ib_qp_state vt_state(struct ib_qp *qp, struct ib_qp_attr *attr)
{
	struct ib_qp_init_attr init;

	if (ib_query_qp(qp, attr, IB_QP_STATE, &init))
		return -1;
	return attr->qp_state;
}

static void vt_fill_av(struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, SRDMA_PORT);
	rdma_ah_set_grh(ah, &vt.gid, 0, vt.gid_index, 64, 0);
}

/* the attributes RC INIT->RTR requires, and good values for them */
#define VT_RTR_MASK	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
			 IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | \
			 IB_QP_MIN_RNR_TIMER)

static void vt_fill_rtr(struct ib_qp_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	vt_fill_av(&attr->ah_attr);
	attr->path_mtu = IB_MTU_1024;
	attr->dest_qp_num = 0x123456;
	attr->rq_psn = 0xabcdef;
	attr->max_dest_rd_atomic = 4;
	attr->min_rnr_timer = 12;
}

/* RESET -> INIT -> RTR -> RTS for a UD QP, Q_Key VT_UD_QKEY */
static void vt_ud_to_rts(struct kunit *test, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .port_num = SRDMA_PORT,
				   .qkey = VT_UD_QKEY };

	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX |
					IB_QP_PORT | IB_QP_QKEY, &attr), 0);
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTR, 0, &attr), 0);
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTS, IB_QP_SQ_PSN, &attr), 0);
}

/* RESET -> INIT -> RTR -> RTS for an RC QP, as the IBTA table requires */
static void vt_rc_to_rts(struct kunit *test, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {};

	attr.pkey_index = 0;
	attr.port_num = SRDMA_PORT;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX |
					IB_QP_PORT | IB_QP_ACCESS_FLAGS, &attr),
			0);
	vt_fill_rtr(&attr);
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr), 0);
	memset(&attr, 0, sizeof(attr));
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = 0xfffffe;
	attr.max_rd_atomic = 4;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTS, IB_QP_TIMEOUT |
					IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
					IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC,
					&attr), 0);
}

static void vt_qp_walks_every_state(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ib_qp *qp;

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_EQ(test, vt_state(qp, &attr), IB_QPS_RESET);
	vt_rc_to_rts(test, qp);

	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &attr, ~0, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, attr.path_mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0x123456U);
	KUNIT_EXPECT_EQ(test, attr.rq_psn, 0xabcdefU);
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 0xfffffeU);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, attr.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, attr.timeout, 14);
	KUNIT_EXPECT_EQ(test, attr.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, attr.rnr_retry, 7);
	KUNIT_EXPECT_EQ(test, attr.port_num, SRDMA_PORT);
	KUNIT_EXPECT_EQ(test, attr.qp_access_flags,
			IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, rdma_ah_read_grh(&attr.ah_attr)->sgid_index,
			vt.gid_index);
	KUNIT_EXPECT_EQ(test, memcmp(&rdma_ah_read_grh(&attr.ah_attr)->dgid,
				     &vt.gid, sizeof(vt.gid)), 0);
	KUNIT_EXPECT_GE(test, init.cap.max_send_wr, (u32)VT_WR);
	KUNIT_EXPECT_GE(test, init.cap.max_inline_data, 64U);

	memset(&attr, 0, sizeof(attr));
	attr.min_rnr_timer = 3;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTS, IB_QP_MIN_RNR_TIMER,
					&attr), 0);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_SQD, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_state(qp, &attr), IB_QPS_SQD);
	attr.timeout = 20;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_SQD, IB_QP_TIMEOUT, &attr),
			0);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTS, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_ERR, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_state(qp, &attr), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RESET, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_state(qp, &attr), IB_QPS_RESET);
	/* usable again after RESET */
	vt_rc_to_rts(test, qp);
	KUNIT_EXPECT_EQ(test, vt_state(qp, &attr), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

/* each refused call returns -EINVAL and leaves state and attributes alone */
static void vt_refused_modify_changes_nothing(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_attr attr, good;
	struct ib_qp_init_attr init;
	struct ib_qp *qp;

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	memset(&attr, 0, sizeof(attr));
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR, 0, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_ERR, 0, &attr), -EINVAL);
	/* ib_core indexes its port table with it first: ask the driver */
	attr.port_num = 2;
	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, vt.ibdev->ops.modify_qp(qp, &attr, IB_QP_STATE |
						     IB_QP_PKEY_INDEX |
						     IB_QP_PORT |
						     IB_QP_ACCESS_FLAGS, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vt_state(qp, &attr), IB_QPS_RESET);

	attr.port_num = SRDMA_PORT;
	attr.qp_access_flags = IB_ACCESS_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX |
					IB_QP_PORT | IB_QP_ACCESS_FLAGS, &attr),
			0);
	vt_fill_rtr(&good);

	/* one bad thing at a time, next to good values that must not stick */
	attr = good;
	attr.rq_psn = 555;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR,
					VT_RTR_MASK & ~IB_QP_MIN_RNR_TIMER, &attr),
			-EINVAL);
	attr.path_mtu = IB_MTU_4096;	/* the netdev MTU is 1500 */
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr),
			-EINVAL);
	attr = good;
	attr.rq_psn = 555;
	attr.dest_qp_num = BIT(24);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr),
			-EINVAL);
	attr = good;
	attr.rq_psn = 555;
	attr.max_dest_rd_atomic = SRDMA_MAX_RD_ATOMIC + 1;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr),
			-EINVAL);
	attr = good;
	attr.rq_psn = 555;
	attr.min_rnr_timer = 32;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr),
			-EINVAL);
	attr = good;
	attr.rq_psn = 555;
	rdma_ah_set_ah_flags(&attr.ah_attr, 0);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr),
			-EINVAL);
	attr = good;
	attr.rq_psn = 555;
	attr.sq_psn = 1;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR,
					VT_RTR_MASK | IB_QP_SQ_PSN, &attr),
			-EINVAL);
	attr = good;
	attr.rq_psn = 555;
	attr.cur_qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR,
					VT_RTR_MASK | IB_QP_CUR_STATE, &attr),
			-EINVAL);

	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &attr, ~0, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, attr.rq_psn, 0U);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0U);
	KUNIT_EXPECT_EQ(test, attr.path_mtu, 0);
	KUNIT_EXPECT_EQ(test, attr.qp_access_flags, IB_ACCESS_REMOTE_READ);

	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &good), 0);
	KUNIT_EXPECT_EQ(test, vt_state(qp, &attr), IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

static int vt_post_recv(struct ib_qp *qp, u64 wr_id)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = { .wr_id = wr_id };

	return ib_post_recv(qp, &wr, &bad);
}

static int vt_post_send(struct ib_qp *qp, u64 wr_id)
{
	const struct ib_send_wr *bad;
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	return ib_post_send(qp, &wr, &bad);
}

/* poll everything; each wr_id (below 64) must appear once, flushed */
static u64 vt_poll_flushed(struct kunit *test, struct ib_cq *cq,
			   struct ib_qp *qp)
{
	struct ib_wc wc[8];
	u64 seen = 0;
	int n, i;

	while ((n = ib_poll_cq(cq, ARRAY_SIZE(wc), wc)) > 0) {
		for (i = 0; i < n; i++) {
			KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
			KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, qp);
			KUNIT_EXPECT_LT(test, wc[i].wr_id, 64ULL);
			KUNIT_EXPECT_FALSE(test, seen & BIT_ULL(wc[i].wr_id));
			seen |= BIT_ULL(wc[i].wr_id);
		}
	}
	return seen;
}

/*
 * poll until @want's WQEs have all completed flushed, for up to a second: a
 * post in ERR flushes from its half's work item when that half last ran on
 * another CPU with packets unacknowledged
 */
static u64 vt_wait_flushed(struct kunit *test, struct ib_cq *cq,
			   struct ib_qp *qp, u64 want)
{
	unsigned long end = jiffies + HZ;
	u64 seen = 0, got;

	do {
		got = vt_poll_flushed(test, cq, qp);
		KUNIT_EXPECT_FALSE(test, seen & got);
		seen |= got;
		if (seen == want)
			break;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	return seen;
}

static void vt_err_flushes_every_wqe(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_attr attr = {};
	struct ib_qp *qp;
	int i;

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, 0), -EINVAL);	/* RESET */
	KUNIT_EXPECT_EQ(test, vt_post_send(qp, 0), -EINVAL);
	vt_rc_to_rts(test, qp);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, vt_post_recv(qp, i), 0);
	for (i = 5; i < 8; i++)
		KUNIT_EXPECT_EQ(test, vt_post_send(qp, i), 0);
	KUNIT_EXPECT_EQ(test, vt_poll_flushed(test, ctx->cq, qp), 0ULL);

	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_ERR, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_poll_flushed(test, ctx->cq, qp), 0xffULL);
	/* posted in ERR: flushed */
	KUNIT_EXPECT_EQ(test, vt_post_send(qp, 8), 0);
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, 9), 0);
	KUNIT_EXPECT_EQ(test, vt_wait_flushed(test, ctx->cq, qp,
					      BIT_ULL(8) | BIT_ULL(9)),
			BIT_ULL(8) | BIT_ULL(9));
	/* RESET empties; nothing is left to complete */
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RESET, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_poll_flushed(test, ctx->cq, qp), 0ULL);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

/* sends are refused before RTS, receives are taken from INIT on */
static void vt_send_refused_before_rts(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_attr attr = {};
	struct ib_qp *qp;

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	attr.port_num = SRDMA_PORT;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX |
					IB_QP_PORT | IB_QP_ACCESS_FLAGS, &attr),
			0);
	KUNIT_EXPECT_EQ(test, vt_post_send(qp, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, 2), 0);
	vt_fill_rtr(&attr);
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_post_send(qp, 3), -EINVAL);
	/* nothing of the refused sends completes, not even flushed */
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_ERR, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_poll_flushed(test, ctx->cq, qp), BIT_ULL(2));
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

static void vt_full_queues_refuse_posts(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	struct ib_wc wc;
	struct ib_qp *qp;
	u32 i;

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &attr, ~0, &init), 0);
	vt_rc_to_rts(test, qp);
	for (i = 0; i < init.cap.max_send_wr; i++)
		KUNIT_ASSERT_EQ(test, vt_post_send(qp, i), 0);
	KUNIT_EXPECT_EQ(test, vt_post_send(qp, i), -ENOMEM);
	for (i = 0; i < init.cap.max_recv_wr; i++)
		KUNIT_ASSERT_EQ(test, vt_post_recv(qp, i), 0);
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, i), -ENOMEM);
	/* destroyed with all of it outstanding */
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->cq, 1, &wc), 0);
}

static void vt_sqd_raises_drained_when_asked(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_attr attr = {};
	struct ib_qp *qp;

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	vt_rc_to_rts(test, qp);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_SQD, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_events_of(&ctx->ev, IB_EVENT_SQ_DRAINED), 0);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTS, 0, &attr), 0);
	attr.en_sqd_async_notify = 1;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_SQD,
					IB_QP_EN_SQD_ASYNC_NOTIFY, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_events_of(&ctx->ev, IB_EVENT_SQ_DRAINED), 1);
	/* SQD -> SQD does not drain again */
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_SQD, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_events_of(&ctx->ev, IB_EVENT_SQ_DRAINED), 1);
	/* only towards SQD */
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTS,
					IB_QP_EN_SQD_ASYNC_NOTIFY, &attr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

static void vt_async_error_moves_to_err(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_attr attr;
	struct ib_qp *qp;

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	vt_rc_to_rts(test, qp);
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, 3), 0);
	srdma_qp_error(to_srdma_qp(qp), IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, vt_events_of(&ctx->ev, IB_EVENT_QP_FATAL), 1);
	KUNIT_EXPECT_EQ(test, vt_state(qp, &attr), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, vt_poll_flushed(test, ctx->cq, qp), BIT_ULL(3));
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

/* a full CQ: CQ_ERR once, nothing lost or duplicated as room returns */
static void vt_cq_overflow_loses_nothing(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_attr attr = {};
	u64 seen = 0;
	struct ib_cq *cq;
	struct ib_qp *qp;
	int i;

	cq = vt_create_cq(ctx, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	KUNIT_EXPECT_EQ(test, cq->cqe, 1);
	qp = vt_create_qp(test, IB_QPT_RC, cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	vt_rc_to_rts(test, qp);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, vt_post_recv(qp, i), 0);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_ERR, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_events_of(&ctx->ev, IB_EVENT_CQ_ERR), 1);
	for (i = 4; i < 8; i++) {
		seen |= vt_poll_flushed(test, cq, qp);
		/* another post in ERR flushes what is left, one at a time */
		KUNIT_EXPECT_EQ(test, vt_post_recv(qp, i), 0);
	}
	for (i = 0; i < 8; i++) {
		seen |= vt_poll_flushed(test, cq, qp);
		srdma_qp_flush(to_srdma_qp(qp));
	}
	KUNIT_EXPECT_EQ(test, seen, 0xffULL);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	ib_destroy_cq(cq);
}

static void vt_cq_notify_once_per_arming(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_attr attr = {};
	struct ib_qp *qp;

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	vt_rc_to_rts(test, qp);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ctx->cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_ERR, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, 1), 0);
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, 2), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->ev.completions), 1);
	/* entries are waiting: the consumer is told to poll again */
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ctx->cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 1);
	KUNIT_EXPECT_EQ(test, vt_poll_flushed(test, ctx->cq, qp),
			BIT_ULL(1) | BIT_ULL(2));
	/* that request armed it again */
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, 3), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->ev.completions), 2);
	/* armed for solicited only: a flush (unsolicited) does not fire */
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ctx->cq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_EQ(test, vt_post_recv(qp, 4), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->ev.completions), 2);
	KUNIT_EXPECT_EQ(test, vt_poll_flushed(test, ctx->cq, qp),
			BIT_ULL(3) | BIT_ULL(4));
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

static void vt_qp_types_and_caps(struct kunit *test)
{
	static const enum ib_qp_type types[] = {
		IB_QPT_RC, IB_QPT_UC, IB_QPT_UD, IB_QPT_RAW_PACKET,
	};
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_init_attr init;
	struct ib_qp *qp;
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		qp = vt_create_qp(test, types[i], ctx->cq, NULL);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(qp), "type %d", types[i]);
		KUNIT_EXPECT_EQ(test, qp->qp_type, types[i]);
		KUNIT_EXPECT_GE(test, qp->qp_num, (u32)SRDMA_MIN_QPN);
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	}
	/* QP 1 is ib_mad's, created when the device registered: no second */
	KUNIT_EXPECT_EQ(test, PTR_ERR(vt_create_qp(test, IB_QPT_GSI, ctx->cq,
						   NULL)), -EBUSY);
	KUNIT_EXPECT_TRUE(test, IS_ERR(vt_create_qp(test, IB_QPT_XRC_INI,
						    ctx->cq, NULL)));

	memset(&init, 0, sizeof(init));
	init.send_cq = ctx->cq;
	init.recv_cq = ctx->cq;
	init.qp_type = IB_QPT_RC;
	init.cap.max_send_wr = SRDMA_MAX_QP_WR + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(ctx->pd, &init)), -EINVAL);
	init.cap.max_send_wr = 1;
	init.cap.max_recv_sge = SRDMA_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(ctx->pd, &init)), -EINVAL);
	init.cap.max_recv_sge = 1;
	init.cap.max_inline_data = SRDMA_MAX_INLINE_BYTES + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(ctx->pd, &init)), -EINVAL);
	/* written back with what the rings really hold */
	init.cap.max_inline_data = 100;
	init.cap.max_send_wr = 5;
	qp = ib_create_qp(ctx->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_EQ(test, init.cap.max_send_wr, 7U);
	KUNIT_EXPECT_GE(test, init.cap.max_inline_data, 100U);
	KUNIT_EXPECT_GE(test, init.cap.max_recv_sge, 1U);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

static void vt_ah_and_ud_send(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	const struct ib_send_wr *bad;
	struct rdma_ah_attr ah_attr, back;
	struct ib_ud_wr wr = {};
	struct ib_ah *ah;
	struct ib_qp *qp;

	vt_fill_av(&ah_attr);
	ah = rdma_create_ah(ctx->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	KUNIT_EXPECT_NE(test, to_srdma_ah(ah)->ah_num, 0U);
	KUNIT_EXPECT_EQ(test, rdma_query_ah(ah, &back), 0);
	KUNIT_EXPECT_EQ(test, rdma_ah_read_grh(&back)->sgid_index, vt.gid_index);

	qp = vt_create_qp(test, IB_QPT_UD, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	vt_ud_to_rts(test, qp);
	wr.wr.wr_id = 1;
	wr.wr.opcode = IB_WR_SEND;
	wr.remote_qpn = 0x42;
	wr.remote_qkey = VT_UD_QKEY;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr.wr, &bad), -EINVAL); /* no AH */
	wr.ah = ah;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr.wr, &bad), 0);
	wr.wr.opcode = IB_WR_RDMA_WRITE;	/* not on UD */
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr.wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr.wr);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);

	/* RoCE needs a GRH */
	rdma_ah_set_ah_flags(&ah_attr, 0);
	ah = rdma_create_ah(ctx->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_EXPECT_TRUE(test, IS_ERR(ah));
}

static void vt_mr_fast_reg_and_stale_keys(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct srdma_dev *sdev = to_srdma_dev(vt.ibdev);
	const struct ib_send_wr *bad;
	struct ib_send_wr inv = {};
	struct ib_reg_wr reg = {};
	struct scatterlist sg[2];
	struct srdma_mr *found;
	struct ib_wc wc;
	struct ib_qp *qp;
	struct ib_mr *mr;
	void *buf;
	u32 key;

	/* the DMA MR behind the PD's local_dma_lkey */
	found = srdma_mr_get(sdev, ctx->pd->local_dma_lkey);
	KUNIT_ASSERT_NOT_NULL(test, found);
	KUNIT_EXPECT_EQ(test, found->kind, SRDMA_MR_DMA);
	srdma_mr_put(found);

	buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	mr = ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf, PAGE_SIZE);
	sg_set_buf(&sg[1], buf + PAGE_SIZE, PAGE_SIZE);
	sg_dma_address(&sg[0]) = (uintptr_t)buf;
	sg_dma_len(&sg[0]) = PAGE_SIZE;
	sg_dma_address(&sg[1]) = (uintptr_t)buf + PAGE_SIZE;
	sg_dma_len(&sg[1]) = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE), 2);
	KUNIT_EXPECT_EQ(test, to_srdma_mr(mr)->num_pages, 2U);
	KUNIT_EXPECT_EQ(test, mr->length, 2 * PAGE_SIZE);
	key = mr->rkey;
	/* mapped, not registered: no key finds it until REG_MR executes */
	KUNIT_EXPECT_NULL(test, srdma_mr_get(sdev, key));
	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	vt_rc_to_rts(test, qp);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.wr.wr_id = 1;
	reg.mr = mr;
	reg.key = key;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(ctx->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_REG_MR);
	found = srdma_mr_get(sdev, key);
	KUNIT_EXPECT_PTR_EQ(test, found, to_srdma_mr(mr));
	if (found) {
		KUNIT_EXPECT_EQ(test, found->access, reg.access);
		srdma_mr_put(found);
	}
	/* the right index with another key byte finds nothing */
	KUNIT_EXPECT_NULL(test, srdma_mr_get(sdev, key ^ 1));
	inv.opcode = IB_WR_LOCAL_INV;
	inv.send_flags = IB_SEND_SIGNALED;
	inv.wr_id = 2;
	inv.ex.invalidate_rkey = key;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &inv, &bad), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(ctx->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_NULL(test, srdma_mr_get(sdev, key));
	/* invalidating it again: nothing registered under that key */
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &inv, &bad), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(ctx->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	while (ib_poll_cq(ctx->cq, 1, &wc) > 0)
		;
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_NULL(test, srdma_mr_get(sdev, key));

	mr = ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_NE(test, mr->rkey, key);
	KUNIT_EXPECT_NULL(test, srdma_mr_get(sdev, key));
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);

	mr = ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG,
			 SRDMA_MAX_FAST_REG_PAGES + 1);
	KUNIT_EXPECT_TRUE(test, IS_ERR(mr));
}

static void vt_srq_posts_resizes_and_limits(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_srq_init_attr init = {
		.event_handler = vt_event,
		.srq_context = &ctx->ev,
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct rxe_recv_wqe *wqe;
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_srq_attr attr = {};
	struct ib_srq *srq;
	struct ib_qp *qp;
	u32 i, max_wr;

	srq = ib_create_srq(ctx->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	max_wr = init.attr.max_wr;
	KUNIT_EXPECT_GE(test, max_wr, 4U);
	for (i = 0; i < max_wr; i++)
		KUNIT_ASSERT_EQ(test, ib_post_srq_recv(srq, &wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, ib_post_srq_recv(srq, &wr, &bad), -ENOMEM);

	attr.srq_limit = max_wr + 1;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_LIMIT), -EINVAL);
	attr.max_wr = 2;	/* below the WQEs present */
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_MAX_WR), -EINVAL);
	attr.max_wr = 20;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_MAX_WR), 0);
	attr.srq_limit = 3;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, ib_query_srq(srq, &attr), 0);
	KUNIT_EXPECT_GE(test, attr.max_wr, 20U);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 3U);
	/* the WQEs survived the resize: room for exactly the rest */
	for (i = max_wr; i < attr.max_wr; i++)
		KUNIT_ASSERT_EQ(test, ib_post_srq_recv(srq, &wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, ib_post_srq_recv(srq, &wr, &bad), -ENOMEM);

	/* the limit event fires once, when fewer than 3 WQEs remain */
	wqe = kunit_kzalloc(test, 1 << to_srdma_srq(srq)->rq.queue.log2_slot_bytes,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wqe);
	for (i = attr.max_wr; i > 3; i--)
		KUNIT_ASSERT_TRUE(test, srdma_srq_pop(to_srdma_srq(srq), wqe));
	KUNIT_EXPECT_EQ(test, vt_events_of(&ctx->ev, IB_EVENT_SRQ_LIMIT_REACHED),
			0);
	KUNIT_ASSERT_TRUE(test, srdma_srq_pop(to_srdma_srq(srq), wqe));
	KUNIT_EXPECT_EQ(test, vt_events_of(&ctx->ev, IB_EVENT_SRQ_LIMIT_REACHED),
			1);
	while (srdma_srq_pop(to_srdma_srq(srq), wqe))
		;
	KUNIT_EXPECT_EQ(test, vt_events_of(&ctx->ev, IB_EVENT_SRQ_LIMIT_REACHED),
			1);
	KUNIT_EXPECT_EQ(test, ib_query_srq(srq, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 0U);	/* disarmed */

	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, srq);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &wr, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_destroy_srq_user(srq, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	ib_destroy_srq(srq);
}

/* RC transport: two QPs of the test device connected to each other */
struct vt_rc_opts {
	u32 dest_qpn;		/* 0: the other QP */
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
};

#define VT_PSN		0xfffff0	/* messages cross the 24-bit wrap */

static void vt_rc_connect(struct kunit *test, struct ib_qp *qp,
			  struct ib_qp *peer, const struct vt_rc_opts *o)
{
	struct ib_qp_attr attr = {};

	attr.port_num = SRDMA_PORT;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX |
					IB_QP_PORT | IB_QP_ACCESS_FLAGS, &attr),
			0);
	vt_fill_rtr(&attr);
	attr.dest_qp_num = o->dest_qpn ?: peer->qp_num;
	attr.rq_psn = VT_PSN;
	attr.min_rnr_timer = IB_RNR_TIMER_000_01;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr), 0);
	memset(&attr, 0, sizeof(attr));
	attr.sq_psn = VT_PSN;
	attr.timeout = o->timeout;
	attr.retry_cnt = o->retry_cnt;
	attr.rnr_retry = o->rnr_retry;
	attr.max_rd_atomic = 4;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTS, IB_QP_SQ_PSN |
					IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC,
					&attr), 0);
}

/* the next completion, within two seconds */
static bool vt_wait_wc(struct ib_cq *cq, struct ib_wc *wc)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return true;
		usleep_range(500, 1000);
	}
	return false;
}

struct vt_rc {
	struct ib_pd *pd;	/* with a global rkey over kernel memory */
	struct ib_cq *cq;
	struct ib_qp *a, *b;
	u8 *src, *dst;
};

#define VT_RC_BYTES	8192

static void vt_rc_setup(struct kunit *test, struct vt_rc *rc,
			const struct vt_rc_opts *oa, const struct vt_rc_opts *ob)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp_init_attr init = {
		.event_handler = vt_event,
		.qp_context = &ctx->ev,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.port_num = SRDMA_PORT,
		.cap = { .max_send_wr = VT_WR, .max_recv_wr = VT_WR,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct srdma_mr *mr;
	int i;

	rc->src = kunit_kzalloc(test, VT_RC_BYTES, GFP_KERNEL);
	rc->dst = kunit_kzalloc(test, VT_RC_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rc->src && rc->dst);
	for (i = 0; i < VT_RC_BYTES; i++)
		rc->src[i] = i * 7 + 1;
	rc->pd = ib_alloc_pd(vt.ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rc->pd));
	/* ib_core gives the global rkey read and write rights: add atomics */
	mr = srdma_mr_get(to_srdma_dev(vt.ibdev), rc->pd->unsafe_global_rkey);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->access |= IB_ACCESS_REMOTE_ATOMIC;
	srdma_mr_put(mr);
	rc->cq = vt_create_cq(ctx, 64);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rc->cq));
	init.send_cq = rc->cq;
	init.recv_cq = rc->cq;
	rc->a = ib_create_qp(rc->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rc->a));
	rc->b = ib_create_qp(rc->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rc->b));
	vt_rc_connect(test, rc->a, rc->b, oa);
	vt_rc_connect(test, rc->b, rc->a, ob);
}

static void vt_rc_teardown(struct vt_rc *rc)
{
	ib_destroy_qp(rc->a);
	ib_destroy_qp(rc->b);
	ib_destroy_cq(rc->cq);
	ib_dealloc_pd(rc->pd);
}

static int vt_rc_post(struct vt_rc *rc, enum ib_wr_opcode opcode, u64 wr_id,
		      u32 len, u64 remote)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)(opcode == IB_WR_RDMA_READ ? rc->dst :
							 rc->src),
		.length = len,
		.lkey = rc->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.opcode = opcode,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ib_rdma_wr rdma = {
		.wr = wr,
		.remote_addr = remote,
		.rkey = rc->pd->unsafe_global_rkey,
	};
	struct ib_atomic_wr atomic = {
		.wr = wr,
		.remote_addr = remote,
		.rkey = rc->pd->unsafe_global_rkey,
		.compare_add = 5,
		.swap = 0x77,
	};
	const struct ib_send_wr *bad;

	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		return ib_post_send(rc->a, &rdma.wr, &bad);
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return ib_post_send(rc->a, &atomic.wr, &bad);
	default:
		return ib_post_send(rc->a, &wr, &bad);
	}
}

static int vt_rc_post_recv(struct vt_rc *rc, u64 wr_id)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)rc->dst,
		.length = VT_RC_BYTES,
		.lkey = rc->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_recv(rc->b, &wr, &bad);
}

#define VT_CHAIN_MAX	8

/*
 * @n signaled WRITEs of @len bytes in one post, the i-th (wr_id i + 1) from
 * src + i * @len to dst + i * @len
 */
static int vt_rc_post_chain(struct vt_rc *rc, int n, u32 len)
{
	struct ib_sge sge[VT_CHAIN_MAX];
	struct ib_rdma_wr wr[VT_CHAIN_MAX];
	const struct ib_send_wr *bad;
	int i;

	if (n > VT_CHAIN_MAX || n * len > VT_RC_BYTES)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		sge[i] = (struct ib_sge){ .addr = (uintptr_t)rc->src + i * len,
					  .length = len,
					  .lkey = rc->pd->local_dma_lkey };
		wr[i] = (struct ib_rdma_wr){
			.wr = { .wr_id = i + 1, .opcode = IB_WR_RDMA_WRITE,
				.send_flags = IB_SEND_SIGNALED,
				.sg_list = &sge[i], .num_sge = 1,
				.next = i + 1 < n ? &wr[i + 1].wr : NULL },
			.remote_addr = (uintptr_t)rc->dst + i * len,
			.rkey = rc->pd->unsafe_global_rkey,
		};
	}
	return ib_post_send(rc->a, &wr[0].wr, &bad);
}

/* the completion of @wr_id; the peer's receive may come first */
static void vt_rc_expect(struct kunit *test, struct vt_rc *rc, u64 wr_id,
			 enum ib_wc_status status, enum ib_wc_opcode opcode)
{
	struct ib_wc wc;

	while (vt_wait_wc(rc->cq, &wc) && wc.wr_id != wr_id)
		;
	KUNIT_ASSERT_EQ_MSG(test, wc.wr_id, wr_id, "no completion");
	KUNIT_EXPECT_EQ(test, wc.status, status);
	if (status == IB_WC_SUCCESS)
		KUNIT_EXPECT_EQ(test, wc.opcode, opcode);
}

static void vt_rc_moves_data(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	struct vt_rc rc;
	u64 *word;
	struct ib_wc wc;
	int sent = 0, received = 0, i;

	vt_rc_setup(test, &rc, &o, &o);
	/*
	 * SEND of 5 packets across the PSN wrap; its two completions come in
	 * either order (the ACK may come before the receive completes)
	 */
	KUNIT_EXPECT_EQ(test, vt_rc_post_recv(&rc, 100), 0);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_SEND, 1, 5000, 0), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_TRUE(test, vt_wait_wc(rc.cq, &wc));
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		if (wc.wr_id == 1) {
			sent++;
			KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
			continue;
		}
		received++;
		KUNIT_EXPECT_EQ(test, wc.wr_id, 100ULL);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
		KUNIT_EXPECT_EQ(test, wc.byte_len, 5000U);
	}
	KUNIT_EXPECT_EQ(test, sent, 1);
	KUNIT_EXPECT_EQ(test, received, 1);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst, rc.src, 5000), 0);

	memset(rc.dst, 0, VT_RC_BYTES);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_WRITE, 2, 3000,
					 (uintptr_t)rc.dst + 10), 0);
	vt_rc_expect(test, &rc, 2, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst + 10, rc.src, 3000), 0);
	KUNIT_EXPECT_EQ(test, rc.dst[3010], 0);

	memset(rc.dst, 0, VT_RC_BYTES);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_READ, 3, 4000,
					 (uintptr_t)rc.src + 7), 0);
	vt_rc_expect(test, &rc, 3, IB_WC_SUCCESS, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst, rc.src + 7, 4000), 0);

	/* atomics on an aligned word of dst; the original lands in src */
	word = (u64 *)(rc.dst + 64);
	*word = 10;
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_ATOMIC_FETCH_AND_ADD, 4, 8,
					 (uintptr_t)word), 0);
	vt_rc_expect(test, &rc, 4, IB_WC_SUCCESS, IB_WC_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, *word, 15ULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)rc.src, 10ULL);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_ATOMIC_CMP_AND_SWP, 5, 8,
					 (uintptr_t)word), 0);
	vt_rc_expect(test, &rc, 5, IB_WC_SUCCESS, IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, *word, 15ULL);	/* 15 != 5: not swapped */
	*word = 5;
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_ATOMIC_CMP_AND_SWP, 6, 8,
					 (uintptr_t)word), 0);
	vt_rc_expect(test, &rc, 6, IB_WC_SUCCESS, IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, *word, 0x77ULL);
	KUNIT_EXPECT_EQ(test, vt_state(rc.a, &(struct ib_qp_attr){}),
			IB_QPS_RTS);
	vt_rc_teardown(&rc);
}

/*
 * A packet to the device's own address is received within its sender's
 * engine run: the receiver's engine, run nested, answers on the sender's
 * CPU but stays on its own, since it has nothing of its own in flight
 * (srdma_task.c); the sender's engine is where it ran.
 */
static void vt_rc_nested_run_keeps_cpu(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	struct srdma_qp *qa, *qb;
	struct vt_rc rc;
	int here, other;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	vt_rc_setup(test, &rc, &o, &o);
	qa = to_srdma_qp(rc.a);
	qb = to_srdma_qp(rc.b);
	migrate_disable();
	here = smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, here);
	WRITE_ONCE(qb->task[SRDMA_HALF_RECV].cpu, other);
	/* one packet: the responder runs nested at once, not as bulk */
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_WRITE, 1, 1000,
					 (uintptr_t)rc.dst), 0);
	migrate_enable();
	vt_rc_expect(test, &rc, 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst, rc.src, 1000), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(qb->task[SRDMA_HALF_RECV].cpu), other);
	KUNIT_EXPECT_EQ(test, READ_ONCE(qa->task[SRDMA_HALF_SEND].cpu), here);
	vt_rc_teardown(&rc);
}

/*
 * The halves of a QP's engine run apart (srdma_task.c): while its receive
 * half is held, as when its responder answers the peer on another CPU, the
 * send half sends a WRITE and takes its ACK.
 */
static void vt_rc_halves_run_apart(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	struct srdma_task *recv;
	struct vt_rc rc;
	struct ib_wc wc;
	bool done;

	vt_rc_setup(test, &rc, &o, &o);
	recv = &to_srdma_qp(rc.a)->task[SRDMA_HALF_RECV];
	/* the test is its runner, once a run kicked at setup is done */
	while (test_and_set_bit_lock(SRDMA_TASK_RUNNING, &recv->flags))
		usleep_range(100, 200);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_WRITE, 1, 1000,
					 (uintptr_t)rc.dst), 0);
	done = vt_wait_wc(rc.cq, &wc);
	/* let go before any assertion ends the test: destroy waits for it */
	clear_bit_unlock(SRDMA_TASK_RUNNING, &recv->flags);
	KUNIT_EXPECT_TRUE_MSG(test, done, "no completion, the receive half held");
	if (done) {
		KUNIT_EXPECT_EQ(test, wc.wr_id, 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, memcmp(rc.dst, rc.src, 1000), 0);
	}
	vt_rc_teardown(&rc);
}

/*
 * An ACK between two QPs of one device is handed to the completer without
 * a packet (srdma_recv_local_ack()): one per WRITE that asks for one, and
 * the WRITE completes by it.
 */
static void vt_rc_local_ack_no_packet(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	struct srdma_dev *sdev;
	u64 acks, sent;
	struct vt_rc rc;

	vt_rc_setup(test, &rc, &o, &o);
	sdev = to_srdma_dev(rc.a->device);
	acks = srdma_counter_read(sdev, SRDMA_CNT_LOCAL_ACKS);
	sent = srdma_counter_read(sdev, SRDMA_CNT_SENT_PKTS);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_WRITE, 1, 1000,
					 (uintptr_t)rc.dst), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst, rc.src, 1000), 0);
	KUNIT_EXPECT_EQ(test, srdma_counter_read(sdev, SRDMA_CNT_LOCAL_ACKS) -
			acks, 1);
	/* the WRITE's one packet, and no ACK packet */
	KUNIT_EXPECT_EQ(test, srdma_counter_read(sdev, SRDMA_CNT_SENT_PKTS) -
			sent, 1);
	vt_rc_teardown(&rc);
}

/*
 * Each half flushes its own queue (srdma_qp_error()): while the receive half
 * is held, as when its responder copies into a receive WQE's buffer, an
 * error of the QP completes none of its receive WQEs; the half's next run
 * (a post in ERR kicks it) flushes them.
 */
static void vt_rc_error_flush_by_own_half(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	struct srdma_task *recv;
	struct srdma_qp *qb;
	struct vt_rc rc;
	int early;

	vt_rc_setup(test, &rc, &o, &o);
	qb = to_srdma_qp(rc.b);
	recv = &qb->task[SRDMA_HALF_RECV];
	KUNIT_EXPECT_EQ(test, vt_rc_post_recv(&rc, 1), 0);
	while (test_and_set_bit_lock(SRDMA_TASK_RUNNING, &recv->flags))
		usleep_range(100, 200);
	srdma_qp_error(qb, IB_EVENT_QP_FATAL);
	msleep(20);
	early = vt_poll_flushed(test, rc.cq, rc.b) ? 1 : 0;
	clear_bit_unlock(SRDMA_TASK_RUNNING, &recv->flags);
	KUNIT_EXPECT_EQ_MSG(test, early, 0,
			    "a receive WQE flushed while its half was held");
	KUNIT_EXPECT_EQ(test, vt_rc_post_recv(&rc, 2), 0);
	KUNIT_EXPECT_EQ(test, vt_wait_flushed(test, rc.cq, rc.b,
					      BIT_ULL(1) | BIT_ULL(2)),
			BIT_ULL(1) | BIT_ULL(2));
	vt_rc_teardown(&rc);
}

/* the copies of send WQEs @qp holds (srdma_swqe_alloc()), counted */
static unsigned int vt_swqes_held(struct srdma_qp *qp)
{
	unsigned int i, held = 0;

	for (i = 0; i <= qp->swqe_mask; i++)
		held += !!READ_ONCE(qp->swqes[i]);
	return held;
}

/* waits up to a second for @qp to hold @n copies; how many it holds */
static unsigned int vt_wait_swqes_held(struct srdma_qp *qp, unsigned int n)
{
	unsigned long end = jiffies + HZ;
	unsigned int held;

	while ((held = vt_swqes_held(qp)) != n && time_before(jiffies, end))
		usleep_range(500, 1000);
	return held;
}

/*
 * A send WQE's copy lives while the WQE is under way; once every WQE
 * copied has completed, the QP keeps only the entry the next one takes
 */
static void vt_rc_idle_qp_keeps_one_copy(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	const struct vt_rc_opts lost = { .dest_qpn = 0xabcdef, .timeout = 14,
					 .retry_cnt = 7 };
	struct srdma_qp *qa;
	struct vt_rc rc;
	int i;

	vt_rc_setup(test, &rc, &o, &o);
	qa = to_srdma_qp(rc.a);
	/* one post: the requester copies the three in one run */
	KUNIT_EXPECT_EQ(test, vt_rc_post_chain(&rc, 3, 2000), 0);
	for (i = 1; i <= 3; i++)
		vt_rc_expect(test, &rc, i, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, vt_wait_swqes_held(qa, 1), 1U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(qa->swqes_held), 1U);
	KUNIT_EXPECT_NOT_NULL(test, READ_ONCE(qa->swqes[qa->req.fetched &
							 qa->swqe_mask]));
	vt_rc_teardown(&rc);

	/* nothing answers: the WQEs stay under way (67 ms x 8), copies held */
	vt_rc_setup(test, &rc, &lost, &o);
	for (i = 1; i <= 2; i++)
		KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_SEND, i, 10, 0), 0);
	KUNIT_EXPECT_EQ(test, vt_wait_swqes_held(to_srdma_qp(rc.a), 2), 2U);
	vt_rc_teardown(&rc);
}

static void vt_rc_remote_access_error(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7 };
	struct vt_rc rc;

	vt_rc_setup(test, &rc, &o, &o);
	/* a key that names nothing: NAK, both QPs in ERR */
	rc.pd->unsafe_global_rkey ^= 0x55;
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_WRITE, 1, 100,
					 (uintptr_t)rc.dst), 0);
	rc.pd->unsafe_global_rkey ^= 0x55;
	vt_rc_expect(test, &rc, 1, IB_WC_REM_ACCESS_ERR, 0);
	KUNIT_EXPECT_EQ(test, vt_state(rc.a, &(struct ib_qp_attr){}),
			IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, vt_state(rc.b, &(struct ib_qp_attr){}),
			IB_QPS_ERR);
	vt_rc_teardown(&rc);
}

/* FLUSH (ib_send_wr cannot name its target: written as a process does) */
static int vt_rc_post_flush(struct vt_rc *rc, u64 wr_id, u8 type, u8 level,
			    u64 remote, u32 len)
{
	struct rxe_send_wqe wqe = {
		.wr.wr_id = wr_id,
		.wr.opcode = IB_WR_FLUSH,
		.wr.send_flags = IB_SEND_SIGNALED,
		.dma.length = len,
	};

	srdma_wr_flush(&wqe.wr)->remote_addr = remote;
	srdma_wr_flush(&wqe.wr)->rkey = rc->pd->unsafe_global_rkey;
	srdma_wr_flush(&wqe.wr)->type = type;
	srdma_wr_flush(&wqe.wr)->level = level;
	return srdma_post_send_wqe(rc->a, &wqe);
}

/*
 * The responder QP and the global key's MR given @qp_access and
 * @mr_access besides what vt_rc_setup() gave them
 */
static void vt_rc_grant(struct kunit *test, struct vt_rc *rc, int qp_access,
			int mr_access)
{
	struct ib_qp_attr attr = {
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC | qp_access,
	};
	struct srdma_mr *mr;

	KUNIT_ASSERT_EQ(test, ib_modify_qp(rc->b, &attr, IB_QP_ACCESS_FLAGS),
			0);
	mr = srdma_mr_get(to_srdma_dev(vt.ibdev), rc->pd->unsafe_global_rkey);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->access |= mr_access;
	srdma_mr_put(mr);
}

static void vt_rc_flush(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7 };
	struct vt_rc rc;

	/* after a WRITE: a range, then the whole MR (its range ignored) */
	vt_rc_setup(test, &rc, &o, &o);
	vt_rc_grant(test, &rc, IB_ACCESS_FLUSH_GLOBAL, IB_ACCESS_FLUSH_GLOBAL);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_WRITE, 1, 3000,
					 (uintptr_t)rc.dst), 0);
	KUNIT_EXPECT_EQ(test, vt_rc_post_flush(&rc, 2, IB_FLUSH_GLOBAL,
					       IB_FLUSH_RANGE,
					       (uintptr_t)rc.dst, 3000), 0);
	KUNIT_EXPECT_EQ(test, vt_rc_post_flush(&rc, 3, IB_FLUSH_GLOBAL,
					       IB_FLUSH_MR, 0, 0), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	vt_rc_expect(test, &rc, 2, IB_WC_SUCCESS, IB_WC_FLUSH);
	vt_rc_expect(test, &rc, 3, IB_WC_SUCCESS, IB_WC_FLUSH);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst, rc.src, 3000), 0);
	/* a placement type the IBTA does not define: refused before sending */
	KUNIT_EXPECT_EQ(test, vt_rc_post_flush(&rc, 4, 4, IB_FLUSH_RANGE,
					       (uintptr_t)rc.dst, 8), 0);
	vt_rc_expect(test, &rc, 4, IB_WC_LOC_QP_OP_ERR, 0);
	vt_rc_teardown(&rc);

	/* persistent: the QP grants global only, so an invalid request */
	vt_rc_setup(test, &rc, &o, &o);
	vt_rc_grant(test, &rc, IB_ACCESS_FLUSH_GLOBAL, IB_ACCESS_FLUSH_GLOBAL);
	KUNIT_EXPECT_EQ(test, vt_rc_post_flush(&rc, 1, IB_FLUSH_PERSISTENT,
					       IB_FLUSH_RANGE,
					       (uintptr_t)rc.dst, 8), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_REM_INV_REQ_ERR, 0);
	KUNIT_EXPECT_EQ(test, vt_state(rc.b, &(struct ib_qp_attr){}),
			IB_QPS_ERR);
	vt_rc_teardown(&rc);

	/* the QP allows it, the MR does not: a remote access error */
	vt_rc_setup(test, &rc, &o, &o);
	vt_rc_grant(test, &rc, IB_ACCESS_FLUSH_GLOBAL, 0);
	KUNIT_EXPECT_EQ(test, vt_rc_post_flush(&rc, 1, IB_FLUSH_GLOBAL,
					       IB_FLUSH_MR, 0, 0), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_REM_ACCESS_ERR, 0);
	vt_rc_teardown(&rc);
}

/* no receive WQE and no RNR retry: the SEND fails after one RNR NAK */
static void vt_rc_rnr_retry_exceeded(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7 };
	struct vt_rc rc;

	vt_rc_setup(test, &rc, &o, &o);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_SEND, 1, 10, 0), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_RNR_RETRY_EXC_ERR, 0);
	vt_rc_teardown(&rc);
}

/*
 * A peer QP that does not exist: nothing answers, the ACK timeout (8 us)
 * expires retry_cnt + 1 times, every retry resends the message.
 */
static void vt_rc_retry_exceeded(struct kunit *test)
{
	struct srdma_dev *sdev = to_srdma_dev(vt.ibdev);
	const struct vt_rc_opts oa = { .dest_qpn = 0xabcdef, .timeout = 1,
				       .retry_cnt = 2 };
	const struct vt_rc_opts ob = { .timeout = 14 };
	s64 retransmits = srdma_counter_read(sdev, SRDMA_CNT_RETRANSMITS);
	s64 timeouts = srdma_counter_read(sdev, SRDMA_CNT_TIMEOUTS);
	struct vt_rc rc;

	vt_rc_setup(test, &rc, &oa, &ob);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_SEND, 1, 2000, 0), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_RETRY_EXC_ERR, 0);
	KUNIT_EXPECT_EQ(test, vt_state(rc.a, &(struct ib_qp_attr){}),
			IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, srdma_counter_read(sdev, SRDMA_CNT_TIMEOUTS) -
			timeouts, 3);
	/*
	 * two packets; after a timeout only the oldest goes again (a probe),
	 * once at each of the two retries
	 */
	KUNIT_EXPECT_EQ(test,
			srdma_counter_read(sdev, SRDMA_CNT_RETRANSMITS) -
			retransmits, 2);
	vt_rc_teardown(&rc);
}

struct vt_error_cqes {
	atomic_t errors;	/* completions with an error other than flush */
	atomic_t before_err;	/* ... polled while their QP was not in ERR */
};

/* polls in the handler, so nothing can run between the CQE and the poll */
static void vt_comp_error_state(struct ib_cq *cq, void *context)
{
	struct vt_error_cqes *seen = context;
	struct ib_wc wc;

	do {
		while (ib_poll_cq(cq, 1, &wc) == 1) {
			if (wc.status == IB_WC_SUCCESS ||
			    wc.status == IB_WC_WR_FLUSH_ERR)
				continue;
			atomic_inc(&seen->errors);
			if (READ_ONCE(to_srdma_qp(wc.qp)->state) != IB_QPS_ERR)
				atomic_inc(&seen->before_err);
		}
	} while (ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) > 0);
}

/*
 * A QP is in ERR before the completion of the WQE that failed can be
 * polled: on the requester (retries exceeded) and on the responder (a
 * receive WQE with a bad lkey, answered by a NAK).
 */
static void vt_rc_error_cqe_after_err_state(struct kunit *test)
{
	const struct vt_rc_opts oa = { .dest_qpn = 0xabcdef, .timeout = 1 };
	const struct vt_rc_opts o = { .timeout = 14 };
	struct vt_error_cqes seen = {};
	struct ib_sge sge = { .addr = 0, .length = 64, .lkey = 0xbad00 };
	struct ib_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	struct vt_rc rc;
	int i, round;

	for (round = 0; round < 2; round++) {
		vt_rc_setup(test, &rc, round ? &o : &oa, &o);
		rc.cq->comp_handler = vt_comp_error_state;
		rc.cq->cq_context = &seen;
		ib_req_notify_cq(rc.cq, IB_CQ_NEXT_COMP);
		if (round)
			KUNIT_EXPECT_EQ(test, ib_post_recv(rc.b, &wr, &bad), 0);
		KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_SEND, 1, 10, 0), 0);
		/* one error on round 0, then two (the responder and the NAK) */
		for (i = 0; i < 200 && atomic_read(&seen.errors) < 1 + 2 * round;
		     i++)
			usleep_range(5000, 10000);
		KUNIT_EXPECT_EQ(test, atomic_read(&seen.errors), 1 + 2 * round);
		vt_rc_teardown(&rc);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&seen.before_err), 0);
}

/* until @counter reaches @count, within a second */
static bool vt_wait_count(enum srdma_counter counter, u64 count)
{
	struct srdma_dev *sdev = to_srdma_dev(vt.ibdev);
	int i;

	for (i = 0; i < 1000; i++) {
		if (srdma_counter_read(sdev, counter) >= count)
			return true;
		usleep_range(500, 1000);
	}
	return false;
}

/*
 * Forge a packet of @opcode to @dest_qpn as a peer at @av would send it:
 * transport headers zeroed but for the BTH, an AETH ACK and a DETH of
 * VT_UD_QKEY, then @payload_bytes of 0xee (a multiple of 4: no pad).
 */
static void vt_forge(struct kunit *test, const struct srdma_av *av, u8 opcode,
		     u32 dest_qpn, u32 psn, u32 payload_bytes)
{
	struct srdma_dev *sdev = to_srdma_dev(vt.ibdev);
	u32 flags = srdma_op_flags(opcode);
	struct srdma_bth *bth;
	struct sk_buff *skb;

	skb = srdma_pkt_alloc(sdev, opcode, payload_bytes, &bth);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	srdma_bth_init(bth, opcode, false, 0, dest_qpn, false, psn);
	if (flags & SRDMA_OP_AETH)
		((struct srdma_aeth *)srdma_hdr(bth, SRDMA_OP_AETH))->smsn =
			srdma_aeth_make(SRDMA_AETH_ACK,
					SRDMA_AETH_CREDITS_NONE, 0);
	if (flags & SRDMA_OP_DETH) {
		struct srdma_deth *deth = srdma_hdr(bth, SRDMA_OP_DETH);

		deth->qkey = cpu_to_be32(VT_UD_QKEY);
		deth->sqp = cpu_to_be32(0x42);
	}
	memset((u8 *)bth + srdma_op_hdr_bytes(opcode), 0xee, payload_bytes);
	local_bh_disable();
	srdma_xmit(sdev, av, NULL, SRDMA_UDP_SPORT_BASE, skb);
	local_bh_enable();
}

/*
 * Responses and ACKs that answer no request sent are dropped and counted,
 * not held: a READ issued later at their PSNs gets the peer's bytes.
 */
static void vt_rc_unsolicited_responses_dropped(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	struct srdma_dev *sdev = to_srdma_dev(vt.ibdev);
	u64 drops = srdma_counter_read(sdev, SRDMA_CNT_DROP_UNSOLICITED);
	const u32 len = 1024 + 100;	/* two responses at path MTU 1024 */
	struct srdma_av *peer;
	struct srdma_qp *qa;
	struct vt_rc rc;

	vt_rc_setup(test, &rc, &o, &o);
	qa = to_srdma_qp(rc.a);
	peer = &to_srdma_qp(rc.b)->av;
	/* the requester is idle at VT_PSN */
	vt_forge(test, peer, IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST, rc.a->qp_num,
		 VT_PSN + 1, 100);
	vt_forge(test, peer, IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY,
		 rc.a->qp_num, VT_PSN + 2, 8);
	vt_forge(test, peer, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, rc.a->qp_num,
		 VT_PSN + 3, 0);
	vt_forge(test, peer, IB_OPCODE_RC_ACKNOWLEDGE, rc.a->qp_num, VT_PSN, 0);
	KUNIT_EXPECT_TRUE(test, vt_wait_count(SRDMA_CNT_DROP_UNSOLICITED,
					      drops + 4));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&qa->comp_ahead), 0U);

	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_READ, 1, len,
					 (uintptr_t)rc.src), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_SUCCESS, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst, rc.src, len), 0);
	KUNIT_EXPECT_EQ(test, srdma_counter_read(sdev,
						 SRDMA_CNT_DROP_UNSOLICITED),
			drops + 4);
	vt_rc_teardown(&rc);
}

/*
 * A fast registration MR mapped zero-based (ib_map_mr_sg_zbva(): iova 0
 * after the mapping) over a buffer that starts inside its page: an RDMA
 * WRITE to address 10 lands 10 bytes into the buffer.
 */
static void vt_rc_write_zero_based_mr(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	const u32 start = 100, len = 500, at = 10;
	const struct ib_send_wr *bad;
	struct ib_reg_wr reg = {};
	struct scatterlist sg;
	struct ib_sge sge;
	struct ib_rdma_wr wr = {};
	struct ib_mr *mr;
	struct vt_rc rc;

	vt_rc_setup(test, &rc, &o, &o);
	mr = ib_alloc_mr(rc.pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	sg_init_one(&sg, rc.dst + start, 3000);
	sg_dma_address(&sg) = (uintptr_t)rc.dst + start;
	sg_dma_len(&sg) = 3000;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg_zbva(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	KUNIT_EXPECT_EQ(test, mr->iova, 0ULL);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 1;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, ib_post_send(rc.a, &reg.wr, &bad), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_SUCCESS, IB_WC_REG_MR);

	sge.addr = (uintptr_t)rc.src;
	sge.length = len;
	sge.lkey = rc.pd->local_dma_lkey;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.wr_id = 2;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = at;
	wr.rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, ib_post_send(rc.a, &wr.wr, &bad), 0);
	vt_rc_expect(test, &rc, 2, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst + start + at, rc.src, len), 0);
	KUNIT_EXPECT_EQ(test, rc.dst[start + at - 1], 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	vt_rc_teardown(&rc);
}

/*
 * A payload from more pieces than an skb has fragments: the first pieces'
 * pages are held, the rest is copied into one fragment, and one is left
 * for the pad and ICRC
 */
static void vt_sge_attach_many_pieces(struct kunit *test)
{
	struct page *pages = alloc_pages(GFP_KERNEL | __GFP_COMP, 5);
	const u32 piece = 30, skip = 2 * piece + 5;
	struct vt_ctx *ctx = test->priv;
	struct rxe_sge sge[24];
	const u32 n = ARRAY_SIZE(sge), len = n * piece - skip;
	struct sk_buff *skb;
	struct ib_qp *qp;
	u8 *mem, *flat;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	mem = page_address(pages);
	get_random_bytes(mem, n * PAGE_SIZE);
	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)mem + i * PAGE_SIZE + 7;
		sge[i].length = piece;
		sge[i].lkey = ctx->pd->local_dma_lkey;
	}
	qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	skb = alloc_skb(64, GFP_KERNEL);
	flat = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_NOT_NULL(test, flat);

	KUNIT_EXPECT_EQ(test, srdma_sge_attach(to_srdma_qp(qp), sge, n, skip,
					       skb, len), 0);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->nr_frags, MAX_SKB_FRAGS - 1);
	KUNIT_EXPECT_EQ(test, skb->len, len);
	/* the first piece: the memory itself, from its 5th byte */
	KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&skb_shinfo(skb)->frags[0]),
			    pages + 2);
	KUNIT_EXPECT_EQ(test, skb_frag_off(&skb_shinfo(skb)->frags[0]), 12U);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, 0, flat, len), 0);
	for (i = 2; i < n; i++) {
		u32 from = i == 2 ? 5 : 0, at = i * piece + from - skip;

		KUNIT_EXPECT_EQ_MSG(test, memcmp(flat + at,
						 (u8 *)(uintptr_t)sge[i].addr +
						 from, piece - from), 0,
				    "SGE %u", i);
	}
	KUNIT_EXPECT_NOT_NULL(test, srdma_pkt_put_frag(skb, SRDMA_ICRC_BYTES));
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, page_count(pages), 1);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	__free_pages(pages, 5);
}

/* a datagram longer than the port's MTU is dropped, one that fits is not */
static void vt_ud_over_mtu_dropped(struct kunit *test)
{
	struct srdma_dev *sdev = to_srdma_dev(vt.ibdev);
	u64 drops = srdma_counter_read(sdev, SRDMA_CNT_DROP_TOO_LONG);
	u32 mtu = ib_mtu_enum_to_int(READ_ONCE(sdev->active_mtu));
	struct vt_ctx *ctx = test->priv;
	const struct ib_recv_wr *bad;
	struct rdma_ah_attr ah_attr;
	struct ib_sge sge = { .lkey = ctx->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ib_wc wc;
	struct ib_ah *ah;
	struct ib_qp *qp;
	bool got;
	u8 *buf;

	sge.length = sizeof(struct ib_grh) + 2 * mtu;
	buf = kunit_kzalloc(test, sge.length, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	sge.addr = (uintptr_t)buf;
	vt_fill_av(&ah_attr);
	ah = rdma_create_ah(ctx->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	qp = vt_create_qp(test, IB_QPT_UD, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	vt_ud_to_rts(test, qp);
	KUNIT_ASSERT_EQ(test, ib_post_recv(qp, &wr, &bad), 0);

	vt_forge(test, &to_srdma_ah(ah)->av, IB_OPCODE_UD_SEND_ONLY,
		 qp->qp_num, 0, mtu + 4);
	KUNIT_EXPECT_TRUE(test, vt_wait_count(SRDMA_CNT_DROP_TOO_LONG,
					      drops + 1));
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ctx->cq, 1, &wc), 0);
	vt_forge(test, &to_srdma_ah(ah)->av, IB_OPCODE_UD_SEND_ONLY,
		 qp->qp_num, 1, mtu);
	/* no assertion: the QP and the AH go in any case */
	got = vt_wait_wc(ctx->cq, &wc);
	KUNIT_EXPECT_TRUE(test, got);
	if (got) {
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
		KUNIT_EXPECT_EQ(test, wc.byte_len,
				(u32)sizeof(struct ib_grh) + mtu);
		KUNIT_EXPECT_EQ(test, buf[sizeof(struct ib_grh) + mtu - 1],
				0xee);
	}
	KUNIT_EXPECT_EQ(test, srdma_counter_read(sdev, SRDMA_CNT_DROP_TOO_LONG),
			drops + 1);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

/*
 * Allocation failures: what each verb made while allocations could fail.
 * The kunit scenario sets failslab and fail_page_alloc to fail a share of
 * the allocations of the tasks that ask for it (task-filter); the test
 * asks for it around its verbs only.
 */
struct vt_fail_counts {
	unsigned int made;	/* the verb succeeded */
	unsigned int refused;	/* it failed with -ENOMEM */
	unsigned int other;	/* it failed otherwise: a bug */
	int other_err;
	const char *other_verb;
};

#define VT_FAIL_ROUNDS	100

static void vt_note(struct vt_fail_counts *c, const char *verb, int err)
{
	if (!err) {
		c->made++;
	} else if (err == -ENOMEM) {
		c->refused++;
	} else {
		c->other++;
		c->other_err = err;
		c->other_verb = verb;
	}
}

/*
 * failslab and fail_page_alloc fail this task's allocations, or stop; a
 * kernel without fault injection (the plain one of make bench) has no
 * such flag, and the test that needs it skips there.
 */
static void vt_make_it_fail(bool fail)
{
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = fail;
#endif
}

/* one of each object, made with failures injected, then destroyed */
static void vt_churn_failing(struct vt_fail_counts *c)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_srq_init_attr srq_init = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.port_num = SRDMA_PORT,
		.cap = { .max_send_wr = VT_WR, .max_recv_wr = VT_WR,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ib_qp_attr attr = { .port_num = SRDMA_PORT };
	struct ib_srq *srq = NULL;
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct ib_mr *mr = NULL;
	struct ib_pd *pd;
	int err;

	vt_make_it_fail(true);
	pd = ib_alloc_pd(vt.ibdev, 0);
	vt_note(c, "ib_alloc_pd", PTR_ERR_OR_ZERO(pd));
	if (IS_ERR(pd))
		goto out;
	cq = ib_create_cq(vt.ibdev, NULL, NULL, NULL, &cq_attr);
	vt_note(c, "ib_create_cq", PTR_ERR_OR_ZERO(cq));
	if (IS_ERR(cq))
		cq = NULL;
	if (cq) {
		init.send_cq = cq;
		init.recv_cq = cq;
		qp = ib_create_qp(pd, &init);
		vt_note(c, "ib_create_qp", PTR_ERR_OR_ZERO(qp));
		if (IS_ERR(qp))
			qp = NULL;
	}
	if (qp) {
		err = vt_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX | IB_QP_PORT |
				IB_QP_ACCESS_FLAGS, &attr);
		vt_note(c, "ib_modify_qp(INIT)", err);
		if (!err) {
			vt_fill_rtr(&attr);
			attr.dest_qp_num = qp->qp_num;
			vt_note(c, "ib_modify_qp(RTR)",
				vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr));
		}
	}
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	vt_note(c, "ib_alloc_mr", PTR_ERR_OR_ZERO(mr));
	if (IS_ERR(mr))
		mr = NULL;
	srq = ib_create_srq(pd, &srq_init);
	vt_note(c, "ib_create_srq", PTR_ERR_OR_ZERO(srq));
	if (IS_ERR(srq))
		srq = NULL;
	vt_make_it_fail(false);
	if (srq)
		ib_destroy_srq(srq);
	if (mr)
		ib_dereg_mr(mr);
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_destroy_cq(cq);
	ib_dealloc_pd(pd);
out:
	vt_make_it_fail(false);
}

#define VT_FAIL_CHAIN	8	/* WRITEs per post: copies the window allocates */
#define VT_FAIL_POSTS	20
#define VT_FAIL_LONE	40	/* a 10 % failure in one of them: 98.5 % */

/*
 * Chains of WRITEs posted while this task's allocations fail: the engine
 * runs in the posting task, where the copies of the WQEs (srdma_swqe_alloc())
 * and the packets' skbs may fail; each is tried again from the xmit timer
 * (softirq, where nothing is failed), and every WRITE completes with its data.
 * Then lone WRITEs on QPs just reset, which hold no copy: a failed copy has
 * nothing in flight whose ACK would run the engine again, only the timer.
 */
static void vt_rc_posts_while_failing(struct kunit *test, struct vt_rc *rc,
				      const struct vt_rc_opts *o)
{
	struct srdma_dev *sdev = to_srdma_dev(vt.ibdev);
	s64 nomem = srdma_counter_read(sdev, SRDMA_CNT_PKT_NOMEM);
	int post, i, err;

	for (post = 0; post < VT_FAIL_POSTS; post++) {
		memset(rc->dst, 0, VT_RC_BYTES);
		vt_make_it_fail(true);
		err = vt_rc_post_chain(rc, VT_FAIL_CHAIN, 1000);
		vt_make_it_fail(false);
		KUNIT_ASSERT_EQ(test, err, 0);
		for (i = 1; i <= VT_FAIL_CHAIN; i++)
			vt_rc_expect(test, rc, i, IB_WC_SUCCESS,
				     IB_WC_RDMA_WRITE);
		KUNIT_ASSERT_EQ(test, memcmp(rc->dst, rc->src,
					     VT_FAIL_CHAIN * 1000), 0);
	}
	for (post = 0; post < VT_FAIL_LONE; post++) {
		struct ib_qp_attr attr = {};

		KUNIT_ASSERT_EQ(test, vt_modify(rc->a, IB_QPS_RESET, 0, &attr),
				0);
		KUNIT_ASSERT_EQ(test, vt_modify(rc->b, IB_QPS_RESET, 0, &attr),
				0);
		vt_rc_connect(test, rc->a, rc->b, o);
		vt_rc_connect(test, rc->b, rc->a, o);
		vt_make_it_fail(true);
		err = vt_rc_post(rc, IB_WR_RDMA_WRITE, post, 100,
				 (uintptr_t)rc->dst);
		vt_make_it_fail(false);
		KUNIT_ASSERT_EQ(test, err, 0);
		vt_rc_expect(test, rc, post, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	}
	/* the injection reached the data path */
	KUNIT_EXPECT_GT(test, srdma_counter_read(sdev, SRDMA_CNT_PKT_NOMEM),
			nomem);
}

/*
 * Every verb either works or fails with -ENOMEM while allocations fail;
 * the data path's allocations in a posting task fail and are tried again;
 * afterwards the device moves data (kmemleak, on in the kunit scenario,
 * finds what a failed verb left behind).
 */
static void vt_allocation_failures(struct kunit *test)
{
	const struct vt_rc_opts o = { .timeout = 14, .retry_cnt = 7,
				      .rnr_retry = 7 };
	struct vt_fail_counts c = {};
	struct vt_rc rc;
	int i;

	if (!IS_ENABLED(CONFIG_FAILSLAB) || !IS_ENABLED(CONFIG_FAIL_PAGE_ALLOC))
		kunit_skip(test, "no failslab or fail_page_alloc in this kernel");
	for (i = 0; i < VT_FAIL_ROUNDS; i++)
		vt_churn_failing(&c);
	kunit_info(test, "%u verbs worked, %u refused with -ENOMEM\n",
		   c.made, c.refused);
	KUNIT_EXPECT_EQ_MSG(test, c.other, 0U, "%s: %d", c.other_verb,
			    c.other_err);
	/* the kunit scenario's injection reached the verbs */
	KUNIT_EXPECT_GT(test, c.refused, 0U);
	KUNIT_EXPECT_GT(test, c.made, 0U);

	vt_rc_setup(test, &rc, &o, &o);
	vt_rc_posts_while_failing(test, &rc, &o);
	memset(rc.dst, 0, VT_RC_BYTES);
	KUNIT_EXPECT_EQ(test, vt_rc_post(&rc, IB_WR_RDMA_WRITE, 1, 4000,
					 (uintptr_t)rc.dst), 0);
	vt_rc_expect(test, &rc, 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, memcmp(rc.dst, rc.src, 4000), 0);
	vt_rc_teardown(&rc);
}

/* IB_QP_RATE_LIMIT and static_rate reach the QP's rate; RESET forgets them */
static void vt_rate_from_verbs(struct kunit *test)
{
	struct vt_ctx *ctx = test->priv;
	struct ib_qp *qp = vt_create_qp(test, IB_QPT_RC, ctx->cq, NULL);
	struct srdma_rate_cfg *cfg;
	struct ib_qp_attr attr = {};

	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	cfg = &to_srdma_qp(qp)->rate.cfg;
	attr.port_num = SRDMA_PORT;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX |
					IB_QP_PORT | IB_QP_ACCESS_FLAGS, &attr),
			0);
	vt_fill_rtr(&attr);
	rdma_ah_set_static_rate(&attr.ah_attr, IB_RATE_10_GBPS);
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTR, VT_RTR_MASK, &attr), 0);
	KUNIT_EXPECT_EQ(test, cfg->av_kbps, 10000000ULL);
	memset(&attr, 0, sizeof(attr));
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 4;
	attr.rate_limit = 250000;
	KUNIT_ASSERT_EQ(test, vt_modify(qp, IB_QPS_RTS, IB_QP_TIMEOUT |
					IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
					IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC |
					IB_QP_RATE_LIMIT, &attr), 0);
	KUNIT_EXPECT_EQ(test, cfg->verbs_kbps, 250000ULL);
	/* above the port's speed (100 Gbit/s: the test netdev reports none) */
	attr.rate_limit = U32_MAX;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTS, IB_QP_RATE_LIMIT, &attr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cfg->verbs_kbps, 250000ULL);
	attr.rate_limit = 0;	/* unlimited, as in the verbs API */
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTS, IB_QP_RATE_LIMIT, &attr),
			0);
	KUNIT_EXPECT_EQ(test, cfg->verbs_kbps, 0ULL);
	attr.rate_limit = 1000;
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RTS, IB_QP_RATE_LIMIT, &attr),
			0);
	KUNIT_EXPECT_EQ(test, vt_modify(qp, IB_QPS_RESET, 0, &attr), 0);
	KUNIT_EXPECT_EQ(test, cfg->verbs_kbps, 0ULL);
	KUNIT_EXPECT_EQ(test, cfg->av_kbps, 0ULL);
	ib_destroy_qp(qp);
}

/* a UD send of @qp to @ah, signaled; its completion's status, or -1 */
static int vt_ud_send(struct ib_qp *qp, struct ib_cq *cq, struct ib_ah *ah)
{
	const struct ib_send_wr *bad;
	struct ib_ud_wr wr = {
		.wr = { .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
		.ah = ah,
		.remote_qpn = 0x42,
		.remote_qkey = VT_UD_QKEY,
	};
	struct ib_wc wc;
	int i;

	if (ib_post_send(qp, &wr.wr, &bad))
		return -1;
	for (i = 0; i < 100; i++) {
		if (ib_poll_cq(cq, 1, &wc) == 1)
			return wc.status;
		usleep_range(5000, 10000);
	}
	return -1;
}

/* a UD QP is paced at the static_rate of the AH it sends to */
static void vt_ud_rate_from_ah(struct kunit *test)
{
	static const u8 rates[] = { IB_RATE_10_GBPS, IB_RATE_5_GBPS,
				    IB_RATE_PORT_CURRENT };
	struct vt_ctx *ctx = test->priv;
	struct rdma_ah_attr ah_attr;
	struct srdma_qp *sqp;
	struct ib_ah *ah;
	struct ib_qp *qp;
	int i;

	qp = vt_create_qp(test, IB_QPT_UD, ctx->cq, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	sqp = to_srdma_qp(qp);
	vt_ud_to_rts(test, qp);
	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		vt_fill_av(&ah_attr);
		rdma_ah_set_static_rate(&ah_attr, rates[i]);
		ah = rdma_create_ah(ctx->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
		KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
		KUNIT_EXPECT_EQ(test, vt_ud_send(qp, ctx->cq, ah), IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, sqp->rate.cfg.av_kbps,
				srdma_static_rate_kbps(rates[i]));
		/* in force: the engine applied it before it sent */
		KUNIT_EXPECT_EQ(test, READ_ONCE(sqp->rate.tbf.kbps),
				srdma_static_rate_kbps(rates[i]));
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	}
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

static struct kunit_case vt_cases[] = {
	KUNIT_CASE(vt_qp_walks_every_state),
	KUNIT_CASE(vt_refused_modify_changes_nothing),
	KUNIT_CASE(vt_err_flushes_every_wqe),
	KUNIT_CASE(vt_send_refused_before_rts),
	KUNIT_CASE(vt_full_queues_refuse_posts),
	KUNIT_CASE(vt_sqd_raises_drained_when_asked),
	KUNIT_CASE(vt_async_error_moves_to_err),
	KUNIT_CASE(vt_cq_overflow_loses_nothing),
	KUNIT_CASE(vt_cq_notify_once_per_arming),
	KUNIT_CASE(vt_qp_types_and_caps),
	KUNIT_CASE(vt_ah_and_ud_send),
	KUNIT_CASE(vt_mr_fast_reg_and_stale_keys),
	KUNIT_CASE(vt_srq_posts_resizes_and_limits),
	KUNIT_CASE(vt_rc_moves_data),
	KUNIT_CASE(vt_rc_nested_run_keeps_cpu),
	KUNIT_CASE(vt_rc_halves_run_apart),
	KUNIT_CASE(vt_rc_local_ack_no_packet),
	KUNIT_CASE(vt_rc_error_flush_by_own_half),
	KUNIT_CASE(vt_rc_idle_qp_keeps_one_copy),
	KUNIT_CASE(vt_rc_remote_access_error),
	KUNIT_CASE(vt_rc_flush),
	KUNIT_CASE(vt_rc_rnr_retry_exceeded),
	KUNIT_CASE(vt_rc_retry_exceeded),
	KUNIT_CASE(vt_rc_error_cqe_after_err_state),
	KUNIT_CASE(vt_rc_unsolicited_responses_dropped),
	KUNIT_CASE(vt_rc_write_zero_based_mr),
	KUNIT_CASE(vt_ud_over_mtu_dropped),
	KUNIT_CASE(vt_sge_attach_many_pieces),
	KUNIT_CASE(vt_allocation_failures),
	KUNIT_CASE(vt_rate_from_verbs),
	KUNIT_CASE(vt_ud_rate_from_ah),
	{}
};

static struct kunit_suite vt_suite = {
	.name = "srdma_verbs",
	.suite_init = vt_suite_init,
	.suite_exit = vt_suite_exit,
	.init = vt_init,
	.exit = vt_exit,
	.test_cases = vt_cases,
};

kunit_test_suite(vt_suite);
