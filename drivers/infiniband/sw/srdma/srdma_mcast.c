// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multicast for UD QPs (attach_mcast, detach_mcast).
 *
 * A multicast GID is an IPv6 multicast address or an IPv4-mapped IPv4
 * multicast address (RoCEv2). While one QP of the device is attached to a
 * group, the netdev listens to the group's Ethernet address and the host
 * is a member of the IP group, so that the IP stack takes the datagrams
 * (rdma_cm joins the IPv4 group too; membership is counted). Datagrams to
 * the group carry destination QP number 0xffffff and go to every attached
 * QP of the device. IP multicast loops a copy of what the host sends back
 * to it, so QPs attached on this host get it as well.
 *
 * Attaching and detaching are serialized by the device's mcast_mutex; the
 * receive path walks the groups under RCU. A QP cannot be destroyed
 * while attached (ib_core counts attachments), and destroying it waits for
 * an RCU grace period.
 */
#include <kunit/visibility.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rculist.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>

#include "srdma_engine.h"

/**
 * struct srdma_mcast_group - a multicast group some QPs are attached to
 * @node: in the device's list
 * @mgid: the group's GID
 * @qps: the attached QPs (struct srdma_mcast_attach)
 * @num_qps: entries in @qps
 * @rcu: frees the group after the readers
 */
struct srdma_mcast_group {
	struct list_head node;
	union ib_gid mgid;
	struct list_head qps;
	u32 num_qps;
	struct rcu_head rcu;
};

struct srdma_mcast_attach {
	struct list_head node;
	struct srdma_qp *qp;
	struct rcu_head rcu;
};

static bool srdma_mgid_is_v4(const union ib_gid *mgid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)mgid->raw);
}

/**
 * srdma_mgid_mac() - the Ethernet address of a multicast group
 * @mgid: the group: IPv6, or IPv4-mapped IPv4 (RFC 1112, RFC 2464)
 * @mac: filled
 */
void srdma_mgid_mac(const union ib_gid *mgid, u8 *mac)
{
	const struct in6_addr *addr6 = (const struct in6_addr *)mgid->raw;

	if (srdma_mgid_is_v4(mgid))
		ip_eth_mc_map(addr6->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(addr6, mac);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_mgid_mac);

static struct srdma_mcast_group *srdma_mcast_find(struct srdma_dev *sdev,
						  const union ib_gid *mgid)
{
	struct srdma_mcast_group *grp;

	list_for_each_entry_rcu(grp, &sdev->mcast_groups, node,
				lockdep_is_held(&sdev->mcast_mutex))
		if (!memcmp(&grp->mgid, mgid, sizeof(*mgid)))
			return grp;
	return NULL;
}

/* the netdev listens to the group (or stops): Ethernet and IP membership */
static int srdma_mcast_listen(struct srdma_dev *sdev, const union ib_gid *mgid,
			      bool join)
{
	struct net_device *ndev = sdev->ndev;
	const struct in6_addr *addr6 = (const struct in6_addr *)mgid->raw;
	u8 mac[ETH_ALEN];
	int err = 0;

	lockdep_assert_held(&sdev->mcast_mutex);
	if (srdma_mgid_is_v4(mgid)) {
		__be32 addr4 = addr6->s6_addr32[3];
		struct in_device *in_dev;

		rtnl_lock();
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev && join)
			ip_mc_inc_group(in_dev, addr4);
		else if (in_dev)
			ip_mc_dec_group(in_dev, addr4);
		rtnl_unlock();
	} else {
#if IS_ENABLED(CONFIG_IPV6)
		if (join)
			err = ipv6_dev_mc_inc(ndev, addr6);
		else
			ipv6_dev_mc_dec(ndev, addr6);
#endif
	}
	if (err)
		return err;
	srdma_mgid_mac(mgid, mac);
	if (!join)
		return dev_mc_del(ndev, mac);
	err = dev_mc_add(ndev, mac);
	if (err)
		srdma_mcast_listen(sdev, mgid, false);
	return err;
}

