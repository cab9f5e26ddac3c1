/*
 * tile_span.h: apo__tile_span, the tile that the group functions of every family
 * (apo__cpu_*_tiles, declared in each family's header) compute in one lane of a vector.
 */
#ifndef APO_TILE_SPAN_H
#define APO_TILE_SPAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A tile of a group call: positions [begin, end) of row `row`. The group functions
 * (apo__cpu_*_tiles) take the arrays of all rows, row r starting at index r * cols, and
 * compute several tiles at once, one per lane of a vector (cpu_isa.h): each tile gets the
 * bits of the single-tile function, whatever the path and whatever other tiles share the
 * call. Tiles must not overlap. An `isa` the CPU lacks is replaced by the best it has.
 */
typedef struct apo__tile_span {
    size_t row, begin, end;
} apo__tile_span;

#ifdef __cplusplus
}
#endif

#endif /* APO_TILE_SPAN_H */
