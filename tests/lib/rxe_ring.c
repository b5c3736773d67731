// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* librxe's rings in this process (tests/rxe_ring.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rc_pair.h"
#include "rxe_ring.h"

void read_maps(struct maps *maps)
{
	char line[512];
	FILE *f;

	maps->n = 0;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && maps->n < MAX_MAPS) {
		struct mapping *m = &maps->m[maps->n];

		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx %*s %lx", &m->start, &m->end,
			   &m->pgoff) == 3)
			maps->n++;
	}
	fclose(f);
}

/*
 * the send WQE that librxe's ibv_wr_*() API wrote with @wr_id and has not
 * published yet: at the producer index of its ring
 */
static struct rxe_send_wqe *rxe_sq_wqe_posting(unsigned long long wr_id)
{
	struct maps maps;
	unsigned int i;

	read_maps(&maps);
	for (i = 0; i < maps.n; i++) {
		struct rxe_queue_buf *q = (void *)maps.m[i].start;
		unsigned long bytes = maps.m[i].end - maps.m[i].start;
		struct rxe_send_wqe *wqe;
		unsigned long slots;

		/* a ring whose slots can hold a send WQE, and fit the map */
		if (bytes < sizeof(*q) || q->log2_elem_size >= 32 ||
		    (1UL << q->log2_elem_size) < sizeof(*wqe))
			continue;
		slots = (unsigned long)q->index_mask + 1;
		if (slots > (bytes - sizeof(*q)) >> q->log2_elem_size)
			continue;
		wqe = (void *)(q->data + ((unsigned long)(q->producer_index &
							   q->index_mask) <<
					  q->log2_elem_size));
		if (wqe->wr.wr_id == wr_id)
			return wqe;
	}
	return NULL;
}

/* struct rxe_send_wr's wr.flush (6.2) */
struct flush_wr {
	__u64 remote_addr;
	__u32 length;
	__u32 rkey;
	__u8 type;
	__u8 level;
};

int rxe_wr_flush(struct ibv_qp_ex *qpx, unsigned int rkey,
		 unsigned long long addr, unsigned int len, unsigned int type,
		 unsigned int level)
{
	unsigned long long zero = 0;
	struct rxe_send_wqe *wqe;
	struct flush_wr *f;

	ibv_wr_atomic_write(qpx, rkey, addr, &zero);
	wqe = rxe_sq_wqe_posting(qpx->wr_id);
	if (!wqe)
		return rc_errno(ENOENT);
	wqe->wr.opcode = WR_FLUSH;
	f = (struct flush_wr *)&wqe->wr.wr;
	memset(f, 0, sizeof(*f));
	f->remote_addr = addr;
	f->rkey = rkey;
	f->type = type;
	f->level = level;
	wqe->iova = addr;
	wqe->dma.length = len;
	wqe->dma.resid = len;
	return 0;
}
