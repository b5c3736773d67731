#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Several one-VM scenarios in one boot, each as if it had the VM to itself
# (run in the guest by tools/check.sh through tools/vm/run):
#
#   bash tools/vm/guest-batch.sh NAME[:TIMEOUT]...
#
# Each scenario runs in a session of its own with its results in
# $SRDMA_RESULTS/NAME (output.log, exit-status). Then what it leaves behind
# is cleared and checked: its processes are killed, its namespaces and
# network interfaces deleted; no RDMA device may remain, and every module
# loaded since the batch began must unload (srdma unloads only if nothing
# holds it). The reasons it failed that go to NAME/left-behind. The kernel
# log of the scenario goes to NAME/dmesg.txt, the taint flags it added to
# NAME/tainted: tools/vm/verdict reads them as it reads a VM's. A VM booted
# with kmemleak (tools/vm/run --kmemleak) scans once the whole batch ended: a
# scan costs some 10 s here and needs a second one to report, so it is one
# for the batch, not one per scenario (the report's comm and trace say whose
# an object was).
#
# Two VMs (tools/vm/run --peer, srdma_two=1) run the same batch, each its
# side of every scenario. A scenario's side starts once the other host has
# cleared what the one before left, and its barriers and flags live in a
# shared directory of its own ($SRDMA_SHARED/NAME), so that nothing of one
# scenario's steps meets another's.
set -u

root=$SRDMA_RESULTS
baseline=$(mktemp)
lsmod | awk 'NR > 1 { print $1 }' > "$baseline"

# the modules loaded since the batch began
new_modules() {
	lsmod | awk 'NR > 1 { print $1 }' | grep -vxF -f "$baseline"
}

# leave_nothing DIR: clear what the scenario left; reasons to DIR/left-behind
leave_nothing() {
	local dir=$1 dev round mods m wait
	ip -all netns delete 2> /dev/null
	# one ip for all the links (an exec costs a fifth of a second here)
	ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2) }
		$2 != "lo" && $2 != "eth0" { print "link delete " $2 }' |
		ip -force -batch - 2> /dev/null
	# a namespace and its devices go in a work item after ip returns
	for wait in $(seq 100); do
		ls /sys/class/infiniband/* > /dev/null 2>&1 || break
		sleep 0.1
	done
	for dev in /sys/class/infiniband/*; do
		[ -e "$dev" ] || continue
		echo "RDMA device ${dev##*/} still there once its netdev was gone" >> "$dir/left-behind"
		rdma link delete "${dev##*/}" 2> /dev/null
	done
	# dependants first: a module in use by another goes in a later round
	for round in 1 2 3 4 5 6; do
		mods=$(new_modules)
		[ -n "$mods" ] || break
		# shellcheck disable=SC2086 # one word per module
		modprobe -r -a $mods 2> /dev/null
	done
	for m in $(new_modules); do
		echo "module $m does not unload (in use: $(cat "/sys/module/$m/refcnt" 2> /dev/null))" \
			>> "$dir/left-behind"
	done
}

shared=$SRDMA_SHARED
peer=b
[ "$SRDMA_ROLE" = a ] || peer=a
# start NAME LIMIT: both hosts are there to begin NAME (the scenario's
# own limit bounds the wait)
start() {
	local deadline=$((SECONDS + $2))
	: > "$shared/$1/start-$SRDMA_ROLE"
	until [ -e "$shared/$1/start-$peer" ]; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
}

for arg in "$@"; do
	name=${arg%%:*} limit=${arg#*:}
	[ "$limit" != "$arg" ] || limit=300
	dir=$root/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ "${srdma_two:-0}" = 1 ]; then
		mkdir -p "$shared/$name"
		export SRDMA_SHARED=$shared/$name
		if ! start "$name" "$limit"; then
			echo "the other host did not come to begin $name" > "$dir/output.log"
			echo 1 > "$dir/exit-status"
			continue
		fi
	fi
	taint0=$(cat /proc/sys/kernel/tainted)
	dmesg --clear
	echo "srdma-batch: $name begins" > /dev/kmsg
	start=$(date +%s.%N)
	SRDMA_RESULTS=$dir setsid bash "tools/scenarios/$name.sh" > "$dir/output.log" 2>&1 &
	pid=$!
	( sleep "$limit"; echo "srdma-batch: $name timed out after ${limit}s" > /dev/kmsg
	  kill -KILL -- -"$pid" ) 2> /dev/null &
	watchdog=$!
	wait "$pid"
	status=$?
	kill "$watchdog" 2> /dev/null
	wait "$watchdog" 2> /dev/null
	pkill -KILL -s "$pid" 2> /dev/null
	leave_nothing "$dir"
	printf '%.1f\n' "$(echo "$(date +%s.%N) - $start" | bc)" > "$dir/seconds"
	echo $(( $(cat /proc/sys/kernel/tainted) & ~taint0 )) > "$dir/tainted"
	echo "srdma-batch: $name ends" > /dev/kmsg
	dmesg > "$dir/dmesg.txt"
	echo "$status" > "$dir/exit-status"
	echo "batch: $name: exit status $status in $(cat "$dir/seconds") s"
done
