// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A stand-in for the srdma module's generic netlink family, so that
 * test_cli.sh can run srdma-rate from end to end on a host without the
 * module: LD_PRELOAD it, and socket(AF_NETLINK, ..., NETLINK_GENERIC),
 * setsockopt(), sendto(), recvmsg() and close() on that socket are served
 * here. Everything else goes to libc.
 *
 * It answers as the kernel does: a doit's reply then its ack, a dump in
 * several reads ended by NLMSG_DONE, errors capped with the message only
 * when the socket asked for NETLINK_EXT_ACK. It also refuses what the
 * kernel side is entitled to refuse (a wrong flag, a wrong attribute size),
 * so a sloppy request fails the test instead of passing by luck.
 *
 * Its world: device "srdma0" with QPs 1 (GSI), 17 (RC, admin 1.5gbit) and
 * 18 (UD, no rate, some attributes missing, one from the future). Set
 * requests are written to $FAKE_SRDMA_LOG, one line each.
 * FAKE_SRDMA_ABSENT=1 makes the family unknown.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <srdma/rate_netlink.h>

#define FAKE_FAMILY	0x2a
#define FAKE_PORTID	4242
#define BATCH_LEN	4096
#define MAX_BATCHES	8

static int fake_fd = -1;
static bool ext_ack;

/* what recvmsg() returns next, one read per batch */
static struct {
	union {
		struct nlmsghdr nlh;
		char buf[BATCH_LEN];
	};
	size_t len;
} batches[MAX_BATCHES];
static unsigned int batch_head, batch_tail;

static const struct nlmsghdr *request;

static struct nlmsghdr *batch_msg(uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	if (batch_tail == MAX_BATCHES)
		abort();
	nlh = (struct nlmsghdr *)(batches[batch_tail].buf + batches[batch_tail].len);
	memset(nlh, 0, NLMSG_HDRLEN);
	nlh->nlmsg_len = NLMSG_HDRLEN;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = request->nlmsg_seq;
	nlh->nlmsg_pid = FAKE_PORTID;
	return nlh;
}

static void batch_end_msg(struct nlmsghdr *nlh)
{
	batches[batch_tail].len += NLMSG_ALIGN(nlh->nlmsg_len);
}

static void batch_next(void)
{
	batch_tail++;
}

static void append(struct nlmsghdr *nlh, const void *data, size_t len)
{
	if ((char *)nlh + nlh->nlmsg_len + NLMSG_ALIGN(len) >
	    batches[batch_tail].buf + BATCH_LEN)
		abort();
	memcpy((char *)nlh + nlh->nlmsg_len, data, len);
	nlh->nlmsg_len += NLMSG_ALIGN(len);
}

static void put(struct nlmsghdr *nlh, uint16_t type, const void *data, size_t len)
{
	struct nlattr *nla = (struct nlattr *)((char *)nlh + nlh->nlmsg_len);
	size_t room = NLA_ALIGN(NLA_HDRLEN + len);

	if ((char *)nla + room > batches[batch_tail].buf + BATCH_LEN)
		abort();
	memset(nla, 0, room);
	nla->nla_len = NLA_HDRLEN + len;
	nla->nla_type = type;
	if (len)
		memcpy((char *)nla + NLA_HDRLEN, data, len);
	nlh->nlmsg_len += room;
}

static void put_u8(struct nlmsghdr *nlh, uint16_t type, uint8_t val)
{
	put(nlh, type, &val, sizeof(val));
}

static void put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t val)
{
	put(nlh, type, &val, sizeof(val));
}

/* nla_put_u64_64bit(): a PAD first where the u64 would be misaligned */
static void put_u64(struct nlmsghdr *nlh, uint16_t type, uint64_t val)
{
	if ((nlh->nlmsg_len + NLA_HDRLEN) % 8)
		put(nlh, SRDMA_ATTR_PAD, NULL, 0);
	put(nlh, type, &val, sizeof(val));
}

