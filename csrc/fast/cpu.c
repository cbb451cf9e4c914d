/* cpu.c - which instruction sets this build has kernels for and this CPU runs. */
#include "picolite/pl_fast.h"

static const char *const isa_names[PL_ISA_COUNT] = {"portable", "avx2", "avx512", "neon",
                                                    "neon-dot"};

const char *pl_fast_isa_name(pl_isa isa)
{
    return (unsigned)isa < PL_ISA_COUNT ? isa_names[isa] : NULL;
}

#if defined(PL_FAST_X86)
/* The compiler's CPU model checks the OS saves the wider registers (XGETBV) too. */
static bool x86_has(pl_isa isa)
{
    __builtin_cpu_init();
    if (isa == PL_ISA_AVX2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return isa == PL_ISA_AVX512 && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512vnni");
}
#endif

bool pl_fast_isa_available(pl_isa isa)
{
    if (isa == PL_ISA_PORTABLE)
        return true;
#if defined(PL_FAST_X86)
    return x86_has(isa);
#else
    return false;
#endif
}

pl_isa pl_fast_best_isa(void)
{
    static const pl_isa order[] = {PL_ISA_AVX512, PL_ISA_AVX2, PL_ISA_NEON_DOT, PL_ISA_NEON};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (pl_fast_isa_available(order[i]))
            return order[i];
    return PL_ISA_PORTABLE;
}
