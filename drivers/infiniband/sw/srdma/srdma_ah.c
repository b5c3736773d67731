// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address vectors and address handles. srdma speaks RoCEv2 only: every path
 * is global (has a GRH) and leaves from a RoCEv2 GID of the port. ib_core
 * resolves the destination MAC before the driver sees the attributes.
 *
 * AHs are numbered (ah_num) so that librxe names them in UD WQEs rather
 * than copying the address vector into every WQE.
 */
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

#include "srdma.h"

/**
 * srdma_av_from_attr() - check address attributes and convert them
 * @sdev: the device
 * @av: filled on success
 * @attr: the attributes, with the source GID attribute resolved by ib_core
 * @why: on failure, what was wrong, for a debug message
 *
 * Return: 0 or -EINVAL.
 */
int srdma_av_from_attr(struct srdma_dev *sdev, struct srdma_av *av,
		       const struct rdma_ah_attr *attr, const char **why)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;
	struct net_device *ndev;
	int ifindex;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE) {
		*why = "not a RoCE address";
		return -EINVAL;
	}
	if (rdma_ah_get_port_num(attr) != SRDMA_PORT) {
		*why = "port_num is not 1";
		return -EINVAL;
	}
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH)) {
		*why = "is_global is not set (RoCE needs a GRH)";
		return -EINVAL;
	}
	if (grh->sgid_index >= SRDMA_GID_TABLE_LEN || !sgid_attr) {
		*why = "sgid_index names no GID";
		return -EINVAL;
	}
	if (sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		*why = "sgid_index names a GID that is not RoCEv2";
		return -EINVAL;
	}
	if (grh->flow_label > IB_GRH_FLOWLABEL_MASK) {
		*why = "flow_label is wider than 20 bits";
		return -EINVAL;
	}
	if (rdma_ah_get_sl(attr) > 7) {
		*why = "sl above 7";
		return -EINVAL;
	}
	if (rdma_ah_get_static_rate(attr) > IB_RATE_600_GBPS) {
		*why = "static_rate is not an enum ib_rate";
		return -EINVAL;
	}

	/* a VLAN's GIDs are the port's too: their packets leave tagged */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	ifindex = IS_ERR(ndev) ? 0 : ndev->ifindex;
	rcu_read_unlock();
	if (!ifindex) {
		*why = "the netdev of sgid_index is gone";
		return -EINVAL;
	}

	memset(av, 0, sizeof(*av));
	av->ifindex = ifindex;
	av->network_type = ipv6_addr_v4mapped((struct in6_addr *)&sgid_attr->gid) ?
			   RXE_NETWORK_TYPE_IPV4 : RXE_NETWORK_TYPE_IPV6;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->sgid = sgid_attr->gid;
	av->dgid = grh->dgid;
	av->flow_label = grh->flow_label;
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->sl = rdma_ah_get_sl(attr);
	av->static_rate = rdma_ah_get_static_rate(attr);
	return 0;
}

int srdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct srdma_dev *sdev = to_srdma_dev(ibah->device);
	struct srdma_ah *ah = to_srdma_ah(ibah);
	struct rxe_create_ah_resp resp = {};
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							      GFP_ATOMIC;
	unsigned long flags;
	const char *why;
	int err;

	err = srdma_av_from_attr(sdev, &ah->av, init->ah_attr, &why);
	if (err) {
		ibdev_dbg(&sdev->ib_dev, "AH refused: %s\n", why);
		return err;
	}
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	ah->attr = *init->ah_attr;
	ah->attr.grh.sgid_attr = NULL;	/* ib_core holds it for the AH */

	xa_lock_irqsave(&sdev->ah_xa, flags);
	err = __xa_alloc_cyclic(&sdev->ah_xa, &ah->ah_num, ah,
				XA_LIMIT(1, sdev->attr.max_ah), &sdev->ah_next,
				gfp);
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;

	if (udata) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			srdma_destroy_ah(ibah, 0);
			return err;
		}
	}
	return 0;
}

int srdma_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_srdma_ah(ibah)->attr;
	return 0;
}

int srdma_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct srdma_dev *sdev = to_srdma_dev(ibah->device);
	unsigned long irqflags;

	xa_lock_irqsave(&sdev->ah_xa, irqflags);
	__xa_erase(&sdev->ah_xa, to_srdma_ah(ibah)->ah_num);
	xa_unlock_irqrestore(&sdev->ah_xa, irqflags);
	return 0;
}
