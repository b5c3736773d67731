// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Host test of srdma-rate's netlink code (nl.c), TAP output.
 *
 * The srdma family cannot be reached from the host, so its replies are
 * built here byte by byte, the way the kernel builds them: u64 attributes
 * 4-byte aligned or after an SRDMA_ATTR_PAD, attributes this tool does not
 * know, error acks with and without the request and extended ack messages.
 * The messages sit 4 bytes past an 8-byte boundary, so a u64 read through
 * a cast instead of memcpy() would be unaligned (valgrind, UBSan).
 *
 * The socket code is tested against the one family every kernel has, the
 * generic netlink controller ("nlctrl"): a lookup, a failed lookup, an
 * error with an extended ack, and a dump of every family.
 */
#include <errno.h>
#include <string.h>

#include "nl.h"
#include "test.h"

#define MSG_ROOM	2048

/* a message under construction, misaligned for u64 on purpose */
struct msg {
	uint64_t room[MSG_ROOM / 8 + 1];
	struct nlmsghdr *nlh;
};

static struct nlmsghdr *msg_start(struct msg *m, uint16_t type, uint16_t flags)
{
	memset(m->room, 0, sizeof(m->room));
	m->nlh = (struct nlmsghdr *)((char *)m->room + 4);
	m->nlh->nlmsg_len = NLMSG_HDRLEN;
	m->nlh->nlmsg_type = type;
	m->nlh->nlmsg_flags = flags;
	m->nlh->nlmsg_seq = 1;
	return m->nlh;
}

/* family header or error payload, aligned as nlmsg_append() does */
static void msg_append(struct msg *m, const void *data, size_t len)
{
	memcpy((char *)m->nlh + m->nlh->nlmsg_len, data, len);
	m->nlh->nlmsg_len += NLMSG_ALIGN(len);
}

/* an attribute as nla_put() writes it; @nla_len may lie */
static void msg_put_len(struct msg *m, uint16_t type, const void *data,
			size_t len, uint16_t nla_len)
{
	struct nlattr *nla = (struct nlattr *)((char *)m->nlh + m->nlh->nlmsg_len);

	nla->nla_type = type;
	nla->nla_len = nla_len;
	if (len)
		memcpy((char *)nla + NLA_HDRLEN, data, len);
	m->nlh->nlmsg_len += NLA_ALIGN(NLA_HDRLEN + len);
}

static void msg_put(struct msg *m, uint16_t type, const void *data, size_t len)
{
	msg_put_len(m, type, data, len, NLA_HDRLEN + len);
}

static void msg_put_u8(struct msg *m, uint16_t type, uint8_t val)
{
	msg_put(m, type, &val, sizeof(val));
}

static void msg_put_u32(struct msg *m, uint16_t type, uint32_t val)
{
	msg_put(m, type, &val, sizeof(val));
}

static void msg_put_u64(struct msg *m, uint16_t type, uint64_t val)
{
	msg_put(m, type, &val, sizeof(val));
}

/* nla_put_u64_64bit() where the architecture wants it aligned */
static void msg_put_u64_pad(struct msg *m, uint16_t type, uint64_t val)
{
	msg_put(m, SRDMA_ATTR_PAD, NULL, 0);
	msg_put_u64(m, type, val);
}

static void msg_put_str(struct msg *m, uint16_t type, const char *s)
{
	msg_put(m, type, s, strlen(s) + 1);
}

static void genl_start(struct msg *m, uint16_t family, uint8_t cmd)
{
	struct genlmsghdr genl = { .cmd = cmd, .version = SRDMA_GENL_VERSION };

	msg_start(m, family, 0);
	msg_append(m, &genl, sizeof(genl));
}

