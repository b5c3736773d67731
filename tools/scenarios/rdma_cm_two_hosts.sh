#!/bin/bash
# topology: two
# link: tap
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# Two VMs, srdma on both hosts' virtio-net eth0: connections made by the
# RDMA connection manager (rdma_cm: address and route resolution from the
# hosts' IPv4 addresses, CM MADs through QP1) with Debian's stock
# rdmacm-utils and perftest, host b serving and host a connecting:
# - rping -v -V -C 10: RC, 10 pings (SEND, RDMA READ, RDMA WRITE), the
#   client checks each ping's data (-V) and both print them (-v);
# - ucmatose: an RC connection, 10 SENDs each way, disconnect;
# - udaddy: UD, the SIDR exchange, 10 SENDs each way;
# - mckey: UD multicast: b joins 239.1.2.3 (bound to its address) and
#   receives the 10 SENDs that a, also joined, sends to the group;
# - ib_send_bw -R and ib_write_bw -R: perftest over connections made by
#   rdma_cm (RC, 16 KiB messages, at most 8 in flight), and
#   ib_send_bw -R -c UD.
# For each: the server starts in the background on b; a waits (barrier)
# until it listens (rdma resource show cm_id: an ID in state LISTEN on its
# port) or, for mckey, has joined the group; each side must exit 0 and
# print what the tool prints when it ran to the end.
# What the device must do beyond RC: a GSI QP (QP1: CM REQ/REP/RTU/DREQ and
# SIDR REQ/REP MADs, qkey 0x80010000); UD QPs with rdma_cm's qkey
# 0x01234567 (udaddy, mckey, ib_send_bw -R -c UD); for mckey, multicast
# attach: on RoCE the join is local (no MAD: rdma_cm joins the IPv4 group
# on eth0, sending an IGMP report), librdmacm attaches the QP
# (ibv_attach_mcast) and the sender's AH has DGID ::ffff:239.1.2.3; mckey's
# sender destroys its QP right after posting its 10 unsignaled SENDs, so
# they must be on the wire by then (rdma_rxe sends a user QP's WQEs inside
# ibv_post_send).
# SRDMA_REF=rxe runs rdma_rxe on both hosts instead.
# shellcheck source-path=SCRIPTDIR disable=SC2317 # functions run by check
. "$(dirname "$0")/lib.sh"

group=239.1.2.3
# In the debug guest under TCG a tool takes seconds to start; 60 s per run
rc_timeout=60
cm_count=0 cm_file=
cm_server=() cm_client=() cm_ready=()

# cm_listening PS PORT: an rdma_cm ID of port space PS (TCP or UDP) listens
# on PORT
cm_listening() {
	rdma resource show cm_id | grep -Eq "state LISTEN ps $1 .*src-addr [^ ]*:$2( |$)"
}

# _cm_gone_or_flag PID FILE: the process has exited, or FILE exists
_cm_gone_or_flag() { ! kill -0 "$1" 2> /dev/null || [ -e "$2" ]; }

cm_again=

# server_says REGEX: the current test's server printed REGEX
server_says() { grep -Eq -- "$1" "$cm_file.server"; }

# _cm_ready_or_gone PID: the server is ready ("${cm_ready[@]}"), or exited
_cm_ready_or_gone() { "${cm_ready[@]}" || ! kill -0 "$1" 2> /dev/null; }

# _cm_side_ok STATUS FILE REGEX: the side exited 0 and printed REGEX, and
# no data mismatch (rping -V); else show why
_cm_side_ok() {
	if [ "$1" = none ]; then
		echo "not run: the peer host did not reach the test"
		return 1
	fi
	[ "$1" = 0 ] && grep -Eq -- "$3" "$2" && ! grep -Eq 'data mismatch|bogus data' "$2" &&
		return 0
	echo "exit status $1 (124: timed out after ${rc_timeout}s), expected /$3/"
	tail -n 12 "$2"
	return 1
}

