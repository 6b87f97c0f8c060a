/* puretree's compiled loops: cart's level-wise growth (puretree/kernels.py) and C4.5's scan
 * of a node's numeric cuts (puretree/c45_kernel.py).
 *
 * Compiled when the package is built (setup.py: -O2 -ffp-contract=off, never -ffast-math: every
 * floating-point operation is the one written here, in the order written, so the scores are the
 * very floats the Python reference computes) into a plain shared library next to the package,
 * which puretree/kernels.py checks and loads with ctypes. Portable C11 (clean under -std=c11
 * -Wall -Wextra -Werror -pedantic with gcc, clang and MinGW): no 128-bit integer type, threads
 * from POSIX or from Windows' own API, no Python headers. The tolerances and limits are
 * puretree's (puretree/kernels.py passes them in); none is written here a second time.
 *
 * Every index read is within the arrays the caller describes: the callers build the orders
 * themselves (permutations of the rows), and the class codes and table indices are checked here.
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#define PT_EXPORT __declspec(dllexport)
#else
#include <pthread.h>
#define PT_EXPORT __attribute__((visibility("default")))
#endif

#define PT_OK 0
#define PT_NO_MEMORY 1
#define PT_BAD_INPUT 2
#define PT_CANCELLED 3

/* ---------------------------------------------------------------- threads and atomics */

/* A counter shared by the workers of a level, and the caller's flag asking the fit to stop
 * (puretree.kernels sets it on Ctrl-C): GCC's and Clang's atomic builtins, or Windows' own. */
#ifdef _WIN32
static int64_t fetch_add(volatile int64_t *x) { return (int64_t)InterlockedExchangeAdd64((volatile LONG64 *)x, 1); }
static int load_flag(const volatile int *x) { return *x; }
static void set_flag(volatile int *x) { InterlockedExchange((volatile LONG *)x, 1); }
#else
static int64_t fetch_add(volatile int64_t *x) { return __atomic_fetch_add(x, 1, __ATOMIC_RELAXED); }
static int load_flag(const volatile int *x) { return __atomic_load_n(x, __ATOMIC_RELAXED); }
static void set_flag(volatile int *x) { __atomic_store_n(x, 1, __ATOMIC_RELAXED); }
#endif

/* Whether the caller asked the fit to stop (no flag: never). */
static int cancelled(const int *flag) { return flag != NULL && load_flag(flag) != 0; }

/* ---------------------------------------------------------------- sums in numpy's order */

/* puretree.impurity.sum_last over n entries, numpy's sum: below 8 added in order; from 8 on,
 * a pairwise sum in blocks of 8 (numpy's pairwise_sum for n <= 128). */
static double sum_last(const double *a, int64_t n) {
    if (n < 8) {
        double s = a[0];
        for (int64_t j = 1; j < n; j++) s += a[j];
        return s;
    }
    double r0 = a[0], r1 = a[1], r2 = a[2], r3 = a[3], r4 = a[4], r5 = a[5], r6 = a[6], r7 = a[7];
    int64_t i = 8, stop = n - n % 8;
    for (; i < stop; i += 8) {
        r0 += a[i];
        r1 += a[i + 1];
        r2 += a[i + 2];
        r3 += a[i + 3];
        r4 += a[i + 4];
        r5 += a[i + 5];
        r6 += a[i + 6];
        r7 += a[i + 7];
    }
    double s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
    for (; i < n; i++) s += a[i];
    return s;
}

