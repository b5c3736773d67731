// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srdma-rate: show and set srdma's per-QP rate limits from the command line,
 * through the "srdma" generic netlink family (include/srdma/rate_netlink.h).
 * The manual is Documentation/srdma-rate.md.
 *
 * Exit status: 0 done, 1 the kernel or the system refused, 2 a usage error
 * (nothing was sent).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl.h"
#include "parse.h"

#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))

#define EXIT_USAGE		2
#define NSEC_PER_MSEC		1000000ULL
#define CELL_LEN		SRDMA_RATE_STR_LEN

static const char usage[] =
"Usage: srdma-rate [-j] qp show DEV [QPN]\n"
"       srdma-rate qp set DEV QPN rate RATE [burst SIZE]\n"
"       srdma-rate [-j] port show DEV\n"
"       srdma-rate port set DEV [default RATE] [ceiling RATE] [burst SIZE]\n"
"       srdma-rate help\n"
"\n"
"  -j, --json   show: print JSON (an object, or an array for all QPs)\n"
"  -h, --help   print this text\n"
"\n"
"RATE  bits per second: a number and a unit, bit, kbit, mbit, gbit or tbit\n"
"      (steps of 1000); kbps, mbps, gbps, tbps mean kbit..tbit (bits, not\n"
"      bytes as in tc); no unit means kbit; decimals are fine (1.5gbit).\n"
"      0 is no rate: \"qp set DEV QPN rate 0\" clears the admin's rate.\n"
"SIZE  bytes: a number, with b, k, kb, kib (1024) or m, mb, mib (1048576);\n"
"      0 asks for the default burst.\n"
"QPN   decimal, or hex with 0x.\n"
"\n"
"Manual: Documentation/srdma-rate.md in the srdma sources.\n";

/* enum ib_qp_type of the kernel's rdma/ib_verbs.h, which is not uapi */
enum qp_type {
	QPT_SMI,
	QPT_GSI,
	QPT_RC,
	QPT_UC,
	QPT_UD,
	QPT_RAW_IPV6,
	QPT_RAW_ETHERTYPE,
	QPT_RAW_PACKET = 8,
	QPT_XRC_INI,
	QPT_XRC_TGT,
};

static const char *const qp_type_names[] = {
	[QPT_SMI]		= "SMI",
	[QPT_GSI]		= "GSI",
	[QPT_RC]		= "RC",
	[QPT_UC]		= "UC",
	[QPT_UD]		= "UD",
	[QPT_RAW_IPV6]		= "RAW_IPV6",
	[QPT_RAW_ETHERTYPE]	= "RAW_ETHERTYPE",
	[QPT_RAW_PACKET]	= "RAW_PACKET",
	[QPT_XRC_INI]		= "XRC_INI",
	[QPT_XRC_TGT]		= "XRC_TGT",
};

static const char *const rate_source_names[] = {
	[SRDMA_RATE_NONE]	= "none",
	[SRDMA_RATE_ADMIN]	= "admin",
	[SRDMA_RATE_VERBS]	= "verbs",
	[SRDMA_RATE_AV]		= "av",
	[SRDMA_RATE_DEFAULT]	= "default",
	[SRDMA_RATE_CEILING]	= "ceiling",
};

static_assert(ARRAY_SIZE(rate_source_names) == SRDMA_RATE_CEILING + 1,
	      "a name for every rate source");

/* how a value prints: the table makes it readable, JSON keeps it raw */
enum fmt {
	FMT_COUNT,		/* a number */
	FMT_RATE,		/* the rate in force: 0 is unlimited */
	FMT_SETTING,		/* a rate someone set: 0 is none */
	FMT_SPEED,		/* the netdev's speed: 0 is unknown */
	FMT_QP_TYPE,
	FMT_SOURCE,
	FMT_NS_AS_MS,		/* nanoseconds, shown as milliseconds */
};

struct column {
	const char *header;	/* in the table */
	const char *key;	/* in JSON */
	enum srdma_genl_attr attr;
	enum fmt fmt;
};

