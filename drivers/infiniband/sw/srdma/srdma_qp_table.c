// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The QP state transition table (IBTA vol. 1, chapter 11, "Modify QP"; the
 * ibv_modify_qp(3) tables), one block per QP type.
 *
 * Transitions are the same for every type: RESET->INIT, INIT->INIT,
 * INIT->RTR, RTR->RTS, RTS->RTS, RTS->SQD, SQD->SQD, SQD->RTS, SQE->RTS,
 * and any state but RESET to RESET or ERR (RESET->RESET too). What differs
 * is the attributes each one requires and allows.
 *
 * It agrees with ib_core's ib_modify_qp_is_ok() except on purpose:
 * IB_QP_RATE_LIMIT is allowed for every QP type wherever a QP may enter or
 * stay in RTS or SQD with new path attributes (RTR->RTS, RTS->RTS, SQD->SQD,
 * SQD->RTS, SQE->RTS), where ib_core allows it only for raw packet QPs on
 * RTR->RTS and RTS->RTS. Documentation/qp-state-machine.md lists this.
 */
#include <kunit/visibility.h>
#include <linux/log2.h>

#include "srdma_qp_table.h"

#define T(_req, _opt)	{ .valid = true, .req = (_req), .opt = (_opt) }
#define TO_RESET_OR_ERR \
	[IB_QPS_RESET] = T(0, 0), [IB_QPS_ERR] = T(0, 0)

#define RL		IB_QP_RATE_LIMIT

/* attribute sets that several types share */
#define CONNECTED_INIT	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
#define CONNECTED_RTR	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
			 IB_QP_RQ_PSN)
#define RESPONDER_RTR	(IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define CONNECTED_RTR_OPT (IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | \
			 IB_QP_PKEY_INDEX)
#define REQUESTER_RTS	(IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
			 IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC)
#define CONNECTED_RTS_OPT (IB_QP_CUR_STATE | IB_QP_ALT_PATH | \
			 IB_QP_ACCESS_FLAGS | IB_QP_PATH_MIG_STATE)
#define CONNECTED_SQD_OPT (IB_QP_AV | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | \
			 IB_QP_PKEY_INDEX | IB_QP_PATH_MIG_STATE)
#define DATAGRAM_OPT	(IB_QP_PKEY_INDEX | IB_QP_QKEY)
#define DATAGRAM_RTS_OPT (IB_QP_CUR_STATE | IB_QP_QKEY)

/* the special QPs (SMI, GSI) have no port attribute: bound at creation */
#define SPECIAL_QP_TRANSITIONS						\
{									\
	[IB_QPS_RESET] = {						\
		[IB_QPS_RESET] = T(0, 0),				\
		[IB_QPS_INIT] = T(DATAGRAM_OPT, 0),			\
	},								\
	[IB_QPS_INIT] = {						\
		TO_RESET_OR_ERR,					\
		[IB_QPS_INIT] = T(0, DATAGRAM_OPT),			\
		[IB_QPS_RTR] = T(0, DATAGRAM_OPT),			\
	},								\
	[IB_QPS_RTR] = {						\
		TO_RESET_OR_ERR,					\
		[IB_QPS_RTS] = T(IB_QP_SQ_PSN, DATAGRAM_RTS_OPT | RL),	\
	},								\
	[IB_QPS_RTS] = {						\
		TO_RESET_OR_ERR,					\
		[IB_QPS_RTS] = T(0, DATAGRAM_RTS_OPT | RL),		\
		[IB_QPS_SQD] = T(0, IB_QP_EN_SQD_ASYNC_NOTIFY),		\
	},								\
	[IB_QPS_SQD] = {						\
		TO_RESET_OR_ERR,					\
		[IB_QPS_RTS] = T(0, DATAGRAM_RTS_OPT | RL),		\
		[IB_QPS_SQD] = T(0, DATAGRAM_OPT | RL),			\
	},								\
	[IB_QPS_SQE] = {						\
		TO_RESET_OR_ERR,					\
		[IB_QPS_RTS] = T(0, DATAGRAM_RTS_OPT | RL),		\
	},								\
	[IB_QPS_ERR] = { TO_RESET_OR_ERR },				\
}

