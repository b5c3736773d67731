#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 300
# A RAW_PACKET QP against a packet socket (tests/raw_qp.c): srdma0 on veth0,
# the socket on veth1 in namespace peer. Frames the QP sends arrive whole at
# the socket; frames the socket sends arrive whole in the QP's buffers, and
# RoCEv2 frames do not; bad lengths complete with LOC_LEN_ERR.
# SRDMA_REF=rxe is not offered: rdma_rxe has no RAW_PACKET QPs.
prog=$(dirname "$0")/../../tests/bin/raw_qp
. "$(dirname "$0")/lib.sh"

device_on_veth_with_peer	# $dev on veth0; veth1 in namespace peer
check "raw_qp: frames between a RAW_PACKET QP and a packet socket" \
	run_tap raw_qp "$prog" "$dev" peer veth1
check "rdma link delete $dev" rdma link delete "$dev"
finish
