/* fft_impl.h - kiss_fft's mixed-radix FFT and real-FFT pre/post passes, once per sample type.
**
** Included by fft.c with SC (sample type), NAME(x) (suffixes names) and the scalar helpers
** ADD, SUB, NEG, SMUL, CMUL_R, CMUL_I, FIXDIV, HALF_OF, HALF_SUM, HALF_DIFF, COS and SIN
** defined for that type. The operation order follows kiss_fft v130 (as TFLM builds it) so
** that fixed-point rounding and float results match it exactly. Complex values are
** interleaved (re, im) pairs. With FUSED defined (float only), the butterflies fuse what the
** Cortex-M4F firmware's GCC fuses into VFMA/VFMS (CMUL_R and CMUL_I say how for C_MUL); the
** twiddles are the unfused instance's. */

/* The input of the first stage: a real array read as complex pairs, zero past n values. */
typedef struct NAME(source) {
    const SC *p;
    size_t n;
} NAME(source);

static void NAME(load)(const NAME(source) *s, size_t j, SC *out)
{
    out[0] = 2u * j < s->n ? s->p[2u * j] : (SC)0;
    out[1] = 2u * j + 1u < s->n ? s->p[2u * j + 1u] : (SC)0;
}

/* m = tw * x (kiss C_MUL). */
static void NAME(cmul)(SC *m, const SC *x, const SC *tw)
{
    SC r = CMUL_R(x[0], x[1], tw[0], tw[1]);
    m[1] = CMUL_I(x[0], x[1], tw[0], tw[1]);
    m[0] = r;
}

static void NAME(fixdiv2)(SC *c, int k)
{
    c[0] = FIXDIV(c[0], k);
    c[1] = FIXDIV(c[1], k);
}

static void NAME(bfly2)(SC *f, size_t fstride, const SC *tw, size_t m)
{
    for (size_t k = 0; k < m; k++) {
        SC *a = f + 2u * k, *b = f + 2u * (k + m), t[2];
        NAME(fixdiv2)(a, 2);
        NAME(fixdiv2)(b, 2);
        NAME(cmul)(t, b, tw + 2u * k * fstride);
        b[0] = SUB(a[0], t[0]);
        b[1] = SUB(a[1], t[1]);
        a[0] = ADD(a[0], t[0]);
        a[1] = ADD(a[1], t[1]);
    }
}

static void NAME(bfly4)(SC *f, size_t fstride, const SC *tw, size_t m, bool inverse)
{
    for (size_t k = 0; k < m; k++) {
        SC *f0 = f + 2u * k, *f1 = f0 + 2u * m, *f2 = f0 + 4u * m, *f3 = f0 + 6u * m;
        SC s0[2], s1[2], s2[2], s3[2], s4[2], s5[2];
        NAME(fixdiv2)(f0, 4);
        NAME(fixdiv2)(f1, 4);
        NAME(fixdiv2)(f2, 4);
        NAME(fixdiv2)(f3, 4);
        NAME(cmul)(s0, f1, tw + 2u * k * fstride);
        NAME(cmul)(s1, f2, tw + 4u * k * fstride);
        NAME(cmul)(s2, f3, tw + 6u * k * fstride);
        s5[0] = SUB(f0[0], s1[0]);
        s5[1] = SUB(f0[1], s1[1]);
        f0[0] = ADD(f0[0], s1[0]);
        f0[1] = ADD(f0[1], s1[1]);
        s3[0] = ADD(s0[0], s2[0]);
        s3[1] = ADD(s0[1], s2[1]);
        s4[0] = SUB(s0[0], s2[0]);
        s4[1] = SUB(s0[1], s2[1]);
        f2[0] = SUB(f0[0], s3[0]);
        f2[1] = SUB(f0[1], s3[1]);
        f0[0] = ADD(f0[0], s3[0]);
        f0[1] = ADD(f0[1], s3[1]);
        /* the inverse turns by +i where the forward turns by -i */
        SC e0 = inverse ? NEG(s4[1]) : s4[1], e1 = inverse ? NEG(s4[0]) : s4[0];
        f1[0] = ADD(s5[0], e0);
        f1[1] = SUB(s5[1], e1);
        f3[0] = SUB(s5[0], e0);
        f3[1] = ADD(s5[1], e1);
    }
}

