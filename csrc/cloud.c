/* Cloud: a point cloud in a uniform grid of cells, and the exact queries of
 * a Model's geometries against it.
 *
 * Construction bins the points by cell with a counting sort (linear in the
 * number of points, no comparison sort): the points of one cell lie
 * together, each cell's slot holds where they start and how many they are,
 * and the cells of one block of BLOCK^3 lie together. While the grid's
 * bounding box holds a bounded number of cells (a few per point), the count
 * is kept in a dense array of every cell of the box, numbered block by
 * block; a cloud spread over a larger box (a far outlier) counts in an
 * open-addressing table of the occupied cells instead. Both give the same
 * cells and the same answers. A query composes each listed geometry's world
 * pose as the Model does (X_WF[frame_slot] X_FG), visits the cells its world
 * box reaches once grown by the threshold, drops a point whose distance to
 * that box already exceeds the threshold, and answers the others with the
 * point kernel (gc_point_distance): the same number a sphere of the cloud's
 * radius at that point gets from the sphere-X pair kernel, before the radius.
 *
 * The yes/no query (any_near; the compiled batch loop of model.c asks it
 * through gc_cloud_any_near) decides most geometries without touching a
 * point: a summed-area table of the occupied blocks answers in eight reads
 * whether the grown box's blocks hold any point; a bit per block skips the
 * empty blocks of a row; a block, then a cell, is dropped whole when the
 * tight bounds of its points lie beyond reach of the geometry's world box,
 * of its box in G, or (a hull) above one of its face planes by more than
 * the threshold. Only the points of the cells left meet lower_bound and the
 * point kernel. Every test is a lower bound of the distance, so the verdict
 * is the one the point kernel gives each point.
 *
 * A Cloud is immutable after construction; the query loops run with the GIL
 * released, so several threads may query one Cloud at once.
 */
#include "gc_buffers.h"
#include "gc_model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An occupied block: tight bounds of its points (low x y z, high x y z) and
 * its run of occupied cells in bcells. */
typedef struct {
    double box[6];
    int32_t start, count;
} block_info;

typedef struct {
    PyObject_HEAD
    Py_ssize_t N;
    double *p;          /* (N, 3), grouped by cell */
    int32_t *order;     /* (N) index of each point in the input */
    size_t p_size, order_size; /* bytes held by p and order (spares may be larger) */
    double h;           /* cell size */
    double inv_h;       /* 1 / h: cell_index multiplies (build and queries alike) */
    double lo[3], hi[3];/* bounds of the points */
    int64_t dims[3];    /* cells along each axis */
    Py_ssize_t cap;     /* cell slots (a power of two when hashed) */
    Py_ssize_t used;    /* occupied cells */
    int64_t *keys;      /* (cap) cell key, -1 where empty */
    int32_t *start;     /* (cap) first point of the cell */
    int32_t *count;     /* (cap) points in the cell */
    int32_t *cell_xyz;  /* (cap, 3) the cell's indices along x, y, z */
    /* Blocks of BLOCK^3 cells: the occupied cells of each, so that a query
     * probes the blocks its box reaches and then only occupied cells. */
    int64_t bdims[3];
    Py_ssize_t bcap;
    int64_t *bkeys;     /* (bcap) block key, -1 where empty */
    int32_t *bstart;    /* (bcap) first of the block's cells in bcells */
    int32_t *bcount;    /* (bcap) its occupied cells */
    int32_t *bcells;    /* (used) table slots of the occupied cells, by block */
    int32_t *bxyz;      /* (used, 3) their indices along x, y, z, in bcells' order: a
                         * query scans a block's cells in one run of memory */
    double *cell_box;   /* (cap, 6) tight bounds of each cell's points */
    /* The occupied blocks again, compact, for the yes/no query: numbered in
     * key order (x fastest) when the directory exists, so that blocks near
     * in space lie near in memory (a query touches a few hundred bytes). */
    Py_ssize_t nblocks;
    block_info *blocks; /* (nblocks) */
    int32_t *rank_of;   /* (bcap) each table slot's block number, -1 where empty */
    int32_t *bdir;      /* (bdims product) block number of each block of the box, -1
                         * where empty; NULL when the box holds more than BLOCK_DIR_MAX
                         * blocks (the table answers alone) */
    uint64_t *bbits;    /* with bdir: a bit per block, set where occupied, each row of
                         * blocks along x (one y, z) starting a word: a query skips the
                         * empty blocks of a row a word at a time */
    int64_t row_words;  /* words of a row of bbits */
    int32_t *bsum;      /* with bdir: ((bdims[0] + 1) (bdims[1] + 1) (bdims[2] + 1)) occupied
                         * blocks at or below each block along every axis (a summed-area
                         * table), so that a query learns in eight reads whether its
                         * range of blocks holds any point */
    Py_ssize_t non_finite; /* rows skipped */
    Py_ssize_t self_filtered; /* points the construction's self filter took out */
    int dense;          /* counted in the dense array over the box, not the table */
} CloudObject;

#define BLOCK 4
/* A query finds a block by the directory, one read, while the box holds at
 * most BLOCK_DIR_MAX blocks and at most BLOCK_DIR_PER_POINT a point plus
 * BLOCK_DIR_SPARE (a dense build's box holds at most N / 8 + 64), and by
 * the table beyond. The directory (4 bytes a block), its bits and its
 * summed-area table (one longer along each axis) take at most 45 bytes a
 * block (a box one block thick is the worst), so at most about 360 bytes a
 * point plus 180 KiB. */
#define BLOCK_DIR_MAX ((int64_t)1 << 22)
#define BLOCK_DIR_PER_POINT 8
#define BLOCK_DIR_SPARE 4096
/* A cell meets at most about this many of a hull's face planes, spread
 * over its triangles (every nt / HULL_CELL_PLANES-th): a cell none of them
 * drops goes to its points, which meet every plane. */
#define HULL_CELL_PLANES 32

/* Spare buffers: the large arrays of Clouds gone and the scratch of past
 * builds, kept for the next build so that replacing a cloud of the same size
 * touches memory already mapped (a fresh mapping costs a page fault per 4 KiB,
 * about a tenth of a build). At most SPARES buffers of SPARE_BYTES in all;
 * taken and given with the GIL held. */
#define SPARES 6
#define SPARE_MIN ((size_t)1 << 18)
#define SPARE_BYTES ((size_t)256 << 20)
static struct {
    void *ptr;
    size_t size;
} spares[SPARES];
static size_t spare_bytes;

/* A buffer of at least `need` bytes (its size in *size), a spare when one
 * fits without wasting more than half of it; NULL when out of memory. */
static void *spare_take(size_t need, size_t *size) {
    if (need == 0) need = 1;
    int best = -1;
    for (int k = 0; k < SPARES; ++k)
        if (spares[k].ptr && spares[k].size >= need && spares[k].size / 2 <= need &&
            (best < 0 || spares[k].size < spares[best].size))
            best = k;
    if (best >= 0) {
        void *ptr = spares[best].ptr;
        *size = spares[best].size;
        spare_bytes -= *size;
        spares[best].ptr = NULL;
        return ptr;
    }
    *size = need;
    return malloc(need);
}

/* Keep `ptr` (`size` bytes) for a later build, in an empty place or in
 * place of the smallest spare when that is smaller; else free it. */
static void spare_give(void *ptr, size_t size) {
    if (ptr == NULL) return;
    if (size < SPARE_MIN || size > SPARE_BYTES) {
        free(ptr);
        return;
    }
    int at = 0;
    for (int k = 1; k < SPARES && spares[at].ptr; ++k)
        if (spares[k].ptr == NULL || spares[k].size < spares[at].size) at = k;
    if (spares[at].ptr) {
        if (spares[at].size >= size) {
            free(ptr);
            return;
        }
        spare_bytes -= spares[at].size;
        free(spares[at].ptr);
        spares[at].ptr = NULL;
    }
    /* The total stays bounded: the largest spares go first. */
    while (spare_bytes + size > SPARE_BYTES) {
        int big = -1;
        for (int k = 0; k < SPARES; ++k)
            if (spares[k].ptr && (big < 0 || spares[k].size > spares[big].size)) big = k;
        spare_bytes -= spares[big].size;
        free(spares[big].ptr);
        spares[big].ptr = NULL;
    }
    spares[at].ptr = ptr;
    spares[at].size = size;
    spare_bytes += size;
}

