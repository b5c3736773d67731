// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: pure logic of the verbs objects: MR keys and access flags
 * (srdma_mr.c), ring geometry and index arithmetic (srdma_queue.[ch]), a
 * completion as a process's CQ ring holds it (srdma_cq.c).
 */
#include <kunit/test.h>

#include "srdma_engine.h"

struct access_case {
	const char *name;
	int access;
	int err;
};

static const struct access_case access_cases[] = {
	{ "none", 0, 0 },
	{ "local_write", IB_ACCESS_LOCAL_WRITE, 0 },
	{ "remote_read_alone", IB_ACCESS_REMOTE_READ, 0 },
	{ "remote_write_without_local_write", IB_ACCESS_REMOTE_WRITE, -EINVAL },
	{ "remote_atomic_without_local_write", IB_ACCESS_REMOTE_ATOMIC,
	  -EINVAL },
	{ "remote_write_with_local_write",
	  IB_ACCESS_REMOTE_WRITE | IB_ACCESS_LOCAL_WRITE, 0 },
	{ "everything", IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
	  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC, 0 },
	{ "memory_window_bind", IB_ACCESS_MW_BIND, 0 },
	{ "zero_based", IB_ZERO_BASED | IB_ACCESS_LOCAL_WRITE, -EOPNOTSUPP },
	{ "on_demand", IB_ACCESS_ON_DEMAND | IB_ACCESS_LOCAL_WRITE, 0 },
	{ "unknown_high_bit", BIT(30), -EOPNOTSUPP },
};

static void access_case_to_desc(const struct access_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(access, access_cases, access_case_to_desc);

static void mr_access_check(struct kunit *test)
{
	const struct access_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_mr_check_access(c->access), c->err);
}

static void mr_key_holds_index_and_key_byte(struct kunit *test)
{
	static const u32 indices[] = { 1, 2, 0xff, 0x100, 0xabcdef, 0xffffff };
	int i, b;

	for (i = 0; i < ARRAY_SIZE(indices); i++) {
		for (b = 0; b < 256; b += 51) {
			u32 key = srdma_mr_make_key(indices[i], b);

			KUNIT_EXPECT_EQ(test, key >> 8, indices[i]);
			KUNIT_EXPECT_EQ(test, key & 0xff, (u32)b);
		}
	}
	/* the same index with another key byte is another key */
	KUNIT_EXPECT_NE(test, srdma_mr_make_key(5, 1), srdma_mr_make_key(5, 2));
}

struct slots_case {
	const char *name;
	u32 entries;
	u32 slots;
};

static const struct slots_case slots_cases[] = {
	{ "zero", 0, 1 },
	{ "one", 1, 2 },
	{ "two", 2, 4 },
	{ "three", 3, 4 },
	{ "four", 4, 8 },
	{ "power_of_two_minus_one", 511, 512 },
	{ "power_of_two", 512, 1024 },
	{ "max_qp_wr", SRDMA_MAX_QP_WR, 2 * SRDMA_MAX_QP_WR },
	{ "max_cqe", SRDMA_MAX_CQE, SRDMA_MAX_CQE + 1 },
};

static void slots_case_to_desc(const struct slots_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(slots, slots_cases, slots_case_to_desc);

/* a ring holds at least what was asked, in a power of two of slots */
static void queue_slots(struct kunit *test)
{
	const struct slots_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_queue_slots(c->entries), c->slots);
}

static int queue_res_init(struct kunit_resource *res, void *q)
{
	res->data = q;
	return 0;
}

static void queue_res_free(struct kunit_resource *res)
{
	srdma_queue_free(res->data);
}

static struct srdma_queue *queue_new(struct kunit *test,
				     enum srdma_queue_role role, u32 entries,
				     size_t entry_bytes)
{
	struct srdma_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, srdma_queue_init(q, NULL, NULL, role, entries,
					       entry_bytes, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, queue_res_init,
							 queue_res_free,
							 GFP_KERNEL, q));
	return q;
}

