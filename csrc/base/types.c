/* types.c - element sizes and names of TFLite tensor types. */
#include "picolite/pl_types.h"

static const struct {
    const char *name;
    uint8_t size;
} types[PL_TYPE_COUNT] = {
    [PL_FLOAT32] = {"FLOAT32", 4},   [PL_FLOAT16] = {"FLOAT16", 2},
    [PL_INT32] = {"INT32", 4},       [PL_UINT8] = {"UINT8", 1},
    [PL_INT64] = {"INT64", 8},       [PL_STRING] = {"STRING", 0},
    [PL_BOOL] = {"BOOL", 1},         [PL_INT16] = {"INT16", 2},
    [PL_COMPLEX64] = {"COMPLEX64", 8}, [PL_INT8] = {"INT8", 1},
    [PL_FLOAT64] = {"FLOAT64", 8},   [PL_COMPLEX128] = {"COMPLEX128", 16},
    [PL_UINT64] = {"UINT64", 8},     [PL_RESOURCE] = {"RESOURCE", 4},
    [PL_VARIANT] = {"VARIANT", 0},   [PL_UINT32] = {"UINT32", 4},
    [PL_UINT16] = {"UINT16", 2},     [PL_INT4] = {"INT4", 0},
    [PL_BFLOAT16] = {"BFLOAT16", 2},
};

size_t pl_type_size(int32_t type)
{
    return type >= 0 && type < PL_TYPE_COUNT ? types[type].size : 0;
}

uint64_t pl_type_bytes(int32_t type, uint64_t count)
{
    if (type != PL_STRING)
        return count * pl_type_size(type);
    return 4u * (count + 2u) + PL_STRING_BYTES * count;
}

const char *pl_type_name(int32_t type)
{
    return type >= 0 && type < PL_TYPE_COUNT ? types[type].name : "UNKNOWN";
}
