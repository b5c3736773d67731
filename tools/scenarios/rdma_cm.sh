#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# rdma_cm over the GSI QP on one VM (loopback: the CM's MADs go from QP1 to
# QP1 of the same device): Debian's rdmacm-utils rping (with -V, data
# verification), ucmatose (RC), udaddy (UD, SIDR resolution), mckey
# (multicast join: the receiver gets the sender's datagrams), perftest's
# ib_send_bw and ib_write_bw with -R (connection by rdma_cm), and a
# connection refused with a REJ (no listener).
# SRDMA_REF=rxe runs them on rdma_rxe.
. "$(dirname "$0")/lib.sh"

device_on_veth_with_peer	# $dev on veth0 198.18.0.1
addr=198.18.0.1
check "$dev: a RoCEv2 GID for $addr" wait_until 10 rocev2_gid_index "$dev" $addr

# cm_test NAME REGEX SERVER_CMD -- CLIENT_CMD: the server in the
# background, then the client; both must exit 0 and print REGEX
cm_test() {
	local name=$1 regex=$2 file=$SRDMA_RESULTS/${1//[^[:alnum:]]/_} server=() pid
	local s_status c_status buffering=() ready args=("$@")
	shift 2
	while [ "$1" != -- ]; do server+=("$1"); shift; done
	shift
	ready=(cm_listening "${server[0]}")
	# mckey's receiver joins a group, which rdma does not show: it says so,
	# line-buffered
	if [ "${server[0]}" = mckey ]; then
		buffering=(stdbuf -oL)
		ready=(file_has "$file.server" '^mckey: joined dgid')
	fi
	timeout 120 "${buffering[@]}" "${server[@]}" > "$file.server" 2>&1 &
	pid=$!
	wait_until 10 "${ready[@]}"
	timeout 100 "$@" > "$file.client" 2>&1
	c_status=$?
	if [ $c_status != 0 ] && [ -z "${cm_again:-}" ] && cm_race "$file.client"; then
		kill $pid 2> /dev/null
		wait $pid
		cm_race_aside "$name" "$file"
		cm_again=1 cm_test "${args[@]}"
		return
	fi
	wait $pid
	s_status=$?
	check "$name: client" _rc_side_ok $c_status "$file.client" "$regex"
	check "$name: server" _rc_side_ok $s_status "$file.server" "$regex"
}

cm_test "rping -V" "ping data: rdma-ping-9: " \
	rping -s -a $addr -v -V -C 10 -- rping -c -a $addr -v -V -C 10
cm_test "ucmatose" "^return status 0" \
	ucmatose -b $addr -- ucmatose -s $addr
cm_test "udaddy" "^return status 0" \
	udaddy -b $addr -- udaddy -s $addr
# mckey's receiver waits for the sender's messages; both join 239.1.2.3
cm_test "mckey" "^return status 0" \
	mckey -m 239.1.2.3 -b $addr -- mckey -m 239.1.2.3 -b $addr -s
# -F: perftest times with the TSC; when a descheduled TCG guest fails its
# calibration (r^2 < 0.9) it prints inf instead of exiting 1 before its
# closing exchange with the other side, which would then wait for ever
cm_test "ib_send_bw -R" "^ *65536 +100([[:space:]]+[0-9.]+){3}" \
	ib_send_bw -R -F -d "$dev" -n 100 -- ib_send_bw -R -F -d "$dev" -n 100 $addr
cm_test "ib_write_bw -R" "^ *65536 +100([[:space:]]+[0-9.]+){3}" \
	ib_write_bw -R -F -d "$dev" -n 100 -- ib_write_bw -R -F -d "$dev" -n 100 $addr
# no listener on the port: the passive side's CM answers the REQ with a
# REJ (invalid service ID), which reaches the client as an event
check_match "rping to a port nobody listens on: the CM's REJ arrives" \
	"RDMA_CM_EVENT_REJECTED" timeout 60 rping -c -a $addr -p 7999 -C 1 -v
check "rdma link delete $dev" rdma link delete "$dev"
finish
