#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 900
# RC under packet loss and reordering: tests/rc_bulk moves RC_LOSS_MIB MiB
# (default 4) by RDMA WRITE and by RDMA READ (64 KiB messages, 8
# outstanding) and checks every byte, loss-free, with netem loss 1 %, loss
# 5 %, reordering (delay 1ms reorder 25% 50%) and a queue that overflows
# (delay 1ms limit 1: the netdev refuses packets, srdma's batches among
# them, and srdma sends them again, so that nothing is lost: no
# retransmission; no perftest there) (RC_LOSS_DRIFT=1, make
# soak: loss-free again at the end, how much the figures drift on a shared
# machine), for srdma and then for rdma_rxe
# in the same boot; for srdma also a round trip longer than the ACK timeout
# (spurious_timeouts below). Each srdma run must finish (rc_bulk gives up
# after RC_LOSS_SECONDS, default 120, for both directions) with its data
# intact;
# rdma_rxe's are the reference, reported and not counted.
# perftest's ib_write_bw and ib_read_bw (64 x 64 KiB) then run under the
# same conditions: on srdma each must complete (perftest verifies no data:
# rc_bulk does); on rdma_rxe they give figures only. RC_LOSS_PERFTEST=0
# leaves them out. A table of throughput against the first loss-free run
# ends the output.
#
# Topology (one VM), MTU 9000 on a veth pair, netem on the egress of both
# veth ends (so requests, responses and ACKs all see it; the loss rate is
# per direction). For srdma the veths cut its batches of packets as they
# send, as a NIC without UDP segmentation does, and take packets together
# as they receive (GRO, which a veth runs only for a sender without TSO):
# the loss-free run checks that both devices did (rx_batches).
#   srdma:    srdma0 on veth0 (initial namespace) -> srdma1 on veth1 in
#             namespace "peer";
#   rdma_rxe: it listens in the initial namespace only, so rxe0 on veth0 and
#             rxe1 on veth1 both stay there, and policy routing sends what
#             the host sends to its own 198.18.0.1 and .2 out through the
#             other veth end (the local table moved after two rules that
#             match locally generated packets, accept_local on the veths):
#             the traffic crosses the pair and netem sees it. A check makes
#             sure it does.
# RC_LOSS_DRIVERS (default "srdma") and RC_LOSS_PERFTEST (default 1)
# choose what runs. rdma_rxe is not in the default: under this load with two
# CPUs, Linux 6.1.192's rdma_rxe reads a packet after queueing it for
# another CPU, which frees it (KASAN use-after-free in rxe_resp_queue_pkt,
# seen in a make check on 2026-11-22), and any KASAN report fails the VM;
# RC_LOSS_DRIVERS="srdma rxe" runs the comparison.
prog=$(dirname "$0")/../../tests/bin/rc_bulk
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog exists (build it on the host first: make -C tests)"
	exit 1
fi
. "$(dirname "$0")/lib.sh"

drivers=${RC_LOSS_DRIVERS:-srdma}
mib=${RC_LOSS_MIB:-4}
seconds=${RC_LOSS_SECONDS:-120}
perftest=${RC_LOSS_PERFTEST:-1}
conditions=("none" "loss 1%" "loss 5%" "delay 1ms reorder 25% 50%" "delay 1ms limit 1")
[ "${RC_LOSS_DRIFT:-0}" = 0 ] || conditions+=("none")
table=$SRDMA_RESULTS/loss-table.txt
: > "$table"
port=18515

