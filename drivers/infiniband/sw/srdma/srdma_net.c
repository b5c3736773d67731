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
#include <kunit/visibility.h>
#include <linux/if_vlan.h>
#include <linux/mutex.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "srdma_engine.h"

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
 * the device on the netdev a packet came in on (for a VLAN, on its real
 * netdev), referenced, or NULL
 */
static struct srdma_dev *srdma_dev_of_netdev(struct net_device *ndev)
{
	struct ib_device *ib_dev;

	if (is_vlan_dev(ndev))
		ndev = vlan_dev_real_dev(ndev);

	ib_dev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	return ib_dev ? to_srdma_dev(ib_dev) : NULL;
}

/* one packet from the UDP socket, skb->data at its UDP header */
static void srdma_udp_recv_one(struct srdma_dev *sdev, struct sk_buff *skb)
{
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + SRDMA_BTH_BYTES)) {
		srdma_count(sdev, SRDMA_CNT_DROP_BAD_HEADER);
		kfree_skb(skb);
		return;
	}
	__skb_pull(skb, sizeof(struct udphdr));
	srdma_recv(sdev, skb, false);
}

/*
 * a RoCEv2 packet from the UDP socket, or packets GRO joined
 * (srdma_gro.c): skb->data points at the (first) UDP header
 */
static int srdma_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct srdma_dev *sdev = srdma_dev_of_netdev(skb->dev);
	struct sk_buff_head joined;
	int lost;

	if (!sdev) {
		kfree_skb(skb);
		return 0;
	}
	if (!srdma_gro_joined(skb)) {
		srdma_udp_recv_one(sdev, skb);
		goto out;
	}
	__skb_queue_head_init(&joined);
	lost = srdma_gro_split(skb, &joined);
	if (lost < 0) {
		srdma_count_add(sdev, SRDMA_CNT_PKT_NOMEM,
				skb_shinfo(skb)->gso_segs);
		kfree_skb(skb);
		goto out;
	}
	srdma_count_add(sdev, SRDMA_CNT_PKT_NOMEM, lost);
	srdma_count(sdev, SRDMA_CNT_RX_BATCHES);
	srdma_udp_recv_one(sdev, skb);
	while ((skb = __skb_dequeue(&joined)))
		srdma_recv(sdev, skb, false);
out:
	ib_device_put(&sdev->ib_dev);
	return 0;
}

static struct socket *srdma_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = 1,
		.encap_rcv = srdma_udp_encap_recv,
		.gro_receive = srdma_gro_receive,
		.gro_complete = srdma_gro_complete,
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
	/*
	 * No inner checksum to validate, so no conversion of the UDP one;
	 * and without it, a batch of a sender on this host (through a veth)
	 * is cut at the socket without computing each segment's checksum
	 * (udp_rcv_segment()), which its sender left to the offload
	 */
	inet_dec_convert_csum(sock->sk);
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

/**
 * srdma_pkt_alloc() - an skb for one packet, with room for every header
 * @sdev: the device that sends it
 * @opcode: its BTH opcode
 * @payload_bytes: payload after the transport headers
 * @bthp: set to the BTH, its opcode set; the transport headers after it
 *        are zeroed, the payload follows them
 *
 * Return: the skb, its data from the BTH to the ICRC, or NULL.
 */
struct sk_buff *srdma_pkt_alloc(struct srdma_dev *sdev, u8 opcode,
				u32 payload_bytes, struct srdma_bth **bthp)
{
	unsigned int hdr = srdma_op_hdr_bytes(opcode);
	unsigned int pad = srdma_pad_bytes(payload_bytes);
	unsigned int head = LL_RESERVED_SPACE(sdev->ndev) +
			    sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	struct sk_buff *skb;
	u8 *data;

	skb = alloc_skb(head + hdr + payload_bytes + pad + SRDMA_ICRC_BYTES,
			GFP_ATOMIC);
	if (!skb) {
		srdma_count(sdev, SRDMA_CNT_PKT_NOMEM);
		return NULL;
	}
	skb_reserve(skb, head);
	data = skb_put(skb, hdr + payload_bytes + pad + SRDMA_ICRC_BYTES);
	memset(data, 0, hdr);
	memset(data + hdr + payload_bytes, 0, pad);
	*bthp = (struct srdma_bth *)data;
	/* srdma_hdr() finds the extension headers by the opcode */
	(*bthp)->opcode = opcode;
	return skb;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_pkt_alloc);

