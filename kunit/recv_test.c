// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the receive path's first check of a packet, srdma_pkt_parse(),
 * fed packets built here field by field (IPv4 and IPv6 headers, BTH, the
 * opcode's extension headers, payload, pad, ICRC): every length at and
 * around each limit, the version, the P_Key, the pad, a payload where
 * none may be, an IPv4 header with options. What it accepts it must
 * describe exactly (opcode, PSN, payload length). The same packets in page
 * fragments, split anywhere: the headers are pulled, the payload copied
 * from where it lies (srdma_mr_copy_skb()).
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/random.h>

#include "srdma_engine.h"

enum { RT_OK, RT_BAD };

struct recv_case {
	const char *name;
	u8 opcode;
	unsigned int payload;	/* bytes between the headers and the pad */
	unsigned int pad;	/* the BTH's pad count */
	unsigned int pad_bytes;	/* pad bytes there are */
	int cut;		/* bytes taken off the end (negative: added) */
	u8 tver;
	u16 pkey;		/* 0: the default */
	bool ipv6;
	unsigned int ihl;	/* 0: 5 */
	int want;
};

#define OP(x)	IB_OPCODE_##x

/* accepted, with @len bytes of payload */
#define GOOD(n, op, len, ...) \
	{ .name = n, .opcode = OP(op), .payload = len, .want = RT_OK, \
	  __VA_ARGS__ }
/* refused */
#define BAD(n, op, ...) \
	{ .name = n, .opcode = op, .want = RT_BAD, __VA_ARGS__ }

static const struct recv_case recv_cases[] = {
	GOOD("RC SEND_ONLY, 4 bytes", RC_SEND_ONLY, 4),
	GOOD("RC SEND_ONLY, 0 bytes", RC_SEND_ONLY, 0),
	GOOD("RC SEND_ONLY, 1 byte and pad 3", RC_SEND_ONLY, 1,
	     .pad = 3, .pad_bytes = 3),
	GOOD("RC SEND_ONLY over IPv6", RC_SEND_ONLY, 8, .ipv6 = true),
	GOOD("RC WRITE_ONLY, RETH and 16 bytes", RC_RDMA_WRITE_ONLY, 16),
	GOOD("RC READ_REQUEST, RETH only", RC_RDMA_READ_REQUEST, 0),
	GOOD("RC ACK, AETH only", RC_ACKNOWLEDGE, 0),
	GOOD("RC COMPARE_SWAP, AtomicETH only", RC_COMPARE_SWAP, 0),
	GOOD("RC ATOMIC_WRITE, RETH and 8 bytes", RC_ATOMIC_WRITE, 8),
	GOOD("UD SEND_ONLY, DETH and 32 bytes", UD_SEND_ONLY, 32),
	GOOD("P_Key 0x7fff (limited member)", RC_SEND_ONLY, 4, .pkey = 0x7fff),

	BAD("BTH cut short", OP(RC_SEND_ONLY), .cut = 8),
	BAD("BTH and ICRC minus one byte", OP(RC_SEND_ONLY), .cut = 1),
	BAD("RETH cut by one byte", OP(RC_RDMA_WRITE_ONLY), .cut = 1),
	BAD("AtomicETH cut by one byte", OP(RC_COMPARE_SWAP), .cut = 1),
	BAD("ATOMIC_WRITE's RETH cut by one byte", OP(RC_ATOMIC_WRITE),
	    .cut = 1),
	BAD("DETH cut by one byte", OP(UD_SEND_ONLY), .cut = 1),
	BAD("pad 3 with 2 bytes after the headers", OP(RC_SEND_ONLY),
	    .pad = 3, .pad_bytes = 2),
	BAD("unknown opcode 0x1f", 0x1f),
	BAD("unknown opcode 0xff", 0xff),
	BAD("transport version 1", OP(RC_SEND_ONLY), .payload = 4, .tver = 1),
	BAD("P_Key 0x1234", OP(RC_SEND_ONLY), .payload = 4, .pkey = 0x1234),
	BAD("ACK with a payload byte", OP(RC_ACKNOWLEDGE), .cut = -1),
	BAD("ACK with a pad count", OP(RC_ACKNOWLEDGE), .pad = 1,
	    .pad_bytes = 1),
	BAD("READ_REQUEST with a payload", OP(RC_RDMA_READ_REQUEST),
	    .payload = 4),
	BAD("IPv4 header with options (ihl 6)", OP(RC_SEND_ONLY),
	    .payload = 4, .ihl = 6),
};

static void recv_case_to_desc(const struct recv_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(recv_cases, recv_cases, recv_case_to_desc);

/* the packet of @c: IP header, then BTH on at skb->data */
static struct sk_buff *recv_build(struct kunit *test, const struct recv_case *c)
{
	unsigned int ip = c->ipv6 ? sizeof(struct ipv6hdr) :
				    (c->ihl ?: 5) * 4;
	unsigned int hdr = srdma_op_hdr_bytes(c->opcode) ?: SRDMA_BTH_BYTES;
	unsigned int len = hdr + c->payload + c->pad_bytes + SRDMA_ICRC_BYTES;
	struct srdma_bth *bth;
	struct sk_buff *skb;

	len -= c->cut;
	skb = alloc_skb(ip + len + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 32);
	skb_reset_network_header(skb);
	memset(skb_put(skb, ip + len), 0, ip + len);
	if (c->ipv6) {
		ipv6_hdr(skb)->version = 6;
		skb->protocol = htons(ETH_P_IPV6);
	} else {
		ip_hdr(skb)->version = 4;
		ip_hdr(skb)->ihl = c->ihl ?: 5;
		skb->protocol = htons(ETH_P_IP);
	}
	skb_pull(skb, ip);
	bth = (struct srdma_bth *)skb->data;
	/* the fields up to the cut: the BTH may be shorter than itself */
	if (len >= SRDMA_BTH_BYTES) {
		srdma_bth_init(bth, c->opcode, false, c->pad, 0x12, false,
			       0x345678);
		bth->flags |= c->tver;
		if (c->pkey)
			bth->pkey = cpu_to_be16(c->pkey);
	}
	return skb;
}

static void recv_parse_test(struct kunit *test)
{
	const struct recv_case *c = test->param_value;
	struct sk_buff *skb = recv_build(test, c);
	bool ok = srdma_pkt_parse(skb);

	KUNIT_EXPECT_EQ(test, ok, c->want == RT_OK);
	if (ok && c->want == RT_OK) {
		KUNIT_EXPECT_EQ(test, srdma_pkt(skb)->opcode, c->opcode);
		KUNIT_EXPECT_EQ(test, srdma_pkt(skb)->psn, 0x345678U);
		KUNIT_EXPECT_EQ(test, srdma_pkt(skb)->paylen, c->payload);
		KUNIT_EXPECT_EQ(test, srdma_pkt(skb)->ipv6, c->ipv6);
	}
	kfree_skb(skb);
}

/* every opcode, at its header length exactly and one byte short */
static void recv_every_opcode_length_test(struct kunit *test)
{
	struct recv_case c = { .name = "" };
	struct sk_buff *skb;
	unsigned int op;

	for (op = 0; op < 256; op++) {
		if (!srdma_op_flags(op))
			continue;
		c.opcode = op;
		c.cut = 0;
		skb = recv_build(test, &c);
		KUNIT_EXPECT_TRUE_MSG(test, srdma_pkt_parse(skb),
				      "opcode %#x at its header length", op);
		kfree_skb(skb);
		c.cut = 1;
		skb = recv_build(test, &c);
		KUNIT_EXPECT_FALSE_MSG(test, srdma_pkt_parse(skb),
				       "opcode %#x one byte short", op);
		kfree_skb(skb);
	}
}

/*
 * A copy of @skb (network header at its head) whose bytes from @split after
 * skb->data on are in page fragments of at most @frag bytes each
 */
static struct sk_buff *recv_fragment(struct kunit *test, struct sk_buff *skb,
				     unsigned int split, unsigned int frag)
{
	unsigned int ip = skb->data - skb_network_header(skb), at, n, i = 0;
	struct sk_buff *f = alloc_skb(ip + split + 32, GFP_KERNEL);
	struct page *page;

	KUNIT_ASSERT_NOT_NULL(test, f);
	skb_reserve(f, 32);
	skb_reset_network_header(f);
	skb_put_data(f, skb_network_header(skb), ip + split);
	for (at = split; at < skb->len; at += n) {
		n = min(frag, skb->len - at);
		page = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page), skb->data + at, n);
		skb_add_rx_frag(f, i++, page, 0, n, PAGE_SIZE);
	}
	f->protocol = skb->protocol;
	skb_pull(f, ip);
	return f;
}

