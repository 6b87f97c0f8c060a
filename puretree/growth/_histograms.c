/* The binned source's loops over a block of rows (puretree/growth/histograms.py): the rows'
 * statistics summed into per-node histograms, and the rows moved to their children.
 *
 * Compiled into the same library as puretree/_kernel.c (setup.py), with the same flags
 * (-ffp-contract=off, never -ffast-math) and the same portability (strict C11, no Python
 * headers; the caller runs disjoint feature or row ranges in threads of its own, ctypes
 * releasing the GIL, except pt_hgb_step, which shares its features between the threads of
 * _kernel.c's runner: a Python thread per range costs more than a small step). Every histogram cell is the sum of its rows' statistics added in
 * row order, from 0.0, as numpy's bincount adds them: the numpy functions of histograms.py and
 * these give the same floats, bit for bit, whatever range of features a call covers.
 *
 * The layout of a histogram: (slot, feature, bin, channel), C order; the channels are the k
 * class weights (or, k == 0, the regression weight, weighted sum and weighted sum of squares)
 * then the number of rows. Every index read is checked against the sizes the caller gives.
 */

#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define PT_EXPORT __declspec(dllexport)
#else
#define PT_EXPORT __attribute__((visibility("default")))
#endif

#define PT_OK 0
#define PT_NO_MEMORY 1
#define PT_BAD_INPUT 2

/* Row r's bin of feature f, for bins stored as 1, 2 or 4 byte unsigned integers. */
static int64_t bin_at(const void *bins, int64_t width, int64_t p, int64_t r, int64_t f) {
    int64_t at = r * p + f;
    if (width == 1) return ((const uint8_t *)bins)[at];
    if (width == 2) return ((const uint16_t *)bins)[at];
    return ((const uint32_t *)bins)[at];
}

/* The slot of row r's node (-1: no node of this batch), or -2 for a node id out of range. */
static int64_t slot_of(const int32_t *node, const int64_t *slot, int64_t n_nodes, int64_t r) {
    int32_t g = node[r];
    if (g < 0) return -1;
    if (g >= n_nodes) return -2;
    return slot[g];
}

/* Adds the rows [0, n_rows) of the block to the histogram H of features [f0, f1) (H is zero
 * or a partial sum on entry). cls: class codes (k > 0), else y: regression targets (k == 0);
 * w: weights (NULL: every row weighs 1). lo, hi (regression, may be NULL): each slot's
 * smallest and largest target, updated. */
PT_EXPORT int pt_hist_accumulate(const void *bins, int64_t width, int64_t n_rows, int64_t p, int64_t f0, int64_t f1, const int32_t *node, const int64_t *slot,
                                 int64_t n_nodes, const int32_t *cls, const double *y, const double *w, int64_t k, int64_t n_slots, int64_t n_bins, double *H,
                                 double *lo, double *hi) {
    if ((width != 1 && width != 2 && width != 4) || f0 < 0 || f1 > p || f0 > f1 || k < 0 || (k > 0 && cls == NULL) || (k == 0 && y == NULL)) return PT_BAD_INPUT;
    int64_t channels = (k > 0 ? k : 3) + 1;
    int64_t per_slot = p * n_bins * channels;
    for (int64_t r = 0; r < n_rows; r++) {
        int64_t s = slot_of(node, slot, n_nodes, r);
        if (s == -1) continue;
        if (s < -1 || s >= n_slots) return PT_BAD_INPUT;
        double wr = w != NULL ? w[r] : 1.0;
        int64_t c = 0;
        double wy = 0.0, wyy = 0.0;
        if (k > 0) {
            c = cls[r];
            if (c < 0 || c >= k) return PT_BAD_INPUT;
        } else {
            wy = wr * y[r];
            wyy = wy * y[r];
            if (lo != NULL && hi != NULL) {
                if (y[r] < lo[s]) lo[s] = y[r];
                if (y[r] > hi[s]) hi[s] = y[r];
            }
        }
        double *base = H + s * per_slot;
        for (int64_t f = f0; f < f1; f++) {
            int64_t b = bin_at(bins, width, p, r, f);
            if (b >= n_bins) return PT_BAD_INPUT;
            double *cell = base + (f * n_bins + b) * channels;
            if (k > 0) {
                cell[c] += wr;
                cell[k] += 1.0;
            } else {
                cell[0] += wr;
                cell[1] += wy;
                cell[2] += wyy;
                cell[3] += 1.0;
            }
        }
    }
    return PT_OK;
}

