// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit: the range checks of (address, length) pairs that come from WQEs,
 * from packets and from keys (include/srdma/range.h and the checks built
 * on it): MR bounds (RETH, atomic, SGE, duplicate READ), user MR geometry,
 * the send queue's fetch limit, send WQE lengths and inline data, the PSN
 * span of a READ and of each packet of a message, receive buffer room, an
 * MR checked again after it changed under a message, and an invalidation
 * that waits for the access under way.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/completion.h>
#include <linux/limits.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>
#include <srdma/psn.h>

#include "srdma_engine.h"

#define TOP	U64_MAX			/* the last byte of the u64 space */
#define G2	BIT_ULL(31)		/* 2^31: SRDMA_MAX_MSG_BYTES */
#define G4	BIT_ULL(32)		/* 2^32 */

/* ------------------------------------------------------ srdma_range_ok() */

struct range_case {
	const char *name;
	u64 start, length;	/* the region: an MR, a READ answered */
	u64 va, len;		/* the access */
	bool ok;
};

static const struct range_case range_cases[] = {
	{ "whole", 0x1000, 0x1000, 0x1000, 0x1000, true },
	{ "first_byte", 0x1000, 0x1000, 0x1000, 1, true },
	{ "last_byte", 0x1000, 0x1000, 0x1fff, 1, true },
	{ "one_below_start", 0x1000, 0x1000, 0xfff, 1, false },
	{ "one_below_start_to_end", 0x1000, 0x1000, 0xfff, 0x1001, false },
	{ "at_end", 0x1000, 0x1000, 0x2000, 1, false },
	{ "one_past_end", 0x1000, 0x1000, 0x1001, 0x1000, false },
	{ "crosses_end", 0x1000, 0x1000, 0x1ffc, 8, false },
	{ "len0_at_start", 0x1000, 0x1000, 0x1000, 0, true },
	{ "len0_at_end", 0x1000, 0x1000, 0x2000, 0, true },
	{ "len0_past_end", 0x1000, 0x1000, 0x2001, 0, false },
	{ "len0_below_start", 0x1000, 0x1000, 0xfff, 0, false },
	{ "empty_region_len0", 0x1000, 0, 0x1000, 0, true },
	{ "empty_region_len1", 0x1000, 0, 0x1000, 1, false },
	/* va + len past 2^64: a naive va + len <= end wraps and passes */
	{ "access_wraps_into_region", 0x1000, 0x1000, TOP - 0x7ff, 0x1800,
	  false },
	{ "access_wraps_len_max", 0x1000, 0x1000, 0x1000, TOP, false },
	{ "access_ends_at_2^64", 0, TOP, TOP, 1, false },
	{ "access_to_last_byte", 0, TOP, TOP - 1, 1, true },
	/* a region whose end passes 2^64 is refused at registration */
	{ "region_wraps", TOP - 0xfff, 0x2000, TOP - 0xfff, 8, false },
	{ "region_wraps_low_part", TOP - 0xfff, 0x2000, 0x10, 8, false },
	{ "region_ends_at_2^64", TOP - 0xfff, 0x1000, TOP - 0xfff, 8, false },
	{ "region_ends_below_2^64", TOP - 0x1000, 0x1000, TOP - 0x1000,
	  0x1000, true },
	{ "region_whole_space", 0, TOP, 0, TOP, true },
	{ "region_whole_space_va1", 0, TOP, 1, TOP, false },
	/* lengths at the 32-bit boundaries */
	{ "len_2^31", 0, G2, 0, G2, true },
	{ "len_2^31_plus_1", 0, G2, 0, G2 + 1, false },
	{ "len_2^32_minus_1", G4, G4, G4 + 1, G4 - 1, true },
	{ "len_2^32_minus_1_off_by_one", G4, G4, G4 + 2, G4 - 1, false },
	{ "len_2^32_in_small_region", 0x1000, 0x1000, 0x1000, G4, false },
	/* va far below start: va - start must not wrap into range */
	{ "va_far_below", BIT_ULL(63), 16, 0, BIT_ULL(63) + 8, false },
	{ "va_far_above", 0, 16, BIT_ULL(63), 8, false },
};

static void range_case_to_desc(const struct range_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_range, range_cases, range_case_to_desc);

static void range_ok_test(struct kunit *test)
{
	const struct range_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_range_ok(c->start, c->length, c->va, c->len),
			c->ok);
}

