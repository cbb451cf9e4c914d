/* list.h - the recurrent family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_RECURRENT_LIST_H
#define PL_KERNELS_RECURRENT_LIST_H

#define PL_RECURRENT_KERNELS(X) \
    X(SVDF, 27, svdf) \
    X(UNIDIRECTIONAL_SEQUENCE_LSTM, 44, unidirectional_sequence_lstm) \

#endif
