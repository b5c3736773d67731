// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cm_alloc_failures: rdma_cm connections while the kernel fails some of
 * the allocations of the tasks that make them.
 *
 *   cm_alloc_failures [-r ROUNDS] NAMESPACE SERVER_IP CLIENT_IP
 *
 * A server thread, moved into network namespace NAMESPACE, listens on
 * SERVER_IP; the main thread connects to it from CLIENT_IP ROUNDS times,
 * each time making everything anew: an event channel, an id, address and
 * route resolution, a PD, a CQ, the QP (rdma_create_qp), the connection.
 * It then sends the round's 64 bytes, which the server checks, disconnects
 * and destroys it all. Each of the client's steps, and the server's
 * rdma_create_qp, is called with the calling thread's allocations failing
 * (fail_inject.h); a step that fails for want of memory, or whose event
 * says so, is taken again, up to TRIES times, then once without failures.
 * The steps that allocate only a record or two (channel, id, PD, CQ) are
 * also made and taken back with failures on until they have failed once
 * (probe()): 20 rounds alone leave them a chance of a few in a hundred of
 * never failing.
 * Three steps run without failures: the server's rdma_accept (librdmacm
 * moves the QP to RTR and RTS before it asks the kernel to accept, and a
 * second try would find the QP in RTR already), rdma_disconnect (the RDMA
 * CM ignores a DREQ it could not allocate and returns 0: the peer then
 * hears of nothing, and the id waits out its timewait, ib_core's way) and
 * the client's rdma_bind_addr, right after rdma_create_id (rdma_cm's port
 * table keeps what a failed insert added: do_id()).
 *
 * Checks: every failure says the kernel ran out of memory (ENOMEM, or the
 * errno struct step_info names), each step that allocates both failed and
 * succeeded, every round connected and its bytes arrived. The scenario
 * then checks that nothing leaked and that the devices still work.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail_inject.h"
#include "rc_pair.h"

#define DEFAULT_ROUNDS		20
#define TRIES			20	/* with failures, then once without */
#define PROBES			10	/* probe() */
#define RUN_TIMEOUT_S		240
#define EVENT_TIMEOUT_MS	10000
#define CQ_TIMEOUT_MS		5000
#define PORT			7471
#define MSG_BYTES		64
#define RESOLVE_MS		2000

enum step {
	S_CHANNEL,
	S_ID,
	S_ADDR,
	S_ROUTE,
	S_PD,
	S_CQ,
	S_QP,
	S_CONNECT,
	S_DESTROY,
	S_SERVER_QP,
	NR_STEPS
};

/*
 * @nomem_too: the errno besides ENOMEM that says the kernel ran out of
 * memory: librdmacm opens its character device and, when that fails, looks
 * for it elsewhere (rdma-core's open_cdev()), which ends in ENOENT; a route
 * lookup that cannot allocate its entry says ENOBUFS.
 * @need_not_fail: a run may see it never fail (it allocates one small
 * record on the way, or nothing).
 */
static const struct step_info {
	const char *name;
	int nomem_too;
	bool need_not_fail;
} steps[NR_STEPS] = {
	[S_CHANNEL] = { "rdma_create_event_channel", ENOENT },
	[S_ID] = { "rdma_create_id" },
	[S_ADDR] = { "rdma_resolve_addr", ENOBUFS, true },
	[S_ROUTE] = { "rdma_resolve_route", ENOBUFS, true },
	[S_PD] = { "ibv_alloc_pd" },
	[S_CQ] = { "ibv_create_cq" },
	[S_QP] = { "rdma_create_qp" },
	[S_CONNECT] = { "rdma_connect", ENOBUFS },
	[S_DESTROY] = { "destroy, dealloc", 0, true },
	[S_SERVER_QP] = { "rdma_create_qp (server)" },
};

struct tally {
	atomic_uint ok, nomem, unarmed, other;
	atomic_int other_err;
};

