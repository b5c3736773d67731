/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Per-QP rate limiting: a token bucket per QP and a round-robin of the
 * port's QPs (Documentation/rate-limiting.md).
 */
#ifndef SRDMA_RATE_H
#define SRDMA_RATE_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <srdma/rate_netlink.h>

/*
 * the default burst: this long at the rate, but at least SRDMA_MIN_BURST_BYTES;
 * a throttled QP waits for half of it, and the other half covers an engine
 * that runs up to that late (behind another QP's stream on its CPU)
 */
#define SRDMA_DEFAULT_BURST_NS		(4 * NSEC_PER_MSEC)
#define SRDMA_MIN_BURST_BYTES		(64 * 1024)
/* bursts an administrator may set */
#define SRDMA_MAX_BURST_BYTES		(64 * 1024 * 1024)
/* bytes each QP sends per round while other QPs of the port wait */
#define SRDMA_DRR_QUANTUM_BYTES		(64 * 1024)
/* a port whose netdev reports no speed */
#define SRDMA_UNKNOWN_PORT_KBPS		(100ULL * 1000 * 1000)

/**
 * struct srdma_tbf - a token bucket, kept in nanoseconds as sch_tbf does
 * @kbps: the rate; 0: unlimited (the bucket is not used)
 * @depth_ns: the burst, as the time it takes at @kbps
 * @tokens_ns: at most @depth_ns; below 0 is a debt: a frame is sent
 *             whenever the tokens are not negative and charged in full, so
 *             any burst works and the long-run rate is exact
 * @stamp_ns: when @tokens_ns was last brought up to date
 * @rem: what the charges left below a nanosecond, in ns x @kbps
 */
struct srdma_tbf {
	u64 kbps;
	s64 depth_ns;
	s64 tokens_ns;
	u64 stamp_ns;
	u64 rem;
};

/**
 * struct srdma_rate_cfg - what sets a rate; rates in kbit/s, 0: none
 * @admin_kbps: an administrator's, through netlink
 * @admin_burst: its burst in bytes; 0: the default
 * @verbs_kbps: IB_QP_RATE_LIMIT from ib_modify_qp()
 * @av_kbps: the address vector's static_rate
 */
struct srdma_rate_cfg {
	u64 admin_kbps;
	u32 admin_burst;
	u64 verbs_kbps;
	u64 av_kbps;
};

/**
 * struct srdma_qp_rate - a QP's rate limiting
 * @lock: guards @cfg and @gen against the QP's engine
 * @cfg: the sources of its rate
 * @gen: bumped at each change of @cfg
 * @xmit_lock: guards what both halves of the engine change as they send:
 *	the fields below but the port's and @tx_bytes, and the QP's
 *	xmit_retry_ns; taken only while they are in use (srdma_sched.c)
 * @applied_gen: the @gen (plus the port's) the engine's @tbf follows
 * @source: enum srdma_rate_source of the rate in @tbf
 * @sending: the halves that sent data in a round since they last ran
 *	dry: the QP leaves the round only once none does
 * @tbf: the bucket
 * @timer: kicks the engine when the tokens are back
 * @throttled_since: when it started to wait for tokens; 0: not waiting
 * @counted: @cfg sets a rate, counted in the port's @nr_rate_qps; under @lock
 * @in_round: counted in the port's active QPs; set under the port's lock,
 *	read by the engine without it (only the engine clears it)
 * @deficit: bytes it may still send this round; the engine's while
 *	@in_round, else under the port's lock
 * @uncharged: bytes sent and not yet taken from @deficit
 * @wait_node: on the port's waiting list, under the port's lock
 * @throttle_events: times it had to wait for tokens
 * @throttled_ns: time it waited for tokens
 * @tx_bytes: frame bytes charged to it, by each half of its engine (enum
 *	srdma_half), each half its own count
 */
struct srdma_qp_rate {
	spinlock_t lock;	/* guards cfg, gen, counted */
	struct srdma_rate_cfg cfg;
	u32 gen;
	bool counted;

	spinlock_t xmit_lock;	/* the rest but tx_bytes; xmit_retry_ns */
	u32 applied_gen;
	u8 source;
	u8 sending;		/* BIT(enum srdma_half) of halves in a round */
	struct srdma_tbf tbf;
	struct hrtimer timer;
	u64 throttled_since;

	bool in_round;
	s64 deficit;
	u64 uncharged;
	struct list_head wait_node;

	u64 throttle_events;
	u64 throttled_ns;
	u64 tx_bytes[2];
};

/**
 * struct srdma_port_rate - the port's side: settings and the round-robin
 * @lock: guards everything below but @nr_rate_qps; @default_kbps and
 *	@ceiling_kbps are read without it too
 * @default_kbps: the rate of QPs that set none; 0: unlimited
 * @ceiling_kbps: no QP goes faster; 0: none
 * @burst: the burst of QPs whose rate is not the administrator's; 0: default
 * @port_kbps: the netdev's speed, the highest rate that may be set
 * @gen: bumped at each change of the settings
 * @nr_active: QPs sending in this round (in_round)
 * @waiting: QPs that used their quantum and wait for the next round
 * @nr_rate_qps: QPs whose own settings give them a rate
 *
 * With no rate set on the port and none on any of its QPs the round-robin
 * is off: every QP sends as its engine runs, without the lock.
 */
struct srdma_port_rate {
	spinlock_t lock;	/* guards all of it but nr_rate_qps */
	u64 default_kbps;
	u64 ceiling_kbps;
	u32 burst;
	u64 port_kbps;
	u32 gen;
	unsigned int nr_active;
	struct list_head waiting;
	atomic_t nr_rate_qps;
};

/**
 * struct srdma_qp_rate_info - a QP's rate as netlink shows it
 * @kbps: in force; 0: unlimited
 * @source: enum srdma_rate_source
 * @depth_ns: the burst, in time at @kbps
 * @throttle_events: times it waited for tokens
 * @throttled_ns: time it waited
 * @tx_bytes: frame bytes sent
 */
struct srdma_qp_rate_info {
	u64 kbps;
	u8 source;
	s64 depth_ns;
	u64 throttle_events;
	u64 throttled_ns;
	u64 tx_bytes;
};

/* srdma_rate.c: the arithmetic, free of locks and state */
u64 srdma_rate_cost_ns(u64 bytes, u64 kbps);
u32 srdma_rate_default_burst(u64 kbps);
void srdma_tbf_set(struct srdma_tbf *tbf, u64 kbps, u32 burst, u64 now);
u64 srdma_tbf_wait_ns(struct srdma_tbf *tbf, u64 now);
void srdma_tbf_charge(struct srdma_tbf *tbf, u32 bytes);
u64 srdma_static_rate_kbps(u8 static_rate);
enum srdma_rate_source srdma_rate_resolve(const struct srdma_rate_cfg *cfg,
					  u64 default_kbps, u64 ceiling_kbps,
					  u64 port_kbps, u64 *kbps);

#endif /* SRDMA_RATE_H */
