// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Received packets taken together: GRO for srdma's UDP sockets.
 *
 * A NIC's NAPI poll hands the stack packets one by one. Consecutive RC or
 * UC packets to one QP from one sender (the same netdev, addresses and
 * UDP ports) join into one skb: the first packet as it came, the
 * others on its frag_list, each pulled to its BTH with its own IP and UDP
 * headers kept in front. The stack routes, filters and looks up the
 * socket once for all of them; srdma's socket then takes the skb apart
 * (srdma_gro_split()) and each packet is received on its own, ICRC
 * included: its headers are those it came with.
 *
 * The kernel's own frag_list GRO for UDP would not do: taking such an skb
 * apart, it numbers the IP IDs up from the first packet's, and the ICRC
 * covers the ID.
 *
 * Only packets to an address of this host join: a router's forwarding
 * path could not cut what srdma joined.
 */
#include <kunit/visibility.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <net/addrconf.h>
#include <net/gro.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/udp.h>

#include "srdma_engine.h"

static unsigned int rx_gro_pkts = 64;
module_param(rx_gro_pkts, uint, 0644);
MODULE_PARM_DESC(rx_gro_pkts,
		 "Consecutive received packets of one QP taken together up the stack (GRO), at most; 0 or 1: one at a time (default: 64)");

/*
 * The IP header of a packet GRO took, the UDP header right after it, @off
 * at the BTH; NULL where more lies between (IPv4 options, IPv6 extension
 * headers) or the BTH is not there: such a packet goes up alone
 */
static const void *srdma_gro_l3(struct sk_buff *skb, unsigned int off,
				unsigned int l3_bytes)
{
	const struct ipv6hdr *ip6h;
	const struct iphdr *iph;
	const void *l3;

	if (off < l3_bytes + sizeof(struct udphdr))
		return NULL;
	l3 = skb_gro_header(skb, off + SRDMA_BTH_BYTES,
			    off - sizeof(struct udphdr) - l3_bytes);
	if (!l3)
		return NULL;
	if (l3_bytes == sizeof(*ip6h)) {
		ip6h = l3;
		return ip6h->version == 6 && ip6h->nexthdr == IPPROTO_UDP ?
		       l3 : NULL;
	}
	iph = l3;
	return iph->version == 4 && iph->ihl == 5 ? l3 : NULL;
}

/* whether a packet's destination, in IP header @l3, is this host */
static bool srdma_gro_to_local(struct sk_buff *skb, const void *l3)
{
	struct net *net = dev_net(skb->dev);

	if (NAPI_GRO_CB(skb)->is_ipv6) {
#if IS_ENABLED(CONFIG_IPV6)
		const struct ipv6hdr *ip6h = l3;

		return ipv6_chk_addr(net, &ip6h->daddr, NULL, 0);
#else
		return false;
#endif
	}
	return inet_addr_type_dev_table(net, skb->dev,
					((const struct iphdr *)l3)->daddr) ==
	       RTN_LOCAL;
}

/*
 * The held skb of the packet at @skb's GRO offset @off, IP header @l3 of
 * @l3_bytes: one from the same netdev, addresses and UDP ports to the
 * same QP. Not from GRO's same_flow: UDP's GRO takes a flow's packets
 * with a UDP checksum and those without for two flows, and srdma mixes
 * them (a batch has one, a lone packet none); a packet that passed those
 * of the other kind held would arrive out of order. Each packet's
 * checksum was checked as it came (srdma_gro_complete()). Only skbs that
 * UDP's tunnel GRO held (encap_mark), as srdma_gro_receive() holds them.
 */
