/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Test programs whose two ends run on two hosts (tests/lib/hosts.c): a TCP
 * connection between them, over which each end tells the other what its
 * RC QP needs to connect, and then whatever the program's steps exchange.
 * The end that waits for the other accepts on a TCP port; the other
 * connects to it, trying again until a deadline.
 */
#ifndef SRDMA_TESTS_HOSTS_H
#define SRDMA_TESTS_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "rc_pair.h"

/* What an RC QP's peer needs to connect to it */
struct hosts_qp {
	unsigned int qpn;
	unsigned int psn;
	unsigned int mtu;			/* enum ibv_mtu, the port's active */
	unsigned char gid[16];
};

/* hosts_accept() - the first connection to TCP @port: its fd, or -1 */
int hosts_accept(unsigned short port);
/* hosts_connect() - a connection to @addr:@port within @timeout_s, or -1 */
int hosts_connect(const char *addr, unsigned short port, int timeout_s);
/* hosts_io() - write (@out) or read all @len bytes: false if it could not */
bool hosts_io(int fd, void *buf, size_t len, bool out);
/* hosts_sync() - one byte each way: both ends reached this point */
bool hosts_sync(int fd);

/* hosts_qp() - what the peer of @e, connected as @c says, needs */
struct hosts_qp hosts_qp(const struct rc_end *e, const struct rc_conn *c);
/* hosts_connect_qp() - @e from Reset to RTS, connected to @peer's QP */
int hosts_connect_qp(struct rc_end *e, const struct rc_conn *c,
		     const struct hosts_qp *peer);

#endif /* SRDMA_TESTS_HOSTS_H */
