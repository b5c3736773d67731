# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Helpers for guest scenarios (sourced; runs inside a test VM).
#
# A scenario is a bash script in tools/scenarios/ that sources this file,
# makes checks with check/check_fails/check_match, and ends with finish.
# Each check prints "ok - ..." or "not ok - ..." with the command's output;
# finish exits non-zero if any check failed. tools/check.sh runs each
# scenario in a fresh VM; a first line "# topology: two" asks for two VMs,
# where the script runs on both with SRDMA_ROLE=a or b.

set -u
: "${SRDMA_RESULTS:=/tmp}" "${SRDMA_SHARED:=/tmp}"
_fails=0
_checks=0
_out=$(mktemp)
# seconds each check took (since the one before), to find where time goes
_times=$SRDMA_RESULTS/check-times.txt
_last=$EPOCHREALTIME

_report() {	# _report ok|bad DESCRIPTION
	local now=$EPOCHREALTIME tenths
	_checks=$((_checks + 1))
	tenths=$(( (${now/./} - ${_last/./}) / 100000 ))
	printf '%d.%d %s\n' $((tenths / 10)) $((tenths % 10)) "$2" >> "$_times"
	_last=$now
	if [ "$1" = ok ]; then
		echo "ok $_checks - $2"
	else
		_fails=$((_fails + 1))
		echo "not ok $_checks - $2"
		sed 's/^/#   /' "$_out"
	fi
}

# What the kernel log must not hold: tools/vm/verdict fails the run on
# these too; a check with it names the moment and shows the lines
alarming='WARNING:|BUG:|Oops|KASAN|UBSAN|general protection fault[,:]|refcount_t:|list_(add|del) corruption|blocked for more than|soft lockup|hard LOCKUP|rcu_.*stall|ODEBUG|unreferenced object|unregister_netdevice: waiting'

# gro_pkts N: srdma's rx_gro_pkts (0: no packets taken together on
# receive, so that a capture on this host shows them as the wire carried
# them)
gro_pkts() {
	echo "$1" > /sys/module/srdma/parameters/rx_gro_pkts
}

# counter DEVICE NAME [NAMESPACE]: the value of the device's counter NAME;
# read from sysfs where no namespace is named (an exec of rdma costs a
# tenth of a second in the debug guest, and rate_limit reads eight per run)
counter() {
	local ns=() out word next=0
	if [ -z "${3:-}" ] &&
	   read -r out 2> /dev/null < "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; then
		echo "$out"
		return 0
	fi
	[ -n "${3:-}" ] && ns=(ip netns exec "$3")
	out=$("${ns[@]}" rdma statistic show link "$1/1") || return
	# "NAME VALUE" pairs: the word after NAME
	for word in $out; do
		[ $next = 0 ] || { echo "$word"; return 0; }
		[ "$word" != "$2" ] || next=1
	done
}

# check DESCRIPTION COMMAND...: the command must succeed
check() {
	local desc=$1; shift
	if "$@" > "$_out" 2>&1; then _report ok "$desc"; else _report bad "$desc"; fi
}

# check_fails DESCRIPTION COMMAND...: the command must fail
check_fails() {
	local desc=$1; shift
	if "$@" > "$_out" 2>&1; then _report bad "$desc (it succeeded)"; else _report ok "$desc"; fi
}

# _check_output WANT DESCRIPTION REGEX COMMAND...: WANT is 1 if the output
# must match, 0 if it must not (and the command must succeed: the absence of
# a line in the output of a command that failed shows nothing)
_check_output() {
	local want=$1 desc=$2 re=$3 found=0 rc=0; shift 3
	"$@" > "$_out" 2>&1 || rc=$?
	grep -Eq -- "$re" "$_out" && found=1
	if [ $found = "$want" ] && { [ "$want" = 1 ] || [ $rc = 0 ]; }; then
		_report ok "$desc"
	elif [ $found = "$want" ]; then
		echo "# the command failed (exit status $rc): $*" >> "$_out"
		_report bad "$desc"
	else
		echo "# $([ "$want" = 1 ] && echo expected || echo "did not expect") /$re/ in the output of: $*" >> "$_out"
		_report bad "$desc"
	fi
}

