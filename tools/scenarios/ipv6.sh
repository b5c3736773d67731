#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# RoCEv2 over IPv6: srdma0 on veth0 (fd00:5264:6d61::1) and srdma1 on veth1
# in namespace peer (::2) talk through their IPv6 GIDs with Debian's stock
# tools: ibv_rc_pingpong -c, ibv_ud_pingpong -c, ibv_uc_pingpong -c and
# rping -V over rdma_cm (which resolves the IPv6 address to the GID). The
# RoCEv2 frames captured on veth0 meanwhile are IPv6 (next header UDP, no
# IPv4 one) and roce_icrc.py finds every ICRC correct. The veths cut
# srdma's batches of packets (UDP GSO) before the capture, as a NIC without
# UDP segmentation does: a veth that passes them whole shows tcpdump one
# packet per batch, not what a wire carries. veth1 takes packets together
# (GRO, which a veth runs only for a sender without TSO), and srdma1
# counts the joins; not veth0, whose capture would show each join as one
# packet.
. "$(dirname "$0")/lib.sh"

a6=fd00:5264:6d61::1 b6=fd00:5264:6d61::2
pcap=$SRDMA_RESULTS/ipv6.pcap
load_uverbs
modprobe rdma_ucm
srdma_pair
ip -n peer addr add $b6/64 dev veth1 nodad
check "srdma0 has a RoCEv2 GID for $a6" wait_until 10 rocev2_gid_index srdma0 $a6
check "srdma1 has a RoCEv2 GID for $b6" wait_until 10 rocev2_gid_index srdma1 $b6

check "veth0 and veth1 without UDP segmentation offload, veth1 with GRO" \
	sh -c 'ethtool -K veth0 tx-udp-segmentation off tso off &&
	       ip netns exec peer ethtool -K veth1 tx-udp-segmentation off gro on'
tcpdump -i veth0 -w "$pcap" -U udp port 4791 > "$SRDMA_RESULTS/tcpdump.log" 2>&1 &
dump=$!
wait_until 10 grep -q "listening on" "$SRDMA_RESULTS/tcpdump.log"
check "RC: ibv_rc_pingpong -c between the IPv6 GIDs" \
	pingpong_ns peer srdma1 $b6 srdma0 $a6 -c -s 4096
pingpong_tool=ibv_uc_pingpong check "UC: ibv_uc_pingpong -c between the IPv6 GIDs" \
	pingpong_ns peer srdma1 $b6 srdma0 $a6 -c -s 4096
pingpong_tool=ibv_ud_pingpong check "UD: ibv_ud_pingpong -c between the IPv6 GIDs" \
	pingpong_ns peer srdma1 $b6 srdma0 $a6 -c -s 512

ip netns exec peer timeout 60 rping -s -a $b6 -C 10 -V > "$SRDMA_RESULTS/rping.server" 2>&1 &
server=$!
wait_until 20 sh -c "rdma resource show cm_id | grep -q 'state LISTEN'"
check_match "rdma_cm: rping -V to $b6 (route and GID resolved over IPv6)" \
	"ping data: rdma-ping-9: " timeout 50 rping -c -a $b6 -C 10 -V -v
check "rping server ends well" wait $server

kill -INT $dump
wait $dump
cat "$SRDMA_RESULTS/tcpdump.log"
# pingpong's 4 KiB messages are 4 packets at veth's MTU of 1500
check "srdma0 and srdma1 sent batches of packets (tx_batches)" \
	test "$(counter srdma0 tx_batches)" -gt 0 -a "$(counter srdma1 tx_batches peer)" -gt 0
check "srdma1 took packets together over IPv6 (rx_batches)" \
	test "$(counter srdma1 rx_batches peer)" -gt 0
check_match "the capture holds RoCEv2 over IPv6" 'IP6 .*4791' tcpdump -n -r "$pcap" -c 5
check_no_match "and no RoCEv2 over IPv4" '^[0-9:.]+ IP ' tcpdump -n -r "$pcap"
check "roce_icrc.py: every ICRC of the capture is correct" \
	python3 "$(dirname "$0")/roce_icrc.py" "$pcap"
check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
check "rdma link delete srdma0" rdma link delete srdma0
check "namespace peer gone" ip netns del peer
finish
