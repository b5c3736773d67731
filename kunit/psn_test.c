// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: 24-bit PSN arithmetic with wraparound (include/srdma/psn.h).
 */
#include <kunit/test.h>
#include <srdma/psn.h>

struct psn_add_case {
	const char *name;
	u32 psn;
	u32 n;
	u32 sum;
};

static const struct psn_add_case psn_add_cases[] = {
	{ .name = "zero", .psn = 0, .n = 0, .sum = 0 },
	{ .name = "plain", .psn = 100, .n = 23, .sum = 123 },
	{ .name = "to_last", .psn = 0xfffffe, .n = 1, .sum = 0xffffff },
	{ .name = "wrap_to_zero", .psn = 0xffffff, .n = 1, .sum = 0 },
	{ .name = "wrap_past_zero", .psn = 0xfffff0, .n = 0x20, .sum = 0x10 },
	{ .name = "full_circle", .psn = 5, .n = 1 << 24, .sum = 5 },
	{ .name = "high_bits_ignored", .psn = 0xff000001, .n = 1, .sum = 2 },
};

static void psn_add_case_to_desc(const struct psn_add_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(psn_add, psn_add_cases, psn_add_case_to_desc);

static void psn_add_test(struct kunit *test)
{
	const struct psn_add_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_psn_add(c->psn, c->n), c->sum);
}

struct psn_diff_case {
	const char *name;
	u32 a;
	u32 b;
	s32 diff;
};

static const struct psn_diff_case psn_diff_cases[] = {
	{ .name = "equal", .a = 7, .b = 7, .diff = 0 },
	{ .name = "ahead", .a = 10, .b = 3, .diff = 7 },
	{ .name = "behind", .a = 3, .b = 10, .diff = -7 },
	{ .name = "ahead_across_wrap", .a = 2, .b = 0xfffffe, .diff = 4 },
	{ .name = "behind_across_wrap", .a = 0xfffffe, .b = 2, .diff = -4 },
	{ .name = "half_circle_minus_one", .a = 0x7fffff, .b = 0,
	  .diff = 0x7fffff },
	{ .name = "half_circle_is_behind", .a = 0x800000, .b = 0,
	  .diff = -0x800000 },
	{ .name = "high_bits_ignored", .a = 0x01000005, .b = 5, .diff = 0 },
};

static void psn_diff_case_to_desc(const struct psn_diff_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(psn_diff, psn_diff_cases, psn_diff_case_to_desc);

static void psn_diff_test(struct kunit *test)
{
	const struct psn_diff_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_psn_diff(c->a, c->b), c->diff);
	KUNIT_EXPECT_EQ(test, srdma_psn_before(c->a, c->b), c->diff < 0);
}

/* Every distance in a window that straddles the wrap orders correctly. */
static void psn_window_across_wrap_test(struct kunit *test)
{
	const u32 first = 0xffff00, count = 0x200;
	u32 i;

	for (i = 0; i < count; i++) {
		u32 psn = srdma_psn_add(first, i);

		KUNIT_ASSERT_TRUE(test, srdma_psn_in_window(psn, first, count));
		KUNIT_ASSERT_EQ(test, srdma_psn_diff(psn, first), (s32)i);
		if (i)
			KUNIT_ASSERT_TRUE(test, srdma_psn_before(first, psn));
	}
	KUNIT_EXPECT_FALSE(test, srdma_psn_in_window(srdma_psn_add(first, count),
						     first, count));
	KUNIT_EXPECT_FALSE(test, srdma_psn_in_window(srdma_psn_add(first, -1),
						     first, count));
	KUNIT_EXPECT_FALSE(test, srdma_psn_in_window(first, first, 0));
}

static struct kunit_case psn_test_cases[] = {
	KUNIT_CASE_PARAM(psn_add_test, psn_add_gen_params),
	KUNIT_CASE_PARAM(psn_diff_test, psn_diff_gen_params),
	KUNIT_CASE(psn_window_across_wrap_test),
	{}
};

static struct kunit_suite psn_test_suite = {
	.name = "srdma_psn",
	.test_cases = psn_test_cases,
};

kunit_test_suite(psn_test_suite);
