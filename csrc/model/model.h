/* model.h - the verified, zero-copy view of a .tflite model (TFLite schema accessors).
**
** pl_model_open() runs the verifier once; every accessor afterwards reads only bytes the
** verifier proved in bounds, through pl_view.h's little-endian readers. Indices passed to
** accessors must be in range (callers check against the counts); accessors never fail on a
** verified model. The model bytes must outlive the pl_model. */
#ifndef PL_MODEL_MODEL_H
#define PL_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_status.h"
#include "picolite/pl_types.h"
#include "picolite/pl_view.h"

/* Number of BuiltinOperator values in the schema (0..209); larger codes are rejected. */
#define PL_BUILTIN_COUNT 210

/* The interpreter keeps a pl_model and a pl_subgraph in the arena, so they hold only what
** the hot paths read; the rest (version, names, signature defs) is read on demand. */
typedef struct pl_model {
    const uint8_t *buf;
    uint32_t size;
    pl_vec opcodes;       /* [OperatorCode] offsets */
    pl_vec subgraphs;     /* [SubGraph] offsets */
    pl_vec buffers;       /* [Buffer] offsets */
    pl_vec metadata;      /* [Metadata] offsets */
} pl_model;

typedef struct pl_subgraph {
    pl_vec tensors;    /* [Tensor] offsets */
    pl_vec inputs;     /* int32 */
    pl_vec outputs;    /* int32 */
    pl_vec operators;  /* [Operator] offsets */
} pl_subgraph;

typedef struct pl_tensor_view {
    pl_type type;
    uint32_t buffer;          /* buffer index; 0 is the empty sentinel buffer */
    pl_vec shape;             /* int32 */
    pl_vec shape_signature;   /* int32, empty when absent */
    pl_bytes name;
    pl_vec scale;             /* float32, empty when not quantized */
    pl_vec zero_point;        /* int64 */
    int32_t quantized_dimension;
    bool is_variable;
} pl_tensor_view;

typedef struct pl_opcode_view {
    int32_t builtin_code;     /* max(deprecated_builtin_code, builtin_code) */
    pl_bytes custom_code;     /* empty unless CUSTOM */
    int32_t version;          /* default 1 */
} pl_opcode_view;

typedef struct pl_op_view {
    uint32_t opcode_index;
    pl_vec inputs;            /* int32, -1 = optional absent */
    pl_vec outputs;
    pl_vec intermediates;
    uint8_t options_type;     /* BuiltinOptions union type */
    pl_table options;         /* absent table when none */
    uint8_t options2_type;    /* BuiltinOptions2 union type */
    pl_table options2;
    pl_bytes custom_options;
} pl_op_view;

typedef struct pl_buffer_view {
    pl_bytes data;            /* inline data, or the bytes at offset/size after the flatbuffer */
} pl_buffer_view;

typedef struct pl_metadata_view {
    pl_bytes name;
    uint32_t buffer;
} pl_metadata_view;

/* Verifies data[0..size) as a TFLite model and fills *m. PL_ERR_MODEL with a message naming
** the table, field and index (e.g. "tensor 12: buffer 99 out of range (43 buffers)"). */
pl_status pl_model_open(pl_model *m, const void *data, size_t size, pl_error *err);

/* The schema version of the model (field Model.version). */
uint32_t pl_model_version(const pl_model *m);

/* The number of signature defs. */
uint32_t pl_model_signature_count(const pl_model *m);

typedef struct pl_signature_view {
    pl_bytes key;
    uint32_t subgraph;  /* verified in range */
    pl_vec inputs;      /* [TensorMap] offsets: read with pl_model_tensor_map */
    pl_vec outputs;
} pl_signature_view;

void pl_model_signature(const pl_model *m, uint32_t index, pl_signature_view *out);

/* Entry i of a TensorMap vector: its name and tensor index (verified in range). */
void pl_model_tensor_map(const pl_model *m, pl_vec maps, uint32_t i, pl_bytes *name,
                         uint32_t *tensor);

uint32_t pl_model_subgraph_count(const pl_model *m);
pl_bytes pl_model_subgraph_name(const pl_model *m, uint32_t index);
void pl_model_subgraph(const pl_model *m, uint32_t index, pl_subgraph *out);
void pl_model_tensor(const pl_model *m, const pl_subgraph *sg, uint32_t index,
                     pl_tensor_view *out);
void pl_model_operator(const pl_model *m, const pl_subgraph *sg, uint32_t index,
                       pl_op_view *out);
uint32_t pl_model_opcode_count(const pl_model *m);
void pl_model_opcode(const pl_model *m, uint32_t index, pl_opcode_view *out);
uint32_t pl_model_buffer_count(const pl_model *m);
void pl_model_buffer(const pl_model *m, uint32_t index, pl_buffer_view *out);
uint32_t pl_model_metadata_count(const pl_model *m);
/* A metadata entry; its buffer index is unchecked (the verifier lets stale ones pass). */
void pl_model_metadata(const pl_model *m, uint32_t index, pl_metadata_view *out);

/* The buffer of the first metadata entry called name whose buffer exists, or an empty view. */
pl_bytes pl_model_metadata_find(const pl_model *m, const char *name);

/* The schema's BuiltinOperator name ("CONV_2D", ...) or "UNKNOWN". */
const char *pl_model_builtin_name(int32_t builtin_code);

#endif
