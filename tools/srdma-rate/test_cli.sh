#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# srdma-rate from the outside: exit status, stdout and stderr of whole
# commands, TAP output. Usage errors and the missing module run against
# the host's kernel; the rest against fake_kernel.so (see there), which
# stands in for the srdma module. VALGRIND="valgrind --error-exitcode=99 ..."
# runs each command under it (make test VALGRIND=valgrind does).
#
#   tools/srdma-rate/test_cli.sh     (after make -C tools/srdma-rate)
set -u
cd "$(dirname "$0")" || exit 1

tool=./srdma-rate
fake=$PWD/fake_kernel.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
valgrind=()
if [ -n "${VALGRIND:-}" ]; then
	# shellcheck disable=SC2206 # VALGRIND is a command line
	valgrind=($VALGRIND)
fi

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

# run [ENV=VAL...] -- ARGS...: the tool's stdout, stderr and status in $tmp
run() {
	local envs=()

	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "${valgrind[@]}" "$tool" "$@" > "$tmp/out" 2> "$tmp/err"
	echo $? > "$tmp/rc"
}

# expect NAME STATUS STDERR [STDOUT]: the last run gave exactly these
expect() {
	local name=$1 rc=$2 err=$3 out=${4-}
	local got_rc got_err got_out

	got_rc=$(cat "$tmp/rc")
	got_err=$(cat "$tmp/err")
	got_out=$(cat "$tmp/out")
	if [ "$got_rc" = "$rc" ] && [ "$got_err" = "$err" ] &&
	   { [ $# -lt 4 ] || [ "$got_out" = "$out" ]; }; then
		ok 0 "$name"
	else
		ok 1 "$name"
		echo "# status $got_rc, want $rc"
		diff <(echo "$err") <(echo "$got_err") | sed 's/^/# stderr /'
		if [ $# -ge 4 ]; then
			diff <(echo "$out") <(echo "$got_out") | sed 's/^/# stdout /'
		fi
	fi
}

# usage: status 2, one line on stderr, nothing sent, nothing on stdout
usage() {
	local msg=$1; shift

	run -- "$@"
	expect "usage: srdma-rate $*" 2 "srdma-rate: $msg" ""
}

run -- help
expect "help" 0 ""
grep -q '^Usage: srdma-rate \[-j\] qp show DEV \[QPN\]$' "$tmp/out"
ok $? "help: the synopsis"
help=$(cat "$tmp/out")
run -- -h
expect "-h" 0 "" "$help"
run -- --help
expect "--help" 0 "" "$help"

usage "missing command (try 'srdma-rate help')"
usage "missing command (try 'srdma-rate help')" -j
usage "unknown option \"--jsonn\" (try 'srdma-rate help')" --jsonn qp show srdma0
usage "unknown command \"qps\" (try 'srdma-rate help')" qps show srdma0
usage "qp: missing show or set" qp
usage "unknown command \"port get\" (port takes show or set)" port get srdma0
usage "missing device name" qp show
usage "unexpected argument \"x\"" qp show srdma0 17 x
usage "invalid QPN \"-1\": negative" qp show srdma0 -1
usage "missing QPN" qp set srdma0
usage "qp set: missing rate (rate 0 clears the admin's rate)" qp set srdma0 17
usage "missing value after \"burst\"" qp set srdma0 17 rate 1 burst
usage "invalid rate \"999bit\": below 1kbit" qp set srdma0 17 rate 999bit
usage "invalid rate \"-5mbit\": negative" qp set srdma0 17 rate -5mbit
usage "invalid rate \"1.5xbit\": unknown unit" qp set srdma0 17 rate 1.5xbit
usage "invalid rate \"lots\": not a number" qp set srdma0 17 rate lots
usage "invalid rate \"18446744073709551615kbit\": too large (at most 18446744073709551kbit)" \
	qp set srdma0 17 rate 18446744073709551615kbit
usage "invalid size \"64q\": unknown unit" qp set srdma0 17 rate 1 burst 64q
usage "unknown keyword \"speed\" (qp set takes rate and burst)" qp set srdma0 17 speed 1
usage "\"rate\" given twice" qp set srdma0 17 rate 1 rate 1
usage "port set: nothing to set (give default, ceiling or burst)" port set srdma0
usage "unknown keyword \"rate\" (port set takes default, ceiling and burst)" port set srdma0 rate 1

"${valgrind[@]}" "$tool" help > /dev/full 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q '^srdma-rate: write error: ' "$tmp/err"
ok $? "help > /dev/full: status $rc, $(cat "$tmp/err")"

# the host's kernel, where the module is not loaded
absent='srdma-rate: the srdma module is not loaded (no generic netlink family "srdma")'
if [ ! -d /sys/module/srdma ]; then
	for args in "qp show srdma0" "-j qp show srdma0 17" "qp set srdma0 17 rate 0" \
		    "port show srdma0" "port set srdma0 ceiling 10gbit"; do
		# shellcheck disable=SC2086 # split on purpose
		run -- $args
		expect "host kernel: srdma-rate $args" 1 "$absent" ""
	done
else
	echo "# the host has an srdma family: skipping the host kernel's tests"
fi

# the fake module
F=(LD_PRELOAD="$fake" FAKE_SRDMA_LOG="$tmp/log")

run "${F[@]}" FAKE_SRDMA_ABSENT=1 -- port show srdma0
expect "fake: no family" 1 "$absent" ""

run "${F[@]}" -- qp show srdma0
expect "fake: qp show, all" 0 "" \
"QPN  TYPE  RATE       BURST  SOURCE   ADMIN    VERBS  AV       THROTTLES  THROTTLED_MS              TX_BYTES
  1  GSI   25gbit     65536  ceiling  none     none   none             0             0                  5120
 17  RC    1.5gbit    16384  admin    1.5gbit  none   2.5gbit       1234         56789  18446744073709551615
 18  UD    unlimited      -  none     -        -      -                -             -                     0"

run "${F[@]}" -- qp show srdma0 0x11
expect "fake: qp show, one" 0 "" \
"QPN  TYPE  RATE     BURST  SOURCE  ADMIN    VERBS  AV       THROTTLES  THROTTLED_MS              TX_BYTES
 17  RC    1.5gbit  16384  admin   1.5gbit  none   2.5gbit       1234         56789  18446744073709551615"

run "${F[@]}" -- -j qp show srdma0 17
expect "fake: -j qp show, one" 0 "" \
'{"dev":"srdma0","qpn":17,"type":"RC","rate_kbps":1500000,"burst_bytes":16384,"source":"admin","admin_kbps":1500000,"verbs_kbps":0,"av_kbps":2500000,"throttle_events":1234,"throttled_ns":56789012345,"tx_bytes":18446744073709551615}'

run "${F[@]}" -- -j qp show srdma0
expect "fake: -j qp show, all" 0 ""
if command -v python3 > /dev/null; then
	python3 -c '
import json, sys
qps = json.load(open(sys.argv[1]))
assert [q["qpn"] for q in qps] == [1, 17, 18], qps
assert qps[1]["rate_kbps"] == 1500000 and qps[1]["source"] == "admin"
assert qps[2]["burst_bytes"] is None and qps[2]["rate_kbps"] == 0
' "$tmp/out"
	ok $? "fake: -j qp show, all: JSON a script can read"
fi

run "${F[@]}" -- port show srdma0
expect "fake: port show" 0 "" \
"DEFAULT  CEILING  PORT    BURST  THROTTLES  THROTTLED_MS
none     10gbit   25gbit  65536         12             3"

run "${F[@]}" -- --json port show srdma0
expect "fake: -j port show" 0 "" \
'{"dev":"srdma0","default_kbps":0,"ceiling_kbps":10000000,"port_kbps":25000000,"burst_bytes":65536,"throttle_events":12,"throttled_ns":3999999}'

run "${F[@]}" -- qp show srdma0 99
expect "fake: no such QP, the kernel's message" 1 "srdma-rate: srdma0: no QP 99" ""
run "${F[@]}" -- qp show srdma1
expect "fake: dump of a missing device, strerror" 1 "srdma-rate: No such device" ""
run "${F[@]}" -- port show srdma1
expect "fake: port of a missing device, strerror" 1 "srdma-rate: No such device" ""

: > "$tmp/log"
run "${F[@]}" -- qp set srdma0 17 rate 1.5gbit burst 64k
expect "fake: qp set" 0 "" ""
run "${F[@]}" -- qp set srdma0 17 rate 0
expect "fake: qp set rate 0" 0 "" ""
run "${F[@]}" -- qp set srdma0 17 rate 30gbit
expect "fake: qp set refused, the kernel's message" 1 \
	"srdma-rate: rate above the port's ceiling (25gbit)" ""
run "${F[@]}" -- port set srdma0 ceiling 10gbit
expect "fake: port set" 0 "" ""
run "${F[@]}" -- port set srdma0 burst 1000 default 100
expect "fake: port set, the kernel's warning" 0 \
	"srdma-rate: warning: burst raised to one frame (1500 bytes)" ""
[ "$(cat "$tmp/log")" = "qp set qpn=17 rate=1500000 burst=65536
qp set qpn=17 rate=0 burst=-
port set default=- ceiling=10000000 burst=-
port set default=100 ceiling=- burst=1000" ]
ok $? "fake: what the set commands sent"
sed 's/^/# /' "$tmp/log"

echo "1..$n"
[ $failed = 0 ] || echo "# $failed of $n failed"
[ $failed = 0 ]
