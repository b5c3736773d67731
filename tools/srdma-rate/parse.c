// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srdma-rate: the command line and its units.
 *
 * Rates are read as decimal strings, not through strtod(): "1.1gbit" must be
 * exactly 1100000 kbit/s, and a double has 53 bits where a rate has 64. The
 * unit moves the decimal point, then the digits left of the point are the
 * kbit/s and the first one right of it rounds them.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <rdma/ib_user_verbs.h>

#include "parse.h"

#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))
#define DIGITS			"0123456789"

static const char *const parse_err_names[] = {
	[SRDMA_PARSE_OK]	= "no error",
	[SRDMA_PARSE_EMPTY]	= "empty",
	[SRDMA_PARSE_NEGATIVE]	= "negative",
	[SRDMA_PARSE_SYNTAX]	= "not a number",
	[SRDMA_PARSE_UNIT]	= "unknown unit",
	[SRDMA_PARSE_RANGE]	= "too large",
	[SRDMA_PARSE_TOO_SMALL]	= "below 1kbit",
};

static_assert(ARRAY_SIZE(parse_err_names) == __SRDMA_PARSE_MAX,
	      "a name for every parse error");

/**
 * srdma_parse_strerror() - what a parse error means, for a message
 * @err: the error
 */
const char *srdma_parse_strerror(enum srdma_parse_err err)
{
	if ((unsigned int)err >= ARRAY_SIZE(parse_err_names))
		return "unknown error";
	return parse_err_names[err];
}

/* units as tc spells them, but kbps..tbps are bits here, not bytes */
static const struct {
	const char *name;
	int exp;		/* power of ten that makes kbit/s */
} rate_units[] = {
	{ "",		 0 },
	{ "bit",	-3 },
	{ "kbit",	 0 },
	{ "kbps",	 0 },
	{ "mbit",	 3 },
	{ "mbps",	 3 },
	{ "gbit",	 6 },
	{ "gbps",	 6 },
	{ "tbit",	 9 },
	{ "tbps",	 9 },
};

static const struct {
	const char *name;
	uint32_t bytes;
} size_units[] = {
	{ "",		1 },
	{ "b",		1 },
	{ "k",		1024 },
	{ "kb",		1024 },
	{ "kib",	1024 },
	{ "m",		1024 * 1024 },
	{ "mb",		1024 * 1024 },
	{ "mib",	1024 * 1024 },
};

/* "-1" is a negative number, "-j" is not a number */
static bool is_negative(const char *s)
{
	return s[0] == '-' && ((s[1] >= '0' && s[1] <= '9') || s[1] == '.');
}

/* a number's digits: int_len digits at @s, then frac_len at @frac */
struct decimal {
	const char *s;
	size_t int_len;
	const char *frac;
	size_t frac_len;
};

/* digit @i of the number, 0 past its end */
static unsigned int decimal_digit(const struct decimal *d, size_t i)
{
	if (i < d->int_len)
		return d->s[i] - '0';
	i -= d->int_len;
	if (i < d->frac_len)
		return d->frac[i] - '0';
	return 0;
}

/*
 * Scan "D+" or "D+.D+" at @s into @d; *@unit gets what follows. Signs,
 * spaces, exponents and bare points are errors: a typo must not become a
 * rate.
 */
static enum srdma_parse_err decimal_scan(const char *s, bool frac_ok,
					 struct decimal *d, const char **unit)
{
	const char *p;

	if (!*s)
		return SRDMA_PARSE_EMPTY;
	if (is_negative(s))
		return SRDMA_PARSE_NEGATIVE;
	d->s = s;
	d->int_len = strspn(s, DIGITS);
	d->frac = NULL;
	d->frac_len = 0;
	if (!d->int_len)
		return SRDMA_PARSE_SYNTAX;
	p = s + d->int_len;
	if (*p == '.' && frac_ok) {
		d->frac = p + 1;
		d->frac_len = strspn(d->frac, DIGITS);
		if (!d->frac_len)
			return SRDMA_PARSE_SYNTAX;
		p = d->frac + d->frac_len;
	}
	/* "1.2.3" and "1e3" are typos, "1gbit" is a unit */
	if (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return SRDMA_PARSE_SYNTAX;
	*unit = p;
	return SRDMA_PARSE_OK;
}

/* append @digit to @val unless it would pass @max */
static bool append_digit(uint64_t *val, unsigned int digit, uint64_t max)
{
	if (*val > (max - digit) / 10)
		return false;
	*val = *val * 10 + digit;
	return true;
}

/**
 * srdma_parse_rate() - a rate as tc writes it, in kbit/s
 * @s: "1.5gbit", "100mbit", "999" (kbit/s) ...
 * @kbps: the rate, rounded to the nearest kbit/s
 *
 * A nonzero rate under 1kbit is an error, not zero: zero means "no rate".
 */
enum srdma_parse_err srdma_parse_rate(const char *s, uint64_t *kbps)
{
	enum srdma_parse_err err;
	struct decimal d;
	const char *unit;
	bool nonzero = false;
	uint64_t val = 0;
	size_t i, len;
	long point;
	int exp;

