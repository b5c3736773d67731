#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench's host-load canary, on this machine:
#
#   tools/bench/hostload.sh FILE PATTERN &
#
# Until killed, twice a second, writes to FILE one line "WALL_MS OTHER_MS":
# this host's wall clock and the CPU time spent so far by everything but
# the QEMU processes whose command line holds PATTERN (the bench's own
# VMs), both in milliseconds. A guest that reads FILE before and after a
# run knows how much of a core something else took meanwhile: a TCG
# guest's figures drop when it does. Shell builtins but for a mv per
# write, so that the canary costs next to nothing itself (it counts itself
# as something else).
set -u
file=$1 pattern=$2
exec {nap}<> <(:)
hz=100		# USER_HZ: the unit of /proc/stat and /proc/PID/stat
pids=()

# busy_ticks: all CPUs' busy time since boot (user nice system irq softirq
# steal), in ticks
busy_ticks() {
	local cpu user nice system idle iowait irq softirq steal
	read -r cpu user nice system idle iowait irq softirq steal _ < /proc/stat
	echo $((user + nice + system + irq + softirq + steal))
}

# vm_pids: the bench VMs' QEMU processes
vm_pids() {
	local d args
	pids=()
	for d in /proc/[0-9]*; do
		mapfile -d '' -t args 2> /dev/null < "$d/cmdline" || continue
		[[ ${args[0]:-} == *qemu-system* && " ${args[*]} " == *"$pattern"* ]] &&
			pids+=("${d#/proc/}")
	done
	return 0
}

# vm_ticks: the CPU time of the VMs seen so far (utime + stime), in ticks;
# a VM that ended keeps what it had
declare -A last=()
vm_ticks() {
	local p stat rest utime stime sum=0
	for p in "${pids[@]}"; do
		if read -r stat 2> /dev/null < "/proc/$p/stat"; then
			rest=${stat##*) }
			read -r _ _ _ _ _ _ _ _ _ _ _ utime stime _ <<< "$rest"
			last[$p]=$((utime + stime))
		fi
		sum=$((sum + ${last[$p]:-0}))
	done
	echo $sum
}

base=$(busy_ticks)
for ((i = 0; ; i++)); do
	# the VMs start after this does: look for them every 5 s
	[ $((i % 10)) != 0 ] || vm_pids
	other=$(($(busy_ticks) - base - $(vm_ticks)))
	echo "$((${EPOCHREALTIME/./} / 1000)) $((other * 1000 / hz))" > "$file.tmp"
	mv "$file.tmp" "$file"
	read -r -t 0.5 -u "$nap" || true
done
