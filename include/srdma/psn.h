/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * 24-bit packet sequence numbers (IBTA 9.7.1): arithmetic modulo 2^24.
 *
 * Two PSNs compare by their signed distance on the circle, so a window of up
 * to 2^23 packets orders correctly across the wrap from 0xffffff to 0.
 */
#ifndef SRDMA_PSN_H
#define SRDMA_PSN_H

#include <linux/types.h>

#define SRDMA_PSN_BITS		24
#define SRDMA_PSN_MASK		((1U << SRDMA_PSN_BITS) - 1)

/* @psn + @n, wrapped to 24 bits */
static inline u32 srdma_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SRDMA_PSN_MASK;
}

/* @a - @b as a signed distance in [-2^23, 2^23) */
static inline s32 srdma_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << (32 - SRDMA_PSN_BITS)) >> (32 - SRDMA_PSN_BITS);
}

/* true if @a comes strictly before @b */
static inline bool srdma_psn_before(u32 a, u32 b)
{
	return srdma_psn_diff(a, b) < 0;
}

/* true if @psn lies in [@first, @first + @count) */
static inline bool srdma_psn_in_window(u32 psn, u32 first, u32 count)
{
	s32 d = srdma_psn_diff(psn, first);

	return d >= 0 && (u32)d < count;
}

#endif /* SRDMA_PSN_H */
