/* pl_types.h - tensor element types (TFLite's TensorType numbering) and small limits. */
#ifndef PL_TYPES_H
#define PL_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest rank picolite accepts; the verifier rejects larger shapes. */
#define PL_MAX_DIMS 8

/* Values are the schema's TensorType enum, so they are read straight from the file. */
typedef enum pl_type {
    PL_FLOAT32 = 0,
    PL_FLOAT16 = 1,
    PL_INT32 = 2,
    PL_UINT8 = 3,
    PL_INT64 = 4,
    PL_STRING = 5,
    PL_BOOL = 6,
    PL_INT16 = 7,
    PL_COMPLEX64 = 8,
    PL_INT8 = 9,
    PL_FLOAT64 = 10,
    PL_COMPLEX128 = 11,
    PL_UINT64 = 12,
    PL_RESOURCE = 13,
    PL_VARIANT = 14,
    PL_UINT32 = 15,
    PL_UINT16 = 16,
    PL_INT4 = 17,
    PL_BFLOAT16 = 18,
    PL_TYPE_COUNT
} pl_type;

/* Bytes per element; 0 for types without a fixed element size (string, resource,
** variant, int4) and for unknown values. */
size_t pl_type_size(int32_t type);

/* The schema's name without prefix ("FLOAT32", "INT8", ...), or "UNKNOWN". */
const char *pl_type_name(int32_t type);

#ifdef __cplusplus
}
#endif

#endif
