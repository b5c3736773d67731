// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The "srdma" generic netlink family: an administrator reads and sets the
 * rate of a live QP, by device name and QP number, and the port's default
 * and ceiling (include/srdma/rate_netlink.h, tools/srdma-rate). Setting
 * needs CAP_NET_ADMIN. Every refusal says why in the extended ACK.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "srdma.h"

static const struct nla_policy srdma_nl_policy[SRDMA_ATTR_MAX + 1] = {
	[SRDMA_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				  .len = IB_DEVICE_NAME_MAX - 1 },
	[SRDMA_ATTR_QPN] = { .type = NLA_U32 },
	[SRDMA_ATTR_RATE_KBPS] = { .type = NLA_U64 },
	[SRDMA_ATTR_BURST_BYTES] = { .type = NLA_U32 },
	[SRDMA_ATTR_DEFAULT_KBPS] = { .type = NLA_U64 },
	[SRDMA_ATTR_CEILING_KBPS] = { .type = NLA_U64 },
};

static struct genl_family srdma_nl_family;

/* the device the request names, held; NULL with the reason in @extack */
static struct srdma_dev *srdma_nl_dev(struct nlattr **attrs,
				      struct netlink_ext_ack *extack)
{
	struct srdma_dev *sdev;

	if (!attrs[SRDMA_ATTR_DEV_NAME]) {
		NL_SET_ERR_MSG(extack, "no device named (SRDMA_ATTR_DEV_NAME)");
		return NULL;
	}
	sdev = srdma_dev_get_by_name(nla_data(attrs[SRDMA_ATTR_DEV_NAME]));
	if (!sdev)
		NL_SET_ERR_MSG_ATTR(extack, attrs[SRDMA_ATTR_DEV_NAME],
				    "no srdma device of that name");
	return sdev;
}

/* bytes of a burst of @depth_ns at @kbps */
static u64 srdma_nl_burst_bytes(s64 depth_ns, u64 kbps)
{
	return kbps ? mul_u64_u64_div_u64(depth_ns, kbps, 8 * USEC_PER_SEC) : 0;
}

static int srdma_nl_put_qp(struct sk_buff *msg, struct srdma_dev *sdev,
			   struct srdma_qp *qp, u32 portid, u32 seq, int flags)
{
	struct srdma_qp_rate_info info;
	struct srdma_rate_cfg cfg;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &srdma_nl_family, flags,
			  SRDMA_CMD_QP_GET);
	if (!hdr)
		return -EMSGSIZE;
	srdma_qp_rate_read(qp, &cfg, &info);
	if (nla_put_string(msg, SRDMA_ATTR_DEV_NAME, dev_name(&sdev->ib_dev.dev)) ||
	    nla_put_u32(msg, SRDMA_ATTR_QPN, qp->ibqp.qp_num) ||
	    nla_put_u8(msg, SRDMA_ATTR_QP_TYPE, qp->ibqp.qp_type) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_RATE_KBPS, info.kbps,
			      SRDMA_ATTR_PAD) ||
	    nla_put_u32(msg, SRDMA_ATTR_BURST_BYTES,
			min_t(u64, U32_MAX,
			      srdma_nl_burst_bytes(info.depth_ns, info.kbps))) ||
	    nla_put_u8(msg, SRDMA_ATTR_RATE_SOURCE, info.source) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_ADMIN_KBPS, cfg.admin_kbps,
			      SRDMA_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_VERBS_KBPS, cfg.verbs_kbps,
			      SRDMA_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_AV_KBPS, cfg.av_kbps,
			      SRDMA_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_THROTTLE_EVENTS,
			      info.throttle_events, SRDMA_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_THROTTLED_NS, info.throttled_ns,
			      SRDMA_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_TX_BYTES, info.tx_bytes,
			      SRDMA_ATTR_PAD)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* the QP the request names on @sdev, held; NULL with the reason */
static struct srdma_qp *srdma_nl_qp(struct srdma_dev *sdev,
				    struct nlattr **attrs,
				    struct netlink_ext_ack *extack)
{
	struct srdma_qp *qp;

	if (!attrs[SRDMA_ATTR_QPN]) {
		NL_SET_ERR_MSG(extack, "no QP number (SRDMA_ATTR_QPN)");
		return NULL;
	}
	qp = srdma_qp_get(sdev, nla_get_u32(attrs[SRDMA_ATTR_QPN]));
	if (!qp)
		NL_SET_ERR_MSG_ATTR(extack, attrs[SRDMA_ATTR_QPN],
				    "no QP of that number on this device");
	return qp;
}

