#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make demo: boot two VMs joined by a network, add an srdma device on each
# one's eth0 and show what a user sees.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
tools/deps.sh
make -s modules
exec tools/vm/run --results "$repo/results/demo" \
	--peer "bash tools/demo/guest.sh" -- bash tools/demo/guest.sh