/* Rows [r0, r1): out[r] = row r's node at the next level (-1: none). A row of node g follows
 * the table dest[table_of[g]] by its bin when table_of[g] >= 0 (subset and multiway splits),
 * else goes right when its bin is above cut[g] (a missing value, bin `missing`: when
 * heavy[g] is 1), to right[g] or left[g]. */
PT_EXPORT int pt_hist_move(const void *bins, int64_t width, int64_t p, int64_t r0, int64_t r1, const int32_t *node, int64_t n_nodes, const int64_t *feature,
                           const int64_t *cut, const int32_t *left, const int32_t *right, const int8_t *heavy, int64_t missing, const int64_t *table_of,
                           const int32_t *dest, int64_t n_tables, int64_t n_bins, int32_t *out) {
    if (width != 1 && width != 2 && width != 4) return PT_BAD_INPUT;
    for (int64_t r = r0; r < r1; r++) {
        int32_t g = node[r];
        if (g < 0) {
            out[r] = -1;
            continue;
        }
        if (g >= n_nodes || feature[g] < 0 || feature[g] >= p) return PT_BAD_INPUT;
        int64_t b = bin_at(bins, width, p, r, feature[g]);
        int64_t t = table_of[g];
        if (t >= 0) {
            if (t >= n_tables || b >= n_bins) return PT_BAD_INPUT;
            out[r] = dest[t * n_bins + b];
        } else {
            int goes_right = b == missing ? heavy[g] == 1 : b > cut[g];
            out[r] = goes_right ? right[g] : left[g];
        }
    }
    return PT_OK;
}

/* The candidate cuts of n histograms (n, p, n_bins, channels) over the features f with
 * use[f] != 0, the last bin (missing values) left out: for every non-empty known bin but the
 * last of its (node, feature), the bin cumulated from the feature's first bin (its node,
 * feature, bin, the left side's statistics) and the feature's known statistics. The floats of
 * numpy's cumsum along the bins, empty bins (+0.0) included: an empty bin's 0.0 is added once
 * where it would change a -0.0. A cut leaves at least min_leaf rows on each side when
 * min_leaf > 1. Returns the cuts written (at most capacity), or -1 when they would not fit. */
PT_EXPORT int64_t pt_hist_cuts(const double *H, int64_t n, int64_t p, int64_t n_bins, int64_t channels, const uint8_t *use, double min_leaf, int64_t *ni,
                               int64_t *fj, int64_t *bb, double *left, double *known, int64_t capacity) {
    int64_t m = 0, stats = channels - 1;
    if (channels < 2 || stats > 64) return -1;
    double cum[64];
    for (int64_t i = 0; i < n; i++) {
        for (int64_t f = 0; f < p; f++) {
            if (!use[f]) continue;
            const double *h = H + (i * p + f) * n_bins * channels;
            int64_t start = m, prev = -1;
            double rows = 0.0;
            for (int64_t b = 0; b + 1 < n_bins; b++) {
                const double *cell = h + b * channels;
                if (!(cell[stats] > 0)) continue;
                if (m >= capacity) return -1;
                for (int64_t c = 0; c < stats; c++) cum[c] = prev < 0 ? (b > 0 ? 0.0 + cell[c] : cell[c]) : (b > prev + 1 ? cum[c] + 0.0 : cum[c]) + cell[c];
                rows = prev < 0 ? (b > 0 ? 0.0 + cell[stats] : cell[stats]) : (b > prev + 1 ? rows + 0.0 : rows) + cell[stats];
                ni[m] = i;
                fj[m] = f;
                bb[m] = b;
                for (int64_t c = 0; c < stats; c++) left[m * stats + c] = cum[c];
                known[m * stats] = rows;  /* the left rows, for now (known's first slot) */
                prev = b;
                m++;
            }
            if (m == start) continue;
            int64_t last = m - 1;
            int trailing = prev + 2 < n_bins;  /* empty known bins after the last: one more +0.0 */
            double total[64], total_rows = trailing ? rows + 0.0 : rows;
            for (int64_t c = 0; c < stats; c++) total[c] = trailing ? cum[c] + 0.0 : cum[c];
            int64_t kept = start;
            for (int64_t j = start; j < last; j++) {
                double left_rows = known[j * stats];
                if (min_leaf > 1 && !(left_rows >= min_leaf && total_rows - left_rows >= min_leaf)) continue;
                ni[kept] = ni[j];
                fj[kept] = fj[j];
                bb[kept] = bb[j];
                for (int64_t c = 0; c < stats; c++) {
                    left[kept * stats + c] = left[j * stats + c];
                    known[kept * stats + c] = total[c];
                }
                kept++;
            }
            m = kept;
        }
    }
    return m;
}

