/*
 * The user kernels of the tests: most read one input and write one output, computed on the
 * cpu; this gives their descriptor, so that a test sets only what is its own (a halo, names,
 * parameters), and registers it, failing the test unless the runtime takes it.
 */
#ifndef APO_TEST_USER_KERNEL_H
#define APO_TEST_USER_KERNEL_H

#include <criterion/criterion.h>
#include <stddef.h>

#include "apportion.h"

/* The descriptor of user kernel `name`, one input and one output, computed by `cpu` with
 * `user`, in tiles of `tile` samples (0: the runtime's default); the other fields as
 * APO_KERNEL_DESC_INIT leaves them. */
static inline apo_kernel_desc test_user_kernel(const char *name, apo_cpu_kernel_fn cpu, void *user,
                                               size_t tile) {
    apo_kernel_desc d = APO_KERNEL_DESC_INIT;
    d.name = name;
    d.n_inputs = 1;
    d.n_outputs = 1;
    d.cpu = cpu;
    d.user = user;
    d.tile = tile;
    return d;
}

/* Registers `d` on rt; fails the test, naming the kernel, unless the runtime takes it. */
static inline void test_user_kernel_register(apo_runtime *rt, const apo_kernel_desc *d) {
    cr_assert_eq(apo_kernel_register(rt, d), APO_OK, "%s: %s", d->name, apo_last_error());
}

#endif