static void cloud_dealloc(CloudObject *self) {
    spare_give(self->p, self->p_size);
    spare_give(self->order, self->order_size);
    free(self->keys);
    free(self->start);
    free(self->count);
    free(self->cell_xyz);
    free(self->bkeys);
    free(self->bstart);
    free(self->bcount);
    free(self->bcells);
    free(self->bxyz);
    free(self->cell_box);
    free(self->blocks);
    free(self->rank_of);
    free(self->bdir);
    free(self->bbits);
    free(self->bsum);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline uint64_t mix(int64_t key) {
    uint64_t x = (uint64_t)key;
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    x ^= x >> 33;
    return x;
}

/* The table slot of a cell key: its own, or the empty one where it belongs. */
static inline Py_ssize_t slot_of(const CloudObject *c, int64_t key) {
    Py_ssize_t mask = c->cap - 1, s = (Py_ssize_t)(mix(key) & (uint64_t)mask);
    while (c->keys[s] != -1 && c->keys[s] != key) s = (s + 1) & mask;
    return s;
}

/* The cell along `axis` of coordinate x, clamped to the grid. For v > 0 the
 * conversion's truncation is floor(v), and floor(v) >= d iff v >= d for an
 * integer d: the same index as floor() gives, without its libm call (a third
 * of a build's instructions). */
static inline int64_t cell_index(const CloudObject *c, int axis, double x) {
    double v = (x - c->lo[axis]) * c->inv_h;
    if (!(v > 0.0)) return 0; /* and NaN */
    if (v >= (double)(c->dims[axis] - 1)) return c->dims[axis] - 1;
    return (int64_t)v;
}

static inline int64_t cell_key(const CloudObject *c, int64_t ix, int64_t iy, int64_t iz) {
    return ix + c->dims[0] * (iy + c->dims[1] * iz);
}

/* Rehash the table into `cap` slots (counts kept); -1 when out of memory.
 * Uses malloc, not PyMem: it runs with the GIL released. */
static int grow(CloudObject *c, Py_ssize_t cap) {
    int64_t *keys = malloc((size_t)cap * sizeof(int64_t));
    int32_t *start = calloc((size_t)cap, sizeof(int32_t));
    int32_t *count = calloc((size_t)cap, sizeof(int32_t));
    if (!keys || !start || !count) {
        free(keys);
        free(start);
        free(count);
        return -1;
    }
    memset(keys, 0xff, (size_t)cap * sizeof(int64_t));
    int64_t *old_keys = c->keys;
    int32_t *old_count = c->count, *old_start = c->start;
    Py_ssize_t old_cap = c->cap;
    c->keys = keys;
    c->start = start;
    c->count = count;
    c->cap = cap;
    for (Py_ssize_t s = 0; s < old_cap; ++s) {
        if (old_keys[s] == -1) continue;
        Py_ssize_t t = slot_of(c, old_keys[s]);
        keys[t] = old_keys[s];
        count[t] = old_count[s];
    }
    free(old_keys);
    free(old_start);
    free(old_count);
    return 0;
}

static inline Py_ssize_t block_slot(const CloudObject *c, int64_t key) {
    Py_ssize_t mask = c->bcap - 1, s = (Py_ssize_t)(mix(key) & (uint64_t)mask);
    while (c->bkeys[s] != -1 && c->bkeys[s] != key) s = (s + 1) & mask;
    return s;
}

static inline int64_t block_key(const CloudObject *c, int64_t bx, int64_t by, int64_t bz) {
    return bx + c->bdims[0] * (by + c->bdims[1] * bz);
}

/* The cells' indices and the blocks' lists of occupied cells; -1 when out of
 * memory. Runs without the GIL (malloc only). */
static int build_blocks(CloudObject *c) {
    Py_ssize_t used = 0;
    for (Py_ssize_t s = 0; s < c->cap; ++s) used += c->keys[s] != -1;
    c->used = used;
    Py_ssize_t bcap = 16;
    while (bcap < 2 * used + 16) bcap *= 2;
    c->bcap = bcap;
    c->cell_xyz = malloc((size_t)c->cap * 3 * sizeof(int32_t));
    c->bkeys = malloc((size_t)bcap * sizeof(int64_t));
    c->bstart = calloc((size_t)bcap, sizeof(int32_t));
    c->bcount = calloc((size_t)bcap, sizeof(int32_t));
    c->bcells = malloc((size_t)(used > 0 ? used : 1) * sizeof(int32_t));
    c->bxyz = malloc((size_t)(used > 0 ? used : 1) * 3 * sizeof(int32_t));
    if (!c->cell_xyz || !c->bkeys || !c->bstart || !c->bcount || !c->bcells || !c->bxyz)
        return -1;
    memset(c->bkeys, 0xff, (size_t)bcap * sizeof(int64_t));
    for (Py_ssize_t s = 0; s < c->cap; ++s) {
        int64_t key = c->keys[s];
        if (key == -1) continue;
        int64_t ix = key % c->dims[0], iy = (key / c->dims[0]) % c->dims[1],
                iz = key / (c->dims[0] * c->dims[1]);
        c->cell_xyz[3 * s] = (int32_t)ix;
        c->cell_xyz[3 * s + 1] = (int32_t)iy;
        c->cell_xyz[3 * s + 2] = (int32_t)iz;
        Py_ssize_t b = block_slot(c, block_key(c, ix / BLOCK, iy / BLOCK, iz / BLOCK));
        c->bkeys[b] = block_key(c, ix / BLOCK, iy / BLOCK, iz / BLOCK);
        c->bcount[b] += 1;
    }
    int32_t next = 0;
    for (Py_ssize_t b = 0; b < bcap; ++b) {
        c->bstart[b] = next;
        next += c->bcount[b];
        c->bcount[b] = 0;
    }
    for (Py_ssize_t s = 0; s < c->cap; ++s) {
        if (c->keys[s] == -1) continue;
        const int32_t *xyz = c->cell_xyz + 3 * s;
        Py_ssize_t b = block_slot(c, block_key(c, xyz[0] / BLOCK, xyz[1] / BLOCK, xyz[2] / BLOCK));
        int32_t at = c->bstart[b] + c->bcount[b]++;
        c->bcells[at] = (int32_t)s;
        memcpy(c->bxyz + 3 * (Py_ssize_t)at, xyz, 3 * sizeof(int32_t));
    }
    return 0;
}

/* An empty box (low x y z, high x y z), and the box grown to take point q. */
static inline void box_empty(double b[6]) {
    b[0] = b[1] = b[2] = INFINITY;
    b[3] = b[4] = b[5] = -INFINITY;
}

static inline void box_grow(double b[6], const double q[3]) {
    for (int i = 0; i < 3; ++i) {
        b[i] = q[i] < b[i] ? q[i] : b[i];
        b[3 + i] = q[i] > b[3 + i] ? q[i] : b[3 + i];
    }
}

/* Tight bounds of each cell's points into cell_box (cap, 6): low x y z, high x y z. */
static void fill_bounds(CloudObject *c) {
    for (Py_ssize_t s = 0; s < c->cap; ++s) {
        double *b = c->cell_box + 6 * s;
        box_empty(b);
        const double *q = c->p + 3 * (Py_ssize_t)c->start[s];
        for (int32_t m = 0; m < c->count[s]; ++m, q += 3) box_grow(b, q);
    }
}

static int cell_bounds(CloudObject *c) {
    c->cell_box = malloc((size_t)c->cap * 6 * sizeof(double));
    if (c->cell_box == NULL) return -1;
    fill_bounds(c);
    return 0;
}

/* All three coordinates finite: a product by zero is NaN only for a NaN or
 * an infinity (one test and branch a point, not three). */
static inline int finite3(const double *q) {
    return q[0] * 0.0 + q[1] * 0.0 + q[2] * 0.0 == 0.0;
}

/* The tables of `used` cell slots and their blocks; -1 when out of memory. */
static int alloc_cells(CloudObject *c, Py_ssize_t used) {
    size_t n = (size_t)(used > 0 ? used : 1);
    Py_ssize_t bcap = 16;
    while (bcap < 2 * used + 16) bcap *= 2;
    c->cap = used;
    c->used = used;
    c->bcap = bcap;
    c->keys = malloc(n * sizeof(int64_t));
    c->start = malloc(n * sizeof(int32_t));
    c->count = malloc(n * sizeof(int32_t));
    c->cell_xyz = malloc(n * 3 * sizeof(int32_t));
    c->cell_box = malloc(n * 6 * sizeof(double));
    c->bcells = malloc(n * sizeof(int32_t));
    c->bxyz = malloc(n * 3 * sizeof(int32_t));
    c->bkeys = malloc((size_t)bcap * sizeof(int64_t));
    c->bstart = calloc((size_t)bcap, sizeof(int32_t));
    c->bcount = calloc((size_t)bcap, sizeof(int32_t));
    if (!c->keys || !c->start || !c->count || !c->cell_xyz || !c->cell_box || !c->bcells ||
        !c->bxyz || !c->bkeys || !c->bstart || !c->bcount)
        return -1;
    memset(c->bkeys, 0xff, (size_t)bcap * sizeof(int64_t));
    return 0;
}

/* Bin the finite rows of `in` with a dense count over every cell of the
 * box, `total` of them numbered block by block (x fastest), and within a
 * block x fastest too: count (noting each row's cell, and each block's
 * points), number the occupied cells in that order, the empty blocks
 * skipped (so each block's cells are one run), each cell's count replaced by
 * where its run starts, then place each point at its cell's next place (one
 * read and write of the count array a point), then take the cells' bounds
 * in one pass over the runs. `cells` (total)
 * and `key_of` (rows) are scratch. Runs without the GIL; -1 when out of
 * memory. */
static int build_dense(CloudObject *c, const double *in, Py_ssize_t rows, uint32_t *key_of,
                       int32_t *cells, int64_t total) {
    const uint32_t per = BLOCK * BLOCK * BLOCK, bx = (uint32_t)c->bdims[0],
                   by = (uint32_t)c->bdims[1];
    const Py_ssize_t blocks = (Py_ssize_t)(total / per);
    int32_t *in_block = calloc((size_t)blocks, sizeof(int32_t));
    if (in_block == NULL) return -1;
    memset(cells, 0, (size_t)total * sizeof(int32_t));
    Py_ssize_t used = 0;
    for (Py_ssize_t n = 0; n < rows; ++n) {
        const double *q = in + 3 * n;
        if (!finite3(q)) {
            key_of[n] = UINT32_MAX;
            continue;
        }
        uint32_t ix = (uint32_t)cell_index(c, 0, q[0]), iy = (uint32_t)cell_index(c, 1, q[1]),
                 iz = (uint32_t)cell_index(c, 2, q[2]);
        uint32_t b = (iz / BLOCK * by + iy / BLOCK) * bx + ix / BLOCK;
        uint32_t id = b * per + ((iz % BLOCK) * BLOCK + iy % BLOCK) * BLOCK + ix % BLOCK;
        key_of[n] = id;
        in_block[b] += 1;
        used += cells[id]++ == 0;
    }
    if (alloc_cells(c, used) < 0) {
        free(in_block);
        return -1;
    }
    int32_t next = 0, s = 0;
    for (Py_ssize_t b = 0; b < blocks; ++b) {
        if (in_block[b] == 0) continue;
        Py_ssize_t bslot = block_slot(c, b);
        c->bkeys[bslot] = b;
        c->bstart[bslot] = s;
        int64_t x0 = b % bx * BLOCK, y0 = b / bx % by * BLOCK, z0 = b / bx / by * BLOCK;
        int32_t *count = cells + (Py_ssize_t)b * per;
        for (uint32_t local = 0; local < per; ++local) {
            int32_t n = count[local];
            if (n == 0) continue;
            int64_t ix = x0 + local % BLOCK, iy = y0 + local / BLOCK % BLOCK,
                    iz = z0 + local / (BLOCK * BLOCK);
            c->bcount[bslot] += 1;
            c->keys[s] = cell_key(c, ix, iy, iz);
            c->start[s] = next;
            c->count[s] = n;
            c->cell_xyz[3 * s] = c->bxyz[3 * s] = (int32_t)ix;
            c->cell_xyz[3 * s + 1] = c->bxyz[3 * s + 1] = (int32_t)iy;
            c->cell_xyz[3 * s + 2] = c->bxyz[3 * s + 2] = (int32_t)iz;
            c->bcells[s] = s;
            count[local] = next;
            ++s;
            next += n;
        }
    }
    free(in_block);
    /* cells[id]: where the cell's next point goes. */
    int32_t rank = 0;
    for (Py_ssize_t n = 0; n < rows; ++n) {
        uint32_t id = key_of[n];
        if (id == UINT32_MAX) continue;
        int32_t at = cells[id]++;
        const double *q = in + 3 * n;
        double *p = c->p + 3 * (Py_ssize_t)at;
        p[0] = q[0], p[1] = q[1], p[2] = q[2];
        c->order[at] = rank++;
    }
    fill_bounds(c);
    return 0;
}

/* Bin the finite rows of `in` in the open-addressing table of occupied
 * cells: count (the table grows with the occupied cells, not the points, so
 * it stays small and in cache), then place. `key_of` and `slot_at` (rows)
 * are scratch. Runs without the GIL; -1 when out of memory. */
static int build_hashed(CloudObject *c, const double *in, Py_ssize_t rows, int64_t *key_of,
                        int32_t *slot_at) {
    /* The cell size aims at 32 points a cell: a table for N / 8 cells (load
     * 1/4 at that aim) seldom grows and stays in cache. */
    Py_ssize_t cap0 = 1024;
    while (cap0 < c->N / 8) cap0 *= 2;
    if (grow(c, cap0) < 0) return -1;
    Py_ssize_t used = 0;
    int grown = 0;
    for (Py_ssize_t n = 0; n < rows; ++n) {
        const double *q = in + 3 * n;
        if (!finite3(q)) {
            key_of[n] = -1;
            continue;
        }
        int64_t key = cell_key(c, cell_index(c, 0, q[0]), cell_index(c, 1, q[1]),
                               cell_index(c, 2, q[2]));
        key_of[n] = key;
        Py_ssize_t s = slot_of(c, key);
        if (c->keys[s] == -1) {
            if (2 * (used + 1) > c->cap) {
                if (grow(c, 2 * c->cap) < 0) return -1;
                grown = 1;
                s = slot_of(c, key);
            }
            c->keys[s] = key;
            ++used;
        }
        c->count[s] += 1;
        slot_at[n] = (int32_t)s;
    }
    int32_t next = 0;
    for (Py_ssize_t s = 0; s < c->cap; ++s) {
        c->start[s] = next;
        next += c->count[s];
        c->count[s] = 0;
    }
    /* A point's index is its rank among the finite rows. */
    int32_t rank = 0;
    for (Py_ssize_t n = 0; n < rows; ++n) {
        if (key_of[n] == -1) continue;
        /* A slot noted before the table grew has moved: look it up. */
        Py_ssize_t s = grown ? slot_of(c, key_of[n]) : slot_at[n];
        int32_t at = c->start[s] + c->count[s]++;
        memcpy(c->p + 3 * (Py_ssize_t)at, in + 3 * n, 3 * sizeof(double));
        c->order[at] = rank++;
    }
    if (build_blocks(c) < 0 || cell_bounds(c) < 0) return -1;
    return 0;
}

/* Each occupied block's tight bounds: the union of its cells'. */
static void fill_block_bounds(CloudObject *c) {
    for (Py_ssize_t r = 0; r < c->nblocks; ++r) {
        block_info *info = &c->blocks[r];
        double *bb = info->box;
        box_empty(bb);
        for (int32_t k = 0; k < info->count; ++k) {
            const double *cb = c->cell_box + 6 * (Py_ssize_t)c->bcells[info->start + k];
            for (int a = 0; a < 3; ++a) {
                bb[a] = cb[a] < bb[a] ? cb[a] : bb[a];
                bb[3 + a] = cb[3 + a] > bb[3 + a] ? cb[3 + a] : bb[3 + a];
            }
        }
    }
}

/* Number block slot b as block r. */
static void number_block(CloudObject *c, Py_ssize_t b, Py_ssize_t r) {
    c->rank_of[b] = (int32_t)r;
    c->blocks[r].start = c->bstart[b];
    c->blocks[r].count = c->bcount[b];
}

/* The compact blocks with their bounds and, while the box holds at most
 * BLOCK_DIR_MAX blocks, their directory, bits and summed-area table; -1
 * when out of memory. Runs without the GIL. */
static int block_index(CloudObject *c) {
    Py_ssize_t nblocks = 0;
    for (Py_ssize_t b = 0; b < c->bcap; ++b) nblocks += c->bkeys[b] != -1;
    c->nblocks = nblocks;
    c->blocks = malloc((size_t)(nblocks > 0 ? nblocks : 1) * sizeof(block_info));
    c->rank_of = malloc((size_t)c->bcap * sizeof(int32_t));
    if (c->blocks == NULL || c->rank_of == NULL) return -1;
    memset(c->rank_of, 0xff, (size_t)c->bcap * sizeof(int32_t));
    int64_t nb = c->bdims[0] * c->bdims[1] * c->bdims[2];
    if (nb > BLOCK_DIR_MAX || nb > BLOCK_DIR_PER_POINT * (int64_t)c->N + BLOCK_DIR_SPARE) {
        Py_ssize_t r = 0;
        for (Py_ssize_t b = 0; b < c->bcap; ++b)
            if (c->bkeys[b] != -1) number_block(c, b, r++);
        fill_block_bounds(c);
        return 0;
    }
    c->row_words = (c->bdims[0] + 63) / 64;
    int64_t sx = c->bdims[0] + 1, sy = c->bdims[1] + 1, sz = c->bdims[2] + 1;
    c->bdir = malloc((size_t)nb * sizeof(int32_t));
    c->bbits = calloc((size_t)(c->row_words * c->bdims[1] * c->bdims[2]), sizeof(uint64_t));
    c->bsum = calloc((size_t)(sx * sy * sz), sizeof(int32_t));
    if (c->bdir == NULL || c->bbits == NULL || c->bsum == NULL) return -1;
    memset(c->bdir, 0xff, (size_t)nb * sizeof(int32_t));
    for (Py_ssize_t b = 0; b < c->bcap; ++b) {
        int64_t key = c->bkeys[b];
        if (key == -1) continue;
        c->bdir[key] = (int32_t)b;
        int64_t bx = key % c->bdims[0], row = key / c->bdims[0];
        c->bbits[row * c->row_words + bx / 64] |= (uint64_t)1 << (bx % 64);
        int64_t by = row % c->bdims[1], bz = row / c->bdims[1];
        c->bsum[((bz + 1) * sy + by + 1) * sx + bx + 1] = 1;
    }
    /* Numbered in key order. */
    Py_ssize_t r = 0;
    for (int64_t key = 0; key < nb; ++key) {
        if (c->bdir[key] < 0) continue;
        number_block(c, c->bdir[key], r);
        c->bdir[key] = (int32_t)r++;
    }
    fill_block_bounds(c);
    /* Prefix sums along x, then y, then z. */
    for (int64_t z = 1; z < sz; ++z)
        for (int64_t y = 1; y < sy; ++y) {
            int32_t *row = c->bsum + (z * sy + y) * sx;
            for (int64_t x = 1; x < sx; ++x) row[x] += row[x - 1];
        }
    for (int64_t z = 1; z < sz; ++z)
        for (int64_t y = 1; y < sy; ++y) {
            int32_t *row = c->bsum + (z * sy + y) * sx, *below = row - sx;
            for (int64_t x = 1; x < sx; ++x) row[x] += below[x];
        }
    for (int64_t z = 1; z < sz; ++z)
        for (int64_t y = 1; y < sy; ++y) {
            int32_t *row = c->bsum + (z * sy + y) * sx, *under = row - sx * sy;
            for (int64_t x = 1; x < sx; ++x) row[x] += under[x];
        }
    return 0;
}

static int self_filter(CloudObject *self, PyObject *model_o, PyObject *xwf_o, Py_ssize_t F,
                       PyObject *geoms_o, PyObject *thr_o);

static int cloud_init(CloudObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"points", "radius", "model", "X_WF", "F", "geometries",
                             "thresholds", NULL};
    PyObject *points_o, *model_o = Py_None, *xwf_o = Py_None, *geoms_o = Py_None,
             *thr_o = Py_None;
    Py_ssize_t F = 0;
    double radius;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Od|OOnOO", kwlist, &points_o, &radius,
                                     &model_o, &xwf_o, &F, &geoms_o, &thr_o))
        return -1;
    if (self->keys != NULL || self->p != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Cloud is immutable: construct a new one");
        return -1;
    }
    if (!(radius >= 0.0) || !isfinite(radius)) {
        PyErr_SetString(PyExc_ValueError, "radius must be finite and non-negative");
        return -1;
    }
    Py_buffer view;
    if (gc_get_buffer(points_o, &view, 'd', -1, "points") < 0) return -1;
    Py_ssize_t rows = view.len / 24;
    if (view.len != rows * 24 || rows > INT32_MAX / 2) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "points must have shape (N, 3), N < 2**30");
        return -1;
    }
    const double *in = view.buf;
    for (int a = 0; a < 3; ++a) {
        self->lo[a] = INFINITY;
        self->hi[a] = -INFINITY;
    }
    Py_ssize_t N = 0;
    Py_BEGIN_ALLOW_THREADS
    double box[6];
    box_empty(box);
    for (Py_ssize_t n = 0; n < rows; ++n) {
        const double *q = in + 3 * n;
        if (!finite3(q)) continue;
        ++N;
        box_grow(box, q);
    }
    self->lo[0] = box[0], self->lo[1] = box[1], self->lo[2] = box[2];
    self->hi[0] = box[3], self->hi[1] = box[4], self->hi[2] = box[5];
    Py_END_ALLOW_THREADS
    self->non_finite = rows - N;
    /* About 32 points a cell over the area of the bounds' two largest sides
     * (a camera sees surfaces), at least twice the radius and 1 mm, at most
     * 0.2 m; cells along an axis stay below 2**20, so keys fit in 63 bits. */
    double ext[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < 3 && N > 0; ++a) ext[a] = self->hi[a] - self->lo[a];
    double e0 = fmax(ext[0], fmax(ext[1], ext[2])), e2 = fmin(ext[0], fmin(ext[1], ext[2]));
    double e1 = ext[0] + ext[1] + ext[2] - e0 - e2;
    double h = N > 0 ? sqrt(32.0 * fmax(e0 * e1, 1e-6) / (double)N) : 0.05;
    h = fmin(fmax(h, fmax(2.0 * radius, 1e-3)), fmax(0.2, 2.0 * radius));
    for (int a = 0; a < 3 && N > 0; ++a)
        if (ext[a] / h > 1048575.0) h = ext[a] / 1048575.0;
    self->h = h;
    self->inv_h = 1.0 / h;
    for (int a = 0; a < 3; ++a) {
        self->dims[a] = N > 0 ? (int64_t)floor((self->hi[a] - self->lo[a]) / h) + 1 : 1;
        self->bdims[a] = (self->dims[a] + BLOCK - 1) / BLOCK;
    }
    self->N = N;
    /* Dense while the box's cells (whole blocks) number at most 8 a point
     * and 2**26 (the count array 4 bytes a cell); hashed beyond. */
    int64_t total = self->bdims[0] * self->bdims[1] * self->bdims[2] * BLOCK * BLOCK * BLOCK;
    int dense = total <= 8 * (int64_t)N + 4096 && total <= ((int64_t)1 << 26);
    size_t rows1 = (size_t)(rows > 0 ? rows : 1), key_size, cells_size = 0;
    self->p = spare_take((size_t)N * 3 * sizeof(double), &self->p_size);
    self->order = spare_take((size_t)N * sizeof(int32_t), &self->order_size);
    void *key_of = spare_take(rows1 * (dense ? sizeof(uint32_t) : sizeof(int64_t)), &key_size);
    void *cells = spare_take(dense ? (size_t)total * sizeof(int32_t) : rows1 * sizeof(int32_t),
                             &cells_size);
    int failed = !self->p || !self->order || !key_of || !cells;
    if (!failed) {
        Py_BEGIN_ALLOW_THREADS
        self->dense = dense;
        failed = (dense ? build_dense(self, in, rows, key_of, cells, total)
                        : build_hashed(self, in, rows, key_of, cells)) < 0 ||
                 block_index(self) < 0;
        Py_END_ALLOW_THREADS
    }
    spare_give(cells, cells_size);
    spare_give(key_of, key_size);
    PyBuffer_Release(&view);
    if (failed) {
        PyErr_NoMemory();
        return -1;
    }
    if (model_o != Py_None) return self_filter(self, model_o, xwf_o, F, geoms_o, thr_o);
    return 0;
}

