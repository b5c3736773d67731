// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * uc_loss: UC messages over a lossy link. A UC responder that misses a
 * packet drops the message under way whole and takes the next one (IBTA
 * 9.8.3): no ACK, no NAK, no retransmission, the QPs stay in RTS.
 *
 *   uc_loss [-n MSGS] [-s BYTES] [-l] [-c COMMAND] [-T SECONDS]
 *           DEVICE PEER_DEVICE
 *
 * A UC QP on DEVICE sends to one on PEER_DEVICE (path MTU 1024) by SEND
 * and by RDMA WRITE WITH IMMEDIATE, in two phases:
 *
 *   1. MSGS messages (default 200) of each: three of four BYTES long
 *      (default 4096: four packets), every fourth 100 bytes (one packet);
 *   2. COMMAND (-c, through the shell: for example the removal of the
 *      netem that makes the loss), then 20 messages more of each.
 *
 * A message is sent when the one before it arrived, or 100 ms after it was
 * sent (it is lost): the sender never runs ahead of the receiver, so the
 * only loss is the link's.
 *
 * Checks: every send completes with IBV_WC_SUCCESS; a message that gets
 * through arrives once, in order, with its length and every byte of its
 * pattern (a SEND carries its sequence number in its first four bytes; a
 * WRITE carries it as immediate data and lands in a slot of its own);
 * without -l every message of phase 1 arrives, with -l (the link loses
 * packets) at least one is lost and at least one arrives; all of phase 2
 * arrives, whatever phase 1 lost; both QPs are still in RTS at the end.
 * A last line "# lost N messages" says how many of phase 1 did not arrive.
 * The whole run ends by SECONDS (default 120): "Bail out!", never a hang.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>

#include "tap.h"
#include "rc_pair.h"

#define AFTER_MSGS	20
#define SHORT_BYTES	100
/*
 * A message not arrived by then is taken as lost and the next one sent;
 * one that comes later is still counted, in order, so this only paces.
 */
#define ARRIVAL_MS	20
#define QUIET_MS	1000	/* no completion for this long: the rest is lost */

struct run {
	unsigned int msgs, bytes;
	bool lossy;
	const char *command;
	struct rc_pair p;
	struct rc_buf sbuf;	/* the sender's: one slot */
	struct rc_buf rbuf;	/* the receiver's: a slot per message */
	unsigned int seq;	/* the next message's number */
	unsigned int posted;	/* receives posted so far: the next wr_id */
	unsigned int total;	/* messages in the whole run */
	unsigned int lost;	/* messages of phase 1 that did not arrive */
};

static unsigned int msg_bytes(const struct run *r, unsigned int seq)
{
	return seq % 4 == 3 ? SHORT_BYTES : r->bytes;
}

static const char *op_name(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND ? "SEND" : "RDMA_WRITE_WITH_IMM";
}

static unsigned int msg_seed(unsigned int seq, enum ibv_wr_opcode op)
{
	return seq * 2 + (op == IBV_WR_RDMA_WRITE_WITH_IMM);
}

/* the receiver's buffer: a slot per receive WQE, then one per message */
static unsigned char *recv_slot(const struct run *r, unsigned int wr_id)
{
	return r->rbuf.p + (size_t)wr_id * r->bytes;
}

static unsigned char *write_slot(const struct run *r, unsigned int seq)
{
	return r->rbuf.p + ((size_t)r->total + seq) * r->bytes;
}

/* send_one() - message @seq, and its send completion */
static bool send_one(struct run *r, enum ibv_wr_opcode op, unsigned int seq)
{
	unsigned int len = msg_bytes(r, seq);
	struct ibv_sge sge = rc_sge(&r->sbuf, 0, len);
	struct ibv_send_wr wr = rc_send_wr(seq, op, &sge, 1, IBV_SEND_SIGNALED,
					   (uintptr_t)write_slot(r, seq),
					   r->rbuf.mr->rkey);
	struct ibv_wc wc;

	/* one send buffer, written anew for each message */
	if (op == IBV_WR_SEND) {
		memcpy(r->sbuf.p, &seq, sizeof(seq));
		rc_fill_at(r->sbuf.p + 4, len - 4, msg_seed(seq, op), 4);
	} else {
		rc_fill(r->sbuf.p, len, msg_seed(seq, op));
		wr.imm_data = htonl(seq);
	}
	if (rc_post_send(r->p.a.qp, &wr))
		return false;
	if (rc_poll(r->p.a.scq, &wc, 1, 1, 10000) != 1) {
		diag("send %u: no completion", seq);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		diag("send %u: %s", seq, ibv_wc_status_str(wc.status));
		return false;
	}
	return true;
}

