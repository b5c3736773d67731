// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Host test of srdma-rate's units and command line (parse.c), table-driven,
 * TAP output. make -C tools/srdma-rate test runs it.
 */
#include <string.h>

#include "parse.h"
#include "test.h"

struct rate_case {
	const char *s;
	enum srdma_parse_err err;
	uint64_t kbps;
};

static const struct rate_case rate_cases[] = {
	{ "1kbit",			SRDMA_PARSE_OK,		1 },
	{ "10mbit",			SRDMA_PARSE_OK,		10000 },
	{ "100gbit",			SRDMA_PARSE_OK,		100000000 },
	{ "1.5gbit",			SRDMA_PARSE_OK,		1500000 },
	{ "1.1gbit",			SRDMA_PARSE_OK,		1100000 },
	{ "0.001mbit",			SRDMA_PARSE_OK,		1 },
	{ "0.000001gbit",		SRDMA_PARSE_OK,		1 },
	{ "2tbit",			SRDMA_PARSE_OK,		2000000000 },
	{ "100",			SRDMA_PARSE_OK,		100 },
	{ "1.5",			SRDMA_PARSE_OK,		2 },
	{ "1000bit",			SRDMA_PARSE_OK,		1 },
	{ "1499bit",			SRDMA_PARSE_OK,		1 },
	{ "1500bit",			SRDMA_PARSE_OK,		2 },
	{ "1.0004mbit",			SRDMA_PARSE_OK,		1000 },
	{ "1.0005mbit",			SRDMA_PARSE_OK,		1001 },
	{ "1kbps",			SRDMA_PARSE_OK,		1 },
	{ "1mbps",			SRDMA_PARSE_OK,		1000 },
	{ "1gbps",			SRDMA_PARSE_OK,		1000000 },
	{ "1tbps",			SRDMA_PARSE_OK,		1000000000 },
	{ "1Gbit",			SRDMA_PARSE_OK,		1000000 },
	{ "25GBIT",			SRDMA_PARSE_OK,		25000000 },
	{ "0",				SRDMA_PARSE_OK,		0 },
	{ "0kbit",			SRDMA_PARSE_OK,		0 },
	{ "0.000gbit",			SRDMA_PARSE_OK,		0 },
	{ "000000000000000000000000000001", SRDMA_PARSE_OK,	1 },
	{ "18446744073709551kbit",	SRDMA_PARSE_OK,		SRDMA_RATE_MAX_KBPS },
	{ "18446744073709551.4kbit",	SRDMA_PARSE_OK,		SRDMA_RATE_MAX_KBPS },
	{ "18446744.073709551tbit",	SRDMA_PARSE_OK,		SRDMA_RATE_MAX_KBPS },
	{ "18446744073709551499bit",	SRDMA_PARSE_OK,		SRDMA_RATE_MAX_KBPS },
	{ "18446744073709551615bit",	SRDMA_PARSE_RANGE,	0 },
	{ "18446744073709551.5kbit",	SRDMA_PARSE_RANGE,	0 },
	{ "18446744073709552kbit",	SRDMA_PARSE_RANGE,	0 },
	{ "18446744073709551615kbit",	SRDMA_PARSE_RANGE,	0 },
	{ "18446744073709551616kbit",	SRDMA_PARSE_RANGE,	0 },
	{ "99999999999999999999999999tbit", SRDMA_PARSE_RANGE,	0 },
	{ "999bit",			SRDMA_PARSE_TOO_SMALL,	0 },
	{ "1bit",			SRDMA_PARSE_TOO_SMALL,	0 },
	{ "0.5kbit",			SRDMA_PARSE_TOO_SMALL,	0 },
	{ "0.9999",			SRDMA_PARSE_TOO_SMALL,	0 },
	{ "0.0000001gbit",		SRDMA_PARSE_TOO_SMALL,	0 },
	{ "",				SRDMA_PARSE_EMPTY,	0 },
	{ "-1",				SRDMA_PARSE_NEGATIVE,	0 },
	{ "-1gbit",			SRDMA_PARSE_NEGATIVE,	0 },
	{ "-0",				SRDMA_PARSE_NEGATIVE,	0 },
	{ "-.5",			SRDMA_PARSE_NEGATIVE,	0 },
	{ "-j",				SRDMA_PARSE_SYNTAX,	0 },
	{ "+1",				SRDMA_PARSE_SYNTAX,	0 },
	{ " 1",				SRDMA_PARSE_SYNTAX,	0 },
	{ "1 ",				SRDMA_PARSE_SYNTAX,	0 },
	{ "1 gbit",			SRDMA_PARSE_SYNTAX,	0 },
	{ "junk",			SRDMA_PARSE_SYNTAX,	0 },
	{ "gbit",			SRDMA_PARSE_SYNTAX,	0 },
	{ "1.",				SRDMA_PARSE_SYNTAX,	0 },
	{ ".5gbit",			SRDMA_PARSE_SYNTAX,	0 },
	{ "1.2.3",			SRDMA_PARSE_SYNTAX,	0 },
	{ "1,5gbit",			SRDMA_PARSE_SYNTAX,	0 },
	{ "nan",			SRDMA_PARSE_SYNTAX,	0 },
	{ "inf",			SRDMA_PARSE_SYNTAX,	0 },
	{ "1e3",			SRDMA_PARSE_UNIT,	0 },
	{ "0x10",			SRDMA_PARSE_UNIT,	0 },
	{ "1xbit",			SRDMA_PARSE_UNIT,	0 },
	{ "1bps",			SRDMA_PARSE_UNIT,	0 },
	{ "1kibit",			SRDMA_PARSE_UNIT,	0 },
	{ "1gbitx",			SRDMA_PARSE_UNIT,	0 },
	{ "1kbit/s",			SRDMA_PARSE_UNIT,	0 },
};

