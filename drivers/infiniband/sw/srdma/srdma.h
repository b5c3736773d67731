/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * srdma: a software RDMA device over any Ethernet netdev (RoCEv2).
 *
 * Device, port and object definitions, and the functions that the device,
 * verbs and object files call. Limits and tuning are in srdma_params.h; what
 * only the engines and the layers below them share is in srdma_engine.h.
 */
#ifndef SRDMA_H
#define SRDMA_H

#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <srdma/range.h>

#include "srdma_compat.h"
#include "srdma_params.h"
#include "srdma_hdr.h"
#include "srdma_queue.h"
#include "srdma_rate.h"

/* what srdma counts per device (srdma_counters.c names them) */
enum srdma_counter {
	SRDMA_CNT_SENT_PKTS,
	SRDMA_CNT_RCVD_PKTS,
	SRDMA_CNT_RETRANSMITS,
	SRDMA_CNT_TIMEOUTS,
	SRDMA_CNT_RNR_NAKS_RCVD,
	SRDMA_CNT_SEQ_NAKS_RCVD,
	SRDMA_CNT_RNR_NAKS_SENT,
	SRDMA_CNT_SEQ_NAKS_SENT,
	SRDMA_CNT_DUPLICATES,
	SRDMA_CNT_XMIT_REFUSED,
	SRDMA_CNT_DROP_BAD_HEADER,
	SRDMA_CNT_DROP_BAD_ICRC,
	SRDMA_CNT_DROP_NO_QP,
	SRDMA_CNT_DROP_QP_STATE,
	SRDMA_CNT_DROP_QUEUE_FULL,
	SRDMA_CNT_DROP_OUT_OF_SEQ,
	SRDMA_CNT_REORDERED,
	SRDMA_CNT_DROP_BAD_QKEY,
	SRDMA_CNT_DROP_NO_RWQE,
	SRDMA_CNT_DROP_UC_MSG,
	SRDMA_CNT_DROP_UNSOLICITED,
	SRDMA_CNT_DROP_TOO_LONG,
	SRDMA_CNT_REMOTE_ERRORS,
	SRDMA_CNT_LOCAL_ERRORS,
	SRDMA_CNT_RATE_THROTTLES,
	SRDMA_CNT_RATE_THROTTLED_NS,
	SRDMA_CNT_RR_WAITS,
	SRDMA_CNT_PKT_NOMEM,
	SRDMA_CNT_ODP_FAULTS,
	SRDMA_CNT_ENGINE_RUNS_INLINE,
	SRDMA_CNT_ENGINE_WORK_ITEMS,
	SRDMA_CNT_LOCAL_ACKS,
	SRDMA_CNT_TX_BATCHES,
	SRDMA_CNT_RX_BATCHES,
	SRDMA_NUM_COUNTERS
};

/* one CPU's share of a device's counts (srdma_counter_read() sums them) */
struct srdma_counters {
	u64 value[SRDMA_NUM_COUNTERS];
};

/**
 * struct srdma_dev - one srdma device, bound to one Ethernet netdev
 * @ib_dev: the device ib_core knows; first, as ib_alloc_device() requires
 * @ndev: the netdev this device runs on; a reference is held
 * @ndev_tracker: tracks that reference
 * @net: the netdev's namespace at creation; its UDP socket is held
 * @list: entry in the driver's device list, under srdma_devices_lock
 * @ndev_gone: the netdev was unregistered, under srdma_devices_lock
 * @unregister_work: unregisters the device outside RTNL when its netdev goes
 * @port_lock: guards @port_state, and writing @active_mtu (read locklessly)
 * @port_state: IB_PORT_ACTIVE while the netdev is up with carrier, else DOWN
 * @active_mtu: the largest IB MTU that fits the netdev MTU
 * @pd_count: PDs allocated, against SRDMA_MAX_PD
 * @attr: device attributes, fixed at creation
 * @qp_xa: QPs by QP number
 * @qp_next: next QP number to try
 * @mr_xa: MRs by the index part of their key
 * @mr_next: next MR index to try
 * @mr_key_gen: source of the changing byte of MR keys
 * @ah_xa: AHs by ah_num; its lock is taken with interrupts disabled
 * @ah_next: next ah_num to try
 * @srq_xa: SRQs by number
 * @srq_next: next SRQ number to try
 * @cq_count: CQs allocated, against SRDMA_MAX_CQ
 * @qp_count: QPs allocated, against SRDMA_MAX_QP
 * @counters: per CPU, by enum srdma_counter; shown by rdma statistic
 * @rate: the port's rate settings and round-robin
 * @mcast_mutex: serializes attaching and detaching
 * @mcast_groups: multicast groups with attached QPs (srdma_mcast.c)
 * @mcast_num_groups: entries in @mcast_groups
 * @raw_mutex: serializes adding and removing RAW_PACKET QPs
 * @raw_qps: the RAW_PACKET QPs, which see the netdev's frames (srdma_raw.c)
 * @raw_tap: takes every frame of the netdev while @raw_qps is not empty
 */
