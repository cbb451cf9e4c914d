/* kernels_state.c - TFLM's reference kernels with state: SVDF, the LSTM, resource variables
** and control flow.
**
** VAR_HANDLE's prepare points its output at its op data (so TFLM never plans it);
** ASSIGN_VARIABLE's makes the variable's buffer the first time a variable is assigned, as a
** persistent buffer of the value's bytes. IF, WHILE and CALL_ONCE prepare nothing of their
** subgraphs: TFLM prepares every subgraph in its own turn. */
#include "tflm/kernels.h"

#include <string.h>

#include "tflm/ops.h"

/* --- SVDF --- */

#define SVDF_RANK 0

static void svdf_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(36, 36));
}

/* Input, the two weights, bias, activation state, output; scratch for the filters' and
** (int8) the units' accumulators; CMSIS-NN on Helium keeps the feature weights' sums. */
void pl_tflm_svdf_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in, features;
    int32_t t[6] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_input(n, 1), pl_tflm_temp_input(n, 2),
                    pl_tflm_temp_input(n, 3), pl_tflm_temp_input(n, 4), -1};
    t[5] = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, t[0], &in);
    pl_tflm_tensor_of(n, t[1], &features);
    int32_t rank = pl_table_i32(&n->op.options, SVDF_RANK, 0);
    uint32_t batch = in.ndims > 0 ? (uint32_t)in.dims[0] : 0;
    uint32_t filters = features.ndims > 0 ? (uint32_t)features.dims[0] : 0;
    uint32_t units = rank > 0 ? filters / (uint32_t)rank : 0;
    pl_tflm_scratch(n, batch * filters * 4u);
    if (in.type == PL_INT8)
        pl_tflm_scratch(n, batch * units * 4u);
    if (in.type == PL_INT8 && n->p->kernels == PL_TFLM_CMSIS_NN_MVE && filters > 0)
        pl_tflm_persistent(n, filters * 4u);
    for (int k = 0; k < 6; k++)
        pl_tflm_free_tensor(n, t[k]);
}

/* --- UNIDIRECTIONAL_SEQUENCE_LSTM --- */

#define LSTM_TIME_MAJOR 3
#define LSTM_TENSORS 24
#define LSTM_OUTPUT_STATE 18
#define LSTM_CELL_STATE 19

static void lstm_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(688, 688));
}

/* LstmTensors: all 24 inputs and the output; four state-sized buffers as scratch. CMSIS-NN
** runs an integer LSTM (int16 cell state) itself: eight kernel sums (int32 for int8
** activations, int64 for int16) and three buffers. */
void pl_tflm_lstm_prepare(pl_tflm_node *n)
{
    int32_t t[LSTM_TENSORS + 1];
    pl_tflm_tensor in, hidden, cell;
    for (uint32_t k = 0; k < LSTM_TENSORS; k++)
        t[k] = pl_tflm_temp_input(n, k);
    t[LSTM_TENSORS] = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, t[0], &in);
    pl_tflm_tensor_of(n, t[LSTM_OUTPUT_STATE], &hidden);
    pl_tflm_tensor_of(n, t[LSTM_CELL_STATE], &cell);
    bool time_major = pl_table_bool(&n->op.options, LSTM_TIME_MAJOR, false);
    uint32_t batch = in.ndims > 1 ? (uint32_t)in.dims[time_major ? 1 : 0] : 0;
    uint32_t state = hidden.ndims > 1 ? (uint32_t)hidden.dims[1] : 0;
    uint32_t buffers = 4;
    if (pl_tflm_cmsis_nn(n) && cell.type == PL_INT16 &&
        (in.type == PL_INT8 || in.type == PL_INT16)) {
        for (int k = 0; k < 8; k++)
            pl_tflm_persistent(n, state * (in.type == PL_INT8 ? 4u : 8u));
        buffers = 3;
    }
    uint32_t bytes = cell.type == PL_FLOAT32 ? 4u : 2u;
    for (uint32_t k = 0; k < buffers; k++)
        pl_tflm_scratch(n, batch * state * bytes);
    for (uint32_t k = 0; k <= LSTM_TENSORS; k++)
        pl_tflm_free_tensor(n, t[k]);
}

/* --- resource variables --- */

#define VAR_HANDLE_SHARED_NAME 1

static void var_handle_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(4, 4));
}

