/* embedding_lookup.h - EMBEDDING_LOOKUP: registration. */
#ifndef PL_KERNELS_EMBEDDING_LOOKUP_H
#define PL_KERNELS_EMBEDDING_LOOKUP_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_embedding_lookup_registration(void);

#endif