struct size_case {
	const char *s;
	enum srdma_parse_err err;
	uint32_t bytes;
};

static const struct size_case size_cases[] = {
	{ "0",			SRDMA_PARSE_OK,		0 },
	{ "4096",		SRDMA_PARSE_OK,		4096 },
	{ "1500b",		SRDMA_PARSE_OK,		1500 },
	{ "64k",		SRDMA_PARSE_OK,		65536 },
	{ "64kb",		SRDMA_PARSE_OK,		65536 },
	{ "64KiB",		SRDMA_PARSE_OK,		65536 },
	{ "1m",			SRDMA_PARSE_OK,		1048576 },
	{ "1mb",		SRDMA_PARSE_OK,		1048576 },
	{ "1MiB",		SRDMA_PARSE_OK,		1048576 },
	{ "4095m",		SRDMA_PARSE_OK,		4095U * 1048576 },
	{ "4294967295",		SRDMA_PARSE_OK,		UINT32_MAX },
	{ "4294967296",		SRDMA_PARSE_RANGE,	0 },
	{ "4096m",		SRDMA_PARSE_RANGE,	0 },
	{ "4194304k",		SRDMA_PARSE_RANGE,	0 },
	{ "99999999999999999999999", SRDMA_PARSE_RANGE,	0 },
	{ "",			SRDMA_PARSE_EMPTY,	0 },
	{ "-1",			SRDMA_PARSE_NEGATIVE,	0 },
	{ "1.5k",		SRDMA_PARSE_SYNTAX,	0 },
	{ "k",			SRDMA_PARSE_SYNTAX,	0 },
	{ "1 k",		SRDMA_PARSE_SYNTAX,	0 },
	{ "1g",			SRDMA_PARSE_UNIT,	0 },
	{ "1kbit",		SRDMA_PARSE_UNIT,	0 },
};

struct qpn_case {
	const char *s;
	enum srdma_parse_err err;
	uint32_t qpn;
};

static const struct qpn_case qpn_cases[] = {
	{ "0",			SRDMA_PARSE_OK,		0 },
	{ "17",			SRDMA_PARSE_OK,		17 },
	{ "017",		SRDMA_PARSE_OK,		17 },
	{ "0x11",		SRDMA_PARSE_OK,		17 },
	{ "0X1f",		SRDMA_PARSE_OK,		31 },
	{ "16777215",		SRDMA_PARSE_OK,		SRDMA_QPN_MAX },
	{ "0xffffff",		SRDMA_PARSE_OK,		SRDMA_QPN_MAX },
	{ "16777216",		SRDMA_PARSE_RANGE,	0 },
	{ "0x1000000",		SRDMA_PARSE_RANGE,	0 },
	{ "99999999999999999999999", SRDMA_PARSE_RANGE,	0 },
	{ "",			SRDMA_PARSE_EMPTY,	0 },
	{ "-1",			SRDMA_PARSE_NEGATIVE,	0 },
	{ "0x",			SRDMA_PARSE_SYNTAX,	0 },
	{ "0xg",		SRDMA_PARSE_SYNTAX,	0 },
	{ "1a",			SRDMA_PARSE_SYNTAX,	0 },
	{ "abc",		SRDMA_PARSE_SYNTAX,	0 },
	{ " 1",			SRDMA_PARSE_SYNTAX,	0 },
};

