/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Tracepoints of srdma (trace system "srdma"): what a QP sends and
 * receives, its state, the decisions of its timers, of its recovery from
 * losses and of its pacing. They cost a
 * static branch while disabled; Documentation/transport.md shows how to
 * read them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM srdma

#if !defined(_SRDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SRDMA_TRACE_H

#include <linux/tracepoint.h>

#include "srdma.h"

/* a packet of a QP, at its BTH */
DECLARE_EVENT_CLASS(srdma_pkt_class,
		    TP_PROTO(u32 qpn, const struct srdma_bth *bth, u32 bytes),
		    TP_ARGS(qpn, bth, bytes),
		    TP_STRUCT__entry(__field(u32, qpn)
				     __field(u32, psn)
				     __field(u32, bytes)
				     __field(u8, opcode)
				     __field(bool, ackreq)),
		    TP_fast_assign(__entry->qpn = qpn;
				   __entry->psn = srdma_bth_psn(bth);
				   __entry->bytes = bytes;
				   __entry->opcode = bth->opcode;
				   __entry->ackreq = srdma_bth_ackreq(bth);),
		    TP_printk("qp %u opcode 0x%02x psn %u%s bytes %u",
			      __entry->qpn, __entry->opcode, __entry->psn,
			      __entry->ackreq ? " ackreq" : "",
			      __entry->bytes)
);

/* sent by QP qpn: Ethernet frame bytes */
DEFINE_EVENT(srdma_pkt_class, srdma_xmit,
	     TP_PROTO(u32 qpn, const struct srdma_bth *bth, u32 bytes),
	     TP_ARGS(qpn, bth, bytes));

/* received for QP qpn, checked, queued for its engine: BTH to ICRC bytes */
DEFINE_EVENT(srdma_pkt_class, srdma_recv,
	     TP_PROTO(u32 qpn, const struct srdma_bth *bth, u32 bytes),
	     TP_ARGS(qpn, bth, bytes));

/*
 * go back N: from comp_psn, up to psn_end; after an ACK timeout or not;
 * the congestion window it leaves
 */
TRACE_EVENT(srdma_go_back,
	    TP_PROTO(u32 qpn, u32 comp_psn, u32 psn_end, bool timeout,
		     u32 retry_left, u32 cwnd),
	    TP_ARGS(qpn, comp_psn, psn_end, timeout, retry_left, cwnd),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, comp_psn)
			     __field(u32, psn_end)
			     __field(u32, retry_left)
			     __field(u32, cwnd)
			     __field(bool, timeout)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->comp_psn = comp_psn;
			   __entry->psn_end = psn_end;
			   __entry->retry_left = retry_left;
			   __entry->cwnd = cwnd;
			   __entry->timeout = timeout;),
	    TP_printk("qp %u from psn %u to %u%s retries left %u window %u",
		      __entry->qpn, __entry->comp_psn, __entry->psn_end,
		      __entry->timeout ? " (ACK timeout)" : "",
		      __entry->retry_left, __entry->cwnd)
);

/* the enums' values, for the tools that read the binary trace */
TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);
TRACE_DEFINE_ENUM(SRDMA_COMP_STEADY);
TRACE_DEFINE_ENUM(SRDMA_COMP_REWOUND);
TRACE_DEFINE_ENUM(SRDMA_COMP_PROBING);
TRACE_DEFINE_ENUM(SRDMA_COMP_RNR_WAIT);

#define srdma_show_qp_state(state)					\
	__print_symbolic(state, { IB_QPS_RESET, "RESET" },		\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

#define srdma_show_comp_recovery(recovery)				\
	__print_symbolic(recovery, { SRDMA_COMP_STEADY, "steady" },	\
			 { SRDMA_COMP_REWOUND, "rewound" },		\
			 { SRDMA_COMP_PROBING, "probing" },		\
			 { SRDMA_COMP_RNR_WAIT, "rnr_wait" })

/* a QP moved from one state to another (modify_qp, or an error) */
TRACE_EVENT(srdma_qp_state,
	    TP_PROTO(u32 qpn, enum ib_qp_state from, enum ib_qp_state to),
	    TP_ARGS(qpn, from, to),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u8, from)
			     __field(u8, to)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->from = from;
			   __entry->to = to;),
	    TP_printk("qp %u %s -> %s", __entry->qpn,
		      srdma_show_qp_state(__entry->from),
		      srdma_show_qp_state(__entry->to))
);

/* the completer's recovery from losses changed, at its oldest PSN not ACKed */
TRACE_EVENT(srdma_comp_recovery,
	    TP_PROTO(u32 qpn, u8 from, u8 to, u32 comp_psn),
	    TP_ARGS(qpn, from, to, comp_psn),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, comp_psn)
			     __field(u8, from)
			     __field(u8, to)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->comp_psn = comp_psn;
			   __entry->from = from;
			   __entry->to = to;),
	    TP_printk("qp %u psn %u %s -> %s", __entry->qpn, __entry->comp_psn,
		      srdma_show_comp_recovery(__entry->from),
		      srdma_show_comp_recovery(__entry->to))
);

/* out of tokens: they return in wait_ns, the QP sleeps sleep_ns */
TRACE_EVENT(srdma_throttle,
	    TP_PROTO(u32 qpn, u64 wait_ns, u64 sleep_ns),
	    TP_ARGS(qpn, wait_ns, sleep_ns),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u64, wait_ns)
			     __field(u64, sleep_ns)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->wait_ns = wait_ns;
			   __entry->sleep_ns = sleep_ns;),
	    TP_printk("qp %u tokens in %llu ns, sleeps %llu ns",
		      __entry->qpn, __entry->wait_ns, __entry->sleep_ns)
);

/* used its quantum while others send: waits for the next round */
TRACE_EVENT(srdma_rr_wait,
	    TP_PROTO(u32 qpn, u32 nr_active),
	    TP_ARGS(qpn, nr_active),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, nr_active)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->nr_active = nr_active;),
	    TP_printk("qp %u waits, %u QPs in the round", __entry->qpn,
		      __entry->nr_active)
);

#endif /* _SRDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE srdma_trace
#include <trace/define_trace.h>