/* The same from 0.0 (puretree.c45_kernel's _pairwise: res = 0.0, then each entry). */
static double pairwise(const double *a, int64_t n) {
    if (n < 8) {
        double res = 0.0;
        for (int64_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    return sum_last(a, n);
}

/* ---------------------------------------------------------------- Gini, as the reference */

/* puretree.impurity.gini: proportions first, 1 - sum p**2, clamped at 0; the weight in *total */
static double gini(const double *c, int64_t k, double *tmp, double *total) {
    double t = sum_last(c, k);
    *total = t;
    if (!(t > 0)) return 0.0;
    for (int64_t j = 0; j < k; j++) {
        double p = c[j] / t;
        tmp[j] = p * p;
    }
    double g = 1.0 - sum_last(tmp, k);
    return g > 0.0 ? g : 0.0;
}

/* puretree.criteria.ImpurityDecrease(gini): each branch's share of the weight times its
 * impurity, subtracted from the parent's; a negative gain is rounding (0); no weight: -inf */
static double gini_decrease(double g_parent, const double *left, const double *right, int64_t k, double *tmp) {
    double w_left, w_right;
    double g_left = gini(left, k, tmp, &w_left);
    double g_right = gini(right, k, tmp, &w_right);
    double w = w_left + w_right;
    double share_left = w_left / w, share_right = w_right / w;
    double after = (share_left > 0 ? share_left * g_left : 0.0) + (share_right > 0 ? share_right * g_right : 0.0);
    double gain = g_parent - after;
    if (gain < 0.0) gain = 0.0;
    if (!(w > 0)) return -INFINITY;
    return gain;
}

/* For the tests: the two scores on their own (k entries each; k <= 1024). */
PT_EXPORT double pt_gini(const double *c, int64_t k) {
    double tmp[1024], total;
    if (k < 1 || k > 1024) return NAN;
    return gini(c, k, tmp, &total);
}

PT_EXPORT double pt_gini_decrease(double g_parent, const double *left, const double *right, int64_t k) {
    double tmp[1024];
    if (k < 1 || k > 1024) return NAN;
    return gini_decrease(g_parent, left, right, k, tmp);
}

/* ---------------------------------------------------------------- feature subsampling's draws */

/* The features a node may split on are numpy's own draw (puretree.splits.node_features):
 * np.random.default_rng(SeedSequence(seed, spawn_key=(*member, 1, *path))).choice(q, size=m,
 * replace=False), the set it returns. Reproduced here operation for operation so that this
 * kernel, the numpy engine and the recursive builder split every node on the same features:
 * SeedSequence's entropy mixing (numpy/random/bit_generator.pyx), PCG64 seeded from its state
 * (pcg64.h: XSL-RR 128/64, 32-bit outputs handed out low half first), Lemire's bounded draws
 * on 32 bits (distributions.c) and Floyd's algorithm (Generator.choice, populations up to
 * 10,000). Every word of the entropy past the first four is mixed into the pool one at a
 * time, so a node's pool is its parent's with one more word (its branch): each frontier
 * node carries its pool and the mixer's hash constant (RNG_WORDS words). */

#define RNG_WORDS 5
#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_L 0xca01f9ddu
#define SS_MIX_R 0x4973f715u

static inline uint32_t ss_hashmix(uint32_t value, uint32_t *h) {
    value ^= *h;
    *h *= SS_MULT_A;
    value *= *h;
    value ^= value >> 16;
    return value;
}

static inline uint32_t ss_mix(uint32_t x, uint32_t y) {
    uint32_t r = SS_MIX_L * x - SS_MIX_R * y;
    r ^= r >> 16;
    return r;
}

/* One more entropy word (past the first four) into pool s[0..3], hash constant s[4]. */
static void ss_add(uint32_t *s, uint32_t word) {
    for (int d = 0; d < 4; d++) s[d] = ss_mix(s[d], ss_hashmix(word, &s[4]));
}

/* The pool of n >= 4 entropy words (the run entropy padded to four words, then the spawn key's). */
static void ss_start(uint32_t *s, const uint32_t *entropy, int64_t n) {
    s[4] = SS_INIT_A;
    for (int i = 0; i < 4; i++) s[i] = ss_hashmix(entropy[i], &s[4]);
    for (int a = 0; a < 4; a++)
        for (int d = 0; d < 4; d++)
            if (a != d) s[d] = ss_mix(s[d], ss_hashmix(s[a], &s[4]));
    for (int64_t i = 4; i < n; i++) ss_add(s, entropy[i]);
}

/* PCG64's 128-bit arithmetic on two 64-bit halves (ISO C has no 128-bit integer). */
typedef struct {
    uint64_t hi, lo;
} u128;

static inline u128 u128_add(u128 a, u128 b) {
    u128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

/* The high 64 bits of a 64 x 64-bit product, from 32-bit halves. */
static inline uint64_t mul_high(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* a * b modulo 2**128 */
static inline u128 u128_mul(u128 a, u128 b) {
    u128 r;
    r.lo = a.lo * b.lo;
    r.hi = mul_high(a.lo, b.lo) + a.hi * b.lo + a.lo * b.hi;
    return r;
}

typedef struct {
    u128 state, inc;
    int has32;
    uint32_t half;
} pcg_t;

static const u128 PCG_MULT = {2549297995355413924ULL, 4865540595714422341ULL};

static inline void pcg_step(pcg_t *g) { g->state = u128_add(u128_mul(g->state, PCG_MULT), g->inc); }

/* PCG64 seeded as numpy seeds it from a SeedSequence: generate_state(4, uint64) gives
 * (seed high, seed low, increment high, increment low). */
static void pcg_seed(pcg_t *g, const uint32_t *pool) {
    uint32_t h = SS_INIT_B, w[8];
    for (int i = 0; i < 8; i++) {
        uint32_t v = pool[i % 4];
        v ^= h;
        h *= SS_MULT_B;
        v *= h;
        v ^= v >> 16;
        w[i] = v;
    }
    uint64_t v[4];
    for (int i = 0; i < 4; i++) v[i] = (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
    u128 seed = {v[0], v[1]};
    g->state.hi = g->state.lo = 0;
    g->inc.hi = (v[2] << 1) | (v[3] >> 63); /* (inc << 1) | 1 */
    g->inc.lo = (v[3] << 1) | 1u;
    pcg_step(g);
    g->state = u128_add(g->state, seed);
    pcg_step(g);
    g->has32 = 0;
    g->half = 0;
}

static inline uint64_t pcg_next64(pcg_t *g) {
    pcg_step(g);
    uint64_t hi = g->state.hi, lo = g->state.lo;
    uint64_t x = hi ^ lo;
    unsigned r = (unsigned)(hi >> 58);
    return (x >> r) | (x << ((64 - r) & 63));
}

static inline uint32_t pcg_next32(pcg_t *g) {
    if (g->has32) {
        g->has32 = 0;
        return g->half;
    }
    uint64_t next = pcg_next64(g);
    g->has32 = 1;
    g->half = (uint32_t)(next >> 32);
    return (uint32_t)next;
}

/* A uniform integer in [0, rng] (rng < 2**32 - 1): Lemire's method on 32-bit draws. */
static uint32_t pcg_bounded(pcg_t *g, uint32_t rng) {
    if (rng == 0) return 0;
    const uint32_t excl = rng + 1;
    uint64_t m = (uint64_t)pcg_next32(g) * excl;
    uint32_t leftover = (uint32_t)m;
    if (leftover < excl) {
        const uint32_t threshold = (UINT32_MAX - rng) % excl;
        while (leftover < threshold) {
            m = (uint64_t)pcg_next32(g) * excl;
            leftover = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* allowed[0..q): 1 for the m features drawn from the node's pool (q <= puretree.kernels.MAX_DRAW). */
static void draw_features(const uint32_t *pool, int64_t q, int64_t m, unsigned char *allowed) {
    pcg_t g;
    pcg_seed(&g, pool);
    memset(allowed, 0, (size_t)q);
    for (int64_t j = q - m; j < q; j++) {
        uint32_t v = pcg_bounded(&g, (uint32_t)j);
        if (allowed[v])
            allowed[j] = 1;
        else
            allowed[v] = 1;
    }
}

/* For the tests: the features drawn for the node whose pool follows from `entropy` (n words)
 * and then the path's words; max_draw: the most features numpy's choice draws this way (it takes
 * another route above it). */
PT_EXPORT int pt_draw_features(const uint32_t *entropy, int64_t n, const uint32_t *path, int64_t depth, int64_t q, int64_t m, int64_t max_draw,
                               unsigned char *allowed) {
    if (n < 4 || q < 1 || q > max_draw || m < 1 || m > q || depth < 0) return PT_BAD_INPUT;
    uint32_t s[RNG_WORDS];
    ss_start(s, entropy, n);
    for (int64_t i = 0; i < depth; i++) ss_add(s, path[i]);
    draw_features(s, q, m, allowed);
    return PT_OK;
}

/* The presorted orders (`rows` of n entries each) of the rows kept (keep[r] != 0), renumbered
 * in row order, into out (`rows` of m entries, m the rows kept, and one spare entry at the
 * end): a stable sort's order with rows taken out stays one (puretree.kernels.subset_orders). */
PT_EXPORT int pt_subset_orders(const int32_t *orders, int64_t rows, int64_t n, const unsigned char *keep, int64_t m, int32_t *out) {
    int32_t *renumbered = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!renumbered) return PT_NO_MEMORY;
    int64_t next = 0;
    for (int64_t r = 0; r < n; r++) renumbered[r] = keep[r] ? (int32_t)next++ : -1;
    int rc = next == m ? PT_OK : PT_BAD_INPUT;
    for (int64_t f = 0; f < rows && rc == PT_OK; f++) {
        int32_t *to = out + f * m;
        int64_t j = 0;
        for (int64_t p = 0; p < n && j <= m; p++) {
            int32_t r = orders[f * n + p];
            if (r < 0 || r >= n) {
                rc = PT_BAD_INPUT;
                break;
            }
            /* written always, kept when the row is (no branch to mispredict); at most one
             * entry past the row's m, the next row's first or the spare */
            to[j] = renumbered[r];
            j += renumbered[r] >= 0;
        }
        if (j != m) rc = PT_BAD_INPUT;
    }
    free(renumbered);
    return rc;
}

/* The node each of the n rows of X (X[r, f] = X[r * rs + f * cs], no NaN) ends in, down a
 * threshold tree's arrays (child[g] < 0: a leaf; else x <= threshold[g] goes to child[g], the
 * rest to child[g] + 1), into out (puretree.kernels.walk). */
PT_EXPORT int pt_walk(const int64_t *feature, const double *threshold, const int64_t *child, int64_t n_nodes, const double *X, int64_t n,
                      int64_t q, int64_t rs, int64_t cs, int64_t *out) {
    for (int64_t g = 0; g < n_nodes; g++)
        if (child[g] >= 0 && (child[g] <= g || child[g] + 1 >= n_nodes || feature[g] < 0 || feature[g] >= q)) return PT_BAD_INPUT;
    for (int64_t r = 0; r < n; r++) {
        int64_t g = 0;
        while (child[g] >= 0) g = child[g] + (X[r * rs + feature[g] * cs] > threshold[g]);
        out[r] = g;
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- cart's growth */

typedef struct {
    int64_t n_nodes;
    int64_t *feature;  /* column of X; -1: leaf */
    double *threshold; /* x <= threshold goes left */
    int64_t *child;    /* first child (the second is the next id); -1: leaf */
    double *counts;    /* n_nodes x k class weights */
} pt_tree;

PT_EXPORT void pt_free(pt_tree *t) {
    free(t->feature);
    free(t->threshold);
    free(t->child);
    free(t->counts);
    t->feature = NULL;
    t->threshold = NULL;
    t->child = NULL;
    t->counts = NULL;
    t->n_nodes = 0;
}

/* Everything a level's passes read; one per fit. */
typedef struct {
    const double *X;
    int64_t n, q, rs, cs; /* X[r, f] = X[r * rs + f * cs] */
    const int64_t *y;
    const double *w; /* NULL: every row weighs 1 */
    int64_t k;
    int32_t *orders; /* (q + 1) x n: one order per feature, then the rows' own order */
    double min_leaf;
    /* the level */
    int64_t F;                /* nodes in the frontier */
    int64_t *fr_node, *fr_start, *fr_end;
    unsigned char *splits;    /* whether the node may split */
    double *g_parent;         /* its Gini */
    double *counts;           /* the tree's class counts (rows: node ids) */
    double *best_score;       /* F x q */
    int64_t *best_pos;        /* F x q */
    unsigned char *goes_left; /* per row */
    int64_t *n_left_of;       /* per frontier node */
    int64_t longest;          /* longest splitting segment */
    unsigned char *allowed;   /* F x q: the features each node drew (NULL: every feature) */
    const int32_t *ranks;     /* q x n, feature subsampling: each row's position in each presorted order */
    int64_t *row_node;        /* feature subsampling: each row's node (its id in the tree) */
    double *best_lo, *best_hi; /* F x q, feature subsampling: the values either side of the best threshold */
    double tie, screen;       /* puretree.splits.TIE_TOLERANCE, puretree.kernels.SCREEN */
    const int *cancel;        /* the caller's request to stop (NULL: none) */
    int failed;               /* a worker could not allocate its scratch */
    volatile int64_t next;    /* next feature to hand out (atomic) */
} level_t;

static inline double xat(const level_t *L, int64_t r, int64_t f) { return L->X[r * L->rs + f * L->cs]; }

/* Node i's first near-best threshold on feature f along `sorted` (its len rows sorted by f's
 * values, equal values in row order), between distinct values: its score in *best (left alone
 * where there is none) and the offset in `sorted` of the last row on its left in *at. A first
 * pass ranks the positions by sum(left**2)/w_left + sum(right**2)/w_right (W times one minus
 * the children's impurity, two divisions); only those within SCREEN of the best get the
 * reference's score (six). `scratch` holds 3 * k + len doubles. */
static void scan_node(const level_t *L, int64_t i, int64_t f, const int32_t *sorted, int64_t len, double *scratch, double *best_out, int64_t *at) {
    const int64_t k = L->k;
    double *left = scratch, *right = scratch + k, *tmp = scratch + 2 * k, *scores = scratch + 3 * k;
    const double *parent = L->counts + L->fr_node[i] * k;
    double gp = L->g_parent[i];
    double total = 0.0;
    for (int64_t j = 0; j < k; j++) total += parent[j];
    /* pass 1: the ranking value of every candidate position (-inf elsewhere) */
    memset(left, 0, sizeof(double) * (size_t)k);
    double top = -INFINITY;
    int exact_all = 0;
    int64_t r = sorted[0];
    double v = xat(L, r, f);
    for (int64_t p = 0; p < len - 1; p++) {
        left[L->y[r]] += L->w ? L->w[r] : 1.0;
        int64_t r_next = sorted[p + 1];
        double v_next = xat(L, r_next, f);
        int64_t n_left = p + 1;
        double rank = -INFINITY;
        if (v < v_next && (double)n_left >= L->min_leaf && (double)(len - n_left) >= L->min_leaf) {
            double sq_left = 0.0, sq_right = 0.0, w_left = 0.0, w_right = 0.0;
            for (int64_t j = 0; j < k; j++) {
                double c = left[j];
                double d = parent[j] - c;
                if (d < 0.0) d = 0.0;
                sq_left += c * c;
                sq_right += d * d;
                w_left += c;
                w_right += d;
            }
            if (w_left > 0.0 && w_right > 0.0) {
                rank = sq_left / w_left + sq_right / w_right;
            } else {
                exact_all = 1; /* an empty side (rounding): score everything exactly */
                rank = INFINITY;
            }
        }
        scores[p] = rank;
        if (rank > top) top = rank;
        r = r_next;
        v = v_next;
    }
    if (top == -INFINITY) return;
    double bar = exact_all ? -INFINITY : top - L->screen * total;
    /* pass 2: the reference's score where the ranking comes close to the best */
    memset(left, 0, sizeof(double) * (size_t)k);
    double best = -INFINITY;
    for (int64_t p = 0; p < len - 1; p++) {
        int64_t rr = sorted[p];
        left[L->y[rr]] += L->w ? L->w[rr] : 1.0;
        if (scores[p] > -INFINITY && scores[p] >= bar) {
            for (int64_t j = 0; j < k; j++) {
                double d = parent[j] - left[j];
                right[j] = d > 0.0 ? d : 0.0; /* np.maximum(parent - left, 0) */
            }
            double sc = gini_decrease(gp, left, right, k, tmp);
            if (isnan(sc)) sc = -INFINITY;
            scores[p] = sc;
            if (sc > best) best = sc;
        } else {
            scores[p] = -INFINITY;
        }
    }
    if (best == -INFINITY) return;
    bar = best - L->tie * fmax(1.0, fabs(best));
    for (int64_t p = 0; p < len - 1; p++) { /* the first threshold within tolerance of the best */
        if (scores[p] >= bar) {
            *best_out = scores[p];
            *at = p;
            return;
        }
    }
}

/* Every splitting node's first near-best threshold on feature f, along the node's segment of
 * the feature's order (kept sorted within every node by partitioning). */
static int feature_best(level_t *L, int64_t f) {
    const int64_t q = L->q;
    double *scratch = malloc(sizeof(double) * (size_t)(3 * L->k + (L->longest > 1 ? L->longest : 1)));
    if (!scratch) return PT_NO_MEMORY;
    const int32_t *order = L->orders + f * L->n;
    for (int64_t i = 0; i < L->F; i++) {
        if (!L->splits[i]) continue;
        int64_t s = L->fr_start[i], at = -1;
        scan_node(L, i, f, order + s, L->fr_end[i] - s, scratch, &L->best_score[i * q + f], &at);
        if (at >= 0) L->best_pos[i * q + f] = s + at;
    }
    free(scratch);
    return PT_OK;
}

/* a[0 .. len) sorted ascending (distinct values below 2**bits): insertion sort for short runs,
 * else least significant digit first, 8 bits a pass, through `spare` (len entries). */
static void sort_ranks(uint32_t *a, int64_t len, int bits, uint32_t *spare) {
    if (len <= 32) {
        for (int64_t x = 1; x < len; x++) {
            uint32_t v = a[x];
            int64_t y = x - 1;
            while (y >= 0 && a[y] > v) {
                a[y + 1] = a[y];
                y--;
            }
            a[y + 1] = v;
        }
        return;
    }
    uint32_t *from = a, *to = spare;
    for (int shift = 0; shift < bits; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t x = 0; x < len; x++) count[((from[x] >> shift) & 255u) + 1]++;
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (int64_t x = 0; x < len; x++) to[count[(from[x] >> shift) & 255u]++] = from[x];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != a) memcpy(a, from, sizeof(uint32_t) * (size_t)len);
}

/* Feature subsampling: node i's best threshold on each feature it drew. Only the rows' own
 * order is kept partitioned; each drawn feature's order of the node's rows is made on demand,
 * the very order partitioning would keep (the rows sorted by value, equal values in row
 * order: by their rank in the feature's presorted order). A large node picks its rows out of
 * the whole presorted order (one pass over all rows); a small one sorts its rows' ranks. */
static int node_best(level_t *L, int64_t i) {
    if (!L->splits[i]) return PT_OK;
    const int64_t q = L->q, n = L->n, s = L->fr_start[i], len = L->fr_end[i] - s;
    const int32_t *rows = L->orders + q * n + s;
    double *scratch = malloc(sizeof(double) * (size_t)(3 * L->k + len));
    uint32_t *ranks = malloc(sizeof(uint32_t) * (size_t)(2 * len));
    int32_t *sorted = malloc(sizeof(int32_t) * (size_t)(len + 1)); /* + 1: the branchless pick below */
    if (!scratch || !ranks || !sorted) {
        free(scratch);
        free(ranks);
        free(sorted);
        return PT_NO_MEMORY;
    }
    int bits = 0;
    while (bits < 32 && ((int64_t)1 << bits) < n) bits++;
    const int64_t g = L->fr_node[i];
    for (int64_t f = 0; f < q; f++) {
        if (!L->allowed[i * q + f]) continue;
        const int32_t *order = L->orders + f * n;
        if (len * 4 >= n) {
            int64_t m = 0;
            for (int64_t p = 0; p < n && m < len; p++) { /* written always, kept when it is the node's (no branch to mispredict) */
                int32_t r = order[p];
                sorted[m] = r;
                m += L->row_node[r] == g;
            }
        } else {
            const int32_t *rank = L->ranks + f * n;
            for (int64_t x = 0; x < len; x++) ranks[x] = (uint32_t)rank[rows[x]];
            sort_ranks(ranks, len, bits, ranks + len);
            for (int64_t x = 0; x < len; x++) sorted[x] = order[ranks[x]];
        }
        int64_t at = -1;
        scan_node(L, i, f, sorted, len, scratch, &L->best_score[i * q + f], &at);
        if (at >= 0) {
            L->best_pos[i * q + f] = at;
            L->best_lo[i * q + f] = xat(L, sorted[at], f);
            L->best_hi[i * q + f] = xat(L, sorted[at + 1], f);
        }
    }
    free(scratch);
    free(ranks);
    free(sorted);
    return PT_OK;
}

/* Order f stably partitioned in place within each splitting node's segment: the left rows
 * moved up, the right ones parked in a scratch array and copied back after them. */
static int partition(level_t *L, int64_t f) {
    int32_t *right = malloc(sizeof(int32_t) * (size_t)(L->longest > 1 ? L->longest : 1));
    if (!right) return PT_NO_MEMORY;
    int32_t *order = L->orders + f * L->n;
    for (int64_t i = 0; i < L->F; i++) {
        if (!L->splits[i]) continue;
        int64_t s = L->fr_start[i], e = L->fr_end[i], a = s, b = 0;
        for (int64_t p = s; p < e; p++) {
            int32_t r = order[p];
            if (L->goes_left[r])
                order[a++] = r;
            else
                right[b++] = r;
        }
        memcpy(order + a, right, sizeof(int32_t) * (size_t)b);
    }
    free(right);
    return PT_OK;
}

/* Frees one level's buffers (those allocated again for every frontier) and forgets them, so
 * that the clean-up at the end may free them again. */
static void free_level(level_t *L, int64_t **first_child) {
    free(L->splits);
    free(L->g_parent);
    free(L->best_score);
    free(L->best_pos);
    free(L->n_left_of);
    free(*first_child);
    free(L->allowed);
    free(L->best_lo);
    free(L->best_hi);
    L->splits = NULL;
    L->g_parent = NULL;
    L->best_score = NULL;
    L->best_pos = NULL;
    L->n_left_of = NULL;
    *first_child = NULL;
    L->allowed = NULL;
    L->best_lo = L->best_hi = NULL;
}

typedef struct {
    level_t *L;
    int which; /* 0: best thresholds, 1: partition, 2: best thresholds node by node (drawn features) */
    int64_t count;
} job_t;

/* A worker: features handed out one at a time as the threads come free (on a busy machine a
 * thread held back by the scheduler does not hold the whole level back). */
static void work(job_t *job) {
    for (;;) {
        int64_t f = fetch_add(&job->L->next);
        if (f >= job->count || cancelled(job->L->cancel)) break; /* a stop request: within one feature's pass */
        int rc = job->which == 0 ? feature_best(job->L, f) : job->which == 1 ? partition(job->L, f) : node_best(job->L, f);
        if (rc != PT_OK) set_flag(&job->L->failed);
    }
}

#ifdef _WIN32
typedef HANDLE thread_t;
static DWORD WINAPI thread_main(LPVOID arg) {
    work(arg);
    return 0;
}
static int thread_start(thread_t *t, job_t *job) {
    *t = CreateThread(NULL, 0, thread_main, job, 0, NULL);
    return *t != NULL;
}
static void thread_join(thread_t t) {
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}
#else
typedef pthread_t thread_t;
static void *thread_main(void *arg) {
    work(arg);
    return NULL;
}
static int thread_start(thread_t *t, job_t *job) { return pthread_create(t, NULL, thread_main, job) == 0; }
static void thread_join(thread_t t) { pthread_join(t, NULL); }
#endif

/* One pass (which) over count features, on up to `threads` threads. */
static int run(level_t *L, int which, int64_t count, int threads) {
    job_t job = {L, which, count};
    L->next = 0;
    L->failed = 0;
    thread_t ids[64];
    int started = 0;
    if (threads > 64) threads = 64;
    if (threads > count) threads = (int)count;
    for (int t = 1; t < threads; t++) {
        if (!thread_start(&ids[started], &job)) break; /* fewer threads: the same result */
        started++;
    }
    work(&job);
    for (int t = 0; t < started; t++) thread_join(ids[t]);
    return L->failed ? PT_NO_MEMORY : cancelled(L->cancel) ? PT_CANCELLED : PT_OK;
}

/* Room for `need` nodes in the tree's arrays (doubled as needed; new nodes are leaves). */
static int with_room(pt_tree *t, int64_t *cap, int64_t need, int64_t k) {
    if (need <= *cap) return PT_OK;
    int64_t new_cap = need > 2 * *cap ? need : 2 * *cap;
    int64_t *feature = realloc(t->feature, sizeof(int64_t) * (size_t)new_cap);
    if (feature) t->feature = feature;
    double *threshold = realloc(t->threshold, sizeof(double) * (size_t)new_cap);
    if (threshold) t->threshold = threshold;
    int64_t *child = realloc(t->child, sizeof(int64_t) * (size_t)new_cap);
    if (child) t->child = child;
    double *counts = realloc(t->counts, sizeof(double) * (size_t)(new_cap * k));
    if (counts) t->counts = counts;
    if (!feature || !threshold || !child || !counts) return PT_NO_MEMORY;
    for (int64_t g = *cap; g < new_cap; g++) {
        t->feature[g] = -1;
        t->threshold[g] = 0.0;
        t->child[g] = -1;
    }
    memset(t->counts + *cap * k, 0, sizeof(double) * (size_t)((new_cap - *cap) * k));
    *cap = new_cap;
    return PT_OK;
}

/* Grows the tree level by level. X is n x q (any strides), y the class codes (0 .. k-1), w the
 * row weights (NULL: 1 each), root_counts the root's counts as the reference sums them, orders (q + 1) x n
 * with each feature's stable presorted order and then 0 .. n-1. Levels whose rows x features
 * reach min_work share their features between `threads` threads. max_features > 0: each node
 * splits on max_features features drawn from its SeedSequence, whose entropy words before the
 * node's path are entropy[0 .. n_entropy) (see draw_features); only those are scanned (at most
 * max_draw features). tie and screen: puretree's tie tolerance and the ranking's screen. Once
 * *cancel turns non-zero (another thread sets it) the fit stops within a feature's pass and
 * returns PT_CANCELLED. */
PT_EXPORT int pt_grow(const double *X, int64_t n, int64_t q, int64_t rs, int64_t cs, const int64_t *y, const double *w, int64_t k,
                      const double *root_counts, int32_t *orders, double min_split, double min_leaf, int64_t max_depth, double min_gain,
                      int use_min_gain, int64_t min_work, int threads, int64_t max_features, const uint32_t *entropy, int64_t n_entropy,
                      double tie, double screen, int64_t max_draw, const int *cancel, pt_tree *out) {
    memset(out, 0, sizeof(*out));
    if (n < 1 || q < 1 || k < 1 || n > INT32_MAX || !(tie >= 0.0) || !(screen >= 0.0)) return PT_BAD_INPUT;
    int drawing = max_features > 0;
    if (drawing && (max_features > q || q > max_draw || n_entropy < 4 || !entropy)) return PT_BAD_INPUT;
    for (int64_t r = 0; r < n; r++)
        if (y[r] < 0 || y[r] >= k) return PT_BAD_INPUT;
    for (int64_t r = 0; r < (q + 1) * n; r++)
        if (orders[r] < 0 || orders[r] >= n) return PT_BAD_INPUT;
    int rc = PT_NO_MEMORY;
    int64_t cap = 0;
    level_t L = {.X = X, .n = n, .q = q, .rs = rs, .cs = cs, .y = y, .w = w, .k = k, .orders = orders, .min_leaf = min_leaf, .tie = tie, .screen = screen, .cancel = cancel};
    double *tmp = malloc(sizeof(double) * (size_t)k);
    L.goes_left = calloc((size_t)n, 1);
    L.fr_node = malloc(sizeof(int64_t));
    L.fr_start = malloc(sizeof(int64_t));
    L.fr_end = malloc(sizeof(int64_t));
    uint32_t *fr_pool = drawing ? malloc(sizeof(uint32_t) * RNG_WORDS) : NULL; /* each frontier node's pool */
    int32_t *ranks = drawing ? malloc(sizeof(int32_t) * (size_t)(q * n)) : NULL;
    L.row_node = drawing ? calloc((size_t)n, sizeof(int64_t)) : NULL;
    int64_t *first_child = NULL;
    if (!tmp || !L.goes_left || !L.fr_node || !L.fr_start || !L.fr_end || (drawing && (!fr_pool || !ranks || !L.row_node))) goto done;
    if (drawing) {
        ss_start(fr_pool, entropy, n_entropy);
        /* the presorted orders stay as given; each row's rank in each of them */
        for (int64_t f = 0; f < q; f++)
            for (int64_t p = 0; p < n; p++) ranks[f * n + orders[f * n + p]] = (int32_t)p;
        L.ranks = ranks;
    }
    if (with_room(out, &cap, 2 * n + 1 < 1024 ? 2 * n + 1 : 1024, k) != PT_OK) goto done;
    L.fr_node[0] = 0;
    L.fr_start[0] = 0;
    L.fr_end[0] = n;
    L.F = 1;
    int64_t n_made = 1, depth = 0;
    const int32_t *rows = orders + q * n;
    while (L.F > 0) {
        int64_t F = L.F;
        if (cancelled(cancel)) { /* between levels */
            rc = PT_CANCELLED;
            goto done;
        }
        free_level(&L, &first_child);
        L.splits = calloc((size_t)F, 1);
        L.g_parent = calloc((size_t)F, sizeof(double));
        L.best_score = malloc(sizeof(double) * (size_t)(F * q));
        L.best_pos = calloc((size_t)(F * q), sizeof(int64_t));
        L.n_left_of = calloc((size_t)F, sizeof(int64_t));
        first_child = malloc(sizeof(int64_t) * (size_t)F);
        if (!L.splits || !L.g_parent || !L.best_score || !L.best_pos || !L.n_left_of || !first_child) goto done;
        L.counts = out->counts;
        /* each frontier node's class counts (summed in row order, as the numpy engine's
         * bincount adds), whether it may split, and its Gini impurity */
        int at_max = max_depth >= 0 && depth >= max_depth;
        int any = 0;
        for (int64_t i = 0; i < F; i++) {
            int64_t g = L.fr_node[i], s = L.fr_start[i], e = L.fr_end[i];
            double *c = out->counts + g * k;
            if (g == 0)
                memcpy(c, root_counts, sizeof(double) * (size_t)k); /* the reference's own sum */
            else
                for (int64_t p = s; p < e; p++) c[y[rows[p]]] += w ? w[rows[p]] : 1.0;
            int64_t lo = y[rows[s]], hi = lo;
            for (int64_t p = s + 1; p < e; p++) {
                int64_t v = y[rows[p]];
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
            L.splits[i] = !(lo == hi || (double)(e - s) < min_split || at_max);
            double total;
            L.g_parent[i] = gini(c, k, tmp, &total);
            any |= L.splits[i];
        }
        if (!any) break;
        if (with_room(out, &cap, n_made + 2 * F, k) != PT_OK) goto done;
        L.counts = out->counts;
        int64_t work_rows = 0;
        L.longest = 0;
        for (int64_t i = 0; i < F; i++) {
            if (!L.splits[i]) continue;
            int64_t len = L.fr_end[i] - L.fr_start[i];
            work_rows += len;
            if (len > L.longest) L.longest = len;
        }
        if (drawing) {
            L.allowed = malloc((size_t)(F * q));
            L.best_lo = malloc(sizeof(double) * (size_t)(F * q));
            L.best_hi = malloc(sizeof(double) * (size_t)(F * q));
            if (!L.allowed || !L.best_lo || !L.best_hi) goto done;
            for (int64_t i = 0; i < F; i++) {
                if (!L.splits[i]) continue;
                draw_features(fr_pool + i * RNG_WORDS, q, max_features, L.allowed + i * q);
                for (int64_t p = L.fr_start[i]; p < L.fr_end[i]; p++) L.row_node[rows[p]] = L.fr_node[i];
            }
        }
        int64_t scanned = drawing ? max_features : q; /* features each node scans */
        int level_threads = (q > 1 && work_rows * scanned >= min_work) ? threads : 1;
        for (int64_t x = 0; x < F * q; x++) L.best_score[x] = -INFINITY;
        if ((rc = run(&L, drawing ? 2 : 0, drawing ? F : q, level_threads)) != PT_OK) goto done;
        /* each node's split: the first feature within tolerance of the node's best, its
         * threshold (puretree.grow.midpoint), child ids, and every row's side */
        int64_t n_next = 0;
        for (int64_t i = 0; i < F; i++) {
            first_child[i] = -1;
            if (!L.splits[i]) continue;
            const double *bs = L.best_score + i * q;
            double top = -INFINITY;
            for (int64_t f = 0; f < q; f++)
                if (bs[f] > top) top = bs[f];
            if (top == -INFINITY) {
                L.splits[i] = 0;
                continue;
            }
            double bar = top - L.tie * fmax(1.0, fabs(top));
            int64_t fb = 0;
            while (bs[fb] < bar) fb++;
            if (use_min_gain && !(bs[fb] > min_gain)) {
                L.splits[i] = 0;
                continue;
            }
            int64_t pos = L.best_pos[i * q + fb];
            const int32_t *order = orders + fb * n;
            double lo_value, hi_value;
            if (drawing) { /* pos: the offset in the node's own sorted rows */
                lo_value = L.best_lo[i * q + fb];
                hi_value = L.best_hi[i * q + fb];
            } else {
                lo_value = xat(&L, order[pos], fb);
                hi_value = xat(&L, order[pos + 1], fb);
            }
            double mid = lo_value / 2.0 + hi_value / 2.0;
            int64_t g = L.fr_node[i];
            out->feature[g] = fb;
            out->threshold[g] = (lo_value <= mid && mid < hi_value) ? mid : lo_value;
            out->child[g] = n_made;
            first_child[i] = n_made;
            n_made += 2;
            n_next += 2;
            if (drawing) {
                /* the rows up to pos in value order: those at most its value (the next is larger) */
                L.n_left_of[i] = pos + 1;
                for (int64_t pp = L.fr_start[i]; pp < L.fr_end[i]; pp++) L.goes_left[rows[pp]] = xat(&L, rows[pp], fb) <= lo_value;
            } else {
                L.n_left_of[i] = pos - L.fr_start[i] + 1;
                for (int64_t pp = L.fr_start[i]; pp < L.fr_end[i]; pp++) L.goes_left[order[pp]] = pp <= pos;
            }
        }
        if (n_next == 0) break;
        L.longest = 0;
        for (int64_t i = 0; i < F; i++)
            if (L.splits[i] && L.fr_end[i] - L.fr_start[i] - L.n_left_of[i] > L.longest) L.longest = L.fr_end[i] - L.fr_start[i] - L.n_left_of[i];
        /* feature subsampling keeps the rows' own order only (the last); else every order */
        if ((rc = drawing ? partition(&L, q) : run(&L, 1, q + 1, level_threads)) != PT_OK) goto done;
        rc = PT_NO_MEMORY; /* what a failed allocation below means */
        /* the next frontier: each split node's two children, left then right */
        int64_t *nf_node = malloc(sizeof(int64_t) * (size_t)n_next);
        int64_t *nf_start = malloc(sizeof(int64_t) * (size_t)n_next);
        int64_t *nf_end = malloc(sizeof(int64_t) * (size_t)n_next);
        uint32_t *nf_pool = drawing ? malloc(sizeof(uint32_t) * RNG_WORDS * (size_t)n_next) : NULL;
        if (!nf_node || !nf_start || !nf_end || (drawing && !nf_pool)) {
            free(nf_node);
            free(nf_start);
            free(nf_end);
            free(nf_pool);
            goto done;
        }
        int64_t j = 0;
        for (int64_t i = 0; i < F; i++) {
            if (!L.splits[i]) continue;
            int64_t cut = L.fr_start[i] + L.n_left_of[i];
            nf_node[j] = first_child[i];
            nf_start[j] = L.fr_start[i];
            nf_end[j] = cut;
            nf_node[j + 1] = first_child[i] + 1;
            nf_start[j + 1] = cut;
            nf_end[j + 1] = L.fr_end[i];
            if (drawing) { /* the children's paths: the parent's, then branch 0 or 1 */
                for (int b = 0; b < 2; b++) {
                    memcpy(nf_pool + (j + b) * RNG_WORDS, fr_pool + i * RNG_WORDS, sizeof(uint32_t) * RNG_WORDS);
                    ss_add(nf_pool + (j + b) * RNG_WORDS, (uint32_t)b);
                }
            }
            j += 2;
        }
        free(fr_pool);
        fr_pool = nf_pool;
        free(L.fr_node);
        free(L.fr_start);
        free(L.fr_end);
        L.fr_node = nf_node;
        L.fr_start = nf_start;
        L.fr_end = nf_end;
        L.F = n_next;
        depth++;
    }
    out->n_nodes = n_made;
    rc = PT_OK;
done:
    free(tmp);
    free(L.goes_left);
    free(L.fr_node);
    free(L.fr_start);
    free(L.fr_end);
    free_level(&L, &first_child);
    free(L.row_node);
    free(ranks);
    free(fr_pool);
    if (rc != PT_OK) pt_free(out);
    return rc;
}

/* ---------------------------------------------------------------- C4.5's cut scan */

/* For each of f features (rows of order/values, n sorted positions each): its number of
 * admissible cuts, the best gain J48's scan finds and the sorted position of its cut (-1: none
 * above epsilon), the class counts of its known rows and those left of the cut. Row r holds
 * weight rows[r] >> shift of class rows[r] & (2**shift - 1). table[x] = x log2 x for
 * 0 <= x < table_len. As puretree.c45_kernel's specification (_scan), operation for operation. */
PT_EXPORT int pt_c45_scan(const int64_t *order, const double *values, int64_t f, int64_t n, const int64_t *rows, int64_t shift, int64_t k,
                const double *table, int64_t table_len, double total, int64_t n_classes, double min_leaf, double epsilon,
                double value_tolerance, int64_t *n_cuts, double *best, int64_t *where, int64_t *known, int64_t *left_at) {
    if (f < 0 || n < 0 || k < 1 || shift < 1 || shift > 32 || n_classes < 1) return PT_BAD_INPUT;
    const int64_t mask = ((int64_t)1 << shift) - 1;
    int64_t node_weight = 0;
    for (int64_t r = 0; r < n; r++) {
        if (rows[r] < 0 || (rows[r] & mask) >= k) return PT_BAD_INPUT;
        node_weight += rows[r] >> shift;
        if (node_weight >= table_len) return PT_BAD_INPUT; /* every table index is at most this */
    }
    for (int64_t x = 0; x < f * n; x++)
        if (order[x] < 0 || order[x] >= n) return PT_BAD_INPUT;
    int64_t *node = calloc((size_t)k, sizeof(int64_t)), *left = calloc((size_t)k, sizeof(int64_t));
    double *tl = calloc((size_t)k, sizeof(double)), *tr = calloc((size_t)k, sizeof(double));
    if (!node || !left || !tl || !tr) {
        free(node);
        free(left);
        free(tl);
        free(tr);
        return PT_NO_MEMORY;
    }
    for (int64_t r = 0; r < n; r++) node[rows[r] & mask] += rows[r] >> shift;
    for (int64_t i = 0; i < f; i++) {
        const int64_t *oi = order + i * n;
        const double *vi = values + i * n;
        int64_t *ki = known + i * k;
        n_cuts[i] = 0;
        best[i] = 0.0;
        where[i] = -1;
        memset(left_at + i * k, 0, sizeof(int64_t) * (size_t)k);
        /* the known rows' counts: the node's, less the rows missing this feature (sorted last) */
        memcpy(ki, node, sizeof(int64_t) * (size_t)k);
        int64_t nk = n;
        while (nk > 0 && isnan(vi[nk - 1])) {
            nk--;
            int64_t row = rows[oi[nk]];
            ki[row & mask] -= row >> shift;
        }
        int64_t kwi = 0;
        for (int64_t c = 0; c < k; c++) {
            kwi += ki[c];
            tl[c] = table[ki[c]];
        }
        double kw = (double)kwi;
        double least = 0.1 * kw / (double)n_classes;
        if (min_leaf > least) least = min_leaf;
        if (25.0 < least) least = 25.0;
        if (nk < 2 || kw - 2 * least < -epsilon) continue;
        double parent = table[kwi] - pairwise(tl, k);
        double share = kw / total;
        memset(left, 0, sizeof(int64_t) * (size_t)k);
        int64_t wl = 0, cuts = 0;
        double b = 0.0;
        for (int64_t p = 0; p < nk - 1; p++) {
            int64_t row = rows[oi[p]];
            int64_t wr = row >> shift;
            left[row & mask] += wr;
            wl += wr;
            if (!(vi[p] + value_tolerance < vi[p + 1])) continue;
            double wlf = (double)wl;
            if (!(wlf - least > -epsilon && (kw - wlf) - least > -epsilon)) continue;
            cuts++;
            for (int64_t c = 0; c < k; c++) {
                tl[c] = table[left[c]];
                tr[c] = table[ki[c] - left[c]];
            }
            double children = (table[wl] - pairwise(tl, k)) + (table[kwi - wl] - pairwise(tr, k));
            double numerator = share * (parent - children);
            double gain = (kw <= 0 || fabs(numerator) < epsilon) ? 0.0 : numerator / kw;
            if (gain > b + epsilon) { /* J48 moves on only for a gain better by epsilon */
                b = gain;
                where[i] = p;
                memcpy(left_at + i * k, left, sizeof(int64_t) * (size_t)k);
            }
        }
        n_cuts[i] = cuts;
        best[i] = b;
    }
    free(node);
    free(left);
    free(tl);
    free(tr);
    return PT_OK;
}