struct format_case {
	uint64_t kbps;
	const char *s;
};

static const struct format_case format_cases[] = {
	{ 0,			"0" },
	{ 1,			"1kbit" },
	{ 10,			"10kbit" },
	{ 999,			"999kbit" },
	{ 1000,			"1mbit" },
	{ 1001,			"1.001mbit" },
	{ 1050,			"1.05mbit" },
	{ 1500,			"1.5mbit" },
	{ 12345,		"12.345mbit" },
	{ 100000,		"100mbit" },
	{ 999999,		"999.999mbit" },
	{ 1000000,		"1gbit" },
	{ 1000001,		"1gbit" },
	{ 1000500,		"1.001gbit" },
	{ 1234567,		"1.235gbit" },
	{ 1500000,		"1.5gbit" },
	{ 100000000,		"100gbit" },
	{ 999999999,		"1000gbit" },
	{ UINT64_MAX,		"18446744073709.552gbit" },
};

struct cmdline_case {
	const char *name;
	const char *const *argv;	/* NULL-terminated, argv[0] included */
	int ret;
	enum srdma_op op;
	bool json;
	const char *dev;		/* NULL: "srdma0" */
	unsigned int fields;
	uint32_t qpn;
	uint64_t rate_kbps;
	uint32_t burst_bytes;
	uint64_t default_kbps;
	uint64_t ceiling_kbps;
	const char *msg;		/* the error message, exactly */
};

#define ARGV(...)	((const char *const []){ "srdma-rate", __VA_ARGS__, NULL })

static const char dev63[] =
	"d23456789012345678901234567890123456789012345678901234567890123";
#define U64MAX "18446744073709551615"
#define DEV64 "d234567890123456789012345678901234567890123456789012345678901234"
static const char dev64[] = DEV64;