/**
 * srdma_pkt_alloc_paged() - an skb for one packet whose payload goes in
 * page fragments (srdma_mr_attach()), then srdma_pkt_end_paged()
 * @sdev: the device that sends it
 * @opcode: its BTH opcode
 * @bthp: set to the BTH, as srdma_pkt_alloc() sets it
 *
 * Return: the skb, its linear part the transport headers, or NULL.
 */
struct sk_buff *srdma_pkt_alloc_paged(struct srdma_dev *sdev, u8 opcode,
				      struct srdma_bth **bthp)
{
	struct sk_buff *skb = srdma_pkt_alloc(sdev, opcode, 0, bthp);

	/* the pad and the ICRC come after the fragments */
	if (skb)
		skb_trim(skb, skb->len - SRDMA_ICRC_BYTES);
	return skb;
}

/**
 * srdma_pkt_put_frag() - add a fragment of new memory to a packet
 * @skb: from srdma_pkt_alloc_paged(), a fragment free
 * @bytes: its size, at most a page
 *
 * Return: the fragment's memory, for the caller to fill, or NULL.
 */
void *srdma_pkt_put_frag(struct sk_buff *skb, unsigned int bytes)
{
	struct page *page;
	void *frag;

	/* srdma_mr_attach() and srdma_sge_attach() leave one for the end */
	if (WARN_ON_ONCE(skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS))
		return NULL;
	frag = netdev_alloc_frag(bytes);
	if (!frag)
		return NULL;
	page = virt_to_head_page(frag);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page,
			   frag - page_address(page), bytes);
	skb_len_add(skb, bytes);
	return frag;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_pkt_put_frag);

/**
 * srdma_pkt_end_paged() - the pad and the ICRC's room after the payload in
 * fragments, in a fragment of their own
 * @sdev: the device that sends it
 * @skb: from srdma_pkt_alloc_paged(), its payload all there
 *
 * Return: 0, or -ENOMEM (counted).
 */
int srdma_pkt_end_paged(struct srdma_dev *sdev, struct sk_buff *skb)
{
	unsigned int bytes = srdma_pad_bytes(skb->data_len) + SRDMA_ICRC_BYTES;
	void *end = srdma_pkt_put_frag(skb, bytes);

	if (!end) {
		srdma_count(sdev, SRDMA_CNT_PKT_NOMEM);
		return -ENOMEM;
	}
	memset(end, 0, bytes);
	return 0;
}

/*
 * A path to this device's own address (its source GID, or a next hop that
 * ib_core resolved to the netdev's own MAC): such packets go straight to
 * the receive path, as the peer's would.
 */
/**
 * srdma_av_is_local() - whether @av leads to this device itself: its packets
 * are handed to its receive path, not to the netdev
 * @sdev: the device that sends
 * @av: the path
 */
bool srdma_av_is_local(struct srdma_dev *sdev, const struct srdma_av *av)
{
	return !memcmp(&av->dgid, &av->sgid, sizeof(av->dgid)) ||
	       ether_addr_equal(av->dmac, sdev->ndev->dev_addr);
}

/**
 * srdma_pkt_paged_ok() - may a packet on @av carry its payload of @bytes
 * in page fragments (srdma_pkt_alloc_paged())? Not a small one, which a
 * copy costs less than the page references; nor through a netdev without
 * scatter-gather, where the stack would copy the packet into one buffer
 * (validate_xmit_skb()) after the page references, where one copy into the
 * skb does
 * @sdev: the device that sends it
 * @av: its path
 * @bytes: its payload
 */
