/* cpu.c - which instruction sets this build has kernels for and this CPU runs. */
#include "fast/fast.h"
#include "picolite/pl_fast.h"

#if defined(PL_FAST_ARM64) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1UL << 20) /* the kernel's bit, for older C library headers */
#endif
#elif defined(PL_FAST_ARM64) && defined(__APPLE__)
#include <sys/sysctl.h>
#endif

static const char *const isa_names[PL_ISA_COUNT] = {"portable", "avx2",     "avx512",
                                                    "neon",     "neon-dot", "sse4.1"};

const char *pl_fast_isa_name(pl_isa isa)
{
    return (unsigned)isa < PL_ISA_COUNT ? isa_names[isa] : NULL;
}

#if defined(PL_FAST_X86)
/* The compiler's CPU model checks the OS saves the wider registers (XGETBV) too. */
static bool x86_has(pl_isa isa)
{
    __builtin_cpu_init();
    if (isa == PL_ISA_SSE41)
        return __builtin_cpu_supports("sse4.1");
    if (isa == PL_ISA_AVX2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return isa == PL_ISA_AVX512 && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("fma");
}
#endif

#if defined(PL_FAST_X86)
/* AVX-512 VBMI (VPERMI2B), which the avx512 set does not require: the byte tables use it. */
bool pl_fast_x86_has_vbmi(void)
{
    __builtin_cpu_init();
    return x86_has(PL_ISA_AVX512) && __builtin_cpu_supports("avx512vbmi");
}
#endif

#if defined(PL_FAST_ARM64)
/* The dot-product extension (SDOT, FEAT_DotProd): optional before Armv8.4. */
static bool arm64_has_dot(void)
{
#if defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#elif defined(__APPLE__)
    int has = 0;
    size_t len = sizeof has;
    return sysctlbyname("hw.optional.arm.FEAT_DotProd", &has, &len, NULL, 0) == 0 && has;
#else
    return false; /* no way to ask: the plain NEON kernels */
#endif
}

/* Advanced SIMD is part of every arm64 CPU. */
static bool arm64_has(pl_isa isa)
{
    return isa == PL_ISA_NEON || (isa == PL_ISA_NEON_DOT && arm64_has_dot());
}
#endif

#if defined(PL_FAST_X86)
__attribute__((target("avx"))) static void zero_upper(void)
{
    __builtin_ia32_vzeroupper();
}
#endif

void pl_fast_clean_vector_state(void)
{
#if defined(PL_FAST_X86)
    static int has_avx = -1; /* a benign race: every thread stores the same answer */
    if (has_avx < 0) {
        __builtin_cpu_init();
        has_avx = __builtin_cpu_supports("avx") != 0;
    }
    if (has_avx)
        zero_upper();
#endif
}

bool pl_fast_isa_available(pl_isa isa)
{
    if (isa == PL_ISA_PORTABLE)
        return true;
#if defined(PL_FAST_X86)
    return x86_has(isa);
#elif defined(PL_FAST_ARM64)
    return arm64_has(isa);
#else
    return false;
#endif
}

/* One architecture's sets never run on the other's CPU: their relative order is moot. */
const pl_isa pl_fast_isa_order[PL_ISA_COUNT] = {PL_ISA_PORTABLE, PL_ISA_NEON, PL_ISA_NEON_DOT,
                                                PL_ISA_SSE41, PL_ISA_AVX2, PL_ISA_AVX512};

pl_fast_seal_feed_fn *pl_fast_seal_feed_for(pl_isa isa)
{
#if defined(PL_FAST_X86)
    if ((isa == PL_ISA_AVX2 || isa == PL_ISA_AVX512) && pl_fast_isa_available(PL_ISA_AVX2))
        return pl_fast_seal_feed_avx2;
#endif
    (void)isa;
    return NULL;
}

pl_isa pl_fast_best_isa(void)
{
    for (int i = PL_ISA_COUNT - 1; i > 0; i--)
        if (pl_fast_isa_available(pl_fast_isa_order[i]))
            return pl_fast_isa_order[i];
    return PL_ISA_PORTABLE;
}
