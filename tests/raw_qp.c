// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * raw_qp DEVICE NETNS PEER_IFNAME: a RAW_PACKET QP on DEVICE against a
 * packet socket on PEER_IFNAME inside network namespace NETNS (the other
 * end of the device's veth). TAP output.
 *
 * - Frames the QP sends (ethertype 0x88b5, sizes from 60 bytes to the
 *   MTU, a pattern per frame) arrive at the packet socket byte for byte.
 * - Frames the packet socket sends arrive in the QP's receive buffers whole,
 *   from the destination MAC on, in order; RoCEv2 frames do not.
 * - A frame shorter than an Ethernet header or longer than the MTU allows
 *   completes with IBV_WC_LOC_LEN_ERR; a receive buffer too small for a
 *   frame completes with IBV_WC_LOC_LEN_ERR.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "tap.h"
#include "rc_pair.h"

#define ETHERTYPE_TEST	0x88b5	/* IEEE local experimental */
#define NFRAMES		8
#define BUF_BYTES	2048
#define NBUFS		32

struct raw {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;	/* NBUFS receive buffers, then send buffers */
};

static int peer_sock = -1;
static unsigned char peer_mac[ETH_ALEN], own_mac[ETH_ALEN];
static int peer_ifindex;
static unsigned int mtu;

/* the packet socket on @ifname inside @netns; the caller stays where it was */
static int open_peer_socket(const char *netns, const char *ifname)
{
	char path[256];
	struct ifreq ifr = {};
	struct sockaddr_ll sll = {};
	int self, ns, fd;

	snprintf(path, sizeof(path), "/var/run/netns/%s", netns);
	self = open("/proc/self/ns/net", O_RDONLY);
	ns = open(path, O_RDONLY);
	if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET))
		return -1;
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	memcpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (fd >= 0 && !ioctl(fd, SIOCGIFINDEX, &ifr)) {
		peer_ifindex = ifr.ifr_ifindex;
		sll.sll_family = AF_PACKET;
		sll.sll_protocol = htons(ETH_P_ALL);
		sll.sll_ifindex = peer_ifindex;
		if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) ||
		    ioctl(fd, SIOCGIFHWADDR, &ifr)) {
			close(fd);
			fd = -1;
		} else {
			memcpy(peer_mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
		}
	}
	if (setns(self, CLONE_NEWNET)) {
		diag("cannot go back to the first namespace");
		exit(1);
	}
	close(self);
	close(ns);
	return fd;
}

/* the MAC and MTU of the netdev under @dev (its first RoCE GID's netdev) */
static int own_netdev(const char *dev, char *ifname, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", dev);
	f = fopen(path, "r");
	if (!f || !fgets(ifname, len, f))
		return -1;
	fclose(f);
	ifname[strcspn(ifname, "\n")] = 0;
	return 0;
}

static int raw_setup(struct raw *r, const char *dev)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = 64, .max_recv_wr = NBUFS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	r->ctx = open_device(dev);
	if (!r->ctx)
		return -1;
	r->pd = ibv_alloc_pd(r->ctx);
	r->cq = ibv_create_cq(r->ctx, 128, NULL, NULL, 0);
	r->buf = calloc(2 * NBUFS, BUF_BYTES);
	if (!r->pd || !r->cq || !r->buf)
		return -1;
	r->mr = ibv_reg_mr(r->pd, r->buf, 2 * NBUFS * BUF_BYTES,
			   IBV_ACCESS_LOCAL_WRITE);
	init.send_cq = r->cq;
	init.recv_cq = r->cq;
	r->qp = ibv_create_qp(r->pd, &init);
	if (!r->mr || !r->qp)
		return -1;
	if (ibv_modify_qp(r->qp, &attr, IBV_QP_STATE | IBV_QP_PORT))
		return -1;
	attr.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(r->qp, &attr, IBV_QP_STATE))
		return -1;
	attr.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(r->qp, &attr, IBV_QP_STATE);
}

/* buf_sge() - @len bytes of buffer @i: NBUFS to receive into, then to send */
static struct ibv_sge buf_sge(const struct raw *r, unsigned int i,
			      unsigned int len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(r->buf + i * BUF_BYTES),
		.length = len,
		.lkey = r->mr->lkey,
	};

	return sge;
}

static int post_send(struct raw *r, unsigned int i, unsigned int len)
{
	struct ibv_sge sge = buf_sge(r, NBUFS + i, len);
	struct ibv_send_wr wr = rc_send_wr(1000 + i, IBV_WR_SEND, &sge, 1,
					   IBV_SEND_SIGNALED, 0, 0);
	struct ibv_send_wr *bad;

	return ibv_post_send(r->qp, &wr, &bad);
}

