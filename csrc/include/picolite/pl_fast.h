/* pl_fast.h - host fast paths: SIMD kernels behind runtime CPU dispatch (csrc/fast/).
**
**   pl_fast_resolver fast;
**   pl_host_memory mem = {my_ctx, my_alloc, my_release};      // memory outside the arena
**   pl_fast_resolver_init(&fast, pl_builtin_resolver(), &mem, pl_fast_best_isa());
**   opt.resolver = pl_fast_resolver_get(&fast);
**   ... pl_interp_create / allocate / invoke as usual ...
**   pl_interp_destroy(it); pl_fast_resolver_release(&fast);
**
** The fast resolver hands out, for the operators it speeds up, registrations that run the
** portable kernel's init and prepare unchanged (so the arena, the plan and every figure stay
** those of the portable build: what the device needs) and then pack weights and other
** precomputation into host memory from the hook. Invoke takes the SIMD path when prepare set
** one up and the portable kernel otherwise. Integer results are bit-exact with the portable
** kernels (TFLite's reference); float32 sums run in the reference's order, lane by lane.
** Operators with fast paths: CONV_2D, FULLY_CONNECTED, DEPTHWISE_CONV_2D (int8, 16x8, float32
** and hybrid: float input, int8 weights), TRANSPOSE_CONV, BATCH_MATMUL (int8, float32), ADD,
** SUB, MUL (int8, int16, float32; same element counts, or one input a scalar or repeating along
** the output's last axes; an int8 node of 2^18 outputs or more, or of 4096 in a model with
** little host data, looks them up in a 64 KB table of every input pair, computed at prepare by
** the vector arithmetic; an int8 node of x and an 8-bit activation's lookup of x, in a
** one-subgraph model, looks its bytes up by x alone, and the lookup writes nothing when no
** one else reads it), AVERAGE_POOL_2D, MAX_POOL_2D (int8, int16, float32),
** SOFTMAX (int8 input, int16, float32), LOGISTIC and TANH (float32; int8, uint8: the kernel's
** table), HARD_SWISH, LEAKY_RELU, RELU, RELU6, RELU_N1_TO_1 (int8, uint8: a table; the tables read
** 64 bytes per step with AVX-512 VBMI, 16 with NEON), UNIDIRECTIONAL_SEQUENCE_LSTM (float32, int8,
** 16x8), PRELU (float32, alpha repeating along the input's last axes), STRIDED_SLICE and SLICE (any
** type: consecutive elements copied as runs), PAD and PADV2 (any type), TRANSPOSE (any type: rows
** or 2-D tiles), GATHER (fixed-size types), RESIZE_NEAREST_NEIGHBOR (any type) and RESIZE_BILINEAR
** (float32 unfused, uint8, int8, int16) of a constant size in one-subgraph models, MEAN (float32,
** int8, int16, uint8; adjacent axes), SQUARED_DIFFERENCE (float32; int8: a table of every input
** pair); any other case runs the portable kernel. A DEQUANTIZE of a
** constant (float16 or int8 weights, one-subgraph models) is computed once at prepare into host
** memory by the portable kernel: the fast paths after it see its output as a constant (they pack
** it), and its invoke copies the values.
** Host builds only: never built for a microcontroller. One resolver per interpreter (it
** keeps that interpreter's host blocks, and one scratch region, as large as the largest any
** node's invoke stages or gathers in, that every node shares); not thread-safe across
** interpreters. */
#ifndef PL_FAST_H
#define PL_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pl_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Instruction sets with fast paths (values are stable; pl_fast_isa_order has the order of
** preference: AVX512 > AVX2 > SSE41 on x86-64, NEON_DOT > NEON on arm64). */
typedef enum pl_isa {
    PL_ISA_PORTABLE = 0, /* the portable C kernels alone */
    PL_ISA_AVX2 = 1,     /* x86-64 AVX2 + FMA */
    PL_ISA_AVX512 = 2,   /* x86-64 AVX-512 F/BW/VL with VNNI */
    PL_ISA_NEON = 3,     /* arm64 Advanced SIMD */
    PL_ISA_NEON_DOT = 4, /* arm64 with the dot-product extension (SDOT) */
    PL_ISA_SSE41 = 5,    /* x86-64 SSE4.1 (CPUs without AVX2) */
    PL_ISA_COUNT
} pl_isa;