bool srdma_pkt_paged_ok(struct srdma_dev *sdev, const struct srdma_av *av,
			u32 bytes)
{
	return bytes >= SRDMA_TX_PAGED_MIN_BYTES &&
	       (srdma_av_is_local(sdev, av) ||
		(READ_ONCE(sdev->ndev->features) & NETIF_F_SG));
}
EXPORT_SYMBOL_IF_KUNIT(srdma_pkt_paged_ok);

/*
 * The ICRC into the packet's last 4 bytes, once its IP and UDP headers are
 * there; @bth at @bytes before the end
 */
static void srdma_icrc_put(struct sk_buff *skb, const void *l3, bool ipv6,
			   const struct srdma_bth *bth, unsigned int bytes)
{
	__le32 icrc;

	if (!skb_is_nonlinear(skb)) {
		put_unaligned_le32(srdma_icrc_tx(l3, ipv6, bth,
						 bytes - SRDMA_ICRC_BYTES),
				   skb_tail_pointer(skb) - SRDMA_ICRC_BYTES);
		return;
	}
	/* the payload in fragments: never a FLUSH, which has none */
	icrc = cpu_to_le32(srdma_icrc_skb(skb, skb->len - bytes, ipv6));
	skb_store_bits(skb, skb->len - SRDMA_ICRC_BYTES, &icrc, sizeof(icrc));
}

/*
 * What ip_local_out() returned, as srdma_xmit() returns it: a positive
 * NET_XMIT_* is the qdisc's verdict, a drop (a full queue) -ENOBUFS and a
 * congestion notice sent (the packet may be queued)
 */
VISIBLE_IF_KUNIT int srdma_xmit_verdict(int err)
{
	return err > 0 ? net_xmit_errno(err) : err;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_xmit_verdict);

static void srdma_push_udp(struct sk_buff *skb, u16 src_port)
{
	struct udphdr *udph = skb_push(skb, sizeof(*udph));

	skb_reset_transport_header(skb);
	udph->source = htons(src_port);
	udph->dest = htons(ROCE_V2_UDP_DPORT);
	udph->len = htons(skb->len);
	udph->check = 0;	/* RoCEv2 relies on the ICRC */
}

/**
 * srdma_route_forget() - drop the route kept, so that the next packet
 * looks it up again (the path changed, the QP goes)
 * @route: the QP's, its engine paused or gone
 */
void srdma_route_forget(struct srdma_route *route)
{
	dst_release(route->dst);
	route->dst = NULL;
}

/* the route kept, a reference for the caller; NULL if none is kept or holds */
static struct dst_entry *srdma_route_get(struct srdma_route *route)
{
	struct dst_entry *dst = route ? route->dst : NULL;

	if (!dst)
		return NULL;
	if (!dst_check(dst, route->cookie)) {
		srdma_route_forget(route);
		return NULL;
	}
	dst_hold(dst);
	return dst;
}

/* keep @dst as the route, if there is a @route to keep it in */
static void srdma_route_keep(struct srdma_route *route, struct dst_entry *dst,
			     u32 cookie, __be32 saddr4)
{
	if (!route)
		return;
	dst_hold(dst);
	dst_release(route->dst);
	route->dst = dst;
	route->cookie = cookie;
	route->saddr4 = saddr4;
}

static struct rtable *srdma_route4(struct srdma_dev *sdev,
				   const struct srdma_av *av,
				   struct srdma_route *route, __be32 *saddr)
{
	struct flowi4 fl4 = {
		.flowi4_oif = av->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = RT_TOS(av->traffic_class),
	};
	struct dst_entry *dst = srdma_route_get(route);
	struct rtable *rt;

	if (dst) {
		*saddr = route->saddr4;
		return container_of(dst, struct rtable, dst);
	}
	memcpy(&fl4.daddr, &av->dgid.raw[12], sizeof(fl4.daddr));
	memcpy(&fl4.saddr, &av->sgid.raw[12], sizeof(fl4.saddr));
	rt = ip_route_output_key(sdev->net, &fl4);
	if (IS_ERR(rt))
		return rt;
	*saddr = fl4.saddr;
	srdma_route_keep(route, &rt->dst, 0, fl4.saddr);
	return rt;
}