	err = decimal_scan(s, true, &d, &unit);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(rate_units); i++)
		if (!strcasecmp(unit, rate_units[i].name))
			break;
	if (i == ARRAY_SIZE(rate_units))
		return SRDMA_PARSE_UNIT;
	exp = rate_units[i].exp;

	len = d.int_len + d.frac_len;
	for (i = 0; i < len; i++)
		nonzero |= decimal_digit(&d, i) != 0;
	if (!nonzero) {
		*kbps = 0;
		return SRDMA_PARSE_OK;
	}

	/* the unit moves the decimal point; digits left of it are kbit/s */
	point = (long)d.int_len + exp;
	for (i = 0; (long)i < point; i++)
		if (!append_digit(&val, decimal_digit(&d, i), SRDMA_RATE_MAX_KBPS))
			return SRDMA_PARSE_RANGE;
	if (!val)
		return SRDMA_PARSE_TOO_SMALL;
	if (decimal_digit(&d, point) >= 5) {
		if (val == SRDMA_RATE_MAX_KBPS)
			return SRDMA_PARSE_RANGE;
		val++;
	}
	*kbps = val;
	return SRDMA_PARSE_OK;
}

/**
 * srdma_parse_size() - a size in bytes: "4096", "64k", "1mib"
 * @s: the string
 * @bytes: the size
 *
 * k, kb and kib are all 1024, as in tc; m, mb and mib 1024 * 1024.
 */
enum srdma_parse_err srdma_parse_size(const char *s, uint32_t *bytes)
{
	enum srdma_parse_err err;
	struct decimal d;
	const char *unit;
	uint64_t val = 0;
	size_t i;

	err = decimal_scan(s, false, &d, &unit);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(size_units); i++)
		if (!strcasecmp(unit, size_units[i].name))
			break;
	if (i == ARRAY_SIZE(size_units))
		return SRDMA_PARSE_UNIT;
	for (size_t j = 0; j < d.int_len; j++)
		if (!append_digit(&val, decimal_digit(&d, j), UINT32_MAX))
			return SRDMA_PARSE_RANGE;
	if (val > UINT32_MAX / size_units[i].bytes)
		return SRDMA_PARSE_RANGE;
	*bytes = val * size_units[i].bytes;
	return SRDMA_PARSE_OK;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * srdma_parse_qpn() - a QP number, decimal or 0x hex
 * @s: "17" or "0x11" (ibv_rc_pingpong prints hex); "017" is 17, not octal
 * @qpn: the QPN
 */
enum srdma_parse_err srdma_parse_qpn(const char *s, uint32_t *qpn)
{
	uint64_t val = 0;
	const char *p;
	int digit;

	if (!*s)
		return SRDMA_PARSE_EMPTY;
	if (is_negative(s))
		return SRDMA_PARSE_NEGATIVE;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!s[2])
			return SRDMA_PARSE_SYNTAX;
		for (p = s + 2; *p; p++) {
			digit = hex_digit(*p);
			if (digit < 0)
				return SRDMA_PARSE_SYNTAX;
			val = val * 16 + digit;
			if (val > SRDMA_QPN_MAX)
				return SRDMA_PARSE_RANGE;
		}
	} else {
		for (p = s; *p; p++) {
			if (*p < '0' || *p > '9')
				return SRDMA_PARSE_SYNTAX;
			val = val * 10 + (*p - '0');
			if (val > SRDMA_QPN_MAX)
				return SRDMA_PARSE_RANGE;
		}
	}
	*qpn = val;
	return SRDMA_PARSE_OK;
}

/**
 * srdma_format_rate() - a rate for people: "100mbit", "1.5gbit"
 * @kbps: the rate; 0 prints "0", the caller says what 0 means
 * @buf: where to write it
 * @len: its size, SRDMA_RATE_STR_LEN is always enough
 *
 * The largest unit that keeps the value at least 1, with at most three
 * decimals, rounded, trailing zeros dropped.
 */
