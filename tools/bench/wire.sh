#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench's wire rows, inside two VMs joined by the rig's virtio network
# (tools/vm/run --peer): perftest between host a (the client) and host b
# (the server) over eth0 at MTU 9000, srdma to srdma and rdma_rxe to
# rdma_rxe in interleaved pairs (srdma then rxe, rxe then srdma, ...), and
# in each pair iperf3 TCP over the same link, the link's ceiling.
#
# Host a drives. Host b does what a asks through files in $SRDMA_SHARED/wire/
# (job-N; ready-N once its server listens or its device is up; done-N when
# the job ended), so that a run a redoes needs no script both agree on.
#
# The host-load canary (tools/bench/hostload.sh, run by bench.sh): a run
# during which something else than the two VMs took more than 10 % of a
# host core is made again (twice at most; the CSV keeps that share for the
# run that counts). The canary also says how busy each VM kept its host
# core over the run, from its start to its end, setup included (a_pct,
# b_pct: QEMU's CPU time; the busier side is the bottleneck).
#
# Writes $SRDMA_SHARED/wire.csv:
#   pair,driver,test,size,value,unit,status,other_pct,a_pct,b_pct
# (driver srdma, rxe or tcp; status ok or failed, value "-" unless ok; test
# ib_write_bw_qps: ib_write_bw 64 KiB over "size" QPs, perftest -q, the
# aggregate).
#
# Environment (tools/bench/bench.sh passes it in): BENCH_QUICK,
# BENCH_PAIRS (default 5, quick 3), BENCH_DURATION, BENCH_LAT_ITERS,
# BENCH_SCALE_QPS (the scaling row's QP counts, default "1 8 64 256"),
# BENCH_SCALE_DURATION (its runs' seconds, default 5), BENCH_WIRE_TESTS (the
# perftest tests of the other rows, default all; "none" leaves iperf3 and
# the scaling row).

. tools/scenarios/lib.sh
. tools/bench/lib.sh

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	bw_sizes="65536" lat_sizes="2" lat_tests="ib_send_lat ib_write_lat"
	duration=${BENCH_DURATION:-1} lat_iters=${BENCH_LAT_ITERS:-200}
	pairs=${BENCH_PAIRS:-3}
else
	bw_sizes="4096 65536" lat_sizes="2 4096"
	lat_tests="ib_send_lat ib_write_lat ib_read_lat"
	duration=${BENCH_DURATION:-2} lat_iters=${BENCH_LAT_ITERS:-1000}
	pairs=${BENCH_PAIRS:-5}
fi
bw_tests="ib_write_bw ib_send_bw ib_read_bw"
# only the tests BENCH_WIRE_TESTS names ("none": iperf3 and the scaling row)
if [ -n "${BENCH_WIRE_TESTS:-}" ]; then
	picked() {
		local t
		for t in $1; do
			[[ " $BENCH_WIRE_TESTS " != *" $t "* ]] || printf '%s ' "$t"
		done
	}
	bw_tests=$(picked "$bw_tests") lat_tests=$(picked "$lat_tests")
fi
scale_qps=${BENCH_SCALE_QPS:-"1 8 64 256"}
# The scaling row's runs: a QP's first completion waits for the windows of
# all the QPs ahead of it in the queues, at 256 QPs about a second on this
# link, so that a 1 s run of 256 QPs completes nothing
scale_duration=${BENCH_SCALE_DURATION:-5}
jobs=$SRDMA_SHARED/wire
logs=$SRDMA_RESULTS/logs
csv=$SRDMA_SHARED/wire.csv
my_ip=198.18.0.1 peer_ip=198.18.0.2
[ "$SRDMA_ROLE" = a ] || { my_ip=198.18.0.2 peer_ip=198.18.0.1; }
port=18515		# each perftest run takes the next TCP port
iperf_port=5201

module_of() { if [ "$1" = rxe ]; then echo rdma_rxe; else echo srdma; fi; }

# device_up TYPE: this host's one RDMA device, TYPE0 on eth0 (the other
# driver unloaded: both claim UDP port 4791); sets dev and gid (the index
# of its RoCEv2 GID for this host's address)
device_up() {
	local t
	for t in srdma rxe; do
		[ "$t" = "$1" ] && continue
		ib_exists "${t}0" && rdma link delete "${t}0"
		modprobe -r "$(module_of "$t")" 2> /dev/null
	done
	dev=${1}0 gid=
	ib_exists "$dev" || rdma link add "$dev" type "$1" netdev eth0 || return
	wait_until 10 port_is "$dev" ACTIVE &&
		wait_until 10 rocev2_gid_index "$dev" "$my_ip" &&
		gid=$(rocev2_gid_index "$dev" "$my_ip")
}