static struct nlmsghdr *genl_msg(uint16_t type, uint16_t flags, uint8_t cmd)
{
	struct genlmsghdr genl = { .cmd = cmd, .version = 1 };
	struct nlmsghdr *nlh = batch_msg(type, flags);

	append(nlh, &genl, sizeof(genl));
	return nlh;
}

/* netlink_ack() with NETLINK_CAP_ACK: the request is never echoed */
static void ack(int error, const char *msg)
{
	struct nlmsgerr err = { .error = error, .msg = *request };
	struct nlmsghdr *nlh = batch_msg(NLMSG_ERROR, NLM_F_CAPPED);

	append(nlh, &err, sizeof(err));
	if (msg && ext_ack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		put(nlh, NLMSGERR_ATTR_MSG, msg, strlen(msg) + 1);
	}
	batch_end_msg(nlh);
}

static void done(int error, const char *msg)
{
	struct nlmsghdr *nlh = batch_msg(NLMSG_DONE, NLM_F_MULTI);

	append(nlh, &error, sizeof(error));
	if (msg && ext_ack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		put(nlh, NLMSGERR_ATTR_MSG, msg, strlen(msg) + 1);
	}
	batch_end_msg(nlh);
}

/* the request's attributes, checked for the sizes the kernel's policy wants */
struct req_attrs {
	const struct nlattr *tb[SRDMA_ATTR_MAX + 1];
	const char *bad;
};

static const size_t policy_len[SRDMA_ATTR_MAX + 1] = {
	[SRDMA_ATTR_QPN]		= 4,
	[SRDMA_ATTR_RATE_KBPS]		= 8,
	[SRDMA_ATTR_BURST_BYTES]	= 4,
	[SRDMA_ATTR_DEFAULT_KBPS]	= 8,
	[SRDMA_ATTR_CEILING_KBPS]	= 8,
};

static void parse_request(struct req_attrs *ra)
{
	const char *p = (const char *)request + NLMSG_LENGTH(GENL_HDRLEN);
	const char *end = (const char *)request + request->nlmsg_len;
	const struct nlattr *nla;

	memset(ra, 0, sizeof(*ra));
	for (; p + NLA_HDRLEN <= end; p += NLA_ALIGN(nla->nla_len)) {
		nla = (const struct nlattr *)p;
		if (nla->nla_len < NLA_HDRLEN || p + nla->nla_len > end) {
			ra->bad = "fake: malformed attribute";
			return;
		}
		if (nla->nla_type > SRDMA_ATTR_MAX || nla->nla_type == SRDMA_ATTR_PAD) {
			ra->bad = "fake: unexpected attribute";
			return;
		}
		if (policy_len[nla->nla_type] &&
		    nla->nla_len != NLA_HDRLEN + policy_len[nla->nla_type]) {
			ra->bad = "fake: attribute of the wrong size";
			return;
		}
		ra->tb[nla->nla_type] = nla;
	}
	if (p != end) {
		ra->bad = "fake: trailing bytes";
		return;
	}
	nla = ra->tb[SRDMA_ATTR_DEV_NAME];
	if (!nla || nla->nla_len < NLA_HDRLEN + 2 ||
	    ((const char *)nla)[nla->nla_len - 1] != '\0')
		ra->bad = "fake: no NUL-terminated device name";
}

static uint64_t get_u64(const struct nlattr *nla)
{
	uint64_t val = 0;

	memcpy(&val, (const char *)nla + NLA_HDRLEN, nla->nla_len - NLA_HDRLEN);
	return val;
}