/* Every instruction set from the least to the most preferred, PORTABLE first. */
extern const pl_isa pl_fast_isa_order[PL_ISA_COUNT];

/* The best instruction set this CPU runs that this build has kernels for: the last of
** pl_fast_isa_order that pl_fast_isa_available says. */
pl_isa pl_fast_best_isa(void);

/* The arena seal's hash of the tail for pl_interp_options.seal_feed on a CPU running isa:
** a vector one where the set has it (AVX2 and AVX-512: four times the portable hash's bytes
** a cycle), else NULL (the portable one). */
typedef void pl_fast_seal_feed_fn(uint64_t lane[4], const unsigned char *bytes, size_t n);
pl_fast_seal_feed_fn *pl_fast_seal_feed_for(pl_isa isa);
/* Whether this build has kernels for isa and this CPU runs them. PORTABLE always. */
bool pl_fast_isa_available(pl_isa isa);
/* "portable", "avx2", "avx512", "neon", "neon-dot", "sse4.1"; NULL past the end. */
const char *pl_fast_isa_name(pl_isa isa);
/* VZEROUPPER where the CPU has AVX (nothing elsewhere): code that left the vector registers'
** upper halves dirty (a peer in the same process) makes every SSE instruction after it,
** the portable kernels' too, wait on them. The host calls it before an invoke. */
void pl_fast_clean_vector_state(void);

/* Memory outside the arena, from the host: alloc returns NULL when it cannot; release
** gives back a block alloc returned. */
typedef struct pl_host_memory {
    void *self;
    void *(*alloc)(void *self, size_t bytes);
    void (*release)(void *self, void *block);
} pl_host_memory;

/* Operators with a fast path. */
enum {
    PL_FAST_CONV_2D,
    PL_FAST_FULLY_CONNECTED,
    PL_FAST_DEPTHWISE_CONV_2D,
    PL_FAST_ADD,
    PL_FAST_SUB,
    PL_FAST_MUL,
    PL_FAST_AVERAGE_POOL_2D,
    PL_FAST_MAX_POOL_2D,
    PL_FAST_SOFTMAX,
    PL_FAST_BATCH_MATMUL,
    PL_FAST_TRANSPOSE_CONV,
    PL_FAST_HARD_SWISH,
    PL_FAST_LEAKY_RELU,
    PL_FAST_RELU,
    PL_FAST_RELU6,
    PL_FAST_RELU_N1_TO_1,
    PL_FAST_UNIDIRECTIONAL_SEQUENCE_LSTM,
    PL_FAST_LOGISTIC,
    PL_FAST_TANH,
    PL_FAST_DEQUANTIZE,
    PL_FAST_PRELU,
    PL_FAST_STRIDED_SLICE,
    PL_FAST_SLICE,
    PL_FAST_PAD,
    PL_FAST_PADV2,
    PL_FAST_TRANSPOSE,
    PL_FAST_GATHER,
    PL_FAST_RESIZE_BILINEAR,
    PL_FAST_RESIZE_NEAREST_NEIGHBOR,
    PL_FAST_MEAN,
    PL_FAST_FLOOR,
    PL_FAST_CEIL,
    PL_FAST_NEG,
    PL_FAST_SQRT,
    PL_FAST_RSQRT,
    PL_FAST_SQUARE,
    PL_FAST_SUM,
    PL_FAST_DIV,
    PL_FAST_SQUARED_DIFFERENCE,
    PL_FAST_REDUCE_MAX,
    PL_FAST_REDUCE_MIN,
    PL_FAST_QUANTIZE,
    PL_FAST_ARG_MAX,
    PL_FAST_ARG_MIN,
    PL_FAST_MAXIMUM,
    PL_FAST_MINIMUM,
    PL_FAST_SVDF,
    PL_FAST_GELU,
    PL_FAST_CONCATENATION,
    PL_FAST_PACK,
    PL_FAST_UNPACK,
    PL_FAST_SPLIT,
    PL_FAST_SPLIT_V,
    PL_FAST_OP_COUNT
};

typedef struct pl_fast_resolver pl_fast_resolver;

/* A fast registration: the portable one it wraps and the resolver keeping its blocks. */
typedef struct pl_fast_registration {
    pl_registration reg; /* first: the runtime hands kernels this */
    const pl_registration *base;
    pl_fast_resolver *owner;
    /* the operator's fast prepare, run after the node's last block is dropped */
    pl_status (*prepare)(pl_context *ctx, pl_node *node);
} pl_fast_registration;