const struct srdma_qp_transition
srdma_qp_table[IB_QPT_MAX][SRDMA_QPS_COUNT][SRDMA_QPS_COUNT] = {
	[IB_QPT_RC] = {
		[IB_QPS_RESET] = {
			[IB_QPS_RESET] = T(0, 0),
			[IB_QPS_INIT] = T(CONNECTED_INIT, 0),
		},
		[IB_QPS_INIT] = {
			TO_RESET_OR_ERR,
			[IB_QPS_INIT] = T(0, CONNECTED_INIT),
			[IB_QPS_RTR] = T(CONNECTED_RTR | RESPONDER_RTR,
					 CONNECTED_RTR_OPT),
		},
		[IB_QPS_RTR] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(REQUESTER_RTS, CONNECTED_RTS_OPT |
					 IB_QP_MIN_RNR_TIMER | RL),
		},
		[IB_QPS_RTS] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, CONNECTED_RTS_OPT |
					 IB_QP_MIN_RNR_TIMER | RL),
			[IB_QPS_SQD] = T(0, IB_QP_EN_SQD_ASYNC_NOTIFY),
		},
		[IB_QPS_SQD] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, CONNECTED_RTS_OPT |
					 IB_QP_MIN_RNR_TIMER | RL),
			[IB_QPS_SQD] = T(0, CONNECTED_SQD_OPT | IB_QP_PORT |
					 (REQUESTER_RTS & ~IB_QP_SQ_PSN) |
					 RESPONDER_RTR | RL),
		},
		[IB_QPS_SQE] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, RL),
		},
		[IB_QPS_ERR] = { TO_RESET_OR_ERR },
	},
	[IB_QPT_UC] = {
		[IB_QPS_RESET] = {
			[IB_QPS_RESET] = T(0, 0),
			[IB_QPS_INIT] = T(CONNECTED_INIT, 0),
		},
		[IB_QPS_INIT] = {
			TO_RESET_OR_ERR,
			[IB_QPS_INIT] = T(0, CONNECTED_INIT),
			[IB_QPS_RTR] = T(CONNECTED_RTR, CONNECTED_RTR_OPT),
		},
		[IB_QPS_RTR] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(IB_QP_SQ_PSN, CONNECTED_RTS_OPT | RL),
		},
		[IB_QPS_RTS] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, CONNECTED_RTS_OPT | RL),
			[IB_QPS_SQD] = T(0, IB_QP_EN_SQD_ASYNC_NOTIFY),
		},
		[IB_QPS_SQD] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, CONNECTED_RTS_OPT | RL),
			[IB_QPS_SQD] = T(0, CONNECTED_SQD_OPT | RL),
		},
		[IB_QPS_SQE] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS |
					 RL),
		},
		[IB_QPS_ERR] = { TO_RESET_OR_ERR },
	},
	[IB_QPT_UD] = {
		[IB_QPS_RESET] = {
			[IB_QPS_RESET] = T(0, 0),
			[IB_QPS_INIT] = T(DATAGRAM_OPT | IB_QP_PORT, 0),
		},
		[IB_QPS_INIT] = {
			TO_RESET_OR_ERR,
			[IB_QPS_INIT] = T(0, DATAGRAM_OPT | IB_QP_PORT),
			[IB_QPS_RTR] = T(0, DATAGRAM_OPT),
		},
		[IB_QPS_RTR] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(IB_QP_SQ_PSN, DATAGRAM_RTS_OPT | RL),
		},
		[IB_QPS_RTS] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, DATAGRAM_RTS_OPT | RL),
			[IB_QPS_SQD] = T(0, IB_QP_EN_SQD_ASYNC_NOTIFY),
		},
		[IB_QPS_SQD] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, DATAGRAM_RTS_OPT | RL),
			[IB_QPS_SQD] = T(0, DATAGRAM_OPT | RL),
		},
		[IB_QPS_SQE] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, DATAGRAM_RTS_OPT | RL),
		},
		[IB_QPS_ERR] = { TO_RESET_OR_ERR },
	},
	[IB_QPT_SMI] = SPECIAL_QP_TRANSITIONS,
	[IB_QPT_GSI] = SPECIAL_QP_TRANSITIONS,
	/* a raw packet QP has no transport state: a port, and a rate */
	[IB_QPT_RAW_PACKET] = {
		[IB_QPS_RESET] = {
			[IB_QPS_RESET] = T(0, 0),
			[IB_QPS_INIT] = T(IB_QP_PORT, 0),
		},
		[IB_QPS_INIT] = {
			TO_RESET_OR_ERR,
			[IB_QPS_INIT] = T(0, 0),
			[IB_QPS_RTR] = T(0, 0),
		},
		[IB_QPS_RTR] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, RL),
		},
		[IB_QPS_RTS] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, RL),
			[IB_QPS_SQD] = T(0, 0),
		},
		[IB_QPS_SQD] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, RL),
			[IB_QPS_SQD] = T(0, RL),
		},
		[IB_QPS_SQE] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, RL),
		},
		[IB_QPS_ERR] = { TO_RESET_OR_ERR },
	},
	/* XRC initiator: the requester half of RC */
	[IB_QPT_XRC_INI] = {
		[IB_QPS_RESET] = {
			[IB_QPS_RESET] = T(0, 0),
			[IB_QPS_INIT] = T(CONNECTED_INIT, 0),
		},
		[IB_QPS_INIT] = {
			TO_RESET_OR_ERR,
			[IB_QPS_INIT] = T(0, CONNECTED_INIT),
			[IB_QPS_RTR] = T(CONNECTED_RTR, CONNECTED_RTR_OPT),
		},
		[IB_QPS_RTR] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(REQUESTER_RTS, CONNECTED_RTS_OPT | RL),
		},
		[IB_QPS_RTS] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, CONNECTED_RTS_OPT | RL),
			[IB_QPS_SQD] = T(0, IB_QP_EN_SQD_ASYNC_NOTIFY),
		},
		[IB_QPS_SQD] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, CONNECTED_RTS_OPT | RL),
			[IB_QPS_SQD] = T(0, CONNECTED_SQD_OPT | IB_QP_PORT |
					 (REQUESTER_RTS & ~IB_QP_SQ_PSN) | RL),
		},
		[IB_QPS_SQE] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, RL),
		},
		[IB_QPS_ERR] = { TO_RESET_OR_ERR },
	},
	/* XRC target: the responder half of RC, which still times out ACKs */
	[IB_QPT_XRC_TGT] = {
		[IB_QPS_RESET] = {
			[IB_QPS_RESET] = T(0, 0),
			[IB_QPS_INIT] = T(CONNECTED_INIT, 0),
		},
		[IB_QPS_INIT] = {
			TO_RESET_OR_ERR,
			[IB_QPS_INIT] = T(0, CONNECTED_INIT),
			[IB_QPS_RTR] = T(CONNECTED_RTR | RESPONDER_RTR,
					 CONNECTED_RTR_OPT),
		},
		[IB_QPS_RTR] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(IB_QP_TIMEOUT | IB_QP_SQ_PSN,
					 CONNECTED_RTS_OPT |
					 IB_QP_MIN_RNR_TIMER | RL),
		},
		[IB_QPS_RTS] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, CONNECTED_RTS_OPT |
					 IB_QP_MIN_RNR_TIMER | RL),
			[IB_QPS_SQD] = T(0, IB_QP_EN_SQD_ASYNC_NOTIFY),
		},
		[IB_QPS_SQD] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, CONNECTED_RTS_OPT |
					 IB_QP_MIN_RNR_TIMER | RL),
			[IB_QPS_SQD] = T(0, CONNECTED_SQD_OPT | IB_QP_PORT |
					 IB_QP_TIMEOUT | RESPONDER_RTR | RL),
		},
		[IB_QPS_SQE] = {
			TO_RESET_OR_ERR,
			[IB_QPS_RTS] = T(0, RL),
		},
		[IB_QPS_ERR] = { TO_RESET_OR_ERR },
	},
};
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_table);