/*
 * The IPv4 and UDP headers onto @skb (at its BTH) and, unless it goes to
 * this device itself, its route and its ICRC, which covers @ip_id. On
 * error @skb is freed.
 */
static int srdma_encap4(struct srdma_dev *sdev, const struct srdma_av *av,
			struct srdma_route *route, u16 src_port, u16 ip_id,
			bool local, struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	unsigned int bytes = skb->len;
	struct rtable *rt = NULL;
	struct iphdr *iph;
	__be32 saddr;

	memcpy(&saddr, &av->sgid.raw[12], sizeof(saddr));
	if (!local) {
		rt = srdma_route4(sdev, av, route, &saddr);
		if (IS_ERR(rt)) {
			kfree_skb(skb);
			return PTR_ERR(rt);
		}
		skb_dst_set(skb, &rt->dst);
	}
	srdma_push_udp(skb, src_port);
	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = av->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: (rt ? ip4_dst_hoplimit(&rt->dst) : 64);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	memcpy(&iph->daddr, &av->dgid.raw[12], sizeof(iph->daddr));
	/*
	 * With DF and no socket the ID is 0, fixed before the ICRC; in a
	 * batch, the segment's: GSO counts up from the first one's
	 */
	iph->id = htons(ip_id);
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
	if (local)
		return 0;
	srdma_icrc_put(skb, iph, false, bth, bytes);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb->ip_summed = CHECKSUM_NONE;
	return 0;
}

#if IS_ENABLED(CONFIG_IPV6)
static struct dst_entry *srdma_route6(struct srdma_dev *sdev,
				      const struct srdma_av *av,
				      struct srdma_route *route,
				      struct sock *sk)
{
	struct flowi6 fl6 = {
		.flowi6_oif = av->ifindex,
		.flowi6_proto = IPPROTO_UDP,
	};
	struct dst_entry *dst = srdma_route_get(route);

	if (dst)
		return dst;
	memcpy(&fl6.daddr, av->dgid.raw, sizeof(fl6.daddr));
	memcpy(&fl6.saddr, av->sgid.raw, sizeof(fl6.saddr));
	dst = ipv6_stub->ipv6_dst_lookup_flow(sdev->net, sk, &fl6, NULL);
	if (IS_ERR(dst))
		return dst;
	srdma_route_keep(route, dst,
			 rt6_get_cookie(container_of(dst, struct rt6_info, dst)),
			 0);
	return dst;
}

/* srdma_encap4() for IPv6, which has no ID */
static int srdma_encap6(struct srdma_dev *sdev, const struct srdma_av *av,
			struct srdma_route *route, u16 src_port, bool local,
			struct sk_buff *skb)
{
	struct srdma_bth *bth = (struct srdma_bth *)skb->data;
	struct srdma_net *sn = net_generic(sdev->net, srdma_net_id);
	unsigned int bytes = skb->len;
	struct dst_entry *dst = NULL;
	struct ipv6hdr *ip6h;