char *srdma_format_rate(uint64_t kbps, char *buf, size_t len)
{
	static const struct {
		const char *name;
		uint64_t kbps;
	} units[] = {
		{ "gbit", 1000000 },
		{ "mbit", 1000 },
		{ "kbit", 1 },
	};
	uint64_t whole, milli, div = 1;
	const char *name = "kbit";
	char frac[sizeof(".4294967295")] = "";
	size_t i;

	if (!kbps) {
		snprintf(buf, len, "0");
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (kbps >= units[i].kbps) {
			div = units[i].kbps;
			name = units[i].name;
			break;
		}
	}
	whole = kbps / div;
	milli = ((kbps % div) * 1000 + div / 2) / div;
	if (milli == 1000) {
		whole++;
		milli = 0;
	}
	if (milli) {
		snprintf(frac, sizeof(frac), ".%03u", (unsigned int)milli);
		for (i = strlen(frac) - 1; frac[i] == '0'; i--)
			frac[i] = '\0';
	}
	snprintf(buf, len, "%llu%s%s", (unsigned long long)whole, frac, name);
	return buf;
}

/* the command line, one word at a time */
struct args {
	int argc;
	char *const *argv;
	int next;
	char *msg;
	size_t msg_len;
};

static const char *args_next(struct args *a)
{
	return a->next < a->argc ? a->argv[a->next++] : NULL;
}

