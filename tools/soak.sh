#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make soak: the long and the reference runs that make check leaves out,
# through the same runner (tools/check.sh), results in results/soak:
#
#   - rc_timers and rc_loss on rdma_rxe too, after srdma, in the same boot
#     (rdma_rxe's rows are reported, never asserted: they say nothing about
#     srdma, and 6.1's rdma_rxe can crash under rc_loss's load);
#   - rc_loss's loss-free run again after the others (how much its
#     figures drift; make check runs it once);
#   - rc_timers with 5 repetitions of each row (make check: 2);
#   - rate_limit with 10 s runs (make check: 3 s);
#   - ring_scribble with 16000 iterations (make check: 4000).
#
#   tools/soak.sh [SCENARIO...]     default: the four above
set -uo pipefail

cd "$(dirname "$0")/.."
export SRDMA_GUEST_ENV="RC_TIMER_DRIVERS='srdma rxe' RC_LOSS_DRIVERS='srdma rxe' RC_LOSS_DRIFT=1 RC_TIMER_REPS=5 RATE_SECONDS=10 SCRIBBLE_ITERATIONS=16000"
[ $# -gt 0 ] || set -- rc_timers rc_loss rate_limit ring_scribble
exec tools/check.sh --results results/soak "$@"