/* Only a build with compression (the wheel's) has ASSIGN_VARIABLE op data: the scratch index
** of a compressed value. */
static void assign_variable_init(pl_tflm_node *n)
{
    if (pl_tflm_wheel(n))
        pl_tflm_persistent(n, 4);
}

/* The VAR_HANDLE operator of this node's subgraph that outputs tensor t, or -1. */
static int32_t var_handle_of(const pl_tflm_node *n, int32_t t)
{
    for (uint32_t i = 0; i < n->sg.operators.n; i++) {
        pl_op_view op;
        pl_opcode_view oc;
        pl_model_operator(n->model, &n->sg, i, &op);
        pl_model_opcode(n->model, op.opcode_index, &oc);
        if (oc.builtin_code == OP_VAR_HANDLE && op.outputs.n > 0 && pl_vec_i32(op.outputs, 0) == t)
            return (int32_t)i;
    }
    return -1;
}

static pl_vec shared_name(const pl_tflm_node *n, uint32_t subgraph, uint32_t i)
{
    pl_subgraph sg;
    pl_op_view op;
    pl_model_subgraph(n->model, subgraph, &sg);
    pl_model_operator(n->model, &sg, i, &op);
    return pl_table_vec(&op.options, VAR_HANDLE_SHARED_NAME, 1);
}

static bool same(pl_vec a, pl_vec b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

/* Whether an ASSIGN_VARIABLE prepared before this node (in TFLM's order: subgraph by subgraph)
** assigned the variable named name already: its buffer exists then. */
static bool assigned_before(const pl_tflm_node *n, pl_vec name)
{
    for (uint32_t k = 0; k <= n->subgraph; k++) {
        pl_tflm_node other = *n;
        other.subgraph = k;
        pl_model_subgraph(n->model, k, &other.sg);
        uint32_t end = k == n->subgraph ? n->index : other.sg.operators.n;
        for (uint32_t i = 0; i < end; i++) {
            pl_op_view op;
            pl_opcode_view oc;
            pl_model_operator(n->model, &other.sg, i, &op);
            pl_model_opcode(n->model, op.opcode_index, &oc);
            if (oc.builtin_code != OP_ASSIGN_VARIABLE || op.inputs.n == 0)
                continue;
            int32_t h = var_handle_of(&other, pl_vec_i32(op.inputs, 0));
            if (h >= 0 && same(shared_name(n, k, (uint32_t)h), name))
                return true;
        }
    }
    return false;
}

/* The value as a temp tensor; the variable's buffer when its VAR_HANDLE is in this subgraph
** (it was prepared, so the resource tensor holds the id) and nothing assigned it before. */
static void assign_variable_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor value;
    int32_t v = pl_tflm_temp_input(n, 1);
    int32_t h = var_handle_of(n, pl_tflm_input(n, 0));
    pl_tflm_tensor_of(n, v, &value);
    if (h >= 0 && (uint32_t)h < n->index &&
        !assigned_before(n, shared_name(n, n->subgraph, (uint32_t)h)))
        pl_tflm_persistent(n, (uint32_t)value.bytes);
    pl_tflm_free_tensor(n, v);
}

static void input_only(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 0);
}

/* --- control flow --- */

static void control_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(8, 8));
}

#define NONE {{0, 0}, {0, 0}}

static const pl_tflm_kernel entries[] = {
    {OP_SVDF, NULL, PL_TFLM_PARAMS_SVDF, svdf_init, pl_tflm_svdf_prepare},
    {OP_UNIDIRECTIONAL_SEQUENCE_LSTM, NULL, PL_TFLM_PARAMS_LSTM, lstm_init, pl_tflm_lstm_prepare},
    {OP_VAR_HANDLE, NULL, {{8, 4}, {16, 8}}, var_handle_init, NULL},
    {OP_ASSIGN_VARIABLE, NULL, NONE, assign_variable_init, assign_variable_prepare},
    {OP_READ_VARIABLE, NULL, NONE, NULL, input_only},
    {OP_IF, NULL, {{8, 4}, {8, 4}}, control_init, input_only},
    {OP_WHILE, NULL, {{8, 4}, {8, 4}}, control_init, NULL},
    {OP_CALL_ONCE, NULL, {{4, 4}, {4, 4}}, control_init, NULL},
};

const pl_tflm_kernel_set pl_tflm_kernels_state = {entries, sizeof entries / sizeof entries[0]};