/* World box of a bounded geometry: its local box turned and moved to W. */
static void world_box(const double *X, const double *box_G, double c[3], double half[3]) {
    gc_to_world(X, box_G, c);
    for (int r = 0; r < 3; ++r)
        half[r] = fabs(X[4 * r]) * box_G[3] + fabs(X[4 * r + 1]) * box_G[4] +
                  fabs(X[4 * r + 2]) * box_G[5];
}

typedef struct {
    double distance;    /* signed distance from the geometry to the point */
    int64_t index;      /* the point, in input order; -1 when none */
    double p_GN[3], grad_W[3], p_WP[3];
    int unique;
} cloud_hit;

/* The squared gap from point p (in G) to the box (center, half) box_G. */
static inline double box_gap2(const double *box_G, const double p[3]) {
    double gap2 = 0.0;
    for (int a = 0; a < 3; ++a) {
        double e = fabs(p[a] - box_G[a]) - box_G[3 + a];
        if (e > 0.0) gap2 += e * e;
    }
    return gap2;
}

/* The greatest height of point p (in G) above a hull's face planes, its face
 * in *top (when top is not NULL); it stops at the first height that exceeds
 * `bound` by more than a hair of rounding. The planes hull_beyond samples
 * come first (a point beyond reach mostly leaves there), then every plane:
 * the greatest height is the same. */
