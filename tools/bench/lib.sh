# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench, inside the VMs: what the loopback runs (guest.sh) and the wire
# runs (wire.sh) share. Sourced after tools/scenarios/lib.sh.

# result COLUMN HEADER FILE: the figure in COLUMN of perftest's result line,
# the numeric line that follows the header holding HEADER. A run in which no
# message completed (#iterations 0: perftest still prints a line of zeros
# when its -D time ends) has no figure.
result() {
	awk -v col="$1" -v hdr="$2" '
		seen && $1 ~ /^[0-9]+$/ {
			if ($2 > 0 && $col ~ /^[0-9]+(\.[0-9]+)?$/ && $col > 0) {
				print $col
				found = 1
			}
			else print "bench: no usable figure (no message completed?)" >> FILENAME
			exit
		}
		index($0, "#bytes") && index($0, hdr) { seen = 1 }
		END { exit !found }' "$3"
}

# test_figure TEST: sets col, hdr, unit for TEST's figure (bandwidth:
# perftest's BW average in MB/s; latency: t_typical in us) and side, the
# side whose output holds it: ib_send_bw's receiver, since with -D
# perftest's sender counts too few completions from 256 KiB up (none at
# 1 MiB on rdma_rxe, where the receiver counts 100 messages); below, the
# two agree.
test_figure() {
	side=client
	case $1 in
	*_bw) col=4 hdr="BW average[MB/sec]" unit=MB/s ;;
	*_lat) col=5 hdr="t_typical[usec]" unit=us ;;
	esac
	[ "$1" = ib_send_bw ] && side=server
	return 0
}

# stuck_report FILE WHY: what this host's benchmark processes wait on, for
# a run that hangs (the wire bench stalled at times with no kernel message):
# their state, wait channel and kernel stacks, the TCP sockets, the RDMA
# devices' QPs and counters, tasks blocked in the kernel, the last kernel
# messages, appended to FILE. Only taken when a run goes wrong.
stuck_report() {
	local p t
	{
		echo "$2 ($(date +%T))"
		ps -eo pid,ppid,stat,wchan:32,etimes,args
		for p in $(pgrep -x 'ib_(write|send|read|atomic)_(bw|lat)|iperf3'); do
			for t in /proc/"$p"/task/*; do
				echo "== $t $(cat "$t/comm") $(cut -d' ' -f3 "$t/stat")"
				cat "$t/stack"
			done
		done
		ss -tanpi
		rdma resource show qp
		rdma statistic show
		echo w > /proc/sysrq-trigger
		dmesg | tail -n 80
	} >> "$1" 2>&1
}

# watch_stuck PID SECONDS FILE WHY: in the background, stuck_report FILE
# if PID still runs after SECONDS; the watcher's pid in $watcher
watch_stuck() {
	{ nap "$2"; kill -0 "$1" 2> /dev/null && stuck_report "$3" "$4"; } &
	watcher=$!
}