static const struct column qp_columns[] = {
	{ "QPN",	  "qpn",	     SRDMA_ATTR_QPN,		 FMT_COUNT },
	{ "TYPE",	  "type",	     SRDMA_ATTR_QP_TYPE,	 FMT_QP_TYPE },
	{ "RATE",	  "rate_kbps",	     SRDMA_ATTR_RATE_KBPS,	 FMT_RATE },
	{ "BURST",	  "burst_bytes",     SRDMA_ATTR_BURST_BYTES,	 FMT_COUNT },
	{ "SOURCE",	  "source",	     SRDMA_ATTR_RATE_SOURCE,	 FMT_SOURCE },
	{ "ADMIN",	  "admin_kbps",	     SRDMA_ATTR_ADMIN_KBPS,	 FMT_SETTING },
	{ "VERBS",	  "verbs_kbps",	     SRDMA_ATTR_VERBS_KBPS,	 FMT_SETTING },
	{ "AV",		  "av_kbps",	     SRDMA_ATTR_AV_KBPS,	 FMT_SETTING },
	{ "THROTTLES",	  "throttle_events", SRDMA_ATTR_THROTTLE_EVENTS, FMT_COUNT },
	{ "THROTTLED_MS", "throttled_ns",    SRDMA_ATTR_THROTTLED_NS,	 FMT_NS_AS_MS },
	{ "TX_BYTES",	  "tx_bytes",	     SRDMA_ATTR_TX_BYTES,	 FMT_COUNT },
};

static const struct column port_columns[] = {
	{ "DEFAULT",	  "default_kbps",    SRDMA_ATTR_DEFAULT_KBPS,	 FMT_SETTING },
	{ "CEILING",	  "ceiling_kbps",    SRDMA_ATTR_CEILING_KBPS,	 FMT_SETTING },
	{ "PORT",	  "port_kbps",	     SRDMA_ATTR_PORT_KBPS,	 FMT_SPEED },
	{ "BURST",	  "burst_bytes",     SRDMA_ATTR_BURST_BYTES,	 FMT_COUNT },
	{ "THROTTLES",	  "throttle_events", SRDMA_ATTR_THROTTLE_EVENTS, FMT_COUNT },
	{ "THROTTLED_MS", "throttled_ns",    SRDMA_ATTR_THROTTLED_NS,	 FMT_NS_AS_MS },
};

#define MAX_COLUMNS		ARRAY_SIZE(qp_columns)
static_assert(ARRAY_SIZE(port_columns) <= MAX_COLUMNS, "room for every column");

/* the replies of one request */
struct replies {
	struct srdma_attrs *rows;
	size_t nr, alloc;
	unsigned int bad_attr;	/* of a malformed reply, 0 if none */
	bool malformed;
};

static const char *name_of(const char *const *names, size_t nr, uint64_t val,
			   char *buf, size_t len)
{
	if (val < nr && names[val])
		return names[val];
	snprintf(buf, len, "%llu", (unsigned long long)val);
	return buf;
}

static const char *cell(const struct column *col, const struct srdma_attrs *a,
			char *buf, size_t len)
{
	uint64_t val = a->val[col->attr];

	if (!a->present[col->attr])
		return "-";
	switch (col->fmt) {
	case FMT_RATE:
		return val ? srdma_format_rate(val, buf, len) : "unlimited";
	case FMT_SETTING:
		return val ? srdma_format_rate(val, buf, len) : "none";
	case FMT_SPEED:
		return val ? srdma_format_rate(val, buf, len) : "unknown";
	case FMT_QP_TYPE:
		return name_of(qp_type_names, ARRAY_SIZE(qp_type_names), val,
			       buf, len);
	case FMT_SOURCE:
		return name_of(rate_source_names, ARRAY_SIZE(rate_source_names),
			       val, buf, len);
	case FMT_NS_AS_MS:
		val /= NSEC_PER_MSEC;
		break;
	case FMT_COUNT:
		break;
	}
	snprintf(buf, len, "%llu", (unsigned long long)val);
	return buf;
}

/* numbers line up on the right, words on the left */
static bool right_aligned(const struct column *col)
{
	return col->fmt == FMT_COUNT || col->fmt == FMT_NS_AS_MS;
}

static void print_row(const struct column *cols, size_t nr_cols,
		      const size_t *width, const struct srdma_attrs *a)
{
	char buf[CELL_LEN];
	const char *s;
	size_t i;

	for (i = 0; i < nr_cols; i++) {
		s = a ? cell(&cols[i], a, buf, sizeof(buf)) : cols[i].header;
		if (i + 1 == nr_cols && !right_aligned(&cols[i]))
			printf("%s\n", s);
		else
			printf(right_aligned(&cols[i]) ? "%*s%s" : "%-*s%s",
			       (int)width[i], s, i + 1 == nr_cols ? "\n" : "  ");
	}
}

