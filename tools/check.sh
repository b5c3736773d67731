#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make check: install what is missing, build the test kernel (cached) and the
# module, lint, run the KUnit suites and every scenario in tools/scenarios
# (one-VM scenarios batched in one boot each, below). Ends with the line
# "N passed, N failed"; exits 1 on any failure.
#
#   tools/check.sh [SCENARIO...]    only the named scenarios (and the builds)
#   tools/check.sh --vm-only [--results DIR] SCENARIO...
#                                   the scenarios only, with what is built
#                                   (tools/scenario builds, then runs this)
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$repo/results/check
vm_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--vm-only) vm_only=1; shift ;;
	--results) out=$2; shift 2 ;;
	*) break ;;
	esac
done
# the whole suite: both kernel lines, Debian's own kernels
whole=0
[ $vm_only = 1 ] || [ $# -gt 0 ] || whole=1
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
# start_test NAME LOG COMMAND...: one test, in the background, that passes
# when the command does; end_tests waits for them and prints the lines in
# the order the tests started
bg_tests=()
start_test() {
	local name=$1 log=$2 t=$SECONDS; shift 2
	{ "$@"; echo "$? $((SECONDS - t))" > "$log.status"; } > "$log" 2>&1 &
	bg_tests+=("$name|$log|$!")
}
end_tests() {
	local entry name log pid rc secs
	for entry in "${bg_tests[@]}"; do
		name=${entry%%|*} pid=${entry##*|}
		log=${entry#*|} log=${log%|*}
		wait "$pid"
		read -r rc secs < "$log.status"
		if [ "$rc" = 0 ]; then
			pass "$name (${secs}s)"
		else
			fail "$name (log: $log)"
			tail -n 30 "$log" | sed 's/^/      /'
		fi
	done
	bg_tests=()
}
# late_tests LOG COMMAND...: tests that no VM waits for (lints, the builds
# against Debian's headers), one after another at the lowest CPU priority:
# they take only what the guests leave of the two cores. Their PASS and FAIL
# lines go to LOG; end_late_tests counts and prints them.
late_pids=() late_logs=()
late_tests() {
	local log=$1; shift
	{ renice -n 19 -p $BASHPID > /dev/null; "$@"; } > "$log" 2>&1 &
	late_pids+=($!) late_logs+=("$log")
}
# as_test NAME LOG COMMAND...: the command as one test, output to LOG
as_test() {
	local name=$1 log=$2 t=$SECONDS; shift 2
	if "$@" > "$log" 2>&1; then
		echo "PASS  $name ($((SECONDS - t))s)"
	else
		echo "FAIL  $name (log: $log)"
		tail -n 30 "$log" | sed 's/^/      /'
	fi
}
wait_late_tests() {
	[ ${#late_pids[@]} = 0 ] || wait "${late_pids[@]}"
	late_pids=()
}
end_late_tests() {
	local log line
	wait_late_tests
	for log in "${late_logs[@]}"; do
		while IFS= read -r line; do
			case $line in
			PASS*) passed=$((passed + 1)); echo "$line" ;;
			FAIL*) failed=$((failed + 1)); echo "$line" ;;
			"      "*) echo "$line" ;;
			esac
		done < "$log"
	done
	late_logs=()
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
# The whole suite runs line2_scenarios on the 6.12 line's debug kernel too,
# with the modules built in a copy of the source (tree-6.12), each a test
# of its own ("6.12: ..."; Documentation/testing.md says why these).
line2=6.12
line2_scenarios=(kunit rc_verbs ud_uc bad_requests)
line2_tree=
if [ $whole = 1 ]; then
	echo "check: the $line2 line's test kernel (built once, then cached)"
	if kernel2=$(tools/kernel/build.sh debug $line2 2> "$out/kernel-$line2.log"); then
		line2_tree=$out/tree-$line2
	else
		tail -n 30 "$out/kernel-$line2.log"
		fail "$line2: build the test kernel (log: $out/kernel-$line2.log)"
	fi
fi
echo "check: kernels ready after $(( $(date +%s) - t0 ))s"

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
# copy_source DIR: the module's source, without the checkout's objects
copy_source() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -r Kbuild include drivers kunit "$1/"
	find "$1" -type f \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' -o -name '*.order' -o -name Module.symvers \) -delete
}
# build_tree KDIR DIR: the module and the KUnit module built against KDIR
# in DIR, a copy of the source (tools/vm/run --tree DIR gives them a guest)
build_tree() {
	copy_source "$2"
	make -C "$1" M="$2" W=1 modules &&
	readlink -f "$1" > "$2/.kdir"
}
# debian_headers LINE: the newest of Debian's headers of that kernel line
debian_headers() {
	ls -d /usr/src/linux-headers-"$1".*-amd64 | grep -v -e cloud -e rt | sort -V | tail -1
}
# build_copy KDIR MAKE_ARGS...: the module built against KDIR in a
# throw-away copy of the source (the checkout's objects are the guests')
build_copy() {
	local kdir=$1 tmp rc; shift
	tmp=$(mktemp -d)
	copy_source "$tmp"
	make -C "$kdir" M="$tmp" "$@" modules
	rc=$?
	rm -rf "$tmp"
	return $rc
}
# build_debian_headers LINE: the tree against them
build_debian_headers() {
	local hdr
	hdr=$(debian_headers "$1")
	[ -n "$hdr" ] || { echo "no linux-headers-$1.*-amd64"; return 1; }
	echo "building against $hdr"
	build_copy "$hdr" W=1
}
# build_package LINE: make deb, then the package's source (what DKMS
# builds) against Debian's headers of LINE
build_package() {
	local hdr src
	hdr=$(debian_headers "$1")
	[ -n "$hdr" ] || { echo "no linux-headers-$1.*-amd64"; return 1; }
	tools/deb/build.sh || return
	src=$(ls -d results/deb/root/usr/src/srdma-*)
	echo "building $src against $hdr"
	make -C "$hdr" M="$repo/$src" SRDMA_KUNIT=n W=1 modules
}
# srdma_compat.h is where the kernel-version checks live (and only there)
checkpatch() {
	local compat=drivers/infiniband/sw/srdma/srdma_compat.h
	find drivers include kunit tools tests -name '*.[ch]' -not -name '*.mod.c' \
		-not -path "$compat" -print0 |
		xargs -0 "$src/scripts/checkpatch.pl" --no-tree --strict \
			--ignore FILE_PATH_CHANGES -q -f &&
	"$src/scripts/checkpatch.pl" --no-tree --strict -q -f \
		--ignore FILE_PATH_CHANGES,LINUX_VERSION_CODE,CONSTANT_COMPARISON "$compat"
}

late_lint() {
	as_test "build: against Debian's 6.1 linux-headers (W=1, no warning)" \
		"$out/build-debian.log" no_warnings build_debian_headers 6.1
	as_test "lint: sparse (C=2, no warning)" "$out/sparse.log" \
		no_warnings build_copy "$kernel/build" C=2
	as_test "lint: checkpatch --strict" "$out/checkpatch.log" checkpatch
}
# one after the other: both make the package in results/deb
late_package() {
	as_test "build: make deb; its source (DKMS's) against Debian's 6.12 linux-headers (W=1, no warning)" \
		"$out/build-deb-6.12.log" no_warnings build_package 6.12
	[ $whole = 0 ] || tools/distro/test.sh --prepare
}

# builds_and_lint: each build and lint is one test. What the guests need
# is built first, all at once; the rest (lints, the builds against
# Debian's headers and Debian's kernels) are late tests, started by
# start_late_tests once the lanes have ended (the loop over the runs).
builds_and_lint() {
	start_test "build: against the test kernel (W=1, no warning)" "$out/build.log" \
		no_warnings build_test_kernel
	[ -z "$line2_tree" ] ||
		start_test "$line2: build: against the test kernel (W=1, no warning)" \
			"$out/build-$line2.log" no_warnings build_tree "$kernel2/build" "$line2_tree"
	# the guests run these from the host's read-only root
	start_test "build: userspace test programs (-Werror)" "$out/build-tests.log" \
		make -C tests
	start_test "build: tools/srdma-rate (-Werror)" "$out/build-srdma-rate.log" \
		make -C tools/srdma-rate
	end_tests
	# from the objects and the program built above
	start_test "lint: calls go one way between layers (tools/callgraph)" \
		"$out/callgraph.log" tools/callgraph
	start_test "tools/srdma-rate: host tests (units, netlink messages, the program)" \
		"$out/test-srdma-rate.log" make -C tools/srdma-rate test
	end_tests
	[ -e "$line2_tree/kunit/srdma_test.ko" ] || line2_tree=
	late_pending=1
}
late_pending=0
start_late_tests() {
	[ $late_pending = 1 ] || return 0
	late_pending=0
	late_tests "$out/late-lint.log" late_lint
	late_tests "$out/late-deb.log" late_package
}

[ $vm_only = 1 ] || builds_and_lint
if [ ! -e drivers/infiniband/sw/srdma/srdma.ko ]; then
	fail "srdma.ko was not built: no VM tests"
	summary
fi

# The scenarios. One-VM scenarios run in batches, several in one boot
# (tools/vm/guest-batch.sh: each still gets its own kernel log, taint and
# leftover checks); those whose headers ask for the same VM (kernel line,
# smp, kmemleak, alone) share a batch. SRDMA_BATCH=0 boots a VM per
# scenario. The 1-CPU batches run two at a time (SRDMA_LANES lanes): their
# scenarios mostly run one program after another, so a guest keeps about
# one core busy. A run that must have the host to itself runs after them,
# one at a time: a batch of 2-CPU guests (two such guests starve each
# other), the batch of two-VM scenarios (two 1-CPU guests, each running its
# side of every scenario: they keep both cores busy), with Debian's
# kernels' VM pairs beside the last of them (the whole suite), and last,
# once the late tests and the pairs are done, the scenarios that measure
# time (header "# alone: yes"), each in a VM of its own: those of one CPU
# one at a time (SRDMA_TIMED_LANES=2: the 1-CPU ones two at a time).
# Results are reported in the order of the scenarios
# (Documentation/testing.md, "Batches").
#
# A scenario is named NAME (on the default line, $SRDMA_KERNEL_LINE or 6.1)
# or NAME@LINE (the whole suite adds line2_scenarios at 6.12).
line0=${SRDMA_KERNEL_LINE:-6.1}
scenarios=("$@")
if [ ${#scenarios[@]} = 0 ]; then
	for f in tools/scenarios/*.sh; do
		[ "$(basename "$f")" = lib.sh ] || scenarios+=("$(basename "$f" .sh)")
	done
	[ -z "$line2_tree" ] || scenarios+=("${line2_scenarios[@]/%/@$line2}")
fi
declare -A tree_of=([$line2]=$line2_tree)
# the line of a scenario, and the prefix of its results' names
line_of() { if [[ $1 == *@* ]]; then echo "${1#*@}"; else echo "$line0"; fi; }
label_of() { [[ $1 != *@* ]] || echo "${1#*@}: "; }

declare -A batch_of=() batch_members=() batch_opts=() batch_timeout=() batch_line=() batch_two=()
runs_shared=() runs_alone=() runs_timed=() split=()
for id in "${scenarios[@]}"; do
	s=${id%@*} line=$(line_of "$id")
	f=tools/scenarios/$s.sh
	[ -e "$f" ] || continue
	readarray -t opts < <(tools/vm/scenario-opts "$f")
	limit=300 key= two=0 alone=0 timed=0
	for ((i = 0; i < ${#opts[@]}; i++)); do
		case ${opts[i]} in
		--timeout) limit=${opts[i + 1]} ;;
		--peer) two=1 alone=1 ;;
		--alone) timed=1 ;;
		--smp) [ "${opts[i + 1]}" = 1 ] || alone=1 ;;
		esac
	done
	if [ "${SRDMA_BATCH:-1}" = 0 ]; then
		key=$id
	else
		# two-VM scenarios too: run_vm gives the peer the batch
		readarray -t opts < <(printf "%s\n" "${opts[@]}" | sed -E "/^--peer$/,+1d")
		key="batch:$line $([ $two = 0 ] || echo "two ")$(printf "%s\n" "${opts[@]}" |
			sed -E "/^--timeout$/,+1d; /^$/d" | tr "\n" " ")"
		# a scenario that measures time has a VM of its own
		[ $timed = 0 ] || key+="$s"
	fi
	if [ -z "${batch_members[$key]:-}" ]; then
		if [ $timed = 1 ]; then
			runs_timed+=("$key")
		elif [ $alone = 1 ]; then
			runs_alone+=("$key")
		else
			runs_shared+=("$key")
		fi
		batch_opts[$key]=$(printf '%s\n' "${opts[@]}")
		batch_timeout[$key]=0
		batch_line[$key]=$line
		batch_two[$key]=$two
	fi
	batch_members[$key]+="$id:$limit "
	batch_timeout[$key]=$(( batch_timeout[$key] + limit ))
	batch_of[$id]=$key
done

# A shared batch longer than split_seconds (its scenarios' time limits
# summed; they are about proportional to the scenarios' times) is split
# into one batch per lane: the longest limit first, each into the part with
# the least so far, counting in each part the shorter batches that will
# share its lane. The shared batches then start longest first, each in the
# first lane free, so that the lanes end together.
split_seconds=1500
lanes=${SRDMA_LANES:-2}
declare -A lane_load=()
for ((l = 1; l <= lanes; l++)); do lane_load[$l]=0; done
least_loaded() {
	local l best=1
	for ((l = 2; l <= lanes; l++)); do
		[ "${lane_load[$l]}" -ge "${lane_load[$best]}" ] || best=$l
	done
	echo $best
}
for key in "${runs_shared[@]}"; do
	if [ "${batch_timeout[$key]}" -le $split_seconds ] || [ "$lanes" -lt 2 ]; then
		l=$(least_loaded)
		lane_load[$l]=$(( lane_load[$l] + batch_timeout[$key] ))
		split+=("$key")
	fi
done
for key in "${runs_shared[@]}"; do
	[ "${batch_timeout[$key]}" -gt $split_seconds ] && [ "$lanes" -ge 2 ] || continue
	for ((l = 1; l <= lanes; l++)); do
		part="$key#$l"
		split+=("$part")
		batch_members[$part]= batch_timeout[$part]=0
		batch_opts[$part]=${batch_opts[$key]}
		batch_line[$part]=${batch_line[$key]}
		batch_two[$part]=${batch_two[$key]}
	done
	for m in $(tr ' ' '\n' <<< "${batch_members[$key]}" | sort -t: -k2,2nr -s); do
		l=$(least_loaded)
		lane_load[$l]=$(( lane_load[$l] + ${m#*:} ))
		batch_members[$key#$l]+="$m "
		batch_timeout[$key#$l]=$(( batch_timeout[$key#$l] + ${m#*:} ))
		batch_of[${m%:*}]=$key#$l
	done
done
readarray -t runs_shared < <(for key in "${split[@]}"; do
	[ -n "${batch_members[$key]}" ] && printf '%s\t%s\n' "${batch_timeout[$key]}" "$key"
done | sort -t$'\t' -k1,1nr -s | cut -f2-)

# run_vm KEY INDEX: one run (a batch, or a two-VM scenario) in $out/run-INDEX
run_vm() {
	local key=$1 dir=$out/run-$2 opts members line=${batch_line[$1]}
	# --alone is for the scheduling above, not for the runner
	readarray -t opts < <(grep -vx -- --alone <<< "${batch_opts[$key]}")
	[ -n "${opts[0]:-}" ] || opts=()
	opts+=(--kernel "$line")
	[ -z "${tree_of[$line]:-}" ] || opts+=(--tree "${tree_of[$line]}")
	# the guest runs the scenarios by name
	read -ra members <<< "${batch_members[$key]//@$line:/:}"
	if [[ $key == batch:* ]]; then
		# the guest enforces each scenario's limit, the VM's is their
		# sum; with --kmemleak the VM scans once the batch ended
		readarray -t opts < <(printf '%s\n' "${opts[@]}" | sed -E '/^--timeout$/,+1d; /^$/d')
		[ "${batch_two[$key]}" = 0 ] ||
			opts+=(--peer "${guest_env}bash tools/vm/guest-batch.sh ${members[*]}")
		tools/vm/run --results "$dir" --quiet \
			--timeout $(( batch_timeout[$key] + 60 )) "${opts[@]}" \
			-- "${guest_env}bash tools/vm/guest-batch.sh ${members[*]}" > "$dir.log" 2>&1
	else
		# the peer's command too
		for ((i = 0; i < ${#opts[@]}; i++)); do
			[ "${opts[i]}" = --peer ] && opts[i + 1]="$guest_env${opts[i + 1]}"
		done
		tools/vm/run --results "$dir" --quiet "${opts[@]}" \
			-- "${guest_env}bash tools/scenarios/${key%@*}.sh" > "$dir.log" 2>&1
	fi
}
# SRDMA_GUEST_ENV: shell words (VAR=value ...) set for the scenarios in the
# guests; make soak sets the scenarios' long settings through it
guest_env=${SRDMA_GUEST_ENV:+env $SRDMA_GUEST_ENV }
# the two-VM batch first: the late tests start beside it
readarray -t runs_alone < <(for key in "${runs_alone[@]}"; do
	printf '%s\t%s\n' "${batch_two[$key]}" "$key"
done | sort -t$'\t' -k1,1nr -s | cut -f2-)
runs=("${runs_shared[@]}" "${runs_alone[@]}" "${runs_timed[@]}")
echo "check: ${#scenarios[@]} scenarios in ${#runs[@]} VM runs, ${#runs_shared[@]} of them $lanes at a time"
declare -A run_index=()
running=() distro_pid=
# in_lane KEY INDEX WHAT: start the run once one of the lanes is free
in_lane() {
	if [ ${#running[@]} -ge "$lanes" ]; then
		wait -n -p ended "${running[@]}"
		for i in "${!running[@]}"; do
			[ "${running[i]}" != "$ended" ] || unset 'running[i]'
		done
	fi
	echo "check: run $2: $3"
	run_vm "$1" "$2" &
	running+=($!)
}
first_timed=$(( ${#runs_shared[@]} + ${#runs_alone[@]} ))
for ((r = 0; r < ${#runs[@]}; r++)); do
	key=${runs[r]}
	run_index[$key]=$r
	what="${batch_line[$key]}: ${batch_members[$key]//@${batch_line[$key]}:/:}"
	if [ $r -lt ${#runs_shared[@]} ]; then
		in_lane "$key" $r "$what"
		continue
	fi
	# a timed run of one CPU shares the host with one other such run only,
	# if SRDMA_TIMED_LANES is 2 (Documentation/testing.md, "Batches")
	timed_lane=0
	[ "${SRDMA_TIMED_LANES:-1}" -ge 2 ] && [ $r -ge $first_timed ] &&
		[[ $'\n'${batch_opts[$key]}$'\n' == *$'\n--smp\n1\n'* ]] && timed_lane=1
	if { [ $timed_lane = 0 ] || [ $r = $first_timed ]; } && [ ${#running[@]} -gt 0 ]; then
		wait "${running[@]}"
		running=()
	fi
	start_late_tests
	# Debian's kernels' VM pairs beside the last of these runs (the
	# 6.12 line's 2-CPU batch): each keeps about half the host busy
	if [ $whole = 1 ] && [ $r = $(( ${#runs_shared[@]} + ${#runs_alone[@]} - 1 )) ]; then
		echo "check: Debian's kernels' VM pairs beside run $r"
		wait_late_tests
		tools/distro/test.sh --run > "$out/distro-run.log" 2>&1 &
		distro_pid=$!
	fi
	if [ $r = $first_timed ]; then
		echo "check: waiting for the late tests (a quiet host for the timed runs)"
		wait_late_tests
		[ -z "$distro_pid" ] || wait "$distro_pid"
		distro_pid=
	fi
	if [ $timed_lane = 1 ]; then
		in_lane "$key" $r "$what (timed, one CPU)"
		continue
	fi
	echo "check: run $r (alone): $what"
	run_vm "$key" "$r"
done
[ ${#running[@]} = 0 ] || wait "${running[@]}"
start_late_tests

# scenario_result ID: fails, printing why, unless the scenario passed
scenario_result() {
	local s=${1%@*} key=${batch_of[$1]} dir bad=0
	dir=$out/run-${run_index[$key]}
	if [[ $key != batch:* ]]; then
		grep -q '^vm/run: ok in' "$dir.log" && return 0
		grep -h '^vm/' "$dir.log"
		return 1
	fi
	local vm sd hosts=a
	[ "${batch_two[$key]}" = 0 ] || hosts="a b"
	for vm in $hosts; do
		sd=$dir/$vm/$s
		if [ ! -e "$sd/exit-status" ]; then
			echo "host $vm: not run to its end: the VM died or timed out (see $dir.log, $dir/$vm/console.log)"
			# with the verdict's report lines: CI's logs are gone later
			grep -h -E '^(vm/|    )' "$dir.log" | sed 's/^/  /'
			bad=1
			continue
		fi
		if [ "$(cat "$sd/exit-status")" != 0 ]; then
			echo "host $vm: exit status $(cat "$sd/exit-status")$([ "$(cat "$sd/exit-status")" = 137 ] && echo ": killed at its time limit")"
			bad=1
		fi
		if [ -s "$sd/left-behind" ]; then
			sed "s/^/host $vm: left behind: /" "$sd/left-behind"
			bad=1
		fi
		tools/vm/verdict "$sd" "$s" || bad=1
	done
	return $bad
}
# scenario_output ID: the scenario's own output files
scenario_output() {
	local key=${batch_of[$1]} dir
	dir=$out/run-${run_index[$key]}
	if [[ $key == batch:* ]]; then
		ls "$dir"/[ab]/"${1%@*}"/output.log 2> /dev/null
	else
		ls "$dir"/[ab]/output.log 2> /dev/null
	fi
}
scenario_seconds() {
	local key=${batch_of[$1]} dir
	dir=$out/run-${run_index[$key]}
	if [[ $key == batch:* ]]; then
		cat "$dir/a/${1%@*}/seconds" 2> /dev/null
	else
		grep -oE 'ok in [0-9.]+s' "$dir.log" | cut -d' ' -f3 | tr -d s
	fi
}
# kunit_results ID: each KUnit case of the kunit scenario counts as a test
kunit_results() {
	local label kdir rdir ran ok missing
	label=$(label_of "$1")
	kdir=$(dirname "$(scenario_output "$1" | head -n 1)")
	rdir=$out/kunit-$(line_of "$1")
	mkdir -p "$rdir"
	SRDMA_TREE=${tree_of[$(line_of "$1")]:-$repo} tools/kunit/report "$kdir/kunit.log" "$rdir" \
		${SRDMA_KUNIT_GLOB:+"$SRDMA_KUNIT_GLOB"} > "$rdir/report.log" 2>&1
	sed 's/^/      /' "$rdir/report.log" | grep -v 'kunit: ran '
	read -r ran ok missing < <(sed -nE 's/^kunit: ran ([0-9]+) passed ([0-9]+) missing ([0-9]+)$/\1 \2 \3/p' \
		"$rdir/report.log")
	if [ -z "${ran:-}" ]; then
		fail "${label}kunit: no results (log: $rdir/report.log)"
		return
	fi
	passed=$((passed + ok))
	if [ "$ok" != "$ran" ]; then
		failed=$((failed + ran - ok))
		echo "FAIL  ${label}kunit: $((ran - ok)) of $ran cases failed"
	fi
	[ "$missing" = 0 ] || fail "${label}kunit: $missing suites of srdma_test.ko did not report"
	! grep -q 'not parsed cleanly' "$rdir/report.log" ||
		fail "${label}kunit: kunit.py found errors in the KTAP (log: $rdir/kunit-parse.log)"
}

for id in "${scenarios[@]}"; do
	label=$(label_of "$id")
	if [ ! -e "tools/scenarios/${id%@*}.sh" ]; then
		fail "scenario $id: no such file"
		continue
	fi
	if why=$(scenario_result "$id" 2>&1); then
		pass "${label}vm: ${id%@*} ($(scenario_seconds "$id")s)"
	else
		fail "${label}vm: ${id%@*} (log: $(scenario_output "$id" | head -n 1))"
		# what failed first (each "not ok" with its diagnostics), the
		# verdict, then the output's end
		{
			for o in $(scenario_output "$id"); do
				grep -A 6 -E '^not ok ' "$o" | head -n 40
			done
			echo "$why" | head -n 110
			echo "(end of the output:)"
			for o in $(scenario_output "$id"); do
				grep -vE '^ok ' "$o" | tail -n 15
			done
		} | sed 's/^/      /'
	fi
	# after the last scenario of a batch booted with kmemleak: its scan
	key=${batch_of[$id]}
	names=$(sed -E 's/(@[0-9.]+)?:[0-9]+//g; s/ $//' <<< "${batch_members[$key]}")
	if [[ $key == batch:*--kmemleak* ]] && [ "${id%@*}" = "${names##* }" ]; then
		# the scan alone: the VM's logs and taint are the scenarios'
		kdir=$out/run-${run_index[$key]}/kmemleak
		mkdir -p "$kdir"
		cp "$out/run-${run_index[$key]}/a/kmemleak.txt" "$kdir/" 2> /dev/null
		if [ -e "$kdir/kmemleak.txt" ] && why=$(tools/vm/verdict "$kdir" kmemleak 2>&1); then
			pass "${label}vm: kmemleak: nothing of srdma leaked in $names"
		else
			fail "${label}vm: kmemleak after $names (log: $kdir/kmemleak.txt)"
			echo "${why:-no scan: the batch did not end}" | sed 's/^/      /'
		fi
	fi
	[ "${id%@*}" != kunit ] || kunit_results "$id"
done

# The late tests, then Debian's own 6.1 and 6.12 kernels running srdma
# from the srdma-dkms package's source (Documentation/kernels.md), with the
# whole suite only: their builds were late tests, their VM pairs ran
# beside the last 2-CPU batch
end_late_tests
if [ $whole = 1 ]; then
	distro_tests=0
	[ -z "$distro_pid" ] || wait "$distro_pid"
	while IFS= read -r line; do
		echo "$line"
		case $line in
		PASS*) passed=$((passed + 1)) distro_tests=$((distro_tests + 1)) ;;
		FAIL*) failed=$((failed + 1)) distro_tests=$((distro_tests + 1)) ;;
		esac
	done < <(grep -E '^(PASS|FAIL|      )' "$out/distro-run.log" 2> /dev/null)
	[ $distro_tests -gt 0 ] || fail "distro: tools/distro/test.sh --run gave no result (log: $out/distro-run.log)"
fi
summary