const char *const srdma_qp_state_names[SRDMA_QPS_COUNT] = {
	[IB_QPS_RESET] = "RESET",
	[IB_QPS_INIT] = "INIT",
	[IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS",
	[IB_QPS_SQD] = "SQD",
	[IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_state_names);

const char *const srdma_qp_attr_names[SRDMA_QP_ATTR_BITS] = {
	[ilog2(IB_QP_STATE)] = "qp_state",
	[ilog2(IB_QP_CUR_STATE)] = "cur_qp_state",
	[ilog2(IB_QP_EN_SQD_ASYNC_NOTIFY)] = "en_sqd_async_notify",
	[ilog2(IB_QP_ACCESS_FLAGS)] = "qp_access_flags",
	[ilog2(IB_QP_PKEY_INDEX)] = "pkey_index",
	[ilog2(IB_QP_PORT)] = "port_num",
	[ilog2(IB_QP_QKEY)] = "qkey",
	[ilog2(IB_QP_AV)] = "ah_attr",
	[ilog2(IB_QP_PATH_MTU)] = "path_mtu",
	[ilog2(IB_QP_TIMEOUT)] = "timeout",
	[ilog2(IB_QP_RETRY_CNT)] = "retry_cnt",
	[ilog2(IB_QP_RNR_RETRY)] = "rnr_retry",
	[ilog2(IB_QP_RQ_PSN)] = "rq_psn",
	[ilog2(IB_QP_MAX_QP_RD_ATOMIC)] = "max_rd_atomic",
	[ilog2(IB_QP_ALT_PATH)] = "alt_path",
	[ilog2(IB_QP_MIN_RNR_TIMER)] = "min_rnr_timer",
	[ilog2(IB_QP_SQ_PSN)] = "sq_psn",
	[ilog2(IB_QP_MAX_DEST_RD_ATOMIC)] = "max_dest_rd_atomic",
	[ilog2(IB_QP_PATH_MIG_STATE)] = "path_mig_state",
	[ilog2(IB_QP_CAP)] = "cap",
	[ilog2(IB_QP_DEST_QPN)] = "dest_qp_num",
	[ilog2(IB_QP_RESERVED1)] = "reserved1",
	[ilog2(IB_QP_RESERVED2)] = "reserved2",
	[ilog2(IB_QP_RESERVED3)] = "reserved3",
	[ilog2(IB_QP_RESERVED4)] = "reserved4",
	[ilog2(IB_QP_RATE_LIMIT)] = "rate_limit",
};
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_attr_names);

/**
 * srdma_qp_attr_name() - name of the lowest attribute in a mask
 * @bits: attribute mask bits, not 0
 *
 * Return: the attribute's name in struct ib_qp_attr terms.
 */
const char *srdma_qp_attr_name(u32 bits)
{
	unsigned int bit = __ffs(bits);

	return bit < SRDMA_QP_ATTR_BITS ? srdma_qp_attr_names[bit] : "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_attr_name);

/**
 * srdma_qp_check_mask() - is a modify_qp attribute mask allowed
 * @type: the QP type
 * @cur: its current state
 * @next: the state asked for (@cur when the mask has no IB_QP_STATE)
 * @mask: enum ib_qp_attr_mask bits given
 * @bad_bits: set to the missing or unexpected attribute bits
 *
 * Return: SRDMA_QP_OK or why not.
 */
enum srdma_qp_verdict srdma_qp_check_mask(enum ib_qp_type type,
					  enum ib_qp_state cur,
					  enum ib_qp_state next, u32 mask,
					  u32 *bad_bits)
{
	const struct srdma_qp_transition *t;

	*bad_bits = 0;
	if ((unsigned int)type >= IB_QPT_MAX)
		return SRDMA_QP_BAD_TYPE;
	if ((unsigned int)cur >= SRDMA_QPS_COUNT ||
	    (unsigned int)next >= SRDMA_QPS_COUNT)
		return SRDMA_QP_BAD_STATE;
	/* a type without a single transition has no table */
	if (!srdma_qp_table[type][IB_QPS_RESET][IB_QPS_RESET].valid)
		return SRDMA_QP_BAD_TYPE;

	t = &srdma_qp_table[type][cur][next];
	if (!t->valid)
		return SRDMA_QP_BAD_TRANSITION;
	*bad_bits = t->req & ~mask;
	if (*bad_bits)
		return SRDMA_QP_MISSING_ATTR;
	*bad_bits = mask & ~(t->req | t->opt | IB_QP_STATE);
	if (*bad_bits)
		return SRDMA_QP_EXTRA_ATTR;
	return SRDMA_QP_OK;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_qp_check_mask);