/* Histogram gradient boosting (puretree/hist_gradient_boosting.py): a node's histogram of its
 * rows only, its best split, and its rows parted between its children.
 *
 * The histogram (p, n_bins, 4) of the rows rows[0..n_rows) over features [f0, f1), whose
 * cells are zero on entry: per cell, channel 0 the sum of w, channel 1 of w * y, channel 3
 * the rows, each added in the rows' order from 0.0 (the floats of pt_hist_accumulate with
 * k == 0); channel 2 (the sum of w * y * y, the leaf's third statistic) is summed for
 * feature 0 alone, the one feature a node's totals are read from: boosting needs no other. */
PT_EXPORT int pt_hgb_histogram(const uint8_t *bins, int64_t n, int64_t p, const int64_t *rows, int64_t n_rows, const double *y, const double *w, int64_t f0,
                               int64_t f1, int64_t n_bins, double *H) {
    if (f0 < 0 || f1 > p || f0 > f1 || n_bins < 1 || n_bins > 256) return PT_BAD_INPUT;
    for (int64_t i = 0; i < n_rows; i++) {
        int64_t r = rows[i];
        if (r < 0 || r >= n) return PT_BAD_INPUT;
        double wr = w[r], wy = wr * y[r];
        const uint8_t *row = bins + r * p;
        int64_t f = f0;
        if (f == 0 && f1 > 0) {
            if (row[0] >= n_bins) return PT_BAD_INPUT;
            double *cell = H + (int64_t)row[0] * 4;
            cell[0] += wr;
            cell[1] += wy;
            cell[2] += wy * y[r];
            cell[3] += 1.0;
            f = 1;
        }
        for (; f < f1; f++) {
            int64_t b = row[f];
            if (b >= n_bins) return PT_BAD_INPUT;
            double *cell = H + (f * n_bins + b) * 4;
            cell[0] += wr;
            cell[1] += wy;
            cell[3] += 1.0;
        }
    }
    return PT_OK;
}

/* A node's totals: feature 0's bins of its histogram H0 (n_bins, 4) summed in order. */
static void hgb_totals(const double *H0, int64_t n_bins, double *total) {
    for (int64_t c = 0; c < 4; c++) {
        double s = H0[c];
        for (int64_t b = 1; b < n_bins; b++) s += H0[b * 4 + c];
        total[c] = s;
    }
}

/* Whether a node of these totals may be split at all. */
static int hgb_splittable(const double *total, int64_t p, int64_t n_bins, double min_leaf, double min_hessian) {
    return !(total[3] < 2 * min_leaf || total[0] < 2 * min_hessian || p < 1 || n_bins < 2);
}

/* The first best cut of each side (best[side] = gain, feature, cut; gain -inf: none) over the
 * features [f0, f1) of the histogram H (p, n_bins, 4) of a node of totals `total` (see
 * pt_hgb_best_split). The first best of consecutive feature ranges, taken in order where
 * strictly better, is the first best over their union. */
