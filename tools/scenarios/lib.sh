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

_report() {	# _report STATUS DESCRIPTION
	_checks=$((_checks + 1))
	if [ "$1" = ok ]; then
		echo "ok $_checks - $2"
	else
		_fails=$((_fails + 1))
		echo "not ok $_checks - $2"
		sed 's/^/#   /' "$_out"
	fi
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
# must match, 0 if it must not
_check_output() {
	local want=$1 desc=$2 re=$3 found=0; shift 3
	"$@" > "$_out" 2>&1 || true
	grep -Eq -- "$re" "$_out" && found=1
	if [ $found = "$want" ]; then
		_report ok "$desc"
	else
		echo "# $([ "$want" = 1 ] && echo expected || echo "did not expect") /$re/ in the output of: $*" >> "$_out"
		_report bad "$desc"
	fi
}

# check_match DESCRIPTION REGEX COMMAND...: the output (stdout and stderr)
# must match the extended regex; the exit status does not matter
check_match() { _check_output 1 "$@"; }

# check_no_match DESCRIPTION REGEX COMMAND...: the output must not match
check_no_match() { _check_output 0 "$@"; }

# wait_until SECONDS COMMAND...: poll every 0.1 s until the command succeeds
wait_until() {
	local deadline=$(( $(date +%s) + $1 )); shift
	until "$@" > /dev/null 2>&1; do
		[ "$(date +%s)" -lt $deadline ] || return 1
		sleep 0.1
	done
}

# barrier NAME: two VMs: wait until the peer reached the same barrier
barrier() {
	local peer=b
	[ "$SRDMA_ROLE" = a ] || peer=a
	touch "$SRDMA_SHARED/barrier-$1-$SRDMA_ROLE"
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
	ip link add veth0 type veth peer name veth1
	ip addr add 198.18.0.1/24 dev veth0
	ip addr add 198.18.0.2/24 dev veth1
	ip addr add fd00:5264:6d61::1/64 dev veth0 nodad
	ip addr add fd00:5264:6d61::2/64 dev veth1 nodad
	ip link set veth0 up
	ip link set veth1 up
}

# Device helpers
ib_exists() { [ -e "/sys/class/infiniband/$1" ]; }
ib_gone() { [ ! -e "/sys/class/infiniband/$1" ]; }
port_state() { cat "/sys/class/infiniband/$1/ports/1/state"; }
port_is() { port_state "$1" | grep -q "$2"; }

# Load the uverbs stack as rdma-core's udev rules do on a real machine.
load_uverbs() { modprobe ib_uverbs; }

# Keep a user context open on a device: ibv_asyncwatch prints its events.
# async_watch DEVICE OUTFILE; the pid is in $watch_pid
async_watch() {
	ibv_asyncwatch -d "$1" > "$2" 2>&1 &
	watch_pid=$!
	wait_until 10 grep -q "async event FD" "$2"
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
	ip netns add peer &&
	ip link set veth1 netns peer &&
	ip -n peer addr add 198.18.0.2/24 dev veth1 &&
	ip -n peer link set veth1 up
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

# tcp_listening PORT: a socket listens on TCP PORT in this namespace
tcp_listening() { ss -Hltn "sport = :$1" | grep -q .; }
