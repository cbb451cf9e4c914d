/* pack.h - PACK and UNPACK (any fixed-size element type): registrations in the fast path's
** contract. */
#ifndef PL_KERNELS_PACK_H
#define PL_KERNELS_PACK_H

#include "kernels/shape/join_split_fast.h"

#endif
