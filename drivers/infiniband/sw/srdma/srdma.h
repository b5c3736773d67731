/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * srdma: a software RDMA device over any Ethernet netdev (RoCEv2).
 *
 * Device, port and object definitions shared by the driver's files.
 */
#ifndef SRDMA_H
#define SRDMA_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

/* The rxe user ABI, so that stock librxe from rdma-core drives srdma. */
#define SRDMA_UVERBS_ABI_VERSION	2

/* No IEEE OUI of our own: the value rdma_rxe also reports. */
#define SRDMA_VENDOR_ID			0xffffff
#define SRDMA_VENDOR_PART_ID		0x5344	/* "SD" */
#define SRDMA_HW_VERSION		1
/* Firmware version major.minor.sub, packed as librxe unpacks attr.fw_ver */
#define SRDMA_FW_MAJOR			0
#define SRDMA_FW_MINOR			1
#define SRDMA_FW_SUB			0
#define SRDMA_FW_VERSION		((u64)SRDMA_FW_MAJOR << 32 | \
					 SRDMA_FW_MINOR << 16 | SRDMA_FW_SUB)

#define SRDMA_PORT			1	/* srdma devices have one port */
#define SRDMA_GID_TABLE_LEN		256
#define SRDMA_PKEY_TABLE_LEN		1
#define SRDMA_MAX_MSG_BYTES		BIT(31)
#define SRDMA_MAX_PD			BIT(16)

/*
 * Bytes a RoCEv2 packet needs around its payload at most: IPv6 (40), UDP (8),
 * BTH (12), the largest extension headers that travel with payload (RETH and
 * ImmDt, 16 + 4) and the ICRC (4). The active MTU is the largest IB MTU that
 * fits in the netdev MTU after them.
 */
#define SRDMA_MAX_HDR_BYTES		(40 + 8 + 12 + 16 + 4 + 4)

/**
 * struct srdma_dev - one srdma device, bound to one Ethernet netdev
 * @ib_dev: the device ib_core knows; first, as ib_alloc_device() requires
 * @ndev: the netdev this device runs on; a reference is held
 * @ndev_tracker: tracks that reference
 * @net: the netdev's namespace at creation; its UDP socket is held
 * @list: entry in the driver's device list, under srdma_devices_lock
 * @ndev_gone: the netdev was unregistered, under srdma_devices_lock
 * @unregister_work: unregisters the device outside RTNL when its netdev goes
 * @port_lock: guards @port_state and @active_mtu
 * @port_state: IB_PORT_ACTIVE while the netdev is up with carrier, else DOWN
 * @active_mtu: the largest IB MTU that fits the netdev MTU
 * @pd_count: PDs allocated, against SRDMA_MAX_PD
 * @attr: device attributes, fixed at creation
 */
struct srdma_dev {
	struct ib_device ib_dev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct net *net;
	struct list_head list;
	bool ndev_gone;
	struct work_struct unregister_work;

	spinlock_t port_lock;		/* guards port_state, active_mtu */
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;

	atomic_t pd_count;
	struct ib_device_attr attr;
};

static inline struct srdma_dev *to_srdma_dev(struct ib_device *ib_dev)
{
	return container_of(ib_dev, struct srdma_dev, ib_dev);
}

struct srdma_ucontext {
	struct ib_ucontext ibuc;
};

struct srdma_pd {
	struct ib_pd ibpd;
};

/*
 * CQs and QPs are allocated by ib_core at the size the ops table declares;
 * their transport arrives with the verbs objects work.
 */
struct srdma_cq {
	struct ib_cq ibcq;
};

struct srdma_qp {
	struct ib_qp ibqp;
};

/* srdma_device.c */
extern const struct ib_device_ops srdma_dev_ops;
void srdma_dev_init_attrs(struct srdma_dev *sdev);
void srdma_port_update(struct srdma_dev *sdev);
#if IS_ENABLED(CONFIG_KUNIT)
enum ib_mtu srdma_mtu_from_netdev(unsigned int ndev_mtu);
#endif

/* srdma_net.c */
int srdma_net_get(struct net *net, struct net_device *ndev);
void srdma_net_put(struct net *net);
int srdma_net_init(void);
void srdma_net_exit(void);

/* srdma_main.c */
void srdma_dealloc_driver(struct ib_device *ib_dev);
void srdma_flush_unregistrations(void);

#endif /* SRDMA_H */