static double highest_plane(const gc_shape *shape, const double p[3], double bound, int *top) {
    double h = -INFINITY;
    int best = -1;
    int step = shape->nt > HULL_CELL_PLANES ? shape->nt / HULL_CELL_PLANES : 1;
    for (int stride = step; stride >= 1; stride = stride > 1 ? 1 : 0) {
        for (int t = 0; t < shape->nt; t += stride) {
            const double *n = shape->tri_n + 3 * t;
            double height = n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - shape->tri_d[t];
            if (height > h) {
                h = height;
                best = t;
                if (h - 1e-12 * (1.0 + fabs(h)) > bound) goto done;
            }
        }
    }
done:
    if (top != NULL) *top = best;
    return h;
}

/* A lower bound on the signed distance from the geometry to world point q, or
 * any number above `bound` once one is known to exceed it; cheap next to the
 * point kernel: the gap to the geometry's box in G, then for a hull the
 * height of q above its face planes (the distance is at least the greatest
 * outside, and equals it inside), stopping at the first plane above `bound`. */
static double lower_bound(const gc_shape *shape, const double *box_G, const double *X_WG,
                          const double *q, double bound) {
    if (shape->kind == GC_HALFSPACE) return -INFINITY;
    double p[3];
    gc_to_local(X_WG, q, p);
    double gap2 = box_gap2(box_G, p);
    /* Inside the box the point may be inside the geometry: no bound but the planes'. */
    double low = gap2 > 0.0 ? sqrt(gap2) : -INFINITY;
    if (low > bound || shape->kind != GC_CONVEX || shape->nt <= 0) return low;
    double h = highest_plane(shape, p, bound, NULL);
    h -= 1e-12 * (1.0 + fabs(h));
    return h > low ? h : low;
}

/* Whether the point kernel's answer for a Convex at Q (in G) is known from
 * its face planes alone: when Q is on or below every plane, the kernel
 * (convex_in_G, inside or on the boundary) answers the greatest height,
 * computed here by the same operations; *h is set to it. 0 as soon as Q is
 * above a plane: the kernel then looks for the nearest boundary point. */
static int convex_inside(const gc_shape *shape, const double p[3], double *h) {
    double top = 0.0;
    for (int t = 0; t < shape->nt; ++t) {
        double height = gc_dot(shape->tri_n + 3 * t, p) - shape->tri_d[t];
        if (height > 0.0) return 0;
        if (t == 0 || height > top) top = height;
    }
    *h = top;
    return 1;
}

/* The squared gap between the world box cb (low, high) of a cell's points,
 * turned into G, and the geometry's box in G (0 when they meet). */
static double cell_gap2(const gc_shape *shape, const double *box_G, const double *X_WG,
                        const double *cb) {
    double c_W[3], h_W[3], c_G[3];
    for (int a = 0; a < 3; ++a) {
        c_W[a] = 0.5 * (cb[a] + cb[3 + a]);
        h_W[a] = 0.5 * (cb[3 + a] - cb[a]);
    }
    gc_to_local(X_WG, c_W, c_G);
    double gap2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        /* Column i of R_WG is G's axis i in W. */
        double h = fabs(X_WG[i]) * h_W[0] + fabs(X_WG[4 + i]) * h_W[1] +
                   fabs(X_WG[8 + i]) * h_W[2];
        double e = fabs(c_G[i] - box_G[i]) - box_G[3 + i] - h;
        if (e > 0.0) gap2 += e * e;
    }
    return gap2;
}

