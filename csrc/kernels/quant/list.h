/* list.h - the quant family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_QUANT_LIST_H
#define PL_KERNELS_QUANT_LIST_H

#define PL_QUANT_KERNELS(X) \
    X(CAST, 53, cast) \
    X(DEQUANTIZE, 6, dequantize) \
    X(QUANTIZE, 114, quantize) \

#endif
