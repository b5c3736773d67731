#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# smp: 2
# kmemleak: on
# The RC data path through stock librxe: tests/rc_verbs.c (every opcode and
# message size with the payload checked, SGEs, inline, unsignaled WRs, SRQ,
# solicited events; error completions, QP states and flushes). First two QPs
# on srdma0 over veth0 talking through its loopback, then QPs on two devices:
# srdma0 and srdma1 on veth1 in namespace peer (srdma listens in every
# namespace).
# Both ways also tests/odp_verbs: on-demand paging MRs (faults on every
# RC path, pages taken away by MADV_DONTNEED and a new mapping, prefetch,
# holes unmapped in an MR failing the accesses),
# with srdma0's odp_faults counter growing.
# SRDMA_REF=rxe runs the loopback part on rdma_rxe, with rxe's known
# deviations from the IBTA as TAP TODO (rxe listens in the initial namespace
# only, so there is no two-device part), and no ODP (the rdma_rxe of 6.1
# and 6.12 has none).
prog=$(dirname "$0")/../../tests/bin/rc_verbs
odp=$(dirname "$0")/../../tests/bin/odp_verbs
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog exists (build it on the host first: make -C tests)"
	exit 1
fi
. "$(dirname "$0")/lib.sh"

# summary NAME: the TAP file's last line
summary() {
	echo "# $1: $(tail -n 1 "$SRDMA_RESULTS/$1.tap" | sed "s/^# //")," \
		"all in $SRDMA_RESULTS/$1.tap"
}

device_on_veth_with_peer
ref=()
[ "$driver" = rdma_rxe ] && ref=(-x rxe)
check "rc_verbs on $dev, QP to QP through its loopback: every check passes" \
	run_tap rc_verbs "$prog" "${ref[@]}" "$dev"
summary rc_verbs

if [ "$driver" = srdma ]; then
	faults=$(counter srdma0 odp_faults)
	check "odp_verbs on srdma0, through its loopback: every check passes" \
		run_tap odp_verbs "$odp" srdma0
	check "rdma link add srdma1 on veth1 in namespace peer" \
		ip netns exec peer rdma link add srdma1 type srdma netdev veth1
	check "srdma1: port active" wait_until 5 port_is srdma1 ACTIVE
	check "rc_verbs from srdma0 to srdma1: every check passes" \
		run_tap rc_verbs_two_devices "$prog" srdma0 srdma1
	summary rc_verbs_two_devices
	check "odp_verbs from srdma0 to srdma1: every check passes" \
		run_tap odp_verbs_two_devices "$odp" srdma0 srdma1
	n=$(counter srdma0 odp_faults)
	check "srdma0 served ODP faults: odp_faults $faults -> $n" test "$n" -gt "$faults"
	check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
fi

check_no_match "no QP of rc_verbs left" 'comm rc_verbs' rdma resource show qp
check "rdma link delete $dev" rdma link delete "$dev"
check "modprobe -r $driver" modprobe -r "$driver"
finish
