// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the QP state transition table and srdma_qp_check_mask()
 * (srdma_qp_table.c).
 *
 * The walk tries every QP type, current state, next state and attribute bit
 * and checks each verdict twice: against the table entry, and against
 * ib_core's ib_modify_qp_is_ok(). The two may differ only where
 * qp_rate_limit_srdma_only() says; any other difference fails.
 *
 * So that the test does not only say "the table equals ib_core's", the other
 * cases are written out by hand from IBTA vol. 1 chapter 11 and the
 * ibv_modify_qp(3) and ibv_modify_xrc_rcv_qp(3) man pages: the transitions
 * that exist, the attributes each one requires, which QP types an attribute
 * applies to, and where IB_QP_CUR_STATE, IB_QP_EN_SQD_ASYNC_NOTIFY and
 * IB_QP_RATE_LIMIT may appear. Then bad input and the name tables.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "srdma_qp_table.h"

#define QP_ALL_ATTRS		GENMASK(SRDMA_QP_ATTR_BITS - 1, 0)

/* QP types by the man pages' "valid only for" notes, as sets of BIT(type) */
#define QPT_CONNECTED		(BIT(IB_QPT_RC) | BIT(IB_QPT_UC) | \
				 BIT(IB_QPT_XRC_INI) | BIT(IB_QPT_XRC_TGT))
#define QPT_DATAGRAM		(BIT(IB_QPT_UD) | BIT(IB_QPT_SMI) | \
				 BIT(IB_QPT_GSI))
#define QPT_ALL			(QPT_CONNECTED | QPT_DATAGRAM | \
				 BIT(IB_QPT_RAW_PACKET))
/* reliable: RC, and its requester (XRC_INI) and responder (XRC_TGT) halves */
#define QPT_ACK_TIMER		(BIT(IB_QPT_RC) | BIT(IB_QPT_XRC_INI) | \
				 BIT(IB_QPT_XRC_TGT))
#define QPT_REQUESTER		(BIT(IB_QPT_RC) | BIT(IB_QPT_XRC_INI))
#define QPT_RESPONDER		(BIT(IB_QPT_RC) | BIT(IB_QPT_XRC_TGT))

static const char *const qp_verdict_names[] = {
	[SRDMA_QP_OK] = "ok",
	[SRDMA_QP_BAD_TYPE] = "bad_type",
	[SRDMA_QP_BAD_STATE] = "bad_state",
	[SRDMA_QP_BAD_TRANSITION] = "bad_transition",
	[SRDMA_QP_MISSING_ATTR] = "missing_attr",
	[SRDMA_QP_EXTRA_ATTR] = "extra_attr",
};

static const char *qp_verdict_name(enum srdma_qp_verdict v)
{
	return (unsigned int)v < ARRAY_SIZE(qp_verdict_names) &&
	       qp_verdict_names[v] ? qp_verdict_names[v] : "?";
}

static const char *qp_state_name(enum ib_qp_state s)
{
	return (unsigned int)s < SRDMA_QPS_COUNT && srdma_qp_state_names[s] ?
	       srdma_qp_state_names[s] : "?";
}

/*
 * The transitions modify_qp may ask for (the QP state diagram of IBTA
 * vol. 1), the same for every QP type. RESET->ERR is left out, as ib_core
 * leaves it out.
 */
static const bool qp_transition_exists[SRDMA_QPS_COUNT][SRDMA_QPS_COUNT] = {
	[IB_QPS_RESET] = {
		[IB_QPS_RESET] = true, [IB_QPS_INIT] = true,
	},
	[IB_QPS_INIT] = {
		[IB_QPS_RESET] = true, [IB_QPS_INIT] = true,
		[IB_QPS_RTR] = true, [IB_QPS_ERR] = true,
	},
	[IB_QPS_RTR] = {
		[IB_QPS_RESET] = true, [IB_QPS_RTS] = true, [IB_QPS_ERR] = true,
	},
	[IB_QPS_RTS] = {
		[IB_QPS_RESET] = true, [IB_QPS_RTS] = true, [IB_QPS_SQD] = true,
		[IB_QPS_ERR] = true,
	},
	[IB_QPS_SQD] = {
		[IB_QPS_RESET] = true, [IB_QPS_RTS] = true, [IB_QPS_SQD] = true,
		[IB_QPS_ERR] = true,
	},
	[IB_QPS_SQE] = {
		[IB_QPS_RESET] = true, [IB_QPS_RTS] = true, [IB_QPS_ERR] = true,
	},
	[IB_QPS_ERR] = {
		[IB_QPS_RESET] = true, [IB_QPS_ERR] = true,
	},
};

