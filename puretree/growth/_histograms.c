/* The binned source's loops over a block of rows (puretree/growth/histograms.py): the rows'
 * statistics summed into per-node histograms, and the rows moved to their children.
 *
 * Compiled into the same library as puretree/_kernel.c (setup.py), with the same flags
 * (-ffp-contract=off, never -ffast-math) and the same portability (strict C11, no Python
 * headers, no threads: the caller runs disjoint feature or row ranges in threads of its own,
 * ctypes releasing the GIL). Every histogram cell is the sum of its rows' statistics added in
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

#ifdef _WIN32
#define PT_EXPORT __declspec(dllexport)
#else
#define PT_EXPORT __attribute__((visibility("default")))
#endif

#define PT_OK 0
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

/* The best split of a node from its histogram H (p, n_bins, 4), the last bin its missing
 * values: numpy's floats of hist_gradient_boosting._Grower.best_split, computed in place.
 * The node's totals are feature 0's bins summed in order (written to total[0..4)); a cut after
 * bin b (b <= last[f]) sends bins 0..b left, the missing values right (side 1) or, where the
 * feature has some, left (side 0); each side needs min_leaf rows and min_hessian; the gain is
 * GL^2 / (HL + l2) + GR^2 / (HR + l2) - G^2 / (H + l2). The first best over (feature, cut) for
 * side 1, then side 0 where strictly better. out: gain, feature, cut, side; returns 1 if a
 * positive gain was found, else 0. */
PT_EXPORT int pt_hgb_best_split(const double *H, int64_t p, int64_t n_bins, const int64_t *last, double l2, double min_leaf, double min_hessian, double *total,
                                double *out) {
    int found = 0;
    for (int64_t c = 0; c < 4; c++) {
        double s = H[c];
        for (int64_t b = 1; b < n_bins; b++) s += H[b * 4 + c];
        total[c] = s;
    }
    if (total[3] < 2 * min_leaf || total[0] < 2 * min_hessian || p < 1 || n_bins < 2) return 0;
    double parent = total[1] * total[1] / (total[0] + l2);
    for (int side = 1; side >= 0; side--) {
        double best = -HUGE_VAL;
        int64_t best_f = 0, best_b = 0;
        for (int64_t f = 0; f < p; f++) {
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
                if (gain > best) {
                    best = gain;
                    best_f = f;
                    best_b = b;
                }
            }
        }
        if (best > 0 && (!found || best > out[0])) {
            out[0] = best;
            out[1] = (double)best_f;
            out[2] = (double)best_b;
            out[3] = (double)side;
            found = 1;
        }
        if (side == 1) {
            int any = 0;
            for (int64_t f = 0; f < p; f++) any |= H[(f * n_bins + n_bins - 1) * 4 + 3] > 0;
            if (!any) break;
        }
    }
    return found;
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
