#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kmemleak: on
# Verbs objects through stock librxe: tests/verbs_objects.c (PD, MR, CQ, SRQ,
# AH and QP create/destroy within and beyond the device's limits, the QP
# state machine of ibv_modify_qp(3), flushing) on srdma0 over veth0.
# SRDMA_REF=rxe runs the same on rdma_rxe, for comparison.
prog=$(dirname "$0")/../../tests/bin/verbs_objects
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog exists (build it on the host first: make -C tests)"
	exit 1
fi
. "$(dirname "$0")/lib.sh"

device_on_veth_with_peer
check "verbs_objects: every check passes" run_tap verbs_objects "$prog" "$dev"
echo "# verbs_objects: $(tail -n 1 "$SRDMA_RESULTS/verbs_objects.tap" | sed "s/^# //"), all in $SRDMA_RESULTS/verbs_objects.tap"
rdma resource show > "$SRDMA_RESULTS/resources.txt" 2>&1
rdma resource show qp >> "$SRDMA_RESULTS/resources.txt" 2>&1
check_no_match "no QP of verbs_objects left" 'comm verbs_objects' rdma resource show qp
check_match "no user context left" "$dev: .*ctx 0" rdma resource show
check "rdma link delete $dev" rdma link delete "$dev"
check "modprobe -r $driver" modprobe -r "$driver"
finish
