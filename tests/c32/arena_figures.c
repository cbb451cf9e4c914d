/* arena_figures.c - prints the arena figures of each model named on the command line, one
** tab-separated line each: path, status, required, head, tail, total (tests/test_arena32.py
** builds it with -m32 and compares with the 64-bit host's figures). */
#include <stdio.h>
#include <stdlib.h>

#include "picolite/picolite.h"

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* Allocates in exactly `required` bytes: the recording's head, tail and total. */
static pl_status allocate(const unsigned char *model, size_t size, size_t required,
                          pl_recording *rec, pl_error *err)
{
    static pl_interp_storage record;
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = pl_builtin_resolver();
    opt.storage = &record; /* as the host's figures: the record outside the arena */
    void *arena = aligned_alloc(16, (required + 15) & ~(size_t)15);
    pl_interp *it = NULL;
    pl_status s = arena == NULL ? PL_ERR_ARG
                                : pl_interp_create(model, size, &opt, arena, required, &it, err);
    if (s == PL_OK)
        s = pl_interp_allocate(it);
    if (s == PL_OK)
        s = pl_interp_recording(it, rec);
    if (it != NULL)
        pl_interp_destroy(it);
    free(arena);
    return s;
}

int main(int argc, char **argv)
{
    static unsigned char work[64u << 20];
    for (int i = 1; i < argc; i++) {
        size_t size = 0, required = 0;
        unsigned char *model = read_file(argv[i], &size);
        if (model == NULL) {
            printf("%s\tunreadable\n", argv[i]);
            continue;
        }
        static pl_interp_storage record;
        pl_interp_options opt = pl_interp_defaults();
        opt.resolver = pl_builtin_resolver();
        opt.storage = &record;
        pl_error err;
        pl_recording rec = {0};
        pl_status s = pl_required_arena_size(model, size, &opt, work, sizeof work, &required,
                                             &err);
        if (s == PL_OK)
            s = allocate(model, size, required, &rec, &err);
        printf("%s\t%d\t%zu\t%zu\t%zu\t%zu\n", argv[i], (int)s, required, rec.head, rec.tail,
               rec.total);
        free(model);
    }
    return 0;
}