static int srdma_nl_qp_get(struct sk_buff *skb, struct genl_info *info)
{
	struct srdma_dev *sdev = srdma_nl_dev(info->attrs, info->extack);
	struct sk_buff *msg;
	struct srdma_qp *qp;
	int err = -ENODEV;

	if (!sdev)
		return -ENODEV;
	qp = srdma_nl_qp(sdev, info->attrs, info->extack);
	if (!qp)
		goto out_dev;
	err = -ENOMEM;
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		goto out_qp;
	err = srdma_nl_put_qp(msg, sdev, qp, info->snd_portid, info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		goto out_qp;
	}
	err = genlmsg_reply(msg, info);
out_qp:
	srdma_qp_put(qp);
out_dev:
	ib_device_put(&sdev->ib_dev);
	return err;
}

/* every QP of the device; cb->args[0] is the QP number to go on from */
static int srdma_nl_qp_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct srdma_dev *sdev = srdma_nl_dev(srdma_dump_attrs(cb), cb->extack);
	unsigned long index, next = SRDMA_MAX_QPN + 1;
	struct srdma_qp *qp;

	if (!sdev)
		return -ENODEV;
	/* destroy waits for RCU readers before the QP is freed */
	rcu_read_lock();
	xa_for_each_start(&sdev->qp_xa, index, qp, cb->args[0]) {
		if (srdma_nl_put_qp(skb, sdev, qp, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI)) {
			next = index;	/* full: the next part goes on here */
			break;
		}
	}
	rcu_read_unlock();
	cb->args[0] = next;
	ib_device_put(&sdev->ib_dev);
	/* a part with nothing in it ends the dump */
	return skb->len;
}

/* a rate asked for: at most the port's speed */
static int srdma_nl_check_rate(struct nlattr *attr, u64 port_kbps,
			       struct netlink_ext_ack *extack)
{
	if (attr && nla_get_u64(attr) > port_kbps) {
		/* 6.1's extended ACK takes constant messages only */
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the rate is above the port's speed");
		return -ERANGE;
	}
	return 0;
}

static int srdma_nl_check_burst(struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	if (attr && nla_get_u32(attr) > SRDMA_MAX_BURST_BYTES) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the burst is above the most, 64 MiB");
		return -ERANGE;
	}
	return 0;
}

static u64 srdma_nl_port_kbps(struct srdma_dev *sdev)
{
	u64 kbps;

	rtnl_lock();
	kbps = srdma_port_rate_refresh(sdev);
	rtnl_unlock();
	return kbps;
}

static int srdma_nl_qp_set(struct sk_buff *skb, struct genl_info *info)
{
	struct srdma_dev *sdev = srdma_nl_dev(info->attrs, info->extack);
	struct nlattr *rate = info->attrs[SRDMA_ATTR_RATE_KBPS];
	struct nlattr *burst = info->attrs[SRDMA_ATTR_BURST_BYTES];
	struct srdma_qp *qp;
	int err;

	if (!sdev)
		return -ENODEV;
	err = -EINVAL;
	if (!rate) {
		NL_SET_ERR_MSG(info->extack, "no rate (SRDMA_ATTR_RATE_KBPS); 0 clears it");
		goto out_dev;
	}
	err = srdma_nl_check_rate(rate, srdma_nl_port_kbps(sdev), info->extack) ?:
	      srdma_nl_check_burst(burst, info->extack);
	if (err)
		goto out_dev;
	err = -ENOENT;
	qp = srdma_nl_qp(sdev, info->attrs, info->extack);
	if (!qp)
		goto out_dev;
	srdma_qp_rate_set_admin(qp, nla_get_u64(rate),
				burst ? nla_get_u32(burst) : 0);
	srdma_qp_put(qp);
	err = 0;
out_dev:
	ib_device_put(&sdev->ib_dev);
	return err;
}

