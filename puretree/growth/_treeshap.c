/* Path-dependent TreeSHAP over a model's leaf tables (puretree/explain.py, shap_values and
 * contributions): Lundberg et al. 2018, Algorithm 2, per leaf as puretree.explain.contributions
 * defines it and the generated NAME_contributions runs it (puretree/codegen/contributions.py):
 * EXTEND over the leaf's unique path features, then UNWOUND_PATH_SUM per path feature, the same
 * operations in the same order (built with -ffp-contract=off: no fused multiply-add), the leaves
 * added in the order given. So the values equal contributions' bit for bit.
 *
 * A leaf's shares depend on the row only through its pattern (which path features the row's
 * values take), so within a block of rows each (leaf, pattern) is computed once and looked up
 * in a small hash table for the other rows with that pattern: the same numbers as computing
 * them per row. Blocks of rows are disjoint, so they may run on threads of _kernel.c's runner
 * (each writes its own rows of phi): the result does not depend on the number of threads.
 *
 * Compiled into the same library as _kernel.c (setup.py), strict C11, no Python headers.
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define PT_EXPORT __declspec(dllexport)
#else
#define PT_EXPORT __attribute__((visibility("default")))
#endif

#define TS_OK 0
#define TS_NO_MEMORY 1
#define TS_BAD_INPUT 2

/* Rows per block: the (leaf, pattern) table is rebuilt per block and leaf. */
#define TS_BLOCK 2048
/* Paths with more distinct features than a pattern's bits are computed row by row. */
#define TS_PATTERN_BITS 64

/* _kernel.c's runner: task(ctx, 0 .. count) on up to `threads` threads. */
int pt_internal_run(int (*task)(void *, int64_t), void *ctx, int64_t count, int threads);

typedef struct {
    const int64_t *start, *feature, *output;
    const double *lo, *hi, *zero, *value, *inv, *X;
    const unsigned char *nan_ok;
    int64_t n_leaves, k, n, p, row_step, col_step, depth;
    double *phi;
    int64_t *reached;
} ts_t;

/* The leaf's shares for the path pattern `one` (1: the row takes the path's branches of that
 * feature) into share[0 .. D); 0 when no coalition reaches the leaf (a feature the row does
 * not take and no training weight took). pw: D + 1 doubles of scratch. */
static int leaf_shares(const ts_t *t, int64_t s, int64_t D, const unsigned char *one, double *pw, double *share) {
    const double *zero = t->zero + s, *inv = t->inv;
    for (int64_t d = 0; d < D; d++)
        if (!one[d] && zero[d] == 0.0) return 0;
    pw[0] = 1.0;
    for (int64_t k = 1; k <= D; k++) { /* EXTEND by path feature k */
        const double z = zero[k - 1];
        pw[k] = 0.0;
        for (int64_t i = k; i-- > 0;) {
            if (one[k - 1]) pw[i + 1] = pw[i + 1] + pw[i] * (double)(i + 1) * inv[k + 1];
            pw[i] = z * pw[i] * (double)(k - i) * inv[k + 1];
        }
    }
    for (int64_t d = 0; d < D; d++) { /* UNWOUND_PATH_SUM per path feature */
        const double z = zero[d];
        double total = 0.0;
        if (one[d]) {
            double nxt = pw[D];
            for (int64_t i = D; i-- > 0;) {
                const double tmp = nxt * inv[i + 1];
                total = total + tmp;
                nxt = pw[i] - tmp * z * (double)(D - i);
            }
        } else {
            for (int64_t i = D; i-- > 0;) total = total + pw[i] * inv[D - i];
            total = total / z;
        }
        share[d] = total * (double)(D + 1) * ((one[d] ? 1.0 : 0.0) - z);
    }
    return 1;
}

/* phi[row, feature, output] += share * value, per path feature, as contributions adds them
 * (the products made once per pattern: the same numbers). */
static void add_terms(double *row, const int64_t *feature, int64_t D, int64_t out, int64_t k, const double *term) {
    if (out >= 0) {
        for (int64_t d = 0; d < D; d++) row[feature[d] * k + out] += term[d];
    } else {
        for (int64_t d = 0; d < D; d++)
            for (int64_t c = 0; c < k; c++) row[feature[d] * k + c] += term[d * k + c];
    }
}

