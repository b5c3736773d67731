// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the RoCEv2 wire format (srdma_hdr.h, srdma_opcode.c,
 * srdma_icrc.c) and the RC timer arithmetic (srdma_timer.c).
 *
 * The ICRC vectors are packets rdma_rxe (Linux 6.1; the FLUSH 6.12) put on
 * the wire between two VMs, captured with tcpdump: IPv4 header onwards,
 * ICRC included.
 */
#include <crypto/hash.h>
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/crc32.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/random.h>
#include <linux/udp.h>
#include <net/ipv6.h>

#include "srdma_engine.h"

/* the header bytes of each opcode, written out from IBTA 9.2 by hand */
struct hdr_case {
	const char *name;
	u8 opcode;
	u8 hdr_bytes;
	u32 flags;
};

#define HC(op, bytes, f) \
	{ .name = #op, .opcode = IB_OPCODE_##op, .hdr_bytes = bytes, .flags = f }

static const struct hdr_case hdr_cases[] = {
	HC(RC_SEND_FIRST, 12, SRDMA_OP_REQ | SRDMA_OP_SEND | SRDMA_OP_FIRST),
	HC(RC_SEND_MIDDLE, 12, SRDMA_OP_REQ | SRDMA_OP_SEND | SRDMA_OP_MIDDLE),
	HC(RC_SEND_LAST, 12, SRDMA_OP_REQ | SRDMA_OP_SEND | SRDMA_OP_LAST),
	HC(RC_SEND_LAST_WITH_IMMEDIATE, 16, SRDMA_OP_LAST | SRDMA_OP_IMMDT),
	HC(RC_SEND_ONLY, 12, SRDMA_OP_ONLY),
	HC(RC_SEND_ONLY_WITH_IMMEDIATE, 16, SRDMA_OP_ONLY | SRDMA_OP_IMMDT),
	HC(RC_RDMA_WRITE_FIRST, 28, SRDMA_OP_WRITE | SRDMA_OP_RETH),
	HC(RC_RDMA_WRITE_MIDDLE, 12, SRDMA_OP_WRITE | SRDMA_OP_MIDDLE),
	HC(RC_RDMA_WRITE_LAST, 12, SRDMA_OP_WRITE | SRDMA_OP_LAST),
	HC(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 16, SRDMA_OP_IMMDT),
	HC(RC_RDMA_WRITE_ONLY, 28, SRDMA_OP_ONLY | SRDMA_OP_RETH),
	HC(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 32,
	   SRDMA_OP_RETH | SRDMA_OP_IMMDT),
	HC(RC_RDMA_READ_REQUEST, 28, SRDMA_OP_REQ | SRDMA_OP_READ),
	HC(RC_RDMA_READ_RESPONSE_FIRST, 16, SRDMA_OP_AETH | SRDMA_OP_PAYLOAD),
	HC(RC_RDMA_READ_RESPONSE_MIDDLE, 12, SRDMA_OP_PAYLOAD),
	HC(RC_RDMA_READ_RESPONSE_LAST, 16, SRDMA_OP_AETH | SRDMA_OP_LAST),
	HC(RC_RDMA_READ_RESPONSE_ONLY, 16, SRDMA_OP_AETH | SRDMA_OP_ONLY),
	HC(RC_ACKNOWLEDGE, 16, SRDMA_OP_ACK | SRDMA_OP_AETH),
	HC(RC_ATOMIC_ACKNOWLEDGE, 24, SRDMA_OP_AETH | SRDMA_OP_ATMACK),
	HC(RC_COMPARE_SWAP, 40, SRDMA_OP_REQ | SRDMA_OP_ATMETH),
	HC(RC_FETCH_ADD, 40, SRDMA_OP_REQ | SRDMA_OP_ATMETH),
	HC(RC_ATOMIC_WRITE, 28, SRDMA_OP_REQ | SRDMA_OP_ATOMIC_WRITE |
	   SRDMA_OP_RETH | SRDMA_OP_PAYLOAD | SRDMA_OP_ONLY),
	HC(RC_FLUSH, 32, SRDMA_OP_REQ | SRDMA_OP_FLUSH | SRDMA_OP_FETH |
	   SRDMA_OP_RETH | SRDMA_OP_ONLY),
	HC(RC_SEND_LAST_WITH_INVALIDATE, 16, SRDMA_OP_IETH),
	HC(RC_SEND_ONLY_WITH_INVALIDATE, 16, SRDMA_OP_IETH | SRDMA_OP_ONLY),
	HC(UC_SEND_ONLY, 12, SRDMA_OP_ONLY | SRDMA_OP_SEND),
	HC(UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 32,
	   SRDMA_OP_RETH | SRDMA_OP_IMMDT),
	HC(UD_SEND_ONLY, 20, SRDMA_OP_DETH | SRDMA_OP_ONLY),
	HC(UD_SEND_ONLY_WITH_IMMEDIATE, 24, SRDMA_OP_DETH | SRDMA_OP_IMMDT),
};

static void hdr_case_to_desc(const struct hdr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hdr, hdr_cases, hdr_case_to_desc);

/* the table's sizes and kinds, and a BTH built and read back */
static void wire_opcode_test(struct kunit *test)
{
	const struct hdr_case *c = test->param_value;
	u8 buf[64] = {};
	struct srdma_bth *bth = (struct srdma_bth *)buf;
	u32 flags = srdma_op_flags(c->opcode);

	KUNIT_EXPECT_EQ(test, srdma_op_hdr_bytes(c->opcode), c->hdr_bytes);
	KUNIT_EXPECT_EQ(test, flags & c->flags, c->flags);
	/* the last extension header ends where the payload starts */
	if (flags & SRDMA_OP_IMMDT)
		KUNIT_EXPECT_EQ(test, srdma_op_hdr_offset(c->opcode,
							  SRDMA_OP_IMMDT) + 4,
				(unsigned int)c->hdr_bytes);
	if (flags & SRDMA_OP_RETH)
		KUNIT_EXPECT_EQ(test, srdma_op_hdr_offset(c->opcode,
							  SRDMA_OP_RETH),
				(flags & SRDMA_OP_DETH) ? 20U :
				(flags & SRDMA_OP_FETH) ? 16U : 12U);
	if (flags & SRDMA_OP_ATMACK)
		KUNIT_EXPECT_EQ(test, srdma_op_hdr_offset(c->opcode,
							  SRDMA_OP_ATMACK), 16U);

	srdma_bth_init(bth, c->opcode, true, 3, 0xabcdef, true, 0xfedcba);
	KUNIT_EXPECT_EQ(test, bth->opcode, c->opcode);
	KUNIT_EXPECT_TRUE(test, srdma_bth_se(bth));
	KUNIT_EXPECT_EQ(test, srdma_bth_pad(bth), 3U);
	KUNIT_EXPECT_EQ(test, srdma_bth_tver(bth), 0U);
	KUNIT_EXPECT_EQ(test, srdma_bth_qpn(bth), 0xabcdefU);
	KUNIT_EXPECT_TRUE(test, srdma_bth_ackreq(bth));
	KUNIT_EXPECT_EQ(test, srdma_bth_psn(bth), 0xfedcbaU);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(bth->pkey), 0xffff);

	srdma_bth_init(bth, c->opcode, false, 0, 0x1000001, false, 0x1000002);
	KUNIT_EXPECT_FALSE(test, srdma_bth_se(bth));
	KUNIT_EXPECT_FALSE(test, srdma_bth_ackreq(bth));
	KUNIT_EXPECT_EQ(test, srdma_bth_qpn(bth), 1U);	/* 24 bits only */
	KUNIT_EXPECT_EQ(test, srdma_bth_psn(bth), 2U);
	KUNIT_EXPECT_EQ(test, buf[4], 0);	/* reserved byte stays 0 */
}

