/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What differs between the kernel lines srdma builds on (6.1 and 6.12,
 * Documentation/kernels.md). The driver is written against the newer API;
 * each shim below gives it to the older kernel, says since when the newer
 * one exists, and goes when the older line is dropped.
 */
#ifndef SRDMA_COMPAT_H
#define SRDMA_COMPAT_H

#include <linux/version.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/rdma_user_rxe.h>

/* <linux/unaligned.h> since 6.12; <asm/unaligned.h> before */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* skb_gso_segment() (KUnit): in <net/gso.h> since 6.5, netdevice.h before */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#include <net/gso.h>
#endif

/*
 * A dump's parsed attributes: in the genl_info of the dump since 6.6
 * (genl_info_dump()), in struct genl_dumpit_info itself before.
 */
static inline struct nlattr **srdma_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * ATOMIC WRITE (IBTA 1.5, annex A19) in the verbs since 6.2: the values of
 * the user ABI that librxe writes into its rings whatever the kernel
 * (IB_UVERBS_WR_ATOMIC_WRITE, IB_UVERBS_WC_ATOMIC_WRITE,
 * IB_UVERBS_DEVICE_ATOMIC_WRITE) and the BTH opcode.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define IB_WR_ATOMIC_WRITE		15
#define IB_WC_ATOMIC_WRITE		9
#define IB_DEVICE_ATOMIC_WRITE		BIT_ULL(40)
#define IB_OPCODE_RC_ATOMIC_WRITE	0x1d
#endif

/*
 * RDMA FLUSH (IBTA 1.5, annex A19) since 6.2: the user ABI's values
 * (IB_UVERBS_WR_FLUSH, IB_UVERBS_WC_FLUSH, IB_UVERBS_DEVICE_FLUSH_*,
 * IB_UVERBS_ACCESS_FLUSH_*, enum ib_uverbs_flush_{type,level}), the BTH
 * opcode, and the WQE's target (struct rxe_send_wr's wr.flush). ib_core
 * before 6.2 refuses the MR access flags, so such a kernel can send a FLUSH
 * but has no MR to serve one on.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define IB_WR_FLUSH			14
#define IB_WC_FLUSH			8
#define IB_DEVICE_FLUSH_GLOBAL		BIT_ULL(38)
#define IB_DEVICE_FLUSH_PERSISTENT	BIT_ULL(39)
#define IB_ACCESS_FLUSH_GLOBAL		BIT(8)
#define IB_ACCESS_FLUSH_PERSISTENT	BIT(9)
#define IB_OPCODE_RC_FLUSH		0x1c
#define IB_FLUSH_GLOBAL			BIT(0)
#define IB_FLUSH_PERSISTENT		BIT(1)
#define IB_FLUSH_RANGE			0
#define IB_FLUSH_MR			1

struct srdma_flush_wr {
	__aligned_u64 remote_addr;
	__u32 length;
	__u32 rkey;
	__u8 type;
	__u8 level;
};

/* the target of a FLUSH WQE */
#define srdma_wr_flush(w) ((struct srdma_flush_wr *)&(w)->wr)
#else
#define srdma_wr_flush(w) (&(w)->wr.flush)
#endif

int srdma_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);

/*
 * ib_device_ops.create_cq gets the uverbs attribute bundle since 6.11 (its
 * driver_udata is the udata; no bundle for a kernel CQ), the udata before.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static inline int srdma_create_cq(struct ib_cq *ibcq,
				  const struct ib_cq_init_attr *attr,
				  struct uverbs_attr_bundle *attrs)
{
	return srdma_cq_create(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
static inline int srdma_create_cq(struct ib_cq *ibcq,
				  const struct ib_cq_init_attr *attr,
				  struct ib_udata *udata)
{
	return srdma_cq_create(ibcq, attr, udata);
}
#endif

#endif /* SRDMA_COMPAT_H */