/*
 * check_recv() - one receive completion: the message it holds; returns its
 * sequence number, or -1 (said why)
 */
static long check_recv(const struct run *r, const struct ibv_wc *wc,
		       enum ibv_wr_opcode op)
{
	unsigned int seq, len;
	const unsigned char *data;
	size_t bad, at;

	if (wc->status != IBV_WC_SUCCESS) {
		diag("receive %llu: %s", (unsigned long long)wc->wr_id,
		     ibv_wc_status_str(wc->status));
		return -1;
	}
	if (op == IBV_WR_SEND) {
		if (wc->opcode != IBV_WC_RECV || wc->byte_len < 4) {
			diag("receive %llu: opcode %d, %u bytes",
			     (unsigned long long)wc->wr_id, wc->opcode,
			     wc->byte_len);
			return -1;
		}
		data = recv_slot(r, wc->wr_id);
		memcpy(&seq, data, sizeof(seq));
	} else {
		if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    !(wc->wc_flags & IBV_WC_WITH_IMM)) {
			diag("receive %llu: opcode %d, flags %#x",
			     (unsigned long long)wc->wr_id, wc->opcode,
			     wc->wc_flags);
			return -1;
		}
		seq = ntohl(wc->imm_data);
		data = write_slot(r, seq);
	}
	len = msg_bytes(r, seq);
	if (wc->byte_len != len) {
		diag("message %u: %u bytes, sent %u", seq, wc->byte_len, len);
		return -1;
	}
	if (op == IBV_WR_SEND)
		at = rc_mismatch_at(data + 4, len - 4, msg_seed(seq, op), 4, &bad);
	else
		at = rc_mismatch(data, len, msg_seed(seq, op), &bad);
	if (bad) {
		diag("message %u: %zu wrong bytes, the first at %zu", seq, bad,
		     at);
		return -1;
	}
	return seq;
}

/* What the receiver saw of a phase */
struct arrivals {
	unsigned int first, n;	/* the phase's messages */
	unsigned int count;	/* arrived */
	long last;		/* the newest arrived, first - 1 before any */
	bool bad;		/* a check failed (said why) */
};

/*
 * poll_arrivals() - take the receive completions there are, waiting up to
 * @ms for the first; false if there were none
 */
static bool poll_arrivals(struct run *r, enum ibv_wr_opcode op,
			  struct arrivals *a, int ms)
{
	struct ibv_wc wc[16];
	int i, got;
	long seq;

	got = rc_poll(r->p.b.rcq, wc, ARRAY_SIZE(wc), 1, ms);
	if (got < 0)
		a->bad = true;
	for (i = 0; i < got && !a->bad; i++) {
		seq = check_recv(r, &wc[i], op);
		if (seq < 0) {
			a->bad = true;
		} else if (seq <= a->last || seq >= a->first + a->n) {
			diag("message %ld after %ld (phase %u..%u)", seq,
			     a->last, a->first, a->first + a->n - 1);
			a->bad = true;
		} else {
			a->last = seq;
			a->count++;
		}
	}
	return got > 0;
}

/*
 * phase() - @n messages from r->seq on; how many arrived, or -1 if a check
 * of the traffic itself failed (said why). Each message waits until it
 * arrived or ARRIVAL_MS passed (lost), so that the sender never runs ahead
 * of the receiver: the only loss is the link's.
 */
static int phase(struct run *r, enum ibv_wr_opcode op, unsigned int n)
{
	struct arrivals a = { .first = r->seq, .n = n, .last = (long)r->seq - 1 };
	struct ibv_sge sge = rc_sge(&r->rbuf, (size_t)r->posted * r->bytes,
				    r->bytes);
	unsigned int seq;
	long long until;
	bool sent = true;

	r->seq += n;
	/* receive wr_id i goes into slot i */
	if (rc_post_recvs(r->p.b.qp, r->p.b.srq, r->posted, n, &sge, 1,
			  r->bytes))
		return -1;
	r->posted += n;
	for (seq = a.first; seq < a.first + n && sent && !a.bad; seq++) {
		sent = send_one(r, op, seq);
		until = now_ms() + ARRIVAL_MS;
		while (a.last < (long)seq && !a.bad && now_ms() < until)
			poll_arrivals(r, op, &a, 10);
	}
	check(sent, "%s: %u sends complete with IBV_WC_SUCCESS", op_name(op),
	      seq - a.first);
	/* late ones: until QUIET_MS pass without any */
	while (a.count < n && !a.bad && poll_arrivals(r, op, &a, QUIET_MS))
		;
	return sent && !a.bad ? (int)a.count : -1;
}