/* ------------------------------------------------- srdma_user_mr_check() */

struct user_mr_case {
	const char *name;
	u64 start, length, iova;
	int err;
};

static const struct user_mr_case user_mr_cases[] = {
	{ "page", 0x10000, SZ_4K, 0x10000, 0 },
	{ "other_iova_same_offset", 0x10123, 100, 0x7777000123ULL, 0 },
	{ "length_0", 0x10000, 0, 0x10000, -EINVAL },
	{ "length_max", 0, TOP, 0, 0 },
	{ "iova_wraps", 0x10000, 0x2000, TOP - 0xfff, -EINVAL },
	{ "iova_ends_at_2^64", 0x10000, 0x1000, TOP - 0xfff, -EINVAL },
	{ "iova_ends_below_2^64", 0x10000, 0x1000, TOP - 0x1fff, 0 },
	{ "start_wraps", TOP - 0xfff, 0x2000, 0x1000, -EINVAL },
	{ "offset_mismatch", 0x10123, 100, 0x20124, -EINVAL },
	{ "offset_mismatch_page", 0x10000, 100, 0x20800, -EINVAL },
	{ "len_2^32_minus_1", 0x10000, G4 - 1, 0x10000, 0 },
};

static void user_mr_case_to_desc(const struct user_mr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_user_mr, user_mr_cases, user_mr_case_to_desc);

static void user_mr_check_test(struct kunit *test)
{
	const struct user_mr_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_user_mr_check(c->start, c->length, c->iova,
						  SRDMA_MAX_MR_BYTES),
			c->err);
}

static void user_mr_max_bytes_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, srdma_user_mr_check(0, SZ_4K, 0, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, srdma_user_mr_check(0, SZ_4K + 1, 0, SZ_4K),
			-EINVAL);
}

/* ----------------------------------------------- srdma_odp_page_index() */

struct odp_index_case {
	const char *name;
	u64 umem_start, address, iova, va;
	unsigned long index;
};

static const struct odp_index_case odp_index_cases[] = {
	{ "first_byte", 0x10000, 0x10000, 0x10000, 0x10000, 0 },
	{ "unaligned_first_byte", 0x10000, 0x10123, 0x7777000123ULL,
	  0x7777000123ULL, 0 },
	{ "unaligned_next_page", 0x10000, 0x10123, 0x7777000123ULL,
	  0x7777000123ULL + 0xedd, 1 },
	{ "unaligned_last_in_page", 0x10000, 0x10123, 0x7777000123ULL,
	  0x7777000123ULL + 0xedc, 0 },
	{ "mr_ends_at_2^64", TOP - 0x1fff, TOP - 0x1fff, 0x1000, 0x2fff, 1 },
	{ "iova_ends_at_2^64", 0x10000, 0x10000, TOP - 0x1fff, TOP, 1 },
	{ "iova_below_address", 0x7fff0000, 0x7fff0010, 0x10, 0x2010, 2 },
};

static void odp_index_case_to_desc(const struct odp_index_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_odp_index, odp_index_cases, odp_index_case_to_desc);

static void odp_page_index_test(struct kunit *test)
{
	const struct odp_index_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_odp_page_index(c->umem_start, c->address,
						   c->iova, c->va),
			c->index);
}

/* -------------------------------------------------- srdma_sq_may_fetch() */

struct fetch_case {
	const char *name;
	u32 consumer, index, posted, mask;
	bool ok;
};

static const struct fetch_case fetch_cases[] = {
	{ "empty", 0, 0, 0, 3, false },
	{ "one_posted", 0, 0, 1, 3, true },
	{ "all_fetched", 0, 3, 3, 3, false },
	{ "ring_full_last", 0, 2, 3, 3, true },
	/* a process moves its producer index: never lap the consumer */
	{ "producer_back", 0, 3, 1, 3, false },
	{ "producer_whole_ring", 0, 3, 0, 3, false },
	{ "producer_back_to_index", 0, 2, 2, 3, false },
	{ "wrapped_ok", 2, 0, 1, 3, true },
	{ "wrapped_done", 2, 1, 1, 3, false },
	{ "index_behind_posted_wrap", 3, 3, 2, 3, true },
	{ "big_ring_full_done", 100, 99, 99, 16383, false },
	{ "big_ring_full_last", 100, 98, 99, 16383, true },
	{ "big_ring_far_index_ok", 100, 16383, 99, 16383, true },
};

