// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Per-device counters of the data path, shown by `rdma statistic show` and
 * in /sys/class/infiniband/<dev>/ports/1/hw_counters/. Each CPU counts in
 * its own copy; a read sums them.
 */
#include <kunit/visibility.h>

#include "srdma.h"

static const struct rdma_stat_desc srdma_counter_descs[] = {
	[SRDMA_CNT_SENT_PKTS] = { .name = "sent_pkts" },
	[SRDMA_CNT_RCVD_PKTS] = { .name = "rcvd_pkts" },
	[SRDMA_CNT_RETRANSMITS] = { .name = "retransmits" },
	[SRDMA_CNT_TIMEOUTS] = { .name = "ack_timeouts" },
	[SRDMA_CNT_RNR_NAKS_RCVD] = { .name = "rnr_naks_rcvd" },
	[SRDMA_CNT_SEQ_NAKS_RCVD] = { .name = "seq_naks_rcvd" },
	[SRDMA_CNT_RNR_NAKS_SENT] = { .name = "rnr_naks_sent" },
	[SRDMA_CNT_SEQ_NAKS_SENT] = { .name = "seq_naks_sent" },
	[SRDMA_CNT_DUPLICATES] = { .name = "duplicate_pkts" },
	[SRDMA_CNT_XMIT_REFUSED] = { .name = "xmit_refused" },
	[SRDMA_CNT_DROP_BAD_HEADER] = { .name = "drop_bad_header" },
	[SRDMA_CNT_DROP_BAD_ICRC] = { .name = "drop_bad_icrc" },
	[SRDMA_CNT_DROP_NO_QP] = { .name = "drop_no_qp" },
	[SRDMA_CNT_DROP_QP_STATE] = { .name = "drop_qp_state" },
	[SRDMA_CNT_DROP_QUEUE_FULL] = { .name = "drop_queue_full" },
	[SRDMA_CNT_DROP_OUT_OF_SEQ] = { .name = "drop_out_of_sequence" },
	[SRDMA_CNT_REORDERED] = { .name = "reordered_pkts" },
	[SRDMA_CNT_DROP_BAD_QKEY] = { .name = "drop_bad_qkey" },
	[SRDMA_CNT_DROP_NO_RWQE] = { .name = "drop_no_recv_wqe" },
	[SRDMA_CNT_DROP_UC_MSG] = { .name = "drop_uc_msgs" },
	[SRDMA_CNT_DROP_UNSOLICITED] = { .name = "drop_unsolicited" },
	[SRDMA_CNT_DROP_TOO_LONG] = { .name = "drop_too_long" },
	[SRDMA_CNT_REMOTE_ERRORS] = { .name = "remote_errors" },
	[SRDMA_CNT_LOCAL_ERRORS] = { .name = "local_errors" },
	[SRDMA_CNT_RATE_THROTTLES] = { .name = "rate_throttles" },
	[SRDMA_CNT_RATE_THROTTLED_NS] = { .name = "rate_throttled_ns" },
	[SRDMA_CNT_RR_WAITS] = { .name = "rr_waits" },
	[SRDMA_CNT_PKT_NOMEM] = { .name = "pkt_nomem" },
	[SRDMA_CNT_ODP_FAULTS] = { .name = "odp_faults" },
	[SRDMA_CNT_ENGINE_RUNS_INLINE] = { .name = "engine_runs_inline" },
	[SRDMA_CNT_ENGINE_WORK_ITEMS] = { .name = "engine_work_items" },
	[SRDMA_CNT_LOCAL_ACKS] = { .name = "local_acks" },
	[SRDMA_CNT_TX_BATCHES] = { .name = "tx_batches" },
	[SRDMA_CNT_RX_BATCHES] = { .name = "rx_batches" },
};

struct rdma_hw_stats *srdma_alloc_hw_port_stats(struct ib_device *ib_dev,
						u32 port_num)
{
	BUILD_BUG_ON(ARRAY_SIZE(srdma_counter_descs) != SRDMA_NUM_COUNTERS);
	return rdma_alloc_hw_stats_struct(srdma_counter_descs,
					  SRDMA_NUM_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int srdma_get_hw_stats(struct ib_device *ib_dev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct srdma_dev *sdev = to_srdma_dev(ib_dev);
	int i;

	for (i = 0; i < SRDMA_NUM_COUNTERS; i++)
		stats->value[i] = srdma_counter_read(sdev, i);
	return SRDMA_NUM_COUNTERS;
}

/**
 * srdma_counter_read() - a device's count, summed over the CPUs
 * @sdev: the device
 * @c: the counter
 *
 * On 32-bit machines a CPU's share can be read torn while it counts.
 *
 * Return: the count.
 */
u64 srdma_counter_read(struct srdma_dev *sdev, enum srdma_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(sdev->counters, cpu)->value[c];
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(srdma_counter_read);
