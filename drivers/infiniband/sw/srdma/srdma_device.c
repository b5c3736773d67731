// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srdma device and port: attributes, port state that follows the netdev,
 * user contexts, protection domains, and the ib_device_ops table. The other
 * verbs objects have a file each.
 */
#include <kunit/visibility.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>

#include "srdma.h"

/**
 * srdma_mtu_from_netdev() - the IB MTU a netdev MTU can carry
 * @ndev_mtu: the netdev MTU in bytes
 *
 * Return: the largest IB MTU whose packets, with every RoCEv2 header,
 * fit in @ndev_mtu; 0 (not a valid enum ib_mtu) if not even 256 bytes fit.
 */
VISIBLE_IF_KUNIT enum ib_mtu srdma_mtu_from_netdev(unsigned int ndev_mtu)
{
	enum ib_mtu mtu;

	if (ndev_mtu < SRDMA_MAX_HDR_BYTES)
		return 0;
	for (mtu = IB_MTU_4096; mtu >= IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) <= ndev_mtu - SRDMA_MAX_HDR_BYTES)
			return mtu;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mtu_from_netdev);

static struct lock_class_key srdma_ah_xa_key;

/**
 * srdma_dev_init_attrs() - fill the device attributes at creation
 * @sdev: the device, with @sdev->ndev set
 */
void srdma_dev_init_attrs(struct srdma_dev *sdev)
{
	struct ib_device_attr *attr = &sdev->attr;
	struct ib_device *ib_dev = &sdev->ib_dev;

	strscpy(ib_dev->node_desc, "srdma", sizeof(ib_dev->node_desc));
	ib_dev->node_type = RDMA_NODE_IB_CA;
	ib_dev->phys_port_cnt = 1;
	ib_dev->num_comp_vectors = num_possible_cpus();
	ib_dev->local_dma_lkey = 0;
	/* librxe's doorbell and CQ arming are these optional write commands */
	ib_dev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				   BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	addrconf_addr_eui48((unsigned char *)&ib_dev->node_guid,
			    sdev->ndev->dev_addr);

	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = SRDMA_VENDOR_ID;
	attr->vendor_part_id = SRDMA_VENDOR_PART_ID;
	attr->hw_ver = SRDMA_HW_VERSION;
	attr->fw_ver = SRDMA_FW_VERSION;
	attr->sys_image_guid = ib_dev->node_guid;
	attr->max_mr_size = SRDMA_MAX_MR_BYTES;
	attr->page_size_cap = SRDMA_PAGE_SIZE_CAP;
	attr->max_qp = SRDMA_MAX_QP;
	attr->max_qp_wr = SRDMA_MAX_QP_WR;
	attr->max_send_sge = SRDMA_MAX_SGE;
	attr->max_recv_sge = SRDMA_MAX_SGE;
	attr->max_sge_rd = SRDMA_MAX_SGE;
	attr->max_cq = SRDMA_MAX_CQ;
	attr->max_cqe = SRDMA_MAX_CQE;
	attr->max_mr = SRDMA_MAX_MR;
	attr->max_mw = SRDMA_MAX_MR;	/* windows share the MRs' key table */
	attr->max_pd = SRDMA_MAX_PD;
	attr->max_qp_rd_atom = SRDMA_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SRDMA_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SRDMA_MAX_RD_ATOMIC * SRDMA_MAX_QP;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = SRDMA_MAX_AH;
	attr->max_mcast_grp = SRDMA_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SRDMA_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SRDMA_MAX_MCAST_GRP *
					  SRDMA_MAX_MCAST_QP_ATTACH;
	attr->max_srq = SRDMA_MAX_SRQ;
	attr->max_srq_wr = SRDMA_MAX_SRQ_WR;
	attr->max_srq_sge = SRDMA_MAX_SRQ_SGE;
	attr->max_fast_reg_page_list_len = SRDMA_MAX_FAST_REG_PAGES;
	attr->max_pkeys = SRDMA_PKEY_TABLE_LEN;
	attr->device_cap_flags = IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_ATOMIC_WRITE |
				 IB_DEVICE_FLUSH_GLOBAL;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/* explicit ODP MRs on RC (srdma_odp.c), where ib_core has ODP */
	if (IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)) {
		attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
		attr->odp_caps.general_caps = IB_ODP_SUPPORT;
		attr->odp_caps.per_transport_caps.rc_odp_caps =
			IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
			IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;
	}

	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC1);
	spin_lock_init(&sdev->mw_lock);
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	/*
	 * The tables above share one lock class (one xa_init_flags() call
	 * site); only the AH table's lock is taken in softirq (UD sends), with
	 * interrupts disabled: a class of its own, or lockdep sees the MR
	 * table's process-context locking as unsafe.
	 */
	lockdep_set_class(&sdev->ah_xa.xa_lock, &srdma_ah_xa_key);
	xa_init_flags(&sdev->srq_xa, XA_FLAGS_ALLOC1);
	srdma_mcast_init(sdev);
	srdma_raw_init(sdev);
}

