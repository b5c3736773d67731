// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srdma-rate: generic netlink on a raw socket.
 *
 * One request at a time: send it, then read until its end. A doit is sent
 * with NLM_F_ACK and ends with the ack (after its reply, for a get); a dump
 * ends with NLMSG_DONE, which carries the dump's error if it failed. An
 * error ack or a failed NLMSG_DONE may carry the kernel's own message
 * (NETLINK_EXT_ACK), which says more than strerror().
 *
 * Attributes are read with memcpy(): nla_put_u64_64bit() only pads where
 * the architecture needs it, and a u64 after a u32 is 4-byte aligned.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "nl.h"

#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))

/* larger than any message the kernel builds: a dump skb is at most 32 KiB */
#define SRDMA_NL_RECV_LEN	(64 * 1024)

/**
 * srdma_nl_req_init() - start a generic netlink request
 * @req: the request
 * @type: the family id
 * @flags: NLM_F_ACK or NLM_F_DUMP; NLM_F_REQUEST is added
 * @cmd: the family's command
 * @version: the family's version
 */
void srdma_nl_req_init(struct srdma_nl_req *req, uint16_t type, uint16_t flags,
		       uint8_t cmd, uint8_t version)
{
	struct genlmsghdr *genl;

	memset(req, 0, sizeof(*req));
	req->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req->nlh.nlmsg_type = type;
	req->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	genl = NLMSG_DATA(&req->nlh);
	genl->cmd = cmd;
	genl->version = version;
}

/**
 * srdma_nl_put() - append an attribute to a request
 * @req: the request
 * @type: the attribute
 * @data: its payload
 * @len: its length
 *
 * Return: 0, or -EMSGSIZE if the request has no room for it.
 */
int srdma_nl_put(struct srdma_nl_req *req, uint16_t type, const void *data,
		 size_t len)
{
	size_t off = NLMSG_ALIGN(req->nlh.nlmsg_len);
	struct nlattr *nla;

	if (len > sizeof(req->buf) || NLA_HDRLEN + NLA_ALIGN(len) > sizeof(req->buf) - off)
		return -EMSGSIZE;
	nla = (struct nlattr *)(req->buf + off);
	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy((char *)nla + NLA_HDRLEN, data, len);
	/* the padding is zero: srdma_nl_req_init() cleared the buffer */
	req->nlh.nlmsg_len = off + NLA_ALIGN(nla->nla_len);
	return 0;
}

int srdma_nl_put_u32(struct srdma_nl_req *req, uint16_t type, uint32_t val)
{
	return srdma_nl_put(req, type, &val, sizeof(val));
}

int srdma_nl_put_u64(struct srdma_nl_req *req, uint16_t type, uint64_t val)
{
	return srdma_nl_put(req, type, &val, sizeof(val));
}

int srdma_nl_put_str(struct srdma_nl_req *req, uint16_t type, const char *s)
{
	return srdma_nl_put(req, type, s, strlen(s) + 1);
}

static const struct nlattr *attr_check(const struct nlattr *nla, size_t rem)
{
	if (rem < NLA_HDRLEN || nla->nla_len < NLA_HDRLEN || nla->nla_len > rem)
		return NULL;
	return nla;
}

/**
 * srdma_nl_attr_first() - the first attribute of a message
 * @nlh: the message
 * @hdr_len: the length of the family header that comes before them
 * @rem: the bytes left from the attribute on
 *
 * Walk on with srdma_nl_attr_next(). At the end *@rem is 0, unless the
 * message ends in garbage.
 */
const struct nlattr *srdma_nl_attr_first(const struct nlmsghdr *nlh,
					 size_t hdr_len, size_t *rem)
{
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(hdr_len);

	if (nlh->nlmsg_len <= off) {
		*rem = 0;
		return NULL;
	}
	*rem = nlh->nlmsg_len - off;
	return attr_check((const struct nlattr *)((const char *)nlh + off), *rem);
}

/**
 * srdma_nl_attr_next() - the attribute after @nla
 * @nla: an attribute that srdma_nl_attr_first() or this returned
 * @rem: the bytes left from @nla on; updated
 */
