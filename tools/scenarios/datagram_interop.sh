#!/bin/bash
# topology: two
# link: tap
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 900
# Interoperability of UD, UC and rdma_cm: host a runs srdma, host b the
# kernel's rdma_rxe, each on its eth0. ibv_ud_pingpong and ibv_uc_pingpong
# (-c: the receiver checks the data) with a serving, then b serving; then
# rping with data verification (rdma_cm: the CM's MADs between srdma's and
# rdma_rxe's GSI QPs, then RC) with a serving, then b serving.
# SRDMA_REF=rxe runs rdma_rxe on host a too.
. "$(dirname "$0")/lib.sh"

if [ "$SRDMA_ROLE" = a ]; then
	rc_eth0_device "${SRDMA_REF:-srdma}"
else
	rc_eth0_device rxe
fi
rc_timeout=60

for server in a b; do
	rc_serve $server
	rc_fresh_start
	rc_test "$server serves: ibv_ud_pingpong" ibv_ud_pingpong -s 1024 -n 50 -c
	rc_test "$server serves: ibv_uc_pingpong" ibv_uc_pingpong -s 16384 -n 50 -c
done

# rping SERVER: host SERVER runs rping's server on its address, the other
# host connects; both verify every ping (-V) and must print the last one
rping_test() {
	local out=$SRDMA_RESULTS/rping-$1 status pid
	if [ "$SRDMA_ROLE" = "$1" ]; then
		timeout 120 rping -s -a "$my_ip" -v -V -C 10 > "$out.server" 2>&1 &
		pid=$!
		wait_until 10 cm_listening rping
		rc_barrier "rping-$1" || kill $pid
		wait $pid
		status=$?
		check "$1 serves: rping -V (server)" \
			_rc_side_ok $status "$out.server" "ping data: rdma-ping-9: "
	else
		rc_barrier "rping-$1"
		timeout 100 rping -c -a "$peer_ip" -v -V -C 10 > "$out.client" 2>&1
		status=$?
		check "$1 serves: rping -V (client)" \
			_rc_side_ok $status "$out.client" "ping data: rdma-ping-9: "
	fi
	rc_barrier "rping-$1-done"
}
rping_test a
rping_test b

# mckey RECEIVER: host RECEIVER joins 239.1.2.4 and waits for the 10
# datagrams that the other host, joined too, sends to the group (rdma_cm's
# local RoCE join, ibv_attach_mcast, a UD AH to ::ffff:239.1.2.4)
mckey_test() {
	local out=$SRDMA_RESULTS/mckey-$1 status pid
	if [ "$SRDMA_ROLE" = "$1" ]; then
		# line-buffered: the test waits for the line that says it joined
		timeout 120 stdbuf -oL mckey -m 239.1.2.4 -b "$my_ip" > "$out.receiver" 2>&1 &
		pid=$!
		wait_until 60 grep -q "^mckey: joined dgid" "$out.receiver"
		rc_barrier "mckey-$1" || kill $pid
		wait $pid
		status=$?
		check "$1 receives: mckey (receiver)" \
			_rc_side_ok $status "$out.receiver" "^data transfers complete"
	else
		rc_barrier "mckey-$1"
		timeout 100 mckey -m 239.1.2.4 -s -b "$my_ip" > "$out.sender" 2>&1
		status=$?
		check "$1 receives: mckey (sender)" \
			_rc_side_ok $status "$out.sender" "^data transfers complete"
	fi
	rc_barrier "mckey-$1-done"
}
mckey_test a
mckey_test b
check "both hosts are done" barrier done
check "rdma link delete $dev" rdma link delete "$dev"
finish
