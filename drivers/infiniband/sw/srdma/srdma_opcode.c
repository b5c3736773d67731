// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The transport opcodes srdma sends and accepts (IBTA 9.2), and where their
 * extension headers are.
 */
#include <kunit/visibility.h>

#include "srdma_hdr.h"

#define HDR_BYTES(f)							\
	(SRDMA_BTH_BYTES +						\
	 ((f) & SRDMA_OP_DETH ? SRDMA_DETH_BYTES : 0) +			\
	 ((f) & SRDMA_OP_RETH ? SRDMA_RETH_BYTES : 0) +			\
	 ((f) & SRDMA_OP_ATMETH ? SRDMA_ATMETH_BYTES : 0) +		\
	 ((f) & SRDMA_OP_AETH ? SRDMA_AETH_BYTES : 0) +			\
	 ((f) & SRDMA_OP_ATMACK ? SRDMA_ATMACK_BYTES : 0) +		\
	 ((f) & SRDMA_OP_IMMDT ? SRDMA_IMMDT_BYTES : 0) +		\
	 ((f) & SRDMA_OP_IETH ? SRDMA_IETH_BYTES : 0))

#define OP(_transport, _op, _flags)					\
	[IB_OPCODE_##_transport##_##_op] = {				\
		.name = #_transport "_" #_op,				\
		.flags = (_flags),					\
		.hdr_bytes = HDR_BYTES(_flags),				\
	}

#define REQ_SEND	(SRDMA_OP_REQ | SRDMA_OP_SEND | SRDMA_OP_PAYLOAD)
#define REQ_WRITE	(SRDMA_OP_REQ | SRDMA_OP_WRITE | SRDMA_OP_PAYLOAD)
#define READ_RESP	(SRDMA_OP_READ | SRDMA_OP_PAYLOAD)

/* SEND and RDMA WRITE, the same for RC and UC */
#define SEND_WRITE_OPS(t)						\
	OP(t, SEND_FIRST, REQ_SEND | SRDMA_OP_FIRST),			\
	OP(t, SEND_MIDDLE, REQ_SEND | SRDMA_OP_MIDDLE),			\
	OP(t, SEND_LAST, REQ_SEND | SRDMA_OP_LAST),			\
	OP(t, SEND_LAST_WITH_IMMEDIATE,					\
	   REQ_SEND | SRDMA_OP_LAST | SRDMA_OP_IMMDT),			\
	OP(t, SEND_ONLY, REQ_SEND | SRDMA_OP_ONLY),			\
	OP(t, SEND_ONLY_WITH_IMMEDIATE,					\
	   REQ_SEND | SRDMA_OP_ONLY | SRDMA_OP_IMMDT),			\
	OP(t, RDMA_WRITE_FIRST,						\
	   REQ_WRITE | SRDMA_OP_FIRST | SRDMA_OP_RETH),			\
	OP(t, RDMA_WRITE_MIDDLE, REQ_WRITE | SRDMA_OP_MIDDLE),		\
	OP(t, RDMA_WRITE_LAST, REQ_WRITE | SRDMA_OP_LAST),		\
	OP(t, RDMA_WRITE_LAST_WITH_IMMEDIATE,				\
	   REQ_WRITE | SRDMA_OP_LAST | SRDMA_OP_IMMDT),			\
	OP(t, RDMA_WRITE_ONLY,						\
	   REQ_WRITE | SRDMA_OP_ONLY | SRDMA_OP_RETH),			\
	OP(t, RDMA_WRITE_ONLY_WITH_IMMEDIATE,				\
	   REQ_WRITE | SRDMA_OP_ONLY | SRDMA_OP_RETH | SRDMA_OP_IMMDT)

const struct srdma_opcode_info srdma_opcodes[256] = {
	SEND_WRITE_OPS(RC),
	OP(RC, RDMA_READ_REQUEST,
	   SRDMA_OP_REQ | SRDMA_OP_READ | SRDMA_OP_ONLY | SRDMA_OP_RETH),
	OP(RC, RDMA_READ_RESPONSE_FIRST,
	   READ_RESP | SRDMA_OP_FIRST | SRDMA_OP_AETH),
	OP(RC, RDMA_READ_RESPONSE_MIDDLE, READ_RESP | SRDMA_OP_MIDDLE),
	OP(RC, RDMA_READ_RESPONSE_LAST,
	   READ_RESP | SRDMA_OP_LAST | SRDMA_OP_AETH),
	OP(RC, RDMA_READ_RESPONSE_ONLY,
	   READ_RESP | SRDMA_OP_ONLY | SRDMA_OP_AETH),
	OP(RC, ACKNOWLEDGE, SRDMA_OP_ACK | SRDMA_OP_ONLY | SRDMA_OP_AETH),
	OP(RC, ATOMIC_ACKNOWLEDGE,
	   SRDMA_OP_ATOMIC | SRDMA_OP_ONLY | SRDMA_OP_AETH | SRDMA_OP_ATMACK),
	OP(RC, COMPARE_SWAP,
	   SRDMA_OP_REQ | SRDMA_OP_ATOMIC | SRDMA_OP_ONLY | SRDMA_OP_ATMETH),
	OP(RC, FETCH_ADD,
	   SRDMA_OP_REQ | SRDMA_OP_ATOMIC | SRDMA_OP_ONLY | SRDMA_OP_ATMETH),
	OP(RC, SEND_LAST_WITH_INVALIDATE,
	   REQ_SEND | SRDMA_OP_LAST | SRDMA_OP_IETH),
	OP(RC, SEND_ONLY_WITH_INVALIDATE,
	   REQ_SEND | SRDMA_OP_ONLY | SRDMA_OP_IETH),

	SEND_WRITE_OPS(UC),

	OP(UD, SEND_ONLY, REQ_SEND | SRDMA_OP_ONLY | SRDMA_OP_DETH),
	OP(UD, SEND_ONLY_WITH_IMMEDIATE,
	   REQ_SEND | SRDMA_OP_ONLY | SRDMA_OP_DETH | SRDMA_OP_IMMDT),
};
EXPORT_SYMBOL_IF_KUNIT(srdma_opcodes);

/* the size of extension header @which */
static unsigned int srdma_ext_bytes(u32 which)
{
	switch (which) {
	case SRDMA_OP_DETH:
		return SRDMA_DETH_BYTES;
	case SRDMA_OP_RETH:
		return SRDMA_RETH_BYTES;
	case SRDMA_OP_ATMETH:
		return SRDMA_ATMETH_BYTES;
	case SRDMA_OP_AETH:
		return SRDMA_AETH_BYTES;
	case SRDMA_OP_ATMACK:
		return SRDMA_ATMACK_BYTES;
	case SRDMA_OP_IMMDT:
		return SRDMA_IMMDT_BYTES;
	case SRDMA_OP_IETH:
		return SRDMA_IETH_BYTES;
	default:
		return 0;
	}
}

/**
 * srdma_op_hdr_offset() - where an extension header of an opcode starts
 * @opcode: the BTH opcode
 * @which: one of SRDMA_OP_DETH .. SRDMA_OP_IETH; the opcode must carry it
 *
 * The headers present come in the order of their bits, after the BTH.
 *
 * Return: offset from the start of the BTH.
 */
unsigned int srdma_op_hdr_offset(u8 opcode, u32 which)
{
	u32 before = srdma_op_flags(opcode) & SRDMA_OP_HEADERS & (which - 1);
	unsigned int offset = SRDMA_BTH_BYTES;

	while (before) {
		offset += srdma_ext_bytes(before & -before);
		before &= before - 1;
	}
	return offset;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_op_hdr_offset);