/*
 * A WRITE whose headers and payload lie in fragments, split anywhere: it
 * parses as the linear one, its headers end up linear, and the payload is
 * copied into an MR byte for byte from the fragments
 */
static void recv_fragments_test(struct kunit *test)
{
	struct recv_case c = GOOD("", RC_RDMA_WRITE_ONLY, 3000);
	static const unsigned int splits[] = { 0, 1, 12, 27, 28, 29, 1000 };
	static const unsigned int frags[] = { 1, 5, 512, 4096 };
	unsigned int hdr = srdma_op_hdr_bytes(c.opcode), i, j, k;
	struct sk_buff *skb = recv_build(test, &c), *f;
	struct srdma_mr *mr;
	u8 *dst;

	mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	dst = kunit_kzalloc(test, c.payload, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	mr->kind = SRDMA_MR_DMA;
	get_random_bytes(skb->data + hdr, c.payload);
	for (i = 0; i < ARRAY_SIZE(splits); i++) {
		for (j = 0; j < ARRAY_SIZE(frags); j++) {
			if (DIV_ROUND_UP(skb->len - splits[i], frags[j]) >
			    MAX_SKB_FRAGS)
				continue;
			f = recv_fragment(test, skb, splits[i], frags[j]);
			KUNIT_EXPECT_TRUE_MSG(test, srdma_pkt_parse(f),
					      "split %u, fragments of %u",
					      splits[i], frags[j]);
			KUNIT_EXPECT_GE(test, skb_headlen(f), hdr);
			KUNIT_EXPECT_EQ(test, srdma_pkt(f)->paylen, c.payload);
			memset(dst, 0, c.payload);
			KUNIT_EXPECT_EQ(test, srdma_mr_copy_skb(mr, (uintptr_t)dst,
								f, hdr,
								c.payload), 0);
			for (k = 0; k < c.payload; k++)
				if (dst[k] != skb->data[hdr + k])
					break;
			KUNIT_EXPECT_EQ_MSG(test, k, c.payload,
					    "split %u, fragments of %u: first byte that differs",
					    splits[i], frags[j]);
			kfree_skb(f);
		}
	}
	/* one byte short of the headers, in fragments: refused */
	c.payload = 0;
	c.cut = 1;
	kfree_skb(skb);
	skb = recv_build(test, &c);
	f = recv_fragment(test, skb, 1, 3);
	KUNIT_EXPECT_FALSE(test, srdma_pkt_parse(f));
	kfree_skb(f);
	kfree_skb(skb);
}

static struct kunit_case recv_test_cases[] = {
	KUNIT_CASE_PARAM(recv_parse_test, recv_cases_gen_params),
	KUNIT_CASE(recv_every_opcode_length_test),
	KUNIT_CASE(recv_fragments_test),
	{}
};

static struct kunit_suite recv_suite = {
	.name = "srdma_recv_parse",
	.test_cases = recv_test_cases,
};

kunit_test_suite(recv_suite);
