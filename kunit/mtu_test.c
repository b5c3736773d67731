// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the port's active MTU from the netdev MTU (srdma_device.c).
 */
#include <kunit/test.h>

#include "srdma_engine.h"

struct mtu_case {
	const char *name;
	unsigned int ndev_mtu;
	enum ib_mtu ib_mtu;	/* 0: too small for any IB MTU */
};

static const struct mtu_case mtu_cases[] = {
	{ "tiny", 68, 0 },
	{ "just_below_256", 256 + SRDMA_MAX_HDR_BYTES - 1, 0 },
	{ "exactly_256", 256 + SRDMA_MAX_HDR_BYTES, IB_MTU_256 },
	{ "just_below_1024", 1024 + SRDMA_MAX_HDR_BYTES - 1, IB_MTU_512 },
	{ "exactly_1024", 1024 + SRDMA_MAX_HDR_BYTES, IB_MTU_1024 },
	{ "ethernet_1500", 1500, IB_MTU_1024 },
	{ "just_below_2048", 2048 + SRDMA_MAX_HDR_BYTES - 1, IB_MTU_1024 },
	{ "exactly_4096", 4096 + SRDMA_MAX_HDR_BYTES, IB_MTU_4096 },
	{ "just_below_4096", 4096 + SRDMA_MAX_HDR_BYTES - 1, IB_MTU_2048 },
	{ "jumbo_9000", 9000, IB_MTU_4096 },
	{ "max_u32", UINT_MAX, IB_MTU_4096 },
};

static void mtu_case_to_desc(const struct mtu_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mtu, mtu_cases, mtu_case_to_desc);

static void mtu_from_netdev_test(struct kunit *test)
{
	const struct mtu_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_mtu_from_netdev(c->ndev_mtu), c->ib_mtu);
}

/* The header budget covers the worst RoCEv2 packet that carries payload. */
static void mtu_header_budget_test(struct kunit *test)
{
	const unsigned int ipv6 = 40, udp = 8, bth = 12, reth = 16, immdt = 4,
			   icrc = 4;

	KUNIT_EXPECT_GE(test, SRDMA_MAX_HDR_BYTES,
			ipv6 + udp + bth + reth + immdt + icrc);
}

static struct kunit_case mtu_test_cases[] = {
	KUNIT_CASE_PARAM(mtu_from_netdev_test, mtu_gen_params),
	KUNIT_CASE(mtu_header_budget_test),
	{}
};

static struct kunit_suite mtu_test_suite = {
	.name = "srdma_mtu",
	.test_cases = mtu_test_cases,
};

kunit_test_suite(mtu_test_suite);