static void hgb_best_in(const double *H, int64_t f0, int64_t f1, int64_t n_bins, const int64_t *last, double l2, double min_leaf, double min_hessian,
                        const double *total, double best[2][3]) {
    double parent = total[1] * total[1] / (total[0] + l2);
    for (int side = 1; side >= 0; side--) {
        double top = -HUGE_VAL;
        int64_t best_f = 0, best_b = 0;
        for (int64_t f = f0; f < f1; f++) {
            const double *h = H + f * n_bins * 4, *miss = h + (n_bins - 1) * 4;
            if (side == 0 && !(miss[3] > 0)) continue;
            double L[4] = {0.0, 0.0, 0.0, 0.0};
            for (int64_t b = 0; b + 1 < n_bins; b++) {
                for (int64_t c = 0; c < 4; c++) L[c] = b == 0 ? h[c] : L[c] + h[b * 4 + c];
                if (b > last[f]) break;
                double l0 = L[0], l1 = L[1], l3 = L[3];
                if (side == 0) {
                    l0 = l0 + miss[0];
                    l1 = l1 + miss[1];
                    l3 = l3 + miss[3];
                }
                double r0 = total[0] - l0, r1 = total[1] - l1, r3 = total[3] - l3;
                if (!(l3 >= min_leaf && r3 >= min_leaf && l0 >= min_hessian && r0 >= min_hessian)) continue;
                double a = l1 * l1, d = l0 + l2, e = r1 * r1, q = r0 + l2;
                double gain = a / d + e / q - parent;
                if (gain > top) {
                    top = gain;
                    best_f = f;
                    best_b = b;
                }
            }
        }
        best[side][0] = top;
        best[side][1] = (double)best_f;
        best[side][2] = (double)best_b;
    }
}

/* The best split of the per-range bests best[0..parts) (in feature order): side 1's first
 * best, then side 0's where strictly better; out: gain, feature, cut, side. Returns 1 if its
 * gain is positive, else 0. */
static int hgb_pick(double (*best)[2][3], int64_t parts, double *out) {
    int found = 0;
    for (int side = 1; side >= 0; side--) {
        double top = -HUGE_VAL, f = 0.0, b = 0.0;
        for (int64_t t = 0; t < parts; t++) {
            if (best[t][side][0] > top) {
                top = best[t][side][0];
                f = best[t][side][1];
                b = best[t][side][2];
            }
        }
        if (top > 0 && (!found || top > out[0])) {
            out[0] = top;
            out[1] = f;
            out[2] = b;
            out[3] = (double)side;
            found = 1;
        }
    }
    return found;
}

/* The best split of a node from its histogram H (p, n_bins, 4), the last bin its missing
 * values: numpy's floats of hist_gradient_boosting.Grower.best_split, computed in place.
 * The node's totals are feature 0's bins summed in order (written to total[0..4)); a cut after
 * bin b (b <= last[f]) sends bins 0..b left, the missing values right (side 1) or, where the
 * feature has some, left (side 0); each side needs min_leaf rows and min_hessian; the gain is
 * GL^2 / (HL + l2) + GR^2 / (HR + l2) - G^2 / (H + l2). The first best over (feature, cut) for
 * side 1, then side 0 where strictly better. out: gain, feature, cut, side; returns 1 if a
 * positive gain was found, else 0. */
PT_EXPORT int pt_hgb_best_split(const double *H, int64_t p, int64_t n_bins, const int64_t *last, double l2, double min_leaf, double min_hessian, double *total,
                                double *out) {
    double best[1][2][3];
    hgb_totals(H, n_bins, total);
    if (!hgb_splittable(total, p, n_bins, min_leaf, min_hessian)) return 0;
    hgb_best_in(H, 0, p, n_bins, last, l2, min_leaf, min_hessian, total, best[0]);
    return hgb_pick(best, 1, out);
}

/* ---- one step of a stage tree, its features shared between threads */

/* The library's thread runner (_kernel.c): task(ctx, 0 .. count) on up to `threads` threads. */
int pt_internal_run(int (*task)(void *, int64_t), void *ctx, int64_t count, int threads);

#define HGB_MAX_PARTS 64

