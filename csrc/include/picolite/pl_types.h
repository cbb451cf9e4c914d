/* pl_types.h - tensor element types (TFLite's TensorType numbering) and small limits. */
#ifndef PL_TYPES_H
#define PL_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records in the arena have one layout on a 32-bit microcontroller and a 64-bit host, so
** the arena size computed on the host is the firmware's. A pointer or size_t in such a record
** sits in an 8-byte, 8-aligned slot (PL_SLOT(int32_t *, shift)); a 64-bit field is PL_ALIGN8
** (i386 aligns it to 4 inside structs, ARM's EABI to 8). Read and write the named member;
** the slot member only fixes the size. Enums are not used for fields followed by smaller
** ones: arm-none-eabi makes them one byte. */
#ifdef __cplusplus
#define PL_ALIGN8 alignas(8)
#else
#define PL_ALIGN8 _Alignas(8)
#endif
#define PL_SLOT(type, name)              \
    union {                              \
        type name;                       \
        PL_ALIGN8 uint64_t name##_slot_; \
    }
/* n of them: PL_SLOTS(size_t, stride, 3) */
#define PL_SLOTS(type, name, n)              \
    union {                                  \
        type name[n];                        \
        PL_ALIGN8 uint64_t name##_slot_[n];  \
    }

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
    PL_TYPE_COUNT,
    PL_TYPE_INT_SIZED_ = INT32_MAX /* 4 bytes on arm-none-eabi too (short enums) */
} pl_type;

/* Bytes per element; 0 for types without a fixed element size (string, variant, int4) and
** for unknown values. A resource is a 4-byte handle (the variable's id), as TFLM sizes it. */
size_t pl_type_size(int32_t type);

/* Text bytes a STRING tensor holds per element on average (see pl_type_bytes). */
#define PL_STRING_BYTES 64u

/* Bytes a tensor of count elements takes in the arena: count * pl_type_size(type), and for
** STRING TFLite's string buffer (int32 count, int32 offsets[count + 1], then the text) with
** room for PL_STRING_BYTES of text per element: 4 * (count + 2) + 64 * count. Any one string
** may use the room of the others; a value needing more is refused (a string's length is
** data, and the arena is planned once). Constant strings are read in place at their size. */
uint64_t pl_type_bytes(int32_t type, uint64_t count);

/* The schema's name without prefix ("FLOAT32", "INT8", ...), or "UNKNOWN". */
const char *pl_type_name(int32_t type);

#ifdef __cplusplus
}
#endif

#endif