/* every known opcode is one part of a message: receive tells bulk by it */
static void wire_opcode_parts_test(struct kunit *test)
{
	u32 part;
	int i;

	for (i = 0; i < 256; i++) {
		if (!srdma_op_flags(i))
			continue;
		part = srdma_op_flags(i) & (SRDMA_OP_ONLY | SRDMA_OP_MIDDLE);
		KUNIT_EXPECT_TRUE_MSG(test, part == SRDMA_OP_FIRST ||
				      part == SRDMA_OP_MIDDLE ||
				      part == SRDMA_OP_LAST ||
				      part == SRDMA_OP_ONLY,
				      "opcode %#x: parts %#x", i, part);
	}
}

/* opcodes that are not in the table are refused by their flags */
static void wire_unknown_opcodes_test(struct kunit *test)
{
	static const u8 unknown[] = { 0x15, 0x18, 0x1f, 0x2c, 0x40, 0x4c,
				      0x63, 0x66, 0x80, 0xff };
	int i, known = 0;

	for (i = 0; i < ARRAY_SIZE(unknown); i++)
		KUNIT_EXPECT_EQ_MSG(test, srdma_op_flags(unknown[i]), 0U,
				    "opcode %#x", unknown[i]);
	for (i = 0; i < 256; i++)
		known += !!srdma_op_flags(i);
	/* 25 RC (ATOMIC_WRITE and FLUSH among them), 12 UC, 2 UD */
	KUNIT_EXPECT_EQ(test, known, 39);
}

static void wire_aeth_test(struct kunit *test)
{
	__be32 smsn = srdma_aeth_make(SRDMA_AETH_NAK, SRDMA_NAK_REMOTE_ACCESS,
				      0x1234567);

	KUNIT_EXPECT_EQ(test, srdma_aeth_type(smsn), SRDMA_AETH_NAK);
	KUNIT_EXPECT_EQ(test, srdma_aeth_value(smsn), SRDMA_NAK_REMOTE_ACCESS);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(smsn) & SRDMA_AETH_MSN_MASK,
			0x234567U);
	smsn = srdma_aeth_make(SRDMA_AETH_RNR_NAK, 14, 7);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(smsn), 0x2e000007U);
	smsn = srdma_aeth_make(SRDMA_AETH_ACK, SRDMA_AETH_CREDITS_NONE, 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(smsn), 0x1f000001U);
	KUNIT_EXPECT_EQ(test, srdma_pad_bytes(0), 0U);
	KUNIT_EXPECT_EQ(test, srdma_pad_bytes(1), 3U);
	KUNIT_EXPECT_EQ(test, srdma_pad_bytes(4094), 2U);
}

struct icrc_case {
	const char *name;
	u8 opcode;
	u32 psn;
	unsigned int len;	/* IP header to ICRC, both included */
	const u8 *pkt;
};

/* rdma_rxe's ACK of PSN 0x595651, MSN 1 */
static const u8 icrc_ack[] = {
	0x45, 0x00, 0x00, 0x30, 0x19, 0x45, 0x40, 0x00, 0x40, 0x11, 0x95, 0x50,
	0xc6, 0x12, 0x00, 0x02, 0xc6, 0x12, 0x00, 0x01, 0xc1, 0x21, 0x12, 0xb7,
	0x00, 0x1c, 0x00, 0x00, 0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x00, 0x59, 0x56, 0x51, 0x1f, 0x00, 0x00, 0x01, 0xcf, 0x8a, 0x23, 0x50,
};