/* one completion, waiting up to 5 s; 0 if it came */
static int poll_one(struct raw *r, struct ibv_wc *wc)
{
	long long end = now_ms() + 5000;
	int n;

	while ((n = ibv_poll_cq(r->cq, 1, wc)) == 0 && now_ms() < end)
		sleep_ms(1);
	return n == 1 ? 0 : -1;
}

/* a test frame of @len bytes: @dst, @src, the test ethertype, a pattern */
static void make_frame(unsigned char *p, unsigned int len, const unsigned char *dst,
		       const unsigned char *src, unsigned int seed)
{
	unsigned int i;

	memcpy(p, dst, ETH_ALEN);
	memcpy(p + ETH_ALEN, src, ETH_ALEN);
	p[12] = ETHERTYPE_TEST >> 8;
	p[13] = ETHERTYPE_TEST & 0xff;
	for (i = ETH_HLEN; i < len; i++)
		p[i] = (unsigned char)(seed * 31 + i);
}

/* the next frame of the test ethertype on the peer socket, up to 5 s */
static ssize_t peer_recv(unsigned char *p, size_t len)
{
	struct pollfd pfd = { .fd = peer_sock, .events = POLLIN };
	long long end = now_ms() + 5000;
	ssize_t n;

	while (now_ms() < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(peer_sock, p, len, 0);
		if (n >= ETH_HLEN && p[12] == ETHERTYPE_TEST >> 8 &&
		    p[13] == (ETHERTYPE_TEST & 0xff))
			return n;
	}
	return -1;
}

static void test_send(struct raw *r)
{
	unsigned int sizes[NFRAMES] = { 60, 64, 100, 512, 999, 1024, 1400,
				    mtu + ETH_HLEN };
	unsigned char got[BUF_BYTES];
	struct ibv_wc wc;
	unsigned int i, ok = 0;
	ssize_t n;

	for (i = 0; i < NFRAMES; i++) {
		unsigned char *p = r->buf + (NBUFS + i) * BUF_BYTES;

		make_frame(p, sizes[i], peer_mac, own_mac, i);
		if (post_send(r, i, sizes[i]) || poll_one(r, &wc) ||
		    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_SEND) {
			diag("frame %u (%u bytes): send failed", i, sizes[i]);
			continue;
		}
		n = peer_recv(got, sizeof(got));
		if (n != (ssize_t)sizes[i] || memcmp(got, p, sizes[i])) {
			diag("frame %u: the peer got %zd bytes, want %u", i, n,
			     sizes[i]);
			continue;
		}
		ok++;
	}
	check(ok == NFRAMES,
	      "%u of %u frames sent by the QP (60 to %u bytes) seen by the peer's packet socket, byte for byte",
	      ok, NFRAMES, mtu + ETH_HLEN);
}

static void test_send_bad_length(struct raw *r)
{
	struct ibv_wc wc;
	int st = -1;

	if (!post_send(r, 0, ETH_HLEN - 1) && !poll_one(r, &wc))
		st = wc.status;
	check(st == IBV_WC_LOC_LEN_ERR,
	      "a 13-byte frame completes with LOC_LEN_ERR (got %d)", st);
}

static void test_send_too_long(struct raw *r)
{
	struct ibv_wc wc;
	int st = -1;

	if (!post_send(r, 0, mtu + ETH_HLEN + 4 + 1) && !poll_one(r, &wc))
		st = wc.status;
	check(st == IBV_WC_LOC_LEN_ERR,
	      "a frame one byte over MTU + 18 completes with LOC_LEN_ERR (got %d)",
	      st);
}

/* a RoCEv2 packet (UDP to 4791), which a RAW QP must not see */
static unsigned int make_rocev2(unsigned char *p)
{
	struct iphdr *ip = (struct iphdr *)(p + ETH_HLEN);
	struct udphdr *udp = (struct udphdr *)(ip + 1);
	unsigned int len = ETH_HLEN + sizeof(*ip) + sizeof(*udp) + 32;

	memset(p, 0, len);
	memcpy(p, own_mac, ETH_ALEN);
	memcpy(p + ETH_ALEN, peer_mac, ETH_ALEN);
	p[12] = 0x08;
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(len - ETH_HLEN);
	ip->saddr = htonl(0xc6120002);
	ip->daddr = htonl(0xc6120001);
	udp->source = htons(0xc000);
	udp->dest = htons(4791);
	udp->len = htons(sizeof(*udp) + 32);
	return len;
}

