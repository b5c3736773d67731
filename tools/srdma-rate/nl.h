/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * srdma-rate: just enough generic netlink to talk to the "srdma" family,
 * on a raw socket, with no library. The message parsers take a buffer, not
 * a socket, so tools/srdma-rate/test_nl.c can feed them crafted replies.
 */
#ifndef SRDMA_RATE_NL_H
#define SRDMA_RATE_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <rdma/ib_user_verbs.h>

#include <srdma/rate_netlink.h>

/* a request: every one srdma-rate sends is a few small attributes */
#define SRDMA_NL_REQ_LEN	512
/* room for the kernel's extended ack message */
#define SRDMA_NL_MSG_LEN	256

struct srdma_nl_req {
	union {
		struct nlmsghdr nlh;
		char buf[SRDMA_NL_REQ_LEN];
	};
};

struct srdma_nl {
	int fd;
	uint16_t family;
	uint32_t seq;
	bool dump_intr;			/* a dump changed while it was read */
	char ext_msg[SRDMA_NL_MSG_LEN];	/* the last ack's message, or "" */
};

/* the attributes of one srdma reply, as the kernel sent them */
struct srdma_attrs {
	bool present[SRDMA_ATTR_MAX + 1];
	uint64_t val[SRDMA_ATTR_MAX + 1];	/* the integers, widened */
	char dev_name[IB_DEVICE_NAME_MAX];
};

/* called for each reply of the family; nonzero stops with that error */
typedef int (*srdma_nl_cb)(const struct nlmsghdr *nlh, void *arg);

void srdma_nl_req_init(struct srdma_nl_req *req, uint16_t type, uint16_t flags,
		       uint8_t cmd, uint8_t version);
int srdma_nl_put(struct srdma_nl_req *req, uint16_t type, const void *data,
		 size_t len);
int srdma_nl_put_u32(struct srdma_nl_req *req, uint16_t type, uint32_t val);
int srdma_nl_put_u64(struct srdma_nl_req *req, uint16_t type, uint64_t val);
int srdma_nl_put_str(struct srdma_nl_req *req, uint16_t type, const char *s);

const struct nlattr *srdma_nl_attr_first(const struct nlmsghdr *nlh,
					 size_t hdr_len, size_t *rem);
const struct nlattr *srdma_nl_attr_next(const struct nlattr *nla, size_t *rem);
int srdma_nl_parse_error(const struct nlmsghdr *nlh, int *error,
			 char *msg, size_t msg_len);
int srdma_nl_parse_family(const struct nlmsghdr *nlh, uint16_t *family);
int srdma_attrs_parse(const struct nlmsghdr *nlh, struct srdma_attrs *attrs,
		      unsigned int *bad_attr);
bool srdma_attr_known(unsigned int type);

int srdma_nl_open(struct srdma_nl *nl);
void srdma_nl_close(struct srdma_nl *nl);
int srdma_nl_resolve(struct srdma_nl *nl, const char *name);
int srdma_nl_request(struct srdma_nl *nl, struct srdma_nl_req *req,
		     srdma_nl_cb cb, void *arg);

#endif /* SRDMA_RATE_NL_H */