# check_match DESCRIPTION REGEX COMMAND...: the output (stdout and stderr)
# must match the extended regex; the exit status does not matter
check_match() { _check_output 1 "$@"; }

# check_no_match DESCRIPTION REGEX COMMAND...: the command must succeed and
# its output must not match
check_no_match() { _check_output 0 "$@"; }

# nap SECONDS: sleep without an exec (an exec costs a quarter of a second
# in a TCG guest, more than a poll's interval): a read that times out on a
# pipe no one writes to
exec {_nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$_nap_fd" || true; }

# wait_until SECONDS COMMAND...: poll every 0.1 s until the command succeeds
wait_until() {
	local deadline=$((SECONDS + $1)); shift
	until "$@" > /dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		nap 0.1
	done
}

# file_has FILE REGEX: a line of FILE matches the extended REGEX (bash's
# own matching: a grep would be an exec)
file_has() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ $2 ]] && return 0
	done < "$1"
	return 1
}

# barrier NAME: two VMs: wait until the peer reached the same barrier
barrier() {
	local peer=b
	[ "$SRDMA_ROLE" = a ] || peer=a
	: > "$SRDMA_SHARED/barrier-$1-$SRDMA_ROLE"
	wait_until 120 test -e "$SRDMA_SHARED/barrier-$1-$peer"
}

finish() {
	rm -f "$_out"
	echo "# $((_checks - _fails)) of $_checks checks passed"
	[ $_fails = 0 ]
	exit
}

# veth_pair: veth0 (198.18.0.1) <-> veth1 (198.18.0.2), both up
veth_pair() {
	# one ip for all (an exec costs a fifth of a second in the debug guest)
	ip -batch - <<-EOF
	link add veth0 type veth peer name veth1
	addr add 198.18.0.1/24 dev veth0
	addr add 198.18.0.2/24 dev veth1
	addr add fd00:5264:6d61::1/64 dev veth0 nodad
	addr add fd00:5264:6d61::2/64 dev veth1 nodad
	link set veth0 up
	link set veth1 up
	EOF
}

# Device helpers
ib_exists() { [ -e "/sys/class/infiniband/$1" ]; }
ib_gone() { [ ! -e "/sys/class/infiniband/$1" ]; }
port_state() { cat "/sys/class/infiniband/$1/ports/1/state"; }
# port_is DEVICE STATE: without an exec, for the polls
port_is() {
	local state
	read -r state < "/sys/class/infiniband/$1/ports/1/state" &&
	[[ $state == *"$2"* ]]
}

# srdma's tracepoints (Documentation/transport.md) into a ring buffer of
# KB KiB that keeps the newest: trace_srdma_on [KB]; trace_srdma_save FILE
# moves what it holds to FILE; trace_srdma_clear drops it.
_tracefs=/sys/kernel/tracing
trace_srdma_on() {
	mountpoint -q $_tracefs || mount -t tracefs tracefs $_tracefs || return
	echo "${1:-16384}" > $_tracefs/buffer_size_kb &&
	trace_srdma_clear &&
	echo 1 > $_tracefs/events/srdma/enable
}
trace_srdma_clear() { echo > $_tracefs/trace; }
trace_srdma_save() { cat $_tracefs/trace > "$1" && trace_srdma_clear; }

# Load the uverbs stack as rdma-core's udev rules do on a real machine.
load_uverbs() { modprobe ib_uverbs; }