/* One node's host block, found by the node's op data (unique per node in an arena), or a
** folded tensor's values, found by an odd key (2 * tensor index + 1: op data is aligned), or
** the block of a node without op data (RESIZE_*), found by the node's index
** (4 * index + 2; one-subgraph models). */
typedef struct pl_fast_slot {
    const void *key; /* NULL: empty */
    void *raw;       /* what the host gave (NULL: the node has no block) */
    void *block;     /* raw, 64-byte aligned */
    size_t bytes;
    uint32_t claims; /* a fold's: its readers that take the values from here */
} pl_fast_slot;

/* The most threads one resolver runs (pl_fast_resolver_set_threads). */
#define PL_FAST_MAX_THREADS 64

typedef struct pl_fast_threads pl_fast_threads; /* threads.c */

struct pl_fast_resolver {
    pl_resolver resolver; /* find = the fast find, self = this */
    const pl_resolver *base;
    pl_host_memory mem;
    pl_isa isa;
    int32_t thread_count;     /* 1: the caller's thread alone */
    pl_fast_threads *threads; /* NULL with one thread */
    double parallel_min_work; /* jobs below it stay on the caller (tests set 0) */
    uint64_t parallel_jobs;   /* jobs split over the threads so far */
    uint64_t unread_folds;    /* folded DEQUANTIZE invokes that wrote nothing (fold.c) */
    uint64_t hybrid_in_place; /* hybrid CONV_2D plans that read windows in place */
    uint64_t narrow_convs;    /* float CONV_2D plans with points in the lanes (few channels) */
    uint64_t tables_by_x;     /* ADD, SUB, MUL plans of x and a lookup of x: by x alone */
    uint64_t silu_plans;      /* of those, float MULs of x and its LOGISTIC in one pass */
    uint64_t unread_tables;   /* lookup invokes that wrote nothing: every reader went by x */
    bool poison_unread;       /* tests: those write 0xFF bytes instead, for readers to trip */
    bool poison_scratch; /* tests: the scratch filled with new noise before each node's use */
    pl_fast_registration regs[PL_FAST_OP_COUNT];
    pl_fast_slot *slots; /* open addressing, capacity a power of two */
    size_t capacity, used;
    size_t host_bytes; /* what the blocks hold, the table and the scratch included */
    /* What the nodes' invokes stage and gather in (pl_fast_scratch): one region for every
    ** node, as large as the largest asks, so one invoke's scratch stays in the caches */
    void *scratch_raw;
    void *scratch; /* scratch_raw, 64-byte aligned */
    size_t scratch_bytes;
};

/* Wraps base for isa (PL_ERR_ARG when isa is not available here: pl_fast_isa_available).
** PL_ISA_PORTABLE gives base's registrations unchanged. mem is copied. */
pl_status pl_fast_resolver_init(pl_fast_resolver *r, const pl_resolver *base,
                                const pl_host_memory *mem, pl_isa isa);

static inline const pl_resolver *pl_fast_resolver_get(pl_fast_resolver *r)
{
    return &r->resolver;
}

/* Runs the fast paths of the interpreters prepared after it on count threads (the caller's
** and count - 1 workers; 1 stops the workers): large operators split their output rows or
** channels over them, each output computed as on one thread, so the bytes are one thread's.
** Call it before pl_interp_allocate (the fast paths size per-thread scratch there), and with
** 1 before releasing the resolver for good. PL_ERR_ARG outside 1..PL_FAST_MAX_THREADS,
** PL_ERR_UNSUPPORTED when the host gives no memory or no thread. Without POSIX threads in the build
** every count runs on the caller (pl_fast_thread_count says 1). */
pl_status pl_fast_resolver_set_threads(pl_fast_resolver *r, int32_t count);

static inline int32_t pl_fast_thread_count(const pl_fast_resolver *r)
{
    return r->thread_count;
}

/* Frees every host block, keeping the resolver usable for a new interpreter (call it
** after the interpreter using the blocks was destroyed). */
void pl_fast_resolver_release(pl_fast_resolver *r);

/* Host bytes held for the current interpreter (packed weights, tables), not in the arena. */
static inline size_t pl_fast_host_bytes(const pl_fast_resolver *r)
{
    return r->host_bytes;
}

#ifdef __cplusplus
}
#endif

#endif
