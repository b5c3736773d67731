/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libibverbs' own commands to ib_uverbs that a provider calls and a
 * program may not reach otherwise (their symbols are IBVERBS_PRIVATE_*,
 * rdma-core 44: Debian 12's).
 */
#ifndef SRDMA_TESTS_UVERBS_CMD_H
#define SRDMA_TESTS_UVERBS_CMD_H

#include <infiniband/verbs.h>

/* ibv_advise_mr() as ib_uverbs takes it: librxe 44 has no advise_mr */
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      unsigned int flags, struct ibv_sge *sg_list,
		      unsigned int num_sge);

#endif /* SRDMA_TESTS_UVERBS_CMD_H */