/* What pt_hgb_step's threads share: thread t sums and searches the features of range t. */
typedef struct {
    const uint8_t *bins;
    int64_t n, p, n_bins;
    const int64_t *rows;
    int64_t n_rows;
    const double *y, *w;
    const int64_t *last;
    double l2, min_leaf, min_hessian;
    int64_t parts, extra;
    int64_t f;              /* the split's feature (-1: the root, no split: every row summed) */
    const uint8_t *table;   /* per bin: 1 where its rows go right */
    int64_t small_right;    /* the smaller child is the right one */
    const double *parent0;  /* a copy of the parent's feature 0 (n_bins, 4) */
    double *Hp, *Hs;        /* the parent's histogram (becomes the larger child's), the smaller's (zero) */
    double *scratch;        /* parts x 2 x (n_bins, 4): each range's own feature 0 of the two children */
    int64_t *kids;          /* the rows parted (range 0): the left child's, then the right's */
    int64_t m;              /* the left child's rows (from the parent's counts) */
    int err[HGB_MAX_PARTS];
    double best[2][HGB_MAX_PARTS][2][3]; /* per child (smaller, larger), range: its bests */
    double total[HGB_MAX_PARTS][2][4];   /* per range: the children's totals (every range the same floats) */
} hgb_step_t;

/* Range t's first feature (t = parts: p). Range 0 also parts the rows: in a split it takes
 * `extra` features fewer than its share, the others more (the same floats whatever the ranges). */
static int64_t hgb_bound(const hgb_step_t *S, int64_t t) {
    if (t <= 0) return 0;
    if (t >= S->parts) return S->p;
    int64_t b = (S->p + S->extra) * t / S->parts - S->extra;
    return b < 1 ? 1 : b > S->p ? S->p : b;
}

/* Adds the rows list[0..count) to the histogram H of features [start, f1) (channels 0, 1, 3)
 * and to h0, feature 0's (all four channels). Returns PT_OK or PT_BAD_INPUT. */
static int hgb_sum(const uint8_t *bins, int64_t n, int64_t p, int64_t n_bins, const int64_t *list, int64_t count, const double *y, const double *w,
                   int64_t start, int64_t f1, double *H, double *h0) {
    for (int64_t i = 0; i < count; i++) {
        int64_t r = list[i];
        if (r < 0 || r >= n) return PT_BAD_INPUT;
        const uint8_t *row = bins + r * p;
        double wr = w[r], wy = wr * y[r];
        if (row[0] >= n_bins) return PT_BAD_INPUT;
        double *cell = h0 + (int64_t)row[0] * 4;
        cell[0] += wr;
        cell[1] += wy;
        cell[2] += wy * y[r];
        cell[3] += 1.0;
        for (int64_t f = start; f < f1; f++) {
            int64_t b = row[f];
            if (b >= n_bins) return PT_BAD_INPUT;
            cell = H + (f * n_bins + b) * 4;
            cell[0] += wr;
            cell[1] += wy;
            cell[3] += 1.0;
        }
    }
    return PT_OK;
}

/* Range t's share of a step: range 0 parts the rows, then sums the smaller child's rows over
 * its features; every other range picks the smaller child's rows out of the parent's as it
 * goes (the same rows in the same order), summing feature 0 too in a copy of its own. */
