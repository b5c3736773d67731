#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kmemleak: on
# smp: 2
# Bad input: tests/ring_scribble.c writes garbage over the CQ, SQ, RQ and SRQ
# rings it shares with the kernel while it posts, polls, arms, resizes and
# moves QPs through their states. The kernel must not crash, leak or hang:
# afterwards nothing of the process is left, the device still works, goes
# away and the module unloads. Each run takes a new seed, printed with the
# command that replays it (SCRIBBLE_SEED, SCRIBBLE_ITERATIONS set them);
# each round must enter the kernel often enough. SRDMA_REF=rxe runs the same
# on rdma_rxe. kmemleak: the batch scans after the scenario.
prog=$(dirname "$0")/../../tests/bin/ring_scribble
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog exists (build it on the host first: make -C tests)"
	exit 1
fi
. "$(dirname "$0")/lib.sh"

device_on_veth_with_peer
grep -E '^(MemAvailable|Slab|SUnreclaim|VmallocUsed):' /proc/meminfo > "$SRDMA_RESULTS/meminfo-before.txt"
seed=${SCRIBBLE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# ring_scribble: seed $seed (SCRIBBLE_SEED=$seed replays it)"
args=("$dev" "$seed" "${SCRIBBLE_ITERATIONS:-4000}")
check "ring_scribble: every round ends, the device still works" \
	run_tap ring_scribble timeout -k 10 240 "$prog" "${args[@]}"
echo "# ring_scribble: $(head -n 1 "$SRDMA_RESULTS/ring_scribble.tap" | sed "s/^# //")"
echo "# ring_scribble: $(tail -n 1 "$SRDMA_RESULTS/ring_scribble.tap" | sed "s/^# //"), all in $SRDMA_RESULTS/ring_scribble.tap"
grep -E '^(MemAvailable|Slab|SUnreclaim|VmallocUsed):' /proc/meminfo > "$SRDMA_RESULTS/meminfo-after.txt"
rdma resource show > "$SRDMA_RESULTS/resources.txt" 2>&1
rdma resource show qp >> "$SRDMA_RESULTS/resources.txt" 2>&1
check_no_match "no QP of ring_scribble left" 'comm ring_scribble' rdma resource show qp
check_no_match "no CQ of ring_scribble left" 'comm ring_scribble' rdma resource show cq
check_no_match "no MR of ring_scribble left" 'comm ring_scribble' rdma resource show mr
check_no_match "no PD of ring_scribble left" 'comm ring_scribble' rdma resource show pd
check_match "no user context left" "$dev: .*ctx 0" rdma resource show
check_no_match "kernel log: nothing alarming" "$alarming" dmesg
check "rdma link delete $dev" rdma link delete "$dev"
check "modprobe -r $driver" modprobe -r "$driver"
check_no_match "kernel log: still nothing alarming" "$alarming" dmesg
finish
