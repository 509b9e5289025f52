/* Native threads for the batch loops: see gc_parallel.h. */
#include "gc_parallel.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct {
    atomic_ptrdiff_t next;
    ptrdiff_t n, chunk;
    gc_range_fn body;
    void *ctx;
} shared_range;

typedef struct {
    shared_range *shared;
    int worker;
} worker_arg;

static void run_worker(shared_range *s, int worker) {
    for (;;) {
        ptrdiff_t begin = atomic_fetch_add_explicit(&s->next, s->chunk, memory_order_relaxed);
        if (begin >= s->n) return;
        ptrdiff_t end = begin + s->chunk < s->n ? begin + s->chunk : s->n;
        s->body(s->ctx, begin, end, worker);
    }
}

static void *thread_main(void *arg) {
    worker_arg *a = arg;
    run_worker(a->shared, a->worker);
    return NULL;
}

int gc_parallel_workers(int threads, ptrdiff_t n, ptrdiff_t chunk) {
    if (chunk < 1) chunk = 1;
    ptrdiff_t chunks = (n + chunk - 1) / chunk;
    if (threads > GC_MAX_THREADS) threads = GC_MAX_THREADS;
    if (threads > chunks) threads = (int)chunks;
    return threads < 1 ? 1 : threads;
}

void gc_parallel_for(int threads, ptrdiff_t n, ptrdiff_t chunk, gc_range_fn body, void *ctx) {
    if (chunk < 1) chunk = 1;
    threads = gc_parallel_workers(threads, n, chunk);
    shared_range s = {.n = n, .chunk = chunk, .body = body, .ctx = ctx};
    atomic_init(&s.next, 0);
    if (threads == 1) {
        run_worker(&s, 0);
        return;
    }
    pthread_t ids[GC_MAX_THREADS];
    worker_arg args[GC_MAX_THREADS];
    int started = 0;
    for (int w = 1; w < threads; ++w) {
        args[started] = (worker_arg){&s, w};
        if (pthread_create(&ids[started], NULL, thread_main, &args[started]) != 0) break;
        ++started;
    }
    run_worker(&s, 0);
    for (int t = 0; t < started; ++t) pthread_join(ids[t], NULL);
}