/* The terms of a leaf for a pattern (share * value per path feature and output; 0: the
 * leaf is reached by no coalition). */
static int leaf_terms(const ts_t *t, int64_t leaf, int64_t s, int64_t D, const unsigned char *one, double *pw, double *share, double *term) {
    const int64_t out = t->output[leaf], k = t->k;
    const double *value = t->value + leaf * k;
    if (!leaf_shares(t, s, D, one, pw, share)) return 0;
    for (int64_t d = 0; d < D; d++) {
        if (out >= 0) {
            term[d] = share[d] * value[out];
        } else {
            for (int64_t c = 0; c < k; c++) term[d * k + c] = share[d] * value[c];
        }
    }
    return 1;
}

/* The hash of a pattern (Fibonacci hashing) into a table of 2**bits slots. */
static uint64_t slot_of(uint64_t pattern, int bits) { return (pattern * 0x9E3779B97F4A7C15ULL) >> (64 - bits); }

/* One block of rows: every leaf in order, each row's pattern looked up or computed. */
static int block_task(void *ctx, int64_t b) {
    const ts_t *t = ctx;
    /* the fields as locals: stores through the char and double pointers below could alias them */
    const int64_t r0 = b * TS_BLOCK, r1 = r0 + TS_BLOCK < t->n ? r0 + TS_BLOCK : t->n, rows = r1 - r0;
    /* the pool holds the terms of paths that take pattern keys (longer ones: `direct`) */
    const int64_t D_max = t->depth > 0 ? t->depth : 1, D_pool = D_max < TS_PATTERN_BITS ? D_max : TS_PATTERN_BITS, k = t->k, width = t->p * t->k, row_step = t->row_step, col_step = t->col_step;
    const double *const X = t->X;
    double *const phi = t->phi;
    int64_t *const reached = t->reached;
    int bits = 1;
    while (((int64_t)1 << bits) < 2 * rows) bits++;
    const int64_t slots = (int64_t)1 << bits;
    uint64_t *key = malloc(sizeof(uint64_t) * (size_t)slots);
    int64_t *stamp = malloc(sizeof(int64_t) * (size_t)slots);
    int64_t *entry = malloc(sizeof(int64_t) * (size_t)slots);
    double *pool = malloc(sizeof(double) * (size_t)(rows * D_pool * k));
    unsigned char *alive = malloc((size_t)rows);
    double *pw = malloc(sizeof(double) * (size_t)(D_max + 1));
    unsigned char *one = malloc((size_t)D_max);
    double *share = malloc(sizeof(double) * (size_t)D_max);
    double *direct = malloc(sizeof(double) * (size_t)(D_max * k));
    int status = TS_OK;
    if (!key || !stamp || !entry || !pool || !alive || !pw || !one || !share || !direct) {
        status = TS_NO_MEMORY;
        goto done;
    }
    for (int64_t i = 0; i < slots; i++) stamp[i] = -1;
    for (int64_t leaf = 0; leaf < t->n_leaves; leaf++) {
        const int64_t s = t->start[leaf], D = t->start[leaf + 1] - s, out = t->output[leaf];
        const int64_t *const f = t->feature + s;
        const double *const lo = t->lo + s, *const hi = t->hi + s;
        const unsigned char *const nan_ok = t->nan_ok + s;
        const uint64_t full = D >= TS_PATTERN_BITS ? ~(uint64_t)0 : ((uint64_t)1 << D) - 1;
        int64_t used = 0;
        if (D == 0) { /* a tree of one leaf: every row reaches it, its value is the expected value's */
            for (int64_t r = r0; r < r1; r++) reached[r] += 1;
            continue;
        }
        for (int64_t r = r0; r < r1; r++) {
            const double *const x = X + r * row_step;
            double *const row = phi + r * width;
            if (D > TS_PATTERN_BITS) { /* no pattern key: computed for the row */
                int all = 1;
                for (int64_t d = 0; d < D; d++) {
                    const double v = x[f[d] * col_step];
                    one[d] = (unsigned char)(isnan(v) ? nan_ok[d] != 0 : (v > lo[d]) & (v <= hi[d]));
                    all &= one[d];
                }
                reached[r] += all;
                if (leaf_terms(t, leaf, s, D, one, pw, share, direct)) add_terms(row, f, D, out, k, direct);
                continue;
            }
            uint64_t pattern = 0;
            for (int64_t d = 0; d < D; d++) { /* without branches: the rows' answers come in any order */
                const double v = x[f[d] * col_step];
                const int inside = (v > lo[d]) & (v <= hi[d]);
                pattern |= (uint64_t)(isnan(v) ? nan_ok[d] != 0 : inside) << d;
            }
            reached[r] += pattern == full;
            uint64_t h = slot_of(pattern, bits);
            while (stamp[h] == leaf && key[h] != pattern) h = (h + 1) & (uint64_t)(slots - 1);
            if (stamp[h] != leaf) { /* a pattern new to this leaf in this block */
                stamp[h] = leaf;
                key[h] = pattern;
                entry[h] = used;
                for (int64_t d = 0; d < D; d++) one[d] = (unsigned char)((pattern >> d) & 1u);
                alive[used] = (unsigned char)leaf_terms(t, leaf, s, D, one, pw, share, pool + used * D_pool * k);
                used++;
            }
            if (alive[entry[h]]) add_terms(row, f, D, out, k, pool + entry[h] * D_pool * k);
        }
    }
done:
    free(key);
    free(stamp);
    free(entry);
    free(pool);
    free(alive);
    free(pw);
    free(one);
    free(share);
    free(direct);
    return status;
}

