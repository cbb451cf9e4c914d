/* threads.c - the worker threads a fast resolver splits large operators over (num_threads).
**
** The caller is worker 0 and takes tasks too; the others wait for a job, spinning a little
** first (the next operator of the same invoke follows within microseconds) and then
** sleeping on a condition variable. A job's tasks are cut into one contiguous range per
** worker, each handed out by its own atomic counter: a worker runs its range first (so the
** same part of every operator's output stays in one core's cache for the next operator),
** then takes what is left of the others' (so a worker the system has not scheduled holds
** nothing up). Which worker runs a task varies, never what a task computes: the bytes are
** one thread's.
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

/* A worker's range of the current job: the job's number (high 32 bits) and the range's next
** unclaimed task (low 32). A task is claimed by a compare-and-swap, which fails once the job
** has changed. One cache line each: workers claim from their own at once. */
typedef struct range {
    _Atomic uint64_t next;
    char pad[64 - sizeof(uint64_t)];
} range;

struct pl_fast_threads {
    range ranges[PL_FAST_MAX_THREADS];
    void *raw; /* what the host gave */
    int32_t workers; /* besides the caller */
    unsigned forks;  /* the fork count it started at: a forked child runs on its caller alone */
    pthread_t tid[PL_FAST_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t wake;
    _Atomic uint64_t claim; /* the current job's number, in the high 32 bits */
    atomic_int sleeping; /* workers waiting on wake */
    atomic_bool stop;
    job jobs[2]; /* job n is jobs[n & 1] */
};

/* Forks this process has been through (counted in the child), so that a pool can tell it is
** in a child without asking for the process id at every job (a system call: 2% of a 2-thread
** invoke of small operators). */
static atomic_uint forks;
static pthread_once_t fork_count_once = PTHREAD_ONCE_INIT;

static void count_fork(void)
{
    atomic_fetch_add(&forks, 1);
}

static void register_fork_count(void)
{
    pthread_atfork(NULL, NULL, count_fork);
}

typedef struct worker_start {
    struct pl_fast_threads *pool;
    int32_t id;
} worker_start;

/* The first task of worker w's range of tasks (w = count: the end). */
static uint32_t range_start(int32_t tasks, int32_t w, int32_t count)
{
    return (uint32_t)((int64_t)tasks * w / count);
}

/* Claims and runs tasks of the current job until none is left: worker's own range first,
** then the others' in turn. Job n's fields are read before the claim of one of its tasks:
** if the swap succeeds, job n was still running, so job n + 2 (the next to write
** jobs[n & 1]) had not begun and the fields were job n's. */
static void run_tasks(struct pl_fast_threads *p, int32_t worker)
{
    const uint32_t n = (uint32_t)(atomic_load(&p->claim) >> 32);
    job *j = &p->jobs[n & 1];
    pl_fast_task_fn *fn = atomic_load_explicit(&j->fn, memory_order_relaxed);
    void *arg = atomic_load_explicit(&j->arg, memory_order_relaxed);
    const int32_t tasks = atomic_load_explicit(&j->tasks, memory_order_relaxed);
    const int32_t count = p->workers + 1;
    for (int32_t k = 0; k < count; k++) {
        const int32_t w = (worker + k) % count;
        const uint32_t end = range_start(tasks, w + 1, count);
        _Atomic uint64_t *next = &p->ranges[w].next;
        uint64_t c = atomic_load(next);
        for (;;) {
            if ((uint32_t)(c >> 32) != n)
                return; /* job n is over */
            if ((uint32_t)c >= end)
                break;
            if (!atomic_compare_exchange_weak(next, &c, c + 1))
                continue; /* c now holds the range's claim */
            fn(arg, worker, (int32_t)(uint32_t)c);
            atomic_fetch_add(&j->done, 1);
            c = atomic_load(next);
        }
    }
}

/* Waits until the job number differs from seen: spins, then sleeps. */
static uint32_t wait_job(struct pl_fast_threads *p, uint32_t seen)
{
    uint32_t n;
    for (int i = 0; i < SPIN_ROUNDS; i++) {
        for (int k = 0; k < PAUSES; k++) { /* a pause is up to 140 cycles: look after each */
            if ((n = (uint32_t)(atomic_load(&p->claim) >> 32)) != seen)
                return n;
            cpu_relax();
        }
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
    pthread_once(&fork_count_once, register_fork_count);
    p->forks = atomic_load(&forks);
    atomic_init(&p->claim, 0);
    for (int i = 0; i < PL_FAST_MAX_THREADS; i++)
        atomic_init(&p->ranges[i].next, 0);
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
    if (p == NULL || tasks <= 1 || work < r->parallel_min_work ||
        atomic_load_explicit(&forks, memory_order_relaxed) != p->forks) {
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
    for (int32_t w = 0; w <= p->workers; w++)
        atomic_store(&p->ranges[w].next, n << 32 | range_start(tasks, w, p->workers + 1));
    atomic_store(&p->claim, n << 32);
    if (atomic_load(&p->sleeping) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mu);
    }
    run_tasks(p, 0);
    while (atomic_load(&j->done) < tasks) /* a task a worker claimed and still runs */
        cpu_relax();
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

typedef struct spans_job {
    pl_fast_span_fn *fn;
    void *arg;
    size_t n, span;
} spans_job;

static void one_span(void *arg, int32_t worker, int32_t task)
{
    const spans_job *j = arg;
    size_t at = (size_t)task * j->span;
    j->fn(j->arg, worker, at, j->n - at < j->span ? j->n - at : j->span);
}

void pl_fast_spans(const pl_node *node, size_t n, size_t span, double work,
                   pl_fast_span_fn *fn, void *arg)
{
    spans_job j = {fn, arg, n, span};
    pl_fast_parallel(node, (int32_t)((n + span - 1) / span), work, one_span, &j);
}