struct client {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char buf[MSG_BYTES];
	struct sockaddr_in src, dst;
};

static struct tally tally[NR_STEPS];
static atomic_uint received_ok, received_bad;
static atomic_bool server_ready, stopping;
static const char *netns;
static struct sockaddr_in server_addr;

typedef int (*step_call)(void *arg, int fd);
typedef void (*step_undo)(void *arg);

static bool is_nomem(enum step s, int err)
{
	return err == ENOMEM || (err && err == steps[s].nomem_too);
}

static void count(enum step s, int err, bool armed)
{
	struct tally *t = &tally[s];

	if (!armed) {
		t->unarmed++;
	} else if (!err) {
		t->ok++;
	} else if (is_nomem(s, err)) {
		t->nomem++;
	} else {
		t->other++;
		t->other_err = err;
	}
}

/* armed_call() - @call once with failures on, counted; its errno */
static int armed_call(enum step s, step_call call, void *arg, int fd)
{
	int err;

	fail_inject_arm(fd, true);
	errno = 0;
	err = call(arg, fd);
	fail_inject_arm(fd, false);
	count(s, err, true);
	return err;
}

/*
 * probe() - a step that allocates little can succeed in every round by
 * chance, and then never shows that it fails cleanly: until it has failed
 * for want of memory, it is made with failures on and taken back by @undo,
 * PROBES times at most per round
 */
static void probe(enum step s, step_call call, step_undo undo, void *arg,
		  int fd)
{
	int i;

	for (i = 0; i < PROBES && !tally[s].nomem; i++)
		if (!armed_call(s, call, arg, fd))
			undo(arg);
}

/*
 * attempt() - @call with failures on until it does not fail for want of
 * memory (TRIES times at most), then once without; the errno of the last
 */
static int attempt(enum step s, step_call call, void *arg, int fd)
{
	int i, err = ENOMEM;

	for (i = 0; i < TRIES && is_nomem(s, err); i++)
		err = armed_call(s, call, arg, fd);
	if (is_nomem(s, err)) {
		err = call(arg, fd);
		count(s, err, false);
	}
	if (err)
		diag("%s: %s", steps[s].name, strerror(err));
	return err;
}

/*
 * The next event of @ch within @ms, acknowledged: its type (-1 if none),
 * its status in *@status, its id in *@id
 */
static int next_event(struct rdma_event_channel *ch, int ms, int *status,
		      struct rdma_cm_id **id)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int type;

	*status = 0;
	if (poll(&pfd, 1, ms) != 1 || rdma_get_cm_event(ch, &ev))
		return -1;
	type = ev->event;
	*status = ev->status;
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	return type;
}

/*
 * wait_for() - the event a resolution or a connection ends with: 0 if
 * @want, ENOMEM-like if its status says so, EPROTO for anything else
 */
static int wait_for(struct client *c, int want)
{
	int status, type = next_event(c->ch, EVENT_TIMEOUT_MS, &status, NULL);

	if (type == want)
		return 0;
	diag("waited for %s, got %s (status %d)", rdma_event_str(want),
	     type < 0 ? "nothing" : rdma_event_str(type), status);
	return status < 0 ? -status : EPROTO;
}

static int do_channel(void *arg, int fd)
{
	struct client *c = arg;

	(void)fd;
	c->ch = rdma_create_event_channel();
	return rc_ptr_err(c->ch);
}

static void undo_channel(void *arg)
{
	struct client *c = arg;

	rdma_destroy_event_channel(c->ch);
	c->ch = NULL;
}

/*
 * The id with failures on, its port bound without: an XArray insert that
 * fails for want of memory leaves the nodes it added in the tree, so
 * rdma_cm's port table would never be empty again and rdma_cm would warn
 * when it is unloaded (cma_exit_net(), 6.1 and 6.12 alike).
 */