/* Adds the path-dependent Shapley values of the rows X to phi and each row's number of leaves
 * reached to `reached`. Leaf l's path features are entries start[l] .. start[l + 1] (start
 * non-decreasing, from 0): the feature, the box lo < x <= hi the path asks of it, whether a
 * missing value (NaN) follows the path (nan_ok), the training weight's share that follows it
 * (zero). value: n_leaves x k, the leaf's outputs (scaled); output[l]: -1 (every output) or the
 * one output the leaf adds value[l * k + output[l]] to. X: row r's feature j at
 * X[r * row_step + j * col_step]; phi: n x p x k, C order. threads: at most that many (1: this
 * thread alone). Returns 0, 1 (no memory) or 2 (bad input: nothing written). */
PT_EXPORT int pt_treeshap(const int64_t *start, int64_t n_leaves, const int64_t *feature, const double *lo, const double *hi,
                          const unsigned char *nan_ok, const double *zero, const double *value, const int64_t *output, int64_t k,
                          const double *X, int64_t n, int64_t p, int64_t row_step, int64_t col_step, int threads,
                          double *phi, int64_t *reached) {
    if (n_leaves < 0 || k < 1 || n < 0 || p < 0 || start[0] != 0) return TS_BAD_INPUT;
    int64_t depth = 0;
    for (int64_t l = 0; l < n_leaves; l++) {
        const int64_t D = start[l + 1] - start[l];
        if (D < 0 || output[l] < -1 || output[l] >= k) return TS_BAD_INPUT;
        if (D > depth) depth = D;
    }
    for (int64_t e = 0; e < start[n_leaves]; e++)
        if (feature[e] < 0 || feature[e] >= p) return TS_BAD_INPUT;
    if (n == 0) return TS_OK;
    double *inv = malloc(sizeof(double) * (size_t)(depth + 2)); /* inv[m]: the double nearest 1 / m */
    if (!inv) return TS_NO_MEMORY;
    inv[0] = 0.0;
    for (int64_t m = 1; m <= depth + 1; m++) inv[m] = 1.0 / (double)m;
    ts_t t = {start, feature, output, lo, hi, zero, value, inv, X, nan_ok, n_leaves, k, n, p, row_step, col_step, depth, phi, reached};
    const int64_t blocks = (n + TS_BLOCK - 1) / TS_BLOCK;
    int status = pt_internal_run(block_task, &t, blocks, threads < 1 ? 1 : threads);
    free(inv);
    return status;
}