static void qp_fill(struct nlmsghdr *nlh, uint32_t qpn)
{
	put(nlh, SRDMA_ATTR_DEV_NAME, "srdma0", 7);
	put_u32(nlh, SRDMA_ATTR_QPN, qpn);
	switch (qpn) {
	case 1:
		put_u8(nlh, SRDMA_ATTR_QP_TYPE, 1);
		put_u64(nlh, SRDMA_ATTR_RATE_KBPS, 25000000);
		put_u32(nlh, SRDMA_ATTR_BURST_BYTES, 65536);
		put_u8(nlh, SRDMA_ATTR_RATE_SOURCE, SRDMA_RATE_CEILING);
		put_u64(nlh, SRDMA_ATTR_ADMIN_KBPS, 0);
		put_u64(nlh, SRDMA_ATTR_VERBS_KBPS, 0);
		put_u64(nlh, SRDMA_ATTR_AV_KBPS, 0);
		put_u64(nlh, SRDMA_ATTR_THROTTLE_EVENTS, 0);
		put_u64(nlh, SRDMA_ATTR_THROTTLED_NS, 0);
		put_u64(nlh, SRDMA_ATTR_TX_BYTES, 5120);
		break;
	case 17:
		put_u8(nlh, SRDMA_ATTR_QP_TYPE, 2);
		put_u64(nlh, SRDMA_ATTR_RATE_KBPS, 1500000);
		put_u32(nlh, SRDMA_ATTR_BURST_BYTES, 16384);
		put_u8(nlh, SRDMA_ATTR_RATE_SOURCE, SRDMA_RATE_ADMIN);
		put_u64(nlh, SRDMA_ATTR_ADMIN_KBPS, 1500000);
		put_u64(nlh, SRDMA_ATTR_VERBS_KBPS, 0);
		put_u64(nlh, SRDMA_ATTR_AV_KBPS, 2500000);
		put_u64(nlh, SRDMA_ATTR_THROTTLE_EVENTS, 1234);
		put_u64(nlh, SRDMA_ATTR_THROTTLED_NS, 56789012345ULL);
		put_u64(nlh, SRDMA_ATTR_TX_BYTES, 18446744073709551615ULL);
		break;
	default:
		/* an older or newer kernel: some missing, one unknown */
		put_u8(nlh, SRDMA_ATTR_QP_TYPE, 4);
		put_u64(nlh, SRDMA_ATTR_RATE_KBPS, 0);
		put_u8(nlh, SRDMA_ATTR_RATE_SOURCE, SRDMA_RATE_NONE);
		put_u32(nlh, SRDMA_ATTR_MAX + 7, 77);
		put_u64(nlh, SRDMA_ATTR_TX_BYTES, 0);
		break;
	}
}