/* rdma_rxe's RDMA READ request of 3000 bytes */
static const u8 icrc_read[] = {
	0x45, 0x00, 0x00, 0x3c, 0xfe, 0x21, 0x40, 0x00, 0x40, 0x11, 0xb0, 0x67,
	0xc6, 0x12, 0x00, 0x01, 0xc6, 0x12, 0x00, 0x02, 0xc1, 0x69, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x0c, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x13,
	0x80, 0xda, 0xbe, 0xae, 0x00, 0x00, 0x55, 0xfc, 0xca, 0xc8, 0x30, 0x00,
	0x00, 0x00, 0x04, 0x9c, 0x00, 0x00, 0x0b, 0xb8, 0x1c, 0x16, 0xef, 0x79,
};

/* rdma_rxe's FETCH_ADD of 1 */
static const u8 icrc_fetch_add[] = {
	0x45, 0x00, 0x00, 0x48, 0x1d, 0x9b, 0x40, 0x00, 0x40, 0x11, 0x90, 0xe2,
	0xc6, 0x12, 0x00, 0x01, 0xc6, 0x12, 0x00, 0x02, 0xc1, 0x90, 0x12, 0xb7,
	0x00, 0x34, 0x00, 0x00, 0x14, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x14,
	0x80, 0x26, 0xd8, 0x45, 0x00, 0x00, 0x55, 0xa9, 0xb0, 0x98, 0x00, 0x00,
	0x00, 0x00, 0x05, 0xa5, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x76, 0x56, 0x5c, 0x85,
};

static const struct icrc_case icrc_cases[] = {
	{ "rxe_ack", IB_OPCODE_RC_ACKNOWLEDGE, 0x595651, sizeof(icrc_ack),
	  icrc_ack },
	{ "rxe_read_request", IB_OPCODE_RC_RDMA_READ_REQUEST, 0xdabeae,
	  sizeof(icrc_read), icrc_read },
	{ "rxe_fetch_add", IB_OPCODE_RC_FETCH_ADD, 0x26d845,
	  sizeof(icrc_fetch_add), icrc_fetch_add },
};