static int hgb_step_task(void *ctx, int64_t t) {
    hgb_step_t *S = ctx;
    const uint8_t *bins = S->bins, *table = S->table;
    const int64_t *rows = S->rows;
    int64_t p = S->p, n = S->n, n_bins = S->n_bins, n_rows = S->n_rows, f = S->f, f0 = hgb_bound(S, t), f1 = hgb_bound(S, t + 1);
    int64_t cells = n_bins * 4;
    for (int child = 0; child < 2; child++)
        for (int side = 0; side < 2; side++) S->best[child][t][side][0] = -HUGE_VAL;
    /* feature 0 of the smaller child: in Hs for range 0, else this range's own copy (the same floats) */
    double *s0 = f0 == 0 ? S->Hs : S->scratch + t * 2 * cells, *l0 = S->scratch + t * 2 * cells + cells;
    if (f0 > 0)
        for (int64_t c = 0; c < cells; c++) s0[c] = 0.0;
    int rc = PT_OK;
    if (f < 0) {
        rc = hgb_sum(bins, n, p, n_bins, rows, n_rows, S->y, S->w, f0 == 0 ? 1 : f0, f1, S->Hs, s0);
    } else if (t == 0) {
        int64_t *left = S->kids, *right = S->kids + S->m, m = 0, k = 0, m_max = S->m, k_max = n_rows - S->m;
        for (int64_t i = 0; i < n_rows; i++) {
            int64_t r = rows[i];
            if (r < 0 || r >= n || bins[r * p + f] >= n_bins) {
                rc = PT_BAD_INPUT;
                break;
            }
            if (table[bins[r * p + f]]) {
                if (k >= k_max) {
                    rc = PT_BAD_INPUT;  /* more rows than the parent's histogram counts */
                    break;
                }
                right[k++] = r;
            } else {
                if (m >= m_max) {
                    rc = PT_BAD_INPUT;
                    break;
                }
                left[m++] = r;
            }
        }
        if (rc == PT_OK) rc = S->small_right ? hgb_sum(bins, n, p, n_bins, right, k, S->y, S->w, 1, f1, S->Hs, s0) : hgb_sum(bins, n, p, n_bins, left, m, S->y, S->w, 1, f1, S->Hs, s0);
    } else {
        /* the smaller child's rows, in blocks, summed as they are picked */
        int64_t block[256], small_right = S->small_right;
        for (int64_t i = 0; i < n_rows && rc == PT_OK;) {
            int64_t count = 0;
            for (; i < n_rows && count < 256; i++) {
                int64_t r = rows[i];
                if (r < 0 || r >= n || bins[r * p + f] >= n_bins) {
                    rc = PT_BAD_INPUT;
                    break;
                }
                block[count] = r;
                count += (table[bins[r * p + f]] != 0) == small_right;
            }
            if (rc == PT_OK) rc = hgb_sum(bins, n, p, n_bins, block, count, S->y, S->w, f0, f1, S->Hs, s0);
        }
    }
    if (rc != PT_OK) {
        S->err[t] = rc;
        return PT_OK;
    }
    double *ts = S->total[t][0], *tl = S->total[t][1];
    hgb_totals(s0, n_bins, ts);
    if (hgb_splittable(ts, p, n_bins, S->min_leaf, S->min_hessian))
        hgb_best_in(S->Hs, f0, f1, n_bins, S->last, S->l2, S->min_leaf, S->min_hessian, ts, S->best[0][t]);
    if (f < 0) return PT_OK;
    /* the larger child: the parent's histogram less the smaller's, in place (numpy's subtract) */
    for (int64_t c = 0; c < cells; c++) l0[c] = S->parent0[c] - s0[c];
    hgb_totals(l0, n_bins, tl);
    for (int64_t g = f0; g < f1; g++) {
        double *hp = S->Hp + g * cells;
        const double *hs = S->Hs + g * cells;
        for (int64_t c = 0; c < cells; c++) hp[c] = hp[c] - hs[c];
    }
    if (hgb_splittable(tl, p, n_bins, S->min_leaf, S->min_hessian))
        hgb_best_in(S->Hp, f0, f1, n_bins, S->last, S->l2, S->min_leaf, S->min_hessian, tl, S->best[1][t]);
    return PT_OK;
}

/* One step of a stage tree (hist_gradient_boosting.Grower.grow), its features shared between
 * up to `threads` threads (each sums and searches a consecutive range of them; the floats are
 * those of pt_hgb_histogram, numpy's subtract and pt_hgb_best_split whatever the threads):
 *
 * - f >= 0: the split of a node of rows rows[0..n_rows) and histogram Hp (p, n_bins, 4) by
 *   feature f, a row going right where table[its bin] is 1. The rows are parted in order into
 *   kids[0..m) (left) and kids[m..n_rows) (right), m the left rows Hp counts; the smaller child (the right one where its rows are
 *   fewer, or as many and ties_right is 1) has its histogram summed into Hs (zero on entry),
 *   the larger one's is Hp less Hs, written over Hp.
 * - f < 0: the root: Hs the histogram of every row (Hp, table, kids unused).
 *
 * out (20 doubles): m, whether the smaller child is the right one, the smaller's totals (4),
 * the larger's (4), then per child (the smaller first) 1 if it has a split (else 0) and its
 * gain, feature, cut, side (pt_hgb_best_split's). Returns PT_OK, PT_NO_MEMORY, or
 * PT_BAD_INPUT for a row, bin or size out of range. */