static void fetch_case_to_desc(const struct fetch_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_fetch, fetch_cases, fetch_case_to_desc);

static void sq_may_fetch_test(struct kunit *test)
{
	const struct fetch_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_sq_may_fetch(c->consumer, c->index,
						 c->posted, c->mask),
			c->ok);
}

/*
 * Whatever the producer index does, a requester that only goes on when
 * srdma_sq_may_fetch() says so never reaches the consumer from behind.
 */
static void sq_never_laps_test(struct kunit *test)
{
	const u32 mask = 7, consumer = 5;
	u32 posted, index, steps;

	for (posted = 0; posted <= mask; posted++) {
		index = consumer;
		for (steps = 0; steps <= 2 * mask; steps++) {
			if (!srdma_sq_may_fetch(consumer, index, posted, mask))
				break;
			index = (index + 1) & mask;
			KUNIT_EXPECT_NE(test, index, consumer);
		}
		KUNIT_EXPECT_LE(test, steps, mask);
	}
}

/* ---------------------------------------------- srdma_swqe_window_room() */

/*
 * A requester that copies WQEs while srdma_swqe_window_room() says so, and
 * completes them in order now and then, never has two WQEs under way in
 * one entry of its window, and fills the window when the ring is bigger.
 */
static void swqe_window_test(struct kunit *test)
{
	static const u32 masks[][2] = {
		{ 7, 7 }, { 7, 3 }, { 255, 63 }, { 16383, 63 }, { 1, 0 },
	};
	u32 m, step, i;

	for (m = 0; m < ARRAY_SIZE(masks); m++) {
		const u32 mask = masks[m][0], wmask = masks[m][1];
		u32 consumer = mask - 1, fetched = consumer, most = 0;

		for (step = 0; step < 4 * (wmask + 2); step++) {
			u32 n = (fetched - consumer) & mask;
			u64 seen = 0;

			/* every third step completes the oldest */
			if (step % 3 == 2 && n) {
				consumer = (consumer + 1) & mask;
				continue;
			}
			/* the ring holds at most mask WQEs */
			if (n == mask ||
			    !srdma_swqe_window_room(consumer, fetched, mask,
						    wmask))
				continue;
			fetched = (fetched + 1) & mask;
			most = max(most, ++n);
			for (i = 0; i < n; i++) {
				u32 entry = (consumer + i) & mask & wmask;

				KUNIT_EXPECT_FALSE(test, seen & BIT_ULL(entry));
				seen |= BIT_ULL(entry);
			}
		}
		KUNIT_EXPECT_EQ(test, most, min(mask, wmask + 1));
	}
}

/* --------------------------------------------------- srdma_swqe_length() */

#define SWQE_SGES	SRDMA_MAX_SGE

struct swqe_case {
	const char *name;
	u32 opcode, send_flags;
	u32 dma_length;		/* inline bytes, an ATOMIC WRITE's 8 */
	u32 num_sge;
	u32 sge_length;		/* of every SGE present */
	u64 remote_addr;
	u32 max_sge, max_inline;
	enum ib_wc_status status;
	u32 length;
};