/* lossy_phase() - phase 1 of @op: MSGS messages */
static void lossy_phase(struct run *r, enum ibv_wr_opcode op)
{
	int got = phase(r, op, r->msgs);

	if (got >= 0)
		r->lost += r->msgs - got;
	if (r->lossy)
		check(got > 0 && got < (int)r->msgs,
		      "%s: over the lossy link, %d of %u messages arrive intact and in order",
		      op_name(op), got, r->msgs);
	else
		check(got == (int)r->msgs,
		      "%s: %d of %u messages arrive intact and in order",
		      op_name(op), got, r->msgs);
}

/* after_phase() - phase 2 of @op: every message arrives */
static void after_phase(struct run *r, enum ibv_wr_opcode op)
{
	int got = phase(r, op, AFTER_MSGS);

	check(got == AFTER_MSGS,
	      "%s: then %d of %u messages more arrive intact and in order",
	      op_name(op), got, AFTER_MSGS);
}

/* bad_usage()'s text */
#define USAGE	"usage: uc_loss [-n MSGS] [-s BYTES] [-l] [-c COMMAND] [-T SECONDS] DEVICE PEER_DEVICE\n"

int main(int argc, char **argv)
{
	struct run r = { .msgs = 200, .bytes = 4096 };
	unsigned int seconds = 120;
	struct rc_dev da, db, *pdb = &db;
	struct rc_qp_opts o;
	int c;

	while ((c = getopt(argc, argv, "n:s:lc:T:")) != -1) {
		switch (c) {
		case 'n':
			r.msgs = strtoul(optarg, NULL, 0);
			break;
		case 's':
			r.bytes = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			r.lossy = true;
			break;
		case 'c':
			r.command = optarg;
			break;
		case 'T':
			seconds = strtoul(optarg, NULL, 0);
			break;
		default:
			bad_usage(USAGE);
		}
	}
	if (argc - optind != 2 || r.msgs < 4 || r.bytes < SHORT_BYTES)
		bad_usage(USAGE);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(seconds);

	if (rc_dev_open(&da, argv[optind]))
		return 1;
	if (strcmp(argv[optind], argv[optind + 1])) {
		if (rc_dev_open(&db, argv[optind + 1]))
			return 1;
	} else {
		pdb = &da;
	}
	rc_qp_opts_default(&o);
	o.qp_type = IBV_QPT_UC;
	r.total = 2 * (r.msgs + AFTER_MSGS);
	o.recv_wr = r.total;
	o.cqe = r.total;
	if (rc_pair_create(&r.p, &da, pdb, &o))
		return 1;
	r.p.ca.path_mtu = IBV_MTU_1024;
	r.p.cb.path_mtu = IBV_MTU_1024;
	if (!check(!rc_pair_connect(&r.p), "UC QPs %#x -> %#x connected (MTU 1024)",
		   r.p.a.qp->qp_num, r.p.b.qp->qp_num))
		return 1;
	if (rc_buf_reg(&r.sbuf, da.pd, r.bytes, 0) ||
	    rc_buf_reg(&r.rbuf, pdb->pd, 2 * (size_t)r.total * r.bytes,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
		return 1;

	lossy_phase(&r, IBV_WR_SEND);
	lossy_phase(&r, IBV_WR_RDMA_WRITE_WITH_IMM);
	if (r.command) {
		c = system(r.command);
		check(c == 0, "'%s' exits 0 (%d)", r.command, c);
	}
	after_phase(&r, IBV_WR_SEND);
	after_phase(&r, IBV_WR_RDMA_WRITE_WITH_IMM);
	printf("# lost %u messages\n", r.lost);

	check(rc_qp_state(r.p.a.qp) == IBV_QPS_RTS &&
	      rc_qp_state(r.p.b.qp) == IBV_QPS_RTS,
	      "both QPs still in RTS (%s, %s)",
	      rc_state_name(rc_qp_state(r.p.a.qp)),
	      rc_state_name(rc_qp_state(r.p.b.qp)));
	rc_buf_free(&r.rbuf);
	rc_buf_free(&r.sbuf);
	rc_pair_destroy(&r.p);
	if (pdb != &da)
		rc_dev_close(&db);
	rc_dev_close(&da);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
}
