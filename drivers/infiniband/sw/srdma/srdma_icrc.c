// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RoCEv2 invariant CRC (IBTA Annex A17.3.3): a CRC-32 over the IP and
 * UDP headers, the transport headers and the padded payload, with the
 * fields that routers may change masked to ones: IPv4 TOS, TTL and header
 * checksum; IPv6 traffic class, flow label and hop limit; the UDP checksum;
 * and the reserved byte of the BTH that carries FECN and BECN. The CRC
 * starts as if 8 bytes of ones (the masked LRH of InfiniBand) had gone
 * before, and is sent inverted, least significant byte first.
 *
 * The CRC-32 itself comes from the crypto API's "crc32", as rdma_rxe's
 * does: on x86 that is crc32-pclmul where the CPU has it, several times
 * faster per byte than lib's crc32_le() in 6.1 and 6.12 (the generic
 * tables). Without it, crc32_le().
 *
 * rdma_rxe 6.2 and later puts another ICRC on an RDMA FLUSH: its opcode
 * table gives FLUSH no payload offset, so that it runs the CRC over the
 * transport headers, then over them again from the BTH on as if they were
 * the payload. srdma takes a FLUSH with either ICRC, and sends rdma_rxe's
 * unless the module parameter flush_icrc_rxe is off (Documentation/
 * transport.md).
 */
#include <crypto/hash.h>
#include <kunit/visibility.h>
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "srdma_hdr.h"

/* crc32_le() of 8 bytes of 0xff, starting from all ones */
#define SRDMA_ICRC_SEED		0xdebb20e3

/* the reserved byte after the BTH's P_Key: FECN, BECN and 6 reserved bits */
#define SRDMA_BTH_RESV8_OFFSET	4

static struct crypto_shash *srdma_crc32_tfm;

/**
 * srdma_icrc_init() - find the fastest CRC-32 the kernel has
 *
 * Its name goes to the kernel log. Nothing fails: crc32_le() remains.
 */
void srdma_icrc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	if (IS_ERR(tfm)) {
		pr_info("srdma: ICRC by crc32_le() (crypto crc32: %pe)\n", tfm);
		return;
	}
	srdma_crc32_tfm = tfm;
	pr_info("srdma: ICRC by %s\n", crypto_shash_driver_name(tfm));
}

void srdma_icrc_exit(void)
{
	crypto_free_shash(srdma_crc32_tfm);
	srdma_crc32_tfm = NULL;
}

/*
 * crc32_le(@crc, @p, @len) by the crypto driver @tfm (NULL: crc32_le()
 * itself): a "crc32" keeps that very value as its state, so an update from
 * a state set to @crc computes it
 */
VISIBLE_IF_KUNIT u32 srdma_crc32_by(struct crypto_shash *tfm, u32 crc,
				    const void *p, unsigned int len)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	u32 *state = shash_desc_ctx(desc);

	if (!tfm)
		return crc32_le(crc, p, len);
	desc->tfm = tfm;
	*state = crc;
	if (crypto_shash_update(desc, p, len))
		return crc32_le(crc, p, len);
	return *state;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_crc32_by);

VISIBLE_IF_KUNIT u32 srdma_crc32(u32 crc, const void *p, unsigned int len)
{
	return srdma_crc32_by(srdma_crc32_tfm, crc, p, len);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_crc32);

#if IS_ENABLED(CONFIG_KUNIT)
/* the crypto driver srdma_crc32() uses, or NULL for crc32_le() */
const char *srdma_icrc_driver(void)
{
	return srdma_crc32_tfm ? crypto_shash_driver_name(srdma_crc32_tfm) :
				 NULL;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_icrc_driver);
#endif

static bool flush_icrc_rxe = true;
module_param(flush_icrc_rxe, bool, 0644);
MODULE_PARM_DESC(flush_icrc_rxe,
		 "Send RDMA FLUSH with rdma_rxe's ICRC (its headers counted twice), which rdma_rxe 6.2 and later checks; off: the IBTA's (default: on)");

/* the CRC of the masked IP and UDP headers and the BTH */
static u32 srdma_icrc_headers(const void *l3, bool ipv6,
			      const struct srdma_bth *bth)
{
	u8 pseudo[sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
		  SRDMA_BTH_BYTES];
	unsigned int l3_bytes = ipv6 ? sizeof(struct ipv6hdr) :
				       sizeof(struct iphdr);
	struct udphdr *udph = (struct udphdr *)(pseudo + l3_bytes);

	memcpy(pseudo, l3, l3_bytes + sizeof(*udph));
	memcpy(udph + 1, bth, SRDMA_BTH_BYTES);
	if (ipv6) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)pseudo;

		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	} else {
		struct iphdr *iph = (struct iphdr *)pseudo;

		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = CSUM_MANGLED_0;
	}
	udph->check = CSUM_MANGLED_0;
	((u8 *)(udph + 1))[SRDMA_BTH_RESV8_OFFSET] = 0xff;

	return srdma_crc32(SRDMA_ICRC_SEED, pseudo,
			   l3_bytes + sizeof(*udph) + SRDMA_BTH_BYTES);
}