# cm_test NAME SERVER_REGEX CLIENT_REGEX: host b runs "${cm_server[@]}" in
# the background until "${cm_ready[@]}" succeeds (or it exits), then host a
# runs "${cm_client[@]}"; both under timeout $rc_timeout, outputs in
# $SRDMA_RESULTS/NAME.server and NAME.client. After a time-out on either
# host, or when the peer does not come to a barrier, the remaining tests
# are reported as not run (rc_hung_flag, as rc_test).
cm_test() {
	local name=$1 server_re=$2 client_re=$3 pid="" status=none run=1 again
	cm_file=${name//[^[:alnum:]]/_}
	while [[ $cm_file == *__* ]]; do cm_file=${cm_file//__/_}; done
	cm_file=$SRDMA_RESULTS/$cm_file
	cm_count=$((cm_count + 1))
	if [ -e "$rc_hung_flag" ]; then
		echo "# not run: a tool timed out in an earlier test, or the peer is gone" > "$_out"
		_report bad "$name"
		return
	fi
	if [ "$SRDMA_ROLE" = b ]; then
		timeout "$rc_timeout" stdbuf -oL "${cm_server[@]}" > "$cm_file.server" 2>&1 &
		pid=$!
		wait_until 30 _cm_ready_or_gone $pid
		check "$name: server ready (${cm_ready[*]})" "${cm_ready[@]}"
	fi
	# the server is ready (or gave up) before the client starts
	if ! rc_barrier "cm$cm_count"; then
		[ -n "$pid" ] && kill "$pid" 2> /dev/null
		run=0
	fi
	again=$SRDMA_SHARED/cm$cm_count-again
	if [ -n "$pid" ]; then
		# the client may call the test off (cm_race)
		wait_until "$rc_timeout" _cm_gone_or_flag "$pid" "$again"
		[ ! -e "$again" ] || kill "$pid" 2> /dev/null
		wait "$pid"
		status=$?
	elif [ $run = 1 ]; then
		timeout "$rc_timeout" stdbuf -oL "${cm_client[@]}" > "$cm_file.client" 2>&1
		status=$?
		# cm_race: once more (a second such end fails)
		[ "$status" = 0 ] || [ -n "$cm_again" ] || ! cm_race "$cm_file.client" ||
			touch "$again"
	fi
	[ "$status" = 124 ] && touch "$rc_hung_flag"
	# both hosts know whether a tool hung before the next test
	[ $run = 0 ] || rc_barrier "cm$cm_count-done"
	if [ $run = 1 ] && [ -e "$again" ]; then
		cm_race_aside "$name" "$cm_file"
		cm_again=1 cm_test "$@"
		return
	fi
	if [ "$SRDMA_ROLE" = b ]; then
		check "$name: server" _cm_side_ok "$status" "$cm_file.server" "$server_re"
	else
		check "$name: client" _cm_side_ok "$status" "$cm_file.client" "$client_re"
	fi
}

# perftest_cm NAME TOOL ARGS...: perftest's TOOL with rdma_cm (-R); both
# sides print the bandwidth row (ARGS must give -s and -n). The server
# first listens on port 18515 in the TCP port space whatever the test's
# connection type: perftest exchanges its parameters over an RC connection
# of its own (-c UD then listens in the UDP port space too).
perftest_cm() {
	local name=$1 tool=$2 size iters re; shift 2
	size=$(_rc_opt -s "$@")
	iters=$(_rc_opt -n "$@")
	re="^ *$size +$iters([[:space:]]+[0-9.]+){3}"
	cm_server=("$tool" -R -d "$dev" "$@")
	cm_client=("$tool" -R -d "$dev" "$@" "$server_ip")
	cm_ready=(cm_listening TCP 18515)
	cm_test "$name" "$re" "$re"
}

load_uverbs
check "modprobe rdma_ucm (/dev/infiniband/rdma_cm)" modprobe rdma_ucm
check "/dev/infiniband/rdma_cm exists" wait_until 5 test -c /dev/infiniband/rdma_cm
rc_eth0_device "${SRDMA_REF:-srdma}"	# $dev, $my_ip, $peer_ip
rc_serve b
server_ip=$rc_server_ip

cm_server=(rping -s -a "$server_ip" -v -V -C 10)
cm_client=(rping -c -a "$server_ip" -v -V -C 10)
cm_ready=(cm_listening TCP 7174)
cm_test "rping -v -V -C 10" '^server ping data: rdma-ping-9: ' '^ping data: rdma-ping-9: '

cm_server=(ucmatose)
cm_client=(ucmatose -s "$server_ip")
cm_ready=(cm_listening TCP 7471)
cm_test "ucmatose" '^data transfers complete' '^data transfers complete'

cm_server=(udaddy)
cm_client=(udaddy -s "$server_ip")
cm_ready=(cm_listening UDP 7174)
cm_test "udaddy" '^data transfers complete' '^data transfers complete'

cm_server=(mckey -m "$group" -b "$server_ip")
cm_client=(mckey -m "$group" -s -b "$my_ip")
cm_ready=(server_says '^mckey: joined dgid')
cm_test "mckey -m $group" '^data transfers complete' '^data transfers complete'

perftest_cm "ib_send_bw -R" ib_send_bw -F -s 16384 -n 50 -t 8 -u 18
perftest_cm "ib_write_bw -R" ib_write_bw -F -s 16384 -n 50 -t 8 -u 18
perftest_cm "ib_send_bw -R -c UD" ib_send_bw -c UD -F -s 1024 -n 50 -t 8

check "both hosts are done" barrier all-done
check "rdma link delete $dev" rdma link delete "$dev"
finish