struct srdma_dev {
	struct ib_device ib_dev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct net *net;
	struct list_head list;
	bool ndev_gone;
	struct work_struct unregister_work;

	spinlock_t port_lock;		/* guards port_state, active_mtu */
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;

	atomic_t pd_count;
	struct ib_device_attr attr;

	struct xarray qp_xa;
	u32 qp_next;
	struct xarray mr_xa;		/* MRs and memory windows, by key */
	u32 mr_next;
	atomic_t mr_key_gen;
	spinlock_t mw_lock;		/* guards srdma_mr.num_mw and .dying */
	struct xarray ah_xa;
	u32 ah_next;
	struct xarray srq_xa;
	u32 srq_next;
	atomic_t cq_count;
	atomic_t qp_count;
	struct srdma_counters __percpu *counters;
	struct srdma_port_rate rate;
	struct mutex mcast_mutex;	/* serializes attach and detach */
	struct list_head mcast_groups;
	u32 mcast_num_groups;
	struct mutex raw_mutex;		/* serializes raw_qps changes */
	struct list_head raw_qps;
	struct packet_type raw_tap;
};

/*
 * Counted per CPU: a count shared by the CPUs would move its cache line
 * between them at every packet.
 */
static inline void srdma_count_add(struct srdma_dev *sdev,
				   enum srdma_counter c, u64 n)
{
	this_cpu_add(sdev->counters->value[c], n);
}

static inline void srdma_count(struct srdma_dev *sdev, enum srdma_counter c)
{
	srdma_count_add(sdev, c, 1);
}

static inline struct srdma_dev *to_srdma_dev(struct ib_device *ib_dev)
{
	return container_of(ib_dev, struct srdma_dev, ib_dev);
}

struct srdma_ucontext {
	struct ib_ucontext ibuc;
};

struct srdma_pd {
	struct ib_pd ibpd;
};

static inline struct srdma_pd *to_srdma_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct srdma_pd, ibpd);
}

/**
 * struct srdma_cq - a completion queue
 * @ibcq: the CQ ib_core knows
 * @lock: guards @queue's producer side, @notify and @overflow
 * @queue: the ring of completions, in the rxe layout; mmap'd for userspace
 * @notify: the armed IB_CQ_NEXT_COMP or IB_CQ_SOLICITED, 0 when not armed
 * @overflow: a completion found the ring full since it last had room
 * @user: the ring holds struct ib_uverbs_wc for librxe, else struct ib_wc
 */
struct srdma_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* guards queue, notify, overflow */
	struct srdma_queue queue;
	u8 notify;
	bool overflow;
	bool user;
};

static inline struct srdma_cq *to_srdma_cq(struct ib_cq *ibcq)
{
	return ibcq ? container_of(ibcq, struct srdma_cq, ibcq) : NULL;
}

/**
 * struct srdma_wq - a work queue: send, receive or shared receive
 * @queue: the ring of WQEs (struct rxe_send_wqe or struct rxe_recv_wqe)
 * @lock: guards posting by kernel consumers and consuming by srdma
 * @max_wr: WQEs the ring holds
 * @max_sge: scatter/gather entries per WQE
 * @max_inline_bytes: inline data per send WQE
 */
struct srdma_wq {
	struct srdma_queue queue;
	spinlock_t lock;	/* guards both ends of queue inside the kernel */
	u32 max_wr;
	u32 max_sge;
	u32 max_inline_bytes;
};