# put FILE [TEXT]: FILE in $jobs holds TEXT, whole when it appears
put() {
	echo "${2:-}" > "$jobs/$1.tmp" && mv "$jobs/$1.tmp" "$jobs/$1"
}

# serve: host b: the jobs of host a, in order, until "end"
serve() {
	local n=1 word what args pid rc
	while wait_until 900 test -e "$jobs/job-$n"; do
		read -r word what args < "$jobs/job-$n"
		case $word in
		device)
			device_up "$what"
			put "ready-$n" "$gid"
			rc=0 ;;
		perftest)	# perftest TEST ARG... -p PORT: output in PORT.server
			# shellcheck disable=SC2086 # args are words
			timeout -k 5 60 taskset -c 0 "$what" -d "$dev" -x "$gid" $args \
				> "$logs/${args##* }.server" 2>&1 &
			pid=$!
			wait_until 15 listening_or_gone "$pid" "${args##* }" ||
				stuck_report "$logs/${args##* }.stuck" "not listening after 15 s"
			put "ready-$n"
			watch_stuck "$pid" 55 "$logs/${args##* }.stuck" "still running after 55 s"
			wait "$pid"
			rc=$?
			kill "$watcher" 2> /dev/null ;;
		iperf3)		# iperf3 NAME: output in iperf3-NAME.server
			timeout 60 iperf3 -s -1 -p $iperf_port > "$logs/iperf3-$what.server" 2>&1 &
			pid=$!
			wait_until 15 tcp_listening "$pid" $iperf_port
			put "ready-$n"
			wait "$pid"
			rc=$? ;;
		end)
			put "done-$n" 0
			return 0 ;;
		esac
		put "done-$n" "$rc"
		n=$((n + 1))
	done
	echo "wire: host a sent no job $n in 900 s"
	return 1
}

n=0
# remote WORD ARG...: host b does WORD; returns once it is ready for the
# client (its reply in $reply)
remote() {
	n=$((n + 1))
	put "job-$n" "$*"
	wait_until 60 test -e "$jobs/ready-$n" && read -r reply < "$jobs/ready-$n"
}
remote_done() { wait_until 90 test -e "$jobs/done-$n"; }

# hostload: sets load_wall, load_other, load_a and load_b from the host's
# canary (tools/bench/hostload.sh, in $SRDMA_SHARED/hostload): its clock,
# the CPU time everything but the bench's VMs took, and VM a's and VM b's,
# in ms (all 0 without one)
hostload() {
	local try
	load_wall=0 load_other=0 load_a=0 load_b=0
	[ -e "$SRDMA_SHARED/hostload" ] || return 0
	for try in 1 2 3; do
		read -r load_wall load_other load_a load_b < "$SRDMA_SHARED/hostload" &&
			[ -n "$load_b" ] && return 0
		nap 0.1
	done
	load_wall=0 load_other=0 load_a=0 load_b=0
}

# other_since WALL OTHER A B: sets other_pct, the percent of a host core
# that something else than the VMs took since that hostload, and a_pct and
# b_pct, each VM's
other_since() {
	hostload
	other_pct=0 a_pct=0 b_pct=0
	[ "$load_wall" -gt "$1" ] || return 0
	other_pct=$(((load_other - $2) * 100 / (load_wall - $1)))
	a_pct=$(((load_a - $3) * 100 / (load_wall - $1)))
	b_pct=$(((load_b - $4) * 100 / (load_wall - $1)))
}

# perftest_run TEST SIZE LOG ARGS...: TEST's server on host b, its client
# here, both pinned; outputs in LOG.client here and LOG.server on host b
perftest_run() {
	local test=$1 size=$2 log=$3 limit rc pid f
	shift 3
	port=$((port + 1))
	limit=$((run_duration + 25))
	remote perftest "$test" -s "$size" -F "$@" -p "$port" ||
		echo "wire: host b's server did not start" >> "$logs/$log.client"
	timeout -k 5 "$limit" taskset -c 0 "$test" -d "$dev" -x "$gid" \
		-s "$size" -F "$@" -p "$port" "$peer_ip" > "$logs/$log.client" 2>&1 &
	pid=$!
	watch_stuck "$pid" $((limit - 2)) "$logs/$log.stuck" "still running after $((limit - 2)) s"
	wait "$pid"
	rc=$?
	kill "$watcher" 2> /dev/null
	# why a run failed: perftest often says nothing, the counters may
	[ $rc = 0 ] || { echo "# exit status $rc"; rdma statistic show link "$dev/1"; } \
		>> "$logs/$log.client" 2>&1
	remote_done
	# host b names its outputs after the port: give them the run's name
	for f in server stuck; do
		mv "$SRDMA_SHARED/b/logs/$port.$f" "$SRDMA_SHARED/b/logs/$log.$f" 2> /dev/null
	done
	return $rc
}

