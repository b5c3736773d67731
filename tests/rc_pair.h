/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Two RC (or UC) queue pairs connected to each other, for the test programs:
 * devices, PD/CQ/SRQ/QP creation, Reset -> Init -> RTR -> RTS with chosen
 * attributes, registered buffers with a per-byte pattern, and polling that
 * always ends by a deadline. libibverbs only (no rdma_cm): each end is told
 * the other's QP number, GID and PSN directly, which works because both ends
 * live in one process.
 *
 * Both ends may be on one device (the QPs talk through the device's
 * loopback) or on two devices (for example srdma0 on veth0 and srdma1 on
 * veth1 in another namespace: RDMA devices are visible from every
 * namespace in the default "shared" netns mode of ib_core).
 *
 * The helpers are compiled once into tests/bin/libtests.a (tests/lib/).
 * Every helper returns 0 or an errno value and says what failed with diag();
 * none of them makes a TAP check, so the caller decides what is tested,
 * but check_flushed(), which is one.
 *
 * Typical use:
 *
 *	struct rc_dev da, db;
 *	struct rc_pair p;
 *	struct rc_qp_opts o;
 *
 *	rc_dev_open(&da, "srdma0");		// and db, or use da twice
 *	rc_qp_opts_default(&o);
 *	rc_pair_create(&p, &da, &db, &o);	// QPs in Reset, conn defaults
 *	p.cb.min_rnr_timer = 1;			// tweak before connecting
 *	rc_pair_connect(&p);			// both QPs in RTS
 *	...
 *	rc_pair_destroy(&p);
 *	rc_dev_close(&db);
 *	rc_dev_close(&da);
 */
#ifndef SRDMA_TESTS_RC_PAIR_H
#define SRDMA_TESTS_RC_PAIR_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define RC_PORT			1
#define RC_HOP_LIMIT		64
#define RC_PAGE_BYTES		4096

/* Defaults of struct rc_conn */
#define RC_TIMEOUT		14	/* 4.096 us * 2^14 = 67 ms */
#define RC_RETRY_CNT		7
#define RC_RNR_RETRY		7	/* 7: retry for ever */
#define RC_MIN_RNR_TIMER	12	/* 0.64 ms */
#define RC_RD_ATOMIC		4

/* Defaults of struct rc_qp_opts */
#define RC_WR			64
#define RC_SGE			4
#define RC_INLINE_BYTES		64
#define RC_CQE			256

#define RC_ACCESS_ALL		(IBV_ACCESS_LOCAL_WRITE | \
				 IBV_ACCESS_REMOTE_WRITE | \
				 IBV_ACCESS_REMOTE_READ | \
				 IBV_ACCESS_REMOTE_ATOMIC)

/* One device, its port 1, the RoCE v2 IPv4 GID used, and a PD */
struct rc_dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	int gid_index;
	union ibv_gid gid;
	struct ibv_pd *pd;
};

/* What a QP is created with */
struct rc_qp_opts {
	enum ibv_qp_type qp_type;	/* IBV_QPT_RC or IBV_QPT_UC; 0: RC */
	unsigned int send_wr;
	unsigned int recv_wr;
	unsigned int send_sge;
	unsigned int recv_sge;
	unsigned int inline_bytes;
	unsigned int cqe;		/* of each CQ */
	unsigned int srq_wr;		/* > 0: receive from an SRQ this big */
	bool sq_sig_all;
	bool recv_channel;		/* receive CQ on a completion channel */
	/* != 0: ibv_create_qp_ex() with these IBV_QP_EX_WITH_*, for ibv_wr_*() */
	unsigned long long send_ops;
};

/* One end: a QP with a send CQ and a receive CQ of its own */
struct rc_end {
	struct rc_dev *dev;
	struct ibv_comp_channel *ch;	/* of rcq; NULL without recv_channel */
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_srq *srq;		/* NULL without srq_wr */
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;		/* what ibv_create_qp() granted */
};

/* How an end is connected: the attributes of its INIT, RTR and RTS */
struct rc_conn {
	enum ibv_mtu path_mtu;		/* 0: the smaller active MTU */
	unsigned int access;		/* qp_access_flags */
	unsigned int sq_psn;		/* this end's first PSN, the peer's rq_psn */
	unsigned char timeout;
	unsigned char retry_cnt;
	unsigned char rnr_retry;
	unsigned char min_rnr_timer;
	unsigned char max_rd_atomic;
	unsigned char max_dest_rd_atomic;
};

struct rc_pair {
	struct rc_end a, b;
	struct rc_conn ca, cb;
};

