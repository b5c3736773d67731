#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# alone: yes
# smp: 1
# RC timer precision: tests/rc_timeout measures how long a requester takes
# to give up (local ACK timeout x retry_cnt, RNR NAK timer x rnr_retry)
# against the IBTA formulas, on srdma (and, in make soak, then on rdma_rxe
# in the same boot).
#
# Topology (one VM): veth0 198.18.0.1 in the initial namespace, veth1
# 198.18.0.2 in namespace "peer". ACK rows: the device on veth0 sends to
# 198.18.0.2, where no RDMA device listens (the same for both drivers: the
# packets leave through veth0 and nothing answers). RNR rows: srdma0 ->
# srdma1 (on veth1, in "peer"); rdma_rxe listens only in the initial
# namespace, so rxe0 -> rxe0 (its loopback).
#
# srdma's rows are asserted (hrtimers): no repetition earlier than
# max(5 %, 1 ms) before the expected time, the fastest of them within that
# much after it (RC_TIMER_BOUND=PCT,MS to change it) plus the timer latency
# this guest shows per expiry (the least overshoot of clock_nanosleep for
# the same delay, measured in the run: rc_timeout -l; RC_TIMER_STRICT=1
# drops that allowance). A busy host stalls the guest: that only makes a
# repetition late, hence the fastest. rdma_rxe's rows are only
# reported (jiffies timers; its retry_cnt 7 retries for ever). A table of
# clock_nanosleep() in this guest comes first: the best any timer here can
# do. RC_TIMER_DRIVERS (default "srdma"; make soak: "srdma rxe") and
# RC_TIMER_REPS (default 2, a late row measured up to four times more; make
# soak: 5) choose what runs.
prog=$(dirname "$0")/../../tests/bin/rc_timeout
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog exists (build it on the host first: make -C tests)"
	exit 1
fi
. "$(dirname "$0")/lib.sh"

drivers=${RC_TIMER_DRIVERS:-srdma}
bound=${RC_TIMER_BOUND:-5,1}
reps=${RC_TIMER_REPS:-2}
strict=-l
[ "${RC_TIMER_STRICT:-0}" = 1 ] && strict=
peer_ip=198.18.0.2

# tables TAPFILE...: the tables and their captions, from the TAP files
tables() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || continue
		echo "#"
		grep -E '^# (\||ACK|RNR|clock|expected|round|\(the|asserting|timer latency)' "$f"
	done
}

veth_pair
check "veth1 moved to namespace peer" peer_netns
load_uverbs
check "hrtimer reference: clock_nanosleep in this guest" \
	run_tap timer-sleep "$prog" -r 5 sleep

for drv in $drivers; do
	case $drv in
	srdma)
		check "rdma link add srdma0" rdma link add srdma0 type srdma netdev veth0
		check "srdma0 active" wait_until 5 port_is srdma0 ACTIVE
		check "srdma: ACK timeout x (retry_cnt + 1) within max($bound) (%, ms)" \
			run_tap srdma-ack "$prog" -a $strict -b "$bound" -r "$reps" ack srdma0 $peer_ip
		check "rdma link add srdma1 (namespace peer)" \
			ip netns exec peer rdma link add srdma1 type srdma netdev veth1
		check "srdma1 active" wait_until 5 port_is srdma1 ACTIVE
		check "srdma: RNR timer x rnr_retry within max($bound) (%, ms) + round trips" \
			run_tap srdma-rnr "$prog" -a $strict -b "$bound" -r "$reps" rnr srdma0 srdma1
		check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
		check "rdma link delete srdma0" rdma link delete srdma0
		check "modprobe -r srdma" modprobe -r srdma
		;;
	rxe)
		check "rdma link add rxe0 (rdma_rxe)" rdma link add rxe0 type rxe netdev veth0
		check "rxe0 active" wait_until 5 port_is rxe0 ACTIVE
		check "rdma_rxe: ACK timeout rows (reported, not asserted)" \
			run_tap rxe-ack "$prog" -r "$reps" ack rxe0 $peer_ip
		check "rdma_rxe: RNR rows, loopback (reported, not asserted)" \
			run_tap rxe-rnr "$prog" -r "$reps" rnr rxe0 rxe0
		check "rdma link delete rxe0" rdma link delete rxe0
		check "modprobe -r rdma_rxe" modprobe -r rdma_rxe
		;;
	*)
		check "known driver $drv (srdma or rxe)" false
		;;
	esac
done

echo "# Tables (all in $SRDMA_RESULTS/*.tap)"
tables "$SRDMA_RESULTS/timer-sleep.tap"
for drv in $drivers; do
	echo "#"
	echo "# === $drv"
	tables "$SRDMA_RESULTS/$drv-ack.tap" "$SRDMA_RESULTS/$drv-rnr.tap"
done
finish
