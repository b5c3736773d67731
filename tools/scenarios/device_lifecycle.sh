#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kmemleak: on
# rdma link add (module autoloaded by alias), show, port state and MTU that
# follow the netdev with PORT_ERR / PORT_ACTIVE events, RoCEv2 GIDs, delete.
. "$(dirname "$0")/lib.sh"

veth_pair
load_uverbs
check_fails "srdma is not loaded before the first link add" \
	grep -q '^srdma ' /proc/modules
check "rdma link add srdma0 on veth0 (autoloads srdma)" \
	rdma link add srdma0 type srdma netdev veth0
check "the module came by its rdma-link alias" grep -q '^srdma ' /proc/modules
check "rdma link add srdma1 on veth1" rdma link add srdma1 type srdma netdev veth1
check_match "rdma link show: srdma0 ACTIVE on veth0" \
	'link srdma0/1 state ACTIVE physical_state LINK_UP netdev veth0' rdma link show
check_match "rdma link show: srdma1 on veth1" 'link srdma1/1 .* netdev veth1' \
	rdma link show
check_match "rdma dev show: srdma0 is there" '^[0-9]+: srdma0: node_type ca' \
	rdma dev show
check_match "sysfs: port state ACTIVE" '4: ACTIVE' port_state srdma0
check_match "sysfs: link layer Ethernet" Ethernet \
	cat /sys/class/infiniband/srdma0/ports/1/link_layer

# GIDs come from ib_core's RoCE GID management: RoCEv2 only.
gids=/sys/class/infiniband/srdma0/ports/1
check_match "GID table holds the IPv4 address (RoCE v2)" \
	'0000:0000:0000:0000:0000:ffff:c612:0001' cat $gids/gids/*
check_match "GID table holds the IPv6 address" 'fd00:5264:6d61:0000:0000:0000:0000:0001' \
	cat $gids/gids/*
# gid_types: the type of every GID in use (reading an unused entry fails
# with EINVAL); fails if there is none
gid_types() {
	local f type n=0
	for f in "$gids"/gid_attrs/types/*; do
		read -r type 2> /dev/null < "$f" || continue
		echo "$type"
		n=$((n + 1))
	done
	[ $n -gt 0 ]
}
check_no_match "every GID is RoCE v2" 'IB/RoCE v1' gid_types

# Port follows the carrier, with events to a user context.
async_watch srdma0 "$SRDMA_RESULTS/events.txt"
ip link set veth1 down
check "carrier lost: port goes DOWN" wait_until 10 port_is srdma0 DOWN
check_match "rdma link show: DOWN" 'link srdma0/1 state DOWN' rdma link show
ip link set veth1 up
check "carrier back: port goes ACTIVE" wait_until 10 port_is srdma0 ACTIVE
check "events PORT_ERR then PORT_ACTIVE reached the user context" wait_until 10 \
	sh -c "grep -q IBV_EVENT_PORT_ERR $SRDMA_RESULTS/events.txt &&
	       grep -q IBV_EVENT_PORT_ACTIVE $SRDMA_RESULTS/events.txt"
ip link set veth0 down
check "interface down: port DOWN" wait_until 10 port_is srdma0 DOWN
check_match "interface down: physical state Disabled" '3: Disabled' \
	cat /sys/class/infiniband/srdma0/ports/1/phys_state
ip link set veth0 up
check "interface up: port ACTIVE" wait_until 10 port_is srdma0 ACTIVE
kill $watch_pid

# Active MTU follows the netdev MTU.
check_match "MTU 1500: active_mtu 1024" 'active_mtu:[[:space:]]+1024' \
	ibv_devinfo -d srdma0
ip link set veth0 mtu 9000
check_match "MTU 9000: active_mtu 4096" 'active_mtu:[[:space:]]+4096' \
	ibv_devinfo -d srdma0
ip link set veth0 mtu 4000
check_match "MTU 4000: active_mtu 2048" 'active_mtu:[[:space:]]+2048' \
	ibv_devinfo -d srdma0

check "rdma link delete srdma0" rdma link delete srdma0
check "srdma0 is gone" wait_until 5 ib_gone srdma0
check "srdma1 is still there" ib_exists srdma1
check "srdma0 can be added again" rdma link add srdma0 type srdma netdev veth0
check "rdma link delete both" sh -c 'rdma link delete srdma0 && rdma link delete srdma1'
check "rmmod srdma" rmmod srdma
finish