/* A lower bound on the distance from the geometry to any point of a cell
 * whose points lie in the world box cb: that gap, shrunk against rounding;
 * -inf when the boxes meet. */
static double cell_lower_bound(const gc_shape *shape, const double *box_G, const double *X_WG,
                               const double *cb) {
    if (shape->kind == GC_HALFSPACE) return -INFINITY;
    double gap2 = cell_gap2(shape, box_G, X_WG, cb);
    return gap2 > 0.0 ? sqrt(gap2) * (1.0 - 1e-9) - 1e-12 : -INFINITY;
}

/* Whether a squared gap exceeds `bound` as cell_lower_bound shrinks a gap
 * against rounding: sqrt(gap2) (1 - 1e-9) - 1e-12 > bound, without the root. */
static inline int gap2_beyond(double gap2, double bound) {
    if (!(gap2 > 0.0)) return 0;
    double t = bound + 1e-12;
    return t < 0.0 || gap2 * ((1.0 - 1e-9) * (1.0 - 1e-9)) > t * t;
}

/* cell_lower_bound(...) > bound, without the root. */
static inline int cell_beyond(const gc_shape *shape, const double *box_G, const double *X_WG,
                              const double *cb, double bound) {
    return shape->kind != GC_HALFSPACE && gap2_beyond(cell_gap2(shape, box_G, X_WG, cb), bound);
}

typedef struct {
    double gap;         /* distance from the cell to the geometry's world box */
    Py_ssize_t slot;
} cell_ref;

static int cmp_cell(const void *a, const void *b) {
    double x = ((const cell_ref *)a)->gap, y = ((const cell_ref *)b)->gap;
    if (x < y) return -1;
    if (x > y) return 1;
    Py_ssize_t s = ((const cell_ref *)a)->slot, t = ((const cell_ref *)b)->slot;
    return (s > t) - (s < t);
}

/* The occupied cells within `bound` of the world box (center, half), nearest
 * first when `sort`; -1 when out of memory. *cells is malloc'd (free it). */
static Py_ssize_t cells_near(const CloudObject *c, const double center[3], const double half[3],
                             double bound, int sort, cell_ref **cells) {
    *cells = NULL;
    int64_t from[3], to[3];
    double reach_extra = bound > 0.0 ? bound : 0.0;
    for (int a = 0; a < 3; ++a) {
        double lo = center[a] - half[a] - reach_extra, hi = center[a] + half[a] + reach_extra;
        if (hi < c->lo[a] || lo > c->hi[a]) return 0;
        from[a] = cell_index(c, a, lo);
        to[a] = cell_index(c, a, hi);
    }
    Py_ssize_t count = 0, capacity = 0;
    cell_ref *out = NULL;
    for (int64_t bz = from[2] / BLOCK; bz <= to[2] / BLOCK; ++bz)
    for (int64_t by = from[1] / BLOCK; by <= to[1] / BLOCK; ++by)
    for (int64_t bx = from[0] / BLOCK; bx <= to[0] / BLOCK; ++bx) {
        Py_ssize_t b = block_slot(c, block_key(c, bx, by, bz));
        if (c->bkeys[b] == -1) continue;
        for (int32_t k = 0; k < c->bcount[b]; ++k) {
            Py_ssize_t s = c->bcells[c->bstart[b] + k];
            const int32_t *xyz = c->bxyz + 3 * (Py_ssize_t)(c->bstart[b] + k);
            if (xyz[0] < from[0] || xyz[0] > to[0] || xyz[1] < from[1] || xyz[1] > to[1] ||
                xyz[2] < from[2] || xyz[2] > to[2] || c->count[s] == 0)
                continue;
            /* The gap from the cell's points' bounds to the world box; a cell
             * meeting the box may hold points inside the geometry, at
             * negative distance. */
            const double *cb = c->cell_box + 6 * s;
            double gap2 = 0.0;
            for (int a = 0; a < 3; ++a) {
                double e = fmax(cb[a] - (center[a] + half[a]), (center[a] - half[a]) - cb[3 + a]);
                if (e > 0.0) gap2 += e * e;
            }
            double gap = gap2 > 0.0 ? sqrt(gap2) * (1.0 - 1e-12) : -INFINITY;
            if (gap > bound) continue;
            if (count == capacity) {
                capacity = capacity ? 2 * capacity : 64;
                cell_ref *grown = realloc(out, (size_t)capacity * sizeof(cell_ref));
                if (grown == NULL) {
                    free(out);
                    return -1;
                }
                out = grown;
            }
            out[count].gap = gap;
            out[count].slot = s;
            ++count;
        }
    }
    if (sort) qsort(out, (size_t)count, sizeof(cell_ref), cmp_cell);

    *cells = out;
    return count;
}

/* Whether the gap from the world box (center, half) to box cb (low, high)
 * exceeds `bound` beyond rounding: the gap as cell_lower_bound shrinks it,
 * compared squared (no root). */
static inline int box_beyond(const double center[3], const double half[3], const double *cb,
                             double bound) {
    double gap2 = 0.0;
    for (int a = 0; a < 3; ++a) {
        double above = cb[a] - (center[a] + half[a]), below = (center[a] - half[a]) - cb[3 + a];
        double e = above > below ? above : below;
        if (e > 0.0) gap2 += e * e;
    }
    return gap2_beyond(gap2, bound);
}

/* Whether a hull's face planes put every point of box cb (world low, high)
 * beyond `bound` of it: some plane above which the whole box lies higher
 * than `bound` (the box's lowest corner over the plane, taken with the
 * box's half extents projected exactly onto the plane's normal in W). */
static int hull_beyond(const gc_shape *shape, const double *X_WG, const double *cb,
                       double bound) {
    double c_W[3], h_W[3], c_G[3];
    for (int a = 0; a < 3; ++a) {
        c_W[a] = 0.5 * (cb[a] + cb[3 + a]);
        h_W[a] = 0.5 * (cb[3 + a] - cb[a]);
    }
    gc_to_local(X_WG, c_W, c_G);
    int step = shape->nt > HULL_CELL_PLANES ? shape->nt / HULL_CELL_PLANES : 1;
    for (int t = 0; t < shape->nt; t += step) {
        const double *n = shape->tri_n + 3 * t;
        double height = n[0] * c_G[0] + n[1] * c_G[1] + n[2] * c_G[2] - shape->tri_d[t];
        if (height <= bound) continue;
        /* Row j of R_WG is W's axis j in G. */
        double r = 0.0;
        for (int j = 0; j < 3; ++j)
            r += fabs(X_WG[4 * j] * n[0] + X_WG[4 * j + 1] * n[1] + X_WG[4 * j + 2] * n[2]) *
                 h_W[j];
        height -= r;
        if (height - 1e-12 * (1.0 + fabs(height) + r) > bound) return 1;
    }
    return 0;
}

/* A hull's verdict on world point q from its face planes: 0 when the point
 * is beyond `bound` (lower_bound's test), 1 when it is within and *distance
 * holds its distance, 2 when the point kernel must decide. Within: the
 * point lies above the face of greatest height h, by at most `bound` less a
 * margin against rounding, and over the inside of that face's triangle:
 * then the face's point below it is the hull's nearest, at distance h. */
