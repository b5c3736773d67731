// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The tracepoints' definitions (srdma_trace.h) */
#define CREATE_TRACE_POINTS
#include "srdma_trace.h"
