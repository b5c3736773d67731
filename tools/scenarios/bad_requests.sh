#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# rdma link add refuses bad requests with a clear error and changes nothing;
# so does srdma-rate's QP listing of a device that does not exist.
. "$(dirname "$0")/lib.sh"

veth_pair
modprobe srdma
check_match "unknown netdev: No such device" 'No such device' \
	rdma link add srdma0 type srdma netdev nosuch0
check_fails "unknown netdev: no device made" ib_exists srdma0

check_fails "loopback (not Ethernet) is refused" \
	rdma link add srdma0 type srdma netdev lo
check_match "the kernel log says why" 'lo: srdma: not an Ethernet device' dmesg
check_fails "loopback: no device made" ib_exists srdma0

ip link add link veth0 name veth0.5 type vlan id 5 2>/dev/null && {
	check_fails "a VLAN netdev is refused" \
		rdma link add srdma0 type srdma netdev veth0.5
	check_match "the kernel log says why" "VLAN's real device" dmesg
}

check "first device on veth0" rdma link add srdma0 type srdma netdev veth0
check_match "second device on veth0: File exists" 'File exists' \
	rdma link add srdma9 type srdma netdev veth0
check_match "the kernel log says why" 'veth0: srdma: already has an srdma device' dmesg
check_fails "second device: not made" ib_exists srdma9
check_fails "a name already taken is refused" \
	rdma link add srdma0 type srdma netdev veth1
check "the first device is unharmed" port_is srdma0 ACTIVE

# srdma-rate's QP listing is a netlink dump, whose attributes come through
# a shim of srdma_compat.h (srdma_dump_attrs()): the device named is found,
# an unknown one refused (this scenario runs on the 6.12 line too)
rate_tool=$(readlink -f "$(dirname "$0")/../srdma-rate/srdma-rate")
check "srdma-rate qp show srdma0: a dump of the device's QPs" \
	"$rate_tool" qp show srdma0
check_match "srdma-rate qp show nosuch0: no such device" "no srdma device" \
	"$rate_tool" qp show nosuch0
check_fails "srdma-rate qp show nosuch0 fails" "$rate_tool" qp show nosuch0
check "rdma link delete srdma0" rdma link delete srdma0

# rdma_rxe binds UDP 4791 in this namespace when it loads.
check "modprobe rdma_rxe" modprobe rdma_rxe
check_match "port taken by rdma_rxe: Address already in use" \
	'Address already in use' rdma link add srdma0 type srdma netdev veth0
check_match "the kernel log names the port and rdma_rxe" \
	'UDP port 4791 is already in use in the initial network namespace \(is rdma_rxe loaded\?\)' dmesg
check_fails "port taken: no device made" ib_exists srdma0
check "rmmod rdma_rxe" rmmod rdma_rxe
check "with the port free, the device is made" \
	rdma link add srdma0 type srdma netdev veth0
check "rmmod srdma" rmmod srdma
finish
