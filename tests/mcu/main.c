/* main.c - the MCU test firmware: runs one exported model (picolite export-c) on the board.
**
** PL_MCU_MODEL names the export (its array, size, arena constant and resolver); input.c
** holds the input tensors' bytes, concatenated in input order. The firmware prints the
** arena figures, each output's bytes in hex and the stack high-water marks, over
** semihosting, for tests/test_mcu.py to compare with the host. The model is invoked twice
** on the same input, so variable tensors' state takes part in the outputs. */
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

extern const unsigned char pl_mcu_input[];
extern const size_t pl_mcu_input_size;

static _Alignas(16) uint8_t arena[ARENA_SIZE];
static pl_error err;
static char line[160];

int main(void);

static char *put_str(char *p, const char *s)
{
    while (*s != '\0')
        *p++ = *s++;
    return p;
}

static char *put_uint(char *p, size_t v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

static void print_figure(const char *name, size_t v)
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
    pl_mcu_write(": ");
    pl_mcu_write(e->msg);
    pl_mcu_write("\n");
    return 1;
}

/* "output I HEX...", printed in chunks that fit the line buffer. */
static void print_bytes(uint32_t index, const uint8_t *data, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char *p = put_str(put_uint(put_str(line, "output "), index), " ");
    pl_mcu_write((*p = '\0', line));
    for (size_t i = 0; i < n; i += 64) {
        p = line;
        for (size_t j = i; j < n && j < i + 64; j++) {
            *p++ = hex[data[j] >> 4];
            *p++ = hex[data[j] & 15];
        }
        *p = '\0';
        pl_mcu_write(line);
    }
    pl_mcu_write("\n");
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

static int report(pl_interp *it)
{
    pl_recording rec;
    if (pl_interp_recording(it, &rec) != PL_OK)
        return failed("recording", pl_interp_error(it));
    print_figure("arena_required", (rec.peak + 15u) & ~(size_t)15u);
    print_figure("arena_head", rec.head);
    print_figure("arena_tail", rec.tail);
    for (uint32_t i = 0; i < pl_interp_output_count(it); i++) {
        pl_tensor_info out;
        pl_interp_tensor(it, (uint32_t)pl_interp_output_index(it, i), &out);
        print_bytes(i, (const uint8_t *)out.data, out.bytes);
    }
    return 0;
}

int main(void)
{
    static pl_interp_storage record; /* the interpreter's record, beside the arena */
    pl_interp *it;
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = MODEL_RESOLVER();
    opt.storage = &record;
    pl_mcu_stack_paint(pl_mcu_sp());
    if (pl_interp_create(MODEL_DATA, MODEL_SIZE, &opt, arena, sizeof arena, &it, &err))
        return failed("create", &err);
    if (pl_interp_allocate(it) != PL_OK)
        return failed("allocate", pl_interp_error(it));
    print_figure("stack_allocate", pl_mcu_stack_used());
    if (set_inputs(it))
        return 1;
    pl_mcu_stack_paint(pl_mcu_sp());
    /* twice: variable tensors (an LSTM's state) carry the first run into the second */
    if (pl_interp_invoke(it) != PL_OK || pl_interp_invoke(it) != PL_OK)
        return failed("invoke", pl_interp_error(it));
    print_figure("stack_invoke", pl_mcu_stack_used());
    if (report(it))
        return 1;
    pl_mcu_write("done\n");
    return 0;
}
