#!/bin/bash
# topology: two
# link: tap
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Two VMs on one network: host a runs srdma on its virtio-net eth0, host b
# runs the kernel's rdma_rxe (the interop topology of later scenarios).
. "$(dirname "$0")/lib.sh"

load_uverbs
if [ "$SRDMA_ROLE" = a ]; then
	peer=198.18.0.2
	check "rdma link add srdma0 on eth0" rdma link add srdma0 type srdma netdev eth0
	check "sysfs parent: srdma0's device is eth0's virtio device" \
		test -e /sys/class/infiniband/srdma0/device/net/eth0
	check_match "ibv_devinfo: active port" 'state:[[:space:]]+PORT_ACTIVE' \
		ibv_devinfo -d srdma0
else
	peer=198.18.0.1
	check "rdma link add rxe0 on eth0 (rdma_rxe)" rdma link add rxe0 type rxe netdev eth0
	check_match "ibv_devices lists rxe0" '^[[:space:]]+rxe0' ibv_devices
fi
check "both hosts are ready" barrier ready
check "the peer answers on the shared network" wait_until 30 ping -c1 -W1 $peer
check "both hosts are done" barrier done
if [ "$SRDMA_ROLE" = a ]; then
	check "rdma link delete srdma0" rdma link delete srdma0
else
	check "rdma link delete rxe0" rdma link delete rxe0
fi
finish