	if (!sn->sock6) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	if (!local) {
		dst = srdma_route6(sdev, av, route, sn->sock6->sk);
		if (IS_ERR(dst)) {
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		skb_dst_set(skb, dst);
	}
	srdma_push_udp(skb, src_port);
	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, av->traffic_class, htonl(av->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: (dst ? ip6_dst_hoplimit(dst) : 64);
	memcpy(&ip6h->saddr, av->sgid.raw, sizeof(ip6h->saddr));
	memcpy(&ip6h->daddr, av->dgid.raw, sizeof(ip6h->daddr));
	skb->protocol = htons(ETH_P_IPV6);
	if (local)
		return 0;
	srdma_icrc_put(skb, ip6h, true, bth, bytes);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb->ip_summed = CHECKSUM_NONE;
	return 0;
}
#endif

/* srdma_encap4() or srdma_encap6(), as @av's network type says */
static int srdma_encap(struct srdma_dev *sdev, const struct srdma_av *av,
		       struct srdma_route *route, u16 src_port, u16 ip_id,
		       bool local, struct sk_buff *skb)
{
	if (av->network_type == RXE_NETWORK_TYPE_IPV4)
		return srdma_encap4(sdev, av, route, src_port, ip_id, local,
				    skb);
#if IS_ENABLED(CONFIG_IPV6)
	return srdma_encap6(sdev, av, route, src_port, local, skb);
#else
	kfree_skb(skb);
	return -EAFNOSUPPORT;
#endif
}

/* an encapsulated packet (or batch) to the IP stack: as srdma_xmit() */
static int srdma_local_out(struct srdma_dev *sdev, struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct srdma_net *sn = net_generic(sdev->net, srdma_net_id);

	if (skb->protocol == htons(ETH_P_IPV6))
		return srdma_xmit_verdict(ip6_local_out(sdev->net,
							sn->sock6->sk, skb));
#endif
	return srdma_xmit_verdict(ip_local_out(sdev->net, NULL, skb));
}

/**
 * srdma_xmit() - send one packet built by srdma_pkt_alloc() and filled
 * @sdev: the device
 * @av: where it goes
 * @route: the route of @av kept, or NULL to look it up
 * @src_port: UDP source port
 * @skb: the packet, its ICRC not computed yet; consumed
 *
 * A packet to one of this host's addresses is handed to the receive path
 * directly. Called with bottom halves disabled, as the receive path is.
 *
 * Return: 0 if sent, else a negative errno: the netdev or the route refused
 * it and the caller may try again.
 */
int srdma_xmit(struct srdma_dev *sdev, const struct srdma_av *av,
	       struct srdma_route *route, u16 src_port, struct sk_buff *skb)
{
	bool local = srdma_av_is_local(sdev, av);
	int err;

	err = srdma_encap(sdev, av, route, src_port, 0, local, skb);
	if (!err && local) {
		/* our own address: deliver without the trip through lo */
		__skb_pull(skb, skb_transport_offset(skb) +
				sizeof(struct udphdr));
		err = srdma_recv(sdev, skb, true);
	} else if (!err) {
		err = srdma_local_out(sdev, skb);
	}
	if (err)
		srdma_count(sdev, SRDMA_CNT_XMIT_REFUSED);
	else
		srdma_count(sdev, SRDMA_CNT_SENT_PKTS);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_xmit);

static unsigned int tx_batch_pkts = 16;
module_param(tx_batch_pkts, uint, 0644);
MODULE_PARM_DESC(tx_batch_pkts,
		 "Most RC or UC packets of a QP handed to the IP stack at once, as one UDP GSO packet, through a netdev that offloads checksums and takes fragments; 0 or 1: one at a time (default: 16)");

/**
 * srdma_xmit_batch_fits() - may a packet of @bytes, BTH to ICRC, on @av
 * join @b (or start it)?
 * @sdev: the device
 * @av: the path of the batch's packets
 * @b: the batch
 * @bytes: the packet's
 *
 * A batch is cut by the stack (software GSO, or the netdev's) into
 * segments of one size but the last: so each packet but the last is as
 * long as the first. All of them fit one IP packet's 16-bit length. The
 * segments get a UDP checksum, which only a netdev that offloads it makes
 * cheaper than a packet at a time.
 */
bool srdma_xmit_batch_fits(struct srdma_dev *sdev, const struct srdma_av *av,
			   const struct srdma_tx_batch *b, u32 bytes)
{
	struct net_device *ndev = sdev->ndev;
	netdev_features_t features = READ_ONCE(ndev->features);
	bool ipv4 = av->network_type == RXE_NETWORK_TYPE_IPV4;
	u32 hdr = (ipv4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr)) +
		  sizeof(struct udphdr);

	if (!b->head)
		return READ_ONCE(tx_batch_pkts) > 1 &&
		       (features & NETIF_F_SG) &&
		       (features & (NETIF_F_HW_CSUM | (ipv4 ? NETIF_F_IP_CSUM :
							   NETIF_F_IPV6_CSUM))) &&
		       !srdma_av_is_local(sdev, av);
	return b->pkts < min(READ_ONCE(tx_batch_pkts),
			     READ_ONCE(ndev->gso_max_segs)) &&
	       bytes <= b->seg_bytes &&
	       (b->tail == b->head || b->tail->len == b->seg_bytes) &&
	       hdr + (u64)b->seg_bytes * b->pkts + bytes <= U16_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_xmit_batch_fits);

/**
 * srdma_xmit_batch_add() - put a packet into a batch, after
 * srdma_xmit_batch_fits()
 * @sdev: the device
 * @av: the path of the batch's packets, not this device's own address
 * @route: the route of @av kept, or NULL to look it up
 * @src_port: UDP source port
 * @b: the batch
 * @skb: the packet, built as for srdma_xmit(); consumed
 *
 * Its ICRC is computed as the stack will cut it out of the batch: with
 * its own lengths and, in IPv4, the ID that segmentation gives it.
 *
 * Return: 0, or the route's error (counted as a refused transmit).
 */
int srdma_xmit_batch_add(struct srdma_dev *sdev, const struct srdma_av *av,
			 struct srdma_route *route, u16 src_port,
			 struct srdma_tx_batch *b, struct sk_buff *skb)
{
	u32 bytes = skb->len;
	int err;

