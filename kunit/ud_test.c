// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: UD datagrams and multicast (srdma_ud.c, srdma_mcast.c): the Q_Key
 * rules, the GRH area of a receive buffer for IPv4 and IPv6, the DETH's
 * place in UD packets, and the Ethernet address of multicast groups.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>
#include <rdma/ib_mad.h>

#include "srdma_engine.h"

static void ud_send_qkey(struct kunit *test)
{
	struct srdma_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.qp_type = IB_QPT_UD;
	qp->attr.qkey = 0x11223344;
	/* the WQE's Q_Key, unless its high bit asks for the QP's own */
	KUNIT_EXPECT_EQ(test, srdma_ud_send_qkey(qp, 0x01234567), 0x01234567U);
	KUNIT_EXPECT_EQ(test, srdma_ud_send_qkey(qp, 0x7fffffff), 0x7fffffffU);
	KUNIT_EXPECT_EQ(test, srdma_ud_send_qkey(qp, 0x80000000), 0x11223344U);
	KUNIT_EXPECT_EQ(test, srdma_ud_send_qkey(qp, 0xffffffff), 0x11223344U);
	/* the GSI QP always sends the well-known Q_Key */
	qp->ibqp.qp_type = IB_QPT_GSI;
	KUNIT_EXPECT_EQ(test, srdma_ud_send_qkey(qp, 0x01234567),
			(u32)IB_QP1_QKEY);
	KUNIT_EXPECT_EQ(test, srdma_ud_send_qkey(qp, 0x80000000),
			(u32)IB_QP1_QKEY);
}

/* an skb holding an IP header and a BTH, as the receive path leaves it */
static struct sk_buff *ud_test_skb(struct kunit *test, bool ipv6)
{
	unsigned int l3 = ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);
	u8 *p;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	p = skb_put(skb, l3 + sizeof(struct udphdr) + SRDMA_BTH_BYTES);
	for (i = 0; i < l3; i++)
		p[i] = i + 1;	/* a pattern: where each byte lands shows */
	skb_reset_network_header(skb);
	skb_pull(skb, l3 + sizeof(struct udphdr));
	srdma_pkt(skb)->ipv6 = ipv6;
	return skb;
}

static void ud_grh_ipv4(struct kunit *test)
{
	struct sk_buff *skb = ud_test_skb(test, false);
	union rdma_network_hdr grh;
	u8 zero[20] = {};
	u8 *raw = (u8 *)&grh;
	int i;

	memset(&grh, 0xee, sizeof(grh));
	srdma_ud_grh(skb, &grh);
	KUNIT_EXPECT_EQ(test, sizeof(grh), (size_t)40);
	/* 20 zero bytes, then the IPv4 header as it came */
	KUNIT_EXPECT_EQ(test, memcmp(raw, zero, sizeof(zero)), 0);
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, raw[20 + i], (u8)(i + 1));
	kfree_skb(skb);
}

static void ud_grh_ipv6(struct kunit *test)
{
	struct sk_buff *skb = ud_test_skb(test, true);
	union rdma_network_hdr grh;
	u8 *raw = (u8 *)&grh;
	int i;

	srdma_ud_grh(skb, &grh);
	/* the IPv6 header is the GRH, byte for byte */
	for (i = 0; i < 40; i++)
		KUNIT_EXPECT_EQ(test, raw[i], (u8)(i + 1));
	kfree_skb(skb);
}

static void ud_deth_place(struct kunit *test)
{
	/* BTH, DETH, then the payload; ImmDt after the DETH */
	KUNIT_EXPECT_EQ(test, srdma_op_hdr_offset(IB_OPCODE_UD_SEND_ONLY,
						  SRDMA_OP_DETH), 12U);
	KUNIT_EXPECT_EQ(test, srdma_op_hdr_bytes(IB_OPCODE_UD_SEND_ONLY), 20U);
	KUNIT_EXPECT_EQ(test,
			srdma_op_hdr_offset(IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE,
					    SRDMA_OP_IMMDT), 20U);
	KUNIT_EXPECT_EQ(test,
			srdma_op_hdr_bytes(IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE),
			24U);
	/* UD has no other opcodes */
	KUNIT_EXPECT_EQ(test, srdma_op_flags(IB_OPCODE_UD | IB_OPCODE_SEND_FIRST), 0U);
	KUNIT_EXPECT_EQ(test, srdma_op_flags(IB_OPCODE_UD |
					       IB_OPCODE_RDMA_WRITE_ONLY), 0U);
}

static void mcast_mac(struct kunit *test)
{
	static const u8 mac4[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	static const u8 mac6[ETH_ALEN] = { 0x33, 0x33, 0xde, 0xad, 0xbe, 0xef };
	union ib_gid mgid = {};
	u8 mac[ETH_ALEN];

	/* 239.129.2.3: the low 23 bits of the group after 01:00:5e */
	ipv6_addr_set_v4mapped(htonl(0xef810203), (struct in6_addr *)mgid.raw);
	srdma_mgid_mac(&mgid, mac);
	KUNIT_EXPECT_EQ(test, memcmp(mac, mac4, ETH_ALEN), 0);
	/* ff0e::dead:beef: the low 32 bits after 33:33 */
	memset(&mgid, 0, sizeof(mgid));
	mgid.raw[0] = 0xff;
	mgid.raw[1] = 0x0e;
	mgid.raw[12] = 0xde;
	mgid.raw[13] = 0xad;
	mgid.raw[14] = 0xbe;
	mgid.raw[15] = 0xef;
	srdma_mgid_mac(&mgid, mac);
	KUNIT_EXPECT_EQ(test, memcmp(mac, mac6, ETH_ALEN), 0);
}

static struct kunit_case ud_cases[] = {
	KUNIT_CASE(ud_send_qkey),
	KUNIT_CASE(ud_grh_ipv4),
	KUNIT_CASE(ud_grh_ipv6),
	KUNIT_CASE(ud_deth_place),
	KUNIT_CASE(mcast_mac),
	{}
};

static struct kunit_suite ud_suite = {
	.name = "srdma_ud",
	.test_cases = ud_cases,
};

kunit_test_suite(ud_suite);