static void test_recv(struct raw *r)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = 0,
		.sll_halen = ETH_ALEN,
	};
	unsigned char frame[BUF_BYTES];
	unsigned int i, ok = 0, roce = 0;
	struct ibv_sge sge = buf_sge(r, 0, BUF_BYTES);
	unsigned int len;
	struct ibv_wc wc;

	sll.sll_ifindex = peer_ifindex;
	/* receive wr_id i into buffer i */
	rc_post_recvs(r->qp, NULL, 0, NBUFS, &sge, 1, BUF_BYTES);
	/* a RoCEv2 frame first: it must not take a buffer */
	len = make_rocev2(frame);
	sendto(peer_sock, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll));
	for (i = 0; i < NFRAMES; i++) {
		len = 60 + i * 150;
		make_frame(frame, len, own_mac, peer_mac, 100 + i);
		if (sendto(peer_sock, frame, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != len) {
			diag("the peer could not send frame %u", i);
			continue;
		}
		/* other frames (IPv6 neighbour discovery...) come too */
		while (!poll_one(r, &wc)) {
			unsigned char *p = r->buf + wc.wr_id * BUF_BYTES;

			sge = buf_sge(r, wc.wr_id, BUF_BYTES);
			rc_post_recvs(r->qp, NULL, wc.wr_id, 1, &sge, 1, 0);
			if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV) {
				diag("receive completion status %d", wc.status);
				break;
			}
			if (wc.byte_len >= ETH_HLEN + 28 && p[12] == 0x08 &&
			    p[13] == 0 && p[ETH_HLEN + 9] == IPPROTO_UDP &&
			    p[ETH_HLEN + 22] == 4791 >> 8 &&
			    p[ETH_HLEN + 23] == (4791 & 0xff))
				roce++;
			if (p[12] != ETHERTYPE_TEST >> 8)
				continue;
			if (wc.byte_len == len && !memcmp(p, frame, len))
				ok++;
			else
				diag("frame %u: %u bytes arrived, want %u", i,
				     wc.byte_len, len);
			break;
		}
	}
	check(ok == NFRAMES,
	      "%u of %u frames from the peer's packet socket received whole, from the destination MAC on",
	      ok, NFRAMES);
	check(roce == 0, "no RoCEv2 frame reached the RAW QP (%u did)", roce);
}

static void test_recv_too_small(struct raw *r)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_halen = ETH_ALEN,
	};
	unsigned char frame[BUF_BYTES];
	struct ibv_sge sge = buf_sge(r, 0, 40);
	struct ibv_wc wc;
	int st = -1;

	sll.sll_ifindex = peer_ifindex;
	rc_post_recvs(r->qp, NULL, 0, 1, &sge, 1, 0);
	make_frame(frame, 200, own_mac, peer_mac, 7);
	sendto(peer_sock, frame, 200, 0, (struct sockaddr *)&sll, sizeof(sll));
	if (!poll_one(r, &wc))
		st = wc.status;
	check(st == IBV_WC_LOC_LEN_ERR,
	      "a 200-byte frame into a 40-byte buffer completes with LOC_LEN_ERR (got %d)",
	      st);
}

static void raw_close(struct raw *r)
{
	if (r->qp)
		ibv_destroy_qp(r->qp);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

int main(int argc, char **argv)
{
	char ifname[IFNAMSIZ + 2] = "";
	struct ifreq ifr = {};
	struct raw r = {};
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEVICE NETNS PEER_IFNAME\n", argv[0]);
		return 2;
	}
	signal(SIGALRM, tap_bail_out_on_alarm);
	alarm(120);
	peer_sock = open_peer_socket(argv[2], argv[3]);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!check(peer_sock >= 0 && !own_netdev(argv[1], ifname, sizeof(ifname)),
		   "a packet socket on %s in namespace %s", argv[3], argv[2]))
		return 1;
	memcpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		return 1;
	memcpy(own_mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	if (ioctl(fd, SIOCGIFMTU, &ifr))
		return 1;
	mtu = ifr.ifr_mtu;
	close(fd);

	if (!check(!raw_setup(&r, argv[1]),
		   "a RAW_PACKET QP on %s (%s, MTU %u) in RTS", argv[1], ifname,
		   mtu))
		return 1;
	test_send(&r);
	test_recv(&r);
	raw_close(&r);
	/* fresh QPs: only the buffers of the test are posted, and an error
	 * moves a QP to ERR
	 */
	if (!raw_setup(&r, argv[1]))
		test_recv_too_small(&r);
	raw_close(&r);
	if (!raw_setup(&r, argv[1]))
		test_send_bad_length(&r);
	raw_close(&r);
	if (!raw_setup(&r, argv[1]))
		test_send_too_long(&r);
	raw_close(&r);
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
}
