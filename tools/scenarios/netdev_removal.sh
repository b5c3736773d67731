#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kmemleak: on
# Removing the netdev of a live device (a user context open on it) removes
# the device cleanly; the user gets IBV_EVENT_DEVICE_FATAL.
. "$(dirname "$0")/lib.sh"

veth_pair
load_uverbs
check "rdma link add srdma0" rdma link add srdma0 type srdma netdev veth0
check "rdma link add srdma1" rdma link add srdma1 type srdma netdev veth1
async_watch srdma0 "$SRDMA_RESULTS/events0.txt"
pid0=$watch_pid
check "ip link del veth0 (also removes its peer veth1)" ip link del veth0
check "srdma0 is gone" wait_until 20 ib_gone srdma0
check "srdma1 is gone" wait_until 20 ib_gone srdma1
check "the user context got IBV_EVENT_DEVICE_FATAL" wait_until 10 \
	grep -q IBV_EVENT_DEVICE_FATAL "$SRDMA_RESULTS/events0.txt"
# ib_uverbs keeps the revoked context's event file open until the process
# closes it: the process then exits as usual.
kill $pid0
check "the user process closes the revoked device and exits" wait_until 10 \
	sh -c "! kill -0 $pid0 2>/dev/null"
check_no_match "rdma link show is empty" srdma rdma link show

# A dummy netdev: same again, and a new device on a new netdev works.
modprobe dummy
ip link add dum0 type dummy
ip link set dum0 up
check "rdma link add on a dummy netdev" rdma link add srdma2 type srdma netdev dum0
check "ip link del dum0" ip link del dum0
check "srdma2 is gone" wait_until 20 ib_gone srdma2
check "rmmod srdma" rmmod srdma
finish
