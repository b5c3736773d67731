#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# srdma on Debian's own kernels, not the project's test kernel (make check
# runs it, make distro-test alone). For each kernel line (default: 6.1 and
# 6.12), the newest of
# Debian's amd64 kernels of that line is installed with its headers (from
# Debian's archive, if missing), srdma.ko is built from the srdma-dkms
# package's source (make deb) against those headers with the command
# dkms.conf gives DKMS, and two VMs of that kernel run tools/distro/pair.sh.
# On a kernel of 6.2 or later (whose rdma_rxe has ATOMIC_WRITE), two more
# VMs run tools/distro/rxe_interop.sh: srdma against that kernel's rdma_rxe,
# both ways.
# Ends with "N passed, N failed". What it adds to the scenarios is the
# kernels' own configuration (FORTIFY_SOURCE and the rest of Debian's
# hardening, module signing) and 6.12's RDMA core; a stock kernel boots
# and runs it in seconds, where the debug test kernel takes minutes.
#
#   tools/distro/test.sh [--prepare|--run] [LINE...]
#
# Results in results/distro/. --prepare does the packages and the builds
# only, --run the VMs only, with what --prepare built (make check runs the
# builds in the background while the scenarios run).
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=$repo/results/distro
passed=0 failed=0
mode=all
case ${1:-} in
--prepare|--run) mode=${1#--}; shift ;;
esac
lines=("$@")
[ ${#lines[@]} -gt 0 ] || lines=(6.1 6.12)

# newest_release LINE: the newest Debian amd64 kernel release of LINE in
# the archive (6.1.0-NN-amd64, 6.12.NN+deb12-amd64)
newest_release() {
	apt-cache search --names-only "^linux-headers-$1[.-].*-amd64\$" |
		awk '{ print $1 }' | grep -v -e cloud -e rt -e common |
		sed 's/^linux-headers-//' | sort -V | tail -n 1
}

# stock_pair RELEASE MODULE SCRIPT NAME TIMEOUT WHAT: two VMs of the kernel
# RELEASE with MODULE run SCRIPT; one test, its results in $out/RELEASE/NAME
stock_pair() {
	local log=$out/$1/$4
	if tools/vm/run --stock "$1" --module "$2" --smp 1 --timeout "$5" \
		--results "$log" --quiet --peer "bash $3" -- bash "$3" > "$log.log" 2>&1; then
		echo "PASS  $1: $6"
		passed=$((passed + 1))
	else
		echo "FAIL  $1: $6 (log: $log.log)"
		grep -h '^not ok\|^vm/' "$log.log" | head -n 20 | sed 's/^/      /'
		failed=$((failed + 1))
	fi
}

# prepare LINE: the newest Debian kernel of LINE and its headers installed,
# srdma built from the package's source as DKMS builds it; marks
# $out/RELEASE/built
prepare() {
	local release log pkgs=() kernel_source_dir
	release=$(newest_release "$1")
	if [ -z "$release" ]; then
		echo "FAIL  $1: no Debian kernel of that line in the archive"
		failed=$((failed + 1))
		return
	fi
	log=$out/$release
	mkdir -p "$log"
	[ -e "/boot/vmlinuz-$release" ] || pkgs+=("linux-image-$release-unsigned")
	[ -d "/usr/src/linux-headers-$release" ] || pkgs+=("linux-headers-$release")
	if [ ${#pkgs[@]} -gt 0 ] &&
	   ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${pkgs[@]}" > "$log/apt.log" 2>&1; then
		echo "FAIL  $release: installing ${pkgs[*]} (log: $log/apt.log)"
		failed=$((failed + 1))
		return
	fi
	# as DKMS builds it (dkms.conf's MAKE), in a copy of the package's tree
	rm -rf "$log/src"
	cp -r "$src" "$log/src"
	kernel_source_dir=/lib/modules/$release/build
	if (cd "$log/src" && eval "${make_cmd//\$\{kernel_source_dir\}/$kernel_source_dir}") \
		> "$log/build.log" 2>&1; then
		echo "PASS  $release: srdma-dkms's source builds"
		passed=$((passed + 1))
		touch "$log/built"
	else
		echo "FAIL  $release: srdma-dkms's source does not build (log: $log/build.log)"
		failed=$((failed + 1))
	fi
}

# run LINE: the VM pairs of LINE's kernel, if prepare built srdma for it
run() {
	local release log module
	release=$(newest_release "$1")
	log=$out/$release
	[ -n "$release" ] && [ -e "$log/built" ] || return
	module=$log/src/drivers/infiniband/sw/srdma/srdma.ko
	stock_pair "$release" "$module" tools/distro/pair.sh vm 900 \
		"two VMs, RC tools between them, no kernel report"
	[ "$(printf '%s\n' 6.2 "$release" | sort -V | head -n 1)" = 6.2 ] || return
	stock_pair "$release" "$module" tools/distro/rxe_interop.sh rxe_interop 600 \
		"srdma and this kernel's rdma_rxe, both ways: RC tools, ATOMIC_WRITE, FLUSH and memory windows"
}

if [ "$mode" != run ]; then
	rm -rf "$out"
	mkdir -p "$out"
	tools/deps.sh > "$out/deps.log" 2>&1 ||
		{ echo "FAIL  distro: installing packages (log: $out/deps.log)"; exit 1; }
	make deb > "$out/deb.log" 2>&1 ||
		{ echo "FAIL  distro: make deb (log: $out/deb.log)"; exit 1; }
	make -C tests > "$out/tests.log" 2>&1 ||
		{ echo "FAIL  distro: make -C tests (log: $out/tests.log)"; exit 1; }
	src=$(ls -d results/deb/root/usr/src/srdma-*)
	make_cmd=$(sed -n 's/^MAKE\[0\]="\(.*\)"$/\1/p' dkms.conf)
	for line in "${lines[@]}"; do
		prepare "$line"
	done
fi
if [ "$mode" != prepare ]; then
	for line in "${lines[@]}"; do
		run "$line"
	done
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