static void NAME(bfly3)(SC *f, size_t fstride, const SC *tw, size_t m)
{
    const SC *epi3 = tw + 2u * fstride * m;
    for (size_t k = 0; k < m; k++) {
        SC *f0 = f + 2u * k, *f1 = f0 + 2u * m, *f2 = f0 + 4u * m;
        SC s0[2], s1[2], s2[2], s3[2];
        NAME(fixdiv2)(f0, 3);
        NAME(fixdiv2)(f1, 3);
        NAME(fixdiv2)(f2, 3);
        NAME(cmul)(s1, f1, tw + 2u * k * fstride);
        NAME(cmul)(s2, f2, tw + 4u * k * fstride);
        s3[0] = ADD(s1[0], s2[0]);
        s3[1] = ADD(s1[1], s2[1]);
        s0[0] = SUB(s1[0], s2[0]);
        s0[1] = SUB(s1[1], s2[1]);
#ifdef FUSED /* the halves fused into VFMS; s0 * epi3.i never rounded, fused into each use */
        const float e = epi3[1];
        f1[0] = fmaf(-s3[0], 0.5f, f0[0]);
        f1[1] = fmaf(-s3[1], 0.5f, f0[1]);
        f0[0] = ADD(f0[0], s3[0]);
        f0[1] = ADD(f0[1], s3[1]);
        f2[0] = fmaf(s0[1], e, f1[0]);
        f2[1] = fmaf(s0[0], -e, f1[1]);
        f1[0] = fmaf(-e, s0[1], f1[0]);
        f1[1] = fmaf(e, s0[0], f1[1]);
#else
        f1[0] = SUB(f0[0], HALF_OF(s3[0]));
        f1[1] = SUB(f0[1], HALF_OF(s3[1]));
        s0[0] = SMUL(s0[0], epi3[1]);
        s0[1] = SMUL(s0[1], epi3[1]);
        f0[0] = ADD(f0[0], s3[0]);
        f0[1] = ADD(f0[1], s3[1]);
        f2[0] = ADD(f1[0], s0[1]);
        f2[1] = SUB(f1[1], s0[0]);
        f1[0] = SUB(f1[0], s0[1]);
        f1[1] = ADD(f1[1], s0[0]);
#endif
    }
}

