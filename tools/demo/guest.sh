#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# What make demo runs on each VM: the commands a user types, echoed.
# After the device commands, host b serves and host a connects to it:
# ibv_rc_pingpong, a short ib_write_bw, rping (rdma_cm), then NVMe over
# Fabrics: host b exports a RAM-backed namespace through nvmet's rdma port,
# host a connects with nvme-cli, writes and reads it back, and disconnects.
# Every program runs under a
# timeout, so the demo cannot hang; a failure is reported and the demo goes
# on, and exits non-zero at the end.
. tools/scenarios/lib.sh	# barrier, wait_until, roce_ipv4_gid, tcp_port_listening, nvmet_*

failed=0

run() {
	echo
	echo "[host $SRDMA_ROLE]# $*"
	"$@"
}

# did STATUS LIMIT COMMAND...: report a program that failed or timed out
did() {
	local rc=$1 limit=$2
	shift 2
	[ "$rc" = 0 ] && return 0
	failed=1
	if [ "$rc" = 124 ]; then
		echo "(demo: $1 timed out after ${limit}s)"
	else
		echo "(demo: $1 failed with status $rc)"
	fi
}

# client NAME COMMAND...: host a, once host b's server listens
client() {
	local name=$1 limit=60
	shift
	barrier "$name"
	echo
	echo "[host a]# $*"
	timeout "$limit" "$@"
	did $? $limit "$@"
	barrier "$name-done"
}

gone() { ! kill -0 "$1" 2> /dev/null; }

# server NAME COMMAND...: host b, in the background as in a second terminal;
# host a is let in once it listens (port 18515, the default of both
# programs; an rdma_cm server is given 3 s). Its output is shown when it
# ends, which is at the latest 10 s after host a's client did.
server() {
	local name=$1 limit=120 pid rc log=/tmp/$1.log
	shift
	timeout "$limit" "$@" > "$log" 2>&1 &
	pid=$!
	if [ "$1" = rping ]; then
		sleep 3
	else
		wait_until 20 tcp_port_listening 18515 ||
			echo "(demo: $1 does not listen on port 18515)"
	fi
	barrier "$name"
	barrier "$name-done"
	if wait_until 10 gone "$pid"; then
		wait "$pid"
		rc=$?
	else
		kill "$pid"
		wait "$pid"
		rc=stopped
	fi
	echo
	echo "[host b]# $*"
	cat "$log"
	if [ $rc = stopped ]; then
		echo "(demo: $1 stopped: its client has ended)"
		failed=1
	else
		did $rc $limit "$@"
	fi
}

set -e
modprobe ib_uverbs	# rdma-core's udev rules do this on a real machine
run ip -brief address show eth0
run rdma link add srdma0 type srdma netdev eth0
run rdma link show
run ibv_devices
run ibv_devinfo -d srdma0
run sh -c 'ibv_devinfo -v -d srdma0 | grep GID'
set +e

# The GID that carries the IPv4 address over RoCE v2 ("::ffff:198.18.0.x,
# RoCE v2" above) is the one both programs are given.
wait_until 10 roce_ipv4_gid srdma0
gid=$(roce_ipv4_gid srdma0)
echo
echo "(GID index $gid: this host's IPv4 address, RoCE v2)"

# nvme_demo: host a's NVMe over Fabrics session with host b
nvme_demo() {
	local ns
	run modprobe nvme-rdma || return 1
	run timeout 60 nvme discover -t rdma -a 198.18.0.2 -s 4420 || return 1
	run timeout 60 nvme connect -t rdma -n demo -a 198.18.0.2 -s 4420 || return 1
	wait_until 20 sh -c 'ls /dev/nvme*n1'
	run nvme list
	ns=$(ls /dev/nvme*n1 | head -n 1)
	run timeout 120 sh -c "head -c 4M /dev/urandom > /tmp/nvme.in &&
		dd if=/tmp/nvme.in of=$ns bs=64k oflag=direct status=none &&
		dd if=$ns of=/tmp/nvme.out bs=64k count=64 iflag=direct status=none &&
		cmp /tmp/nvme.in /tmp/nvme.out && echo '4 MiB written and read back: identical'"
	did $? 120 dd
	run timeout 60 nvme disconnect -n demo
	run modprobe -r nvme-rdma
}

if [ "$SRDMA_ROLE" = b ]; then
	server pingpong ibv_rc_pingpong -d srdma0 -g "$gid" -n 100
	# -F: a TCG guest can fail perftest's TSC calibration; it then prints
	# inf for the rate instead of exiting 1 (Documentation/datagrams.md)
	server write_bw ib_write_bw -F -d srdma0 -x "$gid" -D 2
	server rping rping -s -a 198.18.0.2 -v -C 5
	run nvmet_export demo 198.18.0.2
	did $? 0 nvmet_export
	barrier nvme
	barrier nvme-done
	run nvmet_unexport demo
else
	client pingpong ibv_rc_pingpong -d srdma0 -g "$gid" -n 100 198.18.0.2
	client write_bw ib_write_bw -F -d srdma0 -x "$gid" -D 2 198.18.0.2
	client rping rping -c -a 198.18.0.2 -v -C 5
	barrier nvme
	nvme_demo
	did $? 0 nvme_demo
	barrier nvme-done
fi

barrier finished
run rdma link delete srdma0
exit $failed