static int do_id(void *arg, int fd)
{
	struct client *c = arg;
	int err;

	err = rc_verb_err(rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP));
	if (err)
		return err;
	fail_inject_arm(fd, false);
	err = rc_verb_err(rdma_bind_addr(c->id, (struct sockaddr *)&c->src));
	if (err) {
		diag("rdma_bind_addr: %s", strerror(err));
		rdma_destroy_id(c->id);
		c->id = NULL;
	}
	return err;
}

static void undo_id(void *arg)
{
	struct client *c = arg;

	rdma_destroy_id(c->id);
	c->id = NULL;
}

/* the call with failures on, the event it ends with without */
static int do_addr(void *arg, int fd)
{
	struct client *c = arg;
	int err;

	err = rc_verb_err(rdma_resolve_addr(c->id, (struct sockaddr *)&c->src,
					    (struct sockaddr *)&c->dst,
					    RESOLVE_MS));
	fail_inject_arm(fd, false);
	return err ?: wait_for(c, RDMA_CM_EVENT_ADDR_RESOLVED);
}

static int do_route(void *arg, int fd)
{
	struct client *c = arg;
	int err;

	err = rc_verb_err(rdma_resolve_route(c->id, RESOLVE_MS));
	fail_inject_arm(fd, false);
	return err ?: wait_for(c, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

static int do_pd(void *arg, int fd)
{
	struct client *c = arg;

	(void)fd;
	c->pd = ibv_alloc_pd(c->id->verbs);
	return rc_ptr_err(c->pd);
}

static void undo_pd(void *arg)
{
	struct client *c = arg;

	ibv_dealloc_pd(c->pd);
	c->pd = NULL;
}

static int do_cq(void *arg, int fd)
{
	struct client *c = arg;

	(void)fd;
	c->cq = ibv_create_cq(c->id->verbs, 8, NULL, NULL, 0);
	return rc_ptr_err(c->cq);
}

static void undo_cq(void *arg)
{
	struct client *c = arg;

	ibv_destroy_cq(c->cq);
	c->cq = NULL;
}

static struct ibv_qp_init_attr qp_attr(struct ibv_cq *cq)
{
	return (struct ibv_qp_init_attr){
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

static int do_qp(void *arg, int fd)
{
	struct client *c = arg;
	struct ibv_qp_init_attr attr = qp_attr(c->cq);

	(void)fd;
	return rc_verb_err(rdma_create_qp(c->id, c->pd, &attr));
}

static int do_connect(void *arg, int fd)
{
	struct rdma_conn_param param = { .retry_count = 7,
					  .rnr_retry_count = 7 };
	struct client *c = arg;
	int err;

	err = rc_verb_err(rdma_connect(c->id, &param));
	fail_inject_arm(fd, false);
	return err ?: wait_for(c, RDMA_CM_EVENT_ESTABLISHED);
}

/* the client's objects, newest first; NULL once gone */
static int do_destroy(void *arg, int fd)
{
	struct client *c = arg;
	int err = 0;

	(void)fd;
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr) {
		err = rc_verb_err(ibv_dereg_mr(c->mr));
		if (err)
			return err;
		c->mr = NULL;
	}
	if (c->cq) {
		err = rc_verb_err(ibv_destroy_cq(c->cq));
		if (err)
			return err;
		c->cq = NULL;
	}
	if (c->pd) {
		err = rc_verb_err(ibv_dealloc_pd(c->pd));
		if (err)
			return err;
		c->pd = NULL;
	}
	if (c->id) {
		err = rc_verb_err(rdma_destroy_id(c->id));
		if (err)
			return err;
		c->id = NULL;
	}
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	c->ch = NULL;
	return 0;
}

/* one completion of @cq within CQ_TIMEOUT_MS, IBV_WC_SUCCESS */
static bool completed(struct ibv_cq *cq)
{
	long long deadline = now_ms() + CQ_TIMEOUT_MS;
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && now_ms() < deadline)
		sleep_ms(1);
	if (n == 1 && wc.status == IBV_WC_SUCCESS)
		return true;
	diag("a completion: %s", n == 1 ? ibv_wc_status_str(wc.status) :
					    "none");
	return false;
}

static void fill(unsigned char *buf, unsigned int round)
{
	unsigned int i;

	for (i = 0; i < MSG_BYTES; i++)
		buf[i] = round * 31 + i;
}

/* the round's SEND, its completion without failures */
static bool send_round(struct client *c, unsigned int round)
{
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf,
			       .length = MSG_BYTES };
	struct ibv_send_wr wr = rc_send_wr(round, IBV_WR_SEND, &sge, 1,
					   IBV_SEND_SIGNALED, 0, 0), *bad;

	fill(c->buf, round);
	c->mr = ibv_reg_mr(c->pd, c->buf, MSG_BYTES, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return false;
	sge.lkey = c->mr->lkey;
	return !ibv_post_send(c->id->qp, &wr, &bad) && completed(c->cq);
}

static bool client_round(struct client *c, unsigned int round, int fd)
{
	static const struct {
		enum step s;
		step_call call;
		step_undo undo;	/* for probe(): what allocates little */
	} plan[] = {
		{ S_CHANNEL, do_channel, undo_channel }, { S_ID, do_id, undo_id },
		{ S_ADDR, do_addr, NULL }, { S_ROUTE, do_route, NULL },
		{ S_PD, do_pd, undo_pd }, { S_CQ, do_cq, undo_cq },
		{ S_QP, do_qp, NULL }, { S_CONNECT, do_connect, NULL },
	};
	bool ok = true;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(plan) && ok; i++) {
		if (plan[i].undo)
			probe(plan[i].s, plan[i].call, plan[i].undo, c, fd);
		ok = !attempt(plan[i].s, plan[i].call, c, fd);
	}
	if (ok) {
		ok = send_round(c, round);
		if (!ok)
			diag("round %u: the SEND did not complete", round);
		if (rdma_disconnect(c->id) ||
		    wait_for(c, RDMA_CM_EVENT_DISCONNECTED))
			ok = false;
	}
	if (attempt(S_DESTROY, do_destroy, c, fd))
		ok = false;
	return ok;
}

/* The server's side of a connection */
struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char buf[MSG_BYTES];
};