static void icrc_case_to_desc(const struct icrc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(icrc, icrc_cases, icrc_case_to_desc);

#define L4_OFFSET	(sizeof(struct iphdr) + sizeof(struct udphdr))

static u32 icrc_of(const u8 *pkt, unsigned int len)
{
	return srdma_icrc(pkt, false, (const struct srdma_bth *)(pkt + L4_OFFSET),
			  len - L4_OFFSET - SRDMA_ICRC_BYTES);
}

/*
 * srdma_icrc_skb_ok() on a copy of the IPv4 packet @pkt with @wire as its
 * ICRC, its bytes from @split on (0: none) in page fragments of at most
 * @frag bytes each, as a NIC's receive buffers hold a packet
 */
static bool icrc_skb_ok(struct kunit *test, const u8 *pkt, unsigned int len,
			u32 wire, unsigned int split, unsigned int frag)
{
	unsigned int head = split ?: len, at, n, i = 0;
	struct sk_buff *skb;
	struct page *page;
	u8 *copy;
	bool ok;

	copy = kunit_kmalloc(test, len, GFP_KERNEL);
	skb = alloc_skb(head, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	memcpy(copy, pkt, len);
	put_unaligned_le32(wire, copy + len - SRDMA_ICRC_BYTES);
	skb_put_data(skb, copy, head);
	for (at = head; at < len; at += n) {
		n = min(frag, len - at);
		page = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, page);
		/* at an offset in the page, as a NIC's fragments often are */
		memcpy(page_address(page) + 64, copy + at, n);
		skb_add_rx_frag(skb, i++, page, 64, n, PAGE_SIZE);
	}
	skb_reset_network_header(skb);
	skb_pull(skb, L4_OFFSET);
	ok = srdma_icrc_skb_ok(skb, false);
	kfree_skb(skb);
	return ok;
}

/* rxe's packets parse as expected and their ICRC is what srdma computes */
static void wire_icrc_vector_test(struct kunit *test)
{
	const struct icrc_case *c = test->param_value;
	const struct srdma_bth *bth = (const void *)(c->pkt + L4_OFFSET);
	u8 pkt[128];

	KUNIT_ASSERT_LE(test, c->len, sizeof(pkt));
	KUNIT_EXPECT_EQ(test, bth->opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, srdma_bth_psn(bth), c->psn);
	KUNIT_EXPECT_EQ(test, L4_OFFSET + srdma_op_hdr_bytes(c->opcode) +
			SRDMA_ICRC_BYTES, c->len);
	KUNIT_EXPECT_EQ(test, icrc_of(c->pkt, c->len),
			get_unaligned_le32(c->pkt + c->len - SRDMA_ICRC_BYTES));

	/* what routers may change is masked: TOS, TTL, checksums, FECN */
	memcpy(pkt, c->pkt, c->len);
	pkt[1] ^= 0xfc;				/* TOS */
	pkt[8] = 1;				/* TTL */
	pkt[10] ^= 0x5a;			/* IP header checksum */
	pkt[26] = 0x12;				/* UDP checksum */
	pkt[L4_OFFSET + 4] = 0x80;		/* FECN */
	KUNIT_EXPECT_EQ(test, icrc_of(pkt, c->len), icrc_of(c->pkt, c->len));

	/* what they may not change is covered */
	memcpy(pkt, c->pkt, c->len);
	pkt[15] ^= 1;				/* source address */
	KUNIT_EXPECT_NE(test, icrc_of(pkt, c->len), icrc_of(c->pkt, c->len));
	memcpy(pkt, c->pkt, c->len);
	pkt[L4_OFFSET + 11] ^= 1;		/* PSN */
	KUNIT_EXPECT_NE(test, icrc_of(pkt, c->len), icrc_of(c->pkt, c->len));
	memcpy(pkt, c->pkt, c->len);
	pkt[c->len - SRDMA_ICRC_BYTES - 1] ^= 0x10;	/* last header byte */
	KUNIT_EXPECT_NE(test, icrc_of(pkt, c->len), icrc_of(c->pkt, c->len));
}

/*
 * rdma_rxe 6.12's FLUSH (global, range, 512 bytes): its ICRC runs over the
 * transport headers twice
 */
static const u8 icrc_rxe_flush[] = {
	0x45, 0x00, 0x00, 0x40, 0xbd, 0x5e, 0x40, 0x00, 0x40, 0x11, 0xf1, 0x26,
	0xc6, 0x12, 0x00, 0x02, 0xc6, 0x12, 0x00, 0x01, 0xc1, 0xfa, 0x12, 0xb7,
	0x00, 0x2c, 0x00, 0x00, 0x1c, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x16,
	0x80, 0x14, 0xe7, 0xc3, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x55, 0x75,
	0x84, 0x25, 0x00, 0x00, 0x00, 0x00, 0x08, 0x08, 0x00, 0x00, 0x02, 0x00,
	0x3f, 0xe9, 0x08, 0x16,
};

/* srdma takes rdma_rxe's FLUSH ICRC on a FLUSH, and on nothing else */
static void wire_icrc_rxe_flush_test(struct kunit *test)
{
	const u8 *p = icrc_rxe_flush;
	unsigned int len = sizeof(icrc_rxe_flush);
	const struct srdma_bth *bth = (const void *)(p + L4_OFFSET);
	unsigned int bytes = len - L4_OFFSET - SRDMA_ICRC_BYTES;
	u32 wire = get_unaligned_le32(p + len - SRDMA_ICRC_BYTES);
	u8 pkt[sizeof(icrc_rxe_flush)];

	KUNIT_EXPECT_EQ(test, bth->opcode, IB_OPCODE_RC_FLUSH);
	KUNIT_EXPECT_EQ(test, L4_OFFSET + srdma_op_hdr_bytes(bth->opcode) +
			SRDMA_ICRC_BYTES, len);
	KUNIT_EXPECT_EQ(test, srdma_icrc_rxe_flush(p, false, bth, bytes), wire);
	KUNIT_EXPECT_NE(test, icrc_of(p, len), wire);
	KUNIT_EXPECT_TRUE(test, icrc_skb_ok(test, p, len, wire, 0, 0));
	KUNIT_EXPECT_TRUE(test, icrc_skb_ok(test, p, len, icrc_of(p, len), 0, 0));
	KUNIT_EXPECT_FALSE(test, icrc_skb_ok(test, p, len, wire ^ 1, 0, 0));
	/* the same bytes as another opcode: only the IBTA's ICRC */
	memcpy(pkt, p, len);
	pkt[L4_OFFSET] = IB_OPCODE_RC_RDMA_READ_REQUEST;
	bth = (const void *)(pkt + L4_OFFSET);
	KUNIT_EXPECT_FALSE(test, icrc_skb_ok(test, pkt, len,
					     srdma_icrc_rxe_flush(pkt, false,
								  bth, bytes),
					     0, 0));
	KUNIT_EXPECT_TRUE(test, icrc_skb_ok(test, pkt, len, icrc_of(pkt, len),
					    0, 0));
}

/*
 * A packet whose payload lies in page fragments, as virtio-net and most
 * NICs hand it over: the ICRC is checked over the pieces where they are,
 * and one byte changed in any piece fails it
 */
static void wire_icrc_fragments_test(struct kunit *test)
{
	static const unsigned int frags[] = { 1, 7, 700, 4096 };
	unsigned int hdr = SRDMA_BTH_BYTES, paylen = 3000, len, i, split;
	struct srdma_bth *bth;
	u32 wire;
	u8 *pkt;

	len = L4_OFFSET + hdr + paylen + SRDMA_ICRC_BYTES;
	pkt = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	pkt[0] = 0x45;
	bth = (struct srdma_bth *)(pkt + L4_OFFSET);
	srdma_bth_init(bth, IB_OPCODE_RC_SEND_ONLY, false, 0, 0x12, false, 7);
	get_random_bytes(pkt + L4_OFFSET + hdr, paylen);
	wire = icrc_of(pkt, len);
	KUNIT_EXPECT_TRUE(test, icrc_skb_ok(test, pkt, len, wire, 0, 0));
	for (i = 0; i < ARRAY_SIZE(frags); i++) {
		/* right after the BTH, inside the payload, in the ICRC */
		for (split = L4_OFFSET + hdr; split < len; split += 1499) {
			if (DIV_ROUND_UP(len - split, frags[i]) > MAX_SKB_FRAGS)
				continue;
			KUNIT_EXPECT_TRUE_MSG(test,
					      icrc_skb_ok(test, pkt, len, wire,
							  split, frags[i]),
					      "split at %u, fragments of %u",
					      split, frags[i]);
		}
		split = L4_OFFSET + hdr + 16;
		if (DIV_ROUND_UP(len - split, frags[i]) > MAX_SKB_FRAGS)
			continue;
		pkt[len - SRDMA_ICRC_BYTES - 1] ^= 0x20;
		KUNIT_EXPECT_FALSE_MSG(test, icrc_skb_ok(test, pkt, len, wire,
							 split, frags[i]),
				       "last payload byte changed, fragments of %u",
				       frags[i]);
		pkt[len - SRDMA_ICRC_BYTES - 1] ^= 0x20;
	}
}

/*
 * A packet sent with its payload in page fragments (srdma_mr_attach()):
 * pages a packet may hold are attached, not copied; slab memory is copied;
 * the ICRC over the pieces is the one over the same bytes laid out flat
 */
static void wire_paged_tx_test(struct kunit *test)
{
	unsigned int hdr = SRDMA_BTH_BYTES, paylen = 3001, pad, len;
	struct page *pages = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
	u8 *mem, *slab, *flat;
	struct srdma_mr *mr;
	struct sk_buff *skb;
	u8 *end;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	mem = page_address(pages);
	slab = kunit_kmalloc(test, paylen, GFP_KERNEL);
	mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slab);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->kind = SRDMA_MR_DMA;
	get_random_bytes(mem, 2 * PAGE_SIZE);
	get_random_bytes(slab, paylen);
	pad = srdma_pad_bytes(2 * paylen);
	len = L4_OFFSET + hdr + 2 * paylen + pad + SRDMA_ICRC_BYTES;

	skb = alloc_skb(L4_OFFSET + hdr + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 32);
	skb_reset_network_header(skb);
	memset(skb_put(skb, L4_OFFSET + hdr), 0, L4_OFFSET + hdr);
	skb->data[0] = 0x45;
	srdma_bth_init((struct srdma_bth *)(skb->data + L4_OFFSET),
		       IB_OPCODE_RC_SEND_ONLY, false, pad, 0x12, false, 9);
	/* across the page boundary: two pages held, nothing copied */
	KUNIT_EXPECT_EQ(test, srdma_mr_attach(mr, (uintptr_t)mem + 2000, skb,
					      paylen), 0);
	KUNIT_ASSERT_EQ(test, skb_shinfo(skb)->nr_frags, 2);
	KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&skb_shinfo(skb)->frags[0]),
			    pages);
	KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&skb_shinfo(skb)->frags[1]),
			    pages + 1);
	/* a reference for each fragment, on the compound page */
	KUNIT_EXPECT_EQ(test, page_count(pages), 3);
	/* slab memory: copied into a fragment of its own */
	KUNIT_EXPECT_EQ(test, srdma_mr_attach(mr, (uintptr_t)slab, skb, paylen),
			0);
	KUNIT_ASSERT_EQ(test, skb_shinfo(skb)->nr_frags, 3);
	KUNIT_EXPECT_PTR_NE(test, skb_frag_page(&skb_shinfo(skb)->frags[2]),
			    virt_to_page(slab));
	end = srdma_pkt_put_frag(skb, pad + SRDMA_ICRC_BYTES);
	KUNIT_ASSERT_NOT_NULL(test, end);
	memset(end, 0, pad + SRDMA_ICRC_BYTES);
	KUNIT_ASSERT_EQ(test, skb->len, len);

	flat = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, flat);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, 0, flat, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(flat + L4_OFFSET + hdr, mem + 2000,
				     paylen), 0);
	KUNIT_EXPECT_EQ(test, memcmp(flat + L4_OFFSET + hdr + paylen, slab,
				     paylen), 0);
	KUNIT_EXPECT_EQ(test, srdma_icrc_skb(skb, L4_OFFSET, false),
			icrc_of(flat, len));
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, page_count(pages), 1);
	__free_pages(pages, 1);
}

