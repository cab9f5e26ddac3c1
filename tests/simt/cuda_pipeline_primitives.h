/*
 * cuda_pipeline_primitives.h of the SIMT layer (docs/simt.md): the
 * per-thread async copies into shared memory. A copy lands, at random (or as the options
 * say, simt_api.h), either when it is issued or when __pipeline_wait_prior waits for its
 * batch; until then its destination keeps what it held. The device's rules are enforced: 4,
 * 8 or 16 bytes, both addresses aligned to the size, the destination in shared memory.
 */
#ifndef APO_SIMT_PIPELINE_H
#define APO_SIMT_PIPELINE_H

#include "simt.h"

void __pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size_and_align,
                             size_t zfill = 0);
void __pipeline_commit(void);
void __pipeline_wait_prior(size_t prior);

#endif /* APO_SIMT_PIPELINE_H */
