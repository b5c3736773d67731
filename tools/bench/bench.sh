#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench: perftest RC bandwidth and latency on srdma, then on rdma_rxe,
# in one VM of the plain (non-debug) test kernel, the same topology for both
# (tools/bench/guest.sh); then, on this machine, a side-by-side table, the
# target lines and plots (tools/bench/report.py).
#
#   tools/bench/bench.sh                  the full bench, 11 to 17 minutes
#   BENCH_QUICK=1 tools/bench/bench.sh    two sizes per test, short runs
#
# Results in results/bench/: bench.csv (every run), compare.csv (the table),
# bandwidth.png, latency.png, bench-info.txt, and a/ (the VM's output, the
# perftest logs in a/logs/, dmesg).
# Other settings: BENCH_DRIVERS, BENCH_TESTS, BENCH_BW_SIZES,
# BENCH_LAT_SIZES, BENCH_DURATION, BENCH_LAT_ITERS, BENCH_REPEAT (see
# guest.sh); BENCH_SMP, the VM's CPUs (default 2: with one, both perftest
# processes share a CPU and latency is the scheduler's); BENCH_TIMEOUT,
# seconds for the whole VM (default 1800).
#
# Exit status: 0 if the VM ran cleanly and the report was made, whatever the
# figures; 1 otherwise (for example a kernel WARN during the runs).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=$repo/results/bench

tools/deps.sh
# Benchmarks run on the plain kernel. tools/vm/run refuses a module built for
# the other flavour; make check rebuilds it for the debug kernel itself.
make -s FLAVOUR=plain modules

# The guest's command line: the BENCH_* settings given here, quoted.
cmd=
for v in BENCH_QUICK BENCH_DRIVERS BENCH_TESTS BENCH_BW_SIZES \
	 BENCH_LAT_SIZES BENCH_DURATION BENCH_LAT_ITERS BENCH_REPEAT; do
	[ -n "${!v:-}" ] && cmd+="$v=$(printf %q "${!v}") "
done
cmd+="bash tools/bench/guest.sh"

rm -rf "$out"
mkdir -p "$out"
# Show the guest's progress as it goes (its output reaches the host's
# results directory line by line).
tail -n +1 -F "$out/a/output.log" 2> /dev/null &
follower=$!
status=0
read -r load_before _ < /proc/loadavg
tools/vm/run --flavour plain --smp "${BENCH_SMP:-2}" \
	--timeout "${BENCH_TIMEOUT:-1800}" --quiet --results "$out" -- "$cmd" \
	> "$out/vm-run.log" 2>&1 || status=1
sleep 1		# let tail print the last lines
kill "$follower" 2> /dev/null || true
wait "$follower" 2> /dev/null || true
cat "$out/vm-run.log"

# TCG guests on a busy host lose their CPUs for milliseconds at a time:
# say so next to the figures (the bench's own vCPUs count for about smp).
read -r _ load _ < /proc/loadavg
echo "host: $(nproc) cores, load average $load_before before the VM," \
	"$load (5 min) after it" >> "$out/bench-info.txt"
if [ "$(echo "$load > $(nproc) + ${BENCH_SMP:-2}" | bc)" = 1 ]; then
	echo "note: the host was busy during the bench: the figures are noisy;" \
		"run it again on an idle machine" >> "$out/bench-info.txt"
fi

echo
tools/bench/report.py "$out" || status=1

# Rate limiting: the rate_limit scenario with long runs, in a VM of its own
# (BENCH_RATE=0 leaves it out)
if [ "${BENCH_RATE:-1}" = 1 ]; then
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
fi
exit $status
