#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# smp: 1
# alone: yes
# Per-QP rate limiting (Documentation/rate-limiting.md): tests/rate_bw
# streams RDMA WRITEs on RC QPs from srdma0 (veth0) to srdma1 (veth1 in
# namespace peer) with limits set by tools/srdma-rate, and measures what
# each QP achieved on the wire (Ethernet frames, counted by rate_bw from
# the messages that completed, not read from the driver):
#   - one unlimited QP at least 20 Mbit/s (the rows below are fractions of
#     what it reaches: a collapse fails here rather than shrinking them);
#   - one QP at 10 Mbit/s, and at 30, 100 ... Mbit/s up to about 80 % of
#     what one unlimited QP reaches here: each within 5 % of its limit;
#   - two unlimited QPs: within 10 % of each other (the rows below are
#     fractions of what they carry together, when that is less than what
#     one QP reached);
#   - two QPs with different limits: each within 5 % of its own;
#   - a limited QP next to an unlimited one: the limit, and the other at
#     least 70 % of the rest (of what two unlimited QPs carried together);
#   - a rate changed while the QP sends: each rate within 5 % (the half
#     second after the change is left out);
#   - a UC QP, and an RC responder's read responses (limit on srdma1's
#     QP): each within 5 %;
#   - no retransmission and no ACK timeout on either device meanwhile, and
#     the throttling counted.
# A run with a rate more than 5 % off is made once more, and the second
# one is checked (the output's end names such runs).
# Then the administrator's errors: an unknown device, a QP that does not
# exist or is another device's, a rate above the port's speed, an absurd
# burst. RATE_SECONDS (default 3) is each run's length: by hand it runs
# short, make bench long (10).
# One CPU: with two, two unlimited QPs do not always share evenly
# (Documentation/rate-limiting.md, "Not done yet"). srdma's tracepoints are
# on: a run that retransmitted leaves its trace in rate-N.trace. The table
# of configured, achieved and error ends the output.
prog=$(dirname "$0")/../../tests/bin/rate_bw
tool=$(readlink -f "$(dirname "$0")/../srdma-rate/srdma-rate")
for f in "$prog" "$tool"; do
	if [ ! -x "$f" ]; then
		echo "not ok 1 - $f exists (build it on the host first: make -C tests; make -C tools/srdma-rate)"
		exit 1
	fi
done
. "$(dirname "$0")/lib.sh"

seconds=${RATE_SECONDS:-3}
table=$SRDMA_RESULTS/rate-table.txt
: > "$table"
runs=0
retried=()

# rate [-c AT:LIMIT] [-u | -r] LIMIT...: rate_bw with these limits
# (kbit/s, 0: none); its output, and the retransmissions and ACK timeouts
# of the run, are in $SRDMA_RESULTS/rate-N.out
rate() {
	local opts=() r0 t0 rc
	[ "$1" = -c ] && opts=(-c "$2") && shift 2
	case $1 in -u | -r) opts+=("$1"); shift ;; esac
	runs=$((runs + 1))
	out=$SRDMA_RESULTS/rate-$runs.out
	r0=$(($(counter srdma0 retransmits) + $(counter srdma1 retransmits)))
	t0=$(($(counter srdma0 ack_timeouts) + $(counter srdma1 ack_timeouts)))
	"$prog" -t "$seconds" -R "$tool" "${opts[@]}" srdma0 srdma1 "$@" \
		> "$out" 2>&1
	rc=$?
	r0=$(($(counter srdma0 retransmits) + $(counter srdma1 retransmits) - r0))
	t0=$(($(counter srdma0 ack_timeouts) + $(counter srdma1 ack_timeouts) - t0))
	echo "# retransmits $r0 ack_timeouts $t0" >> "$out"
	# the packets and decisions that led to it, for whoever reads the logs
	if [ "$r0$t0" != 00 ]; then
		trace_srdma_save "${out%.out}.trace"
		echo "# trace in ${out%.out}.trace" >> "$out"
	else
		trace_srdma_clear
	fi
	return $rc
}

# achieved QP [changed]: what QP (0, 1) of the last run achieved, kbit/s
# (changed: QP 0 after its change)
achieved() {
	awk -v q="$1" -v w="${2:-result}" '$1 == w && $2 == q { print $5 }' "$out"
}

