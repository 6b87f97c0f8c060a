/* The random splitter's tree (splitter="random", extra trees), grown whole in C: see
 * puretree/growth/random_cuts.py, which documents the draw and the rules, holds their Python
 * specification (random_cut_candidates, used by puretree.splits.random_threshold_splits) and
 * calls pt_random_tree. Every draw and every floating-point operation here is the one written
 * there, in the same order (built with -ffp-contract=off), so the trees are equal.
 *
 * Classes only (class codes and integral weights, whose sums are exact in any order), numeric
 * features without missing values; the node rows are kept as one index array, each node a
 * contiguous range, stably partitioned into its children (rows stay in their original order).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define PT_EXPORT __declspec(dllexport)
#else
#define PT_EXPORT __attribute__((visibility("default")))
#endif

#define RC_GOLDEN 0x9E3779B97F4A7C15ULL
#define RC_FEATURE_THRESHOLD 1e-7

/* splitmix64's output for state x + GOLDEN (random_cuts.mix). */
static uint64_t rc_mix(uint64_t x) {
    uint64_t z = x + RC_GOLDEN;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Draw i of a node keyed ``key`` (random_cuts.draw). */
static uint64_t rc_draw(uint64_t key, uint64_t i) { return rc_mix(key + i * RC_GOLDEN); }

typedef struct {
    int64_t start, end, depth, id;
    uint64_t key;
} rc_item;

/* Grows the tree; returns 0, 1 (no memory), 2 (bad input) or 3 (capacity: more nodes than ``cap``).
 * X: (n, p), row r's feature f at X[r * row_step + f * col_step] (any layout, no copy); cls: n class codes in [0, k); w: n weights
 * (NULL: all 1). Outputs per node (ids in creation order, children after their parent, the two
 * children consecutive): feature (-1 for a leaf), threshold, first child's id, class sums (k each). */
PT_EXPORT int pt_random_tree(const double *X, int64_t n, int64_t p, int64_t row_step, int64_t col_step, const int64_t *cls, const double *w, int64_t k,
                             int64_t max_features, int64_t max_depth, double min_samples_split, double min_samples_leaf,
                             double min_weight_leaf, uint64_t root_key, int64_t cap,
                             int64_t *feature, double *threshold, int64_t *first_child, double *counts, int64_t *n_nodes) {
    if (n < 1 || p < 0 || k < 1 || cap < 1) return 2;
    for (int64_t i = 0; i < n; i++)
        if (cls[i] < 0 || cls[i] >= k) return 2;
    /* The node's rows (idx), their classes (code) and weights (wt) kept side by side, each node a
     * contiguous range of all three, so that a node's scans read its classes and weights in order;
     * val: the node's values of the feature being visited, gathered once for both of its passes. */
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *code = malloc(sizeof(int64_t) * (size_t)n);
    double *wt = w ? malloc(sizeof(double) * (size_t)n) : NULL;
    double *val = malloc(sizeof(double) * (size_t)n);
    int64_t *tmp = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *tmp_code = malloc(sizeof(int64_t) * (size_t)n);
    double *tmp_wt = w ? malloc(sizeof(double) * (size_t)n) : NULL;
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)(p > 0 ? p : 1));
    double *left = malloc(sizeof(double) * (size_t)k);
    int64_t *left_n = malloc(sizeof(int64_t) * (size_t)k);
    double *best_left = malloc(sizeof(double) * (size_t)k);
    rc_item *stack = malloc(sizeof(rc_item) * (size_t)(cap + 1));
    int status = 0;
    int64_t made = 0, top = 0;
    if (!idx || !code || (w && !wt) || !val || !tmp || !tmp_code || (w && !tmp_wt) || !perm || !left || !left_n || !best_left || !stack) {
        status = 1;
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        idx[i] = i;
        code[i] = cls[i];
        if (w) wt[i] = w[i];
    }
    double leaf_bound = min_samples_leaf > 1.0 ? min_samples_leaf : 1.0;
    int64_t limit = max_features > 0 && max_features < p ? max_features : p;
    made = 1;
    memset(counts, 0, sizeof(double) * (size_t)k);
    for (int64_t i = 0; i < n; i++) counts[cls[i]] += w ? w[i] : 1.0;
    stack[top++] = (rc_item){0, n, 0, 0, root_key};
    while (top > 0) {
        rc_item it = stack[--top];
        int64_t a = it.start, b = it.end, m = b - a, id = it.id;
        double *node_counts = counts + id * k;
        const int64_t *node_code = code + a;
        const double *node_wt = w ? wt + a : NULL;
        feature[id] = -1;
        threshold[id] = 0.0;
        first_child[id] = -1;
        int pure = 1;
        for (int64_t r = 1; r < m; r++)
            if (node_code[r] != node_code[0]) { pure = 0; break; }
        if (pure || (max_depth >= 0 && it.depth >= max_depth) || (double)m < min_samples_split || p == 0) continue;
        double w_node = 0.0;
        for (int64_t c = 0; c < k; c++) w_node += node_counts[c];
        for (int64_t j = 0; j < p; j++) perm[j] = j;
        int seen_varying = 0, have = 0;
        double best_rank = 0.0, best_thr = 0.0;
        int64_t best_f = -1;
        for (int64_t i = 0; i < p; i++) {
            if (i >= limit && seen_varying) break;
            int64_t j = i + (int64_t)(rc_draw(it.key, (uint64_t)i) % (uint64_t)(p - i));
            int64_t f = perm[j];
            perm[j] = perm[i];
            perm[i] = f;
            const double *x = X + f * col_step;
            /* in row order, as the reference (the first of -0.0 and 0.0 stays the minimum) */
            double lo = x[idx[a] * row_step], hi = lo;
            val[0] = lo;
            for (int64_t r = 1; r < m; r++) {
                double v = x[idx[a + r] * row_step];
                val[r] = v;
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
            if (!(hi > lo + RC_FEATURE_THRESHOLD)) continue;
            seen_varying = 1;
            double u = (double)(rc_draw(it.key, (uint64_t)(p + f)) >> 11) * 0x1.0p-53;
            double t = lo + u * (hi - lo);
            if (t >= hi) t = lo;
            /* the left side's class sums, without a branch per row (the cut is random: a branch
             * would be mispredicted half the time); integral weights, so any order gives the same sums */
            int64_t n_left = 0;
            if (node_wt) {
                memset(left, 0, sizeof(double) * (size_t)k);
                for (int64_t r = 0; r < m; r++) {
                    int64_t go = val[r] <= t;
                    n_left += go;
                    left[node_code[r]] += (double)go * node_wt[r];
                }
            } else {
                memset(left_n, 0, sizeof(int64_t) * (size_t)k);
                for (int64_t r = 0; r < m; r++) {
                    int64_t go = val[r] <= t;
                    n_left += go;
                    left_n[node_code[r]] += go;
                }
                for (int64_t c = 0; c < k; c++) left[c] = (double)left_n[c];
            }
            if ((double)n_left < leaf_bound || (double)(m - n_left) < leaf_bound) continue;
            double wl = 0.0, wr = 0.0, sl = 0.0, sr = 0.0;
            for (int64_t c = 0; c < k; c++) {
                double d = node_counts[c] - left[c];
                if (d < 0.0) d = 0.0;
                wl += left[c];
                wr += d;
                sl += left[c] * left[c];
                sr += d * d;
            }
            if (min_weight_leaf > 0.0 && !(wl >= min_weight_leaf && w_node - wl >= min_weight_leaf)) continue;
            double rank = (wl > 0.0 ? sl / wl : 0.0) + (wr > 0.0 ? sr / wr : 0.0);
            if (!have || rank > best_rank) {
                have = 1;
                best_rank = rank;
                best_f = f;
                best_thr = t;
                memcpy(best_left, left, sizeof(double) * (size_t)k);
            }
        }
        if (!have) continue;
        if (made + 2 > cap) {
            status = 3;
            goto done;
        }
        /* a stable partition of the node's rows (and their classes and weights): left then right, each in row order */
        const double *x = X + best_f * col_step;
        int64_t nl = 0, nr = 0;
        for (int64_t r = a; r < b; r++) {
            if (x[idx[r] * row_step] <= best_thr) {
                idx[a + nl] = idx[r];
                code[a + nl] = code[r];
                if (w) wt[a + nl] = wt[r];
                nl++;
            } else {
                tmp[nr] = idx[r];
                tmp_code[nr] = code[r];
                if (w) tmp_wt[nr] = wt[r];
                nr++;
            }
        }
        memcpy(idx + a + nl, tmp, sizeof(int64_t) * (size_t)nr);
        memcpy(code + a + nl, tmp_code, sizeof(int64_t) * (size_t)nr);
        if (w) memcpy(wt + a + nl, tmp_wt, sizeof(double) * (size_t)nr);
        int64_t lid = made, rid = made + 1;
        made += 2;
        feature[id] = best_f;
        threshold[id] = best_thr;
        first_child[id] = lid;
        double *lc = counts + lid * k, *rc = counts + rid * k;
        /* the right side's sums are the node's less the left's: exact, the weights being integral */
        for (int64_t c = 0; c < k; c++) {
            lc[c] = best_left[c];
            rc[c] = node_counts[c] - best_left[c];
        }
        /* right pushed first: the left child is grown next (any order gives the same tree) */
        stack[top++] = (rc_item){a + nl, b, it.depth + 1, rid, rc_mix(it.key ^ 2ULL)};
        stack[top++] = (rc_item){a, a + nl, it.depth + 1, lid, rc_mix(it.key ^ 1ULL)};
    }
done:
    *n_nodes = made;
    free(idx);
    free(code);
    free(wt);
    free(val);
    free(tmp);
    free(tmp_code);
    free(tmp_wt);
    free(perm);
    free(left);
    free(left_n);
    free(best_left);
    free(stack);
    return status;
}