static void NAME(bfly5)(SC *f, size_t fstride, const SC *tw, size_t m)
{
    const SC *ya = tw + 2u * fstride * m, *yb = tw + 4u * fstride * m;
    for (size_t u = 0; u < m; u++) {
        SC *f0 = f + 2u * u, *f1 = f0 + 2u * m, *f2 = f0 + 4u * m, *f3 = f0 + 6u * m;
        SC *f4 = f0 + 8u * m;
        SC s1[2], s2[2], s3[2], s4[2], s5[2], s6[2], s7[2], s8[2], s9[2], s10[2], s11[2];
        SC s12[2], s0[2];
        NAME(fixdiv2)(f0, 5);
        NAME(fixdiv2)(f1, 5);
        NAME(fixdiv2)(f2, 5);
        NAME(fixdiv2)(f3, 5);
        NAME(fixdiv2)(f4, 5);
        s0[0] = f0[0];
        s0[1] = f0[1];
        NAME(cmul)(s1, f1, tw + 2u * u * fstride);
        NAME(cmul)(s2, f2, tw + 4u * u * fstride);
        NAME(cmul)(s3, f3, tw + 6u * u * fstride);
        NAME(cmul)(s4, f4, tw + 8u * u * fstride);
        for (int c = 0; c < 2; c++) {
            s7[c] = ADD(s1[c], s4[c]);
            s10[c] = SUB(s1[c], s4[c]);
            s8[c] = ADD(s2[c], s3[c]);
            s9[c] = SUB(s2[c], s3[c]);
            f0[c] = ADD(f0[c], ADD(s7[c], s8[c]));
#ifdef FUSED /* both products of each sum fused in turn */
            s5[c] = fmaf(s8[c], yb[0], fmaf(s7[c], ya[0], s0[c]));
            s11[c] = fmaf(s8[c], ya[0], fmaf(s7[c], yb[0], s0[c]));
#else
            s5[c] = ADD(ADD(s0[c], SMUL(s7[c], ya[0])), SMUL(s8[c], yb[0]));
            s11[c] = ADD(ADD(s0[c], SMUL(s7[c], yb[0])), SMUL(s8[c], ya[0]));
#endif
        }
#ifdef FUSED /* one product of each pair fused (s12[0]: the second, the first is negated) */
        s6[0] = fmaf(s10[1], ya[1], s9[1] * yb[1]);
        s6[1] = fmaf(-s10[0], ya[1], -(s9[0] * yb[1]));
        s12[0] = fmaf(s9[1], ya[1], -(s10[1] * yb[1]));
        s12[1] = fmaf(s10[0], yb[1], -(s9[0] * ya[1]));
#else
        s6[0] = ADD(SMUL(s10[1], ya[1]), SMUL(s9[1], yb[1]));
        s6[1] = SUB(NEG(SMUL(s10[0], ya[1])), SMUL(s9[0], yb[1]));
        s12[0] = ADD(NEG(SMUL(s10[1], yb[1])), SMUL(s9[1], ya[1]));
        s12[1] = SUB(SMUL(s10[0], yb[1]), SMUL(s9[0], ya[1]));
#endif
        for (int c = 0; c < 2; c++) {
            f1[c] = SUB(s5[c], s6[c]);
            f4[c] = ADD(s5[c], s6[c]);
            f2[c] = ADD(s11[c], s12[c]);
            f3[c] = SUB(s11[c], s12[c]);
        }
    }
}

/* One stage (kiss kf_work): p sub-transforms of length m, recursively, then radix-p
** butterflies. factors holds (p, m) pairs; only radices 2..5 reach here. */
static void NAME(work)(SC *out, const NAME(source) *src, size_t f, size_t fstride,
                       const int32_t *factors, const SC *tw, bool inverse)
{
    size_t p = (size_t)factors[0], m = (size_t)factors[1];
    for (size_t q = 0; q < p; q++) {
        if (m == 1)
            NAME(load)(src, f + q * fstride, out + 2u * q);
        else
            NAME(work)(out + 2u * q * m, src, f + q * fstride, fstride * p, factors + 2, tw,
                       inverse);
    }
    if (p == 2)
        NAME(bfly2)(out, fstride, tw, m);
    else if (p == 3)
        NAME(bfly3)(out, fstride, tw, m);
    else if (p == 4)
        NAME(bfly4)(out, fstride, tw, m, inverse);
    else
        NAME(bfly5)(out, fstride, tw, m);
}

#ifndef FUSED
/* Twiddles of kiss_fft_alloc (ncfft of them) and kiss_fftr_alloc's super twiddles
** (ncfft / 2), in the same double-precision expressions. */
static void NAME(twiddles)(SC *tw, SC *super, int32_t ncfft, bool inverse)
{
    const double pi = 3.141592653589793238462643383279502884197169399375105820974944;
    for (int32_t i = 0; i < ncfft; ++i) {
        double phase = -2 * pi * i / ncfft;
        if (inverse)
            phase *= -1;
        tw[2 * i] = COS(phase);
        tw[2 * i + 1] = SIN(phase);
    }
    for (int32_t i = 0; i < ncfft / 2; ++i) {
        double phase = -3.14159265358979323846264338327 * ((double)(i + 1) / ncfft + .5);
        if (inverse)
            phase *= -1;
        super[2 * i] = COS(phase);
        super[2 * i + 1] = SIN(phase);
    }
}
#endif