/* The leaves' unique paths from threshold trees' node arrays (puretree/explain.py's _flat_table
 * computes the same numbers with numpy): nodes in pre-order, parent[i] (-1: a root), a split's
 * feature, threshold (left: x <= t), children left and right (-1: a leaf), the node's training
 * weight, the child a missing value goes to (missing: the learned side, else -1) and whether the
 * tree sends it to the heavier child (majority). Per leaf in node order, its path's distinct
 * features in the order of their last test: entries start[l] .. start[l + 1] of feature, lo, hi,
 * nan_ok, zero (each edge's share of its siblings' weight, multiplied top down), and reach[l],
 * the product of all the path's shares top down. Returns 0, 1 (no memory), 2 (bad input, or more
 * entries than capacity). */
PT_EXPORT int pt_treeshap_paths(int64_t n_nodes, const int64_t *parent, const int64_t *feature, const double *threshold, const int64_t *left,
                                const int64_t *right, const double *weight, const int64_t *missing, const unsigned char *majority, int64_t capacity,
                                int64_t *start, int64_t *e_feature, double *e_lo, double *e_hi, unsigned char *e_nan, double *e_zero, double *reach) {
    if (n_nodes < 0 || capacity < 0) return TS_BAD_INPUT;
    for (int64_t i = 0; i < n_nodes; i++) {
        if (parent[i] >= i || parent[i] < -1) return TS_BAD_INPUT; /* pre-order: a parent comes first */
        if (left[i] >= 0 && (left[i] <= i || left[i] >= n_nodes || right[i] <= i || right[i] >= n_nodes)) return TS_BAD_INPUT;
    }
    int64_t *path = malloc(sizeof(int64_t) * (size_t)(n_nodes > 0 ? n_nodes : 1));
    if (!path) return TS_NO_MEMORY;
    int64_t leaves = 0, used = 0;
    int status = TS_OK;
    start[0] = 0;
    for (int64_t leaf = 0; leaf < n_nodes && status == TS_OK; leaf++) {
        if (left[leaf] >= 0) continue;
        int64_t D = 0;
        for (int64_t c = leaf; parent[c] >= 0; c = parent[c]) path[D++] = c; /* bottom up */
        const int64_t first = used;
        double r = 1.0;
        for (int64_t e = D; e-- > 0;) { /* top down: the edge into path[e] */
            const int64_t child = path[e], up = parent[child], l = left[up], rt = right[up], f = feature[up];
            const double total = weight[l] + weight[rt], t = threshold[up];
            const double share = total > 0 ? weight[child] / total : 0.0;
            const int64_t nan_to = missing[up] >= 0 ? missing[up] : majority[up] ? (weight[l] >= weight[rt] ? l : rt) : -1;
            const int went_left = child == l, nan = child == nan_to;
            const double lo = went_left ? -INFINITY : t, hi = went_left ? t : INFINITY;
            r = e == D - 1 ? share : r * share;
            int64_t q = first;
            while (q < used && e_feature[q] != f) q++;
            if (q < used) { /* met again: its box and share met, then moved to the end (its last test) */
                const double mlo = e_lo[q] > lo ? e_lo[q] : lo, mhi = e_hi[q] < hi ? e_hi[q] : hi, z = e_zero[q] * share;
                const unsigned char ok = (unsigned char)(e_nan[q] && nan);
                for (; q + 1 < used; q++) {
                    e_feature[q] = e_feature[q + 1];
                    e_lo[q] = e_lo[q + 1];
                    e_hi[q] = e_hi[q + 1];
                    e_nan[q] = e_nan[q + 1];
                    e_zero[q] = e_zero[q + 1];
                }
                e_feature[q] = f, e_lo[q] = mlo, e_hi[q] = mhi, e_nan[q] = ok, e_zero[q] = z;
            } else {
                if (used >= capacity) {
                    status = TS_BAD_INPUT;
                    break;
                }
                e_feature[used] = f, e_lo[used] = lo, e_hi[used] = hi, e_nan[used] = (unsigned char)nan, e_zero[used] = share;
                used++;
            }
        }
        reach[leaves++] = r;
        start[leaves] = used;
    }
    free(path);
    return status;
}
