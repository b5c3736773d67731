/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the engines (requester, responder, completer, UD, RAW) and the
 * layers below them share: received packets, work queue and CQ posting,
 * memory access by key, transmit scheduling, timers and the wire. The
 * device, verbs and object files include srdma.h only
 * (Documentation/architecture.md).
 */
#ifndef SRDMA_ENGINE_H
#define SRDMA_ENGINE_H

#include "srdma.h"

/**
 * srdma_engine_assert_owned() - the caller runs @half of @qp's engine, or
 * that half is paused (modify_qp, destroy)
 * @qp: the QP
 * @half: enum srdma_half
 *
 * A half's state has no lock: it belongs to whoever holds its task's
 * SRDMA_TASK_RUNNING, on the CPU its run wrote to the task, with bottom
 * halves off (srdma_task.c). Checked where lockdep checks locks.
 */
static inline void srdma_engine_assert_owned(struct srdma_qp *qp,
					     enum srdma_half half)
{
	const struct srdma_task *t = &qp->task[half];

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		return;
	WARN_ON_ONCE(!test_bit(SRDMA_TASK_PAUSED, &t->flags) &&
		     (!test_bit(SRDMA_TASK_RUNNING, &t->flags) || !in_softirq() ||
		      READ_ONCE(t->run_cpu) != raw_smp_processor_id()));
}

/*
 * srdma's copy of the send WQE in SQ slot @index, fetched and not completed;
 * NULL at an index a flush (ERR) moved the consumer past unfetched
 */
static inline struct srdma_swqe *srdma_swqe(struct srdma_qp *qp, u32 index)
{
	return qp->swqes[index & qp->swqe_mask];
}

/**
 * struct srdma_pkt - a received packet, in its skb's control block
 * @psn: from the BTH
 * @paylen: payload bytes, without pad and ICRC
 * @opcode: from the BTH
 * @ipv6: it came over IPv6
 *
 * skb->data points at the BTH.
 */
struct srdma_pkt {
	u32 psn;
	u32 paylen;
	u8 opcode;
	bool ipv6;
};

static inline struct srdma_pkt *srdma_pkt(struct sk_buff *skb)
{
	return (struct srdma_pkt *)skb->cb;
}

/* srdma_task.c */
enum srdma_counter srdma_task_recv(struct srdma_qp *qp, struct sk_buff *skb);
enum srdma_counter srdma_task_enqueue(struct srdma_qp *qp,
				      struct sk_buff_head *queue,
				      struct sk_buff *skb, bool bulk);

/* srdma_req.c */
unsigned int srdma_req_run(struct srdma_qp *qp);
#if IS_ENABLED(CONFIG_KUNIT)
enum ib_wc_status srdma_swqe_length(struct rxe_send_wqe *wqe, u32 max_sge,
				    u32 max_inline_bytes, u32 *length);
bool srdma_read_npsn_ok(u32 length, u32 mtu);
int srdma_req_pkt_span(u32 psn, u32 first_psn, u32 npsn, u32 mtu, u32 length,
		       u64 *offset, u32 *payload);
#endif

/* srdma_comp.c */
unsigned int srdma_comp_run(struct srdma_qp *qp);
void srdma_comp_retry_timer(struct srdma_qp *qp);
void srdma_comp_rnr_timer(struct srdma_qp *qp);
void srdma_comp_restart_timer(struct srdma_qp *qp);
bool srdma_comp_outstanding(struct srdma_qp *qp);

/* srdma_cwnd.c */
void srdma_cwnd_acked(struct srdma_cwnd *cw, u32 npsn);
void srdma_cwnd_lost(struct srdma_cwnd *cw, u32 flight, bool timeout);
void srdma_rtt_acked(struct srdma_rtt *rtt, u32 next);
u64 srdma_rtt_timeout_ns(const struct srdma_rtt *rtt, u64 timeout_ns);

/*
 * packets between two that ask for an ACK (one call per packet): two per
 * window at least, so that a small window is not left waiting for the ACK
 * timeout, the ACK of its first half reopens it
 */
static inline u32 srdma_cwnd_ackreq_pkts(const struct srdma_cwnd *cw)
{
	return clamp(cw->size / 2, 1U, (u32)SRDMA_ACKREQ_EVERY_PKTS);
}

/* @psn goes out: timed if none is, timed again if it is the one timed */
static inline void srdma_rtt_sending(struct srdma_rtt *rtt, u32 psn)
{
	if (!rtt->sent_ns || rtt->psn == psn) {
		rtt->psn = psn;
		rtt->sent_ns = ktime_get_ns();
	}
}

