#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# RoCEv2 over a VLAN: srdma0 on veth0 and srdma1 on veth1 (namespace peer)
# also serve the GIDs of veth0.5 and veth1.5, which ib_core adds to them. A
# stock ibv_rc_pingpong between those GIDs moves its data (-c: checked) in
# frames tagged with VLAN 5, as a capture on veth1 shows; no untagged
# RoCEv2 frame crosses.
. "$(dirname "$0")/lib.sh"

load_uverbs
srdma_pair
check "veth0.5 (VLAN 5 on veth0)" ip link add link veth0 name veth0.5 type vlan id 5
check "veth1.5 (VLAN 5 on veth1, namespace peer)" \
	ip -n peer link add link veth1 name veth1.5 type vlan id 5
ip addr add 198.19.5.1/24 dev veth0.5 && ip link set veth0.5 up
ip -n peer addr add 198.19.5.2/24 dev veth1.5 && ip -n peer link set veth1.5 up
vlan_gids() { rocev2_gid_index srdma0 198.19.5.1 && rocev2_gid_index srdma1 198.19.5.2; }
check "RoCEv2 GIDs of the VLAN addresses on srdma0 and srdma1" wait_until 10 vlan_gids

# every frame on veth1, in the background (a filter cannot tell untagged
# frames: libpcap's "vlan" moves the offsets of what follows it)
pcap=$SRDMA_RESULTS/veth1.pcap
capture() {
	ip netns exec peer tcpdump -i veth1 -nn -U -w "$pcap" 2> "$pcap.log" &
	wait_until 10 grep -q 'listening on' "$pcap.log"
}
check "capture on veth1" capture

check "ibv_rc_pingpong -c between the VLAN GIDs (server srdma1 in peer)" \
	pingpong_ns peer srdma1 198.19.5.2 srdma0 198.19.5.1 -s 4096 -c
sleep 1
pkill tcpdump
wait
# the RoCEv2 frames of the capture, with their Ethernet headers
tcpdump -nn -e -r "$pcap" 'udp port 4791 or (vlan and udp port 4791)' > "$pcap.txt" 2> /dev/null
n=$(grep -c 'vlan 5, .* 198\.19\.5\.1\.[0-9]* > 198\.19\.5\.2\.4791' "$pcap.txt")
check "RoCEv2 frames from srdma0's VLAN address, tagged VLAN 5, crossed ($n)" test "$n" -ge 20
n=$(grep -vc 'vlan 5, ' "$pcap.txt")
check "no untagged RoCEv2 frame crossed ($n)" test "$n" = 0
finish