static void test_request(void)
{
	struct srdma_nl_req req;
	const struct nlattr *nla;
	struct srdma_attrs attrs;
	const struct genlmsghdr *genl;
	static const char big[SRDMA_NL_REQ_LEN];
	unsigned int bad;
	uint64_t u64;
	uint32_t u32;
	uint16_t len;
	int ret;

	srdma_nl_req_init(&req, 0x1234, NLM_F_ACK, SRDMA_CMD_QP_SET,
			  SRDMA_GENL_VERSION);
	check(!srdma_nl_put_str(&req, SRDMA_ATTR_DEV_NAME, "srdma0") &&
	      !srdma_nl_put_u32(&req, SRDMA_ATTR_QPN, 17) &&
	      !srdma_nl_put_u64(&req, SRDMA_ATTR_RATE_KBPS, 1500000),
	      "request: attributes fit");
	genl = NLMSG_DATA(&req.nlh);
	check(req.nlh.nlmsg_len == 52 && req.nlh.nlmsg_type == 0x1234 &&
	      req.nlh.nlmsg_flags == (NLM_F_REQUEST | NLM_F_ACK) &&
	      genl->cmd == SRDMA_CMD_QP_SET &&
	      genl->version == SRDMA_GENL_VERSION,
	      "request: header (len %u flags %#x)", req.nlh.nlmsg_len,
	      req.nlh.nlmsg_flags);
	nla = (const struct nlattr *)(req.buf + 20);
	check(nla->nla_type == SRDMA_ATTR_DEV_NAME && nla->nla_len == 11 &&
	      !memcmp(req.buf + 24, "srdma0\0\0", 8),
	      "request: device name, NUL-terminated, zero padding");
	nla = (const struct nlattr *)(req.buf + 32);
	memcpy(&u32, req.buf + 36, sizeof(u32));
	check(nla->nla_type == SRDMA_ATTR_QPN && nla->nla_len == 8 && u32 == 17,
	      "request: QPN");
	nla = (const struct nlattr *)(req.buf + 40);
	memcpy(&u64, req.buf + 44, sizeof(u64));
	check(nla->nla_type == SRDMA_ATTR_RATE_KBPS && nla->nla_len == 12 &&
	      u64 == 1500000, "request: rate");

	ret = srdma_attrs_parse(&req.nlh, &attrs, &bad);
	check(!ret && attrs.present[SRDMA_ATTR_QPN] &&
	      attrs.val[SRDMA_ATTR_QPN] == 17 &&
	      attrs.val[SRDMA_ATTR_RATE_KBPS] == 1500000 &&
	      !strcmp(attrs.dev_name, "srdma0") &&
	      !attrs.present[SRDMA_ATTR_BURST_BYTES],
	      "request: reads back");

	len = req.nlh.nlmsg_len;
	ret = srdma_nl_put(&req, SRDMA_ATTR_DEV_NAME, big, sizeof(req.buf) - len);
	check(ret == -EMSGSIZE && req.nlh.nlmsg_len == len,
	      "request: an attribute too large is refused, nothing written");
	ret = srdma_nl_put(&req, SRDMA_ATTR_DEV_NAME, big,
			   sizeof(req.buf) - len - NLA_HDRLEN);
	check(!ret && req.nlh.nlmsg_len == sizeof(req.buf),
	      "request: an attribute that just fits is taken");
}