static int do_server_qp(void *arg, int fd)
{
	struct conn *s = arg;
	struct ibv_qp_init_attr attr = qp_attr(s->cq);

	(void)fd;
	return rc_verb_err(rdma_create_qp(s->id, s->pd, &attr));
}

static void conn_free(struct conn *s)
{
	if (s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	rdma_destroy_id(s->id);
	free(s);
}

/* a request: a QP with a receive posted, accepted; NULL if refused */
static struct conn *serve_request(struct rdma_cm_id *id, int fd)
{
	struct conn *s = calloc(1, sizeof(*s));
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct rdma_conn_param param = { .rnr_retry_count = 7 };

	if (!s)
		return NULL;
	s->id = id;
	id->context = s;
	s->pd = ibv_alloc_pd(id->verbs);
	s->cq = s->pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	s->mr = s->cq ? ibv_reg_mr(s->pd, s->buf, MSG_BYTES,
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!s->mr || attempt(S_SERVER_QP, do_server_qp, s, fd))
		goto refuse;
	sge = (struct ibv_sge){ .addr = (uintptr_t)s->buf,
				.length = MSG_BYTES, .lkey = s->mr->lkey };
	if (ibv_post_recv(id->qp, &wr, &bad) || rdma_accept(id, &param)) {
		diag("the server's post_recv or rdma_accept: %s",
		     strerror(errno));
		goto refuse;
	}
	return s;
refuse:
	rdma_reject(id, NULL, 0);
	conn_free(s);
	return NULL;
}

/* a connection's receive: the round's bytes (its first byte names it) */
static void check_received(struct conn *s)
{
	unsigned char want[MSG_BYTES];
	struct ibv_wc wc;
	int n = ibv_poll_cq(s->cq, 1, &wc);

	if (n != 1 || wc.status != IBV_WC_SUCCESS) {
		received_bad++;
		return;
	}
	fill(want, (s->buf[0] * 0xdf) & 0xff);	/* 0xdf * 31 = 1 mod 256 */
	if (memcmp(want, s->buf, MSG_BYTES))
		received_bad++;
	else
		received_ok++;
}

static void *server(void *arg)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id, *id;
	int fd, ns, type, status;
	struct conn *s;

	(void)arg;
	ns = open(netns, O_RDONLY);
	if (ns < 0 || setns(ns, CLONE_NEWNET)) {
		printf("Bail out! setns %s: %s\n", netns, strerror(errno));
		exit(2);
	}
	close(ns);
	fd = fail_inject_open();
	ch = rdma_create_event_channel();
	if (fd < 0 || !ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&server_addr) ||
	    rdma_listen(listen_id, 8)) {
		printf("Bail out! the listening id: %s\n",
		       strerror(errno));
		exit(2);
	}
	server_ready = true;
	while (!stopping) {
		type = next_event(ch, 100, &status, &id);
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			serve_request(id, fd);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			s = id->context;
			if (!s)
				break;
			/* the SEND came before the client's DREQ */
			check_received(s);
			conn_free(s);
			break;
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			if (id != listen_id && id->context)
				conn_free(id->context);
			break;
		default:
			break;
		}
	}
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return NULL;
}