static struct sk_buff *srdma_gro_held(struct list_head *head,
				      struct sk_buff *skb, unsigned int off,
				      const u8 *l3, unsigned int l3_bytes,
				      u32 qpn)
{
	unsigned int at = off - sizeof(struct udphdr) - l3_bytes;
	bool v6 = l3_bytes == sizeof(struct ipv6hdr);
	/* the version (and IPv4's header length), the addresses, the ports */
	u8 first = v6 ? 0xf0 : 0xff;
	unsigned int addr = v6 ? offsetof(struct ipv6hdr, saddr) :
				 offsetof(struct iphdr, saddr);
	unsigned int proto = v6 ? offsetof(struct ipv6hdr, nexthdr) :
				  offsetof(struct iphdr, protocol);
	const u8 *theirs;
	struct sk_buff *p;

	list_for_each_entry(p, head, list) {
		if (!NAPI_GRO_CB(p)->encap_mark || p->dev != skb->dev ||
		    p->protocol != skb->protocol ||
		    skb_headlen(p) < off + SRDMA_BTH_BYTES)
			continue;
		theirs = p->data + at;
		if (!((theirs[0] ^ l3[0]) & first) &&
		    theirs[proto] == l3[proto] &&
		    !memcmp(theirs + addr, l3 + addr, l3_bytes - addr) &&
		    !memcmp(theirs + l3_bytes, l3 + l3_bytes, 4) &&
		    srdma_bth_qpn((const struct srdma_bth *)(p->data + off)) ==
		    qpn)
			return p;
	}
	return NULL;
}

/*
 * @skb goes on @p's frag_list after the packets there, at its BTH, its
 * network header and protocol set for srdma_recv() (GRO keeps them in its
 * own state, which goes with it)
 */
static void srdma_gro_join(struct sk_buff *p, struct sk_buff *skb,
			   unsigned int off, unsigned int l3_bytes)
{
	if (NAPI_GRO_CB(p)->last == p)
		skb_shinfo(p)->frag_list = skb;
	else
		NAPI_GRO_CB(p)->last->next = skb;
	NAPI_GRO_CB(p)->last = skb;
	NAPI_GRO_CB(p)->count++;
	skb_set_network_header(skb, off - sizeof(struct udphdr) - l3_bytes);
	skb->protocol = NAPI_GRO_CB(skb)->is_ipv6 ? htons(ETH_P_IPV6) :
						    htons(ETH_P_IP);
	__skb_pull(skb, off);
	p->data_len += skb->len;
	p->len += skb->len;
	p->truesize += skb->truesize;
	NAPI_GRO_CB(skb)->same_flow = 1;
}

/**
 * srdma_gro_receive() - the UDP tunnel's gro_receive of srdma's sockets
 * @sk: the socket
 * @head: the packets GRO holds, those of the same flow marked same_flow
 * @skb: a packet, its UDP header pulled (skb_gro_offset() at the BTH)
 *
 * Return: the held skb to hand up now, or NULL.
 */
struct sk_buff *srdma_gro_receive(struct sock *sk, struct list_head *head,
				  struct sk_buff *skb)
{
	unsigned int off = skb_gro_offset(skb), len = skb_gro_len(skb);
	unsigned int l3_bytes = NAPI_GRO_CB(skb)->is_ipv6 ?
				sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	unsigned int max = READ_ONCE(rx_gro_pkts);
	const struct srdma_bth *bth;
	const struct udphdr *uh;
	struct sk_buff *p;
	const void *l3;
	u8 transport;
	bool push;

	l3 = srdma_gro_l3(skb, off, l3_bytes);
	if (!l3) {
		NAPI_GRO_CB(skb)->flush = 1;
		return NULL;
	}
	uh = l3 + l3_bytes;
	bth = (const struct srdma_bth *)(uh + 1);
	p = srdma_gro_held(head, skb, off, l3, l3_bytes, srdma_bth_qpn(bth));
	transport = srdma_op_transport(bth->opcode);
	/*
	 * A message's last packet (an ACK, a request of one packet) or one
	 * that asks for an ACK ends its join at once, as TCP's PSH does: the
	 * peer waits for what answers it, and GRO may hold a join until after
	 * the next NAPI poll
	 */
	push = srdma_bth_ackreq(bth) ||
	       (srdma_op_flags(bth->opcode) & SRDMA_OP_LAST);
	/*
	 * A packet that does not join goes up alone, after those held of its
	 * QP. Nor does one padded past its UDP length: joined, its own length
	 * would be lost.
	 */
	if (max < 2 || NAPI_GRO_CB(skb)->flush || skb_is_gso(skb) ||
	    skb->destructor ||
	    (transport != IB_OPCODE_RC && transport != IB_OPCODE_UC) ||
	    ntohs(uh->len) != sizeof(*uh) + len) {
		NAPI_GRO_CB(skb)->flush = 1;
		return p;
	}
	/* GRO sets a held skb's flush where the new one differs (TTL, TOS) */
	if (p && !NAPI_GRO_CB(p)->flush && NAPI_GRO_CB(p)->count < max &&
	    p->len + len < 65536) {
		/* its headers where srdma_gro_split() will find them */
		if (!pskb_may_pull(skb, off + SRDMA_BTH_BYTES)) {
			NAPI_GRO_CB(skb)->flush = 1;
			return p;
		}
		srdma_gro_join(p, skb, off, l3_bytes);
		return push || NAPI_GRO_CB(p)->count >= max ? p : NULL;
	}
	/* the first of a new join, once the one full before it went */
	if (push || (!p && !srdma_gro_to_local(skb, l3))) {
		NAPI_GRO_CB(skb)->flush = 1;
		return p;
	}
	skb_gro_pull(skb, SRDMA_BTH_BYTES);
	skb_gro_postpull_rcsum(skb, bth, SRDMA_BTH_BYTES);
	return p;
}