/* srdma_resp.c */
unsigned int srdma_resp_run(struct srdma_qp *qp);

/* srdma_ud.c */
u32 srdma_ud_send_qkey(const struct srdma_qp *qp, u32 wr_qkey);
void srdma_ud_grh(struct sk_buff *skb, union rdma_network_hdr *grh);
bool srdma_ud_req_step(struct srdma_qp *qp, struct srdma_swqe *swqe);
void srdma_ud_recv_pkt(struct srdma_qp *qp, struct sk_buff *skb);

/* srdma_raw.c */
bool srdma_raw_req_step(struct srdma_qp *qp, struct srdma_swqe *swqe);
void srdma_raw_recv_frame(struct srdma_qp *qp, struct sk_buff *skb);

/* srdma_wq.c */
enum ib_wc_opcode srdma_wc_opcode(u32 wr_opcode);
void srdma_qp_event(struct srdma_qp *qp, enum ib_event_type type);
void srdma_qp_error(struct srdma_qp *qp, enum ib_event_type event);
struct srdma_swqe *srdma_swqe_alloc(struct srdma_qp *qp, u32 index);
void srdma_swqes_trim(struct srdma_qp *qp);
void srdma_swqe_next(struct srdma_qp *qp);
void srdma_swqe_done(struct srdma_qp *qp, struct srdma_swqe *swqe,
		     enum ib_wc_status status);
int srdma_swqe_copy(struct srdma_qp *qp, struct srdma_swqe *swqe, u64 offset,
		    void *buf, u32 len);
int srdma_swqe_attach(struct srdma_qp *qp, struct srdma_swqe *swqe,
		      u64 offset, struct sk_buff *skb, u32 len);
bool srdma_sq_complete(struct srdma_qp *qp);
int srdma_rwqe_take(struct srdma_qp *qp);
void srdma_rwqe_complete(struct srdma_qp *qp, struct ib_wc *wc, bool solicited);
void srdma_rwqe_fail(struct srdma_qp *qp, enum ib_wc_status status,
		     enum ib_event_type event);

/* srdma_cq.c */
/* what srdma_cq_post() did and left due, for srdma_cq_notify() */
#define SRDMA_CQ_ADDED		BIT(0)	/* the completion is in the ring */
#define SRDMA_CQ_FIRE		BIT(1)	/* the completion handler is due */
#define SRDMA_CQ_OVERFLOWED	BIT(2)	/* IB_EVENT_CQ_ERR is due */
unsigned int srdma_cq_post(struct srdma_cq *cq, const struct ib_wc *wc,
			   bool solicited);
unsigned int srdma_cq_post_wqe(struct srdma_cq *cq, const struct ib_wc *wc,
			       bool solicited, struct srdma_wq *wq);
void srdma_cq_notify(struct srdma_cq *cq, unsigned int due);
#if IS_ENABLED(CONFIG_KUNIT)
void srdma_wc_to_uverbs(struct ib_uverbs_wc *uwc, const struct ib_wc *wc);
#endif

/* srdma_srq.c */
bool srdma_srq_pop(struct srdma_srq *srq, struct rxe_recv_wqe *wqe);

/* srdma_reorder.c */

/* what became of a packet that came before its turn */
enum srdma_reorder_verdict {
	SRDMA_REORDER_WAIT,	/* held: it waits for the gap to fill */
	SRDMA_REORDER_GAP,	/* held, but the gap lasts: take it for a loss */
	SRDMA_REORDER_DROP,	/* not held (too far ahead, or full): a loss */
};

enum srdma_reorder_verdict srdma_reorder_hold(struct sk_buff_head *ahead,
					      struct sk_buff *skb,
					      u32 expected);
struct sk_buff *srdma_reorder_next(struct sk_buff_head *ahead, u32 expected);
struct sk_buff *srdma_reorder_dequeue(struct srdma_qp *qp,
				      struct sk_buff_head *ahead, u32 expected,
				      struct sk_buff_head *queue);

/* srdma_mem.c */
enum srdma_atomic_op {
	SRDMA_ATOMIC_CMP_SWAP,
	SRDMA_ATOMIC_FETCH_ADD,
	SRDMA_ATOMIC_WRITE,	/* ATOMIC WRITE: one store after all before it */
};

/* @op on the 8 aligned bytes at @p; the original value in *@orig */
static inline void srdma_atomic_apply(u64 *p, enum srdma_atomic_op op,
				      u64 value, u64 compare, u64 *orig)
{
	switch (op) {
	case SRDMA_ATOMIC_CMP_SWAP:
		*orig = cmpxchg64(p, compare, value);
		break;
	case SRDMA_ATOMIC_FETCH_ADD:
		*orig = READ_ONCE(*p);
		while (!try_cmpxchg64(p, orig, *orig + value))
			;
		break;
	case SRDMA_ATOMIC_WRITE:
		/* the release orders it after every earlier request's bytes */
		smp_store_release(p, value);
		break;
	}
}

