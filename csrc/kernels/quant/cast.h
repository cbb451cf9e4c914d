/* cast.h - CAST: registration and the conversion loop. */
#ifndef PL_KERNELS_CAST_H
#define PL_KERNELS_CAST_H

#include <stddef.h>

#include "picolite/pl_kernel.h"

const pl_registration *pl_cast_registration(void);

/* Converts count elements of type `from` at in to type `to` at out (static_cast rules). */
void pl_cast_copy(pl_type from, pl_type to, size_t count, const void *in, void *out);

#endif
