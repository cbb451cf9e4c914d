/* mcu.h - what the firmware needs from the board: semihosting output, exit, stack painting. */
#ifndef PL_MCU_H
#define PL_MCU_H

#include <stddef.h>
#include <stdint.h>

/* Writes a NUL-terminated string to the host's console. */
void pl_mcu_write(const char *text);

/* Stops the emulator: QEMU exits 0 when ok, 1 otherwise. */
void pl_mcu_exit(int ok) __attribute__((noreturn));

/* The stack pointer here: the frame a call made from this point starts below. */
static inline uintptr_t pl_mcu_sp(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

/* Fills the free stack below sp (the caller's pl_mcu_sp()) with a pattern ... */
void pl_mcu_stack_paint(uintptr_t sp);

/* ... and returns how many bytes below sp were written since: the calls' deepest stack. */
size_t pl_mcu_stack_used(void);

#endif