/* bytes of a receive WQE with room for @max_sge SGEs */
static inline size_t srdma_recv_wqe_bytes(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

/**
 * struct srdma_srq - a shared receive queue
 * @ibsrq: the SRQ ib_core knows
 * @rq: its receive WQEs
 * @srq_num: its number, as librxe reads it
 * @limit: IB_EVENT_SRQ_LIMIT_REACHED fires when fewer WQEs remain; 0: disarmed
 */
struct srdma_srq {
	struct ib_srq ibsrq;
	struct srdma_wq rq;
	u32 srq_num;
	u32 limit;		/* under rq.lock */
};

static inline struct srdma_srq *to_srdma_srq(struct ib_srq *ibsrq)
{
	return ibsrq ? container_of(ibsrq, struct srdma_srq, ibsrq) : NULL;
}

/**
 * struct srdma_av - where packets of a QP or an AH go, in RoCEv2 terms
 * @network_type: RXE_NETWORK_TYPE_IPV4 or RXE_NETWORK_TYPE_IPV6
 * @dmac: next hop MAC, resolved by ib_core
 * @sgid: source GID, an IPv6 or IPv4-mapped address
 * @dgid: destination GID
 * @flow_label: IPv6 flow label (20 bits)
 * @sgid_index: index of @sgid in the port's GID table
 * @hop_limit: IP TTL or hop limit
 * @traffic_class: IP DSCP and ECN
 * @sl: service level
 * @static_rate: enum ib_rate asked for this path
 * @ifindex: the netdev of @sgid: the port's, or a VLAN on it
 */
struct srdma_av {
	int ifindex;
	u8 network_type;
	u8 dmac[ETH_ALEN];
	union ib_gid sgid;
	union ib_gid dgid;
	u32 flow_label;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	u8 static_rate;
};

/**
 * struct srdma_route - the route of a QP's path, looked up once and kept
 * while the routing tables say it holds; only the QP's engine uses it
 * @dst: the route, a reference held; NULL until looked up
 * @cookie: what dst_check() asks to tell whether @dst still holds
 * @saddr4: the IPv4 source address the lookup chose
 */
struct srdma_route {
	struct dst_entry *dst;
	u32 cookie;
	__be32 saddr4;
};

/**
 * struct srdma_tx_batch - packets of one QP on one path handed to the IP
 * stack together, as one UDP GSO packet that the stack cuts at each
 * packet's end (srdma_xmit_batch_add())
 * @head: the first packet, its IP and UDP headers on; NULL if none yet
 * @tail: the last packet added, on @head's frag_list or @head itself
 * @seg_bytes: the UDP payload of every packet but the last
 * @pkts: packets in the batch
 * @frame_bytes: their Ethernet frames' bytes, for the rate's accounting
 */
struct srdma_tx_batch {
	struct sk_buff *head;
	struct sk_buff *tail;
	u32 seg_bytes;
	u32 pkts;
	u32 frame_bytes;
};

/**
 * struct srdma_ah - an address handle
 * @ibah: the AH ib_core knows
 * @attr: the attributes as created, for query_ah (no sgid_attr reference)
 * @av: the path
 * @ah_num: its number; librxe puts it in UD WQEs instead of a copy of the AV
 */
struct srdma_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr attr;
	struct srdma_av av;
	u32 ah_num;
};

static inline struct srdma_ah *to_srdma_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct srdma_ah, ibah);
}

/*
 * The two halves of a QP's engine, each run by its own task: work of one
 * never waits for the other's, and they may run on two CPUs at once.
 */
enum srdma_half {
	SRDMA_HALF_SEND,	/* completer, then requester: the send queue */
	SRDMA_HALF_RECV,	/* responder: requests, datagrams, frames */
	SRDMA_HALVES,
};

/* a task runs its half of the engine, one runner at a time */
enum srdma_task_bits {
	SRDMA_TASK_RUNNING,	/* someone runs the half */
	SRDMA_TASK_MORE,	/* work arrived since the runner last looked */
	SRDMA_TASK_PAUSED,	/* modify to RESET or destroy: do nothing */
};

/* srdma_qp.local_ack holds an ACK (a PSN has 24 bits) */
#define SRDMA_LOCAL_ACK		BIT(31)

/* what timers ask the engine to do (srdma_qp.events) */
enum srdma_qp_event_bits {
	SRDMA_EV_RETRY,		/* the ACK timeout expired */
	SRDMA_EV_RNR,		/* the RNR NAK delay is over */
};

/**
 * struct srdma_task - runs one half of a QP's engine inline or from a work
 * item
 * @flags: enum srdma_task_bits
 * @work: continues a turn that used up its budget, or one that could not
 *        run where it was asked for (interrupts disabled)
 * @half: enum srdma_half: which of the QP's tasks this is
 */
struct srdma_task {
	unsigned long flags;
	struct work_struct work;
	/* where the half's work item runs: its packets wait in its queues */
	int cpu;
	/* the CPU of the run under way, nested or not (its owner) */
	int run_cpu;
	/* when it stopped, an RC QP's packets were not all acknowledged */
	bool unacked;
	u8 half;
};

enum srdma_swqe_state {
	SRDMA_SWQE_NEW,		/* copied, nothing sent */
	SRDMA_SWQE_SENDING,	/* some packets sent */
	/* every packet built: RC waits for the peer, UC for its batch to go */
	SRDMA_SWQE_SENT,
	SRDMA_SWQE_DONE,	/* acknowledged or executed: completes in order */
};

/**
 * struct srdma_swqe - srdma's own copy of a send WQE
 * @first_psn: PSN of its first packet (or of its read request)
 * @npsn: PSNs it uses: its packets, or the read responses it asks for
 * @length: total bytes, summed from its SGEs at copy time
 * @state: enum srdma_swqe_state
 * @status: enum ib_wc_status it completes with
 * @wqe: the WQE as copied from the ring; its SGEs or inline data follow
 * @slot: the same bytes as the ring's slot (the entry is the header and
 *        a slot): what the copy writes (@wqe alone is smaller than a slot)
 *
 * A process may rewrite its ring at any time: the engine copies each WQE
 * once, checks the copy and uses nothing else.
 */
struct srdma_swqe {
	u32 first_psn;
	u32 npsn;
	u32 length;
	u8 state;
	u8 status;
	union {
		struct rxe_send_wqe wqe;
		DECLARE_FLEX_ARRAY(u8, slot);
	};
};