/* where a QP enters or stays in RTS or SQD with new path attributes */
static bool qp_is_path_update(enum ib_qp_state cur, enum ib_qp_state next)
{
	if (next == IB_QPS_RTS)
		return cur == IB_QPS_RTR || cur == IB_QPS_RTS ||
		       cur == IB_QPS_SQD || cur == IB_QPS_SQE;
	return cur == IB_QPS_SQD && next == IB_QPS_SQD;
}

/*
 * The one deliberate difference from ib_core (srdma_qp_table.c says it too):
 * srdma takes IB_QP_RATE_LIMIT for every QP type on RTR->RTS, RTS->RTS,
 * SQD->SQD, SQD->RTS and SQE->RTS; ib_modify_qp_is_ok() takes it only for
 * raw packet QPs, on RTR->RTS and RTS->RTS. This says where srdma accepts the
 * rate limit and ib_core does not.
 */
static bool qp_rate_limit_srdma_only(enum ib_qp_type type,
				     enum ib_qp_state cur,
				     enum ib_qp_state next)
{
	bool core_takes_it = type == IB_QPT_RAW_PACKET && next == IB_QPS_RTS &&
			     (cur == IB_QPS_RTR || cur == IB_QPS_RTS);

	return qp_is_path_update(cur, next) && !core_takes_it;
}

/* one attribute accepted on top of what the transition requires */
static bool qp_attr_allowed(enum ib_qp_type type, enum ib_qp_state cur,
			    enum ib_qp_state next, u32 bit)
{
	u32 req = srdma_qp_table[type][cur][next].req;
	u32 bad_bits;

	return srdma_qp_check_mask(type, cur, next, IB_QP_STATE | req | bit,
				   &bad_bits) == SRDMA_QP_OK;
}

struct qp_type_case {
	const char *name;
	enum ib_qp_type type;
};

static const struct qp_type_case qp_type_cases[] = {
	{ .name = "rc", .type = IB_QPT_RC },
	{ .name = "uc", .type = IB_QPT_UC },
	{ .name = "ud", .type = IB_QPT_UD },
	{ .name = "gsi", .type = IB_QPT_GSI },
	{ .name = "smi", .type = IB_QPT_SMI },
	{ .name = "raw_packet", .type = IB_QPT_RAW_PACKET },
	{ .name = "xrc_ini", .type = IB_QPT_XRC_INI },
	{ .name = "xrc_tgt", .type = IB_QPT_XRC_TGT },
};

static void qp_type_case_to_desc(const struct qp_type_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qp_type, qp_type_cases, qp_type_case_to_desc);

/* "rc RTR->RTS", to say in a failure which transition it is */
#define QP_WHERE_BYTES		32

static void qp_where(char *where, const struct qp_type_case *c,
		     enum ib_qp_state cur, enum ib_qp_state next)
{
	snprintf(where, QP_WHERE_BYTES, "%s %s->%s", c->name,
		 qp_state_name(cur), qp_state_name(next));
}

/**
 * struct qp_walk - the walk of one QP type's transitions
 * @test: the running case
 * @c: the QP type
 * @where: the transition being walked
 * @checked: (state, state, mask) combinations checked
 * @differences: of them, verdicts that differ from ib_modify_qp_is_ok() as
 *	qp_rate_limit_srdma_only() says
 * @undocumented: of them, verdicts that differ otherwise
 */
struct qp_walk {
	struct kunit *test;
	const struct qp_type_case *c;
	char where[QP_WHERE_BYTES];
	unsigned int checked;
	unsigned int differences;
	unsigned int undocumented;
};

/* one mask: srdma's verdict as expected, and ib_core's unless documented */
static void qp_walk_check(struct qp_walk *w, enum ib_qp_state cur,
			  enum ib_qp_state next, u32 mask,
			  enum srdma_qp_verdict want, u32 want_bad_bits)
{
	enum ib_qp_type type = w->c->type;
	struct kunit *test = w->test;
	bool ok, core_ok, core_ok_but_rate;
	enum srdma_qp_verdict got;
	u32 bad_bits = ~0U;