static const struct cmdline_case cmdline_cases[] = {
	{ .name = "help", .argv = ARGV("help"), .op = SRDMA_OP_HELP },
	{ .name = "-h", .argv = ARGV("-h"), .op = SRDMA_OP_HELP },
	{ .name = "--help", .argv = ARGV("--help"), .op = SRDMA_OP_HELP },
	{ .name = "-j help", .argv = ARGV("-j", "help"), .op = SRDMA_OP_HELP,
	  .json = true },
	{ .name = "nothing", .argv = ((const char *const []){ "srdma-rate", NULL }),
	  .ret = -1, .msg = "missing command (try 'srdma-rate help')" },
	{ .name = "-j alone", .argv = ARGV("-j"), .ret = -1,
	  .msg = "missing command (try 'srdma-rate help')" },
	{ .name = "unknown option", .argv = ARGV("-x", "qp"), .ret = -1,
	  .msg = "unknown option \"-x\" (try 'srdma-rate help')" },
	{ .name = "unknown command", .argv = ARGV("link", "show"), .ret = -1,
	  .msg = "unknown command \"link\" (try 'srdma-rate help')" },
	{ .name = "qp alone", .argv = ARGV("qp"), .ret = -1,
	  .msg = "qp: missing show or set" },
	{ .name = "qp list", .argv = ARGV("qp", "list", "srdma0"), .ret = -1,
	  .msg = "unknown command \"qp list\" (qp takes show or set)" },
	{ .name = "qp show no dev", .argv = ARGV("qp", "show"), .ret = -1,
	  .msg = "missing device name" },
	{ .name = "qp show empty dev", .argv = ARGV("qp", "show", ""), .ret = -1,
	  .msg = "invalid device name \"\"" },
	{ .name = "qp show dev of 63", .argv = ARGV("qp", "show", dev63),
	  .op = SRDMA_OP_QP_SHOW, .dev = dev63 },
	{ .name = "qp show dev of 64", .argv = ARGV("qp", "show", dev64), .ret = -1,
	  .msg = "invalid device name \"" DEV64 "\"" },
	{ .name = "qp show all", .argv = ARGV("qp", "show", "srdma0"),
	  .op = SRDMA_OP_QP_SHOW },
	{ .name = "-j qp show one", .argv = ARGV("-j", "qp", "show", "srdma0", "17"),
	  .op = SRDMA_OP_QP_SHOW, .json = true, .fields = SRDMA_FIELD_QPN,
	  .qpn = 17 },
	{ .name = "--json -- qp show hex",
	  .argv = ARGV("--json", "--", "qp", "show", "srdma0", "0x11"),
	  .op = SRDMA_OP_QP_SHOW, .json = true, .fields = SRDMA_FIELD_QPN,
	  .qpn = 17 },
	{ .name = "qp show extra", .argv = ARGV("qp", "show", "srdma0", "17", "x"),
	  .ret = -1, .msg = "unexpected argument \"x\"" },
	{ .name = "qp show bad qpn", .argv = ARGV("qp", "show", "srdma0", "abc"),
	  .ret = -1, .msg = "invalid QPN \"abc\": not a number" },
	{ .name = "qp show option after", .argv = ARGV("qp", "show", "srdma0", "-j"),
	  .ret = -1, .msg = "invalid QPN \"-j\": not a number" },
	{ .name = "qp show qpn too large", .argv = ARGV("qp", "show", "srdma0", "16777216"),
	  .ret = -1, .msg = "invalid QPN \"16777216\": too large (QPNs are 0 to 16777215)" },
	{ .name = "qp set rate", .argv = ARGV("qp", "set", "srdma0", "17", "rate", "1.5gbit"),
	  .op = SRDMA_OP_QP_SET, .fields = SRDMA_FIELD_QPN | SRDMA_FIELD_RATE,
	  .qpn = 17, .rate_kbps = 1500000 },
	{ .name = "qp set rate 0", .argv = ARGV("qp", "set", "srdma0", "17", "rate", "0"),
	  .op = SRDMA_OP_QP_SET, .fields = SRDMA_FIELD_QPN | SRDMA_FIELD_RATE,
	  .qpn = 17 },
	{ .name = "qp set rate burst",
	  .argv = ARGV("qp", "set", "srdma0", "17", "rate", "10mbit", "burst", "64k"),
	  .op = SRDMA_OP_QP_SET,
	  .fields = SRDMA_FIELD_QPN | SRDMA_FIELD_RATE | SRDMA_FIELD_BURST,
	  .qpn = 17, .rate_kbps = 10000, .burst_bytes = 65536 },
	{ .name = "qp set burst rate",
	  .argv = ARGV("qp", "set", "srdma0", "17", "burst", "0", "rate", "1"),
	  .op = SRDMA_OP_QP_SET,
	  .fields = SRDMA_FIELD_QPN | SRDMA_FIELD_RATE | SRDMA_FIELD_BURST,
	  .qpn = 17, .rate_kbps = 1 },
	{ .name = "qp set no qpn", .argv = ARGV("qp", "set", "srdma0"), .ret = -1,
	  .msg = "missing QPN" },
	{ .name = "qp set no rate", .argv = ARGV("qp", "set", "srdma0", "17"), .ret = -1,
	  .msg = "qp set: missing rate (rate 0 clears the admin's rate)" },
	{ .name = "qp set burst only", .argv = ARGV("qp", "set", "srdma0", "17", "burst", "1k"),
	  .ret = -1, .msg = "qp set: missing rate (rate 0 clears the admin's rate)" },
	{ .name = "qp set rate no value", .argv = ARGV("qp", "set", "srdma0", "17", "rate"),
	  .ret = -1, .msg = "missing value after \"rate\"" },
	{ .name = "qp set rate twice",
	  .argv = ARGV("qp", "set", "srdma0", "17", "rate", "1", "rate", "2"),
	  .ret = -1, .msg = "\"rate\" given twice" },
	{ .name = "qp set negative", .argv = ARGV("qp", "set", "srdma0", "17", "rate", "-1"),
	  .ret = -1, .msg = "invalid rate \"-1\": negative" },
	{ .name = "qp set 999bit", .argv = ARGV("qp", "set", "srdma0", "17", "rate", "999bit"),
	  .ret = -1, .msg = "invalid rate \"999bit\": below 1kbit" },
	{ .name = "qp set junk", .argv = ARGV("qp", "set", "srdma0", "17", "rate", "fast"),
	  .ret = -1, .msg = "invalid rate \"fast\": not a number" },
	{ .name = "qp set unit", .argv = ARGV("qp", "set", "srdma0", "17", "rate", "1gib"),
	  .ret = -1, .msg = "invalid rate \"1gib\": unknown unit" },
	{ .name = "qp set overflow",
	  .argv = ARGV("qp", "set", "srdma0", "17", "rate", "18446744073709551615kbit"),
	  .ret = -1,
	  .msg = "invalid rate \"" U64MAX "kbit\": too large (at most 18446744073709551kbit)" },
	{ .name = "qp set bad burst",
	  .argv = ARGV("qp", "set", "srdma0", "17", "rate", "1", "burst", "5g"),
	  .ret = -1, .msg = "invalid size \"5g\": unknown unit" },
	{ .name = "qp set huge burst",
	  .argv = ARGV("qp", "set", "srdma0", "17", "rate", "1", "burst", "4096m"),
	  .ret = -1, .msg = "invalid size \"4096m\": too large (at most 4294967295 bytes)" },
	{ .name = "qp set port keyword",
	  .argv = ARGV("qp", "set", "srdma0", "17", "ceiling", "1gbit"),
	  .ret = -1, .msg = "unknown keyword \"ceiling\" (qp set takes rate and burst)" },
	{ .name = "port show", .argv = ARGV("port", "show", "srdma0"),
	  .op = SRDMA_OP_PORT_SHOW },
	{ .name = "port show extra", .argv = ARGV("port", "show", "srdma0", "1"),
	  .ret = -1, .msg = "unexpected argument \"1\"" },
	{ .name = "port set nothing", .argv = ARGV("port", "set", "srdma0"), .ret = -1,
	  .msg = "port set: nothing to set (give default, ceiling or burst)" },
	{ .name = "port set default", .argv = ARGV("port", "set", "srdma0", "default", "1gbit"),
	  .op = SRDMA_OP_PORT_SET, .fields = SRDMA_FIELD_DEFAULT,
	  .default_kbps = 1000000 },
	{ .name = "port set all",
	  .argv = ARGV("port", "set", "srdma0", "ceiling", "10gbit", "burst", "1mib",
		       "default", "0"),
	  .op = SRDMA_OP_PORT_SET,
	  .fields = SRDMA_FIELD_DEFAULT | SRDMA_FIELD_CEILING | SRDMA_FIELD_BURST,
	  .ceiling_kbps = 10000000, .burst_bytes = 1048576 },
	{ .name = "port set qp keyword",
	  .argv = ARGV("port", "set", "srdma0", "rate", "1"),
	  .ret = -1,
	  .msg = "unknown keyword \"rate\" (port set takes default, ceiling and burst)" },
	{ .name = "port set no value", .argv = ARGV("port", "set", "srdma0", "ceiling"),
	  .ret = -1, .msg = "missing value after \"ceiling\"" },
	{ .name = "port set twice",
	  .argv = ARGV("port", "set", "srdma0", "burst", "1", "burst", "1"),
	  .ret = -1, .msg = "\"burst\" given twice" },
};