# fail_tasks_allocations PERCENT IGNORE_HIGHMEM: failslab and fail_page_alloc
# fail PERCENT % of the allocations of the tasks that ask for it
# (/proc/PID/make-it-fail), quietly; IGNORE_HIGHMEM Y spares the pages of
# processes' memory (a page fault cannot fail cleanly)
fail_tasks_allocations() {
	local f d=/sys/kernel/debug
	# the filter before the probability: never a moment of failures
	# for everyone
	for f in failslab fail_page_alloc; do
		echo Y > $d/$f/task-filter && echo "$1" > $d/$f/probability &&
		echo 1 > $d/$f/interval && echo -1 > $d/$f/times &&
		echo 0 > $d/$f/verbose && echo N > $d/$f/ignore-gfp-wait ||
			return 1
	done
	echo "$2" > $d/fail_page_alloc/ignore-gfp-highmem
}

# fail_skb_allocations PERCENT: failslab fails PERCENT % of the allocations
# from skbuff_head_cache (every packet's skb), whoever asks (a task,
# softirq or a kworker: failslab's cache filter instead of its task
# filter; tools/vm/run boots the debug kernel with that cache flagged),
# quietly; 0 ends it and puts the task filter back, as the other failslab
# users expect it
fail_skb_allocations() {
	local d=/sys/kernel/debug/failslab flag=
	if [ "$1" = 0 ]; then
		echo 0 > $d/probability && echo N > $d/cache-filter &&
			echo Y > $d/task-filter
		return
	fi
	read -r flag < /sys/kernel/slab/skbuff_head_cache/failslab
	[ "$flag" = 1 ] ||
		{ echo "skbuff_head_cache has no failslab flag (boot with slub_debug=A,skbuff_head_cache)"; return 1; }
	echo Y > $d/cache-filter && echo N > $d/task-filter &&
		echo "$1" > $d/probability && echo 1 > $d/interval &&
		echo -1 > $d/times && echo 0 > $d/verbose &&
		echo N > $d/ignore-gfp-wait
}

# Keep a user context open on a device: ibv_asyncwatch prints its events.
# async_watch DEVICE OUTFILE; the pid is in $watch_pid
async_watch() {
	ibv_asyncwatch -d "$1" > "$2" 2>&1 &
	watch_pid=$!
	wait_until 10 grep -q "async event FD" "$2"
}

# cm_listening COMM: an rdma_cm ID of a process named COMM listens (rdma_cm
# servers print nothing when they do)
cm_listening() {
	local out line
	out=$(rdma resource show cm_id) || return
	while IFS= read -r line; do
		[[ $line == *" state LISTEN "*" comm $1 "* ]] && return 0
	done <<< "$out"
	return 1
}