static void test_reply(void)
{
	struct srdma_attrs attrs;
	unsigned int bad;
	struct msg m;
	int ret;

	genl_start(&m, 0x1f, SRDMA_CMD_QP_GET);
	msg_put_str(&m, SRDMA_ATTR_DEV_NAME, "srdma0");
	msg_put_u32(&m, SRDMA_ATTR_QPN, 0x11);
	msg_put_u8(&m, SRDMA_ATTR_QP_TYPE, 2);
	msg_put_u64(&m, SRDMA_ATTR_RATE_KBPS, 1500000);
	msg_put_u32(&m, SRDMA_ATTR_BURST_BYTES, 65536);
	msg_put_u8(&m, SRDMA_ATTR_RATE_SOURCE, SRDMA_RATE_ADMIN);
	msg_put_u64_pad(&m, SRDMA_ATTR_ADMIN_KBPS, 1500000);
	msg_put_u64(&m, SRDMA_ATTR_VERBS_KBPS, 0);
	/* from a newer kernel: skipped, with or without flags */
	msg_put(&m, SRDMA_ATTR_MAX + 5, "abc", 3);
	msg_put(&m, NLA_F_NESTED | (SRDMA_ATTR_MAX + 6), NULL, 0);
	msg_put_u64_pad(&m, SRDMA_ATTR_THROTTLE_EVENTS, 0x100000002ULL);
	msg_put_u64(&m, SRDMA_ATTR_THROTTLED_NS, 123456789);
	msg_put_u64(&m, SRDMA_ATTR_TX_BYTES, UINT64_MAX);

	ret = srdma_attrs_parse(m.nlh, &attrs, &bad);
	check(!ret, "reply: parses (%d, attribute %u)", ret, bad);
	check(!strcmp(attrs.dev_name, "srdma0") &&
	      attrs.present[SRDMA_ATTR_DEV_NAME], "reply: device name");
	check(attrs.val[SRDMA_ATTR_QPN] == 0x11 &&
	      attrs.val[SRDMA_ATTR_QP_TYPE] == 2 &&
	      attrs.val[SRDMA_ATTR_BURST_BYTES] == 65536 &&
	      attrs.val[SRDMA_ATTR_RATE_SOURCE] == SRDMA_RATE_ADMIN,
	      "reply: u8 and u32");
	check(attrs.val[SRDMA_ATTR_RATE_KBPS] == 1500000 &&
	      attrs.val[SRDMA_ATTR_ADMIN_KBPS] == 1500000 &&
	      attrs.val[SRDMA_ATTR_THROTTLE_EVENTS] == 0x100000002ULL &&
	      attrs.val[SRDMA_ATTR_THROTTLED_NS] == 123456789 &&
	      attrs.val[SRDMA_ATTR_TX_BYTES] == UINT64_MAX,
	      "reply: u64, 4-byte aligned and padded");
	check(attrs.present[SRDMA_ATTR_VERBS_KBPS] &&
	      !attrs.val[SRDMA_ATTR_VERBS_KBPS] &&
	      !attrs.present[SRDMA_ATTR_AV_KBPS] &&
	      !attrs.present[SRDMA_ATTR_DEFAULT_KBPS] &&
	      !attrs.present[SRDMA_ATTR_PAD],
	      "reply: zero is present, absent is absent");
}

struct bad_case {
	const char *name;
	void (*build)(struct msg *m);
	unsigned int bad_attr;
};

static void bad_qpn_u64(struct msg *m)
{
	msg_put_u64(m, SRDMA_ATTR_QPN, 17);
}

static void bad_rate_u32(struct msg *m)
{
	msg_put_u32(m, SRDMA_ATTR_RATE_KBPS, 17);
}

static void bad_type_u32(struct msg *m)
{
	msg_put_u32(m, SRDMA_ATTR_QP_TYPE, 2);
}

static void bad_name_unterminated(struct msg *m)
{
	msg_put(m, SRDMA_ATTR_DEV_NAME, "srdma0", 6);
}

static void bad_name_empty(struct msg *m)
{
	msg_put(m, SRDMA_ATTR_DEV_NAME, NULL, 0);
}

static void bad_name_long(struct msg *m)
{
	char name[IB_DEVICE_NAME_MAX + 1];

	memset(name, 'x', IB_DEVICE_NAME_MAX);
	name[IB_DEVICE_NAME_MAX] = '\0';
	msg_put_str(m, SRDMA_ATTR_DEV_NAME, name);
}

static void bad_truncated(struct msg *m)
{
	uint32_t qpn = 17;

	msg_put_u32(m, SRDMA_ATTR_QPN, 17);
	/* claims 4 bytes more than the message holds */
	msg_put_len(m, SRDMA_ATTR_BURST_BYTES, &qpn, sizeof(qpn), 12);
}

static void bad_short_header(struct msg *m)
{
	m->nlh->nlmsg_len = NLMSG_HDRLEN + 2;
}

static const struct bad_case bad_cases[] = {
	{ "QPN as u64", bad_qpn_u64, SRDMA_ATTR_QPN },
	{ "rate as u32", bad_rate_u32, SRDMA_ATTR_RATE_KBPS },
	{ "QP type as u32", bad_type_u32, SRDMA_ATTR_QP_TYPE },
	{ "device name unterminated", bad_name_unterminated, SRDMA_ATTR_DEV_NAME },
	{ "device name empty", bad_name_empty, SRDMA_ATTR_DEV_NAME },
	{ "device name too long", bad_name_long, SRDMA_ATTR_DEV_NAME },
	{ "attribute past the end", bad_truncated, 0 },
	{ "no genetlink header", bad_short_header, 0 },
};

