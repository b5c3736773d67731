#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Each network namespace has its own RoCEv2 port; a namespace that goes
# away takes its devices with it. srdma and rdma_rxe exclude each other
# through the initial namespace's port, which srdma holds while it has any
# device. A stock ibv_rc_pingpong server inside ns1 and its client in the
# initial namespace talk across the two.
. "$(dirname "$0")/lib.sh"

ip netns add ns1
ip link add veth0 type veth peer name veth1 netns ns1
ip link set veth0 up
ip -n ns1 link set veth1 up
ip -n ns1 link set lo up
modprobe srdma
check "device on veth0 (initial namespace)" rdma link add srdma0 type srdma netdev veth0
check "device on veth1 in ns1 (its own UDP socket)" \
	ip netns exec ns1 rdma link add srdma1 type srdma netdev veth1
check_match "ns1 has a socket on UDP 4791" ':4791' ip netns exec ns1 ss -uln
check_match "the initial namespace has one too" ':4791' ss -uln

ip addr add 198.18.0.1/24 dev veth0
ip -n ns1 addr add 198.18.0.2/24 dev veth1
load_uverbs
both_gids() { rocev2_gid_index srdma0 198.18.0.1 && rocev2_gid_index srdma1 198.18.0.2; }
check "RoCEv2 GIDs for both addresses" wait_until 10 both_gids
check "ibv_rc_pingpong: server in ns1 (srdma1), client in the initial namespace (srdma0)" \
	pingpong_ns ns1 srdma1 198.18.0.2 srdma0 198.18.0.1
check "rdma link delete srdma0" rdma link delete srdma0
check_match "ns1's socket is still open" ':4791' ip netns exec ns1 ss -uln
check_match "the initial namespace's port stays held for srdma1" ':4791' ss -uln
check_fails "rdma_rxe cannot load beside srdma" modprobe rdma_rxe
check_fails "rdma_rxe is not loaded" grep -q '^rdma_rxe ' /proc/modules

check "ip netns del ns1 with srdma1 alive" ip netns del ns1
check "srdma1 goes with its namespace" wait_until 20 ib_gone srdma1
check_no_match "with no device left, the initial port is free" ':4791' ss -uln

# rdma_rxe loaded first: no srdma device in any namespace.
ip netns add ns2
ip link add veth2 type veth peer name veth3 netns ns2
check "modprobe rdma_rxe" modprobe rdma_rxe
check_match "srdma in ns2 is refused while rdma_rxe is loaded" 'Address already in use' \
	ip netns exec ns2 rdma link add srdma2 type srdma netdev veth3
check_match "the kernel log says why" \
	'veth3: srdma: UDP port 4791 is already in use in the initial network namespace' dmesg
check_fails "no device made" ib_exists srdma2
check "rmmod rdma_rxe" rmmod rdma_rxe
check "then srdma in ns2 works" \
	ip netns exec ns2 rdma link add srdma2 type srdma netdev veth3
check "rmmod srdma with a device in ns2" rmmod srdma
check "srdma2 is gone" ib_gone srdma2
check "ip netns del ns2" ip netns del ns2
finish