/**
 * srdma_gro_complete() - the UDP tunnel's gro_complete of srdma's sockets
 * @sk: the socket
 * @skb: the packets joined, before the stack takes them up
 * @nhoff: where the first packet's BTH is, from skb->data
 *
 * Each packet's UDP checksum was checked as it came (udp4_gro_receive(),
 * udp6_gro_receive()); the stack takes the whole as checked.
 *
 * Return: 0.
 */
int srdma_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff)
{
	skb->csum_start = skb->data + nhoff - sizeof(struct udphdr) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb_shinfo(skb)->gso_segs = NAPI_GRO_CB(skb)->count;
	return 0;
}

/* whether @skb, at the socket, is packets srdma_gro_receive() joined */
bool srdma_gro_joined(const struct sk_buff *skb)
{
	return skb_is_gso(skb) &&
	       (skb_shinfo(skb)->gso_type &
		(SKB_GSO_UDP_TUNNEL | SKB_GSO_UDP_TUNNEL_CSUM));
}
EXPORT_SYMBOL_IF_KUNIT(srdma_gro_joined);

/**
 * srdma_gro_split() - take joined packets apart
 * @skb: the packets srdma_gro_receive() joined, skb->data at the first
 *       one's UDP header; left as that first packet alone, its IP and UDP
 *       lengths its own again (GRO set them to the whole's)
 * @list: gets the others, in order, each with skb->data at its BTH
 *
 * A packet tap may hold a clone of the whole: then @skb's head is copied,
 * and each packet shared with the clone is cloned, so that the tap's copy
 * stays whole.
 *
 * Return: how many of the others were lost for want of memory; -ENOMEM if
 * @skb could not be taken apart (@list empty).
 */
int srdma_gro_split(struct sk_buff *skb, struct sk_buff_head *list)
{
	struct sk_buff *frag, *next, *clone;
	unsigned int hdr;
	int lost = 0;

	if (skb_unclone(skb, GFP_ATOMIC))
		return -ENOMEM;
	frag = skb_shinfo(skb)->frag_list;
	skb_shinfo(skb)->frag_list = NULL;
	for (; frag; frag = next) {
		next = frag->next;
		skb->len -= frag->len;
		skb->data_len -= frag->len;
		skb->truesize -= frag->truesize;
		if (skb_shared(frag)) {
			clone = skb_clone(frag, GFP_ATOMIC);
			consume_skb(frag);
			if (!clone) {
				lost++;
				continue;
			}
			frag = clone;
		}
		__skb_queue_tail(list, frag);
	}
	skb_gso_reset(skb);
	skb->encapsulation = 0;

	hdr = skb->data - skb_network_header(skb);
	((struct udphdr *)skb->data)->len = htons(skb->len);
	if (skb->protocol == htons(ETH_P_IPV6)) {
		ipv6_hdr(skb)->payload_len =
			htons(hdr + skb->len - sizeof(struct ipv6hdr));
	} else {
		ip_hdr(skb)->tot_len = htons(hdr + skb->len);
		ip_send_check(ip_hdr(skb));
	}
	return lost;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_gro_split);