/* kiss_fftr: the half-length complex FFT of the packed real input (n values, zero-padded),
** then the split into ncfft + 1 bins. */
static void NAME(rfft)(const pl_fft *st, SC *mem, const SC *in, size_t n, SC *out)
{
    int32_t nc = st->ncfft;
    const SC *tw = mem, *super = mem + 2 * nc;
    SC *tmp = mem + 2 * nc + 2 * (nc / 2);
    NAME(source) src = {in, n};
    NAME(work)(tmp, &src, 0, 1, st->factors, tw, false);
    SC tdc[2] = {tmp[0], tmp[1]};
    NAME(fixdiv2)(tdc, 2);
    out[0] = ADD(tdc[0], tdc[1]);
    out[2 * nc] = SUB(tdc[0], tdc[1]);
    out[1] = out[2 * nc + 1] = (SC)0;
    for (int32_t k = 1; k <= nc / 2; ++k) {
        SC fpk[2] = {tmp[2 * k], tmp[2 * k + 1]};
        SC fpnk[2] = {tmp[2 * (nc - k)], NEG(tmp[2 * (nc - k) + 1])};
        SC f1k[2], f2k[2], t[2];
        NAME(fixdiv2)(fpk, 2);
        NAME(fixdiv2)(fpnk, 2);
        f1k[0] = ADD(fpk[0], fpnk[0]);
        f1k[1] = ADD(fpk[1], fpnk[1]);
        f2k[0] = SUB(fpk[0], fpnk[0]);
        f2k[1] = SUB(fpk[1], fpnk[1]);
        NAME(cmul)(t, f2k, super + 2 * (k - 1));
        out[2 * k] = HALF_SUM(f1k[0], t[0]);
        out[2 * k + 1] = HALF_SUM(f1k[1], t[1]);
        out[2 * (nc - k)] = HALF_DIFF(f1k[0], t[0]);
        out[2 * (nc - k) + 1] = HALF_DIFF(t[1], f1k[1]);
    }
}

/* kiss_fftri: ncfft + 1 bins folded back into the half-length complex FFT's input, then
** that FFT (with the inverse twiddles) writes the 2 * ncfft real samples. */
static void NAME(irfft)(const pl_fft *st, SC *mem, const SC *in, SC *out)
{
    int32_t nc = st->ncfft;
    const SC *tw = mem, *super = mem + 2 * nc;
    SC *tmp = mem + 2 * nc + 2 * (nc / 2);
    tmp[0] = ADD(in[0], in[2 * nc]);
    tmp[1] = SUB(in[0], in[2 * nc]);
    NAME(fixdiv2)(tmp, 2);
    for (int32_t k = 1; k <= nc / 2; ++k) {
        SC fk[2] = {in[2 * k], in[2 * k + 1]};
        SC fnkc[2] = {in[2 * (nc - k)], NEG(in[2 * (nc - k) + 1])};
        SC fek[2], d[2], fok[2];
        NAME(fixdiv2)(fk, 2);
        NAME(fixdiv2)(fnkc, 2);
        fek[0] = ADD(fk[0], fnkc[0]);
        fek[1] = ADD(fk[1], fnkc[1]);
        d[0] = SUB(fk[0], fnkc[0]);
        d[1] = SUB(fk[1], fnkc[1]);
        NAME(cmul)(fok, d, super + 2 * (k - 1));
        tmp[2 * k] = ADD(fek[0], fok[0]);
        tmp[2 * k + 1] = ADD(fek[1], fok[1]);
        tmp[2 * (nc - k)] = SUB(fek[0], fok[0]);
        tmp[2 * (nc - k) + 1] = NEG(SUB(fek[1], fok[1]));
    }
    NAME(source) src = {tmp, 2u * (size_t)nc};
    NAME(work)(out, &src, 0, 1, st->factors, tw, true);
}