/**
 * struct srdma_req - the requester: sends the packets of send WQEs
 * @index: SQ index of the WQE to send from
 * @fetched: SQ index of the first WQE not copied yet
 * @psn: next PSN to send
 * @psn_end: the PSN after the newest one sent
 * @noack_pkts: packets sent since the last one that asked for an ACK
 * @rd_atomic: reads and atomics outstanding, against max_rd_atomic
 * @refused_since_ns: when the netdev began refusing the packet due, with
 *                    nothing in flight (ktime_get_ns()); 0 if it does not
 * @doorbell: a user QP's SQ producer index at its last doorbell, written
 *            under the QP's sq.lock (srdma_req_doorbell())
 * @batch: the packets built and not yet handed to the stack; empty between
 *         runs of the requester
 * @batch_psn: the PSN of the batch's first packet
 * @batch_psn_end: @psn_end before the batch, which a refused batch restores
 * @batch_index: SQ index of the WQE of the batch's first packet
 */
struct srdma_req {
	u32 index;
	u32 fetched;
	u32 doorbell;
	u32 psn;
	u32 psn_end;
	u32 noack_pkts;
	u32 rd_atomic;
	u64 refused_since_ns;
	struct srdma_tx_batch batch;
	u32 batch_psn;
	u32 batch_psn_end;
	u32 batch_index;
};

/*
 * How the completer recovers from a loss (srdma_comp.c). News, that is an
 * ACK of a PSN not acknowledged before, ends a go-back.
 */
enum srdma_comp_recovery {
	/* a NAK or a lasting gap goes back N */
	SRDMA_COMP_STEADY,
	/* gone back N at the oldest PSN not ACKed: NAKs and gaps ignored */
	SRDMA_COMP_REWOUND,
	/* as REWOUND, after an ACK timeout: the window is one PSN */
	SRDMA_COMP_PROBING,
	/* an RNR NAK came: nothing goes out until its delay is over */
	SRDMA_COMP_RNR_WAIT,
};

/**
 * struct srdma_cwnd - the RC requester's congestion window (srdma_cwnd.c)
 * @size: PSNs that may be unacknowledged, 1 to SRDMA_MAX_INFLIGHT_PSNS
 * @ssthresh: below it @size grows by one per PSN acknowledged, above it
 *            by one per window
 * @acked: PSNs acknowledged towards the next growth above @ssthresh
 */
struct srdma_cwnd {
	u32 size;
	u32 ssthresh;
	u32 acked;
};

/* a new connection's window: it grows from there as ACKs come */
static inline void srdma_cwnd_open(struct srdma_cwnd *cw)
{
	*cw = (struct srdma_cwnd) {
		.size = SRDMA_CWND_INITIAL,
		.ssthresh = SRDMA_MAX_INFLIGHT_PSNS,
	};
}

/**
 * struct srdma_rtt - the RC requester's round-trip estimate (srdma_cwnd.c)
 * @sent_ns: when @psn last went out (ktime_get_ns()); 0: none is timed
 * @psn: the PSN timed, one at a time
 * @srtt_us: smoothed round trip; 0: none measured yet
 * @rttvar_us: its mean deviation
 */
struct srdma_rtt {
	u64 sent_ns;
	u32 psn;
	u32 srtt_us;
	u32 rttvar_us;
};

/**
 * struct srdma_comp - the completer: ACKs, NAKs, read and atomic responses
 * @cwnd: how many PSNs the requester may have unacknowledged
 * @rtt: the round trips measured, which may lengthen the ACK timeout
 * @psn: oldest PSN not acknowledged yet
 * @retry_left: retries after timeouts or sequence NAKs before RETRY_EXC_ERR
 * @rnr_retry_left: retries after RNR NAKs; 7 means without end
 * @recovery: enum srdma_comp_recovery, changed by srdma_comp_recover()
 * @deadline_ns: when the ACK timeout expires (ktime_get_ns()); 0: it does
 *               not run. The hrtimer may be set earlier and then moves on.
 */
struct srdma_comp {
	u64 deadline_ns;
	struct srdma_cwnd cwnd;
	struct srdma_rtt rtt;
	u32 psn;
	u8 retry_left;
	u8 rnr_retry_left;
	u8 recovery;
};

enum srdma_res_kind {
	SRDMA_RES_FREE,
	SRDMA_RES_READ,
	SRDMA_RES_ATOMIC,
	SRDMA_RES_NO_PAYLOAD,		/* ATOMIC WRITE, FLUSH */
};

/**
 * struct srdma_res - a responder resource: a read or atomic it answered,
 * kept so that a duplicate request gets the same answer (IBTA 9.7.5.1.6)
 * @kind: enum srdma_res_kind
 * @first_psn: PSN of the request (and of the first response)
 * @npsn: PSNs of its responses
 * @va: remote address asked for
 * @rkey: key asked with
 * @length: bytes asked for
 * @orig: an atomic's original value, as returned
 */
struct srdma_res {
	u8 kind;
	u32 first_psn;
	u32 npsn;
	u64 va;
	u32 rkey;
	u32 length;
	u64 orig;
};