# gid_index DEVICE: the index of port 1's IPv4 RoCE v2 GID
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 f i
	for f in "$d"/gids/*; do
		i=${f##*/}
		case $(cat "$f") in 0000:0000:0000:0000:0000:ffff:*) ;; *) continue ;; esac
		[ "$(cat "$d/gid_attrs/types/$i" 2> /dev/null)" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# netem_set CONDITION: on veth0 and veth1 (in $peer_ns if set); "none"
# removes it
netem_set() {
	local ns=()
	[ -n "$peer_ns" ] && ns=(ip netns exec "$peer_ns")
	if [ "$1" = none ]; then
		tc qdisc del dev veth0 root 2> /dev/null
		"${ns[@]}" tc qdisc del dev veth1 root 2> /dev/null
		return 0
	fi
	# shellcheck disable=SC2086
	tc qdisc replace dev veth0 root netem $1 &&
	"${ns[@]}" tc qdisc replace dev veth1 root netem $1
}

# rxe_self_over_veth: packets from this host to 198.18.0.2 leave through
# veth0 and come in on veth1 (and back), although both addresses are local
rxe_self_over_veth() {
	local i
	for i in all default veth0 veth1; do
		sysctl -qw net.ipv4.conf.$i.rp_filter=0 || return 1
	done
	sysctl -qw net.ipv4.conf.veth0.accept_local=1 net.ipv4.conf.veth1.accept_local=1 &&
	ip route add 198.18.0.2 dev veth0 src 198.18.0.1 table 100 &&
	ip route add 198.18.0.1 dev veth1 src 198.18.0.2 table 101 &&
	ip rule add pref 10 iif lo to 198.18.0.2 lookup 100 &&
	ip rule add pref 11 iif lo to 198.18.0.1 lookup 101 &&
	ip rule add pref 100 lookup local &&
	ip rule del pref 0 &&
	ping -c 1 -W 5 -I 198.18.0.1 198.18.0.2
}

# perf TEST DEVICE PEER_DEVICE: TEST (ib_write_bw, ib_read_bw) from DEVICE
# to a server on PEER_DEVICE at 198.18.0.2; prints the average MB/sec (or
# "-"); the output is kept in $SRDMA_RESULTS. Fails unless both sides exit
# 0 and the figure is above 0. The time limits are generous (under loss the
# debug guest is slow) and the server's is the longer: a server killed
# first destroys its QP, and the client then fails with RETRY_EXC_ERR,
# which would say nothing about the driver. A run that both sides ended
# well but that reports 0.00 MB/s was not timed (perftest's CPU clock
# calibration fails in a starved TCG guest, mostly in a boot's first
# perftest): it runs once more, the first client output kept as .try1.
perf() {
	local test=$1 dev=$2 pdev=$3 log=$SRDMA_RESULTS/$4 ns=() bw pid client server try
	local args
	[ -n "$peer_ns" ] && ns=(ip netns exec "$peer_ns")
	for try in 1 2; do
		args=(-s 65536 -n 64 -F -p "$port")
		# in the namespace from the first process on (its /proc/PID/net
		# is the namespace's)
		"${ns[@]}" timeout 200 "$test" "${args[@]}" -d "$pdev" -x "$(gid_index "$pdev")" \
			> "$log.server" 2>&1 &
		pid=$!
		wait_until 20 listening_or_gone "$pid" "$port"
		port=$((port + 1))
		timeout 180 "$test" "${args[@]}" -d "$dev" -x "$(gid_index "$dev")" 198.18.0.2 \
			> "$log.client" 2>&1
		client=$?
		wait "$pid"
		server=$?
		bw=$(awk 'f && NF >= 4 { print $4; exit } /#bytes/ { f = 1 }' "$log.client")
		[ $client = 0 ] && [ $server = 0 ] && [ "$bw" = 0.00 ] && [ $try = 1 ] || break
		mv "$log.client" "$log.client.try1"
	done
	echo "${bw:--}"
	[ $client = 0 ] && [ $server = 0 ] && awk -v b="${bw:-0}" 'BEGIN { exit !(b > 0) }'
}

# nonzero_counters DEVICE [NAMESPACE]: the device's counters that are not 0
nonzero_counters() {
	local ns=()
	[ -n "${2:-}" ] && ns=(ip netns exec "$2")
	"${ns[@]}" rdma statistic show link "$1/1" | tr ' ' '\n' | paste - - |
		awk '$2 != 0 && $1 != "link" { printf "%s %s ", $1, $2 }'
}

# verdict DRIVER DESCRIPTION COMMAND...: a check on srdma; on rdma_rxe,
# the reference, only a diagnostic (6.1's rdma_rxe was seen to fail a
# loss-free WRITE with a remote invalid request error once: its own bug,
# not srdma's)
verdict() {
	local drv=$1 desc=$2
	shift 2
	if [ "$drv" = srdma ]; then
		check "$desc" "$@"
	elif ! "$@" > "$_out" 2>&1; then
		echo "# rdma_rxe (reference, not counted) failed: $desc"
		sed 's/^/#   /' "$_out"
	fi
}

# runs DRIVER DEVICE PEER_DEVICE [RC_BULK OPTION...]: every condition; a
# row per condition in $table: driver, condition, write, read, ib_write_bw,
# ib_read_bw
runs() {
	local drv=$1 dev=$2 pdev=$3 cond name w r pw pr pw_ok pr_ok ok_free=1 n=0 refused resent
	shift 3
	for cond in "${conditions[@]}"; do
		n=$((n + 1))
		name=$drv-$n-$(echo "$cond" | tr -c 'a-z0-9\n' '_')
		if [ $ok_free = 0 ]; then
			verdict "$drv" "$drv, $cond: rc_bulk completes, data verified" \
				sh -c 'echo "# not run: the loss-free run failed"; false'
			echo "$drv|$cond|-|-|-|-" >> "$table"
			continue
		fi
		check "$drv: netem $cond" netem_set "$cond"
		[ "$drv" = srdma ] && refused=$(counter "$dev" xmit_refused) &&
			resent=$(counter "$dev" retransmits)
		verdict "$drv" "$drv, $cond: rc_bulk completes, data verified" \
			run_tap "$name" "$prog" -m "$mib" -T "$seconds" "$@" "$dev" "$pdev"
		# so far, for a failure's diagnosis
		[ "$drv" = srdma ] &&
			echo "# counters: $dev: $(nonzero_counters "$dev"); $pdev: $(nonzero_counters "$pdev" "$peer_ns")"
		if [ "$drv" = srdma ] && [ $n = 1 ]; then
			check "$drv, $cond: packets taken together on receive (rx_batches of both)" \
				test "$(counter "$dev" rx_batches)" -gt 0 -a \
				"$(counter "$pdev" rx_batches "$peer_ns")" -gt 0
			check "$drv, $cond: each QP's packets in order through GRO (reordered_pkts 0 on both)" \
				test "$(counter "$dev" reordered_pkts)" = 0 -a \
				"$(counter "$pdev" reordered_pkts "$peer_ns")" = 0
		fi
		# a full queue refused packets, batches among them, which went
		# again in their place: nothing was lost
		if [ "$drv" = srdma ] && [[ $cond == *limit* ]]; then
			check "$drv, $cond: the netdev refused packets (xmit_refused $refused -> $(counter "$dev" xmit_refused))" \
				test "$(counter "$dev" xmit_refused)" -gt "$refused"
			check "$drv, $cond: none sent again (retransmits $resent -> $(counter "$dev" retransmits))" \
				test "$(counter "$dev" retransmits)" = "$resent"
		fi
		# packets that overtook others were held, not dropped and NAKed
		[ "$drv" = srdma ] && [[ $cond == *reorder* ]] &&
			check "$drv, $cond: packets held until their turn (reordered_pkts > 0)" \
				test "$(counter "$pdev" reordered_pkts "$peer_ns")" -gt 0
		w=$(awk '/^# result write/ { print $(NF - 1) }' "$SRDMA_RESULTS/$name.tap")
		r=$(awk '/^# result read/ { print $(NF - 1) }' "$SRDMA_RESULTS/$name.tap")
		[ $n = 1 ] && [ -z "$r" ] && ok_free=0
		pw=- pr=-
		# perftest only where rc_bulk got through: it cannot say more;
		# nor behind the overflowing queue, whose point is rc_bulk's data
		if [ "$perftest" = 1 ] && [ -n "$w$r" ] && [[ $cond != *limit* ]]; then
			pw=$(perf ib_write_bw "$dev" "$pdev" "$name.ib_write_bw")
			pw_ok=$?
			pr=$(perf ib_read_bw "$dev" "$pdev" "$name.ib_read_bw")
			pr_ok=$?
			if [ "$drv" = srdma ]; then
				check "$drv, $cond: ib_write_bw: both sides exit 0, $pw MB/s > 0" \
					test $pw_ok = 0
				check "$drv, $cond: ib_read_bw: both sides exit 0, $pr MB/s > 0" \
					test $pr_ok = 0
			fi
		fi
		echo "$drv|$cond|${w:--}|${r:--}|$pw|$pr" >> "$table"
		netem_set none
	done
}

# spurious_timeouts DEVICE PEER_DEVICE: a round trip of 40 ms (netem delay
# 20ms each way) against an ACK timeout of 16.8 ms (rc_bulk -t 12). The
# first packets time out (nothing measured yet); then the timeout stretches
# to the round trips measured (Documentation/transport.md, Timers): the
# transfer completes with its data, having timed out at least once and at
# most 10 times (2 in one run; 102 with the timeout kept at the QP's, every
# timeout before the ACKs of packets on their way).
spurious_timeouts() {
	local dev=$1 pdev=$2 t0 r0 t1 r1
	check "srdma: netem delay 20ms" netem_set "delay 20ms"
	t0=$(counter "$dev" ack_timeouts) r0=$(counter "$dev" retransmits)
	check "srdma, a round trip longer than the ACK timeout: rc_bulk completes, data verified" \
		run_tap srdma-spurious "$prog" -m 1 -t 12 -T "$seconds" "$dev" "$pdev"
	t1=$(counter "$dev" ack_timeouts) r1=$(counter "$dev" retransmits)
	check "srdma, a round trip longer than the ACK timeout: timed out 1 to 10 times, then waited longer ($((t1 - t0)) times, $((r1 - r0)) retransmits)" \
		test $((t1 - t0)) -ge 1 -a $((t1 - t0)) -le 10
	netem_set none
}

load_uverbs
for drv in $drivers; do
	case $drv in
	srdma)
		peer_ns=peer
		srdma_pair 9000
		check "veth0 and veth1: GRO, no UDP segmentation offload" sh -c \
			'ethtool -K veth0 gro on tso off tx-udp-segmentation off &&
			 ip netns exec peer ethtool -K veth1 gro on tso off tx-udp-segmentation off'
		runs srdma srdma0 srdma1
		spurious_timeouts srdma0 srdma1
		check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
		check "rdma link delete srdma0" rdma link delete srdma0
		check "modprobe -r srdma" modprobe -r srdma
		check "namespace peer and the veth pair gone" ip netns del peer
		wait_until 10 sh -c '! ip link show veth0'
		peer_ns=
		;;
	rxe)
		peer_ns=
		veth_pair
		ip link set veth0 mtu 9000
		ip link set veth1 mtu 9000
		check "rdma_rxe: packets to the host's own addresses cross the veth pair" \
			rxe_self_over_veth
		check "rdma link add rxe0 (rdma_rxe)" rdma link add rxe0 type rxe netdev veth0
		check "rdma link add rxe1" rdma link add rxe1 type rxe netdev veth1
		check "rxe1 active" wait_until 5 port_is rxe1 ACTIVE
		before=$(cat /sys/class/net/veth1/statistics/rx_bytes)
		# -g 4096: rdma_rxe of 6.1 reads past its MR page map when a
		# transfer ends exactly at the end of an MR of a whole number of
		# MiB (KASAN; see tests/rc_bulk.c); srdma gets that edge
		runs rxe rxe0 rxe1 -g 4096
		after=$(cat /sys/class/net/veth1/statistics/rx_bytes)
		check "rdma_rxe's traffic went through veth1 ($(( (after - before) >> 20 )) MiB)" \
			test $(( after - before )) -gt $(( mib << 20 ))
		check "rdma link delete rxe1" rdma link delete rxe1
		check "rdma link delete rxe0" rdma link delete rxe0
		check "modprobe -r rdma_rxe" modprobe -r rdma_rxe
		ip link del veth0
		;;
	*)
		check "known driver $drv (srdma or rxe)" false
		;;
	esac
done

if [ "$perftest" = 1 ]; then
	echo "# Throughput, MiB/s (rc_bulk: $mib MiB each way; perftest: 64 x 64 KiB,"
	echo "# its MB/sec is MiB/s too); netem on both veth egresses; all runs in $SRDMA_RESULTS"
else
	echo "# Throughput, MiB/s (rc_bulk: $mib MiB each way; perftest not run:"
	echo "# RC_LOSS_PERFTEST=0); netem on both veth egresses; all runs in $SRDMA_RESULTS"
fi
for drv in $drivers; do
	echo "#"
	echo "# === $drv"
	echo "# | netem | rc_bulk WRITE | vs loss-free | rc_bulk READ | vs loss-free | ib_write_bw | ib_read_bw |"
	echo "# |---|---:|---:|---:|---:|---:|---:|"
	awk -F'|' -v drv="$drv" '
		function rel(x, base) {
			return (x == "-" || base == "-" || base == 0) ? "-" : sprintf("%.2f", x / base)
		}
		$1 != drv { next }
		$2 == "none" && !seen++ { bw = $3; br = $4 }
		{ printf "# | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, rel($3, bw),
			$4, rel($4, br), $5, $6 }' "$table"
done
finish
