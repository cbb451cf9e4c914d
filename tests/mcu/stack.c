/* stack.c - the stack high-water mark: paint the free stack, run, find the deepest write. */
#include "mcu.h"

extern uint32_t __stack_limit[];

#define PATTERN 0xA5C3E187u

static uintptr_t top; /* the caller's stack pointer when painted */

void pl_mcu_stack_paint(uintptr_t sp)
{
    /* everything below this function's own frame is free; 16 bytes spare for the loop */
    uint32_t *end = (uint32_t *)(pl_mcu_sp() - 16);
    top = sp;
    for (uint32_t *p = __stack_limit; p < end; p++)
        *p = PATTERN;
}

size_t pl_mcu_stack_used(void)
{
    const uint32_t *p = __stack_limit;
    while ((uintptr_t)p < top && *p == PATTERN)
        p++;
    if (p == __stack_limit)
        return (size_t)-1; /* the whole stack was used: an overflow, or close to one */
    return (size_t)(top - (uintptr_t)p);
}
