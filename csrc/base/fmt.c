/* fmt.c - a tiny printf subset that writes into a caller buffer. */
#include "fmt.h"

#include <stdint.h>

#ifdef PL_NO_MESSAGES
/* A device build without message text: every formatted text is empty. */
size_t pl_fmt_v(char *buf, size_t cap, const char *fmt, va_list ap)
{
    (void)fmt;
    (void)ap;
    if (cap > 0)
        buf[0] = '\0';
    return 0;
}
#else
typedef struct out {
    char *buf;
    size_t cap;
    size_t len;
} out;

static void put(out *o, char c)
{
    if (o->len + 1 < o->cap)
        o->buf[o->len] = c;
    o->len++;
}

static void put_str(out *o, const char *s, size_t max)
{
    for (size_t i = 0; i < max && s[i] != '\0'; i++)
        put(o, s[i]);
}

/* *v /= base (at most 16), returning the remainder, in 32-bit divisions: a 64-bit one
** would link the C library's 64-bit division routine (about 1 KB) on a 32-bit target. */
static unsigned divide(uint64_t *v, unsigned base)
{
    uint32_t hi = (uint32_t)(*v >> 32), lo = (uint32_t)*v;
    uint32_t q_hi = hi / base, r = hi % base;
    uint32_t part = (r << 16) | (lo >> 16); /* r < base: no overflow */
    uint32_t q_mid = part / base;
    part = ((part % base) << 16) | (lo & 0xffffu);
    *v = ((uint64_t)q_hi << 32) | (q_mid << 16) | (part / base);
    return part % base;
}

static void put_unsigned(out *o, uint64_t v, unsigned base)
{
    char digits[24];
    int n = 0;
    do {
        unsigned d = divide(&v, base);
        digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    } while (v != 0);
    while (n > 0)
        put(o, digits[--n]);
}

static void put_signed(out *o, int64_t v)
{
    if (v < 0) {
        put(o, '-');
        put_unsigned(o, (uint64_t)0 - (uint64_t)v, 10);
    } else {
        put_unsigned(o, (uint64_t)v, 10);
    }
}

/* %g with 6 significant digits: enough to name a scale or a difference in a message. */
static void put_double(out *o, double v)
{
    if (v != v) {
        put_str(o, "nan", 3);
        return;
    }
    if (v < 0) {
        put(o, '-');
        v = -v;
    }
    if (v > 1e300) {
        put_str(o, "inf", 3);
        return;
    }
    if (v == 0) { /* no digit to normalise: the loops below would print six zeros */
        put(o, '0');
        return;
    }
    int exp10 = 0;
    while (v >= 1e6) {
        v /= 10;
        exp10++;
    }
    while (v != 0 && v < 1e5) {
        v *= 10;
        exp10--;
    }
    uint32_t digits = (uint32_t)(v + 0.5); /* 6 significant digits: v < 1e6 */
    if (digits >= 1000000) {
        digits /= 10;
        exp10++;
    }
    int point = exp10 + 6; /* digits before the decimal point */
    char d[6];
    for (int i = 5; i >= 0; i--) {
        d[i] = (char)('0' + digits % 10);
        digits /= 10;
    }
    int last = 5;
    while (last > 0 && d[last] == '0')
        last--;
    if (point > 6 || point < -3) {
        put(o, d[0]);
        if (last > 0) {
            put(o, '.');
            for (int i = 1; i <= last; i++)
                put(o, d[i]);
        }
        put(o, 'e');
        put_signed(o, point - 1);
        return;
    }
    if (point <= 0) {
        put(o, '0');
        put(o, '.');
        for (int i = point; i < 0; i++)
            put(o, '0');
        for (int i = 0; i <= last; i++)
            put(o, d[i]);
        return;
    }
    for (int i = 0; i < point; i++)
        put(o, d[i]);
    if (last >= point) {
        put(o, '.');
        for (int i = point; i <= last; i++)
            put(o, d[i]);
    }
}

static void convert(out *o, const char **pf, va_list *ap)
{
    const char *f = *pf;
    int longs = 0, size_mod = 0, star = 0;
    if (f[0] == '.' && f[1] == '*') {
        star = 1;
        f += 2;
    }
    for (; *f == 'l' || *f == 'z'; f++) {
        if (*f == 'l')
            longs++;
        else
            size_mod = 1;
    }
    switch (*f) {
    case 'd':
    case 'i':
        put_signed(o, size_mod ? (int64_t)va_arg(*ap, ptrdiff_t)
                      : longs >= 2 ? (int64_t)va_arg(*ap, long long)
                      : longs == 1 ? (int64_t)va_arg(*ap, long)
                                   : (int64_t)va_arg(*ap, int));
        break;
    case 'u':
    case 'x':
        put_unsigned(o, size_mod ? (uint64_t)va_arg(*ap, size_t)
                        : longs >= 2 ? (uint64_t)va_arg(*ap, unsigned long long)
                        : longs == 1 ? (uint64_t)va_arg(*ap, unsigned long)
                                     : (uint64_t)va_arg(*ap, unsigned),
                     *f == 'x' ? 16u : 10u);
        break;
    case 's': {
        size_t max = star ? (size_t)va_arg(*ap, int) : SIZE_MAX;
        const char *s = va_arg(*ap, const char *);
        put_str(o, s ? s : "(null)", max);
        break;
    }
    case 'c':
        put(o, (char)va_arg(*ap, int));
        break;
    case 'g':
        put_double(o, va_arg(*ap, double));
        break;
    case '%':
        put(o, '%');
        break;
    default: /* unknown conversion: show it rather than guess */
        put(o, '%');
        if (*f != '\0')
            put(o, *f);
        break;
    }
    *pf = *f != '\0' ? f + 1 : f;
}

size_t pl_fmt_v(char *buf, size_t cap, const char *fmt, va_list ap)
{
    out o = {buf, cap, 0};
    va_list args;
    va_copy(args, ap);
    for (const char *f = fmt; *f != '\0';) {
        if (*f != '%') {
            put(&o, *f++);
            continue;
        }
        f++;
        convert(&o, &f, &args);
    }
    va_end(args);
    if (cap > 0)
        buf[o.len < cap ? o.len : cap - 1] = '\0';
    return o.len;
}
#endif

size_t pl_fmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = pl_fmt_v(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}
