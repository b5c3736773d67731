#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kmemleak: on
# rdma resource show (restrack) lists the objects a running program holds,
# with the QP's type, state and numbers, and none once it is gone; the
# kernel's GSI QP (ib_mad's, with its PD and CQ) is there throughout; with
# -dd, srdma's own table of each QP (srdma_restrack.c).
. "$(dirname "$0")/lib.sh"

veth_pair
load_uverbs
check "rdma link add srdma0" rdma link add srdma0 type srdma netdev veth0
# the kernel's own objects first: ib_mad's GSI QP with its PD and CQ
check_match "the summary shows the GSI QP's PD, CQ and QP, nothing else" \
	'srdma0: pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0' rdma resource show
check_match "the GSI QP: QP 1, type GSI, RTS" \
	'link srdma0/1 lqpn 1 .*type GSI state RTS' rdma resource show qp
# The pingpong server creates its objects, takes its QP to INIT, then waits
# for a client that never comes.
ibv_rc_pingpong -d srdma0 -g 1 -p 18515 > "$SRDMA_RESULTS/pingpong.txt" 2>&1 &
server=$!
check "the program's QP appears" wait_until 20 \
	sh -c 'rdma resource show qp | grep -q "comm ibv_rc_pingpong"'
check_match "its QP: RC, INIT, a QP number" \
	'link srdma0/1 lqpn [0-9]+ .*type RC state INIT .*comm ibv_rc_pingpong' \
	rdma resource show qp
check_match "-dd: its engine's CPUs, no window before RTS" \
	'type RC state INIT .*comm ibv_rc_pingpong drv_send_cpu [0-9]+ drv_recv_cpu [0-9]+ *$' \
	rdma resource show qp link srdma0 -dd
check_match "its CQ" 'dev srdma0 cqn [0-9]+ cqe [0-9]+ .*comm ibv_rc_pingpong' \
	rdma resource show cq
check_match "its MR, with its keys" \
	'dev srdma0 mrn [0-9]+ rkey 0x[0-9a-f]+ lkey 0x[0-9a-f]+ mrlen 4096 .*comm ibv_rc_pingpong' \
	rdma resource show mr
check_match "its PD" 'dev srdma0 .*pdn [0-9]+ .*comm ibv_rc_pingpong' \
	rdma resource show pd
check_match "the summary counts them with the GSI QP's" \
	'srdma0: pd 2 cq 2 qp 2 cm_id 0 mr 1 ctx 1 srq 0' rdma resource show
# A client to the server's own address: with traffic, the driver's table
# of each RC QP (-dd) shows where its halves run, its window, the round
# trips measured and the ACK timeout they give (ibv_rc_pingpong's timeout
# 14: 4.096 us x 2^14, stretched only by round trips longer than a
# quarter of it).
ibv_rc_pingpong -d srdma0 -g 1 -p 18515 -n 100000000 198.18.0.1 \
	> "$SRDMA_RESULTS/pingpong-client.txt" 2>&1 &
client=$!
# RTS comes before the first ACK: wait for a round trip measured on each
check "both QPs of the pingpong in RTS, a round trip measured by each" wait_until 20 \
	sh -c '[ "$(rdma resource show qp link srdma0 -dd |
		grep -Ec "type RC state RTS .*comm ibv_rc_pingpong .*drv_srtt_us [1-9]")" = 2 ]'
check_match "-dd: the driver's table of an RC QP, the QP's ACK timeout" \
	'type RC state RTS .*drv_send_cpu [0-9]+ drv_recv_cpu [0-9]+ drv_cwnd [0-9]+ drv_ssthresh [0-9]+ drv_unacked [0-9]+ drv_srtt_us [1-9][0-9]* drv_rttvar_us [0-9]+ drv_ack_timeout_us 67108 drv_retry_left 7 drv_rnr_retry_left 7' \
	rdma resource show qp link srdma0 -dd
check_no_match "-d alone: no driver table" 'drv_' rdma resource show qp link srdma0 -d
kill "$client" "$server"
wait "$client" "$server" 2> /dev/null
check "all released when the program is gone" wait_until 10 \
	sh -c 'rdma resource show | grep -q "srdma0: pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0"'
check "rdma link delete srdma0" rdma link delete srdma0
finish