/* the message of a usage error; returns -1 to be returned */
static int __printf(2, 3) args_err(struct args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->msg, a->msg_len, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_dev(struct args *a, struct srdma_cmd *cmd)
{
	cmd->dev = args_next(a);
	if (!cmd->dev)
		return args_err(a, "missing device name");
	if (!*cmd->dev || strlen(cmd->dev) >= IB_DEVICE_NAME_MAX)
		return args_err(a, "invalid device name \"%s\"", cmd->dev);
	return 0;
}

static int parse_qpn(struct args *a, struct srdma_cmd *cmd, const char *s)
{
	enum srdma_parse_err err = srdma_parse_qpn(s, &cmd->qpn);

	if (err == SRDMA_PARSE_RANGE)
		return args_err(a, "invalid QPN \"%s\": too large (QPNs are 0 to %u)",
				s, SRDMA_QPN_MAX);
	if (err)
		return args_err(a, "invalid QPN \"%s\": %s", s,
				srdma_parse_strerror(err));
	cmd->fields |= SRDMA_FIELD_QPN;
	return 0;
}

/* the "keyword value" pairs of the set commands */
enum value_kind {
	VALUE_RATE,
	VALUE_SIZE,
};

struct keyword {
	const char *name;
	enum srdma_cmd_field field;
	enum value_kind kind;
	size_t offset;		/* of the value in struct srdma_cmd */
};

static const struct keyword qp_set_keywords[] = {
	{ "rate", SRDMA_FIELD_RATE, VALUE_RATE,
	  offsetof(struct srdma_cmd, rate_kbps) },
	{ "burst", SRDMA_FIELD_BURST, VALUE_SIZE,
	  offsetof(struct srdma_cmd, burst_bytes) },
	{ }
};

static const struct keyword port_set_keywords[] = {
	{ "default", SRDMA_FIELD_DEFAULT, VALUE_RATE,
	  offsetof(struct srdma_cmd, default_kbps) },
	{ "ceiling", SRDMA_FIELD_CEILING, VALUE_RATE,
	  offsetof(struct srdma_cmd, ceiling_kbps) },
	{ "burst", SRDMA_FIELD_BURST, VALUE_SIZE,
	  offsetof(struct srdma_cmd, burst_bytes) },
	{ }
};

static int parse_value(struct args *a, struct srdma_cmd *cmd,
		       const struct keyword *kw, const char *s)
{
	enum srdma_parse_err err;
	char *field = (char *)cmd + kw->offset;
	uint64_t rate;
	uint32_t size;

	if (kw->kind == VALUE_RATE) {
		err = srdma_parse_rate(s, &rate);
		if (err == SRDMA_PARSE_RANGE)
			return args_err(a, "invalid rate \"%s\": too large (at most %llukbit)",
					s, (unsigned long long)SRDMA_RATE_MAX_KBPS);
		if (!err)
			memcpy(field, &rate, sizeof(rate));
	} else {
		err = srdma_parse_size(s, &size);
		if (err == SRDMA_PARSE_RANGE)
			return args_err(a, "invalid size \"%s\": too large (at most %u bytes)",
					s, UINT32_MAX);
		if (!err)
			memcpy(field, &size, sizeof(size));
	}
	if (err)
		return args_err(a, "invalid %s \"%s\": %s",
				kw->kind == VALUE_RATE ? "rate" : "size", s,
				srdma_parse_strerror(err));
	cmd->fields |= kw->field;
	return 0;
}

static int parse_keywords(struct args *a, struct srdma_cmd *cmd,
			  const struct keyword *keywords, const char *what)
{
	const struct keyword *kw;
	const char *word, *val;

	while ((word = args_next(a))) {
		for (kw = keywords; kw->name; kw++)
			if (!strcmp(word, kw->name))
				break;
		if (!kw->name)
			return args_err(a, "unknown keyword \"%s\" (%s)", word, what);
		if (cmd->fields & kw->field)
			return args_err(a, "\"%s\" given twice", word);
		val = args_next(a);
		if (!val)
			return args_err(a, "missing value after \"%s\"", word);
		if (parse_value(a, cmd, kw, val))
			return -1;
	}
	return 0;
}

static int parse_end(struct args *a)
{
	const char *word = args_next(a);

	if (word)
		return args_err(a, "unexpected argument \"%s\"", word);
	return 0;
}

static int parse_qp(struct args *a, struct srdma_cmd *cmd, const char *verb)
{
	const char *word;

	if (!strcmp(verb, "show")) {
		cmd->op = SRDMA_OP_QP_SHOW;
		if (parse_dev(a, cmd))
			return -1;
		word = args_next(a);
		if (word && parse_qpn(a, cmd, word))
			return -1;
		return parse_end(a);
	}
	if (!strcmp(verb, "set")) {
		cmd->op = SRDMA_OP_QP_SET;
		if (parse_dev(a, cmd))
			return -1;
		word = args_next(a);
		if (!word)
			return args_err(a, "missing QPN");
		if (parse_qpn(a, cmd, word))
			return -1;
		if (parse_keywords(a, cmd, qp_set_keywords,
				   "qp set takes rate and burst"))
			return -1;
		if (!(cmd->fields & SRDMA_FIELD_RATE))
			return args_err(a, "qp set: missing rate (rate 0 clears the admin's rate)");
		return 0;
	}
	return args_err(a, "unknown command \"qp %s\" (qp takes show or set)", verb);
}

static int parse_port(struct args *a, struct srdma_cmd *cmd, const char *verb)
{
	if (!strcmp(verb, "show")) {
		cmd->op = SRDMA_OP_PORT_SHOW;
		if (parse_dev(a, cmd))
			return -1;
		return parse_end(a);
	}
	if (!strcmp(verb, "set")) {
		cmd->op = SRDMA_OP_PORT_SET;
		if (parse_dev(a, cmd))
			return -1;
		if (parse_keywords(a, cmd, port_set_keywords,
				   "port set takes default, ceiling and burst"))
			return -1;
		if (!cmd->fields)
			return args_err(a,
					"port set: nothing to set (give default, ceiling or burst)");
		return 0;
	}
	return args_err(a, "unknown command \"port %s\" (port takes show or set)", verb);
}

/**
 * srdma_parse_cmdline() - the whole command line into @cmd
 * @argc: as main() got it
 * @argv: as main() got it
 * @cmd: the command
 * @msg: on error, one line that says what is wrong
 * @msg_len: its size
 *
 * Return: 0, or -1 for a usage error.
 */
int srdma_parse_cmdline(int argc, char *const argv[], struct srdma_cmd *cmd,
			char *msg, size_t msg_len)
{
	struct args a = {
		.argc = argc,
		.argv = argv,
		.next = 1,
		.msg = msg,
		.msg_len = msg_len,
	};
	const char *word, *verb;

	memset(cmd, 0, sizeof(*cmd));
	cmd->op = SRDMA_OP_HELP;
	msg[0] = '\0';

	while ((word = args_next(&a)) && word[0] == '-' && strcmp(word, "--")) {
		if (!strcmp(word, "-h") || !strcmp(word, "--help"))
			return 0;
		if (strcmp(word, "-j") && strcmp(word, "--json"))
			return args_err(&a, "unknown option \"%s\" (try 'srdma-rate help')",
					word);
		cmd->json = true;
	}
	if (word && !strcmp(word, "--"))
		word = args_next(&a);
	if (!word)
		return args_err(&a, "missing command (try 'srdma-rate help')");
	if (!strcmp(word, "help"))
		return 0;
	if (strcmp(word, "qp") && strcmp(word, "port"))
		return args_err(&a, "unknown command \"%s\" (try 'srdma-rate help')",
				word);
	verb = args_next(&a);
	if (!verb)
		return args_err(&a, "%s: missing show or set", word);
	if (!strcmp(word, "qp"))
		return parse_qp(&a, cmd, verb);
	return parse_port(&a, cmd, verb);
}