const struct nlattr *srdma_nl_attr_next(const struct nlattr *nla, size_t *rem)
{
	size_t step = NLA_ALIGN(nla->nla_len);

	/* the last attribute's padding may be missing */
	if (step >= *rem) {
		*rem = 0;
		return NULL;
	}
	*rem -= step;
	return attr_check((const struct nlattr *)((const char *)nla + step), *rem);
}

static const void *attr_data(const struct nlattr *nla)
{
	return (const char *)nla + NLA_HDRLEN;
}

static size_t attr_len(const struct nlattr *nla)
{
	return nla->nla_len - NLA_HDRLEN;
}

/**
 * srdma_nl_parse_error() - the error of an NLMSG_ERROR or NLMSG_DONE
 * @nlh: the message
 * @error: 0 for an ack or a dump's end, else a negative errno
 * @msg: the kernel's message (NLMSGERR_ATTR_MSG), or ""
 * @msg_len: its size
 *
 * NLMSG_ERROR holds struct nlmsgerr, then the request unless NLM_F_CAPPED,
 * then the extended ack's attributes; NLMSG_DONE an int, then those.
 *
 * Return: 0, or -EBADMSG if the message is too short.
 */
int srdma_nl_parse_error(const struct nlmsghdr *nlh, int *error,
			 char *msg, size_t msg_len)
{
	const struct nlattr *nla;
	struct nlmsgerr err;
	size_t hdr_len, rem;

	msg[0] = '\0';
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(err)))
			return -EBADMSG;
		memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
		*error = err.error;
		hdr_len = sizeof(err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (err.msg.nlmsg_len < NLMSG_HDRLEN)
				return -EBADMSG;
			hdr_len += err.msg.nlmsg_len - NLMSG_HDRLEN;
		}
	} else {
		/* a dump's end: the int is there since Linux 4.x */
		*error = 0;
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*error)))
			return 0;
		memcpy(error, NLMSG_DATA(nlh), sizeof(*error));
		hdr_len = sizeof(*error);
	}
	if (*error > 0)
		*error = -*error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;

	for (nla = srdma_nl_attr_first(nlh, hdr_len, &rem); nla;
	     nla = srdma_nl_attr_next(nla, &rem)) {
		size_t len = attr_len(nla);
		const char *end;

		if ((nla->nla_type & NLA_TYPE_MASK) != NLMSGERR_ATTR_MSG)
			continue;
		end = memchr(attr_data(nla), '\0', len);
		if (end)
			len = end - (const char *)attr_data(nla);
		if (len >= msg_len)
			len = msg_len - 1;
		memcpy(msg, attr_data(nla), len);
		msg[len] = '\0';
	}
	return 0;
}

/**
 * srdma_nl_parse_family() - the id in a CTRL_CMD_GETFAMILY reply
 * @nlh: the reply
 * @family: the family's id
 *
 * Return: 0, or -EBADMSG if the reply has none.
 */
