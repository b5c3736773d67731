/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * srdma-rate: the command line and its units, parsed without touching the
 * kernel so that tools/srdma-rate/test_parse.c can check every rule.
 */
#ifndef SRDMA_RATE_PARSE_H
#define SRDMA_RATE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the largest rate whose bits per second still fit in a u64 */
#define SRDMA_RATE_MAX_KBPS	(UINT64_MAX / 1000)
/* QPNs are 24 bits on the wire */
#define SRDMA_QPN_MAX		0xffffffU
/* room for any rate srdma_format_rate() prints, NUL included */
#define SRDMA_RATE_STR_LEN	32
/* room for srdma_parse_cmdline()'s message */
#define SRDMA_PARSE_MSG_LEN	256

enum srdma_parse_err {
	SRDMA_PARSE_OK,
	SRDMA_PARSE_EMPTY,
	SRDMA_PARSE_NEGATIVE,
	SRDMA_PARSE_SYNTAX,
	SRDMA_PARSE_UNIT,
	SRDMA_PARSE_RANGE,
	SRDMA_PARSE_TOO_SMALL,
	__SRDMA_PARSE_MAX,
};

const char *srdma_parse_strerror(enum srdma_parse_err err);
enum srdma_parse_err srdma_parse_rate(const char *s, uint64_t *kbps);
enum srdma_parse_err srdma_parse_size(const char *s, uint32_t *bytes);
enum srdma_parse_err srdma_parse_qpn(const char *s, uint32_t *qpn);
char *srdma_format_rate(uint64_t kbps, char *buf, size_t len);

enum srdma_op {
	SRDMA_OP_HELP,
	SRDMA_OP_QP_SHOW,
	SRDMA_OP_QP_SET,
	SRDMA_OP_PORT_SHOW,
	SRDMA_OP_PORT_SET,
};

/* what to set: one bit per optional value of struct srdma_cmd */
enum srdma_cmd_field {
	SRDMA_FIELD_QPN		= 1 << 0,
	SRDMA_FIELD_RATE	= 1 << 1,
	SRDMA_FIELD_BURST	= 1 << 2,
	SRDMA_FIELD_DEFAULT	= 1 << 3,
	SRDMA_FIELD_CEILING	= 1 << 4,
};

/* one command line, parsed; the strings point into argv */
struct srdma_cmd {
	enum srdma_op op;
	bool json;
	const char *dev;
	unsigned int fields;		/* enum srdma_cmd_field */
	uint32_t qpn;
	uint64_t rate_kbps;
	uint32_t burst_bytes;
	uint64_t default_kbps;
	uint64_t ceiling_kbps;
};

int srdma_parse_cmdline(int argc, char *const argv[], struct srdma_cmd *cmd,
			char *msg, size_t msg_len);

#endif /* SRDMA_RATE_PARSE_H */