/*
 * Whether a table holds an object, or an index reserved for one. Not
 * xa_empty(): after an allocation failed half-way through xa_alloc(), an
 * XA_FLAGS_ALLOC1 array can keep nodes with only its own reserved index 0
 * (seen in KUnit's allocation failure case), which xa_destroy() frees.
 * Index 0 holds no object in any table: the MR, AH and SRQ tables start at
 * 1, and RoCE has no QP0.
 */
static bool srdma_xa_in_use(struct xarray *xa)
{
	XA_STATE(xas, xa, 1);
	bool used;

	rcu_read_lock();
	used = xas_find(&xas, ULONG_MAX);
	rcu_read_unlock();
	return used;
}

/**
 * srdma_dev_free_objects() - release the object tables of a device
 * @sdev: the device; ib_core destroyed every object before
 */
void srdma_dev_free_objects(struct srdma_dev *sdev)
{
	WARN(srdma_xa_in_use(&sdev->qp_xa), "QPs left\n");
	WARN(srdma_xa_in_use(&sdev->mr_xa), "MRs left\n");
	WARN(srdma_xa_in_use(&sdev->ah_xa), "AHs left\n");
	WARN(srdma_xa_in_use(&sdev->srq_xa), "SRQs left\n");
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->mr_xa);
	xa_destroy(&sdev->ah_xa);
	xa_destroy(&sdev->srq_xa);
	srdma_mcast_exit(sdev);
	srdma_raw_exit(sdev);
}

/* The netdev's state in IB terms; RTNL or a netdev event protects reading. */
static enum ib_port_state srdma_ndev_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/**
 * srdma_port_update() - follow the netdev's carrier and MTU
 * @sdev: the device
 *
 * Raises IB_EVENT_PORT_ACTIVE or IB_EVENT_PORT_ERR when the state of a
 * registered device changes.
 */
void srdma_port_update(struct srdma_dev *sdev)
{
	enum ib_port_state state = srdma_ndev_port_state(sdev->ndev);
	enum ib_mtu mtu = srdma_mtu_from_netdev(READ_ONCE(sdev->ndev->mtu));
	enum ib_port_state old;
	struct ib_event event = {
		.device = &sdev->ib_dev,
		.element.port_num = SRDMA_PORT,
	};

	spin_lock(&sdev->port_lock);
	old = sdev->port_state;
	sdev->port_state = state;
	/* written under port_lock, read without it by the data path */
	WRITE_ONCE(sdev->active_mtu, mtu ? mtu : IB_MTU_256);
	spin_unlock(&sdev->port_lock);

	if (old == state)
		return;
	/*
	 * Events only while registered: ib_dispatch_event() queues work that
	 * queries the port, and ib_core flushes it only on unregistration.
	 */
	if (!ib_device_try_get(&sdev->ib_dev))
		return;
	ibdev_info(&sdev->ib_dev, "port %s\n",
		   state == IB_PORT_ACTIVE ? "active" : "down");
	event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
	ib_device_put(&sdev->ib_dev);
}

static int srdma_query_device(struct ib_device *ib_dev,
			      struct ib_device_attr *attr,
			      struct ib_udata *uhw)
{
	if (uhw->inlen || uhw->outlen)
		return -EINVAL;
	*attr = to_srdma_dev(ib_dev)->attr;
	return 0;
}

static int srdma_query_port(struct ib_device *ib_dev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct srdma_dev *sdev = to_srdma_dev(ib_dev);
	int err;

	/* ib_core zeroed *attr */
	spin_lock(&sdev->port_lock);
	attr->state = sdev->port_state;
	attr->active_mtu = sdev->active_mtu;
	spin_unlock(&sdev->port_lock);

	attr->max_mtu = IB_MTU_4096;
	attr->gid_tbl_len = SRDMA_GID_TABLE_LEN;
	attr->pkey_tbl_len = SRDMA_PKEY_TABLE_LEN;
	attr->max_msg_sz = SRDMA_MAX_MSG_BYTES;
	attr->max_vl_num = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP;

	err = ib_get_eth_speed(ib_dev, port_num, &attr->active_speed,
			       &attr->active_width);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (dev_get_flags(sdev->ndev) & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	return err;
}

static int srdma_query_pkey(struct ib_device *ib_dev, u32 port_num, u16 index,
			    u16 *pkey)
{
	if (index >= SRDMA_PKEY_TABLE_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int srdma_modify_device(struct ib_device *ib_dev, int mask,
			       struct ib_device_modify *modify)
{
	struct srdma_dev *sdev = to_srdma_dev(ib_dev);

	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID |
		     IB_DEVICE_MODIFY_NODE_DESC))
		return -EOPNOTSUPP;
	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID)
		sdev->attr.sys_image_guid = cpu_to_be64(modify->sys_image_guid);
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ib_dev->node_desc, modify->node_desc,
		       sizeof(ib_dev->node_desc));
	return 0;
}