# run_tap NAME COMMAND...: run a program that prints TAP, keep its output in
# $SRDMA_RESULTS/NAME.tap, print its failures (with the diagnostics that
# follow them) and its last line; the program's exit status
run_tap() {
	local tap=$SRDMA_RESULTS/$1.tap rc; shift
	"$@" > "$tap" 2>&1
	rc=$?
	awk '/^not ok/ { p = 1; print; next } /^ok / { p = 0; next }
	     /^Bail out/ || (p && /^#/) { print }' "$tap"
	tail -n 1 "$tap"
	return $rc
}

# The veth peer in a namespace of its own: 198.18.0.2 is then a neighbour
# of veth0 that answers ARP (so address vectors resolve) and runs no RDMA.
peer_netns() {
	ip -batch - <<-EOF &&
	netns add peer
	link set veth1 netns peer
	EOF
	ip -n peer -batch - <<-EOF
	addr add 198.18.0.2/24 dev veth1
	link set veth1 up
	EOF
}

# srdma_pair [MTU]: srdma0 on veth0 and srdma1 on veth1 in namespace peer,
# both active; the veths at MTU if given
srdma_pair() {
	veth_pair
	if [ -n "${1:-}" ]; then
		ip link set veth0 mtu "$1"
		ip link set veth1 mtu "$1"
	fi
	check "veth1 moved to namespace peer" peer_netns
	check "rdma link add srdma0" rdma link add srdma0 type srdma netdev veth0
	check "rdma link add srdma1 (namespace peer)" \
		ip netns exec peer rdma link add srdma1 type srdma netdev veth1
	check "srdma1 active" wait_until 5 port_is srdma1 ACTIVE
}

# device_on_veth_with_peer: a device on veth0 whose peer answers from its
# own namespace; srdma0, or rdma_rxe's rxe0 when SRDMA_REF=rxe (to compare).
# Sets $dev and $driver (the module).
device_on_veth_with_peer() {
	driver=${SRDMA_REF:-srdma}
	dev=${driver}0
	[ "$driver" = srdma ] || driver=rdma_rxe
	veth_pair
	check "veth1 moved to namespace peer" peer_netns
	load_uverbs
	check "rdma link add $dev" rdma link add "$dev" type "${SRDMA_REF:-srdma}" netdev veth0
	check "port active" wait_until 5 port_is "$dev" ACTIVE
}

# RC traffic between a server and a client of one of Debian's stock tools
# (ibv_*_pingpong, perftest): rc_tools, rc_two_hosts and rc_interop.

# rocev2_gid_index DEVICE ADDRESS: print the index of port 1's RoCEv2 GID
# that holds the address (IPv4 as ::ffff:a.b.c.d, or IPv6); fails if there
# is none.
rocev2_gid_index() {
	local dev=$1 port=/sys/class/infiniband/$1/ports/1 a b c d want gid type f
	if [[ $2 == *:* ]]; then
		want=$(python3 -c 'import ipaddress, sys
print(ipaddress.ip_address(sys.argv[1]).exploded)' "$2") || return 1
	else
		IFS=. read -r a b c d <<< "$2"
		printf -v want '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
	fi
	for f in "$port"/gids/*; do
		read -r gid < "$f" && [ "$gid" = "$want" ] || continue
		# an unused entry has no type: reading it fails with EINVAL
		read -r type 2> /dev/null < "$port/gid_attrs/types/${f##*/}" || continue
		if [ "$type" = "RoCE v2" ]; then
			echo "${f##*/}"
			return 0
		fi
	done
	return 1
}

# tcp_listening PID PORT: a TCP socket listens on PORT in the network
# namespace of process PID (read from /proc without starting a program)
tcp_listening() {
	local hex f sl local_addr rem state
	printf -v hex '%04X' "$2"
	for f in "/proc/$1/net/tcp" "/proc/$1/net/tcp6"; do
		[ -r "$f" ] || continue
		while read -r sl local_addr rem state _; do
			[ "${local_addr##*:}" = "$hex" ] && [ "$state" = 0A ] && return 0
		done < "$f"
	done
	return 1
}

# rc_test NAME TOOL ARGS...: one test: TOOL's server, then its client that
# connects to it, both with ARGS plus the device, the RoCEv2 GID index and
# (client) the server's address. Checks that each side exits 0 and prints
# the tool's result line (ARGS must give -n, and -s except ib_atomic_bw),
# and with -c that the pingpong server found the data it expected (it
# checks the first byte of each page of its buffer).
# Where the two sides run is set by the scenario:
#   rc_mode           both (one VM), server or client (this host's side)
#   rc_server_pre rc_client_pre   arrays: command prefixes (ip netns exec)
#   rc_server_dev rc_server_gid rc_client_dev rc_client_gid
#   rc_server_ip      the address the client connects to
# Outputs are in $SRDMA_RESULTS/NAME.server and NAME.client (NAME with
# underscores for what is not a letter or digit), line-buffered (stdbuf) so
# that a tool killed by timeout leaves what it printed. Each tool runs under
# timeout $rc_timeout; after a timeout (on either host), or when the peer
# host does not come to a barrier, the remaining tests are reported as not
# run (rc_fresh_start runs them again).
rc_mode=both rc_timeout=30 rc_count=0
rc_server_pre=() rc_client_pre=()
rc_server_dev= rc_server_gid= rc_client_dev= rc_client_gid= rc_server_ip=
rc_port=18515
rc_hung_flag=$SRDMA_SHARED/rc-hung

# _rc_opt OPTION ARGS...: print the value that follows OPTION in ARGS
_rc_opt() {
	local opt=$1; shift
	while [ $# -gt 1 ]; do
		[ "$1" = "$opt" ] && { echo "$2"; return 0; }
		shift
	done
	return 1
}

# _rc_side_ok STATUS FILE REGEX: the side exited 0, printed REGEX and no
# "invalid data in page" (pingpong -c); else show why
_rc_side_ok() {
	if [ "$1" = none ]; then
		echo "not run: the peer host did not reach the test"
		return 1
	fi
	[ "$1" = 0 ] && file_has "$2" "$3" && ! file_has "$2" 'invalid data' && return 0
	# perftest's latency tests time with the TSC, calibrated against
	# gettimeofday(); a descheduled TCG guest fails that calibration
	# ("r^2 < 0.9") and prints inf: every iteration ran, only the clock
	# is unknown, so the transport passed
	if [ "$1" = 0 ] && file_has "$2" 'Correlation coefficient r\^2: .* < 0\.9' &&
		file_has "$2" "${3//\[0-9.\]+/(inf|[0-9.]+)}"; then
		echo "# perftest could not calibrate its clock (r^2 < 0.9): no latency figure"
		return 0
	fi
	echo "exit status $1 (124: timed out after ${rc_timeout}s), expected /$3/"
	tail -n 12 "$2"
	return 1
}

# rc_barrier NAME: two VMs: barrier; if the peer does not come, the
# remaining rc_tests are not run
rc_barrier() {
	barrier "$1" && return 0
	touch "$rc_hung_flag"
	return 1
}

# cm_race FILE: perftest's client (FILE: its output) lost the race that
# perftest -R runs: after the parameters' connection it connects again
# to the same port, which its server listens on anew (in the UDP port
# space for -c UD), and a REQ or SIDR REQ that comes first finds no
# listener: rejected for an invalid service ID (8), or unreachable
# (SIDR status 1). Debian's perftest then crashes in librdmacm as it
# retries. The rdma_cm scenarios run such a test once more.
cm_race() {
	grep -Eq 'RDMA_CM_EVENT_(REJECTED; error: 8|UNREACHABLE; error: 1)\.' "$1"
}

# cm_race_aside NAME FILE: the test NAME, whose outputs are FILE.client and
# FILE.server, lost cm_race's race: say so, keep its outputs as *.race
cm_race_aside() {
	local f
	echo "# $1: perftest's connection raced its server's listen (cm_race): once more"
	for f in "$2".client "$2".server; do
		[ ! -e "$f" ] || mv "$f" "$f.race"
	done
}

# listening_or_gone PID PORT: the server PID listens on TCP PORT, or has
# exited
listening_or_gone() {
	tcp_listening "$1" "$2" || ! kill -0 "$1" 2> /dev/null
}

rc_test() {
	local name=$1 tool=$2; shift 2
	local gid_opt=-x iters size result server_result=1 file pid=
	local serve=1 connect=1 sync=0 server_status=none client_status=none
	file=${name//[^[:alnum:]]/_}
	while [[ $file == *__* ]]; do file=${file//__/_}; done
	file=$SRDMA_RESULTS/$file
	rc_count=$((rc_count + 1))
	case $rc_mode in
	server) connect=0 sync=1 ;;
	client) serve=0 sync=1 ;;
	esac
	if [ -e "$rc_hung_flag" ]; then
		echo "# not run: a tool timed out in an earlier test, or the peer is gone" > "$_out"
		_report bad "$name"
		return
	fi

	# The line each tool prints when it ran to the end.
	iters=$(_rc_opt -n "$@")
	case $tool in
	ibv_*)
		gid_opt=-g
		result="^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter" ;;
	*)
		size=$(_rc_opt -s "$@" || echo 8)	# ib_atomic_bw: 8 bytes
		result="^ *$size +$iters([[:space:]]+[0-9.]+){3}"
		# the responder of RDMA READ latency reports nothing
		[ "$tool" = ib_read_lat ] && server_result=0 ;;
	esac

	if [ $serve = 1 ]; then
		"${rc_server_pre[@]}" timeout "$rc_timeout" stdbuf -oL "$tool" -d "$rc_server_dev" \
			"$gid_opt" "$rc_server_gid" "$@" > "$file.server" 2>&1 &
		pid=$!
		wait_until 20 listening_or_gone $pid $rc_port
	fi
	# two VMs: the server listens (or gave up) before the client starts;
	# without a peer there is nothing to connect to or wait for
	if [ $sync = 1 ] && ! rc_barrier "rc$rc_count"; then
		[ $serve = 1 ] && kill "$pid" 2> /dev/null
		connect=0 sync=0
	fi
	if [ $connect = 1 ]; then
		"${rc_client_pre[@]}" timeout "$rc_timeout" stdbuf -oL "$tool" -d "$rc_client_dev" \
			"$gid_opt" "$rc_client_gid" "$@" "$rc_server_ip" > "$file.client" 2>&1
		client_status=$?
	fi
	if [ $serve = 1 ]; then
		wait "$pid"
		server_status=$?
	fi
	[ $server_status = 124 ] || [ $client_status = 124 ] && touch "$rc_hung_flag"
	# two VMs: both hosts know whether a tool hung before the next test
	[ $sync = 0 ] || rc_barrier "rc$rc_count-done"

	if [ "$rc_mode" != server ]; then
		check "$name: client" _rc_side_ok $client_status "$file.client" "$result"
	fi
	if [ $serve = 1 ]; then
		[ $server_result = 1 ] || result=.
		check "$name: server" _rc_side_ok $server_status "$file.server" "$result"
	fi
}

