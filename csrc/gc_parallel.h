/* Native threads for the batch loops (parallel.c).
 *
 * The batch queries answer K independent items (configurations, edges);
 * gc_parallel_for hands them out in chunks to a few POSIX threads that share
 * one atomic counter, the calling thread being worker 0. Each item's answer
 * depends on the item alone (every worker has its own scratch), so the
 * answers do not depend on the number of threads or on which thread took
 * which chunk. Call it with the GIL released; the body must not touch Python.
 */
#ifndef GEOMETRY_CORE_GC_PARALLEL_H
#define GEOMETRY_CORE_GC_PARALLEL_H

#include <stddef.h>

/* The most threads one call starts (requests above it are clipped). */
#define GC_MAX_THREADS 256

/* Answers items [begin, end) on worker `worker` (0 <= worker < threads). */
typedef void (*gc_range_fn)(void *ctx, ptrdiff_t begin, ptrdiff_t end, int worker);

/* Runs body over [0, n) in chunks of `chunk` items on up to `threads`
 * workers (at least 1, at most GC_MAX_THREADS and never more than there are
 * chunks). A thread the system refuses to start leaves its share to the
 * others. */
void gc_parallel_for(int threads, ptrdiff_t n, ptrdiff_t chunk, gc_range_fn body, void *ctx);

/* The number of workers gc_parallel_for will use for these arguments: what
 * callers size their per-worker scratch by. */
int gc_parallel_workers(int threads, ptrdiff_t n, ptrdiff_t chunk);

#endif