static int hull_point_verdict(const gc_shape *shape, const double *box_G, const double *X_WG,
                              const double *q, double bound, double *distance) {
    double p[3];
    gc_to_local(X_WG, q, p);
    double gap2 = box_gap2(box_G, p);
    if (gap2 > 0.0 && sqrt(gap2) > bound) return 0;
    int top = -1;
    double h = highest_plane(shape, p, bound, &top);
    if (h - 1e-12 * (1.0 + fabs(h)) > bound) return 0;
    if (!(h > 1e-9 && h < bound - 1e-9 * (1.0 + fabs(bound)))) return 2;
    const double *n = shape->tri_n + 3 * top;
    const int *tri = shape->tri + 3 * top;
    double x[3];
    for (int a = 0; a < 3; ++a) x[a] = p[a] - h * n[a];
    for (int e = 0; e < 3; ++e) {
        const double *a = shape->v + 3 * tri[e], *b = shape->v + 3 * tri[(e + 1) % 3];
        double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double ax[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
        double cross[3] = {ab[1] * ax[2] - ab[2] * ax[1], ab[2] * ax[0] - ab[0] * ax[2],
                           ab[0] * ax[1] - ab[1] * ax[0]};
        /* Strictly inside the edge, by a margin against rounding. */
        if (!(gc_dot(cross, n) > 1e-9 * gc_dot(ab, ab))) return 2;
    }
    *distance = h;
    return 1;
}

/* The number of block (bx, by, bz), -1 when it holds no point. */
static inline Py_ssize_t block_at(const CloudObject *c, int64_t bx, int64_t by, int64_t bz) {
    int64_t key = block_key(c, bx, by, bz);
    if (c->bdir != NULL) return c->bdir[key];
    return c->rank_of[block_slot(c, key)];
}

/* Some point of the cloud whose signed distance to the geometry at X_WG
 * (world box center, half) is at most `bound`, the first found: its index
 * and distance in *hit (no witnesses); hit->index -1 when none. The blocks the grown box reaches, each dropped whole when
 * its points' bounds are beyond reach of the world box or of the geometry's
 * own box in G; then the cells of a block kept, by the same two tests; then
 * the points of a cell kept, by lower_bound and the point kernel. */
static int any_near(const CloudObject *c, const gc_shape *shape, const double *box_G,
                    const double *X_WG, const double center[3], const double half[3],
                    double bound, cloud_hit *hit) {
    int64_t from[3], to[3];
    for (int a = 0; a < 3; ++a) {
        /* The reach along the axis, grown by a hair against the rounding of
         * the world box (the tests below are the exact ones). */
        double extra = (bound > 0.0 ? bound : 0.0) +
                       1e-9 * (1.0 + fabs(center[a]) + half[a] + fabs(bound));
        double lo = center[a] - half[a] - extra, hi = center[a] + half[a] + extra;
        if (hi < c->lo[a] || lo > c->hi[a]) return GC_OK;
        from[a] = cell_index(c, a, lo) / BLOCK;
        to[a] = cell_index(c, a, hi) / BLOCK;
    }
    if (c->bsum != NULL) {
        /* The occupied blocks of the range, by inclusion and exclusion. */
        int64_t sx = c->bdims[0] + 1, sxy = sx * (c->bdims[1] + 1);
        const int32_t *S = c->bsum;
        int64_t x0 = from[0], x1 = to[0] + 1, y0 = from[1] * sx, y1 = (to[1] + 1) * sx,
                z0 = from[2] * sxy, z1 = (to[2] + 1) * sxy;
        int32_t n = S[z1 + y1 + x1] - S[z1 + y1 + x0] - S[z1 + y0 + x1] + S[z1 + y0 + x0] -
                    S[z0 + y1 + x1] + S[z0 + y1 + x0] + S[z0 + y0 + x1] - S[z0 + y0 + x0];
        if (n == 0) return GC_OK;
    }
    for (int64_t bz = from[2]; bz <= to[2]; ++bz)
    for (int64_t by = from[1]; by <= to[1]; ++by)
    for (int64_t word = from[0] / 64; word <= to[0] / 64; ++word) {
        /* The occupied blocks of the row's word within [from, to] along x
         * (every block of it without a directory). */
        uint64_t bits = ~(uint64_t)0;
        if (c->bbits != NULL) bits = c->bbits[(bz * c->bdims[1] + by) * c->row_words + word];
        int64_t first = word * 64, last = first + 63;
        if (from[0] > first) bits &= ~(uint64_t)0 << (from[0] - first);
        if (to[0] < last) bits &= ~(uint64_t)0 >> (last - to[0]);
        for (; bits; bits &= bits - 1) {
        int64_t bx = first + __builtin_ctzll(bits);
        Py_ssize_t b = block_at(c, bx, by, bz);
        if (b < 0) continue;
        const block_info *info = &c->blocks[b];
        if (box_beyond(center, half, info->box, bound) ||
            cell_beyond(shape, box_G, X_WG, info->box, bound))
            continue;
        const int32_t *slots = c->bcells + info->start;
        for (int32_t k = 0; k < info->count; ++k) {
            Py_ssize_t s = slots[k];
            const double *cb = c->cell_box + 6 * s;
            if (c->count[s] == 0 || box_beyond(center, half, cb, bound) ||
                cell_beyond(shape, box_G, X_WG, cb, bound))
                continue;
            if (shape->kind == GC_CONVEX && hull_beyond(shape, X_WG, cb, bound)) continue;
            const double *q = c->p + 3 * (Py_ssize_t)c->start[s];
            for (int32_t m = 0; m < c->count[s]; ++m, q += 3) {
                double distance;
                if (shape->kind == GC_CONVEX && shape->nt > 0) {
                    int verdict = hull_point_verdict(shape, box_G, X_WG, q, bound, &distance);
                    if (verdict == 0) continue;
                    if (verdict == 1) goto found;
                } else if (lower_bound(shape, box_G, X_WG, q, bound) > bound) {
                    continue;
                }
                gc_point_result r;
                int status = gc_point_distance(shape, X_WG, q, &r);
                if (status != GC_OK) return status;
                if (r.distance > bound) continue;
                distance = r.distance;
            found:
                hit->distance = distance;
                hit->index = c->order[c->start[s] + m];
                return GC_OK;
            }
        }
        }
    }
    return GC_OK;
}

/* The nearest point of the cloud to geometry g at X_WG whose signed distance
 * is at most `threshold` (any such point when `first`); hit->index -1 when
 * none. Returns GC_OK, the kernel's status when it handles no such shape, or
 * -1 when out of memory. */
static int nearest(const CloudObject *c, const gc_shape *shape, const double *box_G,
                   const double *X_WG, double threshold, int first, cloud_hit *hit) {
    hit->index = -1;
    hit->distance = INFINITY;
    if (c->N == 0 || isnan(threshold)) return GC_OK;
    double center[3], half[3];
    if (shape->kind == GC_HALFSPACE) {
        for (int a = 0; a < 3; ++a) {
            center[a] = 0.5 * (c->lo[a] + c->hi[a]);
            half[a] = INFINITY;
        }
    } else {
        world_box(X_WG, box_G, center, half);
    }
    double bound = threshold;
    if (first) return any_near(c, shape, box_G, X_WG, center, half, bound, hit);
    cell_ref *cells;
    Py_ssize_t count = cells_near(c, center, half, bound, 1, &cells);
    if (count < 0) return -1;
    int status = GC_OK;
    for (Py_ssize_t k = 0; k < count && status == GC_OK; ++k) {
        if (cells[k].gap > bound) break;
        Py_ssize_t s = cells[k].slot;
        if (cell_lower_bound(shape, box_G, X_WG, c->cell_box + 6 * s) > bound) continue;
        const double *q = c->p + 3 * (Py_ssize_t)c->start[s];
        for (int32_t m = 0; m < c->count[s]; ++m, q += 3) {
            if (lower_bound(shape, box_G, X_WG, q, bound) > bound) continue;
            gc_point_result r;
            status = gc_point_distance(shape, X_WG, q, &r);
            if (status != GC_OK) break;
            if (r.distance > bound) continue;
            int64_t index = c->order[c->start[s] + m];
            /* Ties go to the first point given. */
            if (hit->index >= 0 && (r.distance > hit->distance ||
                                    (r.distance == hit->distance && index > hit->index)))
                continue;
            hit->distance = r.distance;
            hit->index = index;
            for (int a = 0; a < 3; ++a) {
                hit->p_GN[a] = r.p_GN[a];
                hit->grad_W[a] = r.grad[a];
                hit->p_WP[a] = q[a];
            }
            hit->unique = r.unique;
            if (first) {
                free(cells);
                return GC_OK;
            }
            bound = r.distance;
        }
    }
    free(cells);
    return status;
}

typedef struct {
    gc_model_view model;
    Py_buffer xwf, geoms, thresholds;
    Py_ssize_t F, K, R;
    int got;
} query_args;

static void release_args(query_args *a) {
    if (a->got >= 3) PyBuffer_Release(&a->thresholds);
    if (a->got >= 2) PyBuffer_Release(&a->geoms);
    if (a->got >= 1) PyBuffer_Release(&a->xwf);
    a->got = 0;
}

static int parse_args(PyObject *model_o, PyObject *xwf_o, Py_ssize_t F, PyObject *geoms_o,
                      PyObject *thr_o, query_args *a) {
    a->got = 0;
    if (gc_model_get_view(model_o, &a->model) < 0) return -1;
    if (F <= a->model.max_slot) {
        PyErr_Format(PyExc_ValueError, "F must exceed the largest frame slot %d",
                     a->model.max_slot);
        return -1;
    }
    if (gc_get_buffer(xwf_o, &a->xwf, 'd', -1, "X_WF") < 0) return -1;
    a->got = 1;
    a->F = F;
    a->K = a->xwf.len / (F * 16 * 8);
    if (a->xwf.len != a->K * F * 16 * 8) {
        release_args(a);
        PyErr_Format(PyExc_ValueError, "X_WF must hold (K, %zd, 4, 4) poses", F);
        return -1;
    }
    if (gc_get_buffer(geoms_o, &a->geoms, 'i', -1, "geometries") < 0) {
        release_args(a);
        return -1;
    }
    a->got = 2;
    a->R = a->geoms.len / 4;
    if (gc_get_buffer(thr_o, &a->thresholds, 'd', a->R, "thresholds") < 0) {
        release_args(a);
        return -1;
    }
    a->got = 3;
    const int *g = a->geoms.buf;
    for (Py_ssize_t r = 0; r < a->R; ++r) {
        if (g[r] < 0 || g[r] >= a->model.G) {
            release_args(a);
            PyErr_Format(PyExc_ValueError, "geometries[%zd] = %d is not a geometry of the model",
                         r, g[r]);
            return -1;
        }
    }
    return 0;
}

static PyObject *not_handled(int g) {
    PyErr_Format(PyExc_ValueError, "geometry %d: the point kernel handles no such shape "
                 "(a Mesh has no inside)", g);
    return NULL;
}

/* any_within(model, X_WF, F, geometries, thresholds) -> bytes (K,) of 0/1. */
static PyObject *cloud_any_within(CloudObject *self, PyObject *args) {
    PyObject *model_o, *xwf_o, *geoms_o, *thr_o;
    Py_ssize_t F;
    if (!PyArg_ParseTuple(args, "OOnOO", &model_o, &xwf_o, &F, &geoms_o, &thr_o)) return NULL;
    query_args a;
    if (parse_args(model_o, xwf_o, F, geoms_o, thr_o, &a) < 0) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, a.K);
    if (out == NULL) {
        release_args(&a);
        return NULL;
    }
    unsigned char *hit = (unsigned char *)PyBytes_AS_STRING(out);
    const int *geoms = a.geoms.buf;
    const double *thr = a.thresholds.buf;
    int bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < a.K && bad == -1; ++k) {
        const double *X_WF = (const double *)a.xwf.buf + (size_t)k * (size_t)a.F * 16;
        hit[k] = 0;
        for (Py_ssize_t r = 0; r < a.R && !hit[k]; ++r) {
            int g = geoms[r];
            double X_WG[16];
            gc_compose(X_WF + 16 * a.model.frame_slot[g], a.model.X_FG + 16 * g, X_WG);
            cloud_hit h;
            int status = nearest(self, &a.model.shapes[g], a.model.box_G + 6 * g, X_WG, thr[r],
                                 1, &h);
            if (status != GC_OK) {
                bad = status < 0 ? -2 : g;
                break;
            }
            if (h.index >= 0) hit[k] = 1;
        }
    }
    Py_END_ALLOW_THREADS
    release_args(&a);
    if (bad != -1) {
        Py_DECREF(out);
        return bad == -2 ? PyErr_NoMemory() : not_handled(bad);
    }
    return out;
}