# near LIMIT ACHIEVED PERCENT: ACHIEVED is within PERCENT of LIMIT
near() {
	awk -v l="$1" -v a="$2" -v p="$3" \
		'BEGIN { e = (a - l) * 100 / l; exit !(a != "" && e <= p && e >= -p) }'
}

# within LIMIT ACHIEVED PERCENT DESCRIPTION: a row of the table, and a check
within() {
	local err
	err=$(awk -v l="$1" -v a="$2" 'BEGIN { printf "%+.2f", (a - l) * 100 / l }')
	echo "| $4 | $1 | $2 | $err % |" >> "$table"
	near "$1" "$2" "$3"
}

# measure EXPECT... -- RATE-ARGS: rate RATE-ARGS; if a QP's rate of EXPECT
# (LIMIT:QP, or LIMIT:QP:changed) is more than 5 % off, the run is made
# once more and the second counts. The host CI shares can slow a 4 s run
# for a second (a QP at 34 Mbit/s once got -6.4 %); a limiter that is
# wrong is wrong twice.
measure() {
	local exp=() e l q w a
	while [ "$1" != -- ]; do exp+=("$1"); shift; done
	shift
	rate "$@" || return
	for e in "${exp[@]}"; do
		IFS=: read -r l q w <<< "$e"
		a=$(achieved "$q" "$w")
		if ! near "$l" "$a" 5; then
			retried+=("run $runs: QP $q${w:+ ($w)} achieved ${a:-nothing} of $l kbit/s, measured again")
			rate "$@"
			return
		fi
	done
}

min_unlimited=20000
load_uverbs
srdma_pair 9000
trace_srdma_on

retrans0=$(($(counter srdma0 retransmits) + $(counter srdma1 retransmits)))
timeouts0=$(($(counter srdma0 ack_timeouts) + $(counter srdma1 ack_timeouts)))

check "one unlimited QP" rate 0
max=$(achieved 0)
echo "# one unlimited QP: ${max:-?} kbit/s"
[ -n "$max" ] || max=0
# the rows below are fractions of max: a collapse must fail here, not
# shrink them (one vCPU of the debug guest carries 30 to 70 Mbit/s, as
# fast as the host's TCG runs)
check "one unlimited QP reaches $min_unlimited kbit/s ($max)" test "$max" -ge $min_unlimited

# 10 Mbit/s always; faster ones as far as 80 % of max
for limit in 10000 30000 100000 300000 1000000 3000000; do
	[ $limit -le 10000 ] || [ $((limit * 10)) -le $((max * 8)) ] || break
	check "one QP at $limit kbit/s: completes" measure "$limit:0" -- "$limit"
	check "one QP at $limit kbit/s: within 5 %" \
		within "$limit" "$(achieved 0)" 5 "one QP"
done

check "two unlimited QPs: complete" rate 0 0
a=$(achieved 0) b=$(achieved 1)
echo "| two unlimited QPs | - | $a and $b | - |" >> "$table"
check "two unlimited QPs share evenly: $a and $b kbit/s within 10 %" \
	awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d * 2 / (a + b) <= 0.10) }'
both=$((${a:-0} + ${b:-0}))
# the rows of two QPs are fractions of what two unlimited QPs carried when
# that is less than max: one run of one QP can find the host faster than
# the next runs do (max 78 Mbit/s, then 63 for two QPs together, and two
# QPs at 15 and 31 Mbit/s fell 5 and 17 % short, twice, in a CI run)
cap=$max
[ "$both" -ge "$cap" ] || cap=$both

l1=$((cap / 5 / 1000 * 1000)) l2=$((cap * 2 / 5 / 1000 * 1000))
check "two QPs at $l1 and $l2 kbit/s: complete" \
	measure "$l1:0" "$l2:1" -- "$l1" "$l2"
check "two QPs: the first within 5 % of $l1" within "$l1" "$(achieved 0)" 5 "two QPs, first"
check "two QPs: the second within 5 % of $l2" within "$l2" "$(achieved 1)" 5 "two QPs, second"

# next_to_limited LIMIT: a QP at LIMIT next to an unlimited one ($u). The
# unlimited one is judged against $both, what two unlimited QPs carried
# together, not against max: a second QP costs the one-vCPU guest some of
# its throughput (about 15 %), and the host can slow down between the
# first run and this one. Below 70 % of the rest, both runs are made once
# more.
next_to_limited() {
	local try
	for try in 1 2; do
		measure "$1:0" -- "$1" 0 || return
		u=$(achieved 1)
		gets_rest "$1" || [ $try = 2 ] && return
		retried+=("run $runs: the unlimited QP next to one at $1 kbit/s got ${u:-nothing} of $((both - $1)), measured again")
		rate 0 0 || return
		both=$(($(achieved 0) + $(achieved 1)))
	done
}
gets_rest() { [ -n "$u" ] && [ "$u" -ge $(((both - $1) * 7 / 10)) ]; }