	w->checked++;
	got = srdma_qp_check_mask(type, cur, next, mask, &bad_bits);
	KUNIT_EXPECT_EQ_MSG(test, got, want, "%s mask %#x: %s, want %s",
			    w->where, mask, qp_verdict_name(got),
			    qp_verdict_name(want));
	KUNIT_EXPECT_EQ_MSG(test, bad_bits, want_bad_bits,
			    "%s mask %#x: bad_bits", w->where, mask);

	/* ib_core's verdict, and the same without the documented difference */
	ok = got == SRDMA_QP_OK;
	core_ok = ib_modify_qp_is_ok(cur, next, type, mask);
	core_ok_but_rate = core_ok;
	if ((mask & IB_QP_RATE_LIMIT) &&
	    qp_rate_limit_srdma_only(type, cur, next)) {
		KUNIT_EXPECT_FALSE_MSG(test, core_ok,
				       "%s mask %#x: ib_core takes rate_limit",
				       w->where, mask);
		core_ok_but_rate = ib_modify_qp_is_ok(cur, next, type,
						      mask & ~IB_QP_RATE_LIMIT);
	}
	if (ok != core_ok) {
		if (ok == core_ok_but_rate)
			w->differences++;
		else
			w->undocumented++;
	}
	KUNIT_EXPECT_EQ_MSG(test, ok, core_ok_but_rate,
			    "%s mask %#x: srdma %s, ib_core %s%s", w->where,
			    mask, qp_verdict_name(got),
			    core_ok_but_rate ? "accepts" : "refuses",
			    core_ok_but_rate != core_ok ?
			    " but for rate_limit" : "");
}

/*
 * The masks of one transition: IB_QP_STATE and what it requires, that with
 * each bit toggled, and that with every optional bit; or, when there is no
 * such transition, those and every bit at once.
 */
static void qp_walk_transition(struct qp_walk *w, enum ib_qp_state cur,
			       enum ib_qp_state next)
{
	const struct srdma_qp_transition *t =
		&srdma_qp_table[w->c->type][cur][next];
	const u32 known = QP_ALL_ATTRS & ~IB_QP_STATE;
	u32 minimal = IB_QP_STATE | t->req;
	struct kunit *test = w->test;
	unsigned int i;

	qp_where(w->where, w->c, cur, next);
	KUNIT_EXPECT_EQ_MSG(test, t->req & t->opt, 0,
			    "%s: required and optional", w->where);
	KUNIT_EXPECT_EQ_MSG(test, (t->req | t->opt) & ~known, 0,
			    "%s: IB_QP_STATE or an unknown bit", w->where);

	if (!t->valid) {
		KUNIT_EXPECT_EQ_MSG(test, t->req | t->opt, 0,
				    "%s: attributes without a transition",
				    w->where);
		qp_walk_check(w, cur, next, minimal,
			      SRDMA_QP_BAD_TRANSITION, 0);
		for (i = 0; i < SRDMA_QP_ATTR_BITS; i++)
			qp_walk_check(w, cur, next, minimal ^ BIT(i),
				      SRDMA_QP_BAD_TRANSITION, 0);
		qp_walk_check(w, cur, next, QP_ALL_ATTRS,
			      SRDMA_QP_BAD_TRANSITION, 0);
		return;
	}

	qp_walk_check(w, cur, next, minimal, SRDMA_QP_OK, 0);
	for (i = 0; i < SRDMA_QP_ATTR_BITS; i++) {
		u32 bit = BIT(i);

		/* without IB_QP_STATE the caller asks for next == cur */
		if (bit == IB_QP_STATE)
			qp_walk_check(w, cur, next, minimal & ~bit,
				      SRDMA_QP_OK, 0);
		else if (t->req & bit)
			qp_walk_check(w, cur, next, minimal & ~bit,
				      SRDMA_QP_MISSING_ATTR, bit);
		else if (t->opt & bit)
			qp_walk_check(w, cur, next, minimal | bit,
				      SRDMA_QP_OK, 0);
		else
			qp_walk_check(w, cur, next, minimal | bit,
				      SRDMA_QP_EXTRA_ATTR, bit);
	}
	qp_walk_check(w, cur, next, minimal | t->opt, SRDMA_QP_OK, 0);
}