/* fill and drain many times around the wrap: count, full, empty agree */
static void queue_wraps_without_losing_entries(struct kunit *test)
{
	struct srdma_queue *q = queue_new(test, SRDMA_QUEUE_KERNEL_PRODUCES, 5,
					  sizeof(u64));
	u64 produced = 0, consumed = 0;
	int round, i;

	KUNIT_EXPECT_EQ(test, srdma_queue_capacity(q), 7U);
	KUNIT_EXPECT_EQ(test, q->buf->index_mask, 7U);
	KUNIT_EXPECT_EQ(test, q->buf->log2_elem_size, 3U);
	for (round = 0; round < 20; round++) {
		/* a different fill level each round moves the wrap point */
		for (i = 0; i < 1 + round % 7; i++) {
			KUNIT_ASSERT_FALSE(test, srdma_queue_full(q));
			*(u64 *)srdma_queue_producer_slot(q) = produced++;
			srdma_queue_advance_producer(q);
		}
		KUNIT_EXPECT_EQ(test, srdma_queue_count(q),
				(u32)(produced - consumed));
		while (!srdma_queue_empty(q)) {
			KUNIT_EXPECT_EQ(test, *(u64 *)srdma_queue_consumer_slot(q),
					consumed);
			consumed++;
			srdma_queue_advance_consumer(q);
		}
	}
	KUNIT_EXPECT_EQ(test, produced, consumed);
	/* full at capacity, not before */
	for (i = 0; i < 7; i++) {
		KUNIT_EXPECT_FALSE(test, srdma_queue_full(q));
		srdma_queue_advance_producer(q);
	}
	KUNIT_EXPECT_TRUE(test, srdma_queue_full(q));
}

/* whatever a process writes as its index, the kernel stays in the ring */
static void queue_survives_scribbled_indices(struct kunit *test)
{
	struct srdma_queue *q = queue_new(test, SRDMA_QUEUE_KERNEL_CONSUMES, 3,
					  64);
	static const u32 garbage[] = { 0, 3, 4, 0x80000000, 0xffffffff,
				       0xdeadbeef };
	u8 *lo = q->buf->data;
	u8 *hi = lo + (4 << 6);
	int i, n;

	for (i = 0; i < ARRAY_SIZE(garbage); i++) {
		q->buf->producer_index = garbage[i];
		q->buf->consumer_index = ~garbage[i];	/* ignored: ours */
		q->buf->index_mask = garbage[i];	/* never read back */
		q->buf->log2_elem_size = garbage[i];
		KUNIT_EXPECT_LE(test, srdma_queue_count(q), 3U);
		for (n = 0; n < 8 && !srdma_queue_empty(q); n++) {
			u8 *slot = srdma_queue_consumer_slot(q);

			KUNIT_EXPECT_TRUE(test, slot >= lo && slot < hi);
			srdma_queue_advance_consumer(q);
		}
		KUNIT_EXPECT_TRUE(test, srdma_queue_empty(q));
		KUNIT_EXPECT_LE(test, q->index, 3U);
	}
}

/* the user ABI's wc_flags: bit 3 for an invalidation, no kernel-only bit */
static void wc_flags_for_processes(struct kunit *test)
{
	struct ib_qp qp = { .qp_num = 0x123 };
	struct ib_wc wc = { .qp = &qp, .opcode = IB_WC_RECV };
	struct ib_uverbs_wc uwc;

	wc.wc_flags = IB_WC_WITH_INVALIDATE;
	wc.ex.invalidate_rkey = 0xabcdef01;
	srdma_wc_to_uverbs(&uwc, &wc);
	KUNIT_EXPECT_EQ(test, uwc.wc_flags, (u32)BIT(3));
	KUNIT_EXPECT_EQ(test, uwc.ex.invalidate_rkey, 0xabcdef01U);
	KUNIT_EXPECT_EQ(test, uwc.qp_num, 0x123U);

	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_IMM | IB_WC_WITH_SMAC |
		      IB_WC_WITH_VLAN | IB_WC_WITH_NETWORK_HDR_TYPE;
	srdma_wc_to_uverbs(&uwc, &wc);
	KUNIT_EXPECT_EQ(test, uwc.wc_flags, (u32)(IB_WC_GRH | IB_WC_WITH_IMM));
}

static struct kunit_case objects_cases[] = {
	KUNIT_CASE_PARAM(mr_access_check, access_gen_params),
	KUNIT_CASE(mr_key_holds_index_and_key_byte),
	KUNIT_CASE_PARAM(queue_slots, slots_gen_params),
	KUNIT_CASE(queue_wraps_without_losing_entries),
	KUNIT_CASE(queue_survives_scribbled_indices),
	KUNIT_CASE(wc_flags_for_processes),
	{}
};

static struct kunit_suite objects_suite = {
	.name = "srdma_objects",
	.test_cases = objects_cases,
};

kunit_test_suite(objects_suite);