# rc_fresh_start: the next rc_tests run even if a tool timed out before
# (a new topology or direction); two VMs: both hosts call it, after rc_serve
rc_fresh_start() {
	rc_count=$((rc_count + 1))
	[ "$rc_mode" = both ] || barrier "rc$rc_count-fresh" || return
	[ "${SRDMA_ROLE:-a}" = b ] || rm -f "$rc_hung_flag"
	[ "$rc_mode" = both ] || barrier "rc$rc_count-fresh-done"
}

# rc_suite PREFIX: the short RC runs every RC scenario makes: pingpong with
# one byte and with 64 KiB (64 packets; -c: the server checks what
# arrived), perftest's bandwidth (SEND, RDMA WRITE, RDMA READ, atomics;
# 16 KiB messages) and latency tests. In the debug guest under TCG starting
# the tools costs far more than their traffic: each test takes 8 to 16 s.
# The bandwidth tests keep at most 8 messages (128 packets) in flight, half
# a virtio-net receive ring, and wait 1 s (-u 18) for an ACK: a TCG guest
# is slow enough to drop bigger bursts and to miss perftest's default
# 67 ms, and then rdma_rxe's go-back-N retransmissions outlast the run.
rc_suite() {
	local tool
	rc_test "$1 ibv_rc_pingpong -s 1" ibv_rc_pingpong -s 1 -n 100 -c
	rc_test "$1 ibv_rc_pingpong -s 65536" ibv_rc_pingpong -s 65536 -n 10 -c
	for tool in ib_send_bw ib_write_bw ib_read_bw; do
		rc_test "$1 $tool" "$tool" -F -s 16384 -n 50 -t 8 -u 18
	done
	rc_test "$1 ib_atomic_bw" ib_atomic_bw -F -n 50 -t 8 -u 18
	for tool in ib_send_lat ib_write_lat ib_read_lat; do
		rc_test "$1 $tool" "$tool" -F -s 2 -n 50
	done
}