/* nearest(model, X_WF, F, geometries, thresholds) -> (bytes distance (K, R) float64,
 * bytes index (K, R) int64, bytes p_GN (K, R, 3), bytes grad_W (K, R, 3),
 * bytes unique (K, R) uint8): per configuration and geometry, the nearest point
 * within the threshold (index -1, distance inf when none). */
static PyObject *cloud_nearest(CloudObject *self, PyObject *args) {
    PyObject *model_o, *xwf_o, *geoms_o, *thr_o;
    Py_ssize_t F;
    if (!PyArg_ParseTuple(args, "OOnOO", &model_o, &xwf_o, &F, &geoms_o, &thr_o)) return NULL;
    query_args a;
    if (parse_args(model_o, xwf_o, F, geoms_o, thr_o, &a) < 0) return NULL;
    Py_ssize_t M = a.K * a.R;
    PyObject *dist = PyBytes_FromStringAndSize(NULL, M * 8);
    PyObject *index = PyBytes_FromStringAndSize(NULL, M * 8);
    PyObject *pgn = PyBytes_FromStringAndSize(NULL, M * 24);
    PyObject *grad = PyBytes_FromStringAndSize(NULL, M * 24);
    PyObject *uniq = PyBytes_FromStringAndSize(NULL, M);
    PyObject *pwp = PyBytes_FromStringAndSize(NULL, M * 24);
    if (!dist || !index || !pgn || !grad || !uniq || !pwp) {
        Py_XDECREF(pwp);
        Py_XDECREF(dist);
        Py_XDECREF(index);
        Py_XDECREF(pgn);
        Py_XDECREF(grad);
        Py_XDECREF(uniq);
        release_args(&a);
        return NULL;
    }
    double *d_out = (double *)PyBytes_AS_STRING(dist);
    int64_t *i_out = (int64_t *)PyBytes_AS_STRING(index);
    double *p_out = (double *)PyBytes_AS_STRING(pgn);
    double *g_out = (double *)PyBytes_AS_STRING(grad);
    unsigned char *u_out = (unsigned char *)PyBytes_AS_STRING(uniq);
    double *w_out = (double *)PyBytes_AS_STRING(pwp);
    const int *geoms = a.geoms.buf;
    const double *thr = a.thresholds.buf;
    int bad = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < a.K && bad == -1; ++k) {
        const double *X_WF = (const double *)a.xwf.buf + (size_t)k * (size_t)a.F * 16;
        for (Py_ssize_t r = 0; r < a.R; ++r) {
            int g = geoms[r];
            Py_ssize_t m = k * a.R + r;
            double X_WG[16];
            gc_compose(X_WF + 16 * a.model.frame_slot[g], a.model.X_FG + 16 * g, X_WG);
            cloud_hit h;
            int status = nearest(self, &a.model.shapes[g], a.model.box_G + 6 * g, X_WG, thr[r],
                                 0, &h);
            if (status != GC_OK) {
                bad = status < 0 ? -2 : g;
                break;
            }
            d_out[m] = h.distance;
            i_out[m] = h.index;
            u_out[m] = (unsigned char)(h.index >= 0 && h.unique);
            for (int c = 0; c < 3; ++c) {
                p_out[3 * m + c] = h.index >= 0 ? h.p_GN[c] : 0.0;
                g_out[3 * m + c] = h.index >= 0 ? h.grad_W[c] : 0.0;
                w_out[3 * m + c] = h.index >= 0 ? h.p_WP[c] : 0.0;
            }
        }
    }
    Py_END_ALLOW_THREADS
    release_args(&a);
    if (bad != -1) {
        Py_DECREF(dist);
        Py_DECREF(index);
        Py_DECREF(pgn);
        Py_DECREF(grad);
        Py_DECREF(uniq);
        Py_DECREF(pwp);
        return bad == -2 ? PyErr_NoMemory() : not_handled(bad);
    }
    return Py_BuildValue("(NNNNNN)", dist, index, pgn, grad, uniq, pwp);
}

/* Mark in `mask` (N, by input index) the points some listed geometry of `a`
 * (one configuration) comes within its threshold of. Runs without the GIL.
 * Returns -1 when done, -2 when out of memory, or the geometry the point
 * kernel handles no such shape of. */
static int within_mask(const CloudObject *self, const query_args *a, unsigned char *mask) {
    const int *geoms = a->geoms.buf;
    const double *thr = a->thresholds.buf;
    for (Py_ssize_t r = 0; r < a->R; ++r) {
        int g = geoms[r];
        double X_WG[16], center[3], half[3];
        const double *X_WF = (const double *)a->xwf.buf;
        gc_compose(X_WF + 16 * a->model.frame_slot[g], a->model.X_FG + 16 * g, X_WG);
        const gc_shape *shape = &a->model.shapes[g];
        const double *box_G = a->model.box_G + 6 * g;
        double bound = thr[r];
        if (shape->kind == GC_HALFSPACE) {
            /* Every point. */
            for (Py_ssize_t s = 0; s < self->cap; ++s)
                for (int32_t m = 0; m < self->count[s]; ++m) {
                    Py_ssize_t n = self->start[s] + m;
                    gc_point_result pr;
                    if (gc_point_distance(shape, X_WG, self->p + 3 * n, &pr) != GC_OK) return g;
                    if (pr.distance <= bound) mask[self->order[n]] = 1;
                }
            continue;
        }
        if (self->N == 0) continue;
        world_box(X_WG, box_G, center, half);
        cell_ref *cells;
        Py_ssize_t count = cells_near(self, center, half, bound, 0, &cells);
        if (count < 0) return -2;
        for (Py_ssize_t k = 0; k < count; ++k) {
            Py_ssize_t s = cells[k].slot;
            if (cell_lower_bound(shape, box_G, X_WG, self->cell_box + 6 * s) > bound) continue;
            for (int32_t m = 0; m < self->count[s]; ++m) {
                Py_ssize_t n = self->start[s] + m;
                const double *q = self->p + 3 * n;
                if (mask[self->order[n]] || lower_bound(shape, box_G, X_WG, q, bound) > bound)
                    continue;
                if (shape->kind == GC_CONVEX && shape->nt > 0) {
                    /* Inside the hull the verdict needs no nearest boundary point. */
                    double p_GQ[3], h;
                    gc_to_local(X_WG, q, p_GQ);
                    if (convex_inside(shape, p_GQ, &h)) {
                        if (h <= bound) mask[self->order[n]] = 1;
                        continue;
                    }
                }
                gc_point_result pr;
                if (gc_point_distance(shape, X_WG, q, &pr) != GC_OK) {
                    free(cells);
                    return g;
                }
                if (pr.distance <= bound) mask[self->order[n]] = 1;
            }
        }
        free(cells);
    }
    return -1;
}

/* within(model, X_WF (1 configuration), F, geometries, thresholds) -> bytes (N,) of 0/1
 * in input order: whether some listed geometry is within its threshold of the point. */
static PyObject *cloud_within(CloudObject *self, PyObject *args) {
    PyObject *model_o, *xwf_o, *geoms_o, *thr_o;
    Py_ssize_t F;
    if (!PyArg_ParseTuple(args, "OOnOO", &model_o, &xwf_o, &F, &geoms_o, &thr_o)) return NULL;
    query_args a;
    if (parse_args(model_o, xwf_o, F, geoms_o, thr_o, &a) < 0) return NULL;
    if (a.K != 1) {
        release_args(&a);
        PyErr_SetString(PyExc_ValueError, "within takes the poses of one configuration");
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, self->N);
    if (out == NULL) {
        release_args(&a);
        return NULL;
    }
    unsigned char *mask = (unsigned char *)PyBytes_AS_STRING(out);
    memset(mask, 0, (size_t)self->N);
    int bad;
    Py_BEGIN_ALLOW_THREADS
    bad = within_mask(self, &a, mask);
    Py_END_ALLOW_THREADS
    release_args(&a);
    if (bad != -1) {
        Py_DECREF(out);
        return bad == -2 ? PyErr_NoMemory() : not_handled(bad);
    }
    return out;
}

/* The self filter of a construction: the points within the listed geometries'
 * thresholds leave the cloud before anyone sees it. Each cell keeps its
 * slot and the start of its run; the points kept move up within the run
 * (the rest of the run is left unused), their input indices renumbered to
 * their ranks among the points kept, and a cell that lost points gets its
 * bounds again. 0, or -1 with an exception set. */
