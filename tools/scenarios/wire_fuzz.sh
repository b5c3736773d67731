#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# kmemleak: on
# smp: 2
# The wire fuzzer: roce_fuzz.py, from namespace peer on veth1, forges
# RoCEv2 frames at srdma0's live QPs, one family after the other
# (roce_fuzz.py says what each holds), while tests/rc_bulk moves data both
# ways between srdma0 and srdma1 and ibv_ud_pingpong keeps a UD QP busy.
# For each family, the counters it names grew as it says (a drop counted
# in its own counter). At the end: the kernel log holds nothing alarming,
# no transfer under attack completed with wrong data (each completed, or
# failed with an error completion and rc_bulk connected again), a clean
# transfer each way then passes, nothing is left. The random family takes
# a new seed each run, printed with the variable that replays it
# (FUZZ_SEED); FUZZ_FAMILIES picks families.
prog=$(dirname "$0")/../../tests/bin/rc_bulk
fuzz=$(cd "$(dirname "$0")" && pwd)/roce_fuzz.py
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog exists (build it on the host first: make -C tests)"
	exit 1
fi
. "$(dirname "$0")/lib.sh"

seed=${FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
families=${FUZZ_FAMILIES:-$(python3 "$fuzz" list)}
v6_dev=fd00:5264:6d61::1 v6_peer=fd00:5264:6d61::2
runs=$SRDMA_RESULTS/victims
mkdir -p "$runs"
stop=$runs/stop

load_uverbs
srdma_pair
ip -n peer addr add $v6_peer/64 dev veth1 nodad
check "srdma0 has a RoCEv2 GID for 198.18.0.1" wait_until 10 rocev2_gid_index srdma0 198.18.0.1
check "srdma1 has a RoCEv2 GID for 198.18.0.2" wait_until 10 rocev2_gid_index srdma1 198.18.0.2

# victim NAME DEVICE PEER_DEVICE: rc_bulk from DEVICE to PEER_DEVICE over
# and over until $stop exists; each run's TAP in $runs/NAME.N.tap. A short
# ACK timeout (16 ms): a connection the fuzzer killed fails fast. The
# victims poll their CQs: at nice 10 they leave the injector the CPU it
# needs (the receive path they drive runs in softirq, at no nice).
victim() {
	local n=0
	while [ ! -e "$stop" ]; do
		n=$((n + 1))
		nice -n 10 timeout -k 5 90 "$prog" -m 4 -t 12 -T 40 "$2" "$3" > "$runs/$1.$n.tap" 2>&1
	done
}

echo "# wire_fuzz: seed $seed (FUZZ_SEED=$seed replays the random family)"
# The injector first: beside the victims' polling it takes seconds more to
# start; it waits for their traffic to learn its targets from.
# shellcheck disable=SC2086
python3 "$fuzz" --netns peer --seed "$seed" --ipv6 "$v6_peer,$v6_dev" \
	--counters /sys/class/infiniband/srdma0/ports/1/hw_counters veth1 $families \
	> "$runs/fuzz.out" 2>&1 &
fuzz_pid=$!
# fuzz_result: the injector's exit status, its output
fuzz_result() {
	local rc
	wait "$fuzz_pid"
	rc=$?
	cat "$runs/fuzz.out"
	return $rc
}

rm -f "$stop"
victim to_srdma0 srdma1 srdma0 &	# requests to srdma0's responder
victim_a=$!
victim from_srdma0 srdma0 srdma1 &	# responses to srdma0's requester
victim_b=$!
# a UD QP on srdma0 with traffic from srdma1
gs=$(rocev2_gid_index srdma0 198.18.0.1)
gc=$(rocev2_gid_index srdma1 198.18.0.2)
nice -n 10 ibv_ud_pingpong -d srdma0 -g "$gs" -n 100000000 > "$runs/ud.server" 2>&1 &
ud_server=$!
wait_until 20 tcp_listening $ud_server 18515
nice -n 10 ip netns exec peer ibv_ud_pingpong -d srdma1 -g "$gc" -n 100000000 198.18.0.1 \
	> "$runs/ud.client" 2>&1 &
ud_client=$!

check "roce_fuzz.py: every family learned its targets and sent its frames" fuzz_result
grep -E '^(# |missing )' "$runs/fuzz.out"
# a check per counter a family names: what it must have grown by
grep '^expect ' "$runs/fuzz.out" > "$runs/expect"
while read -r _ fam counter op n grew; do
	if [ "$op" = "==" ]; then
		check "$fam: $counter grew by exactly $n (by $grew)" test "$grew" -eq "$n"
	else
		check "$fam: $counter grew by $n or more (by $grew)" test "$grew" -ge "$n"
	fi
done < "$runs/expect"
kill $ud_server $ud_client 2> /dev/null
wait $ud_server $ud_client 2> /dev/null

touch "$stop"
check "the traffic under attack stops (every rc_bulk within its limit)" \
	wait_until 150 sh -c "! kill -0 $victim_a 2> /dev/null && ! kill -0 $victim_b 2> /dev/null"
wait $victim_a $victim_b
echo "# victims: to srdma0: $(ls "$runs"/to_srdma0.*.tap | wc -l) runs, from srdma0: $(ls "$runs"/from_srdma0.*.tap | wc -l) runs;" \
	"failed transfers (error completions): $(cat "$runs"/*.tap | grep -c '^not ok .*all fine, in order')"
check "rc_bulk ran under attack, both ways" \
	test -e "$runs/to_srdma0.2.tap" -a -e "$runs/from_srdma0.2.tap"
check_no_match "no transfer under attack completed with wrong data" \
	'^not ok .*arrived intact' cat "$runs"/to_srdma0.*.tap "$runs"/from_srdma0.*.tap
check "after the attack: rc_bulk srdma1 -> srdma0, data verified" \
	run_tap after_to_srdma0 "$prog" -m 4 srdma1 srdma0
check "after the attack: rc_bulk srdma0 -> srdma1, data verified" \
	run_tap after_from_srdma0 "$prog" -m 4 srdma0 srdma1
echo "# srdma0: $(rdma statistic show link srdma0/1)"
check_no_match "no QP of the traffic under attack left" 'comm (rc_bulk|ibv_ud_pingpong)' rdma resource show qp
check_no_match "kernel log: nothing alarming" "$alarming" dmesg
check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
check "rdma link delete srdma0" rdma link delete srdma0
check "namespace peer gone" ip netns del peer
finish
