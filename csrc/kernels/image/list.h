/* list.h - the image family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_IMAGE_LIST_H
#define PL_KERNELS_IMAGE_LIST_H

#define PL_IMAGE_KERNELS(X) \
    X(RESIZE_BILINEAR, 23, resize_bilinear) \
    X(RESIZE_NEAREST_NEIGHBOR, 97, resize_nearest_neighbor) \

#endif