static const struct swqe_case swqe_cases[] = {
	{ "send_no_sge", IB_WR_SEND, 0, 0, 0, 0, 0, 3, 48, IB_WC_SUCCESS, 0 },
	{ "send_one_sge", IB_WR_SEND, 0, 0, 1, 100, 0, 3, 48, IB_WC_SUCCESS,
	  100 },
	{ "num_sge_max", IB_WR_SEND, 0, 0, 3, 1, 0, 3, 48, IB_WC_SUCCESS, 3 },
	{ "num_sge_max_plus_1", IB_WR_SEND, 0, 0, 4, 1, 0, 3, 48,
	  IB_WC_LOC_LEN_ERR },
	{ "num_sge_u32_max", IB_WR_SEND, 0, 0, U32_MAX, 1, 0, 3, 48,
	  IB_WC_LOC_LEN_ERR },
	{ "len_2^31", IB_WR_RDMA_WRITE, 0, 0, 1, (u32)G2, 0, 3, 48,
	  IB_WC_SUCCESS, (u32)G2 },
	{ "len_2^31_in_two", IB_WR_RDMA_WRITE, 0, 0, 2, (u32)(G2 / 2), 0, 3, 48,
	  IB_WC_SUCCESS, (u32)G2 },
	{ "len_over_2^31", IB_WR_RDMA_WRITE, 0, 0, 3, (u32)(G2 / 2 + 1), 0, 3,
	  48, IB_WC_LOC_LEN_ERR },
	/* in u32 these sums wrap to 0 and to a small number */
	{ "sum_2^32_wraps_u32", IB_WR_SEND, 0, 0, 2, (u32)G2, 0, 3, 48,
	  IB_WC_LOC_LEN_ERR },
	{ "sum_32_x_u32_max", IB_WR_SEND, 0, 0, 32, U32_MAX, 0, 32, 48,
	  IB_WC_LOC_LEN_ERR },
	{ "len_u32_max", IB_WR_SEND, 0, 0, 1, U32_MAX, 0, 3, 48,
	  IB_WC_LOC_LEN_ERR },
	{ "read_2^31", IB_WR_RDMA_READ, 0, 0, 1, (u32)G2, 0, 3, 48,
	  IB_WC_SUCCESS, (u32)G2 },
	/* inline: up to the slot's room, payload opcodes only */
	{ "inline_max", IB_WR_SEND, IB_SEND_INLINE, 48, 0, 0, 0, 3, 48,
	  IB_WC_SUCCESS, 48 },
	{ "inline_max_plus_1", IB_WR_SEND, IB_SEND_INLINE, 49, 0, 0, 0, 3, 48,
	  IB_WC_LOC_LEN_ERR },
	{ "inline_u32_max", IB_WR_RDMA_WRITE, IB_SEND_INLINE, U32_MAX, 0, 0, 0,
	  3, 48, IB_WC_LOC_LEN_ERR },
	{ "inline_0", IB_WR_SEND, IB_SEND_INLINE, 0, 0, 0, 0, 3, 48,
	  IB_WC_SUCCESS, 0 },
	{ "inline_garbage_num_sge", IB_WR_SEND, IB_SEND_INLINE, 16, U32_MAX, 0,
	  0, 3, 48, IB_WC_SUCCESS, 16 },
	{ "inline_read", IB_WR_RDMA_READ, IB_SEND_INLINE, 16, 1, 0, 0, 3, 48,
	  IB_WC_LOC_QP_OP_ERR },
	{ "inline_read_huge_num_sge", IB_WR_RDMA_READ, IB_SEND_INLINE, 16,
	  U32_MAX, 0, 0, 3, 48, IB_WC_LOC_QP_OP_ERR },
	{ "inline_atomic", IB_WR_ATOMIC_FETCH_AND_ADD, IB_SEND_INLINE, 8,
	  U32_MAX, 0, 0x1000, 3, 48, IB_WC_LOC_QP_OP_ERR },
	/* atomics: 8 bytes to an aligned address */
	{ "atomic", IB_WR_ATOMIC_CMP_AND_SWP, 0, 0, 1, 8, 0x1000, 3, 48,
	  IB_WC_SUCCESS, 8 },
	{ "atomic_two_sges", IB_WR_ATOMIC_CMP_AND_SWP, 0, 0, 2, 4, 0x1000, 3,
	  48, IB_WC_SUCCESS, 8 },
	{ "atomic_unaligned", IB_WR_ATOMIC_FETCH_AND_ADD, 0, 0, 1, 8, 0x1004, 3,
	  48, IB_WC_LOC_QP_OP_ERR },
	{ "atomic_16_bytes", IB_WR_ATOMIC_FETCH_AND_ADD, 0, 0, 1, 16, 0x1000, 3,
	  48, IB_WC_LOC_QP_OP_ERR },
	{ "atomic_0_bytes", IB_WR_ATOMIC_FETCH_AND_ADD, 0, 0, 0, 0, 0x1000, 3,
	  48, IB_WC_LOC_QP_OP_ERR },
	/*
	 * ATOMIC WRITE: 8 bytes in the WQE (dma.length), whatever num_sge and
	 * IB_SEND_INLINE say; the address is the responder's to check
	 */
	{ "atomic_write", IB_WR_ATOMIC_WRITE, 0, 8, U32_MAX, 0, 0x1000, 3, 48,
	  IB_WC_SUCCESS, 8 },
	{ "atomic_write_inline", IB_WR_ATOMIC_WRITE, IB_SEND_INLINE, 8, 1, 0,
	  0x1000, 3, 48, IB_WC_SUCCESS, 8 },
	{ "atomic_write_unaligned", IB_WR_ATOMIC_WRITE, 0, 8, 0, 0, 0x1004, 3,
	  48, IB_WC_SUCCESS, 8 },
	{ "atomic_write_7_bytes", IB_WR_ATOMIC_WRITE, 0, 7, 0, 0, 0x1000, 3, 48,
	  IB_WC_LOC_QP_OP_ERR },
	{ "atomic_write_u32_max_bytes", IB_WR_ATOMIC_WRITE, 0, U32_MAX, 0, 0,
	  0x1000, 3, 48, IB_WC_LOC_QP_OP_ERR },
};