static enum rdma_link_layer srdma_get_link_layer(struct ib_device *ib_dev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int srdma_get_port_immutable(struct ib_device *ib_dev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	/* RoCEv2 GIDs managed by ib_core; MADs on the GSI QP (srdma_ud.c) */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	immutable->gid_tbl_len = SRDMA_GID_TABLE_LEN;
	immutable->pkey_tbl_len = SRDMA_PKEY_TABLE_LEN;
	return 0;
}

static void srdma_get_dev_fw_str(struct ib_device *ib_dev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%d.%d.%d", SRDMA_FW_MAJOR,
		 SRDMA_FW_MINOR, SRDMA_FW_SUB);
}

static int srdma_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	/* The rxe ABI passes nothing at context allocation. */
	return 0;
}

static void srdma_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * Device removal with user contexts open: ib_uverbs revokes the context and
 * zaps the mappings it made through rdma_user_mmap_entry; nothing of srdma's
 * own stays mapped. Having this op is what lets removal and rmmod proceed
 * without waiting for every process to close the device.
 */
static void srdma_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int srdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibpd->device);

	if (atomic_inc_return(&sdev->pd_count) > SRDMA_MAX_PD) {
		atomic_dec(&sdev->pd_count);
		return -ENOMEM;
	}
	return 0;
}

static int srdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_srdma_dev(ibpd->device)->pd_count);
	return 0;
}

const struct ib_device_ops srdma_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SRDMA_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = srdma_alloc_hw_port_stats,
	.alloc_mr = srdma_alloc_mr,
	.alloc_mw = srdma_alloc_mw,
	.attach_mcast = srdma_attach_mcast,
	.alloc_pd = srdma_alloc_pd,
	.alloc_ucontext = srdma_alloc_ucontext,
	.create_ah = srdma_create_ah,
	.create_cq = srdma_create_cq,
	.create_qp = srdma_create_qp,
	.create_srq = srdma_create_srq,
	.create_user_ah = srdma_create_ah,
	.dealloc_driver = srdma_dealloc_driver,
	.dealloc_mw = srdma_dealloc_mw,
	.detach_mcast = srdma_detach_mcast,
	.dealloc_pd = srdma_dealloc_pd,
	.dealloc_ucontext = srdma_dealloc_ucontext,
	.dereg_mr = srdma_dereg_mr,
	.destroy_ah = srdma_destroy_ah,
	.destroy_cq = srdma_destroy_cq,
	.destroy_qp = srdma_destroy_qp,
	.destroy_srq = srdma_destroy_srq,
	.disassociate_ucontext = srdma_disassociate_ucontext,
	.fill_res_qp_entry = srdma_fill_res_qp_entry,
	.get_dev_fw_str = srdma_get_dev_fw_str,
	.get_dma_mr = srdma_get_dma_mr,
	.get_hw_stats = srdma_get_hw_stats,
	.get_link_layer = srdma_get_link_layer,
	.get_port_immutable = srdma_get_port_immutable,
	.map_mr_sg = srdma_map_mr_sg,
	.mmap = srdma_mmap,
	.mmap_free = srdma_mmap_free,
	.modify_device = srdma_modify_device,
	.modify_qp = srdma_modify_qp,
	.modify_srq = srdma_modify_srq,
	.poll_cq = srdma_poll_cq,
	.post_recv = srdma_post_recv,
	.post_send = srdma_post_send,
	.post_srq_recv = srdma_post_srq_recv,
	.query_ah = srdma_query_ah,
	.query_device = srdma_query_device,
	.query_pkey = srdma_query_pkey,
	.query_port = srdma_query_port,
	.query_qp = srdma_query_qp,
	.query_srq = srdma_query_srq,
	.reg_user_mr = srdma_reg_user_mr,
	.advise_mr = srdma_advise_mr,
	.rereg_user_mr = srdma_rereg_user_mr,
	.req_notify_cq = srdma_req_notify_cq,
	.resize_cq = srdma_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, srdma_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, srdma_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, srdma_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, srdma_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, srdma_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, srdma_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, srdma_ucontext, ibuc),
};

/**
 * srdma_dev_get_by_name() - find an srdma device by its name
 * @name: "srdma0"
 *
 * Return: the device, held until ib_device_put(), or NULL if there is no
 * device of that name or it is not srdma's (rdma_rxe has our driver_id).
 */
struct srdma_dev *srdma_dev_get_by_name(const char *name)
{
	struct ib_device *ib_dev = ib_device_get_by_name(name, RDMA_DRIVER_RXE);

	if (!ib_dev)
		return NULL;
	if (ib_dev->ops.owner != THIS_MODULE) {
		ib_device_put(ib_dev);
		return NULL;
	}
	return to_srdma_dev(ib_dev);
}