static int self_filter(CloudObject *self, PyObject *model_o, PyObject *xwf_o, Py_ssize_t F,
                       PyObject *geoms_o, PyObject *thr_o) {
    query_args a;
    if (parse_args(model_o, xwf_o, F, geoms_o, thr_o, &a) < 0) return -1;
    if (a.K != 1) {
        release_args(&a);
        PyErr_SetString(PyExc_ValueError, "the self filter takes the poses of one configuration");
        return -1;
    }
    Py_ssize_t N = self->N;
    unsigned char *mask = calloc((size_t)(N > 0 ? N : 1), 1);
    int32_t *rank = malloc((size_t)(N > 0 ? N : 1) * sizeof(int32_t));
    if (mask == NULL || rank == NULL) {
        free(mask);
        free(rank);
        release_args(&a);
        PyErr_NoMemory();
        return -1;
    }
    int bad;
    Py_BEGIN_ALLOW_THREADS
    bad = within_mask(self, &a, mask);
    if (bad == -1) {
        int32_t kept = 0;
        for (Py_ssize_t i = 0; i < N; ++i) rank[i] = mask[i] ? -1 : kept++;
        if (kept < N) {
            for (Py_ssize_t s = 0; s < self->cap; ++s) {
                int32_t from = self->start[s], to = from;
                int lost = 0;
                for (int32_t m = 0; m < self->count[s]; ++m) {
                    Py_ssize_t n = from + m;
                    int32_t i = self->order[n];
                    if (mask[i]) {
                        lost = 1;
                        continue;
                    }
                    if (to != n) memcpy(self->p + 3 * (Py_ssize_t)to, self->p + 3 * n,
                                        3 * sizeof(double));
                    self->order[to++] = rank[i];
                }
                self->count[s] = to - from;
                if (!lost) continue;
                double *b = self->cell_box + 6 * s;
                b[0] = b[1] = b[2] = INFINITY;
                b[3] = b[4] = b[5] = -INFINITY;
                for (int32_t n = from; n < to; ++n) {
                    const double *q = self->p + 3 * (Py_ssize_t)n;
                    for (int c = 0; c < 3; ++c) {
                        b[c] = q[c] < b[c] ? q[c] : b[c];
                        b[3 + c] = q[c] > b[3 + c] ? q[c] : b[3 + c];
                    }
                }
            }
            fill_block_bounds(self);
            self->self_filtered = N - kept;
            self->N = kept;
        }
    }
    Py_END_ALLOW_THREADS
    free(mask);
    free(rank);
    release_args(&a);
    if (bad != -1) {
        if (bad == -2) PyErr_NoMemory();
        else not_handled(bad);
        return -1;
    }
    return 0;
}

static PyObject *cloud_size(CloudObject *self, void *closure) {
    return PyLong_FromSsize_t(self->N);
}

static PyObject *cloud_non_finite(CloudObject *self, void *closure) {
    return PyLong_FromSsize_t(self->non_finite);
}

/* points() -> bytes (N, 3) float64 of the points in index order. */
static PyObject *cloud_points(CloudObject *self, PyObject *unused) {
    PyObject *out = PyBytes_FromStringAndSize(NULL, self->N * 24);
    if (out == NULL) return NULL;
    double *p = (double *)PyBytes_AS_STRING(out);
    for (Py_ssize_t s = 0; s < self->cap; ++s)
        for (int32_t m = 0; m < self->count[s]; ++m) {
            Py_ssize_t n = self->start[s] + m;
            memcpy(p + 3 * (Py_ssize_t)self->order[n], self->p + 3 * n, 3 * sizeof(double));
        }
    return out;
}

static PyObject *cloud_bounds(CloudObject *self, void *closure) {
    if (self->N == 0) Py_RETURN_NONE;
    return Py_BuildValue("(ddd)(ddd)", self->lo[0], self->lo[1], self->lo[2], self->hi[0],
                         self->hi[1], self->hi[2]);
}

static PyObject *cloud_self_filtered(CloudObject *self, void *closure) {
    return PyLong_FromSsize_t(self->self_filtered);
}

static PyObject *cloud_dense(CloudObject *self, void *closure) {
    return PyBool_FromLong(self->dense);
}

static PyObject *cloud_block_directory(CloudObject *self, void *closure) {
    return PyBool_FromLong(self->bdir != NULL);
}

static PyObject *cloud_cell(CloudObject *self, void *closure) {
    return PyFloat_FromDouble(self->h);
}

/* non_finite_rows(points (N, 3) float64) -> int: the rows with a NaN or an
 * infinity, counted in one pass (no (N, 3) mask of flags). */
static PyObject *cloud_non_finite_rows(PyObject *unused, PyObject *points_o) {
    Py_buffer view;
    if (gc_get_buffer(points_o, &view, 'd', -1, "points") < 0) return NULL;
    Py_ssize_t rows = view.len / 24;
    if (view.len != rows * 24) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "points must have shape (N, 3)");
        return NULL;
    }
    const double *in = view.buf;
    Py_ssize_t bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t n = 0; n < rows; ++n) bad += !finite3(in + 3 * n);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(bad);
}

static PyMethodDef cloud_methods[] = {
    {"non_finite_rows", (PyCFunction)cloud_non_finite_rows, METH_O | METH_STATIC,
     "non_finite_rows(points (N, 3) float64) -> int: rows holding a NaN or an infinity"},
    {"any_within", (PyCFunction)cloud_any_within, METH_VARARGS,
     "any_within(model, X_WF (K,F,4,4), F, geometries int32 (R,), thresholds (R,)) -> bytes\n"
     "(K,): 1 where some geometry r has a point at signed distance <= thresholds[r]"},
    {"nearest", (PyCFunction)cloud_nearest, METH_VARARGS,
     "nearest(model, X_WF, F, geometries, thresholds) -> (distance (K,R), index (K,R) int64,\n"
     "p_GN (K,R,3), grad_W (K,R,3), unique (K,R) uint8, p_WP (K,R,3)) as bytes: the nearest\n"
     "point within the threshold (index -1 when none)"},
    {"within", (PyCFunction)cloud_within, METH_VARARGS,
     "within(model, X_WF (1,F,4,4), F, geometries, thresholds) -> bytes (N,) in input\n"
     "order: 1 where a geometry is within its threshold of the point"},
    {"points", (PyCFunction)cloud_points, METH_NOARGS,
     "points() -> bytes (N, 3) float64: the points kept, in the order given"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef cloud_getset[] = {
    {"size", (getter)cloud_size, NULL, "number of points", NULL},
    {"non_finite", (getter)cloud_non_finite, NULL, "rows skipped: a NaN or an infinity", NULL},
    {"cell", (getter)cloud_cell, NULL, "cell size used (metres)", NULL},
    {"self_filtered", (getter)cloud_self_filtered, NULL,
     "points the construction's self filter took out (0 without one)", NULL},
    {"dense", (getter)cloud_dense, NULL,
     "True when the points were counted in a dense array over the box's cells; False\n"
     "when the box holds too many cells for that (a far outlier) and a table of the\n"
     "occupied cells counted them (the same cells, the same answers)", NULL},
    {"block_directory", (getter)cloud_block_directory, NULL,
     "True when the yes/no query finds blocks through a directory of the box's blocks\n"
     "(with a bit per block and a summed-area table of them); False when the box holds\n"
     "more than 2**22 blocks or 8 a point plus 4096 (far outliers) and the table of\n"
     "occupied blocks answers alone (the same answers)", NULL},
    {"bounds", (getter)cloud_bounds, NULL,
     "((low x, y, z), (high x, y, z)) of the finite points given, None when there are none",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CloudType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "geometry_core._native.Cloud",
    .tp_basicsize = sizeof(CloudObject),
    .tp_dealloc = (destructor)cloud_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Cloud(points (N,3) float64, radius[, model, X_WF (1,F,4,4), F, geometries,\n"
              "thresholds]): the finite points binned in a grid of cells sized from their\n"
              "extent and count (rows with a NaN or an infinity skipped and counted in\n"
              "non_finite); with a model, the points within some geometry's threshold (as\n"
              "within() finds them) are left out, counted in self_filtered, and the others'\n"
              "indices are their ranks among the points kept.",
    .tp_methods = cloud_methods,
    .tp_getset = cloud_getset,
    .tp_init = (initproc)cloud_init,
    .tp_new = PyType_GenericNew,
};

int gc_cloud_check(PyObject *object) { return PyObject_TypeCheck(object, &CloudType); }

int gc_cloud_any_near(PyObject *cloud, const gc_shape *shape, const double *box_G,
                      const double *X_WG, const double center[3], const double half[3],
                      double threshold) {
    const CloudObject *c = (const CloudObject *)cloud;
    if (c->N == 0 || isnan(threshold)) return 0;
    if (shape->kind == GC_HALFSPACE) {
        cloud_hit h;
        if (nearest(c, shape, box_G, X_WG, threshold, 1, &h) != GC_OK) return -1;
        return h.index >= 0;
    }
    cloud_hit h;
    h.index = -1;
    /* The first-hit search allocates nothing: its only failure is the kernel's. */
    if (any_near(c, shape, box_G, X_WG, center, half, threshold, &h) != GC_OK) return -1;
    return h.index >= 0;
}

int gc_cloud_register(PyObject *module) {
    if (PyType_Ready(&CloudType) < 0) return -1;
    Py_INCREF(&CloudType);
    if (PyModule_AddObject(module, "Cloud", (PyObject *)&CloudType) < 0) {
        Py_DECREF(&CloudType);
        return -1;
    }
    return 0;
}
