/* DLPack's ABI (as the DLPack project's header declares it): the unversioned DLManagedTensor, which
 * every producer gives a consumer that asks for no max_version and every consumer takes. Declared
 * here as the protocol lays it out, so that the package needs no dlpack header; device_view.c reads
 * it, device_array.c writes it. */
#ifndef APO_PY_DLPACK_ABI_H
#define APO_PY_DLPACK_ABI_H

#include <stdint.h>

enum { DL_CUDA = 2, DL_FLOAT = 2 };
typedef struct {
    int32_t device_type;
    int32_t device_id;
} dl_device;
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} dl_data_type;
typedef struct {
    void *data;
    dl_device device;
    int32_t ndim;
    dl_data_type dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: C-contiguous */
    uint64_t byte_offset;
} dl_tensor;
typedef struct dl_managed_tensor {
    dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct dl_managed_tensor *self);
} dl_managed_tensor;

#endif /* APO_PY_DLPACK_ABI_H */