/**
 * struct srdma_resp - the responder
 * @epsn: the PSN expected next
 * @msn: messages completed, for the AETH
 * @nak_sent: a sequence or RNR NAK went out for @epsn: send no other
 * @ack_pending: an ACK of @epsn - 1 is due (sent once the queue is drained)
 * @uc_dropping: UC: the rest of a dropped message is being discarded
 * @last_wqe_raised: in ERR on an SRQ: IB_EVENT_QP_LAST_WQE_REACHED raised
 * @msg: SRDMA_OP_SEND or SRDMA_OP_WRITE while a message is under way
 * @mr: the target of the RDMA WRITE under way, referenced
 * @rkey: the key it came with, checked again for each packet
 * @va: where its next byte goes
 * @resid: its bytes still to come
 * @rwqe: copy of the receive WQE a SEND fills; room for max_sge SGEs
 * @rwqe_valid: @rwqe is taken
 * @rwqe_srq: @rwqe came from the SRQ (else it is the RQ's oldest)
 * @rwqe_length: bytes @rwqe can hold, summed at copy time
 * @placed: bytes of the message placed so far
 * @write_length: bytes of the RDMA WRITE under way, from its RETH
 * @res: responder resources, max_dest_rd_atomic of them (at least one)
 * @num_res: entries in @res
 * @res_next: the entry the next read or atomic takes
 * @read: the read whose responses are being sent, or NULL
 * @read_mr: the MR it reads, referenced
 * @read_rkey: the key the read came with, checked again for each response
 * @read_psn: PSN of its next response
 * @read_va: address of its next byte
 * @read_resid: bytes still to send
 * @read_first: the next response is the first of the reply
 */
struct srdma_resp {
	u32 epsn;
	u32 msn;
	bool nak_sent;
	bool ack_pending;
	bool uc_dropping;
	bool last_wqe_raised;
	u32 msg;
	struct srdma_mr *mr;
	u32 rkey;
	u64 va;
	u32 resid;
	struct rxe_recv_wqe *rwqe;
	bool rwqe_valid;
	bool rwqe_srq;
	u32 rwqe_length;
	u32 placed;
	u32 write_length;
	struct srdma_res *res;
	u32 num_res;
	u32 res_next;
	struct srdma_res *read;
	struct srdma_mr *read_mr;
	u32 read_rkey;
	u32 read_psn;
	u64 read_va;
	u32 read_resid;
	bool read_first;
};

/**
 * struct srdma_qp - a queue pair
 * @ibqp: the QP ib_core knows
 * @lock: serializes modify_qp, query_qp and the doorbell
 * @state: the QP state; written with both @sq.lock and @rq.lock held
 * @attr: every attribute set by modify_qp, as query_qp returns them
 * @av: the primary path, from @attr.ah_attr
 * @sq: send WQEs
 * @rq: receive WQEs, unused when @srq is set
 * @srq: the SRQ receives come from, or NULL
 * @scq: CQ of send completions
 * @rcq: CQ of receive completions
 * @sq_sig_all: every send WQE completes, signaled or not
 * @user: the rings are mmap'd by a process
 * @sqd_notify: raise IB_EVENT_SQ_DRAINED when the SQ drains, under @sq.lock
 * @refs: held by the QP table and by each receiver that looked it up
 * @released: completed when @refs drops to zero
 * @task: runs each half of the engine below
 * @events: enum srdma_qp_event_bits, set by the timers
 * @resp_pkts: requests for the responder
 * @comp_pkts: responses for the completer
 * @resp_ahead: requests that came before their turn, in PSN order
 * @comp_ahead: read responses and atomic ACKs that did, the same
 * @local_ack: an ACK from the responder of a QP of this device, handed
 *	       over without a packet (srdma_recv_local_ack()): its PSN with
 *	       SRDMA_LOCAL_ACK set, or 0; the completer takes it
 * @route: the route of @av, one kept by each half
 * @src_port: UDP source port of its packets
 * @mtu_bytes: payload bytes per packet, from path_mtu
 * @swqes: srdma's copies of the send WQEs under way, the one of SQ index i
 *         at i & @swqe_mask: allocated from @swqe_cache as the requester
 *         copies, freed (but the next) once every WQE copied has completed
 * @swqe_cache: where the copies come from, by the SQ's slot size
 * @swqe_mask: entries of @swqes less one, a power of two less one
 * @swqes_held: entries of @swqes allocated
 * @req: requester state
 * @comp: completer state
 * @resp: responder state
 * @retry_timer: the ACK timeout
 * @rnr_timer: the RNR NAK delay
 * @xmit_timer: retries a transmit the netdev refused
 * @xmit_retry_ns: the delay of its next retry: doubles while the netdev
 *                 refuses, up to SRDMA_XMIT_RETRY_MAX_NS, and starts again
 *                 from SRDMA_XMIT_RETRY_NS once a packet goes out (under
 *                 @rate.xmit_lock)
 * @sqd_pending: in SQD, IB_EVENT_SQ_DRAINED not raised yet
 * @rate: its token bucket and place in the port's round-robin
 * @raw_node: a RAW_PACKET QP's entry in the device's raw_qps
 *
 * The engine's state is touched only by the one running its half's task
 * (@req, @comp, @swqes: the send half; @resp: the receive half), and by
 * modify_qp and destroy with both tasks paused.
 */
