#!/bin/bash
# topology: two
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# Two VMs, srdma on both hosts' virtio-net eth0: ibv_rc_pingpong and
# perftest's RC bandwidth and latency tests, host b serving and host a
# connecting, and ibv_rc_pingpong -o (on-demand paging MRs at both ends).
# SRDMA_REF=rxe runs rdma_rxe on both hosts instead (without -o: the
# rdma_rxe of 6.1 and 6.12 has no on-demand paging).
. "$(dirname "$0")/lib.sh"

rc_eth0_device "${SRDMA_REF:-srdma}"
rc_serve b
rc_suite "a to b:"
[ "${SRDMA_REF:-srdma}" = rxe ] ||
	rc_test "a to b: ibv_rc_pingpong -o" ibv_rc_pingpong -o -s 65536 -n 10 -c
check "both hosts are done" barrier done
check "rdma link delete $dev" rdma link delete "$dev"
finish