static int srdma_nl_port_get(struct sk_buff *skb, struct genl_info *info)
{
	struct srdma_dev *sdev = srdma_nl_dev(info->attrs, info->extack);
	struct srdma_port_rate *port;
	u64 dflt, ceiling, kbps;
	struct sk_buff *msg;
	void *hdr;
	u32 burst;
	int err = -ENOMEM;

	if (!sdev)
		return -ENODEV;
	port = &sdev->rate;
	srdma_nl_port_kbps(sdev);
	spin_lock_bh(&port->lock);
	dflt = port->default_kbps;
	ceiling = port->ceiling_kbps;
	burst = port->burst;
	kbps = port->port_kbps;
	spin_unlock_bh(&port->lock);

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		goto out_dev;
	hdr = genlmsg_put(msg, info->snd_portid, info->snd_seq, &srdma_nl_family,
			  0, SRDMA_CMD_PORT_GET);
	if (!hdr ||
	    nla_put_string(msg, SRDMA_ATTR_DEV_NAME, dev_name(&sdev->ib_dev.dev)) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_DEFAULT_KBPS, dflt, SRDMA_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_CEILING_KBPS, ceiling, SRDMA_ATTR_PAD) ||
	    nla_put_u32(msg, SRDMA_ATTR_BURST_BYTES, burst) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_PORT_KBPS, kbps, SRDMA_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_THROTTLE_EVENTS,
			      srdma_counter_read(sdev, SRDMA_CNT_RATE_THROTTLES),
			      SRDMA_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SRDMA_ATTR_THROTTLED_NS,
			      srdma_counter_read(sdev, SRDMA_CNT_RATE_THROTTLED_NS),
			      SRDMA_ATTR_PAD)) {
		nlmsg_free(msg);
		err = -EMSGSIZE;
		goto out_dev;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out_dev:
	ib_device_put(&sdev->ib_dev);
	return err;
}

/* every QP of the device looks at the port's settings again */
static void srdma_nl_kick_all(struct srdma_dev *sdev)
{
	struct srdma_qp *qp;
	unsigned long index;

	rcu_read_lock();
	xa_for_each(&sdev->qp_xa, index, qp) {
		if (!refcount_inc_not_zero(&qp->refs))
			continue;
		srdma_task_kick_both_later(qp);
		srdma_qp_put(qp);
	}
	rcu_read_unlock();
}

static int srdma_nl_port_set(struct sk_buff *skb, struct genl_info *info)
{
	struct srdma_dev *sdev = srdma_nl_dev(info->attrs, info->extack);
	struct nlattr *dflt = info->attrs[SRDMA_ATTR_DEFAULT_KBPS];
	struct nlattr *ceiling = info->attrs[SRDMA_ATTR_CEILING_KBPS];
	struct nlattr *burst = info->attrs[SRDMA_ATTR_BURST_BYTES];
	struct srdma_port_rate *port;
	u64 port_kbps;
	int err = -EINVAL;

	if (!sdev)
		return -ENODEV;
	port = &sdev->rate;
	if (!dflt && !ceiling && !burst) {
		NL_SET_ERR_MSG(info->extack, "nothing to set: a default, a ceiling or a burst");
		goto out_dev;
	}
	port_kbps = srdma_nl_port_kbps(sdev);
	err = srdma_nl_check_rate(dflt, port_kbps, info->extack) ?:
	      srdma_nl_check_rate(ceiling, port_kbps, info->extack) ?:
	      srdma_nl_check_burst(burst, info->extack);
	if (err)
		goto out_dev;
	spin_lock_bh(&port->lock);
	if (dflt)
		WRITE_ONCE(port->default_kbps, nla_get_u64(dflt));
	if (ceiling)
		WRITE_ONCE(port->ceiling_kbps, nla_get_u64(ceiling));
	if (burst)
		port->burst = nla_get_u32(burst);
	port->gen++;
	spin_unlock_bh(&port->lock);
	srdma_nl_kick_all(sdev);
out_dev:
	ib_device_put(&sdev->ib_dev);
	return err;
}

static const struct genl_ops srdma_nl_ops[] = {
	{
		.cmd = SRDMA_CMD_QP_GET,
		.doit = srdma_nl_qp_get,
		.dumpit = srdma_nl_qp_dump,
	},
	{
		.cmd = SRDMA_CMD_QP_SET,
		.doit = srdma_nl_qp_set,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = SRDMA_CMD_PORT_GET,
		.doit = srdma_nl_port_get,
	},
	{
		.cmd = SRDMA_CMD_PORT_SET,
		.doit = srdma_nl_port_set,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family srdma_nl_family __ro_after_init = {
	.name = SRDMA_GENL_NAME,
	.version = SRDMA_GENL_VERSION,
	.maxattr = SRDMA_ATTR_MAX,
	.policy = srdma_nl_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = srdma_nl_ops,
	.n_ops = ARRAY_SIZE(srdma_nl_ops),
	.resv_start_op = SRDMA_CMD_PORT_SET + 1,
};

int srdma_rate_nl_init(void)
{
	return genl_register_family(&srdma_nl_family);
}

void srdma_rate_nl_exit(void)
{
	genl_unregister_family(&srdma_nl_family);
}
