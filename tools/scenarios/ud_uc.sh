#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# UD and UC with Debian's stock tools on one VM, server and client on one
# device (loopback): ibv_ud_pingpong and ibv_uc_pingpong (sizes, events;
# -c: the receiver checks the data), perftest's ib_send_bw over UD and UC
# and ib_write_bw over UC. The device's counters must show no datagram
# dropped for a bad Q_Key and no UC message dropped (loopback loses none).
# SRDMA_REF=rxe runs them on rdma_rxe.
. "$(dirname "$0")/lib.sh"

device_on_veth_with_peer	# $dev on veth0 198.18.0.1; veth1 198.18.0.2 in peer
check "$dev: a RoCEv2 GID for 198.18.0.1" wait_until 10 rocev2_gid_index "$dev" 198.18.0.1
gid=$(rocev2_gid_index "$dev" 198.18.0.1)

rc_server_dev=$dev rc_server_gid=$gid
rc_client_dev=$dev rc_client_gid=$gid
rc_server_ip=127.0.0.1
rc_timeout=60	# the debug guest under TCG is slow (UC SEND: under 1 MB/s)
rc_fresh_start
# UD: one packet per message (the port MTU is 1024 on a 1500-byte veth);
# ibv_ud_pingpong -s is the payload, its receive buffer 40 bytes more (GRH)
rc_test "UD: ibv_ud_pingpong -s 1024" ibv_ud_pingpong -s 1024 -n 50 -c
rc_test "UD: ibv_ud_pingpong -s 984 -e" ibv_ud_pingpong -e -s 984 -n 20 -c
rc_test "UD: ib_send_bw -c UD" ib_send_bw -c UD -s 1024 -n 200 -F
rc_test "UC: ibv_uc_pingpong -s 1" ibv_uc_pingpong -s 1 -n 50 -c
rc_test "UC: ibv_uc_pingpong -s 65536 -e" ibv_uc_pingpong -e -s 65536 -n 20 -c
rc_test "UC: ib_send_bw -c UC" ib_send_bw -c UC -s 16384 -n 100 -F
rc_test "UC: ib_write_bw -c UC" ib_write_bw -c UC -s 65536 -n 100 -F

if [ "${SRDMA_REF:-srdma}" = srdma ]; then
	echo "# $(rdma statistic show link "$dev/1")"
	check "no datagram dropped for its Q_Key (drop_bad_qkey $(counter "$dev" drop_bad_qkey))" \
		test "$(counter "$dev" drop_bad_qkey)" = 0
	check "no UC message dropped (drop_uc_msgs $(counter "$dev" drop_uc_msgs))" \
		test "$(counter "$dev" drop_uc_msgs)" = 0
fi
check "rdma link delete $dev" rdma link delete "$dev"
finish