# rc_eth0_device TYPE: two VMs: a device of link type TYPE (srdma or rxe)
# on this host's eth0 for rc_test, once the peer answers. Sets $dev,
# $my_ip, $peer_ip.
rc_eth0_device() {
	dev=${1}0 my_ip=198.18.0.1 peer_ip=198.18.0.2
	[ "$SRDMA_ROLE" = a ] || { my_ip=198.18.0.2 peer_ip=198.18.0.1; }
	[ "$SRDMA_ROLE" = a ] && rm -f "$rc_hung_flag"
	load_uverbs
	check "rdma link add $dev on eth0" rdma link add "$dev" type "$1" netdev eth0
	check "$dev: port active" wait_until 5 port_is "$dev" ACTIVE
	check "$dev: a RoCEv2 GID for $my_ip" wait_until 10 rocev2_gid_index "$dev" "$my_ip"
	rc_server_dev=$dev rc_client_dev=$dev
	rc_server_gid=$(rocev2_gid_index "$dev" "$my_ip")
	rc_client_gid=$rc_server_gid
	check "both hosts are ready" rc_barrier ready
	check "the peer answers on the shared network" wait_until 30 ping -c1 -W1 "$peer_ip"
}

# hosts_run NAME WAITING_HOST PROGRAM [OPTION...]: a two-host test program
# (tests/hosts.h) on $dev, the end that waits for the other on host
# WAITING_HOST, the other given its address
hosts_run() {
	local name=$1 host=$2; shift 2
	if [ "$SRDMA_ROLE" = "$host" ]; then
		check "$name: $dev waits" run_tap "${name//[^[:alnum:]]/_}" "$@" "$dev"
	else
		check "$name: $dev connects" run_tap "${name//[^[:alnum:]]/_}" "$@" "$dev" "$peer_ip"
	fi
}