	err = srdma_encap(sdev, av, route, src_port, b->pkts, false, skb);
	if (err) {
		srdma_count(sdev, SRDMA_CNT_XMIT_REFUSED);
		return err;
	}
	b->pkts++;
	if (!b->head) {
		b->head = skb;
		b->tail = skb;
		b->seg_bytes = bytes;
		return 0;
	}
	/* the stack puts the first packet's headers on each segment */
	__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
	skb_dst_drop(skb);
	if (b->tail == b->head)
		skb_shinfo(b->head)->frag_list = skb;
	else
		b->tail->next = skb;
	b->tail = skb;
	b->head->len += skb->len;
	b->head->data_len += skb->len;
	b->head->truesize += skb->truesize;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_xmit_batch_add);

/* @skb, a batch's first packet with the others on its frag_list: UDP GSO */
VISIBLE_IF_KUNIT void srdma_batch_to_gso(struct sk_buff *skb, u32 seg_bytes,
					 u32 pkts)
{
	struct udphdr *uh = udp_hdr(skb);
	u32 len = skb->len - skb_transport_offset(skb);

	uh->len = htons(len);
	if (skb->protocol == htons(ETH_P_IP))
		uh->check = ~udp_v4_check(len, ip_hdr(skb)->saddr,
					  ip_hdr(skb)->daddr, 0);
#if IS_ENABLED(CONFIG_IPV6)
	else
		uh->check = ~udp_v6_check(len, &ipv6_hdr(skb)->saddr,
					  &ipv6_hdr(skb)->daddr, 0);
#endif
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
	skb_shinfo(skb)->gso_size = seg_bytes;
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(skb)->gso_segs = pkts;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_batch_to_gso);

/**
 * srdma_xmit_batch_flush() - hand a batch to the IP stack; it is empty after
 * @sdev: the device
 * @b: the batch; one packet goes as srdma_xmit() sends it
 *
 * Return: as srdma_xmit(), for all its packets.
 */
int srdma_xmit_batch_flush(struct srdma_dev *sdev, struct srdma_tx_batch *b)
{
	struct sk_buff *skb = b->head;
	u32 pkts = b->pkts;
	int err;

	if (!skb)
		return 0;
	if (pkts > 1)
		srdma_batch_to_gso(skb, b->seg_bytes, pkts);
	memset(b, 0, sizeof(*b));
	err = srdma_local_out(sdev, skb);
	if (err) {
		srdma_count(sdev, SRDMA_CNT_XMIT_REFUSED);
		return err;
	}
	srdma_count_add(sdev, SRDMA_CNT_SENT_PKTS, pkts);
	if (pkts > 1)
		srdma_count(sdev, SRDMA_CNT_TX_BATCHES);
	return 0;
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

	/* srdma_main.c's exit let the devices on its netdevs go */
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
	int err = register_pernet_subsys(&srdma_pernet_ops);

	if (!err)
		srdma_icrc_init();
	return err;
}

void srdma_net_exit(void)
{
	unregister_pernet_subsys(&srdma_pernet_ops);
	srdma_icrc_exit();
}