/* every (current state, next state, attribute bit) of one QP type */
static void qp_table_walk_test(struct kunit *test)
{
	struct qp_walk w = { .test = test, .c = test->param_value };
	enum ib_qp_state cur, next;

	for (cur = IB_QPS_RESET; cur <= IB_QPS_ERR; cur++)
		for (next = IB_QPS_RESET; next <= IB_QPS_ERR; next++)
			qp_walk_transition(&w, cur, next);

	kunit_info(test, "%s: walked %u combinations, %u differences from ib_core, %s\n",
		   w.c->name, w.checked, w.differences + w.undocumented,
		   w.undocumented ? "some undocumented" : "all documented");
	KUNIT_EXPECT_EQ(test, w.undocumented, 0);
}

/* the transitions that exist, for every QP type */
static void qp_transitions_test(struct kunit *test)
{
	const struct qp_type_case *c = test->param_value;
	char where[QP_WHERE_BYTES];
	enum ib_qp_state cur, next;
	enum srdma_qp_verdict got;
	u32 bad_bits;

	for (cur = IB_QPS_RESET; cur <= IB_QPS_ERR; cur++) {
		for (next = IB_QPS_RESET; next <= IB_QPS_ERR; next++) {
			qp_where(where, c, cur, next);
			got = srdma_qp_check_mask(c->type, cur, next,
						  IB_QP_STATE, &bad_bits);
			KUNIT_EXPECT_EQ_MSG(test,
					    got != SRDMA_QP_BAD_TRANSITION,
					    qp_transition_exists[cur][next],
					    "%s: %s", where,
					    qp_verdict_name(got));
		}
	}
}

/* a transition that takes IB_QP_STATE and nothing else */
static void qp_expect_state_only(struct kunit *test,
				 const struct qp_type_case *c,
				 enum ib_qp_state cur, enum ib_qp_state next)
{
	char where[QP_WHERE_BYTES];
	enum srdma_qp_verdict got;
	unsigned int i;
	u32 bad_bits;

	qp_where(where, c, cur, next);
	got = srdma_qp_check_mask(c->type, cur, next, IB_QP_STATE, &bad_bits);
	KUNIT_EXPECT_EQ_MSG(test, got, SRDMA_QP_OK, "%s: %s", where,
			    qp_verdict_name(got));
	for (i = 0; i < SRDMA_QP_ATTR_BITS; i++) {
		if (BIT(i) == IB_QP_STATE)
			continue;
		got = srdma_qp_check_mask(c->type, cur, next,
					  IB_QP_STATE | BIT(i), &bad_bits);
		KUNIT_EXPECT_EQ_MSG(test, got, SRDMA_QP_EXTRA_ATTR,
				    "%s with %s: %s", where,
				    srdma_qp_attr_names[i],
				    qp_verdict_name(got));
		KUNIT_EXPECT_EQ(test, bad_bits, (u32)BIT(i));
	}
}

/* to RESET and to ERR from anywhere (but RESET->ERR) with IB_QP_STATE only */
static void qp_to_reset_or_err_test(struct kunit *test)
{
	const struct qp_type_case *c = test->param_value;
	enum ib_qp_state cur;

	for (cur = IB_QPS_RESET; cur <= IB_QPS_ERR; cur++) {
		qp_expect_state_only(test, c, cur, IB_QPS_RESET);
		if (cur != IB_QPS_RESET)
			qp_expect_state_only(test, c, cur, IB_QPS_ERR);
	}
}

/* IBTA: the current state is given only on the way to RTS */
static bool qp_cur_state_allowed(enum ib_qp_type type, enum ib_qp_state cur,
				 enum ib_qp_state next)
{
	if (type == IB_QPT_RAW_PACKET || next != IB_QPS_RTS)
		return false;
	if (cur == IB_QPS_SQE)	/* only unreliable QPs enter SQE */
		return BIT(type) & (QPT_DATAGRAM | BIT(IB_QPT_UC));
	return cur == IB_QPS_RTR || cur == IB_QPS_RTS || cur == IB_QPS_SQD;
}

/* the attributes with a rule of their own, on one transition */
static void qp_expect_attr_rules(struct kunit *test,
				 const struct qp_type_case *c,
				 enum ib_qp_state cur, enum ib_qp_state next)
{
	bool exists = qp_transition_exists[cur][next];
	bool cur_state, sqd_notify, rate_limit, cap;
	char where[QP_WHERE_BYTES];
	unsigned int i;

