#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Run by tools/distro/test.sh on two VMs of a Debian kernel whose rdma_rxe
# has ATOMIC_WRITE (6.2 and later): host a runs srdma, host b that kernel's
# rdma_rxe (the two cannot share a kernel), and tests/atomic_write_hosts
# goes both ways: srdma responds to rdma_rxe's ATOMIC_WRITEs, then
# rdma_rxe to srdma's (values placed, an MR without REMOTE_WRITE refused).
prog=$(dirname "$0")/../../tests/bin/atomic_write_hosts
. "$(dirname "$0")/../scenarios/lib.sh"

type=srdma
[ "$SRDMA_ROLE" = a ] || type=rxe
rc_eth0_device "$type"

# aw_run NAME RESPONDER_HOST: one run, the responder on that host; the
# requester retries its TCP connection until the responder listens
aw_run() {
	if [ "$SRDMA_ROLE" = "$2" ]; then
		check "$1: responder on $dev" run_tap "$1" "$prog" "$dev"
	else
		check "$1: requester on $dev" run_tap "$1" "$prog" "$dev" "$peer_ip"
	fi
}

aw_run srdma_responds a
aw_run rxe_responds b
check "both hosts are done" rc_barrier aw_done
check "rdma link delete $dev" rdma link delete "$dev"
finish
