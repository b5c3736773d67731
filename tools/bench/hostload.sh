#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench's host-load canary, on this machine:
#
#   tools/bench/hostload.sh FILE PATTERN &
#
# Until killed, twice a second, writes to FILE one line "WALL_MS OTHER_MS
# A_MS B_MS": this host's wall clock, the CPU time spent so far by
# everything but the QEMU processes whose command line holds PATTERN (the
# bench's own VMs), and the CPU time of VM a's and VM b's QEMU, all in
# milliseconds. A guest that reads FILE before and after a run knows how
# much of a core something else took meanwhile (a TCG guest's figures drop
# when it does), and which VM's core was the busier. Shell builtins but for
# a mv per write, so that the canary costs next to nothing itself (it
# counts itself as something else).
set -u
file=$1 pattern=$2
exec {nap}<> <(:)
hz=100		# USER_HZ: the unit of /proc/stat and /proc/PID/stat
pids=() roles=()

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
	pids=() roles=()
	for d in /proc/[0-9]*; do
		mapfile -d '' -t args 2> /dev/null < "$d/cmdline" || continue
		[[ ${args[0]:-} == *qemu-system* && " ${args[*]} " == *"$pattern"* ]] ||
			continue
		pids+=("${d#/proc/}")
		[[ " ${args[*]} " == *" srdma_role=b "* ]] && roles+=(b) || roles+=(a)
	done
	return 0
}

# vm_ticks: sets vm_all, vm_a and vm_b to the CPU time of the VMs seen so
# far (utime + stime), in ticks, all of them and each role's; a VM that
# ended keeps what it had
declare -A last=()
vm_ticks() {
	local i p stat rest utime stime
	vm_all=0 vm_a=0 vm_b=0
	for i in "${!pids[@]}"; do
		p=${pids[i]}
		if read -r stat 2> /dev/null < "/proc/$p/stat"; then
			rest=${stat##*) }
			read -r _ _ _ _ _ _ _ _ _ _ _ utime stime _ <<< "$rest"
			last[$p]=$((utime + stime))
		fi
		vm_all=$((vm_all + ${last[$p]:-0}))
		if [ "${roles[i]}" = b ]; then
			vm_b=$((vm_b + ${last[$p]:-0}))
		else
			vm_a=$((vm_a + ${last[$p]:-0}))
		fi
	done
}

base=$(busy_ticks)
for ((i = 0; ; i++)); do
	# the VMs start after this does: look for them every 5 s, every half
	# second until both are seen (one found during a run would count its
	# whole CPU time since its start in that run)
	[ ${#pids[@]} -ge 2 ] && [ $((i % 10)) != 0 ] || vm_pids
	vm_ticks
	other=$(($(busy_ticks) - base - vm_all))
	echo "$((${EPOCHREALTIME/./} / 1000)) $((other * 1000 / hz)) $((vm_a * 1000 / hz)) $((vm_b * 1000 / hz))" > "$file.tmp"
	mv "$file.tmp" "$file"
	read -r -t 0.5 -u "$nap" || true
done
