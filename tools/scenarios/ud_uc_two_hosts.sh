#!/bin/bash
# topology: two
# link: tap
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# Two VMs, srdma on both hosts' virtio-net eth0: the UD and UC transports
# through Debian's stock tools, host b serving and host a connecting, each
# with the device's RoCEv2 GID of its IPv4 address (-g / -x):
# - ibv_ud_pingpong with 64 bytes, with the port's active MTU (the largest
#   it takes: one packet; the receive buffers have 40 more bytes for the
#   GRH), and with -e (CQ events); -s active MTU + 1 is refused by the tool
#   itself (host a, no peer involved);
# - ibv_uc_pingpong with 1, 4096 (4 packets) and 65536 bytes (64 packets),
#   and with -e;
# - perftest: ib_send_bw -c UD (active MTU), ib_send_bw -c UC and
#   ib_write_bw -c UC (16 KiB messages, at most 8 in flight), and the
#   latency tests ib_send_lat -c UD and ib_write_lat -c UC (4 KiB: each
#   side polls its buffer for the last byte of the peer's RDMA WRITE, the
#   only one of these perftest runs that needs the data to land).
# Each side must exit 0 and print its result line ("N iters in", perftest's
# bandwidth or latency row); pingpong -c: the server found the data it
# expected (only the first byte of each page: a weak check).
# The UD tools set qkey 0x11111111 on the QP and as each WR's remote qkey,
# and address the peer with a global AH (the GID index given by -g / -x).
# UD and UC have no retransmission: a lost packet leaves the pingpong
# waiting, which the tool's time limit (rc_timeout) turns into a failure.
# SRDMA_REF=rxe runs rdma_rxe on both hosts instead.
# shellcheck source-path=SCRIPTDIR disable=SC2317 # functions run by check
. "$(dirname "$0")/lib.sh"

# active_mtu DEVICE: the port's active MTU in bytes (ibv_devinfo)
active_mtu() {
	ibv_devinfo -d "$1" -i 1 | sed -nE 's/^[[:space:]]*active_mtu:[[:space:]]*([0-9]+) .*/\1/p'
}

# fails_saying REGEX COMMAND...: the command fails (not by a time limit)
# and prints REGEX
fails_saying() {
	local re=$1 out status; shift
	out=$("$@" 2>&1)
	status=$?
	printf '%s\n# exit status %s\n' "$out" "$status"
	[ "$status" != 0 ] && [ "$status" != 124 ] && grep -Eq -- "$re" <<< "$out"
}

# In the debug guest under TCG a tool takes seconds to start; 60 s per run
rc_timeout=60
rc_eth0_device "${SRDMA_REF:-srdma}"
mtu=$(active_mtu "$dev")
check "$dev: active MTU $mtu (eth0 MTU 1500: 1024)" test "${mtu:-0}" = 1024

rc_serve b
rc_test "UD: ibv_ud_pingpong -s 64" ibv_ud_pingpong -s 64 -n 100 -c
rc_test "UD: ibv_ud_pingpong -s $mtu (active MTU)" ibv_ud_pingpong -s "$mtu" -n 100 -c
rc_test "UD: ibv_ud_pingpong -e" ibv_ud_pingpong -e -s "$mtu" -n 100 -c
if [ "$SRDMA_ROLE" = a ]; then
	check "UD: ibv_ud_pingpong -s $((mtu + 1)) is refused (larger than the MTU)" \
		fails_saying "Requested size larger than port MTU \\($mtu\\)" \
		timeout 30 ibv_ud_pingpong -d "$dev" -g "$rc_client_gid" \
		-s $((mtu + 1)) -n 1 "$rc_server_ip"
fi

rc_test "UC: ibv_uc_pingpong -s 1" ibv_uc_pingpong -s 1 -n 100 -c
rc_test "UC: ibv_uc_pingpong -s 4096" ibv_uc_pingpong -s 4096 -n 100 -c
rc_test "UC: ibv_uc_pingpong -s 65536" ibv_uc_pingpong -s 65536 -n 10 -c
rc_test "UC: ibv_uc_pingpong -e" ibv_uc_pingpong -e -s 4096 -n 50 -c

rc_test "UD: ib_send_bw -c UD" ib_send_bw -c UD -F -s "$mtu" -n 50 -t 8
rc_test "UC: ib_send_bw -c UC" ib_send_bw -c UC -F -s 16384 -n 50 -t 8
rc_test "UC: ib_write_bw -c UC" ib_write_bw -c UC -F -s 16384 -n 50 -t 8
rc_test "UD: ib_send_lat -c UD" ib_send_lat -c UD -F -s "$mtu" -n 50
rc_test "UC: ib_write_lat -c UC" ib_write_lat -c UC -F -s 4096 -n 50

check "both hosts are done" barrier all-done
check "rdma link delete $dev" rdma link delete "$dev"
finish