# rc_serve HOST: two VMs: in the next rc_tests host HOST (a or b) serves
# and the other host connects
rc_serve() {
	rc_mode=client
	[ "$SRDMA_ROLE" = "$1" ] && rc_mode=server
	rc_server_ip=198.18.0.1
	[ "$1" = a ] || rc_server_ip=198.18.0.2
}

# roce_ipv4_gid DEVICE: print the index of the device's RoCEv2 GID that
# holds an IPv4 address (::ffff:a.b.c.d), what perftest's -x and
# ibv_rc_pingpong's -g want. Shell builtins only: a port has hundreds of GID
# slots and an exec per slot costs seconds in a guest.
roce_ipv4_gid() {
	local port=/sys/class/infiniband/$1/ports/1 f gid type
	for f in "$port"/gids/*; do
		read -r gid < "$f" 2> /dev/null || continue
		case $gid in 0000:0000:0000:0000:0000:ffff:*) ;; *) continue ;; esac
		read -r type < "$port/gid_attrs/types/${f##*/}" 2> /dev/null || continue
		if [ "$type" = "RoCE v2" ]; then
			echo "${f##*/}"
			return 0
		fi
	done
	return 1
}

# pingpong_ns NS SERVER_DEV SERVER_IP CLIENT_DEV CLIENT_IP [ARGS...]: a
# stock ibv_rc_pingpong (or $pingpong_tool: ibv_uc_pingpong,
# ibv_ud_pingpong) (20 iterations, ARGS) between a server on
# SERVER_DEV in namespace NS and a client on CLIENT_DEV here, each on the
# RoCEv2 GID of its address; both must exit 0, print their iterations and
# (-c) find no invalid data. Outputs in $SRDMA_RESULTS/pingpong.*
pingpong_ns() {
	local ns=$1 sdev=$2 sip=$3 cdev=$4 cip=$5 gs gc pid rc out=$SRDMA_RESULTS/pingpong
	shift 5
	gs=$(rocev2_gid_index "$sdev" "$sip") && gc=$(rocev2_gid_index "$cdev" "$cip") || return 1
	ip netns exec "$ns" timeout 60 "${pingpong_tool:-ibv_rc_pingpong}" \
		-d "$sdev" -g "$gs" -n 20 "$@" > "$out.server" 2>&1 &
	pid=$!
	wait_until 30 tcp_listening $pid 18515
	timeout 50 "${pingpong_tool:-ibv_rc_pingpong}" -d "$cdev" -g "$gc" -n 20 "$@" "$sip" \
		> "$out.client" 2>&1
	rc=$?
	wait $pid || rc=1
	cat "$out.server" "$out.client"
	[ $rc = 0 ] && [ "$(cat "$out".* | grep -c '^20 iters in')" = 2 ] &&
		! grep -q 'invalid data' "$out".*
}

