/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The InfiniBand transport headers srdma puts in RoCEv2 packets (IBTA 9.2
 * and Annex A17): BTH, then the extension headers an opcode carries, the
 * payload padded to 4 bytes, and the 4-byte ICRC.
 *
 * The opcode table says which headers each opcode carries; the offsets of
 * the extension headers follow from it, in the IBTA order: DETH, FETH,
 * RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
 */
#ifndef SRDMA_HDR_H
#define SRDMA_HDR_H

#include <linux/bits.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include <rdma/ib_pack.h>

#include "srdma_compat.h"

#define SRDMA_BTH_BYTES		12
#define SRDMA_DETH_BYTES	8
#define SRDMA_FETH_BYTES	4
#define SRDMA_RETH_BYTES	16
#define SRDMA_ATMETH_BYTES	28
#define SRDMA_AETH_BYTES	4
#define SRDMA_ATMACK_BYTES	8
#define SRDMA_IMMDT_BYTES	4
#define SRDMA_IETH_BYTES	4
#define SRDMA_ICRC_BYTES	4

/* BTH byte 1: solicited event, migration request, pad count, version */
#define SRDMA_BTH_SE		BIT(7)
#define SRDMA_BTH_MIG		BIT(6)
#define SRDMA_BTH_PAD_SHIFT	4
#define SRDMA_BTH_PAD_MASK	0x3
#define SRDMA_BTH_TVER_MASK	0xf
/* BTH word 2: FECN, BECN, reserved, destination QP; word 3: AckReq, PSN */
#define SRDMA_BTH_QPN_MASK	0xffffff
#define SRDMA_BTH_ACKREQ	BIT(31)
#define SRDMA_BTH_PSN_MASK	0xffffff
#define SRDMA_PKEY_DEFAULT	0xffff
#define SRDMA_PKEY_MEMBER	0x8000

/* AETH syndrome: 3 bits of type, 5 bits of value; 24 bits of MSN */
#define SRDMA_AETH_TYPE_SHIFT	5
#define SRDMA_AETH_VALUE_MASK	0x1f
#define SRDMA_AETH_MSN_MASK	0xffffff
#define SRDMA_AETH_CREDITS_NONE	0x1f	/* no end-to-end credits offered */

enum srdma_aeth_type {
	SRDMA_AETH_ACK = 0,
	SRDMA_AETH_RNR_NAK = 1,
	SRDMA_AETH_NAK = 3,
};

enum srdma_nak_code {
	SRDMA_NAK_PSN_SEQ = 0,
	SRDMA_NAK_INVALID_REQUEST = 1,
	SRDMA_NAK_REMOTE_ACCESS = 2,
	SRDMA_NAK_REMOTE_OP = 3,
};

struct srdma_bth {
	u8 opcode;
	u8 flags;
	__be16 pkey;
	__be32 qpn;
	__be32 apsn;
} __packed;

struct srdma_deth {
	__be32 qkey;
	__be32 sqp;
} __packed;

/* FLUSH extended transport header (IBTA 1.5, annex A19) */
struct srdma_feth {
	__be32 bits;
} __packed;

#define SRDMA_FETH_PLT_MASK	0xf	/* placement type: IB_FLUSH_GLOBAL ... */
#define SRDMA_FETH_SEL_SHIFT	4	/* selectivity level: IB_FLUSH_RANGE, _MR */
#define SRDMA_FETH_SEL_MASK	0x3

struct srdma_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

struct srdma_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __packed;

struct srdma_aeth {
	__be32 smsn;
} __packed;

struct srdma_atmack {
	__be64 orig;
} __packed;

/* what an opcode is and carries (enum srdma_op_flags) */
enum srdma_op_flags {
	SRDMA_OP_DETH = BIT(0),
	SRDMA_OP_FETH = BIT(1),
	SRDMA_OP_RETH = BIT(2),
	SRDMA_OP_ATMETH = BIT(3),
	SRDMA_OP_AETH = BIT(4),
	SRDMA_OP_ATMACK = BIT(5),
	SRDMA_OP_IMMDT = BIT(6),
	SRDMA_OP_IETH = BIT(7),
	SRDMA_OP_PAYLOAD = BIT(8),
	SRDMA_OP_REQ = BIT(9),		/* from requester to responder */
	SRDMA_OP_SEND = BIT(10),
	SRDMA_OP_WRITE = BIT(11),
	SRDMA_OP_READ = BIT(12),	/* read request or read response */
	SRDMA_OP_ATOMIC = BIT(13),	/* atomic request or atomic ACK */
	SRDMA_OP_ACK = BIT(14),		/* ACK or NAK */
	SRDMA_OP_FIRST = BIT(15),
	SRDMA_OP_MIDDLE = BIT(16),
	SRDMA_OP_LAST = BIT(17),	/* ONLY is FIRST | LAST */
	SRDMA_OP_ATOMIC_WRITE = BIT(18),	/* 8 bytes placed atomically */
	SRDMA_OP_FLUSH = BIT(19),	/* placed bytes made visible */
};

