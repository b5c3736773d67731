#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Run by tools/distro/test.sh on two VMs of a Debian kernel of 6.2 or later:
# host a runs srdma, host b that kernel's own rdma_rxe (the two cannot share
# a kernel), and they talk both ways: stock RC tools with the data checked
# (ibv_rc_pingpong -c, ib_write_bw, ib_read_lat), then
# tests/atomic_write_hosts (ATOMIC_WRITE and FLUSH, which rdma_rxe has
# since 6.2: values placed, their range and their MR flushed, an MR without
# REMOTE_WRITE refused), tests/mw_hosts (memory windows of each host used
# by the other: type 1 and 2, SEND_WITH_INV, and keys taken away under
# WRITEs), then RoCEv2 over
# IPv6 (RC, UD, rdma_cm). srdma takes rdma_rxe's packets together on
# receive (GRO) until the capture of the IPv6 part.
prog=$(dirname "$0")/../../tests/bin/atomic_write_hosts
mw_prog=$(dirname "$0")/../../tests/bin/mw_hosts
. "$(dirname "$0")/../scenarios/lib.sh"

type=srdma
[ "$SRDMA_ROLE" = a ] || type=rxe
rc_eth0_device "$type"

rc_serve b
rc_test "srdma to rdma_rxe: ibv_rc_pingpong -s 65536" ibv_rc_pingpong -s 65536 -n 10 -c
rc_test "srdma to rdma_rxe: ib_write_bw" ib_write_bw -F -s 16384 -n 50 -t 8 -u 18
rc_test "srdma to rdma_rxe: ib_read_lat" ib_read_lat -F -s 2 -n 50
rc_serve a
rc_test "rdma_rxe to srdma: ibv_rc_pingpong -s 65536" ibv_rc_pingpong -s 65536 -n 10 -c
rc_test "rdma_rxe to srdma: ib_write_bw" ib_write_bw -F -s 16384 -n 50 -t 8 -u 18
rc_test "rdma_rxe to srdma: ib_read_lat" ib_read_lat -F -s 2 -n 50
[ "$SRDMA_ROLE" = a ] &&
	check "srdma took packets of rdma_rxe together (rx_batches $(counter "$dev" rx_batches))" \
		test "$(counter "$dev" rx_batches)" -gt 0

# the responder, or the windows' owner, waits; the other end retries its
# TCP connection until it listens
check "both hosts are ready for ATOMIC_WRITE" rc_barrier aw
hosts_run "ATOMIC_WRITE and FLUSH, srdma responds" a "$prog"
hosts_run "ATOMIC_WRITE and FLUSH, rdma_rxe responds" b "$prog"
check "both hosts are ready for memory windows" rc_barrier mw
hosts_run "memory windows of srdma, rdma_rxe accesses" a "$mw_prog"
hosts_run "memory windows of rdma_rxe, srdma accesses" b "$mw_prog" -x rxe
check "both hosts are done" rc_barrier aw_done

# RoCEv2 over IPv6, both ways: RC and UD pingpong and rping -V (rdma_cm
# resolving an IPv6 address) on the GID of each host's IPv6 address (the
# VM runner gives eth0 one); host a captures them, and every frame is
# IPv6 with a correct ICRC (srdma takes no packets together meanwhile: the
# capture would show each join as one packet)
my6=fd00:5264:6d61::1 peer6=fd00:5264:6d61::2
[ "$SRDMA_ROLE" = a ] || { my6=$peer6 peer6=fd00:5264:6d61::1; }
modprobe rdma_ucm
check "$dev: a RoCEv2 GID for $my6" wait_until 10 rocev2_gid_index "$dev" "$my6"
rc_server_gid=$(rocev2_gid_index "$dev" "$my6")
rc_client_gid=$rc_server_gid
pcap=$SRDMA_RESULTS/ipv6.pcap
if [ "$SRDMA_ROLE" = a ]; then
	check "no GRO while capturing" gro_pkts 0
	timeout 300 tcpdump -Z root -U -n -i eth0 -w "$pcap" udp port 4791 \
		2> "$SRDMA_RESULTS/tcpdump.log" &
	tcpdump_pid=$!
	check "tcpdump captures RoCEv2 on eth0" \
		wait_until 30 grep -q 'listening on eth0' "$SRDMA_RESULTS/tcpdump.log"
fi
check "both hosts are ready for IPv6" rc_barrier ipv6

# rping_ipv6 NAME SERVER_HOST: rping -V, 10 pings, the server on that host
rping_ipv6() {
	local out=$SRDMA_RESULTS/$1 pid
	if [ "$SRDMA_ROLE" = "$2" ]; then
		timeout 60 rping -s -a "$my6" -C 10 -V > "$out.server" 2>&1 &
		pid=$!
		wait_until 20 sh -c "rdma resource show cm_id | grep -q 'state LISTEN'"
		rc_barrier "$1"
		check "$1: rping server ends well" wait $pid
	else
		rc_barrier "$1"
		check_match "$1: rping -V client to $peer6" "ping data: rdma-ping-9: " \
			timeout 50 rping -c -a "$peer6" -C 10 -V -v
	fi
}

rc_serve b
rc_test "IPv6, srdma to rdma_rxe: ibv_rc_pingpong" ibv_rc_pingpong -s 4096 -n 10 -c
rc_test "IPv6, srdma to rdma_rxe: ibv_ud_pingpong" ibv_ud_pingpong -s 512 -n 10 -c
rping_ipv6 rping_srdma_to_rxe b
rc_serve a
rc_test "IPv6, rdma_rxe to srdma: ibv_rc_pingpong" ibv_rc_pingpong -s 4096 -n 10 -c
rc_test "IPv6, rdma_rxe to srdma: ibv_ud_pingpong" ibv_ud_pingpong -s 512 -n 10 -c
rping_ipv6 rping_rxe_to_srdma a
check "both hosts are done with IPv6" rc_barrier ipv6_done
if [ "$SRDMA_ROLE" = a ]; then
	sleep 1
	kill "$tcpdump_pid"
	wait "$tcpdump_pid"
	check_match "the IPv6 capture holds RoCEv2 over IPv6" 'IP6 .*4791' \
		tcpdump -n -r "$pcap" -c 5
	check_no_match "and no RoCEv2 over IPv4" '^[0-9:.]+ IP ' tcpdump -n -r "$pcap"
	check "roce_icrc.py: every ICRC of the IPv6 capture is correct" \
		python3 "$(dirname "$0")/../scenarios/roce_icrc.py" "$pcap"
fi
check "rdma link delete $dev" rdma link delete "$dev"
finish
