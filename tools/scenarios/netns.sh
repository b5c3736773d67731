#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Each network namespace has its own RoCEv2 port; a namespace that goes
# away takes its devices with it.
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
check "rdma link delete srdma0" rdma link delete srdma0
check_no_match "the initial namespace's socket is closed" ':4791' ss -uln
check_match "ns1's socket is still open" ':4791' ip netns exec ns1 ss -uln

check "ip netns del ns1 with srdma1 alive" ip netns del ns1
check "srdma1 goes with its namespace" wait_until 20 ib_gone srdma1
check "rmmod srdma" rmmod srdma
finish