static void swqe_case_to_desc(const struct swqe_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_swqe, swqe_cases, swqe_case_to_desc);

static void swqe_length_test(struct kunit *test)
{
	const struct swqe_case *c = test->param_value;
	struct rxe_send_wqe *wqe;
	enum ib_wc_status status;
	u32 i, length = 0xdeadbeef;

	wqe = kunit_kzalloc(test, sizeof(*wqe) +
			    SWQE_SGES * sizeof(struct rxe_sge), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wqe);
	KUNIT_ASSERT_LE(test, c->max_sge, (u32)SWQE_SGES);
	wqe->wr.opcode = c->opcode;
	wqe->wr.send_flags = c->send_flags;
	wqe->wr.wr.atomic.remote_addr = c->remote_addr;
	wqe->dma.num_sge = c->num_sge;
	if ((c->send_flags & IB_SEND_INLINE) || c->opcode == IB_WR_ATOMIC_WRITE)
		wqe->dma.length = c->dma_length;
	else
		for (i = 0; i < min_t(u32, c->num_sge, SWQE_SGES); i++)
			wqe->dma.sge[i].length = c->sge_length;

	status = srdma_swqe_length(wqe, c->max_sge, c->max_inline, &length);
	KUNIT_EXPECT_EQ(test, status, c->status);
	if (status != IB_WC_SUCCESS)
		return;
	KUNIT_EXPECT_EQ(test, length, c->length);
	/* nothing may walk an SGE list that is inline data */
	if ((c->send_flags & IB_SEND_INLINE) || c->opcode == IB_WR_ATOMIC_WRITE)
		KUNIT_EXPECT_EQ(test, wqe->dma.num_sge, 0U);
	else
		KUNIT_EXPECT_LE(test, wqe->dma.num_sge, c->max_sge);
}

/* --------------------------------- srdma_msg_npsn(), srdma_read_npsn_ok() */

struct npsn_case {
	const char *name;
	u32 length, mtu;
	u32 npsn;
	bool read_ok;
};

static const struct npsn_case npsn_cases[] = {
	{ "len_0", 0, 256, 1, true },
	{ "len_1", 1, 256, 1, true },
	{ "len_mtu", 256, 256, 1, true },
	{ "len_mtu_plus_1", 257, 256, 2, true },
	{ "len_2^31_mtu_4096", (u32)G2, 4096, BIT(19), true },
	{ "len_2^31_mtu_1024", (u32)G2, 1024, BIT(21), true },
	{ "len_2^31_mtu_512", (u32)G2, 512, BIT(22), true },
	/* 2^23 PSNs: half the PSN circle, srdma_psn_diff() changes sign */
	{ "len_2^31_mtu_256", (u32)G2, 256, BIT(23), false },
	{ "read_limit_mtu_256", (u32)(G2 - 64 * 256), 256,
	  BIT(23) - 64, true },
	{ "read_limit_plus_1_mtu_256", (u32)(G2 - 64 * 256 + 1), 256,
	  BIT(23) - 63, false },
	/* in u32, DIV_ROUND_UP(U32_MAX, 256) wraps to 0 */
	{ "len_u32_max_mtu_256", U32_MAX, 256, BIT(24), false },
	{ "len_u32_max_mtu_4096", U32_MAX, 4096, BIT(20), true },
};

static void npsn_case_to_desc(const struct npsn_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_npsn, npsn_cases, npsn_case_to_desc);

static void npsn_test(struct kunit *test)
{
	const struct npsn_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_msg_npsn(c->length, c->mtu), c->npsn);
	KUNIT_EXPECT_EQ(test, srdma_read_npsn_ok(c->length, c->mtu), c->read_ok);
}

/* -------------------------------------------------- srdma_req_pkt_span() */

