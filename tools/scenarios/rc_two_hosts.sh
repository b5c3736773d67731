#!/bin/bash
# topology: two
# link: tap
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# Two VMs, srdma on both hosts' virtio-net eth0: ibv_rc_pingpong and
# perftest's RC bandwidth and latency tests, host b serving and host a
# connecting, and ibv_rc_pingpong -o (on-demand paging MRs at both ends).
# The NICs have checksum offload (link: tap), so srdma sends its packets
# in batches that the stack cuts before the NIC, and GRO joins them after
# the receiving NIC's: each host checks it sent batches and received
# joined packets.
# SRDMA_REF=rxe runs rdma_rxe on both hosts instead (without -o: the
# rdma_rxe of 6.1 and 6.12 has no on-demand paging).
. "$(dirname "$0")/lib.sh"

rc_eth0_device "${SRDMA_REF:-srdma}"
rc_serve b
rc_suite "a to b:"
if [ "${SRDMA_REF:-srdma}" = srdma ]; then
	rc_test "a to b: ibv_rc_pingpong -o" ibv_rc_pingpong -o -s 65536 -n 10 -c
	n=$(counter "$dev" tx_batches)
	check "$dev: packets sent in batches through the NIC (tx_batches $n)" test "${n:-0}" -gt 0
	n=$(counter "$dev" rx_batches)
	check "$dev: packets received joined by GRO (rx_batches $n)" test "${n:-0}" -gt 0
fi
check "both hosts are done" barrier done
check "rdma link delete $dev" rdma link delete "$dev"
finish
