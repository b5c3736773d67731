// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srdma module: the "srdma" rdma link type, device creation and removal, and
 * the netdev notifier that makes each device follow its netdev.
 *
 * Life cycle of a device:
 *   rdma link add NAME type srdma netdev DEV   -> srdma_newlink()
 *   rdma link delete NAME                      -> ib_core unregisters it
 *   the netdev goes away (or changes netns)    -> srdma_netdev_event() queues
 *                                                 srdma_unregister_work()
 *   rmmod srdma                                -> srdma_exit() unregisters all
 * Each path ends in srdma_dealloc_driver(), called once by ib_core.
 *
 * rdma_rxe has the same driver_id, so ib_unregister_driver() would take its
 * devices too: srdma keeps its own list and workqueue instead.
 */
#include <kunit/visibility.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "srdma.h"

/* Lock order: RTNL -> srdma_devices_lock. Guards srdma_devices. */
static DEFINE_MUTEX(srdma_devices_lock);
static LIST_HEAD(srdma_devices);

/* Runs the unregistrations the netdev notifier cannot do under RTNL. */
static struct workqueue_struct *srdma_wq;

static struct srdma_dev *srdma_find_by_ndev(struct net_device *ndev)
{
	struct srdma_dev *sdev;

	lockdep_assert_held(&srdma_devices_lock);
	list_for_each_entry(sdev, &srdma_devices, list)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

static void srdma_unregister_work(struct work_struct *work)
{
	struct srdma_dev *sdev = container_of(work, struct srdma_dev,
					      unregister_work);

	ib_unregister_device(&sdev->ib_dev);
	put_device(&sdev->ib_dev.dev);	/* taken by srdma_queue_unregister() */
}

static void srdma_queue_unregister(struct srdma_dev *sdev)
{
	get_device(&sdev->ib_dev.dev);
	if (!queue_work(srdma_wq, &sdev->unregister_work))
		put_device(&sdev->ib_dev.dev);
}

static int srdma_check_ndev(struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER) {
		netdev_err(ndev, "srdma: not an Ethernet device\n");
		return -EINVAL;
	}
	if (is_vlan_dev(ndev)) {
		netdev_err(ndev,
			   "srdma: add the device on the VLAN's real device; its RoCE GIDs include the VLAN\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * Bind a new device to its netdev. Under RTNL the netdev can neither go nor
 * change namespace meanwhile; from here on the notifier sees the device.
 */
static int srdma_claim_ndev(struct srdma_dev *sdev, struct net_device *ndev)
{
	int err = 0;

	rtnl_lock();
	mutex_lock(&srdma_devices_lock);
	if (ndev->reg_state != NETREG_REGISTERED) {
		err = -ENODEV;
	} else if (srdma_find_by_ndev(ndev)) {
		netdev_err(ndev, "srdma: already has an srdma device\n");
		err = -EEXIST;
	} else {
		sdev->ndev = ndev;
		netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
		sdev->net = dev_net(ndev);
		list_add_tail(&sdev->list, &srdma_devices);
	}
	mutex_unlock(&srdma_devices_lock);
	rtnl_unlock();
	return err;
}

static void srdma_unclaim_ndev(struct srdma_dev *sdev)
{
	mutex_lock(&srdma_devices_lock);
	list_del(&sdev->list);
	mutex_unlock(&srdma_devices_lock);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
}

/**
 * srdma_dealloc_driver() - release what a device holds, once unregistered
 * @ib_dev: the device; ib_core frees it after this returns
 */
void srdma_dealloc_driver(struct ib_device *ib_dev)
{
	struct srdma_dev *sdev = to_srdma_dev(ib_dev);

	srdma_dev_free_objects(sdev);
	srdma_net_put(sdev->net);
	srdma_unclaim_ndev(sdev);
	free_percpu(sdev->counters);
}

/**
 * srdma_newlink() - add a device on a netdev (rdma link add)
 * @ibdev_name: name of the new device
 * @ndev: the Ethernet netdev it runs on
 *
 * Return: 0 or a negative errno.
 */
VISIBLE_IF_KUNIT int srdma_newlink(const char *ibdev_name,
				   struct net_device *ndev)
{
	struct srdma_dev *sdev;
	bool ndev_gone;
	int err;

	err = srdma_check_ndev(ndev);
	if (err)
		return err;

	sdev = ib_alloc_device(srdma_dev, ib_dev);
	if (!sdev)
		return -ENOMEM;
	/* before srdma_claim_ndev(): packets may come from then on */
	sdev->counters = alloc_percpu(struct srdma_counters);
	if (!sdev->counters) {
		err = -ENOMEM;
		goto err_dealloc;
	}
	INIT_WORK(&sdev->unregister_work, srdma_unregister_work);
	spin_lock_init(&sdev->port_lock);
	/* A parallel unregistration may free it as soon as it is registered. */
	get_device(&sdev->ib_dev.dev);

	err = srdma_claim_ndev(sdev, ndev);
	if (err)
		goto err_free_counters;
	err = srdma_net_get(sdev->net, ndev);
	if (err) {
		srdma_unclaim_ndev(sdev);
		goto err_free_counters;
	}

	/* From here on srdma_dealloc_driver() undoes all of the above. */
	ib_set_device_ops(&sdev->ib_dev, &srdma_dev_ops);
	srdma_dev_init_attrs(sdev);
	srdma_port_update(sdev);
	srdma_port_rate_init(sdev);
	rtnl_lock();
	srdma_port_rate_refresh(sdev);
	rtnl_unlock();
	err = ib_device_set_netdev(&sdev->ib_dev, ndev, SRDMA_PORT);
	if (err)
		goto err_dealloc;
	/* sysfs parent: lets tools map the RDMA device to its interface */
	sdev->ib_dev.dev.parent = ndev->dev.parent;

	err = ib_register_device(&sdev->ib_dev, ibdev_name, NULL);
	if (err)
		goto err_dealloc;

	/* An unregistration queued before we registered did nothing: again. */
	mutex_lock(&srdma_devices_lock);
	ndev_gone = sdev->ndev_gone;
	mutex_unlock(&srdma_devices_lock);
	if (ndev_gone)
		srdma_queue_unregister(sdev);
	put_device(&sdev->ib_dev.dev);
	return 0;

err_free_counters:
	free_percpu(sdev->counters);
err_dealloc:
	ib_dealloc_device(&sdev->ib_dev);
	put_device(&sdev->ib_dev.dev);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_newlink);

static struct rdma_link_ops srdma_link_ops = {
	.type = "srdma",
	.newlink = srdma_newlink,
};

static int srdma_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct srdma_dev *sdev;

	mutex_lock(&srdma_devices_lock);
	sdev = srdma_find_by_ndev(ndev);
	if (!sdev)
		goto out;

	switch (event) {
	case NETDEV_UNREGISTER:	/* also when it moves to another namespace */
		sdev->ndev_gone = true;
		srdma_queue_unregister(sdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		srdma_port_update(sdev);
		srdma_port_rate_refresh(sdev);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&srdma_devices_lock);
	return NOTIFY_DONE;
}

static struct notifier_block srdma_netdev_notifier = {
	.notifier_call = srdma_netdev_event,
};

/* Unregister every device; returns once all are freed. */
static void srdma_unregister_all(void)
{
	struct srdma_dev *sdev;

	flush_workqueue(srdma_wq);
	for (;;) {
		mutex_lock(&srdma_devices_lock);
		sdev = list_first_entry_or_null(&srdma_devices,
						struct srdma_dev, list);
		if (sdev)
			get_device(&sdev->ib_dev.dev);
		mutex_unlock(&srdma_devices_lock);
		if (!sdev)
			break;
		ib_unregister_device(&sdev->ib_dev);
		put_device(&sdev->ib_dev.dev);
	}
}

/**
 * srdma_flush_unregistrations() - wait for queued device unregistrations
 *
 * A namespace going away calls this after its netdevs are gone, so that the
 * devices on them have released the namespace's UDP sockets.
 */
void srdma_flush_unregistrations(void)
{
	flush_workqueue(srdma_wq);
}
EXPORT_SYMBOL_IF_KUNIT(srdma_flush_unregistrations);

static void __net_exit srdma_pernet_flush(struct net *net)
{
	srdma_flush_unregistrations();
}

/*
 * Registered after srdma_net.c's: a namespace's exits run in the reverse
 * order, so the devices let go of its UDP sockets before those close.
 */
static struct pernet_operations srdma_unregister_pernet_ops = {
	.exit = srdma_pernet_flush,
};

static int __init srdma_init(void)
{
	int err;

	srdma_wq = alloc_workqueue("srdma", WQ_UNBOUND, 0);
	if (!srdma_wq)
		return -ENOMEM;

	err = srdma_swqe_caches_init();
	if (err)
		goto err_wq;

	err = srdma_task_init();
	if (err)
		goto err_caches;

	err = srdma_net_init();
	if (err)
		goto err_task;

	err = register_pernet_subsys(&srdma_unregister_pernet_ops);
	if (err)
		goto err_net;

	err = register_netdevice_notifier(&srdma_netdev_notifier);
	if (err)
		goto err_pernet;

	err = srdma_rate_nl_init();
	if (err)
		goto err_notifier;

	rdma_link_register(&srdma_link_ops);
	return 0;

err_notifier:
	unregister_netdevice_notifier(&srdma_netdev_notifier);
err_pernet:
	unregister_pernet_subsys(&srdma_unregister_pernet_ops);
err_net:
	srdma_net_exit();
err_task:
	srdma_task_exit();
err_caches:
	srdma_swqe_caches_exit();
err_wq:
	destroy_workqueue(srdma_wq);
	return err;
}

static void __exit srdma_exit(void)
{
	rdma_link_unregister(&srdma_link_ops);
	srdma_rate_nl_exit();
	/*
	 * Devices first: unregistering the notifier replays DOWN and
	 * UNREGISTER of every netdev, which would raise port events on them.
	 */
	srdma_unregister_all();
	unregister_netdevice_notifier(&srdma_netdev_notifier);
	unregister_pernet_subsys(&srdma_unregister_pernet_ops);
	srdma_net_exit();
	srdma_task_exit();
	destroy_workqueue(srdma_wq);	/* drains a late unregister work */
	srdma_swqe_caches_exit();
}

module_init(srdma_init);
module_exit(srdma_exit);

MODULE_AUTHOR("The srdma developers");
MODULE_DESCRIPTION("srdma: software RDMA (RoCEv2) device over any Ethernet netdev");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK("srdma");