static void test_bad_replies(void)
{
	const struct bad_case *c;
	struct srdma_attrs attrs;
	unsigned int bad;
	struct msg m;
	int ret;

	for (c = bad_cases; c < bad_cases + ARRAY_SIZE(bad_cases); c++) {
		genl_start(&m, 0x1f, SRDMA_CMD_QP_GET);
		c->build(&m);
		ret = srdma_attrs_parse(m.nlh, &attrs, &bad);
		check(ret == -EBADMSG && bad == c->bad_attr,
		      "malformed reply, %s: %d, attribute %u", c->name, ret, bad);
	}
}

/* an NLMSG_ERROR as netlink_ack() builds it */
static void error_start(struct msg *m, int error, bool capped, bool tlvs)
{
	struct srdma_nl_req req;
	struct nlmsgerr err = { .error = error };

	srdma_nl_req_init(&req, 0x1f, NLM_F_ACK, SRDMA_CMD_QP_SET, 1);
	srdma_nl_put_str(&req, SRDMA_ATTR_DEV_NAME, "srdma0");
	srdma_nl_put_u32(&req, SRDMA_ATTR_QPN, 17);
	err.msg = req.nlh;
	msg_start(m, NLMSG_ERROR, (capped ? NLM_F_CAPPED : 0) |
		  (tlvs ? NLM_F_ACK_TLVS : 0));
	msg_append(m, &err, sizeof(err));
	if (!capped)
		msg_append(m, NLMSG_DATA(&req.nlh),
			   req.nlh.nlmsg_len - NLMSG_HDRLEN);
}

static void test_errors(void)
{
	char msg[SRDMA_NL_MSG_LEN], small[8];
	char unterminated[300];
	struct msg m;
	int error, ret;

	error_start(&m, -ENODEV, false, true);
	msg_put_u32(&m, NLMSGERR_ATTR_OFFS, 20);
	msg_put_str(&m, NLMSGERR_ATTR_MSG, "no device srdma0");
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && error == -ENODEV && !strcmp(msg, "no device srdma0"),
	      "error with the request and a message: %d \"%s\"", error, msg);

	error_start(&m, -EINVAL, true, true);
	msg_put_str(&m, NLMSGERR_ATTR_MSG, "rate above the ceiling");
	msg_put_u32(&m, NLMSGERR_ATTR_OFFS, 20);
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && error == -EINVAL && !strcmp(msg, "rate above the ceiling"),
	      "capped error with a message: %d \"%s\"", error, msg);

	error_start(&m, -EPERM, false, false);
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && error == -EPERM && !msg[0], "error without a message");

	error_start(&m, 0, true, true);
	msg_put_str(&m, NLMSGERR_ATTR_MSG, "burst raised to one MTU");
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && !error && !strcmp(msg, "burst raised to one MTU"),
	      "ack with a warning");

	error_start(&m, 0, true, false);
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && !error && !msg[0], "plain ack");

	error_start(&m, -EINVAL, true, true);
	msg_put_str(&m, NLMSGERR_ATTR_MSG, "a long message");
	ret = srdma_nl_parse_error(m.nlh, &error, small, sizeof(small));
	check(!ret && !strcmp(small, "a long "), "message cut to the buffer");

	memset(unterminated, 'x', sizeof(unterminated));
	error_start(&m, -EINVAL, true, true);
	msg_put(&m, NLMSGERR_ATTR_MSG, unterminated, sizeof(unterminated));
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && strlen(msg) == sizeof(msg) - 1,
	      "unterminated message stays in bounds");

	/* the request's length is the kernel's word: it must not mislead */
	error_start(&m, -EINVAL, false, true);
	((struct nlmsgerr *)NLMSG_DATA(m.nlh))->msg.nlmsg_len = 4000;
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && error == -EINVAL && !msg[0],
	      "echoed request longer than the ack");

	msg_start(&m, NLMSG_ERROR, 0);
	m.nlh->nlmsg_len = NLMSG_LENGTH(4);
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(ret == -EBADMSG, "error too short");

	msg_start(&m, NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS);
	error = -ENODEV;
	msg_append(&m, &error, sizeof(error));
	msg_put_str(&m, NLMSGERR_ATTR_MSG, "device gone");
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && error == -ENODEV && !strcmp(msg, "device gone"),
	      "failed dump: %d \"%s\"", error, msg);

	msg_start(&m, NLMSG_DONE, NLM_F_MULTI);
	error = 0;
	msg_append(&m, &error, sizeof(error));
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && !error && !msg[0], "dump done");

	msg_start(&m, NLMSG_DONE, NLM_F_MULTI);
	error = 1;
	ret = srdma_nl_parse_error(m.nlh, &error, msg, sizeof(msg));
	check(!ret && !error, "dump done without an error code");
}

