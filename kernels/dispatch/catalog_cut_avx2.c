/*
 * catalog_cut_avx2.c: a lone Wilder tile cut into pieces in the avx2 path's lanes
 * (catalog_cut_entry.h), built with that path's flags (kernels/meson.build).
 */
#define APO_CATALOG_PATH_NAME(name) name##_avx2

#include "catalog_cut_entry.h"
