/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The IBTA QP state transitions as data: for each QP type, current and next
 * state, whether the transition exists and which attributes it requires and
 * allows. srdma_qp.c enforces it; the KUnit suite walks all of it.
 */
#ifndef SRDMA_QP_TABLE_H
#define SRDMA_QP_TABLE_H

#include <rdma/ib_verbs.h>

#define SRDMA_QPS_COUNT		(IB_QPS_ERR + 1)
/* attribute mask bits srdma knows: IB_QP_STATE up to IB_QP_RATE_LIMIT */
#define SRDMA_QP_ATTR_BITS	(ilog2(IB_QP_RATE_LIMIT) + 1)

/**
 * struct srdma_qp_transition - one (type, current state, next state) entry
 * @valid: the transition exists
 * @req: attributes it requires besides IB_QP_STATE
 * @opt: attributes it allows besides @req and IB_QP_STATE
 */
struct srdma_qp_transition {
	bool valid;
	u32 req;
	u32 opt;
};

enum srdma_qp_verdict {
	SRDMA_QP_OK,
	SRDMA_QP_BAD_TYPE,		/* a QP type srdma has no table for */
	SRDMA_QP_BAD_STATE,		/* a state outside enum ib_qp_state */
	SRDMA_QP_BAD_TRANSITION,	/* no such transition */
	SRDMA_QP_MISSING_ATTR,		/* a required attribute is absent */
	SRDMA_QP_EXTRA_ATTR,		/* an attribute is not allowed */
};

extern const struct srdma_qp_transition
	srdma_qp_table[IB_QPT_MAX][SRDMA_QPS_COUNT][SRDMA_QPS_COUNT];
extern const char *const srdma_qp_state_names[SRDMA_QPS_COUNT];
extern const char *const srdma_qp_attr_names[SRDMA_QP_ATTR_BITS];

enum srdma_qp_verdict srdma_qp_check_mask(enum ib_qp_type type,
					  enum ib_qp_state cur,
					  enum ib_qp_state next, u32 mask,
					  u32 *bad_bits);
const char *srdma_qp_attr_name(u32 bits);

#endif /* SRDMA_QP_TABLE_H */
