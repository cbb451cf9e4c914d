/* required.c - the exact arena size a model needs, from one allocation in a work buffer.
**
** The sequence of arena operations does not depend on the arena's size (the arena aligns
** both ends to 16, so tail padding is the same everywhere), so the arena's peak usage in
** any buffer that is large enough is the exact minimum. With opt->storage the record is
** counted outside the arena, but this run keeps it in its own storage: the caller's may hold
** a live interpreter. */
#include "picolite/pl_interp.h"

#include "memory/arena.h"
#include "runtime/state.h"

pl_status pl_required_arena_size(const void *model, size_t model_size,
                                 const pl_interp_options *opt, void *work, size_t work_size,
                                 size_t *required, pl_error *err)
{
    pl_interp *it;
    pl_recording rec;
    pl_interp_storage record;
    pl_interp_options own;
    if (required == NULL)
        return pl_error_set(err, PL_ERR_ARG, "required_arena_size: required is NULL");
    *required = 0;
    if (opt != NULL && opt->storage != NULL) {
        own = *opt;
        own.storage = &record;
        opt = &own;
    }
    PL_TRY(pl_interp_create(model, model_size, opt, work, work_size, &it, err));
    it->sizing = true;
    pl_status s = pl_interp_allocate(it);
    if (s != PL_OK) {
        pl_interp_destroy(it); /* err already holds the interpreter's message */
        return s;
    }
    pl_interp_recording(it, &rec);
    pl_interp_destroy(it);
    *required = (rec.peak + PL_ARENA_ALIGN - 1) & ~(size_t)(PL_ARENA_ALIGN - 1);
    return PL_OK;
}
