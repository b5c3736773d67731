#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kmemleak: on
# rmmod srdma with devices present and a user context open on one.
. "$(dirname "$0")/lib.sh"

veth_pair
load_uverbs
check "rdma link add srdma0" rdma link add srdma0 type srdma netdev veth0
check "rdma link add srdma1" rdma link add srdma1 type srdma netdev veth1
async_watch srdma1 "$SRDMA_RESULTS/events1.txt"
check "rmmod srdma with two devices and an open context" rmmod srdma
check "srdma0 is gone" ib_gone srdma0
check "srdma1 is gone" ib_gone srdma1
check "the user context got IBV_EVENT_DEVICE_FATAL" wait_until 10 \
	grep -q IBV_EVENT_DEVICE_FATAL "$SRDMA_RESULTS/events1.txt"
check "the netdevs are still there" ip link show veth0
check "srdma loads again and adds a device" rdma link add srdma0 type srdma netdev veth0
check "rmmod srdma again" rmmod srdma
finish
