#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench: perftest RC bandwidth and latency on srdma and on rdma_rxe,
# on plain (non-debug) test kernels, QEMU -cpu max without ERMS and FSRM:
#   - loopback: one VM, both perftest sides on one device, srdma then
#     rdma_rxe (tools/bench/guest.sh);
#   - the wire: two VMs joined by the rig's network, one vCPU each, srdma
#     and rdma_rxe in interleaved pairs, iperf3 TCP as the ceiling
#     (tools/bench/wire.sh);
#   - rate limiting: the rate_limit scenario with 10 s runs.
# Then, on this machine, the tables, target lines and plots
# (tools/bench/report.py).
#
#   tools/bench/bench.sh                  the full bench
#   BENCH_QUICK=1 tools/bench/bench.sh    fewer sizes, short runs
#
# Results in results/bench/: bench.csv (every loopback run), compare.csv
# (the loopback table), bandwidth.png, latency.png, bench-info.txt, a/ (the
# VM's output, the perftest logs in a/logs/, dmesg); wire/wire.csv,
# wire-compare.csv and wire/a, wire/b; rate.log and rate/.
# BENCH_LOOPBACK=0, BENCH_WIRE=0 and BENCH_RATE=0 leave out the loopback
# VM, the wire VMs and the rate limiting VM. Other settings: BENCH_DRIVERS,
# BENCH_TESTS, BENCH_BW_SIZES, BENCH_LAT_SIZES, BENCH_DURATION,
# BENCH_LAT_ITERS, BENCH_REPEAT, BENCH_MANY_QPS (see guest.sh); BENCH_PAIRS,
# BENCH_SCALE_QPS, BENCH_SCALE_DURATION, BENCH_WIRE_TESTS (see wire.sh);
# BENCH_LINK, the wire's link (tap, the default, or dgram); BENCH_CPU,
# QEMU's CPU model (default max,-erms,-fsrm); BENCH_SMP, the loopback VM's
# CPUs (default 2: with one, both perftest processes share a CPU and
# latency is the scheduler's); BENCH_TIMEOUT, seconds for each run of VMs
# (default 1800).
#
# Exit status: 0 if the VMs ran cleanly and the reports were made, whatever
# the figures; 1 otherwise (for example a kernel WARN during the runs).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=$repo/results/bench

tools/deps.sh
# Benchmarks run on the plain kernel. tools/vm/run refuses a module built for
# the other flavour; make check rebuilds it for the debug kernel itself.
make -s FLAVOUR=plain modules

# QEMU's CPU for the bench VMs: what real servers have (SSE4.2, PCLMULQDQ,
# AVX2), so that the guest kernel takes their CRC and copy paths; but not
# ERMS and FSRM, whose "rep movsb" TCG runs a byte at a time: with them a
# guest's copies cost twice what they would next to the rest of its work
# (iperf3 between the wire VMs: 48 to 75 MB/s with, 130 to 154 without)
cpu=${BENCH_CPU:-max,-erms,-fsrm}
# the wire's link: tap devices on a bridge of this host's, whose virtio
# NICs have checksum and segmentation offload as a server's NIC has; dgram
# (QEMU's unix sockets, no offload) where this host has no /dev/net/tun
link=${BENCH_LINK:-tap}

# settings VAR...: the given BENCH_* settings, quoted, for a guest's command
settings() {
	local v
	for v in "$@"; do
		[ -n "${!v:-}" ] && printf '%s=%q ' "$v" "${!v}"
	done
	return 0
}

# follow FILE: print a guest's output as it goes (it reaches the host's
# results directory line by line) until unfollow
follow() {
	tail -n +1 -F "$1" 2> /dev/null &
	follower=$!
}
unfollow() {
	sleep 1		# let tail print the last lines
	kill "$follower" 2> /dev/null || true
	wait "$follower" 2> /dev/null || true
}