static void test_family(void)
{
	uint16_t family = 0;
	struct msg m;
	int ret;

	genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	msg_put_str(&m, CTRL_ATTR_FAMILY_NAME, "srdma");
	msg_put(&m, CTRL_ATTR_FAMILY_ID, &(uint16_t){ 0x22 }, sizeof(uint16_t));
	msg_put_u32(&m, CTRL_ATTR_VERSION, 1);
	ret = srdma_nl_parse_family(m.nlh, &family);
	check(!ret && family == 0x22, "family id: %#x", family);

	genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	msg_put_str(&m, CTRL_ATTR_FAMILY_NAME, "srdma");
	ret = srdma_nl_parse_family(m.nlh, &family);
	check(ret == -EBADMSG, "family reply without an id");
}

/* every attribute of the ABI has a type here: a new one needs a line */
static void test_known(void)
{
	unsigned int type, missing = 0;

	for (type = SRDMA_ATTR_DEV_NAME; type <= SRDMA_ATTR_MAX; type++)
		if (!srdma_attr_known(type)) {
			diag("attribute %u has no type in nl.c", type);
			missing++;
		}
	check(!missing, "every attribute of rate_netlink.h is read");
	check(!srdma_attr_known(SRDMA_ATTR_UNSPEC) &&
	      !srdma_attr_known(SRDMA_ATTR_PAD) &&
	      !srdma_attr_known(SRDMA_ATTR_MAX + 1),
	      "padding and unknown attributes are skipped");
}

struct dump_count {
	unsigned int families;
	bool nlctrl;
};

static int dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump_count *count = arg;
	const struct nlattr *nla;
	size_t rem;

	count->families++;
	for (nla = srdma_nl_attr_first(nlh, GENL_HDRLEN, &rem); nla;
	     nla = srdma_nl_attr_next(nla, &rem))
		if (nla->nla_type == CTRL_ATTR_FAMILY_NAME &&
		    !strcmp((const char *)nla + NLA_HDRLEN, "nlctrl"))
			count->nlctrl = true;
	return 0;
}

static void test_live(void)
{
	struct dump_count count = { 0 };
	struct srdma_nl_req req;
	struct srdma_nl nl;
	int ret;

	ret = srdma_nl_open(&nl);
	if (!check(!ret, "live: generic netlink socket (%s)", strerror(-ret)))
		return;

	ret = srdma_nl_resolve(&nl, "nlctrl");
	check(!ret && nl.family == GENL_ID_CTRL,
	      "live: resolve nlctrl: %d, id %#x", ret, nl.family);

	ret = srdma_nl_resolve(&nl, SRDMA_GENL_NAME);
	diag("the srdma family is %s here", ret ? "absent" : "present");
	check(ret == -ENOENT || !ret, "live: resolve srdma: %d", ret);

	/* longer than GENL_NAMSIZ: the kernel's policy refuses it */
	ret = srdma_nl_resolve(&nl, "a-family-name-longer-than-genl-allows");
	check(ret == -EINVAL && nl.ext_msg[0],
	      "live: refused with the kernel's message: %d \"%s\"", ret,
	      nl.ext_msg);

	srdma_nl_req_init(&req, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETFAMILY, 1);
	ret = srdma_nl_request(&nl, &req, dump_cb, &count);
	check(!ret && count.families > 1 && count.nlctrl,
	      "live: dump of %u families, nlctrl among them: %d",
	      count.families, ret);

	/* the socket is clean after a dump: the next request works */
	ret = srdma_nl_resolve(&nl, "nlctrl");
	check(!ret && nl.family == GENL_ID_CTRL, "live: request after a dump");
	srdma_nl_close(&nl);
}

int main(void)
{
	test_request();
	test_reply();
	test_bad_replies();
	test_errors();
	test_family();
	test_known();
	test_live();
	return test_done();
}