PT_EXPORT int pt_hgb_step(const uint8_t *bins, int64_t n, int64_t p, const int64_t *rows, int64_t n_rows, const double *y, const double *w, int64_t n_bins,
                          const int64_t *last, double l2, double min_leaf, double min_hessian, int64_t f, const uint8_t *table, int64_t ties_right,
                          int64_t threads, double *Hp, double *Hs, int64_t *kids, double *out) {
    if (p < 1 || n_bins < 1 || n_bins > 256 || f >= p || (f >= 0 && (table == NULL || Hp == NULL || kids == NULL))) return PT_BAD_INPUT;
    hgb_step_t S;
    int64_t cells = n_bins * 4, parts = threads < 1 ? 1 : threads;
    if (parts > p) parts = p;
    if (parts > HGB_MAX_PARTS) parts = HGB_MAX_PARTS;
    memset(&S, 0, sizeof S);
    S.bins = bins;
    S.n = n;
    S.p = p;
    S.n_bins = n_bins;
    S.rows = rows;
    S.n_rows = n_rows;
    S.y = y;
    S.w = w;
    S.last = last;
    S.l2 = l2;
    S.min_leaf = min_leaf;
    S.min_hessian = min_hessian;
    S.parts = parts;
    S.extra = f >= 0 && parts > 1 ? p / 5 : 0; /* parting a node's rows costs about a fifth of summing them */
    S.f = f;
    S.table = table;
    S.Hp = Hp;
    S.Hs = Hs;
    S.kids = kids;
    double n_side[2] = {0.0, 0.0};
    if (f >= 0) {
        /* each side's rows, from the parent's counts (whole numbers: exact) */
        for (int64_t b = 0; b < n_bins; b++) n_side[table[b] != 0] += Hp[(f * n_bins + b) * 4 + 3];
        S.small_right = ties_right ? n_side[1] <= n_side[0] : n_side[1] < n_side[0];
        if (!(n_side[0] >= 0 && n_side[0] <= (double)n_rows && n_side[0] + n_side[1] == (double)n_rows)) return PT_BAD_INPUT;
        S.m = (int64_t)n_side[0];
    }
    double *scratch = malloc((size_t)((parts * 2 + 1) * cells) * sizeof(double));
    if (scratch == NULL) return PT_NO_MEMORY;
    S.scratch = scratch;
    if (f >= 0) {
        memcpy(scratch + parts * 2 * cells, Hp, (size_t)cells * sizeof(double));
        S.parent0 = scratch + parts * 2 * cells;
    }
    int rc = pt_internal_run(hgb_step_task, &S, parts, (int)parts);
    free(scratch);
    if (rc != PT_OK) return rc;
    for (int64_t t = 0; t < parts; t++)
        if (S.err[t] != PT_OK) return S.err[t];
    out[0] = (double)S.m;
    out[1] = (double)S.small_right;
    for (int child = 0; child < 2; child++) {
        double *o = out + 10 + 5 * child;
        for (int c = 0; c < 4; c++) out[2 + 4 * child + c] = S.total[0][child][c];
        o[0] = 0.0;
        if (child == 1 && f < 0) break;
        if (hgb_splittable(S.total[0][child], p, n_bins, min_leaf, min_hessian)) o[0] = (double)hgb_pick(S.best[child], parts, o + 1);
    }
    return PT_OK;
}

/* The rows rows[0..n_rows) of a node parted by feature f: a row goes right when its bin is
 * above cut, or, a missing value (bin missing), when missing_right is 1; each side keeps the
 * rows' order. Writes left[0..m) and right[0..n_rows - m) and returns m, or -1 for a row or
 * feature out of range. */