static void test_rates(void)
{
	const struct rate_case *c;
	enum srdma_parse_err err;
	uint64_t kbps;

	for (c = rate_cases; c < rate_cases + ARRAY_SIZE(rate_cases); c++) {
		kbps = 0xdead;
		err = srdma_parse_rate(c->s, &kbps);
		check(err == c->err && (err || kbps == c->kbps),
		      "rate \"%s\": %s %llu (want %s %llu)", c->s,
		      srdma_parse_strerror(err), (unsigned long long)kbps,
		      srdma_parse_strerror(c->err), (unsigned long long)c->kbps);
	}
}

static void test_sizes(void)
{
	const struct size_case *c;
	enum srdma_parse_err err;
	uint32_t bytes;

	for (c = size_cases; c < size_cases + ARRAY_SIZE(size_cases); c++) {
		bytes = 0xdead;
		err = srdma_parse_size(c->s, &bytes);
		check(err == c->err && (err || bytes == c->bytes),
		      "size \"%s\": %s %u (want %s %u)", c->s,
		      srdma_parse_strerror(err), bytes,
		      srdma_parse_strerror(c->err), c->bytes);
	}
}

static void test_qpns(void)
{
	const struct qpn_case *c;
	enum srdma_parse_err err;
	uint32_t qpn;

	for (c = qpn_cases; c < qpn_cases + ARRAY_SIZE(qpn_cases); c++) {
		qpn = 0xdead;
		err = srdma_parse_qpn(c->s, &qpn);
		check(err == c->err && (err || qpn == c->qpn),
		      "qpn \"%s\": %s %u (want %s %u)", c->s,
		      srdma_parse_strerror(err), qpn,
		      srdma_parse_strerror(c->err), c->qpn);
	}
}

