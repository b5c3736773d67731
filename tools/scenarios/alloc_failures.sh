#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kmemleak: on
# smp: 2
# A process's verbs while the kernel fails its allocations, under traffic:
# tests/alloc_failures makes and destroys ALLOC_ROUNDS (default 30) RC
# connections between srdma0 (veth0) and srdma1 (veth1, namespace peer),
# with 10 % of its allocations failing (failslab and fail_page_alloc, for
# that task only), while tests/rc_bulk moves verified data between the
# same devices, one connection after another, without failures. Every
# verb must succeed or fail with ENOMEM, every rc_bulk run complete, and
# srdma0's pkt_nomem grow: each round's WRITE is posted with failures on,
# and its doorbell runs the engine in the failing task, whose packets'
# allocations then fail and go again. Then
# tests/cm_alloc_failures makes CM_ROUNDS (default 20) rdma_cm
# connections from srdma0 to a server thread on srdma1 with the same
# failures in both threads: every step succeeds or fails with ENOMEM, every
# round's SEND arrives. Then, with 10 % of the allocations from
# skbuff_head_cache failing in any context (the cache filter: softirq and
# kworkers too), rc_bulk and ibv_ud_pingpong complete with their data, and
# pkt_nomem grows on both devices (srdma1's from its ACKs and read
# responses, sent from the receive path). Then rc_bulk once more, and the
# batch's checks: no kernel report, nothing of the programs left in
# restrack, nothing leaked (kmemleak).
prog=$(dirname "$0")/../../tests/bin/alloc_failures
cm_prog=$(dirname "$0")/../../tests/bin/cm_alloc_failures
bulk=$(dirname "$0")/../../tests/bin/rc_bulk
for f in "$prog" "$cm_prog" "$bulk"; do
	if [ ! -x "$f" ]; then
		echo "not ok 1 - $f exists (build it on the host first: make -C tests)"
		exit 1
	fi
done
. "$(dirname "$0")/lib.sh"

stop=$SRDMA_RESULTS/alloc_failures.done
bulk_log=$SRDMA_RESULTS/rc_bulk.log

# bulk_until_stopped: rc_bulk runs until $stop exists; how many in $bulk_log
bulk_until_stopped() {
	local n=0
	while [ ! -e "$stop" ]; do
		"$bulk" -m 2 srdma0 srdma1 >> "$bulk_log" 2>&1 || return 1
		n=$((n + 1))
	done
	echo "# rc_bulk runs: $n" >> "$bulk_log"
	[ $n -gt 0 ]
}

load_uverbs
srdma_pair
# permanent neighbours: an ARP request lost to the failing task's
# allocation would time out the other program's modify to RTR
# (ETIMEDOUT), the neighbour table's way and not srdma's
mac0=$(ip -br link show veth0 | awk '{ print $3 }')
mac1=$(ip -n peer -br link show veth1 | awk '{ print $3 }')
check "permanent neighbours" sh -c "ip neigh replace 198.18.0.2 lladdr $mac1 dev veth0 nud permanent &&
	ip -n peer neigh replace 198.18.0.1 lladdr $mac0 dev veth1 nud permanent"
check "failslab and fail_page_alloc: 10 % for the tasks that ask" \
	fail_tasks_allocations 10 Y
nomem0=$(counter srdma0 pkt_nomem)
rm -f "$stop"
bulk_until_stopped &
traffic=$!
check "alloc_failures: every verb succeeds or fails with ENOMEM, every round's data arrives" \
	run_tap alloc_failures "$prog" -r "${ALLOC_ROUNDS:-30}" srdma0 srdma1
check "cm_alloc_failures: every rdma_cm step succeeds or fails with ENOMEM, every round's bytes arrive" \
	run_tap cm_alloc_failures "$cm_prog" -r "${CM_ROUNDS:-20}" peer 198.18.0.2 198.18.0.1
touch "$stop"
wait $traffic
traffic_status=$?
check "rc_bulk moved verified data all along ($(grep -c "^# result write" "$bulk_log") runs, all in $bulk_log)" \
	test $traffic_status = 0
nomem1=$(counter srdma0 pkt_nomem)
check "packets whose allocation failed under the doorbells of alloc_failures went again: pkt_nomem $nomem0 -> $nomem1" \
	test "$nomem1" -gt "$nomem0"
check "failure injection off" fail_tasks_allocations 0 Y

# Packets in every context: 10 % of the allocations from skbuff_head_cache
# fail, whoever asks: srdma0's requests from doorbells and timers, srdma1's
# ACKs and read responses from the receive path (softirq), datagrams. The
# engine sends them again and RC retransmits what was not sent; every
# transfer completes. The failures start once the programs have opened
# their devices and connected, and the counters are read with them off:
# netlink (device lists, counters) allocates from that cache too.

# with_skb_failures NAME PATTERN COMMAND...: COMMAND in the background (its
# output in $SRDMA_RESULTS/NAME.out); once that holds PATTERN, 10 % of the
# skb allocations fail until COMMAND ends; COMMAND's exit status
with_skb_failures() {
	local out=$SRDMA_RESULTS/$1.out pattern=$2 pid rc
	shift 2
	"$@" > "$out" 2>&1 &
	pid=$!
	wait_until 30 file_has "$out" "$pattern" && fail_skb_allocations 10 ||
		echo "# $pattern: not seen in $out, or failslab refused"
	wait $pid
	rc=$?
	fail_skb_allocations 0
	cat "$out"
	return $rc
}

nomem0=$(counter srdma0 pkt_nomem)
nomem1=$(counter srdma1 pkt_nomem peer)
check "rc_bulk under failing skb allocations: WRITE and READ, data verified" \
	with_skb_failures nomem_rc 'RC QPs connected' "$bulk" -m 2 -p 1 srdma0 srdma1
gs=$(rocev2_gid_index srdma1 198.18.0.2)
gc=$(rocev2_gid_index srdma0 198.18.0.1)
ip netns exec peer timeout 60 ibv_ud_pingpong -d srdma1 -g "$gs" -s 1024 -n 1000 -c \
	> "$SRDMA_RESULTS/nomem_ud.server" 2>&1 &
ud_server=$!
wait_until 20 listening_or_gone $ud_server 18515
check "ibv_ud_pingpong under failing skb allocations: client" \
	with_skb_failures nomem_ud.client 'remote address' \
	timeout 60 stdbuf -oL ibv_ud_pingpong -d srdma0 -g "$gc" -s 1024 -n 1000 -c 198.18.0.2
check "ibv_ud_pingpong under failing skb allocations: server" wait $ud_server
n=$(counter srdma1 pkt_nomem peer)
check "srdma1's packets from the receive path met the failures: pkt_nomem $nomem1 -> $n" \
	test "$n" -gt "$nomem1"
n=$(counter srdma0 pkt_nomem)
check "srdma0's packets met them: pkt_nomem $nomem0 -> $n" test "$n" -gt "$nomem0"
check "rc_bulk afterwards" "$bulk" -m 2 srdma0 srdma1
for r in qp cq pd mr cm_id; do
	check_no_match "no $r of alloc_failures or cm_alloc_failures left in restrack" \
		'comm (alloc_failures|cm_alloc_failur)' rdma resource show $r	# comm: 15 bytes
done
check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
check "rdma link delete srdma0" rdma link delete srdma0
check "modprobe -r srdma" modprobe -r srdma
finish
