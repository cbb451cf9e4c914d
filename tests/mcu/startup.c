/* startup.c - reset and fault handlers, the vector table and semihosting for the MPS2 boards.
** The fault handlers report over semihosting and stop QEMU with a failure status. */
#include "mcu.h"

#include <stdint.h>
#include <string.h>

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(void);
void pl_mcu_reset(void);
void pl_mcu_fault(void);

enum { SYS_WRITE0 = 0x04, SYS_EXIT = 0x18 };
enum { ADP_APPLICATION_EXIT = 0x20026, ADP_RUNTIME_ERROR = 0x20023 };

/* r0 = operation, r1 = argument; QEMU traps BKPT 0xAB on M-profile cores. */
static int semihost(int op, const void *arg)
{
    int r;
    __asm__ volatile("mov r0, %1\n\tmov r1, %2\n\tbkpt 0xab\n\tmov %0, r0"
                     : "=r"(r) : "r"(op), "r"(arg) : "r0", "r1", "memory");
    return r;
}

void pl_mcu_write(const char *text)
{
    (void)semihost(SYS_WRITE0, text);
}

void pl_mcu_exit(int ok)
{
    (void)semihost(SYS_EXIT, (const void *)(uintptr_t)(ok ? ADP_APPLICATION_EXIT
                                                          : ADP_RUNTIME_ERROR));
    for (;;) {
    }
}

void pl_mcu_fault(void)
{
    pl_mcu_write("FAIL fault\n");
    pl_mcu_exit(0);
}

void pl_mcu_reset(void)
{
    memcpy(__data_start, __data_load, (size_t)((char *)__data_end - (char *)__data_start));
    memset(__bss_start, 0, (size_t)((char *)__bss_end - (char *)__bss_start));
#if defined(__ARM_FP)
    /* CPACR: full access to CP10/CP11 before the first float instruction */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb");
#endif
    pl_mcu_exit(main() == 0);
}

/* Initial stack, reset, NMI, HardFault, MemManage, BusFault, UsageFault. */
__attribute__((section(".vectors"), used)) static void (*const vectors[])(void) = {
    (void (*)(void))(uintptr_t)__stack_top, pl_mcu_reset, pl_mcu_fault, pl_mcu_fault,
    pl_mcu_fault, pl_mcu_fault, pl_mcu_fault,
};
