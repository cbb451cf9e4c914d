/* threads.c - the worker threads a fast resolver splits large operators over (num_threads).
**
** The caller is worker 0 and takes tasks too; the others wait for a job, spinning a little
** first (the next operator of the same invoke follows within microseconds) and then
** sleeping on a condition variable. Tasks are handed out by one atomic counter, so which
** worker runs a task varies, never what a task computes: the bytes are one thread's.
** Built with POSIX threads; elsewhere (or after a fork) everything runs on the caller. */
#if defined(PL_FAST_THREADS) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* pthread_sigmask */
#endif
#include "picolite/pl_fast.h"

#include <string.h>

#include "fast/fast.h"

#if defined(PL_FAST_THREADS)
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

/* Rounds of pauses a worker spins for the next job before it sleeps (the next operator's
** job usually comes sooner; 16 rounds measured slower on 1 ms face models, 0.95x against
** 1.11x from a second thread), yielding its core between rounds to whatever else runs. */
enum { SPIN_ROUNDS = 256, PAUSES = 64 };

/* A job: what its tasks run and how many of them are done. Two alternate, so a worker that
** read a job late never reads fields the next job is writing (see claim). */
typedef struct job {
    _Atomic(pl_fast_task_fn *) fn; /* atomic: a late worker may read what the caller writes */
    _Atomic(void *) arg;
    atomic_int tasks;
    atomic_int done;
} job;

struct pl_fast_threads {
    void *raw; /* what the host gave */
    int32_t workers; /* besides the caller */
    pid_t pid;       /* a forked child runs on its caller alone */
    pthread_t tid[PL_FAST_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t wake;
    /* the current job's number (high 32 bits) and its next unclaimed task (low 32): a task
    ** is claimed by a compare-and-swap, which fails once the job has changed */
    _Atomic uint64_t claim;
    atomic_int sleeping; /* workers waiting on wake */
    atomic_bool stop;
    job jobs[2]; /* job n is jobs[n & 1] */
};

typedef struct worker_start {
    struct pl_fast_threads *pool;
    int32_t id;
} worker_start;

static inline void relax(void)
{
    for (int i = 0; i < PAUSES; i++)
        cpu_relax();
}

/* Claims and runs tasks of the job claim holds until none is left. Job n's fields are read
** before the claim of one of its tasks: if the swap succeeds, job n was still running, so
** job n + 2 (the next to write jobs[n & 1]) had not begun and the fields were job n's. */
static void run_tasks(struct pl_fast_threads *p, int32_t worker)
{
    uint64_t c = atomic_load(&p->claim);
    for (;;) {
        job *j = &p->jobs[(c >> 32) & 1];
        pl_fast_task_fn *fn = atomic_load_explicit(&j->fn, memory_order_relaxed);
        void *arg = atomic_load_explicit(&j->arg, memory_order_relaxed);
        uint32_t task = (uint32_t)c;
        if (task >= (uint32_t)atomic_load_explicit(&j->tasks, memory_order_relaxed))
            return;
        if (!atomic_compare_exchange_weak(&p->claim, &c, c + 1))
            continue; /* c now holds the current claim */
        fn(arg, worker, (int32_t)task);
        atomic_fetch_add(&j->done, 1);
        c = atomic_load(&p->claim);
    }
}

/* Waits until the job number differs from seen: spins, then sleeps. */
static uint32_t wait_job(struct pl_fast_threads *p, uint32_t seen)
{
    uint32_t n;
    for (int i = 0; i < SPIN_ROUNDS; i++) {
        if ((n = (uint32_t)(atomic_load(&p->claim) >> 32)) != seen)
            return n;
        relax();
        sched_yield();
    }
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleeping, 1);
    while ((n = (uint32_t)(atomic_load(&p->claim) >> 32)) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->wake, &p->mu);
    atomic_fetch_sub(&p->sleeping, 1);
    pthread_mutex_unlock(&p->mu);
    return n;
}

static void *worker_main(void *arg)
{
    worker_start *w = arg;
    struct pl_fast_threads *p = w->pool;
    int32_t id = w->id;
    uint32_t seen = 0;
    while (!atomic_load(&p->stop)) {
        seen = wait_job(p, seen);
        if (atomic_load(&p->stop))
            return NULL;
        run_tasks(p, id);
    }
    return NULL;
}