/*
 * A payload goes in page fragments only where they reach the wire as they
 * are (a netdev without scatter-gather would have the stack copy it), and
 * only from SRDMA_TX_PAGED_MIN_BYTES on
 */
static void wire_paged_needs_sg_test(struct kunit *test)
{
	static const u8 mine[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 1 };
	static const u8 peer[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 2 };
	const u32 big = SRDMA_TX_PAGED_MIN_BYTES;
	struct srdma_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	struct srdma_av av = {};
	struct net_device *ndev;

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	ndev = alloc_etherdev(0);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	eth_hw_addr_set(ndev, mine);
	sdev->ndev = ndev;
	memcpy(av.dmac, peer, ETH_ALEN);
	av.sgid.raw[15] = 1;
	av.dgid.raw[15] = 2;
	ndev->features = NETIF_F_SG;
	KUNIT_EXPECT_TRUE(test, srdma_pkt_paged_ok(sdev, &av, big));
	KUNIT_EXPECT_FALSE(test, srdma_pkt_paged_ok(sdev, &av, big - 1));
	ndev->features = 0;
	KUNIT_EXPECT_FALSE(test, srdma_pkt_paged_ok(sdev, &av, big));
	/* to this host's own address: received as built, never linearized */
	av.dgid = av.sgid;
	KUNIT_EXPECT_TRUE(test, srdma_pkt_paged_ok(sdev, &av, big));
	av.dgid.raw[15] = 2;
	memcpy(av.dmac, mine, ETH_ALEN);
	KUNIT_EXPECT_TRUE(test, srdma_pkt_paged_ok(sdev, &av, big));
	free_netdev(ndev);
}

/*
 * The crypto API's crc32, which the ICRC uses, is crc32_le() from any seed,
 * length and alignment; the test kernels have it (CONFIG_CRYPTO_CRC32)
 */