int srdma_mr_lookup(struct srdma_qp *qp, u32 key, u64 va, u64 length,
		    int access, struct srdma_mr **mrp);
bool srdma_mr_access_ok(struct srdma_mr *mr, u32 key, u64 va, u64 len);
bool srdma_rkey_access_begin(struct srdma_mr *mr, u32 rkey, u64 va, u64 len);
void srdma_rkey_access_end(struct srdma_mr *mr);
int srdma_mr_copy(struct srdma_mr *mr, u64 va, void *buf, u32 length,
		  bool to_mr);
int srdma_sge_copy(struct srdma_qp *qp, const struct rxe_sge *sge,
		   u32 num_sge, u64 offset, void *buf, u32 length, bool to_sge);
int srdma_mr_copy_skb(struct srdma_mr *mr, u64 va, struct sk_buff *skb,
		      u32 skb_offset, u32 length);
int srdma_mr_attach(struct srdma_mr *mr, u64 va, struct sk_buff *skb,
		    u32 length);
int srdma_sge_attach(struct srdma_qp *qp, const struct rxe_sge *sge,
		     u32 num_sge, u64 offset, struct sk_buff *skb, u32 length);
int srdma_sge_copy_skb(struct srdma_qp *qp, const struct rxe_sge *sge,
		       u32 num_sge, u64 offset, struct sk_buff *skb,
		       u32 skb_offset, u32 length);
int srdma_mr_atomic(struct srdma_mr *mr, u64 va, enum srdma_atomic_op op,
		    u64 value, u64 compare, u64 *orig);
int srdma_mr_invalidate(struct srdma_qp *qp, u32 key);
int srdma_mr_register(struct srdma_qp *qp, struct ib_mr *ibmr, u32 key,
		      int access);

/* srdma_odp.c; without ODP in ib_core no MR is of kind SRDMA_MR_ODP */
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
int srdma_odp_copy(struct srdma_mr *mr, u64 va, void *buf, u32 length,
		   bool to_mr);
int srdma_odp_atomic(struct srdma_mr *mr, u64 va, enum srdma_atomic_op op,
		     u64 value, u64 compare, u64 *orig);
int srdma_odp_defer(struct srdma_qp *qp, struct srdma_mr *mr, u64 va,
		    u64 len, bool write);
#else
static inline int srdma_odp_copy(struct srdma_mr *mr, u64 va, void *buf,
				 u32 length, bool to_mr)
{
	return -EAGAIN;
}

static inline int srdma_odp_atomic(struct srdma_mr *mr, u64 va,
				   enum srdma_atomic_op op, u64 value,
				   u64 compare, u64 *orig)
{
	return -EAGAIN;
}

static inline int srdma_odp_defer(struct srdma_qp *qp, struct srdma_mr *mr,
				  u64 va, u64 len, bool write)
{
	return -EFAULT;
}
#endif

/* srdma_mw.c */
enum ib_wc_status srdma_mw_bind(struct srdma_qp *qp,
				const struct rxe_send_wr *wr);
int srdma_mw_invalidate(struct srdma_qp *qp, struct srdma_mr *win);
int srdma_mw_lookup(struct srdma_qp *qp, struct srdma_mr *win, u64 va,
		    u64 length, int access, struct srdma_mr **mrp);
bool srdma_mw_access_ok(struct srdma_mr *mr, u32 key, u64 va, u64 len);

/* srdma_mr.c */
struct srdma_mr *srdma_mr_get(struct srdma_dev *sdev, u32 key);
struct srdma_mr *srdma_mr_get_index(struct srdma_dev *sdev, u32 key);
bool srdma_mr_same_index(u32 a, u32 b);
void srdma_mr_put(struct srdma_mr *mr);
int srdma_mr_reserve(struct srdma_dev *sdev, struct srdma_mr *mr);
void srdma_mr_publish(struct srdma_dev *sdev, struct srdma_mr *mr);
void srdma_mr_withdraw(struct srdma_dev *sdev, struct srdma_mr *mr);
void srdma_mr_fence(struct srdma_mr *mr);

/* srdma_sched.c */
enum srdma_send {
	SRDMA_SEND_WAIT,	/* not now: the engine is kicked when it may */
	SRDMA_SEND_OK,
	SRDMA_SEND_LAST,	/* this one, then a wait: it should ask for an ACK */
};

