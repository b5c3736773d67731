#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Load the KUnit module; save each suite's KTAP results for the host to parse
# (tools/check.sh does, with the kernel tree's kunit.py).
. "$(dirname "$0")/lib.sh"

check "modprobe srdma_test (runs the suites)" modprobe srdma_test
mkdir -p "$SRDMA_RESULTS/kunit"
for d in /sys/kernel/debug/kunit/srdma_*; do
	[ -e "$d/results" ] && cp "$d/results" "$SRDMA_RESULTS/kunit/$(basename "$d").ktap"
done
check "KTAP results were saved" ls "$SRDMA_RESULTS"/kunit/srdma_psn.ktap
check "rmmod srdma_test srdma" rmmod srdma_test srdma
finish