static void wire_crc32_crypto_test(struct kunit *test)
{
	static const unsigned int lens[] = {
		0, 1, 3, 4, 7, 8, 15, 16, 31, 63, 64, 65, 255, 1024, 4096 + 3,
	};
	static const u32 seeds[] = { 0, ~0U, 0xdebb20e3, 0x12345678 };
	unsigned int i, j, off;
	const char *driver;
	u8 *buf;

	driver = srdma_icrc_driver();
	KUNIT_ASSERT_NOT_NULL_MSG(test, driver, "no crypto crc32");
	kunit_info(test, "ICRC by %s\n", driver);
	buf = kunit_kmalloc(test, 4096 + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	get_random_bytes(buf, 4096 + 8);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		for (j = 0; j < ARRAY_SIZE(seeds); j++)
			for (off = 0; off < 4; off++)
				KUNIT_EXPECT_EQ(test,
						srdma_crc32(seeds[j], buf + off,
							    lens[i]),
						crc32_le(seeds[j], buf + off,
							 lens[i]));
}

/*
 * Each CRC-32 the kernel may have for the ICRC, on 4 KiB: the same CRC as
 * crc32_le(), and its MB/s in the log (a figure to read, not asserted).
 * crc32-pclmul loads only on a CPU with PCLMULQDQ (make bench's VMs).
 */
static void wire_crc32_candidates_test(struct kunit *test)
{
	static const char * const drivers[] = {
		NULL, "crc32-generic", "crc32-pclmul",
	};
	const unsigned int len = 4096, rounds = 256;
	struct crypto_shash *tfm;
	unsigned int i, r;
	u64 start, ns;
	u32 want, crc = 0;
	u8 *buf;

	buf = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	get_random_bytes(buf, len);
	want = crc32_le(~0U, buf, len);
	for (i = 0; i < ARRAY_SIZE(drivers); i++) {
		const char *name = drivers[i] ?: "crc32_le()";

		tfm = drivers[i] ? crypto_alloc_shash(drivers[i], 0, 0) : NULL;
		if (IS_ERR(tfm)) {
			/* the test kernels build both drivers */
			KUNIT_EXPECT_STREQ(test, name, "crc32-pclmul");
			kunit_info(test, "%s: %pe (no PCLMULQDQ?)\n", name, tfm);
			continue;
		}
		start = ktime_get_ns();
		for (r = 0; r < rounds; r++)
			crc = srdma_crc32_by(tfm, ~0U, buf, len);
		ns = ktime_get_ns() - start;
		KUNIT_EXPECT_EQ_MSG(test, crc, want, "%s", name);
		kunit_info(test, "%s: %llu MB/s on %u bytes\n", name,
			   div64_u64((u64)len * rounds * 1000, ns ?: 1), len);
		if (tfm)
			crypto_free_shash(tfm);
	}
}

/*
 * What ip_local_out() returns, as srdma_xmit() returns it: a full qdisc's
 * drop (NET_XMIT_DROP, positive) is -ENOBUFS, which the requester waits on
 * without failing the WQE; taken for an error code of its own, it failed
 * QPs that a busy link kept waiting (64 QPs of ib_write_bw on the wire)
 */
static void wire_xmit_verdict_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, srdma_xmit_verdict(NET_XMIT_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, srdma_xmit_verdict(NET_XMIT_CN), 0);
	KUNIT_EXPECT_EQ(test, srdma_xmit_verdict(NET_XMIT_DROP), -ENOBUFS);
	KUNIT_EXPECT_TRUE(test, srdma_xmit_busy(srdma_xmit_verdict(NET_XMIT_DROP)));
	KUNIT_EXPECT_EQ(test, srdma_xmit_verdict(-ENETUNREACH), -ENETUNREACH);
	KUNIT_EXPECT_FALSE(test, srdma_xmit_busy(-ENETUNREACH));
}

static const u8 wire_mine[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 1 };
static const u8 wire_peer[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 2 };

/*
 * @sdev on a netdev of its own, and @av from 127.0.0.1 to 127.0.0.2: a
 * route every namespace has, through lo. Return: the netdev, to free.
 */
static struct net_device *wire_batch_setup(struct kunit *test,
					   struct srdma_dev *sdev,
					   struct srdma_av *av)
{
	struct net_device *ndev = alloc_etherdev(0);

	KUNIT_ASSERT_NOT_NULL(test, ndev);
	eth_hw_addr_set(ndev, wire_mine);
	sdev->ndev = ndev;
	sdev->net = &init_net;
	memcpy(av->dmac, wire_peer, ETH_ALEN);
	av->network_type = RXE_NETWORK_TYPE_IPV4;
	ipv6_addr_set_v4mapped(htonl(INADDR_LOOPBACK),
			       (struct in6_addr *)av->sgid.raw);
	ipv6_addr_set_v4mapped(htonl(INADDR_LOOPBACK + 1),
			       (struct in6_addr *)av->dgid.raw);
	ndev->features = NETIF_F_SG | NETIF_F_HW_CSUM;
	ndev->gso_max_segs = GSO_MAX_SEGS;
	return ndev;
}

/*
 * RC SEND MIDDLE packets of @paylens bytes of random payload, PSNs from
 * 100, added to batch @b; a copy of each, BTH to payload, in @sent
 */
static void wire_batch_build(struct kunit *test, struct srdma_dev *sdev,
			     struct srdma_av *av, struct srdma_route *route,
			     struct srdma_tx_batch *b, const u32 *paylens,
			     unsigned int n, u8 **sent)
{
	struct srdma_bth *bth;
	struct sk_buff *skb;
	unsigned int i;

	for (i = 0; i < n; i++) {
		skb = srdma_pkt_alloc(sdev, IB_OPCODE_RC_SEND_MIDDLE,
				      paylens[i], &bth);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		srdma_bth_init(bth, IB_OPCODE_RC_SEND_MIDDLE, false, 0, 0x12,
			       false, 100 + i);
		get_random_bytes(bth + 1, paylens[i]);
		sent[i] = kunit_kmalloc(test, skb->len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sent[i]);
		memcpy(sent[i], skb->data, skb->len - SRDMA_ICRC_BYTES);
		KUNIT_ASSERT_TRUE(test, srdma_xmit_batch_fits(sdev, av, b,
							      skb->len));
		KUNIT_ASSERT_EQ(test, srdma_xmit_batch_add(sdev, av, route,
							   0xc001, b, skb), 0);
	}
	KUNIT_EXPECT_EQ(test, b->pkts, n);
}