/**
 * struct srdma_odp - what the data path may use of an ODP MR's memory
 * @lock: guards the bits against the MMU notifier, and the pages against
 *        going while an access uses them
 * @valid: a bit per page of the umem: mapped, may be read
 * @writable: mapped for writing
 */
struct srdma_odp {
	spinlock_t lock;	/* the bits, and the pages in use */
	unsigned long *valid;
	unsigned long *writable;
};

/* a QP's pending ODP fault (srdma_odp_defer()); bit 0 of @pending */
struct srdma_odp_fault {
	struct work_struct work;
	unsigned long pending;
	struct srdma_mr *mr;
	u64 va;
	u64 len;
	bool write;
	int err;			/* of the last fault */
	struct srdma_mr *failed_mr;	/* its MR, compared only */
};

struct srdma_qp {
	struct ib_qp ibqp;
	struct srdma_odp_fault odp_fault;
	struct mutex lock;	/* serializes modify, query, doorbell */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct srdma_av av;
	struct srdma_wq sq;
	struct srdma_wq rq;
	struct srdma_srq *srq;
	struct srdma_cq *scq;
	struct srdma_cq *rcq;
	bool sq_sig_all;
	bool user;
	bool sqd_notify;

	refcount_t refs;
	struct completion released;
	struct srdma_task task[SRDMA_HALVES];
	unsigned long events;
	struct sk_buff_head resp_pkts;
	struct sk_buff_head comp_pkts;
	struct sk_buff_head resp_ahead;
	struct sk_buff_head comp_ahead;
	atomic_t local_ack;
	struct srdma_route route[SRDMA_HALVES];
	u16 src_port;
	u32 mtu_bytes;

	struct srdma_swqe **swqes;
	struct kmem_cache *swqe_cache;
	u32 swqe_mask;
	u32 swqes_held;
	struct srdma_req req;
	struct srdma_comp comp;
	struct srdma_resp resp;
	struct hrtimer retry_timer;
	struct hrtimer rnr_timer;
	struct hrtimer xmit_timer;
	u64 xmit_retry_ns;
	bool sqd_pending;
	struct srdma_qp_rate rate;
	struct list_head raw_node;
};

enum srdma_mr_kind {
	SRDMA_MR_DMA,		/* all kernel memory, by virtual address */
	SRDMA_MR_USER,		/* pinned user memory */
	SRDMA_MR_FAST_REG,	/* pages given by map_mr_sg, valid after REG_MR */
	SRDMA_MR_MW,		/* a window's key, range, rights (srdma_mw) */
	SRDMA_MR_ODP,		/* user memory paged on demand (srdma_odp) */
};

/**
 * struct srdma_mr - a memory region
 * @ibmr: the MR ib_core knows; lkey and rkey are the same key
 * @refs: held by the key table and by every lookup in progress
 * @released: completed when @refs drops to zero
 * @rcu: frees the MR after lookups under RCU are done with it
 * @kind: what memory it describes
 * @access: enum ib_access_flags
 * @umem: the pinned memory of a user MR
 * @pages: page of each PAGE_SIZE block of a user MR
 * @page_addrs: address of each page of a fast registration MR
 * @num_pages: entries in @pages or @page_addrs
 * @max_pages: entries @page_addrs has room for
 * @first_page_offset: offset of the MR's first byte in its first page (user
 *	MRs: from the umem; fast registration: as mapped by map_mr_sg)
 * @key: the key that finds it now; 0 while a fast registration MR is not
 *       registered (REG_MR sets it, invalidation clears it), or a window
 *       is not bound
 * @num_mw: memory windows bound to it (under srdma_dev.mw_lock)
 * @dying: being deregistered or re-registered: no window may bind to it
 *         (under mw_lock)
 */
struct srdma_mr {
	struct ib_mr ibmr;
	refcount_t refs;
	struct completion released;
	struct rcu_head rcu;
	enum srdma_mr_kind kind;
	int access;
	struct ib_umem *umem;
	struct srdma_odp *odp;
	struct page **pages;
	u64 *page_addrs;
	u32 num_pages;
	u32 max_pages;
	u32 first_page_offset;
	u32 key;
	u32 num_mw;
	bool dying;
	atomic_t accessing;	/* remote accesses under way: srdma_mr_fence() */
};

/**
 * struct srdma_mw - a memory window (IBTA 10.6.7): type 1, bound by the
 * ibv_bind_mw() verb, or type 2 (2B), bound by a work request to one QP
 * @ibmw: the window ib_core knows
 * @win: its entry in the key table: @win.key answers remote accesses while
 *       the window is bound (0 otherwise); @win.ibmr.iova, .length and
 *       .pd and @win.access are the window's
 * @lock: guards @mr and @qpn against lookups
 * @mr: the MR it is bound to, referenced; NULL when not bound
 * @qpn: type 2: the QP it is bound to
 * @rkey: its current key, bound or not: a bind names the window by it
 */