# measure TEST SIZE [NAME KEY ARG...]: one figure of TEST at SIZE on
# $driver, in $value (empty if none), recorded as TEST and SIZE or as NAME
# and KEY, with perftest's ARGs added: a run without a figure that did not
# time out is made once more (perftest's clock calibration fails at times
# in a TCG guest: 0.00, inf), and one during which the host was busy with
# something else up to twice more
measure() {
	local test=$1 size=$2 name=${3:-$1} key=${4:-$2} run_duration=$duration
	local log out try k rc opts w0 o0 a0 b0 side col hdr unit
	[ "$name" != ib_write_bw_qps ] || run_duration=$scale_duration
	shift $(($# < 4 ? $# : 4))
	test_figure "$test"
	case $test in
	*_bw) opts=(-D "$run_duration" "$@") ;;
	*_lat) opts=(-n "$lat_iters" "$@") ;;
	esac
	for ((try = 1; try <= 3; try++)); do
		hostload
		w0=$load_wall o0=$load_other a0=$load_a b0=$load_b
		for k in 1 2; do
			log=p$pair-$driver-$name-$key-t$try-$k
			perftest_run "$test" "$size" "$log" "${opts[@]}"
			rc=$?
			out=$logs/$log.client
			[ $side = client ] || out=$SRDMA_SHARED/b/logs/$log.server
			value=$(result "$col" "$hdr" "$out") && break
			value=
			[ $rc != 124 ] || break
		done
		other_since "$w0" "$o0" "$a0" "$b0"
		[ -n "$value" ] && [ "$other_pct" -gt 10 ] || break
		echo "wire: $driver $test $size: something else took $other_pct % of a host core meanwhile: made again"
	done
	record "$name" "$key" "$unit"
}

record() {	# record TEST SIZE UNIT: $value of $driver in pair $pair
	local status=ok
	[ -n "$value" ] || { status=failed value=-; }
	echo "$pair,$driver,$1,$2,$value,$3,$status,$other_pct,$a_pct,$b_pct" >> "$csv"
	printf 'pair %s %-6s %-12s %6s  %s\n' "$pair" "$driver" "$1" "$2" \
		"$([ $status = ok ] && echo "$value $3" || echo "$status")"
}

# iperf3_run: TCP from here to host b for $duration + 1 s; the receiver's
# rate in MB/s (2^20 bytes, as perftest's) in $value
iperf3_run() {
	local log=$logs/iperf3-p$pair.client w0 o0 a0 b0
	hostload
	w0=$load_wall o0=$load_other a0=$load_a b0=$load_b
	remote iperf3 "p$pair"
	timeout 60 iperf3 -c "$peer_ip" -p $iperf_port -t $((duration + 1)) -f m \
		> "$log" 2>&1
	remote_done
	value=$(awk '/receiver$/ && $(NF - 1) == "Mbits/sec" {
		printf "%.2f", $(NF - 2) * 1e6 / 8 / 1048576 }' "$log")
	other_since "$w0" "$o0" "$a0" "$b0"
	driver=tcp
	record iperf3 0 MB/s
}

# bench_driver TYPE: every test and size on TYPE, both hosts
bench_driver() {
	local test size qps
	driver=$1
	remote device "$1"
	if ! device_up "$1" || [ -z "$reply" ]; then
		echo "wire: no usable $1 device on host $([ -z "$gid" ] && echo a || echo b)"
		remote_done
		return 1
	fi
	remote_done
	for test in $bw_tests; do
		for size in $bw_sizes; do measure "$test" "$size"; done
	done
	for test in $lat_tests; do
		for size in $lat_sizes; do measure "$test" "$size"; done
	done
	# scaling: the aggregate of ib_write_bw 64 KiB over QPS QPs
	for qps in $scale_qps; do
		measure ib_write_bw 65536 ib_write_bw_qps "$qps" -q "$qps"
	done
}

mkdir -p "$logs" "$jobs"
ip link set eth0 mtu 9000
load_uverbs
barrier mtu
if [ "$SRDMA_ROLE" = b ]; then
	serve
	exit
fi

echo "pair,driver,test,size,value,unit,status,other_pct,a_pct,b_pct" > "$csv"
wait_until 30 ping -c1 -W1 "$peer_ip" || { echo "wire: host b does not answer"; exit 1; }
echo "wire: $pairs pairs; bandwidth $bw_sizes B for ${duration} s, latency $lat_sizes B x $lat_iters"
status=0
for ((pair = 1; pair <= pairs; pair++)); do
	iperf3_run
	order="srdma rxe"
	[ $((pair % 2)) = 1 ] || order="rxe srdma"
	for d in $order; do bench_driver "$d" || status=1; done
done
remote end
remote_done
echo "wire: done"
exit $status