/* A registered buffer, page aligned */
struct rc_buf {
	unsigned char *p;
	size_t len;
	struct ibv_mr *mr;
};

/* Time (lib/rc_pair.c) */

long long rc_now_us(void);
/* rc_ack_timeout_us() - the IBTA local ACK timeout, 4.096 us * 2^@t */
long long rc_ack_timeout_us(unsigned int t);

/* Names and errors */

const char *rc_state_name(int state);
/* rc_errno() - set errno to @err and return it */
int rc_errno(int err);
/* The errno of a verb returning an errno value, or -1 and errno */
int rc_verb_err(int ret);
/* The errno of a verb returning an object, or NULL and errno */
int rc_ptr_err(const void *p);

/* Devices */

int rc_find_gid(struct rc_dev *d);
int rc_dev_open(struct rc_dev *d, const char *name);
void rc_dev_close(struct rc_dev *d);

/* Queue pairs */

void rc_qp_opts_default(struct rc_qp_opts *o);
int rc_end_create(struct rc_end *e, struct rc_dev *d,
		  const struct rc_qp_opts *o);
void rc_end_destroy(struct rc_end *e);
void rc_conn_default(struct rc_conn *c, unsigned int sq_psn);
int rc_qp_state(struct ibv_qp *qp);
int rc_modify_state(struct ibv_qp *qp, enum ibv_qp_state to);
int rc_modify_init(struct rc_end *e, const struct rc_conn *c);
int rc_modify_rtr(struct rc_end *e, const struct rc_conn *c,
		  const struct rc_end *peer, const struct rc_conn *peer_c);
int rc_modify_rts(struct rc_end *e, const struct rc_conn *c);
enum ibv_mtu rc_path_mtu(const struct rc_end *e, const struct rc_end *peer,
			 const struct rc_conn *c);
int rc_connect(struct rc_end *a, const struct rc_conn *ca,
	       struct rc_end *b, const struct rc_conn *cb);
int rc_pair_create(struct rc_pair *p, struct rc_dev *da, struct rc_dev *db,
		   const struct rc_qp_opts *o);
int rc_pair_connect(struct rc_pair *p);
void rc_pair_destroy(struct rc_pair *p);

/* Buffers and the pattern */

int rc_buf_reg(struct rc_buf *b, struct ibv_pd *pd, size_t len,
	       unsigned int access);
void rc_buf_free(struct rc_buf *b);
unsigned char rc_pattern(unsigned int seed, size_t i);
void rc_fill_at(void *p, size_t len, unsigned int seed, size_t start);
void rc_fill(void *p, size_t len, unsigned int seed);
size_t rc_mismatch_at(const void *p, size_t len, unsigned int seed,
		      size_t start, size_t *bad);
size_t rc_mismatch(const void *p, size_t len, unsigned int seed, size_t *bad);
struct ibv_sge rc_sge(const struct rc_buf *b, size_t off, unsigned int len);

/* Work requests (lib/wr.c) */

struct ibv_send_wr rc_send_wr(unsigned long long wr_id, enum ibv_wr_opcode op,
			      const struct ibv_sge *sge, int num_sge,
			      unsigned int flags, uint64_t remote_addr,
			      uint32_t rkey);
int rc_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr);
int rc_post_recvs(struct ibv_qp *qp, struct ibv_srq *srq,
		  unsigned long long wr_id, unsigned int n,
		  const struct ibv_sge *sge, int num_sge, size_t stride);
int rc_post_recv(struct rc_end *e, unsigned long long wr_id,
		 const struct ibv_sge *sge, int num_sge);

/* Completions and events: nothing here waits longer than it is told */

int rc_poll(struct ibv_cq *cq, struct ibv_wc *wc, int max, int want,
	    int timeout_ms);
int rc_wait_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq,
		     int timeout_ms);
int rc_wait_async_event(struct ibv_context *ctx, struct ibv_async_event *ev,
			int timeout_ms);

/* A run of work requests: wr_ids @first to @first + @count - 1 */
struct wr_ids {
	unsigned long long first;
	unsigned int count;
};

/* The TAP lines of check_flushed(), as each program has always had them */
enum flush_checks {
	FLUSH_CHECK_IDS_THEN_STATUS,	/* each wr_id once; status and qp_num */
	FLUSH_CHECK_EACH_FIELD,		/* count; status; qp_num; each wr_id once */
};

void check_flushed(const char *what, struct ibv_qp *qp,
		   const struct ibv_wc *wc, int n, const struct wr_ids *ids,
		   unsigned int n_ids, enum flush_checks checks);

#endif /* SRDMA_TESTS_RC_PAIR_H */
