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
# holds it). The reasons it failed that go to NAME/left-behind. With
# kmemleak on, a scan runs before the modules go (NAME/kmemleak.txt). The
# kernel log of the scenario goes to NAME/dmesg.txt, the taint flags it added
# to NAME/tainted: tools/vm/verdict reads them as it reads a VM's.
set -u

root=$SRDMA_RESULTS
kmemleak=/sys/kernel/debug/kmemleak
baseline=$(mktemp)
lsmod | awk 'NR > 1 { print $1 }' > "$baseline"

# the modules loaded since the batch began
new_modules() {
	lsmod | awk 'NR > 1 { print $1 }' | grep -vxF -f "$baseline"
}

# leave_nothing DIR: clear what the scenario left; reasons to DIR/left-behind
leave_nothing() {
	local dir=$1 link dev round mods m
	ip -all netns delete 2> /dev/null
	for link in $(ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		case $link in lo|eth0) ;; *) ip link delete "$link" 2> /dev/null ;; esac
	done
	for dev in /sys/class/infiniband/*; do
		[ -e "$dev" ] || continue
		echo "RDMA device ${dev##*/} still there once its netdev was gone" >> "$dir/left-behind"
		rdma link delete "${dev##*/}" 2> /dev/null
	done
	if [ -w $kmemleak ] && [ -n "${kmemleak_on:-}" ]; then
		echo scan > $kmemleak; sleep 5; echo scan > $kmemleak
		cat $kmemleak > "$dir/kmemleak.txt"
		echo clear > $kmemleak
	fi
	# dependants first: a module in use by another goes in a later round
	for round in 1 2 3 4 5 6; do
		mods=$(new_modules)
		[ -n "$mods" ] || break
		for m in $mods; do
			modprobe -r "$m" 2> /dev/null
		done
	done
	for m in $(new_modules); do
		echo "module $m does not unload (in use: $(cat "/sys/module/$m/refcnt" 2> /dev/null))" \
			>> "$dir/left-behind"
	done
}

[ -w $kmemleak ] && grep -q kmemleak=on /proc/cmdline && kmemleak_on=1
for arg in "$@"; do
	name=${arg%%:*} limit=${arg#*:}
	[ "$limit" != "$arg" ] || limit=300
	dir=$root/$name
	rm -rf "$dir"
	mkdir -p "$dir"
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