static void test_formats(void)
{
	const struct format_case *c;
	char buf[SRDMA_RATE_STR_LEN];

	for (c = format_cases; c < format_cases + ARRAY_SIZE(format_cases); c++) {
		srdma_format_rate(c->kbps, buf, sizeof(buf));
		check(!strcmp(buf, c->s), "format %llu: \"%s\" (want \"%s\")",
		      (unsigned long long)c->kbps, buf, c->s);
	}
}

/* what the table prints, read back, is what it stands for, to 0.05% */
static void test_format_parse(void)
{
	static const uint64_t vals[] = {
		1, 7, 999, 1000, 1234, 99999, 1000000, 1234567, 25000000,
		400000000, 18446744073709ULL,
	};
	char buf[SRDMA_RATE_STR_LEN];
	enum srdma_parse_err err;
	uint64_t kbps, diff;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		srdma_format_rate(vals[i], buf, sizeof(buf));
		err = srdma_parse_rate(buf, &kbps);
		diff = kbps > vals[i] ? kbps - vals[i] : vals[i] - kbps;
		check(!err && diff <= vals[i] / 2000,
		      "format then parse %llu: \"%s\" is %llu",
		      (unsigned long long)vals[i], buf, (unsigned long long)kbps);
	}
}

static void test_cmdlines(void)
{
	const struct cmdline_case *c;
	char msg[SRDMA_PARSE_MSG_LEN];
	struct srdma_cmd cmd;
	int argc, ret;
	bool ok;

	for (c = cmdline_cases; c < cmdline_cases + ARRAY_SIZE(cmdline_cases); c++) {
		for (argc = 0; c->argv[argc]; argc++)
			;
		ret = srdma_parse_cmdline(argc, (char *const *)c->argv, &cmd,
					  msg, sizeof(msg));
		if (c->ret) {
			check(ret == c->ret && !strcmp(msg, c->msg),
			      "cmdline %s: \"%s\"", c->name, msg);
			continue;
		}
		ok = !ret && cmd.op == c->op && cmd.json == c->json &&
		     cmd.fields == c->fields;
		if (ok && c->op != SRDMA_OP_HELP)
			ok = cmd.dev && !strcmp(cmd.dev, c->dev ? c->dev : "srdma0");
		if (ok && (c->fields & SRDMA_FIELD_QPN))
			ok = cmd.qpn == c->qpn;
		if (ok && (c->fields & SRDMA_FIELD_RATE))
			ok = cmd.rate_kbps == c->rate_kbps;
		if (ok && (c->fields & SRDMA_FIELD_BURST))
			ok = cmd.burst_bytes == c->burst_bytes;
		if (ok && (c->fields & SRDMA_FIELD_DEFAULT))
			ok = cmd.default_kbps == c->default_kbps;
		if (ok && (c->fields & SRDMA_FIELD_CEILING))
			ok = cmd.ceiling_kbps == c->ceiling_kbps;
		check(ok, "cmdline %s (ret %d, \"%s\")", c->name, ret, msg);
	}
}

int main(void)
{
	test_rates();
	test_sizes();
	test_qpns();
	test_formats();
	test_format_parse();
	test_cmdlines();
	return test_done();
}
