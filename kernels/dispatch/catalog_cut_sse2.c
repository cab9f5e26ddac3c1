/*
 * catalog_cut_sse2.c: a lone Wilder tile cut into pieces in the sse2 path's lanes
 * (catalog_cut_entry.h), built with that path's flags (kernels/meson.build).
 */
#define APO_CATALOG_PATH_NAME(name) name##_sse2

#include "catalog_cut_entry.h"
