/* ew_f32_entry.h - the float binary operations' entry (pl_ew's f32) of an x86 set, written
** once: the includer defines EW_F32_VEC (its float vector type), EW_F32_SPLAT(x) and
** f32_run(op, a, b, n, lo, hi, out), inlined, then includes this. The operation is picked
** once per span, so each loop is compiled for one operation (a jump per vector had been a
** tenth of a 28x28x128 ADD). */
#ifndef PL_FAST_X86_EW_F32_ENTRY_H
#define PL_FAST_X86_EW_F32_ENTRY_H

#define EW_F32_RUN(OP)                                                                     \
    case OP: f32_run(OP, a, b, n, lo, hi, out); break

static void f32(pl_ew_f32_op op, const float *a, const float *b, size_t n, float act_lo,
                float act_hi, float *out)
{
    const EW_F32_VEC lo = EW_F32_SPLAT(act_lo), hi = EW_F32_SPLAT(act_hi);
    switch (op) {
        EW_F32_RUN(PL_EW_ADD);
        EW_F32_RUN(PL_EW_SUB);
        EW_F32_RUN(PL_EW_MUL);
        EW_F32_RUN(PL_EW_DIV);
        EW_F32_RUN(PL_EW_MAX);
        EW_F32_RUN(PL_EW_MIN);
        EW_F32_RUN(PL_EW_SQDIFF);
    }
}
#undef EW_F32_RUN

#endif