# Loopback: one VM, both perftest sides on one device (tools/bench/guest.sh)
loopback() {
	local cmd load_before load
	cmd="$(settings BENCH_QUICK BENCH_DRIVERS BENCH_TESTS BENCH_BW_SIZES \
		BENCH_LAT_SIZES BENCH_DURATION BENCH_LAT_ITERS BENCH_REPEAT BENCH_MANY_QPS)"
	cmd+="bash tools/bench/guest.sh"
	follow "$out/a/output.log"
	read -r load_before _ < /proc/loadavg
	tools/vm/run --flavour plain --smp "${BENCH_SMP:-2}" --cpu "$cpu" \
		--timeout "${BENCH_TIMEOUT:-1800}" --quiet --results "$out" -- "$cmd" \
		> "$out/vm-run.log" 2>&1 || status=1
	unfollow
	cat "$out/vm-run.log"

	# TCG guests on a busy host lose their CPUs for milliseconds at a
	# time: say so next to the figures (the bench's own vCPUs count for
	# about smp).
	read -r _ load _ < /proc/loadavg
	echo "host: $(nproc) cores, load average $load_before before the VM," \
		"$load (5 min) after it" >> "$out/bench-info.txt"
	if [ "$(echo "$load > $(nproc) + ${BENCH_SMP:-2}" | bc)" = 1 ]; then
		echo "note: the host was busy during the bench: the figures are noisy;" \
			"run it again on an idle machine" >> "$out/bench-info.txt"
	fi
	echo
	tools/bench/report.py "$out" || status=1
}

# The wire: two VMs, one vCPU each, perftest between them on srdma and on
# rdma_rxe in interleaved pairs, iperf3 TCP as the link's ceiling
# (tools/bench/wire.sh)
wire() {
	local cmd canary
	cmd="$(settings BENCH_QUICK BENCH_PAIRS BENCH_DURATION BENCH_LAT_ITERS \
		BENCH_SCALE_QPS BENCH_SCALE_DURATION BENCH_WIRE_TESTS)"
	cmd+="bash tools/bench/wire.sh"
	echo
	echo "the wire (tools/bench/wire.sh), two VMs:"
	mkdir -p "$out/wire"
	echo "kernel $(cat "$(tools/kernel/build.sh plain)/release") (plain), QEMU TCG -cpu $cpu, link $link" \
		> "$out/wire/wire-info.txt"
	tools/bench/hostload.sh "$out/wire/hostload" "srdma_shared=$out/wire " &
	canary=$!
	follow "$out/wire/a/output.log"
	tools/vm/run --flavour plain --smp 1 --cpu "$cpu" --link "$link" \
		--timeout "${BENCH_TIMEOUT:-1800}" --quiet --results "$out/wire" \
		--peer "$cmd" -- "$cmd" > "$out/wire-run.log" 2>&1 || status=1
	unfollow
	kill "$canary" 2> /dev/null || true
	wait "$canary" 2> /dev/null || true
	cat "$out/wire-run.log"
	echo
	tools/bench/report.py --wire "$out" || status=1
}

# Rate limiting: the rate_limit scenario with long runs, in a VM of its own
rate() {
	make -s -C tests
	make -s -C tools/srdma-rate
	echo
	echo "rate limiting (tools/scenarios/rate_limit.sh, RATE_SECONDS=${BENCH_RATE_SECONDS:-10}):"
	tools/vm/run --flavour plain --smp 1 --timeout 1200 \
		--results "$out/rate" -- \
		"RATE_SECONDS=${BENCH_RATE_SECONDS:-10} bash tools/scenarios/rate_limit.sh" \
		> "$out/rate.log" 2>&1 || status=1
	grep -E '^(not ok|# )' "$out/rate.log" || true
	tail -n 1 "$out/rate.log"
}

rm -rf "$out"
mkdir -p "$out"
status=0
[ "${BENCH_LOOPBACK:-1}" = 0 ] || loopback
[ "${BENCH_WIRE:-1}" = 0 ] || wire
[ "${BENCH_RATE:-1}" = 0 ] || rate
exit $status
