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
