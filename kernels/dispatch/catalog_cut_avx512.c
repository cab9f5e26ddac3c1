/*
 * catalog_cut_avx512.c: a lone Wilder tile cut into pieces in the avx512 path's lanes
 * (catalog_cut_entry.h), built with that path's flags (kernels/meson.build).
 */
#define APO_CATALOG_PATH_NAME(name) name##_avx512

#include "catalog_cut_entry.h"