	qp_where(where, c, cur, next);
	cur_state = qp_attr_allowed(c->type, cur, next, IB_QP_CUR_STATE);
	sqd_notify = qp_attr_allowed(c->type, cur, next,
				     IB_QP_EN_SQD_ASYNC_NOTIFY);
	rate_limit = qp_attr_allowed(c->type, cur, next, IB_QP_RATE_LIMIT);
	cap = qp_attr_allowed(c->type, cur, next, IB_QP_CAP);

	/* only from RTR, RTS, SQD and SQE, whatever the type */
	if (cur != IB_QPS_RTR && cur != IB_QPS_RTS && cur != IB_QPS_SQD &&
	    cur != IB_QPS_SQE)
		KUNIT_EXPECT_FALSE_MSG(test, cur_state, "%s cur_qp_state",
				       where);
	KUNIT_EXPECT_EQ_MSG(test, cur_state,
			    exists && qp_cur_state_allowed(c->type, cur, next),
			    "%s cur_qp_state", where);
	KUNIT_EXPECT_EQ_MSG(test, sqd_notify,
			    cur == IB_QPS_RTS && next == IB_QPS_SQD &&
			    c->type != IB_QPT_RAW_PACKET,
			    "%s en_sqd_async_notify", where);
	KUNIT_EXPECT_EQ_MSG(test, rate_limit,
			    exists && qp_is_path_update(cur, next),
			    "%s rate_limit", where);

	/* no QP resizing, and the reserved bits mean nothing */
	KUNIT_EXPECT_FALSE_MSG(test, cap, "%s cap", where);
	for (i = ilog2(IB_QP_RESERVED1); i <= ilog2(IB_QP_RESERVED4); i++)
		KUNIT_EXPECT_FALSE_MSG(test,
				       qp_attr_allowed(c->type, cur, next,
						       BIT(i)),
				       "%s %s", where, srdma_qp_attr_names[i]);
}

/* where IB_QP_CUR_STATE, EN_SQD_ASYNC_NOTIFY, RATE_LIMIT and CAP may be */
static void qp_attr_rules_test(struct kunit *test)
{
	const struct qp_type_case *c = test->param_value;
	enum ib_qp_state cur, next;

	for (cur = IB_QPS_RESET; cur <= IB_QPS_ERR; cur++)
		for (next = IB_QPS_RESET; next <= IB_QPS_ERR; next++)
			qp_expect_attr_rules(test, c, cur, next);
}

/*
 * The QP types an attribute applies to at all, from the ibv_qp_attr
 * comments of ibv_modify_qp(3) ("valid only for RC/UC QPs", "only for UD
 * QPs", "only for RC QPs"), with XRC as the two halves of RC and the special
 * QPs (SMI, GSI) as UD bound to a port at creation. A raw packet QP has a
 * port and a rate and nothing else.
 */
static const u32 qp_attr_types[SRDMA_QP_ATTR_BITS] = {
	[ilog2(IB_QP_STATE)] = QPT_ALL,
	[ilog2(IB_QP_CUR_STATE)] = QPT_ALL & ~BIT(IB_QPT_RAW_PACKET),
	[ilog2(IB_QP_EN_SQD_ASYNC_NOTIFY)] = QPT_ALL & ~BIT(IB_QPT_RAW_PACKET),
	[ilog2(IB_QP_ACCESS_FLAGS)] = QPT_CONNECTED,
	[ilog2(IB_QP_PKEY_INDEX)] = QPT_ALL & ~BIT(IB_QPT_RAW_PACKET),
	[ilog2(IB_QP_PORT)] = QPT_ALL & ~(BIT(IB_QPT_SMI) | BIT(IB_QPT_GSI)),
	[ilog2(IB_QP_QKEY)] = QPT_DATAGRAM,
	[ilog2(IB_QP_AV)] = QPT_CONNECTED,
	[ilog2(IB_QP_PATH_MTU)] = QPT_CONNECTED,
	[ilog2(IB_QP_TIMEOUT)] = QPT_ACK_TIMER,
	[ilog2(IB_QP_RETRY_CNT)] = QPT_REQUESTER,
	[ilog2(IB_QP_RNR_RETRY)] = QPT_REQUESTER,
	[ilog2(IB_QP_RQ_PSN)] = QPT_CONNECTED,
	[ilog2(IB_QP_MAX_QP_RD_ATOMIC)] = QPT_REQUESTER,
	[ilog2(IB_QP_ALT_PATH)] = QPT_CONNECTED,
	[ilog2(IB_QP_MIN_RNR_TIMER)] = QPT_RESPONDER,
	[ilog2(IB_QP_SQ_PSN)] = QPT_ALL & ~BIT(IB_QPT_RAW_PACKET),
	[ilog2(IB_QP_MAX_DEST_RD_ATOMIC)] = QPT_RESPONDER,
	[ilog2(IB_QP_PATH_MIG_STATE)] = QPT_CONNECTED,
	[ilog2(IB_QP_CAP)] = 0,
	[ilog2(IB_QP_DEST_QPN)] = QPT_CONNECTED,
	[ilog2(IB_QP_RATE_LIMIT)] = QPT_ALL,
};