int srdma_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct srdma_dev *sdev = to_srdma_dev(ibqp->device);
	struct srdma_qp *qp = to_srdma_qp(ibqp);
	struct srdma_mcast_group *grp, *new = NULL;
	struct srdma_mcast_attach *att;
	int err = 0;

	if (!rdma_is_multicast_addr((struct in6_addr *)mgid->raw))
		return -EINVAL;
	att = kzalloc(sizeof(*att), GFP_KERNEL);
	if (!att)
		return -ENOMEM;
	att->qp = qp;

	mutex_lock(&sdev->mcast_mutex);
	grp = srdma_mcast_find(sdev, mgid);
	if (!grp) {
		if (sdev->mcast_num_groups >= sdev->attr.max_mcast_grp) {
			err = -ENOMEM;
			goto out;
		}
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new) {
			err = -ENOMEM;
			goto out;
		}
		new->mgid = *mgid;
		INIT_LIST_HEAD(&new->qps);
		err = srdma_mcast_listen(sdev, mgid, true);
		if (err)
			goto out;
		grp = new;
	} else {
		struct srdma_mcast_attach *a;

		list_for_each_entry(a, &grp->qps, node)
			if (a->qp == qp)
				goto out;	/* attached already */
		if (grp->num_qps >= sdev->attr.max_mcast_qp_attach) {
			err = -ENOMEM;
			goto out;
		}
	}
	list_add_tail_rcu(&att->node, &grp->qps);
	grp->num_qps++;
	if (grp == new) {
		list_add_tail_rcu(&new->node, &sdev->mcast_groups);
		sdev->mcast_num_groups++;
	}
	att = NULL;
	new = NULL;
out:
	mutex_unlock(&sdev->mcast_mutex);
	kfree(new);
	kfree(att);
	return err;
}

int srdma_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct srdma_dev *sdev = to_srdma_dev(ibqp->device);
	struct srdma_mcast_attach *att, *found = NULL;
	struct srdma_mcast_group *grp;
	bool last = false;

	mutex_lock(&sdev->mcast_mutex);
	grp = srdma_mcast_find(sdev, mgid);
	if (grp)
		list_for_each_entry(att, &grp->qps, node)
			if (att->qp == to_srdma_qp(ibqp))
				found = att;
	if (!found) {
		mutex_unlock(&sdev->mcast_mutex);
		return -EINVAL;
	}
	list_del_rcu(&found->node);
	last = !--grp->num_qps;
	if (last) {
		list_del_rcu(&grp->node);
		sdev->mcast_num_groups--;
	}
	if (last)
		srdma_mcast_listen(sdev, mgid, false);
	mutex_unlock(&sdev->mcast_mutex);
	kfree_rcu(found, rcu);
	if (last)
		kfree_rcu(grp, rcu);
	return 0;
}

/**
 * srdma_mcast_recv() - deliver a datagram sent to a multicast group
 * @sdev: the device it came to
 * @skb: the packet, checked; consumed
 */
void srdma_mcast_recv(struct srdma_dev *sdev, struct sk_buff *skb)
{
	struct srdma_mcast_attach *att;
	enum srdma_counter drop;
	struct srdma_mcast_group *grp;
	struct sk_buff *copy;
	union ib_gid mgid;
	struct srdma_qp *qp;

	if (srdma_pkt(skb)->ipv6)
		memcpy(mgid.raw, &ipv6_hdr(skb)->daddr, sizeof(mgid.raw));
	else
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)mgid.raw);
	rcu_read_lock();
	grp = srdma_mcast_find(sdev, &mgid);
	if (!grp) {
		rcu_read_unlock();
		srdma_count(sdev, SRDMA_CNT_DROP_NO_QP);
		kfree_skb(skb);
		return;
	}
	list_for_each_entry_rcu(att, &grp->qps, node) {
		qp = att->qp;
		if (srdma_qp_state(qp) < IB_QPS_RTR ||
		    srdma_qp_state(qp) == IB_QPS_ERR) {
			srdma_count(sdev, SRDMA_CNT_DROP_QP_STATE);
			continue;
		}
		copy = skb_clone(skb, GFP_ATOMIC);
		if (!copy)
			break;
		drop = srdma_task_recv(qp, copy);
		if (drop != SRDMA_NUM_COUNTERS) {
			srdma_count(sdev, drop);
			kfree_skb(copy);
		}
	}
	rcu_read_unlock();
	kfree_skb(skb);
}

/**
 * srdma_mcast_init() - no groups yet
 * @sdev: the device
 */
void srdma_mcast_init(struct srdma_dev *sdev)
{
	INIT_LIST_HEAD(&sdev->mcast_groups);
	mutex_init(&sdev->mcast_mutex);
}

/**
 * srdma_mcast_exit() - the groups are gone with the QPs
 * @sdev: the device
 */
void srdma_mcast_exit(struct srdma_dev *sdev)
{
	WARN_ON(!list_empty(&sdev->mcast_groups));
	mutex_destroy(&sdev->mcast_mutex);
}
