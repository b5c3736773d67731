// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Rate arithmetic: token buckets and where a QP's rate comes from.
 *
 * As in sch_tbf, the tokens are time: a bucket at R kbit/s holds up to the
 * time its burst takes at R, gains the time that passes, and pays for each
 * frame the time the frame takes at R. srdma lets a frame go whenever the
 * tokens are not negative and charges it in full, which can leave a debt
 * of one frame: the long-run rate is exact whatever the burst and the
 * frame sizes, and a burst smaller than a frame still works.
 */
#include <kunit/visibility.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <rdma/ib_verbs.h>

#include "srdma_rate.h"

/**
 * srdma_rate_cost_ns() - the time @bytes take at @kbps, rounded
 * @bytes: frame bytes
 * @kbps: the rate, not 0
 */
u64 srdma_rate_cost_ns(u64 bytes, u64 kbps)
{
	/* bits x 10^9 ns / (kbps x 10^3): bytes x 8 x 10^6 / kbps */
	return mul_u64_u64_div_u64(bytes, 8 * USEC_PER_SEC, kbps) +
	       (mul_u64_u64_div_u64(bytes, 16 * USEC_PER_SEC, kbps) & 1);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_rate_cost_ns);

/**
 * srdma_rate_default_burst() - SRDMA_DEFAULT_BURST_NS at @kbps, at least
 * SRDMA_MIN_BURST_BYTES and at most SRDMA_MAX_BURST_BYTES
 * @kbps: the rate
 */
u32 srdma_rate_default_burst(u64 kbps)
{
	/* kbit/s x us / 1000 = bits; / 8 */
	u64 bytes = mul_u64_u64_div_u64(kbps, SRDMA_DEFAULT_BURST_NS /
					NSEC_PER_USEC, 8 * USEC_PER_MSEC);

	return clamp_t(u64, bytes, SRDMA_MIN_BURST_BYTES,
		       SRDMA_MAX_BURST_BYTES);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_rate_default_burst);

/**
 * srdma_tbf_set() - a new rate or burst for a bucket in use
 * @tbf: the bucket
 * @kbps: the rate; 0: unlimited
 * @burst: bytes; 0: the default for @kbps
 * @now: ktime_get_ns()
 *
 * The tokens keep what they had, up to the new depth, and start full when
 * the bucket was unlimited: a change takes effect within one burst.
 */
void srdma_tbf_set(struct srdma_tbf *tbf, u64 kbps, u32 burst, u64 now)
{
	u64 old = tbf->kbps, bytes;

	if (old)
		srdma_tbf_wait_ns(tbf, now);
	tbf->kbps = kbps;
	tbf->rem = 0;
	if (!kbps)
		return;
	if (!burst)
		burst = srdma_rate_default_burst(kbps);
	tbf->depth_ns = srdma_rate_cost_ns(burst, kbps);
	if (!old) {
		tbf->tokens_ns = tbf->depth_ns;
		tbf->stamp_ns = now;
		return;
	}
	/* the same bytes of credit or debt, as time at the new rate */
	bytes = mul_u64_u64_div_u64(abs(tbf->tokens_ns), old, 8 * USEC_PER_SEC);
	tbf->tokens_ns = tbf->tokens_ns < 0 ?
			 -(s64)srdma_rate_cost_ns(bytes, kbps) :
			 min_t(s64, srdma_rate_cost_ns(bytes, kbps), tbf->depth_ns);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_tbf_set);

/**
 * srdma_tbf_wait_ns() - bring the tokens up to @now; how long until a
 * frame may go
 * @tbf: the bucket
 * @now: ktime_get_ns()
 *
 * Return: 0 if a frame may go now (or the bucket is unlimited), else the
 * nanoseconds until it may.
 */
u64 srdma_tbf_wait_ns(struct srdma_tbf *tbf, u64 now)
{
	u64 elapsed;

	if (!tbf->kbps)
		return 0;
	if (now > tbf->stamp_ns) {
		/* bounded first: a bucket idle for years must not overflow */
		elapsed = min_t(u64, now - tbf->stamp_ns,
				tbf->depth_ns - tbf->tokens_ns);
		tbf->tokens_ns += elapsed;
		tbf->stamp_ns = now;
	}
	return tbf->tokens_ns < 0 ? -tbf->tokens_ns : 0;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_tbf_wait_ns);

/**
 * srdma_tbf_charge() - a frame of @bytes went
 * @tbf: the bucket
 * @bytes: frame bytes
 */
void srdma_tbf_charge(struct srdma_tbf *tbf, u32 bytes)
{
	u64 rem;

	if (!tbf->kbps)
		return;
	/* the fractions of a nanosecond add up over millions of frames */
	tbf->tokens_ns -= div64_u64_rem((u64)bytes * 8 * USEC_PER_SEC +
					tbf->rem, tbf->kbps, &rem);
	tbf->rem = rem;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_tbf_charge);

/**
 * srdma_static_rate_kbps() - an enum ib_rate as kbit/s
 * @static_rate: the address vector's static_rate
 *
 * Return: the rate, or 0 for IB_RATE_PORT_CURRENT (no limit).
 */
u64 srdma_static_rate_kbps(u8 static_rate)
{
	int mbps = ib_rate_to_mbps(static_rate);

	return mbps > 0 ? (u64)mbps * 1000 : 0;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_static_rate_kbps);

/**
 * srdma_rate_resolve() - the rate a QP gets, and where it comes from
 * @cfg: the QP's sources
 * @default_kbps: the port's default, 0: none
 * @ceiling_kbps: the port's ceiling, 0: none
 * @port_kbps: the port's speed
 * @kbps: set to the rate; 0: unlimited
 *
 * The most specific source that is set wins: the administrator's, then
 * IB_QP_RATE_LIMIT, then static_rate, then the port's default. A
 * static_rate of the port's speed or more limits nothing (rdma_cm asks for
 * the port's speed). The ceiling caps the result, and limits QPs that have
 * no rate.
 *
 * Return: enum srdma_rate_source.
 */
enum srdma_rate_source srdma_rate_resolve(const struct srdma_rate_cfg *cfg,
					  u64 default_kbps, u64 ceiling_kbps,
					  u64 port_kbps, u64 *kbps)
{
	enum srdma_rate_source source = SRDMA_RATE_NONE;
	u64 rate = 0;

	if (cfg->admin_kbps) {
		rate = cfg->admin_kbps;
		source = SRDMA_RATE_ADMIN;
	} else if (cfg->verbs_kbps) {
		rate = cfg->verbs_kbps;
		source = SRDMA_RATE_VERBS;
	} else if (cfg->av_kbps && cfg->av_kbps < port_kbps) {
		rate = cfg->av_kbps;
		source = SRDMA_RATE_AV;
	} else if (default_kbps) {
		rate = default_kbps;
		source = SRDMA_RATE_DEFAULT;
	}
	if (ceiling_kbps && (!rate || rate > ceiling_kbps)) {
		rate = ceiling_kbps;
		source = SRDMA_RATE_CEILING;
	}
	*kbps = rate;
	return source;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_rate_resolve);
