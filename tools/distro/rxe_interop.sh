#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Run by tools/distro/test.sh on two VMs of a Debian kernel of 6.2 or later:
# host a runs srdma, host b that kernel's own rdma_rxe (the two cannot share
# a kernel), and they talk both ways: stock RC tools with the data checked
# (ibv_rc_pingpong -c, ib_write_bw, ib_read_lat), then
# tests/atomic_write_hosts (ATOMIC_WRITE, which rdma_rxe has since 6.2:
# values placed, an MR without REMOTE_WRITE refused).
prog=$(dirname "$0")/../../tests/bin/atomic_write_hosts
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

# aw_run NAME RESPONDER_HOST: one run, the responder on that host; the
# requester retries its TCP connection until the responder listens
aw_run() {
	if [ "$SRDMA_ROLE" = "$2" ]; then
		check "$1: responder on $dev" run_tap "$1" "$prog" "$dev"
	else
		check "$1: requester on $dev" run_tap "$1" "$prog" "$dev" "$peer_ip"
	fi
}

check "both hosts are ready for ATOMIC_WRITE" rc_barrier aw
aw_run atomic_write_srdma_responds a
aw_run atomic_write_rxe_responds b
check "both hosts are done" rc_barrier aw_done
check "rdma link delete $dev" rdma link delete "$dev"
finish