enum srdma_send srdma_sched_may_send(struct srdma_qp *qp,
				     enum srdma_half half);
int srdma_qp_xmit(struct srdma_qp *qp, enum srdma_half half,
		  struct sk_buff *skb);
int srdma_qp_xmit_to(struct srdma_qp *qp, enum srdma_half half,
		     const struct srdma_av *av, struct srdma_route *route,
		     struct sk_buff *skb);
void srdma_qp_charge(struct srdma_qp *qp, enum srdma_half half, u32 bytes);
bool srdma_qp_batch_fits(struct srdma_qp *qp, const struct srdma_tx_batch *b,
			 u32 bytes);
int srdma_qp_batch_add(struct srdma_qp *qp, enum srdma_half half,
		       struct srdma_tx_batch *b, struct sk_buff *skb);
int srdma_qp_batch_flush(struct srdma_qp *qp, enum srdma_half half,
			 struct srdma_tx_batch *b);
void srdma_qp_xmit_refused(struct srdma_qp *qp);

/* a refused transmit of @qp waits for its retry (srdma_qp_xmit_refused()) */
static inline bool srdma_qp_xmit_waiting(struct srdma_qp *qp)
{
	return hrtimer_is_queued(&qp->xmit_timer);
}

void srdma_sched_idle(struct srdma_qp *qp, enum srdma_half half);
void srdma_sched_leave(struct srdma_qp *qp);

/* srdma_timer.c */
u64 srdma_ack_timeout_ns(u8 timeout);
u64 srdma_rnr_delay_ns(u8 min_rnr_timer);
void srdma_timer_arm(struct hrtimer *timer, u64 delay_ns);
void srdma_timer_arm_at(struct hrtimer *timer, u64 when_ns);
void srdma_timers_cancel(struct srdma_qp *qp);

/* srdma_net.c */
struct sk_buff *srdma_pkt_alloc(struct srdma_dev *sdev, u8 opcode,
				u32 payload_bytes, struct srdma_bth **bthp);
struct sk_buff *srdma_pkt_alloc_paged(struct srdma_dev *sdev, u8 opcode,
				      struct srdma_bth **bthp);
void *srdma_pkt_put_frag(struct sk_buff *skb, unsigned int bytes);
int srdma_pkt_end_paged(struct srdma_dev *sdev, struct sk_buff *skb);
bool srdma_pkt_paged_ok(struct srdma_dev *sdev, const struct srdma_av *av,
			u32 bytes);
int srdma_xmit(struct srdma_dev *sdev, const struct srdma_av *av,
	       struct srdma_route *route, u16 src_port, struct sk_buff *skb);
bool srdma_xmit_batch_fits(struct srdma_dev *sdev, const struct srdma_av *av,
			   const struct srdma_tx_batch *b, u32 bytes);
int srdma_xmit_batch_add(struct srdma_dev *sdev, const struct srdma_av *av,
			 struct srdma_route *route, u16 src_port,
			 struct srdma_tx_batch *b, struct sk_buff *skb);
int srdma_xmit_batch_flush(struct srdma_dev *sdev, struct srdma_tx_batch *b);
bool srdma_av_is_local(struct srdma_dev *sdev, const struct srdma_av *av);
struct sk_buff *srdma_gro_receive(struct sock *sk, struct list_head *head,
				  struct sk_buff *skb);
int srdma_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff);
bool srdma_gro_joined(const struct sk_buff *skb);
int srdma_gro_split(struct sk_buff *skb, struct sk_buff_head *list);
#if IS_ENABLED(CONFIG_KUNIT)
int srdma_xmit_verdict(int err);
void srdma_batch_to_gso(struct sk_buff *skb, u32 seg_bytes, u32 pkts);
#endif

/*
 * A refusal of srdma_xmit() that may pass soon (memory, a full queue); any
 * other (no route, a link down, a packet too big) lasts.
 */
static inline bool srdma_xmit_busy(int err)
{
	return err == -ENOMEM || err == -ENOBUFS;
}

/* srdma_recv.c */
int srdma_recv(struct srdma_dev *sdev, struct sk_buff *skb, bool trusted);
bool srdma_recv_local_ack(struct srdma_dev *sdev, struct srdma_qp *from,
			  u32 psn);
#if IS_ENABLED(CONFIG_KUNIT)
bool srdma_pkt_parse(struct sk_buff *skb);
#endif

/* srdma_mcast.c */
void srdma_mcast_recv(struct srdma_dev *sdev, struct sk_buff *skb);

#endif /* SRDMA_ENGINE_H */
