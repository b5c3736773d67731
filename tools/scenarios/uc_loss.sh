#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 400
# UC under packet loss (tests/uc_loss.c): srdma0 on veth0 sends to srdma1
# on veth1 in namespace peer, by SEND and by RDMA WRITE WITH IMMEDIATE,
# messages of four packets and of one. Loss-free, every message arrives,
# packets of one size in batches (tx_batches);
# with a queue of one packet on veth0 (netem delay 1ms limit 1), what the
# queue refuses is sent again (UC's batches among it): every message still
# arrives; with netem loss 5 % on veth0, the messages that lost a packet
# are dropped whole (counted in srdma1's drop_uc_msgs), the others arrive
# intact and in order, and once the netem is gone every message arrives
# again. Nothing is retransmitted and both QPs stay in RTS.
# SRDMA_REF=rxe is not offered: the point is srdma's own drop and count.
prog=$(dirname "$0")/../../tests/bin/uc_loss
. "$(dirname "$0")/lib.sh"

load_uverbs
srdma_pair

check "loss-free: every UC message arrives" \
	run_tap uc_loss_free "$prog" srdma0 srdma1
check "loss-free: no UC message dropped (drop_uc_msgs $(counter srdma1 drop_uc_msgs peer))" \
	test "$(counter srdma1 drop_uc_msgs peer)" = 0
# a SEND's four packets are one size: they go as one batch
check "loss-free: srdma0 sent UC packets in batches (tx_batches $(counter srdma0 tx_batches))" \
	test "$(counter srdma0 tx_batches)" -gt 0

# a queue of one packet: a WRITE's middle packets, a batch, come while its
# first is queued, and are refused; the requester sends them again
check "netem delay 1ms limit 1 on veth0" tc qdisc replace dev veth0 root netem delay 1ms limit 1
refused=$(counter srdma0 xmit_refused)
check "a full queue: every UC message arrives" \
	run_tap uc_loss_full "$prog" -c "tc qdisc del dev veth0 root" srdma0 srdma1
check "a full queue: srdma0's transmits were refused (xmit_refused $refused -> $(counter srdma0 xmit_refused))" \
	test "$(counter srdma0 xmit_refused)" -gt "$refused"

check "netem loss 5% on veth0" tc qdisc replace dev veth0 root netem loss 5%
check "loss 5%: messages that lost a packet are dropped whole, the next arrive" \
	run_tap uc_loss_5 "$prog" -l -c "tc qdisc del dev veth0 root" srdma0 srdma1
# a message that lost every packet never reached srdma1: it counts the
# others, at most as many as were lost
dropped=$(counter srdma1 drop_uc_msgs peer)
lost=$(sed -n 's/^# lost \([0-9]*\) messages$/\1/p' "$SRDMA_RESULTS/uc_loss_5.tap")
check "loss 5%: srdma1 counted the dropped messages (drop_uc_msgs $dropped, ${lost:-?} lost)" \
	test "${dropped:-0}" -gt 0 -a "${dropped:-0}" -le "${lost:-0}"
check "nothing retransmitted (srdma0 retransmits $(counter srdma0 retransmits))" \
	test "$(counter srdma0 retransmits)" = 0
echo "# srdma0: $(rdma statistic show link srdma0/1)"
echo "# srdma1: $(ip netns exec peer rdma statistic show link srdma1/1)"

check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
check "rdma link delete srdma0" rdma link delete srdma0
finish