static int parse_ip(const char *s, struct sockaddr_in *sin)
{
	sin->sin_family = AF_INET;
	return inet_pton(AF_INET, s, &sin->sin_addr) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned int rounds = DEFAULT_ROUNDS, r, connected = 0;
	struct client c = {};
	char path[256];
	pthread_t thread;
	int opt, s, fd;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r')
			goto usage;
		rounds = strtoul(optarg, NULL, 0);
	}
	if (argc - optind != 3 || !rounds)
		goto usage;
	snprintf(path, sizeof(path), "/run/netns/%s", argv[optind]);
	netns = path;
	if (parse_ip(argv[optind + 1], &server_addr) ||
	    parse_ip(argv[optind + 1], &c.dst) ||
	    parse_ip(argv[optind + 2], &c.src))
		goto usage;
	server_addr.sin_port = htons(PORT);
	c.dst.sin_port = htons(PORT);
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(RUN_TIMEOUT_S);

	fd = fail_inject_open();
	if (fd < 0 || pthread_create(&thread, NULL, server, NULL))
		return 2;
	while (!server_ready)
		sleep_ms(10);
	for (r = 0; r < rounds; r++)
		connected += client_round(&c, r, fd);
	stopping = true;
	pthread_join(thread, NULL);

	for (s = 0; s < NR_STEPS; s++) {
		struct tally *t = &tally[s];

		check(t->ok && (t->nomem || steps[s].need_not_fail) && !t->other,
		      "%s with allocations failing: %u succeeded, %u out of memory, %u other errors%s%s; %u made without failures after %u tries",
		      steps[s].name, t->ok, t->nomem, t->other,
		      t->other ? ", the last " : "",
		      t->other ? strerror(t->other_err) : "", t->unarmed, TRIES);
	}
	check(connected == rounds, "%u of %u rounds connected, sent and disconnected",
	      connected, rounds);
	check(received_ok == rounds && !received_bad,
	      "the server received %u of %u rounds' bytes intact (%u not)",
	      (unsigned int)received_ok, rounds, (unsigned int)received_bad);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s [-r ROUNDS] NAMESPACE SERVER_IP CLIENT_IP\n",
		argv[0]);
	return 2;
}