/* batch @b as the stack cuts it: the packets, each with its IP header */
static struct sk_buff *wire_batch_cut(struct kunit *test,
				      struct srdma_tx_batch *b)
{
	struct sk_buff *skb = b->head, *segs;

	srdma_batch_to_gso(skb, b->seg_bytes, b->pkts);
	skb_reset_mac_header(skb);
	skb->mac_len = 0;
	segs = skb_gso_segment(skb, NETIF_F_SG | NETIF_F_HW_CSUM);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(segs));
	kfree_skb(skb);
	return segs;
}

/*
 * A batch of packets handed to the stack as one UDP GSO packet: cut by the
 * stack's own segmentation, each segment is the packet built, and its ICRC,
 * computed before, holds over the IP ID and lengths the cut gave it. Only
 * packets as long as the first, then at most one shorter, join; none to
 * the device's own address, none through a netdev that would checksum in
 * software or copy.
 */
static void wire_batch_gso_test(struct kunit *test)
{
	static const u32 paylens[] = { 1024, 1024, 1024, 1024, 300 };
	struct srdma_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	u8 *sent[ARRAY_SIZE(paylens)];
	struct srdma_route route = {};
	struct srdma_tx_batch b = {}, none = {}, one;
	struct sk_buff *skb, *segs, *next;
	struct srdma_av av = {};
	struct net_device *ndev;
	unsigned int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	ndev = wire_batch_setup(test, sdev, &av);
	ndev->features = NETIF_F_SG;
	KUNIT_EXPECT_FALSE(test, srdma_xmit_batch_fits(sdev, &av, &b, 1040));
	ndev->features = NETIF_F_SG | NETIF_F_HW_CSUM;
	wire_batch_build(test, sdev, &av, &route, &b, paylens,
			 ARRAY_SIZE(paylens), sent);
	/* after a shorter one, nothing; nor a longer one, nor to itself */
	KUNIT_EXPECT_FALSE(test, srdma_xmit_batch_fits(sdev, &av, &b, 100));
	one = (struct srdma_tx_batch){ .head = b.head, .tail = b.head,
				       .seg_bytes = b.seg_bytes, .pkts = 1 };
	KUNIT_EXPECT_FALSE(test, srdma_xmit_batch_fits(sdev, &av, &one,
						       b.seg_bytes + 4));
	av.dgid = av.sgid;
	KUNIT_EXPECT_FALSE(test, srdma_xmit_batch_fits(sdev, &av, &none, 1040));

	segs = wire_batch_cut(test, &b);
	skb_list_walk_safe(segs, skb, next) {
		struct iphdr *iph;

		skb_mark_not_on_list(skb);
		KUNIT_ASSERT_LT(test, n, ARRAY_SIZE(paylens));
		skb_reset_network_header(skb);
		iph = ip_hdr(skb);
		KUNIT_EXPECT_EQ(test, ntohs(iph->id), n);
		KUNIT_EXPECT_EQ(test, ntohs(iph->tot_len), skb->len);
		KUNIT_EXPECT_EQ(test, ntohs(udp_hdr(skb)->len),
				skb->len - sizeof(*iph));
		skb_pull(skb, sizeof(*iph) + sizeof(struct udphdr));
		KUNIT_ASSERT_EQ(test, skb->len, SRDMA_BTH_BYTES + paylens[n] +
				SRDMA_ICRC_BYTES);
		KUNIT_ASSERT_EQ(test, skb_linearize(skb), 0);
		KUNIT_EXPECT_EQ(test, memcmp(skb->data, sent[n],
					     skb->len - SRDMA_ICRC_BYTES), 0);
		KUNIT_EXPECT_TRUE_MSG(test, srdma_icrc_skb_ok(skb, false),
				      "segment %u", n);
		kfree_skb(skb);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(paylens));
	dst_release(route.dst);
	free_netdev(ndev);
}

/*
 * Packets GRO joined (srdma_gro.c), taken apart at the socket: each is the
 * packet sent, its ICRC good over the IP ID it came with and its own
 * lengths, which GRO had set to the whole's in the first one's headers.
 * The second time a packet tap holds a clone of the whole, which stays
 * whole.
 */
