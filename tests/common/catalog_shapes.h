/*
 * catalog_shapes.h: each catalog row's inputs, outputs and parameters (names, TA-Lib's
 * defaults, bounds), read from the catalog table itself (kernels/common/catalog_table.h), for
 * the tests that call the kernels' bodies or launchers directly rather than through the
 * runtime's descriptors: tests/kernels' family tests and tests/simt's catalog launchers. A
 * static table: one copy in each test executable that includes it.
 */
#ifndef APO_TESTS_CATALOG_SHAPES_H
#define APO_TESTS_CATALOG_SHAPES_H

#include <stddef.h>

#include "catalog_table.h"

/* A parameter's specification as the table writes it (catalog_table.h's params column). */
typedef struct param_spec {
    const char *name;
    double def, min, max;
    int integer;
} param_spec;

typedef struct kernel_shape {
    size_t n_in, n_out, n_params;
    param_spec params[APO_CAT_MAX_PAR];
} kernel_shape;

/* Every row's inputs, outputs and parameters, in id order, from the table itself. */
static const kernel_shape shapes[] = {
#define APO__SHAPE(ID, name, room, inputs, outputs, params, ...)                                   \
    {APO_CAT_COUNT_OF inputs, APO_CAT_COUNT_OF outputs, APO_CAT_COUNT_OF params,                   \
     APO_CAT_LIST_OF params},
    APO_CATALOG(APO__SHAPE)
#undef APO__SHAPE
};

#endif