/* the CRC of an ICRC before its inversion */
static u32 srdma_icrc_crc(const void *l3, bool ipv6,
			  const struct srdma_bth *bth, unsigned int bytes)
{
	return srdma_crc32(srdma_icrc_headers(l3, ipv6, bth),
			   (const u8 *)bth + SRDMA_BTH_BYTES,
			   bytes - SRDMA_BTH_BYTES);
}

/**
 * srdma_icrc() - compute the ICRC of a RoCEv2 packet
 * @l3: the IPv4 header (20 bytes, no options) or IPv6 header, followed by
 *      the UDP header
 * @ipv6: which of the two @l3 is
 * @bth: the BTH; the transport headers and padded payload follow it
 * @bytes: from the start of the BTH to the end of the padding
 *
 * Return: the value to put on the wire little-endian (already inverted).
 */
u32 srdma_icrc(const void *l3, bool ipv6, const struct srdma_bth *bth,
	       unsigned int bytes)
{
	return ~srdma_icrc_crc(l3, ipv6, bth, bytes);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_icrc);

/* srdma_icrc() as rdma_rxe computes it for a FLUSH (above) */
u32 srdma_icrc_rxe_flush(const void *l3, bool ipv6,
			 const struct srdma_bth *bth, unsigned int bytes)
{
	return ~srdma_crc32(srdma_icrc_crc(l3, ipv6, bth, bytes), bth, bytes);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_icrc_rxe_flush);

/* the ICRC srdma sends on a packet: srdma_icrc() but for a FLUSH */
u32 srdma_icrc_tx(const void *l3, bool ipv6, const struct srdma_bth *bth,
		  unsigned int bytes)
{
	if (bth->opcode == IB_OPCODE_RC_FLUSH && READ_ONCE(flush_icrc_rxe))
		return srdma_icrc_rxe_flush(l3, ipv6, bth, bytes);
	return srdma_icrc(l3, ipv6, bth, bytes);
}

/**
 * srdma_icrc_skb() - srdma_icrc() of a packet whose payload may lie in
 * page fragments: read where it lies, piece by piece
 * @skb: the packet, its network header set, the IP and UDP headers and the
 *       transport headers in the linear part; its last 4 bytes the ICRC's
 * @bth_offset: where the BTH is, from skb->data
 * @ipv6: whether the network header is IPv6
 *
 * Return: the value to put on the wire little-endian (already inverted).
 */
u32 srdma_icrc_skb(struct sk_buff *skb, unsigned int bth_offset, bool ipv6)
{
	unsigned int end = skb->len - SRDMA_ICRC_BYTES, consumed = 0, n;
	struct skb_seq_state st;
	const u8 *data;
	u32 crc;

	crc = srdma_icrc_headers(skb_network_header(skb), ipv6,
				 (const struct srdma_bth *)(skb->data +
							    bth_offset));
	skb_prepare_seq_read(skb, bth_offset + SRDMA_BTH_BYTES, end, &st);
	while ((n = skb_seq_read(consumed, &data, &st))) {
		/* a piece may go on past the end asked for: the ICRC */
		n = min(n, end - bth_offset - SRDMA_BTH_BYTES - consumed);
		crc = srdma_crc32(crc, data, n);
		consumed += n;
	}
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_icrc_skb);

/**
 * srdma_icrc_skb_ok() - whether a received packet's ICRC is one srdma
 * takes: the IBTA's, or on a FLUSH rdma_rxe's
 * @skb: skb->data at the BTH, the transport headers in the linear part,
 *       the IP and UDP headers before it
 * @ipv6: whether the network header is IPv6
 */
bool srdma_icrc_skb_ok(struct sk_buff *skb, bool ipv6)
{
	const struct srdma_bth *bth = (const struct srdma_bth *)skb->data;
	unsigned int bytes = skb->len - SRDMA_ICRC_BYTES;
	__le32 wire;

	if (skb_copy_bits(skb, bytes, &wire, sizeof(wire)))
		return false;
	if (le32_to_cpu(wire) == srdma_icrc_skb(skb, 0, ipv6))
		return true;
	/* rdma_rxe's FLUSH: no payload, all of it in the linear part */
	return bth->opcode == IB_OPCODE_RC_FLUSH && skb_headlen(skb) >= bytes &&
	       le32_to_cpu(wire) == srdma_icrc_rxe_flush(skb_network_header(skb),
							 ipv6, bth, bytes);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_icrc_skb_ok);
