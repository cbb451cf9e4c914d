/* fmt.h - a tiny printf subset that writes into a caller buffer (the core has no stdio). */
#ifndef PL_BASE_FMT_H
#define PL_BASE_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into buf (NUL-terminated when cap > 0, truncated to fit); returns the length the
** whole text needs. Conversions: %d %i %u %x with l/ll/z modifiers, %s, %.*s, %c, %g, %%.
** With PL_NO_MESSAGES every text is empty (length 0). */
size_t pl_fmt_v(char *buf, size_t cap, const char *fmt, va_list ap);
size_t pl_fmt(char *buf, size_t cap, const char *fmt, ...);

#endif
