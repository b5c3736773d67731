/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB WITH Linux-syscall-note */
/*
 * The "srdma" generic netlink family: an administrator's view of srdma's
 * per-QP rate limiting (Documentation/rate-limiting.md). Shared by the
 * module and tools/srdma-rate; userspace ABI, so only ever extended.
 */
#ifndef SRDMA_RATE_NETLINK_H
#define SRDMA_RATE_NETLINK_H

#define SRDMA_GENL_NAME		"srdma"
#define SRDMA_GENL_VERSION	1

enum srdma_genl_cmd {
	SRDMA_CMD_UNSPEC,
	SRDMA_CMD_QP_GET,	/* DEV [QPN]: one QP, or a dump of all */
	SRDMA_CMD_QP_SET,	/* DEV QPN RATE_KBPS [BURST]: admin's rate */
	SRDMA_CMD_PORT_GET,	/* DEV */
	SRDMA_CMD_PORT_SET,	/* DEV [DEFAULT_KBPS] [CEILING_KBPS] [BURST] */
	__SRDMA_CMD_MAX,
};

#define SRDMA_CMD_MAX (__SRDMA_CMD_MAX - 1)

/*
 * Rates are in kbit/s (1000 bits per second) of Ethernet frames as they
 * leave (Ethernet, IP, UDP and InfiniBand headers included); 0 means none
 * set. Bursts are bytes; 0 asks for the default.
 */
enum srdma_genl_attr {
	SRDMA_ATTR_UNSPEC,
	SRDMA_ATTR_PAD,
	SRDMA_ATTR_DEV_NAME,		/* string: the ib_device, "srdma0" */
	SRDMA_ATTR_QPN,			/* u32 */
	SRDMA_ATTR_QP_TYPE,		/* u8: enum ib_qp_type */
	SRDMA_ATTR_RATE_KBPS,		/* u64: set: the admin's rate; get: in force */
	SRDMA_ATTR_BURST_BYTES,		/* u32: set: the admin's; get: in force */
	SRDMA_ATTR_RATE_SOURCE,		/* u8: enum srdma_rate_source */
	SRDMA_ATTR_ADMIN_KBPS,		/* u64 */
	SRDMA_ATTR_VERBS_KBPS,		/* u64: IB_QP_RATE_LIMIT */
	SRDMA_ATTR_AV_KBPS,		/* u64: the address vector's static_rate */
	SRDMA_ATTR_DEFAULT_KBPS,	/* u64: port */
	SRDMA_ATTR_CEILING_KBPS,	/* u64: port */
	SRDMA_ATTR_PORT_KBPS,		/* u64: port: the netdev's speed */
	SRDMA_ATTR_THROTTLE_EVENTS,	/* u64: times a packet waited for tokens */
	SRDMA_ATTR_THROTTLED_NS,	/* u64: time spent waiting for tokens */
	SRDMA_ATTR_TX_BYTES,		/* u64: a QP's bytes charged (frames sent) */
	__SRDMA_ATTR_MAX,
};

#define SRDMA_ATTR_MAX (__SRDMA_ATTR_MAX - 1)

/* where the rate in force comes from; most specific first */
enum srdma_rate_source {
	SRDMA_RATE_NONE,	/* unlimited */
	SRDMA_RATE_ADMIN,	/* SRDMA_CMD_QP_SET */
	SRDMA_RATE_VERBS,	/* IB_QP_RATE_LIMIT through ib_modify_qp() */
	SRDMA_RATE_AV,		/* static_rate of the QP's or the AH's address vector */
	SRDMA_RATE_DEFAULT,	/* the port's default */
	SRDMA_RATE_CEILING,	/* the port's ceiling, lower than the above */
};

#endif /* SRDMA_RATE_NETLINK_H */