struct pkt_span_case {
	const char *name;
	u32 psn, first_psn, npsn, mtu, length;
	int err;
	u64 offset;
	u32 payload;
};

static const struct pkt_span_case pkt_span_cases[] = {
	{ "only", 100, 100, 1, 1024, 1000, 0, 0, 1000 },
	{ "zero_length", 100, 100, 1, 1024, 0, 0, 0, 0 },
	{ "first_of_3", 100, 100, 3, 1024, 2500, 0, 0, 1024 },
	{ "middle_of_3", 101, 100, 3, 1024, 2500, 0, 1024, 1024 },
	{ "last_of_3", 102, 100, 3, 1024, 2500, 0, 2048, 452 },
	{ "last_full", 102, 100, 3, 1024, 3072, 0, 2048, 1024 },
	{ "psn_wraps", 0x000001, 0xfffffe, 4, 256, 1024, 0, 768, 256 },
	/* the shape of a requester at a PSN before its WQE (SQ lapped) */
	{ "psn_before_first", 96, 100, 3, 1024, 2500, -ERANGE },
	{ "psn_one_before_first", 99, 100, 3, 1024, 2500, -ERANGE },
	{ "psn_after_last", 103, 100, 3, 1024, 2500, -ERANGE },
	{ "psn_far_after", 100 + BIT(22), 100, 3, 1024, 2500, -ERANGE },
	{ "mtu_0", 100, 100, 1, 0, 0, -ERANGE },
	{ "npsn_beyond_length", 103, 100, 8, 1024, 2500, -ERANGE },
	{ "max_msg_last_mtu_4096", 100 + BIT(19) - 1, 100, BIT(19), 4096,
	  (u32)G2, 0, G2 - 4096, 4096 },
};

static void pkt_span_case_to_desc(const struct pkt_span_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_pkt_span, pkt_span_cases, pkt_span_case_to_desc);

static void req_pkt_span_test(struct kunit *test)
{
	const struct pkt_span_case *c = test->param_value;
	u64 offset = 0xdead;
	u32 payload = 0xbeef;
	int err;

	err = srdma_req_pkt_span(c->psn, c->first_psn, c->npsn, c->mtu,
				 c->length, &offset, &payload);
	KUNIT_EXPECT_EQ(test, err, c->err);
	if (err)
		return;
	KUNIT_EXPECT_EQ(test, offset, c->offset);
	KUNIT_EXPECT_EQ(test, payload, c->payload);
	KUNIT_EXPECT_LE(test, offset + payload, (u64)c->length);
}

/* ----------------------------------------------------- srdma_recv_fits() */

struct recv_case {
	const char *name;
	u64 placed, len, room;
	bool ok;
};

static const struct recv_case recv_cases[] = {
	{ "empty", 0, 0, 0, true },
	{ "exact", 0, 100, 100, true },
	{ "one_over", 0, 101, 100, false },
	{ "second_packet_exact", 4096, 4096, 8192, true },
	{ "second_packet_over", 4096, 4097, 8192, false },
	{ "ud_grh_and_mtu", 40, 4096, 4136, true },
	{ "ud_grh_and_mtu_short", 40, 4096, 4135, false },
	{ "placed_u32_max", U32_MAX, 1, U32_MAX, false },
	{ "placed_wraps_u32", U32_MAX, 2, U32_MAX, false },
	{ "wraps_u64", TOP, 2, TOP, false },
};

static void recv_case_to_desc(const struct recv_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_recv, recv_cases, recv_case_to_desc);

static void recv_fits_test(struct kunit *test)
{
	const struct recv_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srdma_recv_fits(c->placed, c->len, c->room), c->ok);
}

/* -------------------------------------------------- srdma_mr_access_ok() */