#define SRDMA_OP_ONLY		(SRDMA_OP_FIRST | SRDMA_OP_LAST)
/* the extension headers, in the order they follow the BTH */
#define SRDMA_OP_HEADERS	(SRDMA_OP_DETH | SRDMA_OP_FETH | \
				 SRDMA_OP_RETH | SRDMA_OP_ATMETH | \
				 SRDMA_OP_AETH | SRDMA_OP_ATMACK | \
				 SRDMA_OP_IMMDT | SRDMA_OP_IETH)

/**
 * struct srdma_opcode_info - one transport opcode
 * @name: for debug messages and tracepoints
 * @flags: enum srdma_op_flags; 0 for an opcode srdma does not know
 */
struct srdma_opcode_info {
	const char *name;
	u32 flags;
};

extern const struct srdma_opcode_info srdma_opcodes[256];

static inline u32 srdma_op_flags(u8 opcode)
{
	return srdma_opcodes[opcode].flags;
}

/* offset from the BTH of extension header @which (one SRDMA_OP_* bit) */
unsigned int srdma_op_hdr_offset(u8 opcode, u32 which);

/* bytes of the BTH and the extension headers: where the payload starts */
static inline unsigned int srdma_op_hdr_bytes(u8 opcode)
{
	return srdma_op_hdr_offset(opcode, SRDMA_OP_PAYLOAD);
}

static inline void *srdma_hdr(struct srdma_bth *bth, u32 which)
{
	return (u8 *)bth + srdma_op_hdr_offset(bth->opcode, which);
}

/* the transport of an opcode: IB_OPCODE_RC, _UC or _UD */
static inline u8 srdma_op_transport(u8 opcode)
{
	return opcode & 0xe0;
}

static inline void srdma_bth_init(struct srdma_bth *bth, u8 opcode, bool se,
				  unsigned int pad, u32 dest_qpn, bool ackreq,
				  u32 psn)
{
	bth->opcode = opcode;
	bth->flags = (se ? SRDMA_BTH_SE : 0) |
		     (pad & SRDMA_BTH_PAD_MASK) << SRDMA_BTH_PAD_SHIFT;
	bth->pkey = cpu_to_be16(SRDMA_PKEY_DEFAULT);
	bth->qpn = cpu_to_be32(dest_qpn & SRDMA_BTH_QPN_MASK);
	bth->apsn = cpu_to_be32((ackreq ? SRDMA_BTH_ACKREQ : 0) |
				(psn & SRDMA_BTH_PSN_MASK));
}

static inline bool srdma_bth_se(const struct srdma_bth *bth)
{
	return bth->flags & SRDMA_BTH_SE;
}

static inline unsigned int srdma_bth_pad(const struct srdma_bth *bth)
{
	return (bth->flags >> SRDMA_BTH_PAD_SHIFT) & SRDMA_BTH_PAD_MASK;
}

static inline unsigned int srdma_bth_tver(const struct srdma_bth *bth)
{
	return bth->flags & SRDMA_BTH_TVER_MASK;
}

static inline u32 srdma_bth_qpn(const struct srdma_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SRDMA_BTH_QPN_MASK;
}

static inline bool srdma_bth_ackreq(const struct srdma_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SRDMA_BTH_ACKREQ;
}

static inline u32 srdma_bth_psn(const struct srdma_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SRDMA_BTH_PSN_MASK;
}

static inline __be32 srdma_aeth_make(enum srdma_aeth_type type, u8 value,
				     u32 msn)
{
	return cpu_to_be32((u32)(type << SRDMA_AETH_TYPE_SHIFT |
				 (value & SRDMA_AETH_VALUE_MASK)) << 24 |
			   (msn & SRDMA_AETH_MSN_MASK));
}

static inline enum srdma_aeth_type srdma_aeth_type(__be32 smsn)
{
	return be32_to_cpu(smsn) >> (24 + SRDMA_AETH_TYPE_SHIFT);
}

static inline u8 srdma_aeth_value(__be32 smsn)
{
	return (be32_to_cpu(smsn) >> 24) & SRDMA_AETH_VALUE_MASK;
}

/* bytes of padding that bring @payload_bytes to a multiple of 4 */
static inline unsigned int srdma_pad_bytes(u32 payload_bytes)
{
	return -payload_bytes & 3;
}

/* srdma_icrc.c */
void srdma_icrc_init(void);
void srdma_icrc_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
struct crypto_shash;
u32 srdma_crc32_by(struct crypto_shash *tfm, u32 crc, const void *p,
		   unsigned int len);
u32 srdma_crc32(u32 crc, const void *p, unsigned int len);
const char *srdma_icrc_driver(void);
#endif
/* the ICRC over a packet whose L3 header starts at @l3 */
u32 srdma_icrc(const void *l3, bool ipv6, const struct srdma_bth *bth,
	       unsigned int bytes_after_bth_start);
u32 srdma_icrc_rxe_flush(const void *l3, bool ipv6,
			 const struct srdma_bth *bth, unsigned int bytes);
u32 srdma_icrc_tx(const void *l3, bool ipv6, const struct srdma_bth *bth,
		  unsigned int bytes);
struct sk_buff;
u32 srdma_icrc_skb(struct sk_buff *skb, unsigned int bth_offset, bool ipv6);
bool srdma_icrc_skb_ok(struct sk_buff *skb, bool ipv6);

#endif /* SRDMA_HDR_H */