l=$((cap / 4 / 1000 * 1000))
check "a QP at $l kbit/s next to an unlimited one: complete" next_to_limited "$l"
check "the limited QP within 5 % of $l" within "$l" "$(achieved 0)" 5 "limited, next to unlimited"
echo "| unlimited, next to limited | - | $u | - |" >> "$table"
check "the unlimited QP gets at least 70 % of the rest ($u of $both - $l kbit/s)" \
	gets_rest "$l"

l1=$((cap / 10 / 1000 * 1000))
at=$(awk -v s="$seconds" 'BEGIN { print s / 2 }')
check "one QP at $l1 kbit/s, then $l2 from ${at} s on: completes" \
	measure "$l1:0" "$l2:0:changed" -- -c "$at:$l2" "$l1"
check "before the change: within 5 % of $l1" within "$l1" "$(achieved 0)" 5 "before a live change"
check "after the change: within 5 % of $l2" within "$l2" "$(achieved 0 changed)" 5 "after a live change"

# the other senders the bucket paces: UC requests, an RC responder's
# read responses
l=$((cap * 3 / 10 / 1000 * 1000))
check "a UC QP at $l kbit/s: completes" measure "$l:0" -- -u "$l"
check "the UC QP within 5 % of $l" within "$l" "$(achieved 0)" 5 "UC WRITE"
check "RDMA READ, the responder at $l kbit/s: completes" measure "$l:0" -- -r "$l"
check "the read responses within 5 % of $l" within "$l" "$(achieved 0)" 5 "READ responses"

# unchanged NAME BEFORE: the counter NAME of both devices is still BEFORE;
# prints each run's count
unchanged() {
	grep -H "^# retransmits" "$SRDMA_RESULTS"/rate-*.out
	test $(($(counter srdma0 "$1") + $(counter srdma1 "$1"))) = "$2"
}
check "no retransmission" unchanged retransmits "$retrans0"
check "no ACK timeout" unchanged ack_timeouts "$timeouts0"
check "throttling counted: rate_throttles $(counter srdma0 rate_throttles), rate_throttled_ns $(counter srdma0 rate_throttled_ns)" \
	test "$(counter srdma0 rate_throttles)" -gt 0 -a "$(counter srdma0 rate_throttled_ns)" -gt 0

# an administrator's mistakes: a clear error each, nothing changed
check_match "srdma-rate: no such device" "no srdma device" \
	"$tool" qp show nosuch0
check_fails "srdma-rate: no such device fails" "$tool" qp show nosuch0
check_match "srdma-rate: a QP that does not exist" "no QP of that number" \
	"$tool" qp set srdma0 16777215 rate 10mbit
check_match "srdma-rate: a rate above the port's speed" "above the port's speed" \
	"$tool" qp set srdma0 1 rate 100gbit
check_match "srdma-rate: an absurd burst" "burst is above" \
	"$tool" port set srdma0 burst 100m
check_fails "srdma-rate: a rate with no unit it knows" \
	"$tool" qp set srdma0 1 rate 10furlongs
check "srdma-rate: port show" "$tool" port show srdma0
check "srdma-rate: port default and ceiling set and cleared" \
	sh -c "'$tool' port set srdma0 default 50mbit ceiling 100mbit &&
	       '$tool' port show srdma0 | grep -q 100mbit &&
	       '$tool' port set srdma0 default 0 ceiling 0"

check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
check "rdma link delete srdma0" rdma link delete srdma0
check "modprobe -r srdma" modprobe -r srdma

echo "# Rate limiting, srdma0 -> srdma1 (veth, MTU 9000), RDMA WRITE 64 KiB x 8"
echo "# outstanding, $seconds s per run, the first 0.5 s left out; kbit/s of"
echo "# Ethernet frames; each run's output in $SRDMA_RESULTS/rate-N.out"
echo "# | run | configured | achieved | error |"
echo "# |---|---:|---:|---:|"
sed 's/^/# /' "$table"
for r in "${retried[@]}"; do echo "# $r"; done
finish