static void log_set(const char *fmt, ...)
{
	const char *path = getenv("FAKE_SRDMA_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* "-" for an attribute that was not sent */
static const char *opt_u64(const struct nlattr *nla, char *buf, size_t len)
{
	if (!nla)
		return "-";
	snprintf(buf, len, "%llu", (unsigned long long)get_u64(nla));
	return buf;
}

static void serve_ctrl(void)
{
	const struct nlattr *nla = (const void *)((const char *)request +
						  NLMSG_LENGTH(GENL_HDRLEN));
	const char *name = (const char *)nla + NLA_HDRLEN;
	struct nlmsghdr *nlh;

	if (nla->nla_type != CTRL_ATTR_FAMILY_NAME || strcmp(name, "srdma") ||
	    getenv("FAKE_SRDMA_ABSENT")) {
		ack(-ENOENT, NULL);
		return;
	}
	nlh = genl_msg(GENL_ID_CTRL, 0, CTRL_CMD_NEWFAMILY);
	put(nlh, CTRL_ATTR_FAMILY_NAME, "srdma", 6);
	put(nlh, CTRL_ATTR_FAMILY_ID, &(uint16_t){ FAKE_FAMILY }, 2);
	put_u32(nlh, CTRL_ATTR_VERSION, SRDMA_GENL_VERSION);
	batch_end_msg(nlh);
	if (request->nlmsg_flags & NLM_F_ACK)
		ack(0, NULL);
}

static void serve_qp_dump(void)
{
	static const uint32_t qpns[] = { 1, 17, 18 };
	struct nlmsghdr *nlh;
	unsigned int i;

	/* two QPs in the first read, the last and the end in the second */
	for (i = 0; i < 3; i++) {
		if (i == 2)
			batch_next();
		nlh = genl_msg(FAKE_FAMILY, NLM_F_MULTI, SRDMA_CMD_QP_GET);
		qp_fill(nlh, qpns[i]);
		batch_end_msg(nlh);
	}
	done(0, NULL);
}

static void serve_srdma(void)
{
	const struct genlmsghdr *genl = NLMSG_DATA(request);
	bool dump = (request->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	char b1[24], b2[24], b3[24];
	struct nlmsghdr *nlh;
	struct req_attrs ra;
	uint32_t qpn = 0;

	parse_request(&ra);
	if (genl->version != SRDMA_GENL_VERSION)
		ra.bad = "fake: wrong version";
	if (!dump && !(request->nlmsg_flags & NLM_F_ACK))
		ra.bad = "fake: a doit without NLM_F_ACK";
	if (dump && genl->cmd != SRDMA_CMD_QP_GET)
		ra.bad = "fake: a dump of something else than QPs";
	if (ra.bad) {
		ack(-EINVAL, ra.bad);
		return;
	}
	if (strcmp((const char *)ra.tb[SRDMA_ATTR_DEV_NAME] + NLA_HDRLEN, "srdma0")) {
		if (dump)
			done(-ENODEV, NULL);
		else
			ack(-ENODEV, NULL);
		return;
	}
	if (ra.tb[SRDMA_ATTR_QPN])
		qpn = get_u64(ra.tb[SRDMA_ATTR_QPN]);

	switch (genl->cmd) {
	case SRDMA_CMD_QP_GET:
		if (dump) {
			serve_qp_dump();
			return;
		}
		if (!ra.tb[SRDMA_ATTR_QPN]) {
			ack(-EINVAL, "fake: QP_GET doit without a QPN");
			return;
		}
		if (qpn != 1 && qpn != 17 && qpn != 18) {
			snprintf(b1, sizeof(b1), "srdma0: no QP %u", qpn);
			ack(-ENOENT, b1);
			return;
		}
		nlh = genl_msg(FAKE_FAMILY, 0, SRDMA_CMD_QP_GET);
		qp_fill(nlh, qpn);
		batch_end_msg(nlh);
		ack(0, NULL);
		return;
	case SRDMA_CMD_QP_SET:
		if (!ra.tb[SRDMA_ATTR_QPN] || !ra.tb[SRDMA_ATTR_RATE_KBPS]) {
			ack(-EINVAL, "fake: QP_SET without QPN or rate");
			return;
		}
		if (get_u64(ra.tb[SRDMA_ATTR_RATE_KBPS]) > 25000000) {
			ack(-ERANGE, "rate above the port's ceiling (25gbit)");
			return;
		}
		log_set("qp set qpn=%u rate=%s burst=%s", qpn,
			opt_u64(ra.tb[SRDMA_ATTR_RATE_KBPS], b1, sizeof(b1)),
			opt_u64(ra.tb[SRDMA_ATTR_BURST_BYTES], b2, sizeof(b2)));
		ack(0, NULL);
		return;
	case SRDMA_CMD_PORT_GET:
		nlh = genl_msg(FAKE_FAMILY, 0, SRDMA_CMD_PORT_GET);
		put(nlh, SRDMA_ATTR_DEV_NAME, "srdma0", 7);
		put_u64(nlh, SRDMA_ATTR_DEFAULT_KBPS, 0);
		put_u64(nlh, SRDMA_ATTR_CEILING_KBPS, 10000000);
		put_u64(nlh, SRDMA_ATTR_PORT_KBPS, 25000000);
		put_u32(nlh, SRDMA_ATTR_BURST_BYTES, 65536);
		put_u64(nlh, SRDMA_ATTR_THROTTLE_EVENTS, 12);
		put_u64(nlh, SRDMA_ATTR_THROTTLED_NS, 3999999);
		batch_end_msg(nlh);
		ack(0, NULL);
		return;
	case SRDMA_CMD_PORT_SET:
		log_set("port set default=%s ceiling=%s burst=%s",
			opt_u64(ra.tb[SRDMA_ATTR_DEFAULT_KBPS], b1, sizeof(b1)),
			opt_u64(ra.tb[SRDMA_ATTR_CEILING_KBPS], b2, sizeof(b2)),
			opt_u64(ra.tb[SRDMA_ATTR_BURST_BYTES], b3, sizeof(b3)));
		if (ra.tb[SRDMA_ATTR_BURST_BYTES] &&
		    get_u64(ra.tb[SRDMA_ATTR_BURST_BYTES]) < 1500)
			ack(0, "burst raised to one frame (1500 bytes)");
		else
			ack(0, NULL);
		return;
	default:
		ack(-EOPNOTSUPP, NULL);
	}
}

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);

	if (domain == AF_NETLINK && protocol == NETLINK_GENERIC) {
		fake_fd = eventfd(0, EFD_CLOEXEC);
		return fake_fd;
	}
	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	return real(domain, type, protocol);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	static int (*real)(int, int, int, const void *, socklen_t);

	if (fd == fake_fd && fd >= 0) {
		if (level == SOL_NETLINK && name == NETLINK_EXT_ACK &&
		    len == sizeof(int))
			ext_ack = *(const int *)val;
		return 0;
	}
	if (!real)
		real = (int (*)(int, int, int, const void *, socklen_t))
			dlsym(RTLD_NEXT, "setsockopt");
	return real(fd, level, name, val, len);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t addr_len)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);
	const struct sockaddr_nl *nl = (const struct sockaddr_nl *)addr;
	static union {
		struct nlmsghdr nlh;
		char buf[BATCH_LEN];
	} req;

	if (fd != fake_fd || fd < 0) {
		if (!real)
			real = (ssize_t (*)(int, const void *, size_t, int,
					    const struct sockaddr *, socklen_t))
				dlsym(RTLD_NEXT, "sendto");
		return real(fd, buf, len, flags, addr, addr_len);
	}
	if (!nl || addr_len != sizeof(*nl) || nl->nl_family != AF_NETLINK ||
	    nl->nl_pid || len > sizeof(req) || len < NLMSG_LENGTH(GENL_HDRLEN)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(req.buf, buf, len);
	request = &req.nlh;
	if (req.nlh.nlmsg_len != len || !(req.nlh.nlmsg_flags & NLM_F_REQUEST)) {
		errno = EINVAL;
		return -1;
	}
	memset(batches, 0, sizeof(batches));
	batch_head = 0;
	batch_tail = 0;
	if (req.nlh.nlmsg_type == GENL_ID_CTRL)
		serve_ctrl();
	else if (req.nlh.nlmsg_type == FAKE_FAMILY)
		serve_srdma();
	else
		ack(-ENOENT, NULL);
	batch_next();
	return len;
}

ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	size_t len;

	if (fd != fake_fd || fd < 0) {
		if (!real)
			real = (ssize_t (*)(int, struct msghdr *, int))
				dlsym(RTLD_NEXT, "recvmsg");
		return real(fd, mh, flags);
	}
	/* the real socket would block forever: fail loudly instead */
	if (batch_head == batch_tail || mh->msg_iovlen != 1) {
		errno = EAGAIN;
		return -1;
	}
	len = batches[batch_head].len;
	mh->msg_flags = 0;
	if (len > mh->msg_iov[0].iov_len) {
		len = mh->msg_iov[0].iov_len;
		mh->msg_flags |= MSG_TRUNC;
	}
	memcpy(mh->msg_iov[0].iov_base, batches[batch_head].buf, len);
	if (mh->msg_name && mh->msg_namelen >= sizeof(kernel)) {
		memcpy(mh->msg_name, &kernel, sizeof(kernel));
		mh->msg_namelen = sizeof(kernel);
	}
	batch_head++;
	return len;
}