struct srdma_mw {
	struct ib_mw ibmw;
	struct srdma_mr win;
	spinlock_t lock;	/* guards mr and qpn against lookups */
	struct srdma_mr *mr;
	u32 qpn;
	u32 rkey;
};

static inline struct srdma_mr *to_srdma_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct srdma_mr, ibmr);
}

static inline struct srdma_qp *to_srdma_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct srdma_qp, ibqp);
}

/**
 * srdma_qp_state() - the QP's state, for the engine
 * @qp: the QP
 *
 * modify_qp pauses the engine while it changes the state and what goes
 * with it; only a move to ERR happens under a running engine.
 */
static inline enum ib_qp_state srdma_qp_state(struct srdma_qp *qp)
{
	return READ_ONCE(qp->state);
}

/*
 * A READ, an atomic, an ATOMIC WRITE or a FLUSH: takes a responder
 * resource, so is limited by max_rd_atomic, and is answered by a response
 * of its own
 */
static inline bool srdma_wr_is_rd_atomic(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ || opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
	       opcode == IB_WR_ATOMIC_WRITE || opcode == IB_WR_FLUSH;
}

/* answered by one READ response without payload (IBTA A19) */
static inline bool srdma_wr_is_no_payload_rd(u32 opcode)
{
	return opcode == IB_WR_ATOMIC_WRITE || opcode == IB_WR_FLUSH;
}

/*
 * A FLUSH's placement type (one or both of IB_FLUSH_GLOBAL and
 * IB_FLUSH_PERSISTENT) and selectivity level (IB_FLUSH_RANGE or
 * IB_FLUSH_MR) are ones the IBTA defines
 */
static inline bool srdma_flush_target_ok(u32 type, u32 level)
{
	return type && !(type & ~(IB_FLUSH_GLOBAL | IB_FLUSH_PERSISTENT)) &&
	       level <= IB_FLUSH_MR;
}

/* an atomic answered by an atomic ACK (the others get READ responses) */
static inline bool srdma_wr_is_atomic(u32 opcode)
{
	return opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/**
 * srdma_qp_get() - find a QP by number, for the receive path and netlink
 * @sdev: the device
 * @qpn: the QP number
 *
 * Return: the QP, held until srdma_qp_put(), or NULL.
 */
static inline struct srdma_qp *srdma_qp_get(struct srdma_dev *sdev, u32 qpn)
{
	struct srdma_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refs))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

/* destroy_qp waits for the last reference (srdma_qp.c) */
static inline void srdma_qp_put(struct srdma_qp *qp)
{
	if (refcount_dec_and_test(&qp->refs))
		complete(&qp->released);
}

/*
 * What the device, verbs and object files call. The engines' own functions
 * are in srdma_engine.h, which these files do not include.
 */

/* srdma_main.c */
void srdma_dealloc_driver(struct ib_device *ib_dev);
void srdma_flush_unregistrations(void);
#if IS_ENABLED(CONFIG_KUNIT)
int srdma_newlink(const char *ibdev_name, struct net_device *ndev);
#endif

/* srdma_device.c */
extern const struct ib_device_ops srdma_dev_ops;
void srdma_dev_init_attrs(struct srdma_dev *sdev);
void srdma_dev_free_objects(struct srdma_dev *sdev);
void srdma_port_update(struct srdma_dev *sdev);
struct srdma_dev *srdma_dev_get_by_name(const char *name);
#if IS_ENABLED(CONFIG_KUNIT)
enum ib_mtu srdma_mtu_from_netdev(unsigned int ndev_mtu);
#endif

/* srdma_counters.c */
struct rdma_hw_stats *srdma_alloc_hw_port_stats(struct ib_device *ib_dev,
						u32 port_num);
int srdma_get_hw_stats(struct ib_device *ib_dev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);
u64 srdma_counter_read(struct srdma_dev *sdev, enum srdma_counter c);

/* srdma_restrack.c */
int srdma_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

/* srdma_rate_nl.c */
int srdma_rate_nl_init(void);
void srdma_rate_nl_exit(void);

/* srdma_qp.c */
int srdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int srdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int srdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int srdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* srdma_wr.c */
int srdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int srdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int srdma_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
#if IS_ENABLED(CONFIG_KUNIT)
int srdma_post_send_wqe(struct ib_qp *ibqp, const struct rxe_send_wqe *wqe);
#endif

/* srdma_ah.c */
int srdma_av_from_attr(struct srdma_dev *sdev, struct srdma_av *av,
		       const struct rdma_ah_attr *attr, const char **why);
int srdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int srdma_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int srdma_destroy_ah(struct ib_ah *ibah, u32 flags);

/* srdma_cq.c */
int srdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int srdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int srdma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int srdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* srdma_srq.c */
int srdma_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int srdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int srdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int srdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* srdma_mr.c */
struct ib_mr *srdma_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *srdma_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *srdma_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int srdma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int srdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *srdma_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);
int srdma_mr_check_access(int access);
#if IS_ENABLED(CONFIG_KUNIT)
u32 srdma_mr_make_key(u32 index, u8 key_byte);
int srdma_user_mr_check(u64 start, u64 length, u64 iova, u64 max_bytes);
unsigned long srdma_odp_page_index(u64 umem_start, u64 address, u64 iova,
				   u64 va);
