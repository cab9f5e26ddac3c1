/*
 * catalog_sse2.c: the catalog tile call on the sse2 path (the x86-64 baseline, and every other
 * CPU's plain build), built with the library's own flags.
 */
#define APO_CATALOG_PATH_NAME(name) name##_sse2

#include "catalog_entry.h"