PT_EXPORT int64_t pt_hgb_partition(const uint8_t *bins, int64_t n, int64_t p, const int64_t *rows, int64_t n_rows, int64_t f, int64_t cut, int64_t missing,
                                   int64_t missing_right, int64_t *left, int64_t *right) {
    if (f < 0 || f >= p) return -1;
    int64_t m = 0, k = 0;
    for (int64_t i = 0; i < n_rows; i++) {
        int64_t r = rows[i];
        if (r < 0 || r >= n) return -1;
        int64_t b = bins[r * p + f];
        int goes_right = b == missing ? missing_right == 1 : b > cut;
        if (goes_right)
            right[k++] = r;
        else
            left[m++] = r;
    }
    return m;
}

/* Column j of the rows [r0, r1) of X (float64, row-major, p columns) binned by its upper edges
 * e[0..m) (strictly increasing, finite, m >= 1): a value's bin is the first edge at or above it
 * (numpy's searchsorted, side "left"), the last edge's bin for a value above them all, and
 * `missing` for NaN; written to column j of out (row-major, p columns, width bytes a bin). A
 * branchless binary search over the first m - 1 edges: the same bins as searchsorted, clipped. */
PT_EXPORT int pt_hist_bin(const double *X, int64_t p, int64_t r0, int64_t r1, int64_t j, const double *e, int64_t m, int64_t missing, void *out, int64_t width) {
    if ((width != 1 && width != 2 && width != 4) || j < 0 || j >= p || m < 1 || r0 < 0 || r0 > r1) return PT_BAD_INPUT;
    if (missing < m - 1 || (width == 1 && missing > 255) || (width == 2 && missing > 65535)) return PT_BAD_INPUT;
    for (int64_t r = r0; r < r1; r++) {
        double v = X[r * p + j];
        int64_t b;
        if (isnan(v)) {
            b = missing;
        } else {
            int64_t base = 0, len = m - 1;
            while (len > 1) {
                int64_t half = len / 2;
                base = e[base + half] < v ? base + half : base;
                len -= half;
            }
            b = base + (len == 1 && e[base] < v);
        }
        int64_t at = r * p + j;
        if (width == 1)
            ((uint8_t *)out)[at] = (uint8_t)b;
        else if (width == 2)
            ((uint16_t *)out)[at] = (uint16_t)b;
        else
            ((uint32_t *)out)[at] = (uint32_t)b;
    }
    return PT_OK;
}

/* Unweighted class counts: pt_hist_accumulate's class channels for weights of 1, as int32
 * counts C (slot, feature, bin, class) without the rows channel (their sum), added to C
 * (zero or a partial count on entry). Integers: the same numbers as the float64 sums below
 * 2**31 rows, which the caller ensures, without a float64 histogram of (k + 1) / k x the size. */
PT_EXPORT int pt_hist_count(const void *bins, int64_t width, int64_t n_rows, int64_t p, int64_t f0, int64_t f1, const int32_t *node, const int64_t *slot,
                            int64_t n_nodes, const int32_t *cls, int64_t k, int64_t n_slots, int64_t n_bins, int32_t *C) {
    if ((width != 1 && width != 2 && width != 4) || f0 < 0 || f1 > p || f0 > f1 || k < 1 || cls == NULL || n_rows >= INT32_MAX) return PT_BAD_INPUT;
    int64_t per_slot = p * n_bins * k;
    for (int64_t r = 0; r < n_rows; r++) {
        int64_t s = slot_of(node, slot, n_nodes, r);
        if (s == -1) continue;
        if (s < -1 || s >= n_slots) return PT_BAD_INPUT;
        int64_t c = cls[r];
        if (c < 0 || c >= k) return PT_BAD_INPUT;
        int32_t *base = C + s * per_slot + c;
        for (int64_t f = f0; f < f1; f++) {
            int64_t b = bin_at(bins, width, p, r, f);
            if (b >= n_bins) return PT_BAD_INPUT;
            base[(f * n_bins + b) * k] += 1;
        }
    }
    return PT_OK;
}