/* each attribute is taken somewhere exactly by the QP types it applies to */
static void qp_attr_scope_test(struct kunit *test)
{
	const struct qp_type_case *c = test->param_value;
	enum ib_qp_state cur, next;
	unsigned int i;

	for (i = 0; i < SRDMA_QP_ATTR_BITS; i++) {
		bool somewhere = false;

		for (cur = IB_QPS_RESET; cur <= IB_QPS_ERR; cur++)
			for (next = IB_QPS_RESET; next <= IB_QPS_ERR; next++)
				somewhere |= qp_attr_allowed(c->type, cur, next,
							     BIT(i));
		KUNIT_EXPECT_EQ_MSG(test, somewhere,
				    !!(qp_attr_types[i] & BIT(c->type)),
				    "%s %s", c->name, srdma_qp_attr_names[i]);
	}
}

struct qp_required_case {
	const char *name;
	enum ib_qp_type type;
	enum ib_qp_state cur;
	enum ib_qp_state next;
	u32 req;
};

#define REQUIRED(_name, _type, _cur, _next, _req) \
	{ .name = _name, .type = IB_QPT_##_type, .cur = IB_QPS_##_cur, \
	  .next = IB_QPS_##_next, .req = (_req) }

/*
 * The "Required attributes" tables of ibv_modify_qp(3) (UD, UC, RC, raw
 * packet) and ibv_modify_xrc_rcv_qp(3) (XRC target), besides IB_QP_STATE.
 * The man pages have no table for the special QPs and the XRC initiator;
 * theirs follow IBTA's Modify QP tables and its XRC annex.
 */
static const struct qp_required_case qp_required_cases[] = {
	REQUIRED("ud_reset_to_init", UD, RESET, INIT,
		 IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY),
	REQUIRED("ud_init_to_rtr", UD, INIT, RTR, 0),
	REQUIRED("ud_rtr_to_rts", UD, RTR, RTS, IB_QP_SQ_PSN),
	REQUIRED("uc_reset_to_init", UC, RESET, INIT,
		 IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS),
	REQUIRED("uc_init_to_rtr", UC, INIT, RTR,
		 IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN),
	REQUIRED("uc_rtr_to_rts", UC, RTR, RTS, IB_QP_SQ_PSN),
	REQUIRED("rc_reset_to_init", RC, RESET, INIT,
		 IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS),
	REQUIRED("rc_init_to_rtr", RC, INIT, RTR,
		 IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
		 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER),
	REQUIRED("rc_rtr_to_rts", RC, RTR, RTS,
		 IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC | IB_QP_RETRY_CNT |
		 IB_QP_RNR_RETRY | IB_QP_TIMEOUT),
	REQUIRED("raw_packet_reset_to_init", RAW_PACKET, RESET, INIT,
		 IB_QP_PORT),
	REQUIRED("raw_packet_init_to_rtr", RAW_PACKET, INIT, RTR, 0),
	REQUIRED("raw_packet_rtr_to_rts", RAW_PACKET, RTR, RTS, 0),
	REQUIRED("xrc_tgt_reset_to_init", XRC_TGT, RESET, INIT,
		 IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS),
	REQUIRED("xrc_tgt_init_to_rtr", XRC_TGT, INIT, RTR,
		 IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
		 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER),
	REQUIRED("xrc_ini_reset_to_init", XRC_INI, RESET, INIT,
		 IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS),
	REQUIRED("xrc_ini_init_to_rtr", XRC_INI, INIT, RTR,
		 IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN),
	REQUIRED("xrc_ini_rtr_to_rts", XRC_INI, RTR, RTS,
		 IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC | IB_QP_RETRY_CNT |
		 IB_QP_RNR_RETRY | IB_QP_TIMEOUT),
	REQUIRED("gsi_reset_to_init", GSI, RESET, INIT,
		 IB_QP_PKEY_INDEX | IB_QP_QKEY),
	REQUIRED("gsi_rtr_to_rts", GSI, RTR, RTS, IB_QP_SQ_PSN),
	REQUIRED("smi_reset_to_init", SMI, RESET, INIT,
		 IB_QP_PKEY_INDEX | IB_QP_QKEY),
	REQUIRED("smi_rtr_to_rts", SMI, RTR, RTS, IB_QP_SQ_PSN),
};

static void qp_required_case_to_desc(const struct qp_required_case *c,
				     char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qp_required, qp_required_cases, qp_required_case_to_desc);

/* the transition takes exactly these and misses each one that is left out */
static void qp_required_attrs_test(struct kunit *test)
{
	const struct qp_required_case *c = test->param_value;
	u32 mask = IB_QP_STATE | c->req;
	enum srdma_qp_verdict got;
	unsigned int i;
	u32 bad_bits;

	got = srdma_qp_check_mask(c->type, c->cur, c->next, mask, &bad_bits);
	KUNIT_EXPECT_EQ_MSG(test, got, SRDMA_QP_OK, "%s, bad_bits %#x",
			    qp_verdict_name(got), bad_bits);

	for (i = 0; i < SRDMA_QP_ATTR_BITS; i++) {
		if (!(c->req & BIT(i)))
			continue;
		got = srdma_qp_check_mask(c->type, c->cur, c->next,
					  mask & ~BIT(i), &bad_bits);
		KUNIT_EXPECT_EQ_MSG(test, got, SRDMA_QP_MISSING_ATTR,
				    "without %s: %s", srdma_qp_attr_names[i],
				    qp_verdict_name(got));
		KUNIT_EXPECT_EQ_MSG(test, bad_bits, (u32)BIT(i), "without %s",
				    srdma_qp_attr_names[i]);
	}

	/* IB_QP_STATE alone misses all of them at once */
	got = srdma_qp_check_mask(c->type, c->cur, c->next, IB_QP_STATE,
				  &bad_bits);
	KUNIT_EXPECT_EQ_MSG(test, got,
			    c->req ? SRDMA_QP_MISSING_ATTR : SRDMA_QP_OK,
			    "state only: %s", qp_verdict_name(got));
	KUNIT_EXPECT_EQ(test, bad_bits, c->req);
}

struct qp_bad_input_case {
	const char *name;
	enum ib_qp_type type;
	enum ib_qp_state cur;
	enum ib_qp_state next;
	enum srdma_qp_verdict verdict;
};

static const struct qp_bad_input_case qp_bad_input_cases[] = {
	{ "raw_ipv6", IB_QPT_RAW_IPV6, IB_QPS_RESET, IB_QPS_INIT,
	  SRDMA_QP_BAD_TYPE },
	{ "raw_ethertype", IB_QPT_RAW_ETHERTYPE, IB_QPS_RESET, IB_QPS_INIT,
	  SRDMA_QP_BAD_TYPE },
	{ "type_max", IB_QPT_MAX, IB_QPS_RESET, IB_QPS_INIT,
	  SRDMA_QP_BAD_TYPE },
	{ "type_driver", IB_QPT_DRIVER, IB_QPS_RESET, IB_QPS_INIT,
	  SRDMA_QP_BAD_TYPE },
	{ "type_reserved", IB_QPT_RESERVED1, IB_QPS_RESET, IB_QPS_INIT,
	  SRDMA_QP_BAD_TYPE },
	{ "cur_past_err", IB_QPT_RC, IB_QPS_ERR + 1, IB_QPS_RESET,
	  SRDMA_QP_BAD_STATE },
	{ "next_past_err", IB_QPT_RC, IB_QPS_RESET, IB_QPS_ERR + 1,
	  SRDMA_QP_BAD_STATE },
	{ "both_past_err", IB_QPT_UD, IB_QPS_ERR + 1, IB_QPS_ERR + 1,
	  SRDMA_QP_BAD_STATE },
	{ "next_far_out", IB_QPT_RAW_PACKET, IB_QPS_RTS, U8_MAX,
	  SRDMA_QP_BAD_STATE },
	{ "bad_type_before_bad_state", IB_QPT_MAX, IB_QPS_ERR + 1, IB_QPS_RESET,
	  SRDMA_QP_BAD_TYPE },
};

static void qp_bad_input_case_to_desc(const struct qp_bad_input_case *c,
				      char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qp_bad_input, qp_bad_input_cases, qp_bad_input_case_to_desc);

static void qp_bad_input_test(struct kunit *test)
{
	const struct qp_bad_input_case *c = test->param_value;
	u32 bad_bits = ~0U;

	KUNIT_EXPECT_EQ(test, srdma_qp_check_mask(c->type, c->cur, c->next,
						  IB_QP_STATE, &bad_bits),
			c->verdict);
	KUNIT_EXPECT_EQ(test, bad_bits, 0);
}

/* the eight types have a table; the raw IPv6 and ethertype rows are empty */
static void qp_table_types_test(struct kunit *test)
{
	u32 types = 0;
	unsigned int type, cur, next;

	for (type = 0; type < IB_QPT_MAX; type++) {
		bool any = false;

		for (cur = 0; cur < SRDMA_QPS_COUNT; cur++) {
			for (next = 0; next < SRDMA_QPS_COUNT; next++) {
				const struct srdma_qp_transition *t =
					&srdma_qp_table[type][cur][next];

				any |= t->valid || t->req || t->opt;
			}
		}
		if (any)
			types |= BIT(type);
	}
	KUNIT_EXPECT_EQ(test, types, (u32)QPT_ALL);
}

static void qp_attr_names_test(struct kunit *test)
{
	unsigned int i, j;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(srdma_qp_attr_names),
			(size_t)SRDMA_QP_ATTR_BITS);
	KUNIT_EXPECT_EQ(test, (u32)BIT(SRDMA_QP_ATTR_BITS - 1),
			(u32)IB_QP_RATE_LIMIT);

	for (i = 0; i < SRDMA_QP_ATTR_BITS; i++) {
		const char *name = srdma_qp_attr_name(BIT(i));

		KUNIT_ASSERT_NOT_NULL_MSG(test, srdma_qp_attr_names[i],
					  "attribute bit %u has no name", i);
		KUNIT_EXPECT_PTR_EQ(test, name, srdma_qp_attr_names[i]);
		KUNIT_EXPECT_TRUE(test, name[0]);
		/* the lowest bit of a mask names it */
		KUNIT_EXPECT_PTR_EQ(test, srdma_qp_attr_name(BIT(i) |
							      IB_QP_RATE_LIMIT),
				    name);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, name, srdma_qp_attr_names[j]);
	}
	KUNIT_EXPECT_STREQ(test, srdma_qp_attr_name(IB_QP_RATE_LIMIT << 1),
			   "unknown");
}

