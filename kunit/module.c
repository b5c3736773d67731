// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srdma_test.ko: what the module says of itself, apart from the suites, so
 * that a module built from some suites only (tools/scenario kunit --suite)
 * still has it.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit suites for srdma");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