static void print_table(const struct column *cols, size_t nr_cols,
			const struct srdma_attrs *rows, size_t nr_rows)
{
	size_t width[MAX_COLUMNS], i, r;
	char buf[CELL_LEN];

	for (i = 0; i < nr_cols; i++) {
		width[i] = strlen(cols[i].header);
		for (r = 0; r < nr_rows; r++) {
			size_t len = strlen(cell(&cols[i], &rows[r], buf, sizeof(buf)));

			if (len > width[i])
				width[i] = len;
		}
	}
	print_row(cols, nr_cols, width, NULL);
	for (r = 0; r < nr_rows; r++)
		print_row(cols, nr_cols, width, &rows[r]);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json_object(const struct column *cols, size_t nr_cols,
			      const struct srdma_attrs *a, const char *dev)
{
	const struct column *col;
	char buf[CELL_LEN];
	size_t i;

	printf("{\"dev\":");
	json_string(a->present[SRDMA_ATTR_DEV_NAME] ? a->dev_name : dev);
	for (i = 0; i < nr_cols; i++) {
		col = &cols[i];
		printf(",\"%s\":", col->key);
		if (!a->present[col->attr])
			printf("null");
		else if (col->fmt == FMT_QP_TYPE || col->fmt == FMT_SOURCE)
			json_string(cell(col, a, buf, sizeof(buf)));
		else
			printf("%llu", (unsigned long long)a->val[col->attr]);
	}
	putchar('}');
}

static void print_json(const struct column *cols, size_t nr_cols,
		       const struct srdma_attrs *rows, size_t nr_rows,
		       bool array, const char *dev)
{
	size_t r;

	if (!array) {
		print_json_object(cols, nr_cols, &rows[0], dev);
		putchar('\n');
		return;
	}
	printf("[");
	for (r = 0; r < nr_rows; r++) {
		printf("%s\n", r ? "," : "");
		print_json_object(cols, nr_cols, &rows[r], dev);
	}
	printf("%s]\n", nr_rows ? "\n" : "");
}

static int replies_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct replies *rep = arg;
	struct srdma_attrs *rows;
	int ret;

	if (rep->nr == rep->alloc) {
		rep->alloc = rep->alloc ? rep->alloc * 2 : 16;
		rows = realloc(rep->rows, rep->alloc * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		rep->rows = rows;
	}
	ret = srdma_attrs_parse(nlh, &rep->rows[rep->nr], &rep->bad_attr);
	if (ret) {
		rep->malformed = true;
		return ret;
	}
	rep->nr++;
	return 0;
}

/* the message for a failed request; returns the exit status */
static int report(const struct srdma_nl *nl, int err,
		  const struct replies *rep)
{
	if (rep && rep->malformed && rep->bad_attr)
		fprintf(stderr, "srdma-rate: malformed reply from the kernel (attribute %u)\n",
			rep->bad_attr);
	else if ((rep && rep->malformed) || (err == -EBADMSG && !nl->ext_msg[0]))
		fprintf(stderr, "srdma-rate: malformed reply from the kernel\n");
	else if (nl->ext_msg[0])
		fprintf(stderr, "srdma-rate: %s\n", nl->ext_msg);
	else
		fprintf(stderr, "srdma-rate: %s\n", strerror(-err));
	return EXIT_FAILURE;
}

/* a kernel's message that came with success */
static void warn_ext_msg(const struct srdma_nl *nl)
{
	if (nl->ext_msg[0])
		fprintf(stderr, "srdma-rate: warning: %s\n", nl->ext_msg);
}

/* a request of the srdma family, with the device it is about */
static int req_init(struct srdma_nl_req *req, const struct srdma_nl *nl,
		    uint16_t flags, uint8_t cmd, const char *dev)
{
	srdma_nl_req_init(req, nl->family, flags, cmd, SRDMA_GENL_VERSION);
	return srdma_nl_put_str(req, SRDMA_ATTR_DEV_NAME, dev);
}

/* send a get and print what comes back */
static int show(struct srdma_nl *nl, const struct srdma_cmd *cmd,
		struct srdma_nl_req *req, const struct column *cols,
		size_t nr_cols, bool dump)
{
	struct replies rep = { 0 };
	int ret;

	ret = srdma_nl_request(nl, req, replies_cb, &rep);
	if (ret) {
		ret = report(nl, ret, &rep);
		goto out;
	}
	if (!dump && rep.nr != 1) {
		fprintf(stderr,
			"srdma-rate: malformed reply from the kernel (%zu answers to one question)\n",
			rep.nr);
		ret = EXIT_FAILURE;
		goto out;
	}
	warn_ext_msg(nl);
	if (cmd->json)
		print_json(cols, nr_cols, rep.rows, rep.nr, dump, cmd->dev);
	else
		print_table(cols, nr_cols, rep.rows, rep.nr);
	if (nl->dump_intr)
		fputs("srdma-rate: warning: the QPs changed during the dump;"
		      " it may miss QPs or list one twice\n", stderr);
out:
	free(rep.rows);
	return ret;
}

/* send a set; success is silent */
static int set(struct srdma_nl *nl, struct srdma_nl_req *req)
{
	int ret = srdma_nl_request(nl, req, NULL, NULL);

	if (ret)
		return report(nl, ret, NULL);
	warn_ext_msg(nl);
	return EXIT_SUCCESS;
}

static int qp_show(struct srdma_nl *nl, const struct srdma_cmd *cmd)
{
	bool one = cmd->fields & SRDMA_FIELD_QPN;
	struct srdma_nl_req req;
	int ret;

	ret = req_init(&req, nl, one ? NLM_F_ACK : NLM_F_DUMP,
		       SRDMA_CMD_QP_GET, cmd->dev);
	if (!ret && one)
		ret = srdma_nl_put_u32(&req, SRDMA_ATTR_QPN, cmd->qpn);
	if (ret)
		return report(nl, ret, NULL);
	return show(nl, cmd, &req, qp_columns, ARRAY_SIZE(qp_columns), !one);
}

static int qp_set(struct srdma_nl *nl, const struct srdma_cmd *cmd)
{
	struct srdma_nl_req req;
	int ret;

	ret = req_init(&req, nl, NLM_F_ACK, SRDMA_CMD_QP_SET, cmd->dev);
	if (!ret)
		ret = srdma_nl_put_u32(&req, SRDMA_ATTR_QPN, cmd->qpn);
	if (!ret)
		ret = srdma_nl_put_u64(&req, SRDMA_ATTR_RATE_KBPS, cmd->rate_kbps);
	if (!ret && (cmd->fields & SRDMA_FIELD_BURST))
		ret = srdma_nl_put_u32(&req, SRDMA_ATTR_BURST_BYTES,
				       cmd->burst_bytes);
	if (ret)
		return report(nl, ret, NULL);
	return set(nl, &req);
}

static int port_show(struct srdma_nl *nl, const struct srdma_cmd *cmd)
{
	struct srdma_nl_req req;
	int ret;

	ret = req_init(&req, nl, NLM_F_ACK, SRDMA_CMD_PORT_GET, cmd->dev);
	if (ret)
		return report(nl, ret, NULL);
	return show(nl, cmd, &req, port_columns, ARRAY_SIZE(port_columns),
		    false);
}

static int port_set(struct srdma_nl *nl, const struct srdma_cmd *cmd)
{
	struct srdma_nl_req req;
	int ret;

	ret = req_init(&req, nl, NLM_F_ACK, SRDMA_CMD_PORT_SET, cmd->dev);
	if (!ret && (cmd->fields & SRDMA_FIELD_DEFAULT))
		ret = srdma_nl_put_u64(&req, SRDMA_ATTR_DEFAULT_KBPS,
				       cmd->default_kbps);
	if (!ret && (cmd->fields & SRDMA_FIELD_CEILING))
		ret = srdma_nl_put_u64(&req, SRDMA_ATTR_CEILING_KBPS,
				       cmd->ceiling_kbps);
	if (!ret && (cmd->fields & SRDMA_FIELD_BURST))
		ret = srdma_nl_put_u32(&req, SRDMA_ATTR_BURST_BYTES,
				       cmd->burst_bytes);
	if (ret)
		return report(nl, ret, NULL);
	return set(nl, &req);
}

static int (*const ops[])(struct srdma_nl *nl, const struct srdma_cmd *cmd) = {
	[SRDMA_OP_QP_SHOW]	= qp_show,
	[SRDMA_OP_QP_SET]	= qp_set,
	[SRDMA_OP_PORT_SHOW]	= port_show,
	[SRDMA_OP_PORT_SET]	= port_set,
};

/* a full disk or a closed pipe is a failure too */
static int flush_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "srdma-rate: write error: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	char msg[SRDMA_PARSE_MSG_LEN];
	struct srdma_cmd cmd;
	struct srdma_nl nl;
	int ret;

	if (srdma_parse_cmdline(argc, argv, &cmd, msg, sizeof(msg))) {
		fprintf(stderr, "srdma-rate: %s\n", msg);
		return EXIT_USAGE;
	}
	if (cmd.op == SRDMA_OP_HELP) {
		fputs(usage, stdout);
		return flush_stdout();
	}

	ret = srdma_nl_open(&nl);
	if (ret) {
		fprintf(stderr, "srdma-rate: cannot open a generic netlink socket: %s\n",
			strerror(-ret));
		return EXIT_FAILURE;
	}
	ret = srdma_nl_resolve(&nl, SRDMA_GENL_NAME);
	if (ret == -ENOENT) {
		fprintf(stderr,
			"srdma-rate: the srdma module is not loaded (no generic netlink family \"%s\")\n",
			SRDMA_GENL_NAME);
		ret = EXIT_FAILURE;
	} else if (ret) {
		ret = report(&nl, ret, NULL);
	} else {
		ret = ops[cmd.op](&nl, &cmd);
	}
	srdma_nl_close(&nl);
	if (!ret)
		ret = flush_stdout();
	return ret;
}
