/*
 * oscillators_tiles.h: the oscillators' tile bodies behind one switch over its rows of the table
 * (catalog_table.h), which the CPU (dispatch/catalog_dispatch.c) and this family's CUDA launcher
 * (oscillators.cu) both call.
 */
#ifndef APO_KERNELS_OSCILLATORS_TILES_H
#define APO_KERNELS_OSCILLATORS_TILES_H

#include "ao_tile.h"
#include "apo_stream.h"
#include "apo_tile.h"
#include "bop_tile.h"
#include "catalog.h"
#include "cci_tile.h"
#include "cmo_tile.h"
#include "cmou_tile.h"
#include "coppock_tile.h"
#include "dpo_tile.h"
#include "er_tile.h"
#include "eri_tile.h"
#include "fractal_tile.h"
#include "imi_tile.h"
#include "kdj_stream.h"
#include "kdj_tile.h"
#include "macdext_tile.h"
#include "macdfix_tile.h"
#include "mom_tile.h"
#include "qstick_tile.h"
#include "roc_tile.h"
#include "rsi_tile.h"
#include "smi_tile.h"
#include "stoch_ma.h"
#include "stoch_stream.h"
#include "stoch_tile.h"
#include "stochrsi_tile.h"
#include "trix_tile.h"
#include "tsi_tile.h"
#include "vhf_tile.h"
#include "wad_tile.h"
#include "willr_tile.h"

static inline APO_HD void apo__oscillators_tile(int id, const apo__cat_io *io, size_t begin,
                                                size_t end) {
    switch (id) {
#define APO__OSCILLATORS_CASE(ID, name, room, ...)                                                 \
    APO_CAT_WHEN(room, oscillators)(case APO_CAT_##ID : apo__##name##_tile(io, begin, end); break;)
        APO_CATALOG(APO__OSCILLATORS_CASE)
#undef APO__OSCILLATORS_CASE
    default:
        break;
    }
}

#endif /* APO_KERNELS_OSCILLATORS_TILES_H */