static void qp_state_names_test(struct kunit *test)
{
	unsigned int i, j;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(srdma_qp_state_names),
			(size_t)SRDMA_QPS_COUNT);
	for (i = 0; i < SRDMA_QPS_COUNT; i++) {
		KUNIT_ASSERT_NOT_NULL_MSG(test, srdma_qp_state_names[i],
					  "state %u has no name", i);
		KUNIT_EXPECT_TRUE(test, srdma_qp_state_names[i][0]);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, srdma_qp_state_names[i],
					    srdma_qp_state_names[j]);
	}
}

static struct kunit_case qp_table_test_cases[] = {
	KUNIT_CASE_PARAM(qp_table_walk_test, qp_type_gen_params),
	KUNIT_CASE_PARAM(qp_transitions_test, qp_type_gen_params),
	KUNIT_CASE_PARAM(qp_to_reset_or_err_test, qp_type_gen_params),
	KUNIT_CASE_PARAM(qp_attr_rules_test, qp_type_gen_params),
	KUNIT_CASE_PARAM(qp_attr_scope_test, qp_type_gen_params),
	KUNIT_CASE_PARAM(qp_required_attrs_test, qp_required_gen_params),
	KUNIT_CASE_PARAM(qp_bad_input_test, qp_bad_input_gen_params),
	KUNIT_CASE(qp_table_types_test),
	KUNIT_CASE(qp_attr_names_test),
	KUNIT_CASE(qp_state_names_test),
	{}
};

static struct kunit_suite qp_table_test_suite = {
	.name = "srdma_qp_table",
	.test_cases = qp_table_test_cases,
};

kunit_test_suite(qp_table_test_suite);