# tcp_port_listening PORT: a socket listens on TCP PORT in this namespace
tcp_port_listening() { ss -Hltn "sport = :$1" | grep -q .; }

# NVMe over Fabrics (nvmeof, nvmeof_two_hosts, make demo).
# nvmet_export NQN ADDR: a RAM-backed null_blk namespace as subsystem NQN on
# nvmet's RDMA port 1 at ADDR:4420 (configfs)
nvmet_export() {
	local cfs=/sys/kernel/config/nvmet nqn=$1 addr=$2
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 &&
	modprobe nvmet-rdma &&
	mkdir "$cfs/subsystems/$nqn" "$cfs/ports/1" &&
	echo 1 > "$cfs/subsystems/$nqn/attr_allow_any_host" &&
	mkdir "$cfs/subsystems/$nqn/namespaces/1" &&
	echo /dev/nullb0 > "$cfs/subsystems/$nqn/namespaces/1/device_path" &&
	echo 1 > "$cfs/subsystems/$nqn/namespaces/1/enable" &&
	echo rdma > "$cfs/ports/1/addr_trtype" &&
	echo ipv4 > "$cfs/ports/1/addr_adrfam" &&
	echo "$addr" > "$cfs/ports/1/addr_traddr" &&
	echo 4420 > "$cfs/ports/1/addr_trsvcid" &&
	ln -s "$cfs/subsystems/$nqn" "$cfs/ports/1/subsystems/$nqn"
}

# nvmet_unexport NQN: undo nvmet_export and unload nvmet-rdma. Delete the
# RDMA device first: rdma_cm then ends nvmet's listener itself. Removing a
# port that still listens destroys the listener's cm_id under nvmet's
# nvmet_config_sem, while nvmet takes that semaphore under the cm_id's
# handler_mutex when it runs a connect command from its CM handler (a
# command that came before the connection's ESTABLISHED event): lockdep
# reports that inversion of nvmet's own (Linux 6.1 and 6.12), and any
# report fails the run.
nvmet_unexport() {
	local cfs=/sys/kernel/config/nvmet nqn=$1
	rm "$cfs/ports/1/subsystems/$nqn" && rmdir "$cfs/ports/1" &&
	echo 0 > "$cfs/subsystems/$nqn/namespaces/1/enable" &&
	rmdir "$cfs/subsystems/$nqn/namespaces/1" "$cfs/subsystems/$nqn" &&
	modprobe -r nvmet-rdma
}

# nvme_ns NQN: the block device of the connected namespace of NQN
nvme_ns() {
	local d
	for d in /sys/class/nvme/nvme*; do
		[ "$(cat "$d/subsysnqn" 2> /dev/null)" = "$1" ] || continue
		[ "$(cat "$d/transport")" = rdma ] || continue
		ls "$d" | grep -m1 '^nvme[0-9]*n1$' | sed 's|^|/dev/|' && return 0
	done
	return 1
}

# nvme_fio DEVICE: 16 MiB of random writes of 4 KiB and 64 KiB blocks, each
# verified (crc32c) after it was written
nvme_fio() {
	timeout 300 fio --name=verify --filename="$1" --rw=randwrite --bs=4k,64k \
		--size=16m --verify=crc32c --do_verify=1 --direct=1 \
		--ioengine=libaio --iodepth=8
}
