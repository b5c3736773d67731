// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Two ends on two hosts: the TCP channel and the QP connection (hosts.h) */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "hosts.h"

int hosts_accept(unsigned short port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1, lfd, fd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return -1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		close(lfd);
		return -1;
	}
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	return fd;
}

int hosts_connect(const char *addr, unsigned short port, int timeout_s)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	long long deadline = now_ms() + timeout_s * 1000LL;
	int fd;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return -1;
	do {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return fd;
		close(fd);
		sleep_ms(100);
	} while (now_ms() < deadline);
	return -1;
}

bool hosts_io(int fd, void *buf, size_t len, bool out)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? write(fd, p, len) : read(fd, p, len);
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

bool hosts_sync(int fd)
{
	char b = 1;

	return hosts_io(fd, &b, 1, true) && hosts_io(fd, &b, 1, false);
}

struct hosts_qp hosts_qp(const struct rc_end *e, const struct rc_conn *c)
{
	struct hosts_qp me = {
		.qpn = e->qp->qp_num,
		.psn = c->sq_psn,
		.mtu = e->dev->port.active_mtu,
	};

	memcpy(me.gid, e->dev->gid.raw, sizeof(me.gid));
	return me;
}

int hosts_connect_qp(struct rc_end *e, const struct rc_conn *c,
		     const struct hosts_qp *peer)
{
	struct ibv_qp peer_qp = { .qp_num = peer->qpn };
	struct rc_dev peer_dev = { .port.active_mtu = peer->mtu };
	struct rc_end pe = { .dev = &peer_dev, .qp = &peer_qp };
	struct rc_conn pc = *c;
	int err;

	memcpy(peer_dev.gid.raw, peer->gid, sizeof(peer->gid));
	pc.sq_psn = peer->psn;
	err = rc_modify_init(e, c);
	if (!err)
		err = rc_modify_rtr(e, c, &pe, &pc);
	if (!err)
		err = rc_modify_rts(e, c);
	if (err)
		diag("QP %#x: connecting: %s", e->qp->qp_num, strerror(err));
	return err;
}
