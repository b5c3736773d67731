// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srdma's RoCEv2 UDP sockets.
 *
 * RoCEv2 traffic goes to UDP port 4791. srdma opens that port once per
 * network namespace, IPv4 and IPv6, when the first device on a netdev of that
 * namespace is created, and closes it when the last such device goes. If the
 * port is taken (rdma_rxe binds it in the initial namespace when it loads),
 * creating the device fails with -EADDRINUSE and a message saying so.
 *
 * srdma and rdma_rxe cannot run in one kernel: both report the driver id
 * RDMA_DRIVER_RXE (that is how librxe drives srdma), and rdma_rxe's netdev
 * notifier would take an srdma device for one of its own. rdma_rxe binds the
 * port in the initial namespace when it loads, so srdma holds that port too
 * while it has any device: each excludes the other.
 */
#include <linux/mutex.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "srdma.h"

/**
 * struct srdma_net - srdma's state in one network namespace
 * @lock: guards the other fields
 * @users: devices on netdevs of this namespace
 * @sock4: the IPv4 socket bound to ROCE_V2_UDP_DPORT
 * @sock6: the IPv6 socket, NULL where the namespace has no IPv6
 */
struct srdma_net {
	struct mutex lock;		/* guards the fields below */
	unsigned int users;
	struct socket *sock4;
	struct socket *sock6;
};

static unsigned int srdma_net_id __read_mostly;

/*
 * Received RoCEv2 packets. The transport that consumes them is not there
 * yet: every packet is dropped.
 */
static int srdma_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	kfree_skb(skb);
	return 0;
}

static struct socket *srdma_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = 1,
		.encap_rcv = srdma_udp_encap_recv,
	};
	struct udp_port_cfg port_cfg = {
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		port_cfg.family = AF_INET6;
		port_cfg.ipv6_v6only = 1;
	} else {
		port_cfg.family = AF_INET;
	}
	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static void srdma_net_close(struct srdma_net *sn)
{
	if (sn->sock6)
		udp_tunnel_sock_release(sn->sock6);
	if (sn->sock4)
		udp_tunnel_sock_release(sn->sock4);
	sn->sock4 = NULL;
	sn->sock6 = NULL;
}

static int srdma_net_open(struct srdma_net *sn, struct net *net,
			  struct net_device *ndev)
{
	const char *where = net_eq(net, &init_net) ? "initial" : "device's";
	struct socket *sock;
	int err;

	sock = srdma_udp_open(net, false);
	if (IS_ERR(sock))
		goto err;
	sn->sock4 = sock;

	if (!IS_ENABLED(CONFIG_IPV6))
		return 0;
	sock = srdma_udp_open(net, true);
	if (!IS_ERR(sock)) {
		sn->sock6 = sock;
		return 0;
	}
	if (PTR_ERR(sock) == -EAFNOSUPPORT)	/* IPv6 disabled: IPv4 only */
		return 0;
	srdma_net_close(sn);
err:
	err = PTR_ERR(sock);
	if (err == -EADDRINUSE)
		netdev_err(ndev,
			   "srdma: UDP port %u is already in use in the %s network namespace (is rdma_rxe loaded?)\n",
			   ROCE_V2_UDP_DPORT, where);
	else
		netdev_err(ndev, "srdma: cannot open UDP port %u in the %s network namespace: %pe\n",
			   ROCE_V2_UDP_DPORT, where, sock);
	return err;
}

static int srdma_net_hold(struct net *net, struct net_device *ndev)
{
	struct srdma_net *sn = net_generic(net, srdma_net_id);
	int err = 0;

	mutex_lock(&sn->lock);
	if (!sn->users)
		err = srdma_net_open(sn, net, ndev);
	if (!err)
		sn->users++;
	mutex_unlock(&sn->lock);
	return err;
}

static void srdma_net_release(struct net *net)
{
	struct srdma_net *sn = net_generic(net, srdma_net_id);

	mutex_lock(&sn->lock);
	if (!WARN_ON(!sn->users) && !--sn->users)
		srdma_net_close(sn);
	mutex_unlock(&sn->lock);
}

/**
 * srdma_net_get() - hold the RoCEv2 sockets a device needs, opening them
 * @net: the namespace of the device's netdev
 * @ndev: the netdev, named in error messages
 *
 * A device holds the sockets of its namespace and of the initial one (see
 * the top of this file).
 *
 * Return: 0, or -EADDRINUSE if another user holds the port, or another errno.
 */
int srdma_net_get(struct net *net, struct net_device *ndev)
{
	int err;

	err = srdma_net_hold(&init_net, ndev);
	if (err || net_eq(net, &init_net))
		return err;
	err = srdma_net_hold(net, ndev);
	if (err)
		srdma_net_release(&init_net);
	return err;
}

/**
 * srdma_net_put() - drop the holds taken by srdma_net_get()
 * @net: the namespace of the device's netdev
 */
void srdma_net_put(struct net *net)
{
	if (!net_eq(net, &init_net))
		srdma_net_release(net);
	srdma_net_release(&init_net);
}

static int __net_init srdma_pernet_init(struct net *net)
{
	struct srdma_net *sn = net_generic(net, srdma_net_id);

	mutex_init(&sn->lock);
	return 0;
}

static void __net_exit srdma_pernet_exit(struct net *net)
{
	struct srdma_net *sn = net_generic(net, srdma_net_id);

	/* The netdevs are gone: wait for their devices to let go. */
	srdma_flush_unregistrations();
	if (WARN_ON(sn->users))
		srdma_net_close(sn);
	mutex_destroy(&sn->lock);
}

static struct pernet_operations srdma_pernet_ops = {
	.init = srdma_pernet_init,
	.exit = srdma_pernet_exit,
	.id = &srdma_net_id,
	.size = sizeof(struct srdma_net),
};

int srdma_net_init(void)
{
	return register_pernet_subsys(&srdma_pernet_ops);
}

void srdma_net_exit(void)
{
	unregister_pernet_subsys(&srdma_pernet_ops);
}
