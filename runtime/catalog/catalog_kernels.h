/* The indicator catalog's descriptors (catalog_kernels.c), listed after the four
 * built-ins of builtin_kernels.c by apo__builtin_kernel(). */
#ifndef APO_RUNTIME_CATALOG_CATALOG_KERNELS_H
#define APO_RUNTIME_CATALOG_CATALOG_KERNELS_H

#include <stddef.h>

#include "catalog/kernel.h"

size_t apo__catalog_kernel_count(void);
const apo__kernel *apo__catalog_kernel(size_t index);
/* The apo__cat_id of a catalog descriptor (kernels/common/catalog.h), or -1 for any other
 * kernel. */
int apo__catalog_id_of(const apo__kernel *k);

#endif