static void stop_workers(struct pl_fast_threads *p, int32_t started)
{
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int32_t i = 0; i < started; i++)
        pthread_join(p->tid[i], NULL);
}

static void release(pl_fast_resolver *r)
{
    struct pl_fast_threads *p = r->threads;
    if (p == NULL)
        return;
    stop_workers(p, p->workers);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    r->mem.release(r->mem.self, p->raw);
    r->threads = NULL;
}

/* Starts count - 1 workers with every signal blocked (the caller's thread takes them). */
static pl_status start(pl_fast_resolver *r, int32_t count)
{
    void *raw = r->mem.alloc(r->mem.self, sizeof(struct pl_fast_threads) + 64 +
                                              sizeof(worker_start) * PL_FAST_MAX_THREADS);
    if (raw == NULL)
        return PL_ERR_UNSUPPORTED;
    struct pl_fast_threads *p = (void *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    worker_start *starts = (worker_start *)(p + 1);
    memset(p, 0, sizeof *p);
    p->raw = raw;
    p->pid = getpid();
    atomic_init(&p->claim, 0);
    atomic_init(&p->sleeping, 0);
    atomic_init(&p->stop, false);
    for (int i = 0; i < 2; i++) {
        atomic_init(&p->jobs[i].fn, NULL);
        atomic_init(&p->jobs[i].arg, NULL);
        atomic_init(&p->jobs[i].tasks, 0);
        atomic_init(&p->jobs[i].done, 0);
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int32_t started = 0;
    for (; started < count - 1; started++) {
        starts[started] = (worker_start){p, started + 1};
        if (pthread_create(&p->tid[started], NULL, worker_main, &starts[started]) != 0)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    p->workers = started;
    r->threads = p;
    if (started < count - 1) {
        release(r);
        return PL_ERR_UNSUPPORTED;
    }
    return PL_OK;
}

pl_status pl_fast_resolver_set_threads(pl_fast_resolver *r, int32_t count)
{
    if (r == NULL || count < 1 || count > PL_FAST_MAX_THREADS)
        return PL_ERR_ARG;
    release(r);
    r->thread_count = 1;
    if (count == 1)
        return PL_OK;
    PL_TRY(start(r, count));
    r->thread_count = count;
    return PL_OK;
}

/* The next job, published after its fields (the claim's store releases them); a sleeping
** worker is woken. Then the caller takes tasks too and waits for the ones others claimed. */
void pl_fast_parallel(const pl_node *node, int32_t tasks, double work, pl_fast_task_fn *fn,
                      void *arg)
{
    pl_fast_resolver *r = pl_fast_reg_of(node)->owner;
    struct pl_fast_threads *p = r->threads;
    if (p == NULL || tasks <= 1 || work < r->parallel_min_work || p->pid != getpid()) {
        for (int32_t t = 0; t < tasks; t++)
            fn(arg, 0, t);
        return;
    }
    r->parallel_jobs++;
    uint64_t n = (atomic_load(&p->claim) >> 32) + 1;
    job *j = &p->jobs[n & 1];
    atomic_store_explicit(&j->fn, fn, memory_order_relaxed);
    atomic_store_explicit(&j->arg, arg, memory_order_relaxed);
    atomic_store_explicit(&j->tasks, tasks, memory_order_relaxed);
    atomic_store(&j->done, 0);
    atomic_store(&p->claim, n << 32);
    if (atomic_load(&p->sleeping) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mu);
    }
    run_tasks(p, 0);
    while (atomic_load(&j->done) < tasks) /* a task a worker claimed and still runs */
        relax();
}

#else /* no threads: one worker, the caller */

pl_status pl_fast_resolver_set_threads(pl_fast_resolver *r, int32_t count)
{
    if (r == NULL || count < 1 || count > PL_FAST_MAX_THREADS)
        return PL_ERR_ARG;
    r->thread_count = 1;
    return PL_OK;
}

void pl_fast_parallel(const pl_node *node, int32_t tasks, double work, pl_fast_task_fn *fn,
                      void *arg)
{
    (void)node;
    (void)work;
    for (int32_t t = 0; t < tasks; t++)
        fn(arg, 0, t);
}

#endif
