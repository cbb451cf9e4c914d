/* measure_main.c - the firmware of `picolite analyze --measure`: one exported model
** (picolite export-c) run on QEMU's MPS2 boards (and the MPS3 AN547) under -icount
** shift=0, where every instruction takes one nanosecond of virtual time.
**
** A timer at 25 MHz (32 MHz on the AN547) gives 40 (31.25) instructions a tick. The
** interpreter's profiler reads it around every node, so the firmware prints the ticks of
** each node, of the whole invoke and of create + allocate, and the stack high-water marks,
** over semihosting (picolite/measure.py reads them). The code-size table links the same
** firmware with a resolver of chosen kernels (tools/make_costs_table.py). */
#include <stdint.h>
#include <string.h>

#include "mcu.h"
#include "picolite/picolite.h"
#include PL_MCU_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define MODEL_DATA CAT(PL_MCU_MODEL, _model)
#define MODEL_SIZE CAT(PL_MCU_MODEL, _model_size)
#define MODEL_RESOLVER CAT(PL_MCU_MODEL, _resolver)
#define ARENA_SIZE CAT(PL_MCU_MODEL_UPPER, _ARENA_SIZE)

#if defined(PL_MEASURE_AN547)
/* SSE-300's system counter: counts up at 32 MHz (31.25 instructions a tick); its control
** frame (Secure) at 0x58100000, the count's low word read at 0x58101000. */
#define COUNTER_CTRL (*(volatile uint32_t *)0x58100000u)
#define COUNTER_VALUE (*(volatile uint32_t *)0x58101000u)
#else
/* MPS2's CMSDK APB timer 0: counts down at 25 MHz (40 instructions a tick). */
#define TIMER_CTRL (*(volatile uint32_t *)0x40000000u)
#define TIMER_VALUE (*(volatile uint32_t *)0x40000004u)
#define TIMER_RELOAD (*(volatile uint32_t *)0x40000008u)
#endif

extern const unsigned char pl_mcu_input[];
extern const size_t pl_mcu_input_size;

static _Alignas(16) uint8_t arena[ARENA_SIZE];
static pl_error err;
static char line[96];
static uint64_t node_ticks[PL_MEASURE_NODES];

int main(void);

static uint64_t ticks(void *ctx)
{
    (void)ctx;
#if defined(PL_MEASURE_AN547)
    return (uint64_t)COUNTER_VALUE;
#else
    return (uint64_t)(0xFFFFFFFFu - TIMER_VALUE); /* counts down from the reload value */
#endif
}

static char *put_str(char *p, const char *s)
{
    while (*s != '\0')
        *p++ = *s++;
    return p;
}

static char *put_uint(char *p, uint64_t v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

static void print_figure(const char *name, uint64_t v)
{
    char *p = put_uint(put_str(put_str(line, name), " "), v);
    put_str(p, "\n")[0] = '\0';
    pl_mcu_write(line);
}

static int failed(const char *what, const pl_error *e)
{
    pl_mcu_write("FAIL ");
    pl_mcu_write(what);
    pl_mcu_write(": ");
    pl_mcu_write(pl_status_name(e->status));
    pl_mcu_write("\n");
    return 1;
}

static int set_inputs(pl_interp *it)
{
    size_t at = 0;
    for (uint32_t i = 0; i < pl_interp_input_count(it); i++) {
        pl_tensor_info in;
        if (pl_interp_tensor(it, (uint32_t)pl_interp_input_index(it, i), &in) != PL_OK ||
            at + in.bytes > pl_mcu_input_size) {
            pl_mcu_write("FAIL input bytes do not match the model's inputs\n");
            return 1;
        }
        memcpy(in.data, pl_mcu_input + at, in.bytes);
        at += in.bytes;
    }
    return 0;
}

static void print_nodes(uint32_t count)
{
    for (uint32_t n = 0; n < count && n < PL_MEASURE_NODES; n++) {
        char *p = put_uint(put_str(line, "node "), n);
        p = put_uint(put_str(p, " "), node_ticks[n]);
        put_str(p, "\n")[0] = '\0';
        pl_mcu_write(line);
    }
}

int main(void)
{
    static pl_interp_storage record; /* the interpreter's record, beside the arena */
    pl_interp *it;
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = MODEL_RESOLVER();
    opt.storage = &record;
#if defined(PL_MEASURE_AN547)
    COUNTER_CTRL = 1u; /* CNTCR.EN */
#else
    TIMER_RELOAD = 0xFFFFFFFFu;
    TIMER_VALUE = 0xFFFFFFFFu;
    TIMER_CTRL = 1u; /* enable, no interrupt */
#endif
    pl_mcu_stack_paint(pl_mcu_sp());
    uint64_t start = ticks(NULL);
    if (pl_interp_create(MODEL_DATA, MODEL_SIZE, &opt, arena, sizeof arena, &it, &err))
        return failed("create", &err);
    if (pl_interp_allocate(it) != PL_OK)
        return failed("allocate", pl_interp_error(it));
    print_figure("allocate_ticks", ticks(NULL) - start);
    print_figure("stack_allocate", pl_mcu_stack_used());
    if (set_inputs(it))
        return 1;
    pl_profiler prof = {ticks, NULL, node_ticks, PL_MEASURE_NODES};
    if (pl_interp_set_profiler(it, &prof) != PL_OK)
        return failed("profiler", pl_interp_error(it));
    pl_mcu_stack_paint(pl_mcu_sp());
    start = ticks(NULL);
    if (pl_interp_invoke(it) != PL_OK)
        return failed("invoke", pl_interp_error(it));
    print_figure("invoke_ticks", ticks(NULL) - start);
    print_figure("stack_invoke", pl_mcu_stack_used());
    print_nodes(pl_interp_node_count(it));
    pl_mcu_write("done\n");
    return 0;
}
