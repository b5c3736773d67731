#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# What make demo runs on each VM: the commands a user types, echoed.
run() {
	echo
	echo "[host $SRDMA_ROLE]# $*"
	"$@"
}
set -e
modprobe ib_uverbs	# rdma-core's udev rules do this on a real machine
run ip -brief address show eth0
run rdma link add srdma0 type srdma netdev eth0
run rdma link show
run ibv_devices
run ibv_devinfo -d srdma0
run sh -c 'ibv_devinfo -v -d srdma0 | grep GID'
run rdma link delete srdma0