int srdma_nl_parse_family(const struct nlmsghdr *nlh, uint16_t *family)
{
	const struct nlattr *nla;
	size_t rem;

	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EBADMSG;
	for (nla = srdma_nl_attr_first(nlh, GENL_HDRLEN, &rem); nla;
	     nla = srdma_nl_attr_next(nla, &rem)) {
		if ((nla->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
		    attr_len(nla) == sizeof(*family)) {
			memcpy(family, attr_data(nla), sizeof(*family));
			return 0;
		}
	}
	return -EBADMSG;
}

enum attr_kind {
	ATTR_IGNORED,
	ATTR_U8,
	ATTR_U32,
	ATTR_U64,
	ATTR_STRING,
};

static const size_t attr_kind_len[] = {
	[ATTR_U8]	= sizeof(uint8_t),
	[ATTR_U32]	= sizeof(uint32_t),
	[ATTR_U64]	= sizeof(uint64_t),
};

/* the types of include/srdma/rate_netlink.h, attribute by attribute */
static const enum attr_kind srdma_attr_kinds[SRDMA_ATTR_MAX + 1] = {
	[SRDMA_ATTR_UNSPEC]		= ATTR_IGNORED,
	[SRDMA_ATTR_PAD]		= ATTR_IGNORED,
	[SRDMA_ATTR_DEV_NAME]		= ATTR_STRING,
	[SRDMA_ATTR_QPN]		= ATTR_U32,
	[SRDMA_ATTR_QP_TYPE]		= ATTR_U8,
	[SRDMA_ATTR_RATE_KBPS]		= ATTR_U64,
	[SRDMA_ATTR_BURST_BYTES]	= ATTR_U32,
	[SRDMA_ATTR_RATE_SOURCE]	= ATTR_U8,
	[SRDMA_ATTR_ADMIN_KBPS]		= ATTR_U64,
	[SRDMA_ATTR_VERBS_KBPS]		= ATTR_U64,
	[SRDMA_ATTR_AV_KBPS]		= ATTR_U64,
	[SRDMA_ATTR_DEFAULT_KBPS]	= ATTR_U64,
	[SRDMA_ATTR_CEILING_KBPS]	= ATTR_U64,
	[SRDMA_ATTR_PORT_KBPS]		= ATTR_U64,
	[SRDMA_ATTR_THROTTLE_EVENTS]	= ATTR_U64,
	[SRDMA_ATTR_THROTTLED_NS]	= ATTR_U64,
	[SRDMA_ATTR_TX_BYTES]		= ATTR_U64,
};

/**
 * srdma_attr_known() - whether srdma-rate reads attribute @type
 * @type: an enum srdma_genl_attr
 */
bool srdma_attr_known(unsigned int type)
{
	return type < ARRAY_SIZE(srdma_attr_kinds) &&
	       srdma_attr_kinds[type] != ATTR_IGNORED;
}

static int attr_read(const struct nlattr *nla, enum attr_kind kind,
		     struct srdma_attrs *attrs, unsigned int type)
{
	size_t len = attr_len(nla);
	uint32_t u32;
	uint8_t u8;

	switch (kind) {
	case ATTR_IGNORED:
		return 0;
	case ATTR_STRING:
		/* a device name: NUL-terminated, and short */
		if (!len || !memchr(attr_data(nla), '\0', len) ||
		    strlen(attr_data(nla)) >= sizeof(attrs->dev_name))
			return -EBADMSG;
		strcpy(attrs->dev_name, attr_data(nla));
		break;
	case ATTR_U8:
	case ATTR_U32:
	case ATTR_U64:
		if (len != attr_kind_len[kind])
			return -EBADMSG;
		if (kind == ATTR_U8) {
			memcpy(&u8, attr_data(nla), sizeof(u8));
			attrs->val[type] = u8;
		} else if (kind == ATTR_U32) {
			memcpy(&u32, attr_data(nla), sizeof(u32));
			attrs->val[type] = u32;
		} else {
			memcpy(&attrs->val[type], attr_data(nla),
			       sizeof(attrs->val[type]));
		}
		break;
	}
	attrs->present[type] = true;
	return 0;
}

/**
 * srdma_attrs_parse() - the attributes of an srdma reply
 * @nlh: the reply
 * @attrs: what it holds
 * @bad_attr: on -EBADMSG, the attribute at fault (0: the message itself)
 *
 * Attributes newer than this tool are skipped: the ABI only grows.
 *
 * Return: 0, or -EBADMSG if a known attribute has the wrong size.
 */
int srdma_attrs_parse(const struct nlmsghdr *nlh, struct srdma_attrs *attrs,
		      unsigned int *bad_attr)
{
	const struct nlattr *nla;
	unsigned int type;
	size_t rem;

	memset(attrs, 0, sizeof(*attrs));
	*bad_attr = 0;
	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EBADMSG;
	for (nla = srdma_nl_attr_first(nlh, GENL_HDRLEN, &rem); nla;
	     nla = srdma_nl_attr_next(nla, &rem)) {
		type = nla->nla_type & NLA_TYPE_MASK;
		if (type >= ARRAY_SIZE(srdma_attr_kinds))
			continue;
		if (attr_read(nla, srdma_attr_kinds[type], attrs, type)) {
			*bad_attr = type;
			return -EBADMSG;
		}
	}
	return rem ? -EBADMSG : 0;
}

/**
 * srdma_nl_open() - a generic netlink socket
 * @nl: its state
 *
 * Return: 0 or a negative errno.
 */
int srdma_nl_open(struct srdma_nl *nl)
{
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	/* best effort: without them, strerror() and a longer ack */
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
}

void srdma_nl_close(struct srdma_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

/* one message of the reply to @req; 1 when it was the last */
static int request_msg(struct srdma_nl *nl, const struct srdma_nl_req *req,
		       const struct nlmsghdr *nlh, srdma_nl_cb cb, void *arg)
{
	int error, ret;

	if (nlh->nlmsg_seq != req->nlh.nlmsg_seq)
		return 0;
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		nl->dump_intr = true;
	switch (nlh->nlmsg_type) {
	case NLMSG_ERROR:
	case NLMSG_DONE:
		ret = srdma_nl_parse_error(nlh, &error, nl->ext_msg,
					   sizeof(nl->ext_msg));
		if (ret)
			return ret;
		return error ? error : 1;
	default:
		if (nlh->nlmsg_type != req->nlh.nlmsg_type)
			return 0;
		ret = cb ? cb(nlh, arg) : 0;
		if (ret)
			return ret;
		/* a doit without an ack has a single reply */
		if (!(req->nlh.nlmsg_flags & (NLM_F_ACK | NLM_F_DUMP)))
			return 1;
		return 0;
	}
}

/**
 * srdma_nl_request() - send @req and read its whole reply
 * @nl: the socket
 * @req: the request; its sequence number is set here
 * @cb: called for each message of the family, may be NULL
 * @arg: for @cb
 *
 * nl->ext_msg holds the kernel's message, if it sent one: the reason for a
 * failure, or a warning on success.
 *
 * Return: 0, a negative errno (the kernel's, a socket's, -EBADMSG for a
 * malformed reply), or what @cb returned.
 */
int srdma_nl_request(struct srdma_nl *nl, struct srdma_nl_req *req,
		     srdma_nl_cb cb, void *arg)
{
	static union {
		struct nlmsghdr nlh;
		char buf[SRDMA_NL_RECV_LEN];
	} rx;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	const struct nlmsghdr *nlh;
	struct sockaddr_nl from;
	struct iovec iov;
	struct msghdr mh;
	ssize_t sent;
	int len, ret;

	req->nlh.nlmsg_seq = ++nl->seq;
	nl->ext_msg[0] = '\0';
	sent = sendto(nl->fd, req->buf, req->nlh.nlmsg_len, 0,
		      (struct sockaddr *)&kernel, sizeof(kernel));
	if (sent < 0)
		return -errno;
	if ((size_t)sent != req->nlh.nlmsg_len)
		return -EIO;

	for (;;) {
		iov.iov_base = rx.buf;
		iov.iov_len = sizeof(rx.buf);
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		len = recvmsg(nl->fd, &mh, 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		/* netlink never sends an empty datagram: do not spin on one */
		if (!len)
			return -EBADMSG;
		/* only the kernel answers; anything else is no reply */
		if (mh.msg_namelen != sizeof(from) || from.nl_pid != 0)
			continue;
		for (nlh = &rx.nlh; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			ret = request_msg(nl, req, nlh, cb, arg);
			if (ret)
				return ret < 0 ? ret : 0;
		}
		if (len)
			return -EBADMSG;
	}
}

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	return srdma_nl_parse_family(nlh, arg);
}

/**
 * srdma_nl_resolve() - find the id of the generic netlink family @name
 * @nl: the socket; nl->family gets the id
 * @name: the family's name
 *
 * Return: 0, -ENOENT if no such family is registered, or another errno.
 */
int srdma_nl_resolve(struct srdma_nl *nl, const char *name)
{
	struct srdma_nl_req req;
	int ret;

	srdma_nl_req_init(&req, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	ret = srdma_nl_put_str(&req, CTRL_ATTR_FAMILY_NAME, name);
	if (ret)
		return ret;
	nl->family = 0;
	ret = srdma_nl_request(nl, &req, family_cb, &nl->family);
	if (!ret && !nl->family)
		ret = -EBADMSG;
	return ret;
}
