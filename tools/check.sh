#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make check: install what is missing, build the test kernel (cached) and the
# module, lint, run the KUnit suites and every scenario in tools/scenarios in
# its own VM. Ends with the line "N passed, N failed"; exits 1 on any failure.
#
#   tools/check.sh [SCENARIO...]    only the named scenarios (and the builds)
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$repo/results/check
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0
t0=$(date +%s)

pass() { passed=$((passed + 1)); echo "PASS  $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
summary() {
	echo "check: done in $(( $(date +%s) - t0 ))s; logs in $out"
	echo "$passed passed, $failed failed"
	[ $failed = 0 ]
	exit
}
# run_test NAME LOG COMMAND...: one test that passes when the command does
run_test() {
	local name=$1 log=$2 t=$SECONDS; shift 2
	if "$@" > "$log" 2>&1; then
		pass "$name ($((SECONDS - t))s)"
	else
		fail "$name (log: $log)"
		tail -n 30 "$log" | sed 's/^/      /'
	fi
}

echo "check: packages"
if ! tools/deps.sh > "$out/deps.log" 2>&1; then
	fail "install Debian packages (log: $out/deps.log)"
	summary
fi
echo "check: test kernel (built once, then cached)"
if ! kernel=$(tools/kernel/build.sh debug 2> "$out/kernel.log"); then
	tail -n 30 "$out/kernel.log"
	fail "build the test kernel (log: $out/kernel.log)"
	summary
fi
src=$(readlink -f "$kernel/build/source")
echo "check: kernel ready after $(( $(date +%s) - t0 ))s"

# A build passes when it succeeds without a single warning.
no_warnings() {
	local output rc
	output=$("$@" 2>&1)
	rc=$?
	echo "$output"
	[ $rc = 0 ] && ! grep -qE 'warning:|error:' <<< "$output"
}
build_test_kernel() {
	make -s clean > /dev/null
	make W=1 KDIR="$kernel/build" modules
}
build_debian_headers() {
	local hdr tmp
	hdr=$(ls -d /usr/src/linux-headers-6.1.*-amd64 | grep -v -e cloud -e rt | sort -V | tail -1)
	[ -n "$hdr" ] || { echo "no linux-headers-6.1.*-amd64"; return 1; }
	echo "building against $hdr"
	tmp=$(mktemp -d)
	cp -r Kbuild include drivers kunit "$tmp/"
	make -C "$hdr" M="$tmp" W=1 modules
	local rc=$?
	rm -rf "$tmp"
	return $rc
}
sparse_check() {
	make C=2 KDIR="$kernel/build" modules
}
checkpatch() {
	find drivers include kunit tools tests -name '*.[ch]' -not -name '*.mod.c' -print0 |
		xargs -0 "$src/scripts/checkpatch.pl" --no-tree --strict \
			--ignore FILE_PATH_CHANGES -q -f
}

run_test "build: against Debian's linux-headers (W=1, no warning)" "$out/build-debian.log" \
	no_warnings build_debian_headers
run_test "build: against the test kernel (W=1, no warning)" "$out/build.log" \
	no_warnings build_test_kernel
run_test "lint: sparse (C=2, no warning)" "$out/sparse.log" \
	no_warnings sparse_check
run_test "lint: checkpatch --strict" "$out/checkpatch.log" checkpatch
# the guests run these from the host's read-only root
run_test "build: userspace test programs (-Werror)" "$out/build-tests.log" \
	make -C tests
run_test "build: tools/srdma-rate (-Werror)" "$out/build-srdma-rate.log" \
	make -C tools/srdma-rate
run_test "tools/srdma-rate: host tests (units, netlink messages, the program)" \
	"$out/test-srdma-rate.log" make -C tools/srdma-rate test

if [ ! -e drivers/infiniband/sw/srdma/srdma.ko ]; then
	fail "srdma.ko was not built: no VM tests"
	summary
fi

# 6.1 prints the suites of a loaded module without the top-level KTAP
# header: strip the timestamps, keep what follows the first suite and put the
# header (one entry per suite) in front.
ktap_of_module_log() {
	local body
	body=$(sed -E 's/^\[ *[0-9.]+\] //' "$1" | sed -n '/^    KTAP version 1$/,$p')
	echo "KTAP version 1"
	echo "1..$(grep -c '^    # Subtest: ' <<< "$body")"
	echo "$body"
}

# The scenarios, each in a fresh VM, SRDMA_JOBS (default 1: TCG guests starve each other) at
# a time; results are reported in order.
scenarios=("$@")
if [ ${#scenarios[@]} = 0 ]; then
	for f in tools/scenarios/*.sh; do
		[ "$(basename "$f")" = lib.sh ] || scenarios+=("$(basename "$f" .sh)")
	done
fi
run_scenario() {
	local s=$1 f=tools/scenarios/$1.sh peer=() limit smp
	head -3 "$f" | grep -q '^# topology: two' && peer=(--peer "bash $f")
	# "# timeout: SECONDS" in the first 5 lines: a longer VM time limit
	limit=$(head -5 "$f" | sed -n 's/^# timeout: \([0-9][0-9]*\)$/--timeout \1/p')
	# "# smp: N": the VM's CPUs (when the scenario's point needs that many)
	smp=$(head -5 "$f" | sed -n 's/^# smp: \([0-9][0-9]*\)$/--smp \1/p')
	# shellcheck disable=SC2086 # $limit and $smp are empty or two words
	if tools/vm/run --results "$out/$s" $limit $smp "${peer[@]}" -- bash "$f" > "$out/$s.log" 2>&1; then
		echo ok > "$out/$s.status"
	else
		echo failed > "$out/$s.status"
	fi
}
jobs_max=${SRDMA_JOBS:-1}
for s in "${scenarios[@]}"; do
	[ -e "tools/scenarios/$s.sh" ] || continue
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	run_scenario "$s" &
done
wait
for s in "${scenarios[@]}"; do
	if [ ! -e "tools/scenarios/$s.sh" ]; then
		fail "scenario $s: no such file"
		continue
	fi
	if [ "$(cat "$out/$s.status" 2>/dev/null)" = ok ]; then
		pass "vm: $s ($(grep -oE 'ok in [0-9.]+s' "$out/$s.log" | cut -d' ' -f3))"
	else
		fail "vm: $s (log: $out/$s.log)"
		# what failed first (each "not ok" with its diagnostics, the
		# runner's verdict and any kernel report), then the log's end
		{
			grep -A 6 -E '^not ok ' "$out/$s.log" | head -n 40
			grep -A 20 -E '^vm/run: ' "$out/$s.log" | head -n 30
			echo "(end of the log:)"
			grep -vE '^ok ' "$out/$s.log" | tail -n 15
		} | sed 's/^/      /'
	fi
	[ "$s" = kunit ] || continue

	# Each KUnit case counts as a test.
	ktap_of_module_log "$out/kunit/a/kunit.log" > "$out/kunit.ktap"
	python3 "$src/tools/testing/kunit/kunit.py" parse "$out/kunit.ktap" \
		> "$out/kunit-parse.log" 2>&1
	line=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$out/kunit-parse.log" | tail -1)
	ran=$(sed -nE 's/.*Ran ([0-9]+) tests.*/\1/p' <<< "$line")
	ok=$(sed -nE 's/.*passed: ([0-9]+).*/\1/p' <<< "$line")
	if [ -z "$ran" ] || [ -z "$ok" ] || grep -q 'errors:' <<< "$line"; then
		fail "kunit: results not parsed cleanly (log: $out/kunit-parse.log)"
		continue
	fi
	echo "      kunit: $line"
	walked=$(grep -o 'walked [0-9]* combinations' "$out/kunit/a/kunit.log" |
		awk '{ n += $2 } END { print n + 0 }')
	echo "      kunit: QP transition table: $walked (type, state, state, attribute) combinations walked"
	passed=$((passed + ok))
	if [ "$ok" != "$ran" ]; then
		failed=$((failed + ran - ok))
		echo "FAIL  kunit: $((ran - ok)) of $ran cases failed"
		grep -E 'FAILED|Expected|not ok' "$out/kunit-parse.log" | head -30 | sed 's/^/      /'
	fi
done
summary
