/* schema.h - field ids of the TFLite schema tables picolite reads (tensorflow/lite/schema/
** schema.fbs, checked against the generated code of ai-edge-litert 2.3.0). A field id n
** lives at vtable byte 4 + 2n. */
#ifndef PL_MODEL_SCHEMA_H
#define PL_MODEL_SCHEMA_H

/* table Model */
#define PL_F_MODEL_VERSION 0          /* uint */
#define PL_F_MODEL_OPERATOR_CODES 1   /* [OperatorCode] */
#define PL_F_MODEL_SUBGRAPHS 2        /* [SubGraph] */
#define PL_F_MODEL_DESCRIPTION 3      /* string */
#define PL_F_MODEL_BUFFERS 4          /* [Buffer] */
#define PL_F_MODEL_METADATA_BUFFER 5  /* [int] */
#define PL_F_MODEL_METADATA 6         /* [Metadata] */
#define PL_F_MODEL_SIGNATURE_DEFS 7   /* [SignatureDef] */

/* table OperatorCode */
#define PL_F_OPCODE_DEPRECATED_BUILTIN 0 /* byte */
#define PL_F_OPCODE_CUSTOM_CODE 1        /* string */
#define PL_F_OPCODE_VERSION 2            /* int = 1 */
#define PL_F_OPCODE_BUILTIN 3            /* BuiltinOperator (int) */

/* table SubGraph */
#define PL_F_SUBGRAPH_TENSORS 0   /* [Tensor] */
#define PL_F_SUBGRAPH_INPUTS 1    /* [int] */
#define PL_F_SUBGRAPH_OUTPUTS 2   /* [int] */
#define PL_F_SUBGRAPH_OPERATORS 3 /* [Operator] */
#define PL_F_SUBGRAPH_NAME 4      /* string */

/* table Tensor */
#define PL_F_TENSOR_SHAPE 0           /* [int] */
#define PL_F_TENSOR_TYPE 1            /* TensorType (byte) */
#define PL_F_TENSOR_BUFFER 2          /* uint */
#define PL_F_TENSOR_NAME 3            /* string */
#define PL_F_TENSOR_QUANTIZATION 4    /* QuantizationParameters */
#define PL_F_TENSOR_IS_VARIABLE 5     /* bool */
#define PL_F_TENSOR_SPARSITY 6        /* SparsityParameters */
#define PL_F_TENSOR_SHAPE_SIGNATURE 7 /* [int] */
#define PL_F_TENSOR_HAS_RANK 8        /* bool */

/* table QuantizationParameters */
#define PL_F_QUANT_MIN 0                 /* [float] */
#define PL_F_QUANT_MAX 1                 /* [float] */
#define PL_F_QUANT_SCALE 2               /* [float] */
#define PL_F_QUANT_ZERO_POINT 3          /* [long] */
#define PL_F_QUANT_DETAILS_TYPE 4        /* QuantizationDetails (ubyte) */
#define PL_F_QUANT_DETAILS 5             /* union table */
#define PL_F_QUANT_QUANTIZED_DIMENSION 6 /* int */

/* table Operator */
#define PL_F_OP_OPCODE_INDEX 0          /* uint */
#define PL_F_OP_INPUTS 1                /* [int] */
#define PL_F_OP_OUTPUTS 2               /* [int] */
#define PL_F_OP_OPTIONS_TYPE 3          /* BuiltinOptions (ubyte) */
#define PL_F_OP_OPTIONS 4               /* union table */
#define PL_F_OP_CUSTOM_OPTIONS 5        /* [ubyte] */
#define PL_F_OP_CUSTOM_OPTIONS_FORMAT 6 /* byte */
#define PL_F_OP_MUTATING_VARIABLES 7    /* [bool] */
#define PL_F_OP_INTERMEDIATES 8         /* [int] */
#define PL_F_OP_LARGE_CUSTOM_OFFSET 9   /* ulong, from the start of the file */
#define PL_F_OP_LARGE_CUSTOM_SIZE 10    /* ulong */
#define PL_F_OP_OPTIONS2_TYPE 11        /* BuiltinOptions2 (ubyte) */
#define PL_F_OP_OPTIONS2 12             /* union table */
#define PL_F_OP_DEBUG_METADATA 13       /* int */

/* table Buffer */
#define PL_F_BUFFER_DATA 0   /* [ubyte] (force_align 16) */
#define PL_F_BUFFER_OFFSET 1 /* ulong, from the start of the file; valid when > 1 */
#define PL_F_BUFFER_SIZE 2   /* ulong */

/* table Metadata */
#define PL_F_METADATA_NAME 0   /* string */
#define PL_F_METADATA_BUFFER 1 /* uint */

/* table SignatureDef (field 3 is deprecated) and table TensorMap */
#define PL_F_SIGNATURE_INPUTS 0   /* [TensorMap] */
#define PL_F_SIGNATURE_OUTPUTS 1  /* [TensorMap] */
#define PL_F_SIGNATURE_KEY 2      /* string */
#define PL_F_SIGNATURE_SUBGRAPH 4 /* uint */
#define PL_F_TENSORMAP_NAME 0     /* string */
#define PL_F_TENSORMAP_TENSOR 1   /* uint */

/* Offsets of buffers and custom options kept after the flatbuffer are valid only when > 1:
** the exporter writes 1 as a placeholder. */
#define PL_EXTERNAL_OFFSET_MIN 2u

#endif