static void wire_gro_split_test(struct kunit *test)
{
	static const u32 paylens[] = { 2048, 2048, 700 };
	struct srdma_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	unsigned int hdr = sizeof(struct iphdr) + sizeof(struct udphdr);
	u8 *sent[ARRAY_SIZE(paylens)];
	struct sk_buff *head, *skb, *next, *tap, **tail;
	struct srdma_route route = {};
	struct sk_buff_head list;
	struct net_device *ndev;
	struct srdma_av av = {};
	unsigned int n, total;
	int tapped;

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	ndev = wire_batch_setup(test, sdev, &av);
	for (tapped = 0; tapped < 2; tapped++) {
		struct srdma_tx_batch b = {};

		wire_batch_build(test, sdev, &av, &route, &b, paylens,
				 ARRAY_SIZE(paylens), sent);
		/* as GRO leaves them: the first at its UDP header, the rest
		 * at their BTHs on its frag_list
		 */
		head = wire_batch_cut(test, &b);
		skb = head->next;
		skb_mark_not_on_list(head);
		skb_reset_network_header(head);
		__skb_pull(head, sizeof(struct iphdr));
		tail = &skb_shinfo(head)->frag_list;
		for (; skb; skb = next) {
			next = skb->next;
			skb_mark_not_on_list(skb);
			skb_reset_network_header(skb);
			__skb_pull(skb, hdr);
			*tail = skb;
			tail = &skb->next;
			head->len += skb->len;
			head->data_len += skb->len;
			head->truesize += skb->truesize;
		}
		total = head->len;
		ip_hdr(head)->tot_len = htons(total + sizeof(struct iphdr));
		udp_hdr(head)->len = htons(total);
		skb_shinfo(head)->gso_size = paylens[0];
		skb_shinfo(head)->gso_type = SKB_GSO_UDP_TUNNEL;
		KUNIT_EXPECT_TRUE(test, srdma_gro_joined(head));
		tap = tapped ? skb_clone(head, GFP_KERNEL) : NULL;

		__skb_queue_head_init(&list);
		KUNIT_ASSERT_EQ(test, srdma_gro_split(head, &list), 0);
		KUNIT_EXPECT_FALSE(test, srdma_gro_joined(head));
		KUNIT_ASSERT_EQ(test, skb_queue_len(&list),
				ARRAY_SIZE(paylens) - 1);
		KUNIT_EXPECT_EQ(test, ntohs(ip_hdr(head)->tot_len),
				head->len + sizeof(struct iphdr));
		KUNIT_EXPECT_EQ(test, ntohs(udp_hdr(head)->len), head->len);
		__skb_pull(head, sizeof(struct udphdr));
		__skb_queue_head(&list, head);
		n = 0;
		skb_queue_walk(&list, skb) {
			KUNIT_EXPECT_EQ(test, ntohs(ip_hdr(skb)->id), n);
			KUNIT_ASSERT_EQ(test, skb->len, SRDMA_BTH_BYTES +
					paylens[n] + SRDMA_ICRC_BYTES);
			KUNIT_ASSERT_EQ(test, skb_linearize(skb), 0);
			KUNIT_EXPECT_EQ(test, memcmp(skb->data, sent[n],
						     skb->len -
						     SRDMA_ICRC_BYTES), 0);
			KUNIT_EXPECT_TRUE_MSG(test,
					      srdma_icrc_skb_ok(skb, false),
					      "packet %u", n);
			n++;
		}
		__skb_queue_purge(&list);
		if (tap) {
			KUNIT_EXPECT_EQ(test, tap->len, total);
			KUNIT_EXPECT_EQ(test, ntohs(udp_hdr(tap)->len), total);
			n = 0;
			skb_walk_frags(tap, skb)
				n++;
			KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(paylens) - 1);
			kfree_skb(tap);
		}
	}
	dst_release(route.dst);
	free_netdev(ndev);
}

static void timer_ack_timeout_test(struct kunit *test)
{
	u8 t;

	KUNIT_EXPECT_EQ(test, srdma_ack_timeout_ns(0), 0ULL);	/* infinite */
	KUNIT_EXPECT_EQ(test, srdma_ack_timeout_ns(1), 8192ULL);
	KUNIT_EXPECT_EQ(test, srdma_ack_timeout_ns(14), 67108864ULL);
	KUNIT_EXPECT_EQ(test, srdma_ack_timeout_ns(31), 4096ULL << 31);
	for (t = 2; t <= 31; t++)
		KUNIT_EXPECT_EQ(test, srdma_ack_timeout_ns(t),
				2 * srdma_ack_timeout_ns(t - 1));
}

static void timer_rnr_delay_test(struct kunit *test)
{
	u8 t;

	KUNIT_EXPECT_EQ(test, srdma_rnr_delay_ns(0), 655360000ULL);
	KUNIT_EXPECT_EQ(test, srdma_rnr_delay_ns(1), 10000ULL);
	KUNIT_EXPECT_EQ(test, srdma_rnr_delay_ns(12), 640000ULL);
	KUNIT_EXPECT_EQ(test, srdma_rnr_delay_ns(14), 1280000ULL);
	KUNIT_EXPECT_EQ(test, srdma_rnr_delay_ns(31), 491520000ULL);
	for (t = 2; t <= 31; t++)
		KUNIT_EXPECT_GT(test, srdma_rnr_delay_ns(t),
				srdma_rnr_delay_ns(t - 1));
}

static struct kunit_case wire_cases[] = {
	KUNIT_CASE_PARAM(wire_opcode_test, hdr_gen_params),
	KUNIT_CASE(wire_opcode_parts_test),
	KUNIT_CASE(wire_unknown_opcodes_test),
	KUNIT_CASE(wire_aeth_test),
	KUNIT_CASE_PARAM(wire_icrc_vector_test, icrc_gen_params),
	KUNIT_CASE(wire_icrc_rxe_flush_test),
	KUNIT_CASE(wire_icrc_fragments_test),
	KUNIT_CASE(wire_paged_tx_test),
	KUNIT_CASE(wire_paged_needs_sg_test),
	KUNIT_CASE(wire_crc32_crypto_test),
	KUNIT_CASE(wire_crc32_candidates_test),
	KUNIT_CASE(wire_xmit_verdict_test),
	KUNIT_CASE(wire_batch_gso_test),
	KUNIT_CASE(wire_gro_split_test),
	KUNIT_CASE(timer_ack_timeout_test),
	KUNIT_CASE(timer_rnr_delay_test),
	{}
};

static struct kunit_suite wire_suite = {
	.name = "srdma_wire",
	.test_cases = wire_cases,
};

kunit_test_suite(wire_suite);