#endif

/* srdma_odp.c, built where ib_core has ODP */
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
int srdma_odp_get(struct srdma_mr *mr, struct ib_device *ibdev, u64 start,
		  u64 length, int access);
void srdma_odp_put(struct srdma_mr *mr);
int srdma_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs);
void srdma_odp_init_qp(struct srdma_qp *qp);
void srdma_odp_cleanup_qp(struct srdma_qp *qp);
#else
/* no ODP MR can exist: ib_core refuses IB_ACCESS_ON_DEMAND */
static inline int srdma_odp_get(struct srdma_mr *mr, struct ib_device *ibdev,
				u64 start, u64 length, int access)
{
	return -EOPNOTSUPP;
}

static inline void srdma_odp_put(struct srdma_mr *mr) {}

static inline int srdma_advise_mr(struct ib_pd *ibpd,
				  enum ib_uverbs_advise_mr_advice advice,
				  u32 flags, struct ib_sge *sg_list,
				  u32 num_sge,
				  struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

static inline void srdma_odp_init_qp(struct srdma_qp *qp) {}
static inline void srdma_odp_cleanup_qp(struct srdma_qp *qp) {}
#endif

/* srdma_mw.c */
int srdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int srdma_dealloc_mw(struct ib_mw *ibmw);

/* srdma_mcast.c */
int srdma_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int srdma_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void srdma_mgid_mac(const union ib_gid *mgid, u8 *mac);
void srdma_mcast_init(struct srdma_dev *sdev);
void srdma_mcast_exit(struct srdma_dev *sdev);

/* What the verbs call below them: the engine's life cycle and its inputs */

/* srdma_task.c */
int srdma_task_init(void);
void srdma_task_exit(void);
void srdma_task_setup(struct srdma_qp *qp);
void srdma_task_kick(struct srdma_qp *qp, enum srdma_half half);
void srdma_task_kick_later(struct srdma_qp *qp, enum srdma_half half);
void srdma_task_kick_both(struct srdma_qp *qp);
void srdma_task_kick_both_later(struct srdma_qp *qp);
void srdma_task_pause(struct srdma_qp *qp);
void srdma_task_resume(struct srdma_qp *qp);
void srdma_task_drop_queued(struct srdma_qp *qp, struct sk_buff_head *queue,
			    struct sk_buff_head *ahead);

/* srdma_req.c */
void srdma_req_doorbell(struct srdma_qp *qp);
void srdma_req_drop_unposted(struct srdma_qp *qp);

/* srdma_resp.c */
void srdma_resp_release(struct srdma_qp *qp);

/* srdma_raw.c */
void srdma_raw_qp_add(struct srdma_qp *qp);
void srdma_raw_qp_del(struct srdma_qp *qp);
void srdma_raw_init(struct srdma_dev *sdev);
void srdma_raw_exit(struct srdma_dev *sdev);

/* srdma_wq.c */
int srdma_swqe_caches_init(void);
void srdma_swqe_caches_exit(void);
int srdma_swqes_init(struct srdma_qp *qp);
void srdma_swqes_release(struct srdma_qp *qp);
void srdma_swqes_free(struct srdma_qp *qp);
bool srdma_send_opcode_ok(enum ib_qp_type type, u32 opcode);
void srdma_qp_lock_queues(struct srdma_qp *qp, unsigned long *flags);
void srdma_qp_unlock_queues(struct srdma_qp *qp, unsigned long flags);
void srdma_qp_set_state(struct srdma_qp *qp, enum ib_qp_state state);
void srdma_qp_flush(struct srdma_qp *qp);
void srdma_sq_flush(struct srdma_qp *qp);
void srdma_rq_flush(struct srdma_qp *qp);

/* srdma_timer.c */
void srdma_timers_setup(struct srdma_qp *qp);

/* srdma_sched.c */
void srdma_port_rate_init(struct srdma_dev *sdev);
u64 srdma_port_rate_refresh(struct srdma_dev *sdev);
void srdma_qp_rate_init(struct srdma_qp *qp);
void srdma_qp_rate_fini(struct srdma_qp *qp);
void srdma_qp_rate_set_verbs(struct srdma_qp *qp, u64 kbps);
void srdma_qp_rate_set_av(struct srdma_qp *qp, u8 static_rate);
void srdma_qp_rate_set_admin(struct srdma_qp *qp, u64 kbps, u32 burst);
void srdma_qp_rate_read(struct srdma_qp *qp, struct srdma_rate_cfg *cfg,
			struct srdma_qp_rate_info *info);

/* srdma_net.c */
int srdma_net_get(struct net *net, struct net_device *ndev);
void srdma_net_put(struct net *net);
int srdma_net_init(void);
void srdma_net_exit(void);
void srdma_route_forget(struct srdma_route *route);

#endif /* SRDMA_H */