/* an MR checked at the first packet of a message, then changed under it */
static void mr_access_revalidate_test(struct kunit *test)
{
	struct srdma_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	const u32 key = 0x1234;

	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->kind = SRDMA_MR_FAST_REG;
	mr->key = key;
	mr->ibmr.iova = 0x10000;
	mr->ibmr.length = 0x2000;
	KUNIT_EXPECT_TRUE(test, srdma_mr_access_ok(mr, key, 0x11000, 0x1000));
	KUNIT_EXPECT_FALSE(test, srdma_mr_access_ok(mr, key, 0x11001, 0x1000));
	KUNIT_EXPECT_FALSE(test, srdma_mr_access_ok(mr, key + 1, 0x11000, 1));

	/* invalidated (LOCAL_INV, SEND with invalidate): key 0 */
	mr->key = 0;
	KUNIT_EXPECT_FALSE(test, srdma_mr_access_ok(mr, key, 0x11000, 0x1000));

	/* registered again with the same key, mapped elsewhere */
	mr->key = key;
	mr->ibmr.iova = 0x90000;
	KUNIT_EXPECT_FALSE(test, srdma_mr_access_ok(mr, key, 0x11000, 0x1000));

	/* the DMA MR has no bounds, only its key */
	mr->kind = SRDMA_MR_DMA;
	KUNIT_EXPECT_TRUE(test, srdma_mr_access_ok(mr, key, 0x11000, 0x1000));
	KUNIT_EXPECT_FALSE(test, srdma_mr_access_ok(mr, 0, 0x11000, 0x1000));
}

/* ------------------------------------ srdma_rkey_access_begin(), fence */

struct fence_work {
	struct work_struct work;
	struct srdma_mr *mr;
	struct completion done;
};

/* an invalidation, as an engine runs it: bottom halves off */
static void fence_invalidate(struct work_struct *work)
{
	struct fence_work *fw = container_of(work, struct fence_work, work);

	local_bh_disable();
	WRITE_ONCE(fw->mr->key, 0);
	srdma_mr_fence(fw->mr);
	local_bh_enable();
	complete(&fw->done);
}

/*
 * A packet's access that passed the key before another QP invalidated it:
 * the invalidation completes only once the access ended, so that no byte
 * moves through the key after its work completion.
 */
static void mr_fence_test(struct kunit *test)
{
	struct srdma_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	struct fence_work fw = { .mr = mr };
	const u32 key = 0x1234;
	unsigned int other;
	bool waited;

	KUNIT_ASSERT_NOT_NULL(test, mr);
	/* the fence spins: the invalidation needs a CPU of its own */
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	mr->kind = SRDMA_MR_FAST_REG;
	mr->key = key;
	mr->ibmr.iova = 0x10000;
	mr->ibmr.length = 0x2000;
	KUNIT_ASSERT_TRUE(test, srdma_rkey_access_begin(mr, key, 0x11000, 0x1000));

	INIT_WORK_ONSTACK(&fw.work, fence_invalidate);
	init_completion(&fw.done);
	migrate_disable();
	other = cpumask_any_but(cpu_online_mask, smp_processor_id());
	queue_work_on(other, system_highpri_wq, &fw.work);
	waited = !wait_for_completion_timeout(&fw.done, msecs_to_jiffies(50));
	srdma_rkey_access_end(mr);
	if (waited)
		wait_for_completion(&fw.done);
	migrate_enable();
	flush_work(&fw.work);
	destroy_work_on_stack(&fw.work);

	KUNIT_EXPECT_TRUE_MSG(test, waited,
			      "the invalidation completed under an access");
	KUNIT_EXPECT_EQ(test, atomic_read(&mr->accessing), 0);
	KUNIT_EXPECT_EQ(test, mr->key, 0);
}

static struct kunit_case range_test_cases[] = {
	KUNIT_CASE_PARAM(range_ok_test, rt_range_gen_params),
	KUNIT_CASE_PARAM(user_mr_check_test, rt_user_mr_gen_params),
	KUNIT_CASE_PARAM(odp_page_index_test, rt_odp_index_gen_params),
	KUNIT_CASE(user_mr_max_bytes_test),
	KUNIT_CASE_PARAM(sq_may_fetch_test, rt_fetch_gen_params),
	KUNIT_CASE(sq_never_laps_test),
	KUNIT_CASE(swqe_window_test),
	KUNIT_CASE_PARAM(swqe_length_test, rt_swqe_gen_params),
	KUNIT_CASE_PARAM(npsn_test, rt_npsn_gen_params),
	KUNIT_CASE_PARAM(req_pkt_span_test, rt_pkt_span_gen_params),
	KUNIT_CASE_PARAM(recv_fits_test, rt_recv_gen_params),
	KUNIT_CASE(mr_access_revalidate_test),
	KUNIT_CASE(mr_fence_test),
	{}
};

static struct kunit_suite range_test_suite = {
	.name = "srdma_range",
	.test_cases = range_test_cases,
};

kunit_test_suite(range_test_suite);
