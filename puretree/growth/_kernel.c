/* puretree's compiled loops: the sorted source's per-level scan of numeric thresholds and move
 * of its presorted orders (puretree/growth/kernels.py, for puretree/growth/sorted.py), C4.5's
 * scan of a node's numeric cuts (puretree/growth/c45_cuts.py), and the presorted orders and
 * walks an ensemble shares between its members.
 *
 * Compiled when the package is built (setup.py: -O2 -ffp-contract=off, never -ffast-math: every
 * floating-point operation is the one written here, in the order written, so the scores are the
 * very floats the Python reference computes) into a plain shared library next to the package,
 * which puretree/growth/kernels.py checks and loads with ctypes. Portable C11 (clean under -std=c11
 * -Wall -Wextra -Werror -pedantic with gcc, clang and MinGW): no 128-bit integer type, threads
 * from POSIX or from Windows' own API, no Python headers. The tolerances and limits are
 * puretree's (puretree/growth/kernels.py passes them in); none is written here a second time.
 *
 * Every index read is within the arrays the caller describes: the callers build the orders
 * themselves (permutations of the instances), and the class codes, rows and table indices are
 * checked here.
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

/* The same with numpy's start below 8 entries: 0.0, then each entry (np.add.reduce of a short row). */
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

/* ---------------------------------------------------------------- presorted orders and walks (ensembles) */

/* The presorted orders (`rows` of n entries each) of the rows kept (keep[r] != 0), renumbered
 * in row order, into out (`rows` of m entries, m the rows kept, and one spare entry at the
 * end): a stable sort's order with rows taken out stays one (puretree.growth.kernels.subset_orders). */
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

/* ---------------------------------------------------------------- the sorted source's levels */

/* puretree.growth.sorted keeps the instances of a frontier (rows reaching it, sorted by node
 * and then row), one order of them per numeric feature (int32 positions, each node's segment
 * sorted by the feature's value, equal values in row order) and the nodes' class sums. Once per
 * level it asks this code for every (node, feature)'s best threshold by the Gini impurity
 * decrease (pt_scan_level), and for the orders of the next frontier (pt_partition_level);
 * the loop itself, the choice among features and the routing of the rows stay in Python. */

/* Work shared between threads, one index (a feature) at a time. */
typedef struct {
    int (*task)(void *ctx, int64_t index); /* PT_OK, else an error code */
    void *ctx;
    int64_t count;
    const int *cancel;      /* the caller's request to stop (NULL: none) */
    volatile int failed;    /* a task could not allocate its scratch */
    volatile int64_t next;  /* next index to hand out (atomic) */
} job_t;

/* A worker: indices handed out one at a time as the threads come free (on a busy machine a
 * thread held back by the scheduler does not hold the whole level back). */
static void work(job_t *job) {
    for (;;) {
        int64_t f = fetch_add(&job->next);
        if (f >= job->count || cancelled(job->cancel)) break; /* a stop request: within one feature's pass */
        if (job->task(job->ctx, f) != PT_OK) set_flag(&job->failed);
    }
}

/* The threads: started once and kept between jobs (a histogram boosting step lasts about as
 * long as starting and joining a thread), so that run() only hands them its job. One run() at
 * a time has the pool (`busy`); another one meanwhile (two Python threads calling the library)
 * starts and joins threads of its own as before. run() posts its job (`posted` counts the
 * jobs) with `seats` for helpers; a helper takes a seat under the lock, works, and leaves it
 * (`working`); run() closes the seats left when its own share is done and waits for the
 * helpers still working: a job (on run()'s stack) is never touched after run() returns, and a
 * helper that comes late finds no seat. The numbers are the same whoever works: each index is
 * one task, whatever thread takes it.
 *
 * Waking a parked thread takes the scheduler a while (longer than some steps on a virtual
 * machine), so a helper done with a job first watches for the next one for SPINS rounds (about
 * 0.1 ms: a tree's steps come tens of microseconds of Python apart), and only then parks on a
 * condition variable; run() waits for its helpers the same way. The rounds keep the core (a
 * pause, no sched_yield: on a busy machine that would give it away for a whole time slice). */
#define POOL_MAX 63
#define SPINS 4096

#ifdef _WIN32
typedef HANDLE thread_t;
static SRWLOCK pool_lock = SRWLOCK_INIT;
static CONDITION_VARIABLE pool_wake = CONDITION_VARIABLE_INIT, pool_done = CONDITION_VARIABLE_INIT;
static void pool_enter(void) { AcquireSRWLockExclusive(&pool_lock); }
static void pool_leave(void) { ReleaseSRWLockExclusive(&pool_lock); }
static void pool_wait(CONDITION_VARIABLE *c) { SleepConditionVariableSRW(c, &pool_lock, INFINITE, 0); }
static void pool_signal(CONDITION_VARIABLE *c) { WakeConditionVariable(c); }
static void pool_broadcast(CONDITION_VARIABLE *c) { WakeAllConditionVariable(c); }
static void relax(void) { YieldProcessor(); }
static int64_t load64(const volatile int64_t *x) { return InterlockedCompareExchange64((volatile LONG64 *)x, 0, 0); }
static void store64(volatile int64_t *x, int64_t v) { InterlockedExchange64((volatile LONG64 *)x, v); }
#else
typedef pthread_t thread_t;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER, pool_done = PTHREAD_COND_INITIALIZER;
static void pool_enter(void) { pthread_mutex_lock(&pool_lock); }
static void pool_leave(void) { pthread_mutex_unlock(&pool_lock); }
static void pool_wait(pthread_cond_t *c) { pthread_cond_wait(c, &pool_lock); }
static void pool_signal(pthread_cond_t *c) { pthread_cond_signal(c); }
static void pool_broadcast(pthread_cond_t *c) { pthread_cond_broadcast(c); }
#if defined(__x86_64__) || defined(__i386__)
static void relax(void) { __builtin_ia32_pause(); }
#else
static void relax(void) {}
#endif
static int64_t load64(const volatile int64_t *x) { return __atomic_load_n(x, __ATOMIC_ACQUIRE); }
static void store64(volatile int64_t *x, int64_t v) { __atomic_store_n(x, v, __ATOMIC_RELEASE); }
#endif

/* The pool's state, changed under its lock; `posted` and `working` are also read without it
 * (atomically) by the waits' spinning rounds, which then take the lock before going on. */
static struct {
    int started;             /* helpers running (spinning, parked or working) */
    int busy;                /* a run() has the pool */
    int parked;              /* helpers waiting on pool_wake */
    job_t *job;              /* the current job */
    int seats;               /* seats of it no helper has taken */
    volatile int64_t working; /* helpers on it */
    volatile int64_t posted;  /* jobs posted so far */
} pool;

/* A helper: waits for a seat, works, leaves it; never ends (the process's exit does). */
static void helper(void) {
    int64_t seen = 0;
    pool_enter();
    for (;;) {
        if (pool.seats == 0) {
            pool_leave();
            for (int i = 0; i < SPINS && load64(&pool.posted) == seen; i++) relax();
            pool_enter();
            pool.parked++;
            while (pool.seats == 0) pool_wait(&pool_wake);
            pool.parked--;
        }
        job_t *job = pool.job;
        seen = pool.posted;
        pool.seats--;
        store64(&pool.working, pool.working + 1);
        pool_leave();
        work(job);
        pool_enter();
        store64(&pool.working, pool.working - 1);
        if (pool.working == 0) pool_signal(&pool_done);
    }
}

#ifdef _WIN32
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
static DWORD WINAPI helper_main(LPVOID arg) {
    (void)arg;
    helper();
    return 0;
}
static int helper_start(void) {
    HANDLE t = CreateThread(NULL, 0, helper_main, NULL, 0, NULL);
    if (t == NULL) return 0;
    CloseHandle(t); /* detached: it runs until the process ends */
    return 1;
}
static void pool_once(void) {}
#else
static void *thread_main(void *arg) {
    work(arg);
    return NULL;
}
static int thread_start(thread_t *t, job_t *job) { return pthread_create(t, NULL, thread_main, job) == 0; }
static void thread_join(thread_t t) { pthread_join(t, NULL); }
static void *helper_main(void *arg) {
    (void)arg;
    helper();
    return NULL;
}
static int helper_start(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, helper_main, NULL) != 0) return 0;
    pthread_detach(t);
    return 1;
}
/* A fork (multiprocessing) copies the pool's state but none of its helpers: the lock is held
 * across the fork (no other thread halfway through changing the state), and the child starts
 * with no helper, its run() starting them anew, and with the lock and the condition variables
 * made anew (the copies count the parent's waiters: a broadcast would wait for them forever). */
static void pool_before_fork(void) { pool_enter(); }
static void pool_after_fork(void) { pool_leave(); }
static void pool_in_child(void) {
    pool.started = 0;
    pool.busy = 0;
    pool.parked = 0;
    pool.job = NULL;
    pool.seats = 0;
    pool.working = 0;
    pool_leave();
    pthread_mutex_init(&pool_lock, NULL);
    pthread_cond_init(&pool_wake, NULL);
    pthread_cond_init(&pool_done, NULL);
}
static pthread_once_t pool_registered = PTHREAD_ONCE_INIT;
static void pool_register(void) { pthread_atfork(pool_before_fork, pool_after_fork, pool_in_child); }
static void pool_once(void) { pthread_once(&pool_registered, pool_register); }
#endif

/* job on the pool's helpers and the calling thread, up to `threads` in all; 0 when another
 * run() has the pool. */
static int run_pooled(job_t *job, int threads) {
    pool_once();
    pool_enter();
    if (pool.busy) {
        pool_leave();
        return 0;
    }
    pool.busy = 1;
    while (pool.started < threads - 1 && helper_start()) pool.started++;
    pool.job = job;
    pool.seats = threads - 1 < pool.started ? threads - 1 : pool.started;
    store64(&pool.posted, pool.posted + 1);
    if (pool.seats > 0 && pool.parked > 0) pool_broadcast(&pool_wake); /* the spinning ones see `posted` */
    pool_leave();
    work(job);
    pool_enter();
    pool.seats = 0; /* the work is handed out: a helper not yet come has nothing to do */
    if (pool.working > 0) {
        pool_leave();
        for (int i = 0; i < SPINS && load64(&pool.working) > 0; i++) relax();
        pool_enter();
        while (pool.working > 0) pool_wait(&pool_done);
    }
    pool.job = NULL;
    pool.busy = 0;
    pool_leave();
    return 1;
}

/* task(ctx, 0 .. count) on up to `threads` threads (fewer when one cannot start: the same result). */
static int run(int (*task)(void *, int64_t), void *ctx, int64_t count, int threads, const int *cancel) {
    job_t job = {task, ctx, count, cancel, 0, 0};
    if (threads > POOL_MAX + 1) threads = POOL_MAX + 1;
    if (threads > count) threads = (int)count;
    if (threads <= 1) {
        work(&job);
    } else if (!run_pooled(&job, threads)) {
        /* the pool taken by another run(): threads of this call's own */
        thread_t ids[POOL_MAX];
        int started = 0;
        for (int t = 1; t < threads; t++) {
            if (!thread_start(&ids[started], &job)) break;
            started++;
        }
        work(&job);
        for (int t = 0; t < started; t++) thread_join(ids[t]);
    }
    return job.failed ? PT_NO_MEMORY : cancelled(cancel) ? PT_CANCELLED : PT_OK;
}

/* run() for the other sources of the library (_histograms.c declares it): not exported (no
 * PT_EXPORT; -fvisibility=hidden), no stop request. */
int pt_internal_run(int (*task)(void *, int64_t), void *ctx, int64_t count, int threads);
int pt_internal_run(int (*task)(void *, int64_t), void *ctx, int64_t count, int threads) { return run(task, ctx, count, threads, NULL); }

/* One level's scan: what pt_scan_level reads and writes. */
typedef struct {
    const double *X;         /* q x n: X[f * n + r], feature f's value of row r */
    int64_t n, q, m, k, N;
    const int32_t *orders;   /* q x m: each feature's positions of the instances */
    const int64_t *row, *cls; /* per instance: its row and class code */
    const double *w;         /* per instance weight (NULL: every one weighs 1) */
    const int64_t *starts, *lens; /* per node: its segment of every order */
    const double *stats;     /* N x k: each node's class sums */
    const unsigned char *allowed; /* N x q: the features each node may split on (NULL: all) */
    double *g_parent;        /* per node: its Gini impurity */
    double min_leaf, tie, screen;
    double min_weight;       /* the least weight of a child (0: no bound) */
    int64_t longest;         /* the longest segment */
    double *best, *lo, *hi;  /* N x q: the best score (-inf: none), the values either side */
} scan_t;

/* Room a scan keeps for the left sums of the positions that may come within `screen` of the
 * best (below); past it, the sums are made again in a second pass (the same numbers). */
#define SNAPSHOTS 4096

/* A thread's scratch for scan_node: the k-sized sums, one score per position, and the
 * snapshots (their positions, ranking values, left sums and scores). */
typedef struct {
    double *left, *right, *tmp, *scores;
    int64_t *at;
    double *rank, *sums, *exact;
    int64_t room;
} scratch_t;

/* Node i's first near-best threshold along its len instances sorted by a feature's values
 * (equal values in row order): their values v, class codes c and weights wt (NULL: 1), gathered
 * by scan_feature. Between distinct values only: its score in *best_out (left alone where there
 * is none) and the offset of the last instance on its left in *at. A first pass ranks the
 * positions by sum(left**2)/w_left + sum(right**2)/w_right (W times one minus the children's
 * impurity, two divisions); only those within `screen` of the best get the reference's score
 * (six). The ranking's running best only grows, so every position that ends within `screen` of
 * the best was within it of the running best when it was passed: those are kept (their left
 * sums, the very numbers a second pass would add up) as the pass goes, and scored after it. */
static void scan_node(const scan_t *S, int64_t i, const double *v, const int64_t *c, const double *wt, int64_t len, scratch_t *X, double *best_out, int64_t *at) {
    const int64_t k = S->k;
    double *left = X->left, *right = X->right, *tmp = X->tmp, *scores = X->scores;
    const double *parent = S->stats + i * k;
    double gp = S->g_parent[i];
    double total = 0.0;
    for (int64_t j = 0; j < k; j++) total += parent[j];
    /* pass 1: the ranking value of every candidate position (-inf elsewhere) */
    memset(left, 0, sizeof(double) * (size_t)k);
    double top = -INFINITY;
    int exact_all = 0, overflow = 0;
    int64_t kept = 0;
    for (int64_t p = 0; p < len - 1; p++) {
        left[c[p]] += wt ? wt[p] : 1.0;
        int64_t n_left = p + 1;
        double rank = -INFINITY;
        if (v[p] < v[p + 1] && (double)n_left >= S->min_leaf && (double)(len - n_left) >= S->min_leaf) {
            double sq_left = 0.0, sq_right = 0.0, w_left = 0.0, w_right = 0.0;
            for (int64_t j = 0; j < k; j++) {
                double a = left[j];
                double d = parent[j] - a;
                if (d < 0.0) d = 0.0;
                sq_left += a * a;
                sq_right += d * d;
                w_left += a;
                w_right += d;
            }
            if (S->min_weight > 0.0 && !(w_left >= S->min_weight && total - w_left >= S->min_weight)) {
                rank = -INFINITY; /* a child lighter than min_weight: not a candidate (choose.heavy_enough) */
            } else if (w_left > 0.0 && w_right > 0.0) {
                rank = sq_left / w_left + sq_right / w_right;
            } else {
                exact_all = 1; /* an empty side (rounding): score everything exactly */
                rank = INFINITY;
            }
            if (rank > -INFINITY && rank >= top - S->screen * total) { /* within reach of the running best */
                if (kept < X->room) {
                    X->at[kept] = p;
                    X->rank[kept] = rank;
                    memcpy(X->sums + kept * k, left, sizeof(double) * (size_t)k);
                    kept++;
                } else {
                    overflow = 1;
                }
            }
        }
        scores[p] = rank;
        if (rank > top) top = rank;
    }
    if (top == -INFINITY) return;
    double bar = exact_all ? -INFINITY : top - S->screen * total;
    double best = -INFINITY;
    if (!exact_all && !overflow) { /* the reference's score of the positions kept that come close to the best */
        for (int64_t j = 0; j < kept; j++) {
            X->exact[j] = -INFINITY;
            if (!(X->rank[j] >= bar)) continue;
            const double *lj = X->sums + j * k;
            for (int64_t q = 0; q < k; q++) {
                double d = parent[q] - lj[q];
                right[q] = d > 0.0 ? d : 0.0; /* np.maximum(parent - left, 0) */
            }
            double sc = gini_decrease(gp, lj, right, k, tmp);
            if (isnan(sc)) sc = -INFINITY;
            X->exact[j] = sc;
            if (sc > best) best = sc;
        }
        if (best == -INFINITY) return;
        double tied = best - S->tie * fmax(1.0, fabs(best));
        for (int64_t j = 0; j < kept; j++) { /* the first threshold within tolerance of the best */
            if (X->exact[j] >= tied) {
                *best_out = X->exact[j];
                *at = X->at[j];
                return;
            }
        }
        return;
    }
    /* pass 2 (too many positions kept, or every one scored): the sums made again */
    memset(left, 0, sizeof(double) * (size_t)k);
    for (int64_t p = 0; p < len - 1; p++) {
        left[c[p]] += wt ? wt[p] : 1.0;
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
    bar = best - S->tie * fmax(1.0, fabs(best));
    for (int64_t p = 0; p < len - 1; p++) { /* the first threshold within tolerance of the best */
        if (scores[p] >= bar) {
            *best_out = scores[p];
            *at = p;
            return;
        }
    }
}

/* Every node's first near-best threshold on feature f, each node's instances gathered in the
 * feature's order first (one pass of scattered reads; the scans then read contiguous memory). */
static int scan_feature(void *ctx, int64_t f) {
    const scan_t *S = ctx;
    const int64_t k = S->k, room = S->longest > 1 ? S->longest : 1, snaps = room < SNAPSHOTS ? room : SNAPSHOTS;
    scratch_t X = {malloc(sizeof(double) * (size_t)k), malloc(sizeof(double) * (size_t)k), malloc(sizeof(double) * (size_t)k), malloc(sizeof(double) * (size_t)room),
                   malloc(sizeof(int64_t) * (size_t)snaps), malloc(sizeof(double) * (size_t)snaps), malloc(sizeof(double) * (size_t)(snaps * k)), malloc(sizeof(double) * (size_t)snaps), snaps};
    double *v = malloc(sizeof(double) * (size_t)room), *wt = S->w ? malloc(sizeof(double) * (size_t)room) : NULL;
    int64_t *c = malloc(sizeof(int64_t) * (size_t)room);
    int rc = X.left && X.right && X.tmp && X.scores && X.at && X.rank && X.sums && X.exact && v && c && (wt || !S->w) ? PT_OK : PT_NO_MEMORY;
    const int32_t *order = S->orders + f * S->m;
    const double *x = S->X + f * S->n;
    for (int64_t i = 0; i < S->N && rc == PT_OK; i++) {
        int64_t s = S->starts[i], len = S->lens[i], at = -1, cell = i * S->q + f;
        if (len < 2 || (S->allowed && !S->allowed[cell])) continue;
        const int32_t *seg = order + s;
        if (!(x[S->row[seg[0]]] < x[S->row[seg[len - 1]]])) continue; /* one value: no threshold */
        for (int64_t p = 0; p < len; p++) {
            int32_t e = seg[p];
            v[p] = x[S->row[e]];
            c[p] = S->cls[e];
        }
        if (wt)
            for (int64_t p = 0; p < len; p++) wt[p] = S->w[seg[p]];
        scan_node(S, i, v, c, wt, len, &X, &S->best[cell], &at);
        if (at >= 0) {
            S->lo[cell] = v[at];
            S->hi[cell] = v[at + 1];
        }
    }
    free(X.left);
    free(X.right);
    free(X.tmp);
    free(X.scores);
    free(X.at);
    free(X.rank);
    free(X.sums);
    free(X.exact);
    free(v);
    free(wt);
    free(c);
    return rc;
}

/* Per node i of a frontier of N (its instances the segment [starts[i], starts[i] + lens[i]) of
 * every order) and per numeric feature f of q, the first threshold within `tie` (puretree's
 * tie tolerance) of the best Gini impurity decrease, as puretree.growth.sorted's numpy scan
 * finds it: best[i, f] (-inf: none), lo[i, f] and hi[i, f] the values either side. X: q x n
 * (X[f * n + r]), no NaN; orders: q x m positions of the m instances, each of row row[p], class
 * cls[p] (< k), weight w[p] (NULL: 1); stats: N x k the nodes' class sums; allowed: N x q, the
 * features each node may split on (NULL: all). min_leaf: fewest instances on a side; min_weight:
 * least weight on a side (0: none). screen: puretree.growth.kernels.SCREEN. Features are shared between `threads` threads; once *cancel
 * turns non-zero the scan stops within a feature and returns PT_CANCELLED. */
PT_EXPORT int pt_scan_level(const double *X, int64_t n, int64_t q, const int32_t *orders, int64_t m, const int64_t *row, const int64_t *cls,
                            const double *w, int64_t k, int64_t N, const int64_t *starts, const int64_t *lens, const double *stats,
                            const unsigned char *allowed, double min_leaf, double min_weight, double tie, double screen, int threads, const int *cancel,
                            double *best, double *lo, double *hi) {
    if (n < 1 || q < 0 || m < 0 || k < 1 || k > 1024 || N < 0 || !(tie >= 0.0) || !(screen >= 0.0) || !(min_weight >= 0.0)) return PT_BAD_INPUT;
    int64_t longest = 0, seen = 0;
    for (int64_t i = 0; i < N; i++) {
        if (starts[i] != seen || lens[i] < 0) return PT_BAD_INPUT; /* segments one after the other */
        seen += lens[i];
        if (lens[i] > longest) longest = lens[i];
    }
    if (seen != m) return PT_BAD_INPUT;
    for (int64_t p = 0; p < m; p++)
        if (row[p] < 0 || row[p] >= n || cls[p] < 0 || cls[p] >= k) return PT_BAD_INPUT;
    for (int64_t x = 0; x < N * q; x++) best[x] = -INFINITY, lo[x] = hi[x] = 0.0;
    double *g_parent = malloc(sizeof(double) * (size_t)(N > 0 ? N : 1));
    if (!g_parent) return PT_NO_MEMORY;
    double tmp[1024], total;
    for (int64_t i = 0; i < N; i++) g_parent[i] = gini(stats + i * k, k, tmp, &total);
    scan_t S = {X, n, q, m, k, N, orders, row, cls, w, starts, lens, stats, allowed, g_parent, min_leaf, tie, screen, min_weight, longest, best, lo, hi};
    int rc = run(scan_feature, &S, q, threads, cancel);
    free(g_parent);
    return rc;
}

/* One level's move: what pt_partition_level reads and writes. */
typedef struct {
    const int32_t *orders; /* q x m: the old instances' positions */
    int64_t m, q, m_next, n_next;
    const int32_t *new_id;  /* per old instance: its id in the next frontier (-1: it leaves) */
    const int64_t *node;    /* per new instance: its node */
    const int64_t *starts;  /* per new node: its segment's start */
    int32_t *out;           /* q x m_next */
} move_t;

/* Order f of the next frontier: the old order's instances that stay, renumbered, each put at
 * its node's next place (stable: within a node, in the old order). */
static int move_feature(void *ctx, int64_t f) {
    const move_t *M = ctx;
    int64_t *at = malloc(sizeof(int64_t) * (size_t)(M->n_next > 0 ? M->n_next : 1));
    if (!at) return PT_NO_MEMORY;
    memcpy(at, M->starts, sizeof(int64_t) * (size_t)M->n_next);
    const int32_t *order = M->orders + f * M->m;
    int32_t *out = M->out + f * M->m_next;
    for (int64_t p = 0; p < M->m; p++) {
        int32_t id = M->new_id[order[p]];
        if (id >= 0) out[at[M->node[id]]++] = id;
    }
    free(at);
    return PT_OK;
}

/* The orders of the next frontier (out: q x m_next) from the orders of this one (q x m): every
 * instance that stays (new_id[p] >= 0, each new id once) renumbered and stably partitioned by its
 * new node (node[id] < n_next, node sizes as the segments' starts give). Features are shared
 * between `threads` threads. */
PT_EXPORT int pt_partition_level(const int32_t *orders, int64_t q, int64_t m, const int32_t *new_id, int64_t m_next, const int64_t *node,
                                 int64_t n_next, const int64_t *starts, int threads, const int *cancel, int32_t *out) {
    if (q < 0 || m < 0 || m_next < 0 || n_next < 0) return PT_BAD_INPUT;
    int64_t *count = calloc((size_t)(n_next > 0 ? n_next : 1), sizeof(int64_t));
    unsigned char *hit = calloc((size_t)(m_next > 0 ? m_next : 1), 1);
    int rc = count && hit ? PT_OK : PT_NO_MEMORY;
    for (int64_t p = 0; p < m && rc == PT_OK; p++) {
        int32_t id = new_id[p];
        if (id < -1 || id >= m_next || (id >= 0 && hit[id]++)) rc = PT_BAD_INPUT;
    }
    for (int64_t j = 0; j < m_next && rc == PT_OK; j++)
        if (!hit[j] || node[j] < 0 || node[j] >= n_next) rc = PT_BAD_INPUT;
        else count[node[j]]++;
    for (int64_t i = 0; i < n_next && rc == PT_OK; i++)
        if (starts[i] != (i ? starts[i - 1] + count[i - 1] : 0)) rc = PT_BAD_INPUT;
    free(count);
    free(hit);
    if (rc != PT_OK) return rc;
    move_t M = {orders, m, q, m_next, n_next, new_id, node, starts, out};
    return run(move_feature, &M, q, threads, cancel);
}

/* ---------------------------------------------------------------- bounds and a learned missing side */

/* puretree.growth.bounds' scan (monotonic_cst, missing="learn"): per (node, feature) the first
 * near-best threshold among three variants (the missing rows right, left, or alone right with
 * threshold +inf), each candidate kept only where its children's values keep the node's bounds
 * and the feature's direction. Gini impurity decrease on classes (screened by the ranking, as
 * scan_node) or the variance decrease on (w, w*y, w*y**2); the numbers and order of the numpy
 * path (Bounded._scan), which stays the fallback. */
typedef struct {
    const double *X;          /* q x n, NaN allowed (sorted last in each segment) */
    int64_t n, q, m, k, N;
    const int32_t *orders;    /* q x m */
    const int64_t *row, *cls; /* per instance: row, class code (NULL: regression) */
    const double *w;          /* per instance weight (NULL: 1) */
    const double *inst;       /* m x k: each instance's statistics (regression; NULL for classes) */
    const int64_t *starts, *lens;
    const double *stats, *total; /* N x k node sums; N node weights (the screen) */
    const double *lower, *upper; /* N: each node's bounds */
    const int64_t *direction;    /* q: -1, 0, +1 (NULL: none) */
    int learn, variance;
    const double *g_parent;
    double min_leaf, tie, screen;
    int64_t longest;
    double *best, *lo, *hi;
    int64_t *side;
    const unsigned char *allowed; /* N x q: the features each node may split on (NULL: all) */
} bounded_t;

/* What a monotonic constraint bears on (puretree.splits.monotone_value): the first class's
 * share, or the mean. */
static double monotone_value(const double *s, int64_t k, int variance) {
    if (variance) return s[1] / s[0];
    double t = s[0];
    for (int64_t j = 1; j < k; j++) t += s[j];
    return s[0] / t;
}

/* puretree.splits.monotone_ok for one candidate of children left and right. */
static int monotone_ok(int64_t d, double lower, double upper, const double *left, const double *right, int64_t k, int variance) {
    if (d == 0) return 1;
    double vl = monotone_value(left, k, variance), vr = monotone_value(right, k, variance);
    return vl >= lower && vr >= lower && vl <= upper && vr <= upper && (vl - vr) * (double)d <= 0;
}

/* The reference's score of a binary candidate (NaN: -inf); right is scratch. */
static double bounded_score(const bounded_t *S, int64_t i, const double *parent, const double *left, double *right, double *tmp) {
    const int64_t k = S->k;
    if (S->variance) { /* puretree.splits.variance_decrease */
        double w = parent[0], t = parent[1], wl = left[0], sl = left[1];
        double wr = w - wl, sr = t - sl;
        if (!(wl > 0 && wr > 0)) return -INFINITY;
        double tw = t / w;
        double gain = (sl * sl / wl + sr * sr / wr) / w - tw * tw;
        if (isnan(gain)) return -INFINITY;
        return gain >= 0.0 ? gain : 0.0;
    }
    for (int64_t j = 0; j < k; j++) {
        double d = parent[j] - left[j];
        right[j] = d > 0.0 ? d : 0.0;
    }
    double sc = gini_decrease(S->g_parent[i], left, right, k, tmp);
    return isnan(sc) ? -INFINITY : sc;
}

/* The compiled scan's Gini ranking of a candidate (puretree.growth.sorted.gini_rank). */
static double gini_rank(const double *left, const double *parent, int64_t k) {
    double wl = 0.0, wr = 0.0, sl = 0.0, sr = 0.0;
    for (int64_t j = 0; j < k; j++) {
        double a = left[j], d = parent[j] - a;
        if (d < 0.0) d = 0.0;
        wl += a;
        wr += d;
        sl += a * a;
        sr += d * d;
    }
    return wl > 0 && wr > 0 ? sl / wl + sr / wr : INFINITY;
}

/* A feature's scratch: values, running left sums, the candidates kept (position, ranking, then
 * score) of each variant, and k-sized sums. */
typedef struct {
    double *v, *cum, *s_r, *s_l, *tmp, *right, *absent, *alone, *side_l;
    int64_t *at_r, *at_l;
} bscratch_t;

/* Node i's candidates on feature f (its len instances gathered in v, running sums in cum) whose
 * ranking comes within `screen` of the running best (every one: admit_all, or the variance),
 * into at_* and s_*; returns the best ranking (-inf: no candidate; +inf: an empty side). */
static double bounded_candidates(const bounded_t *S, int64_t i, int64_t f, int64_t len, int64_t nk, bscratch_t *B, int admit_all, int64_t *n_r, int64_t *n_l, double *s_a) {
    const int64_t k = S->k, nm = len - nk;
    const double *parent = S->stats + i * k, *v = B->v, *cum = B->cum, *absent = B->absent;
    double *right = B->right, *left_l = B->side_l;
    const double lower = S->lower[i], upper = S->upper[i], msl = S->min_leaf, reach = S->screen * S->total[i];
    const int64_t d = S->direction ? S->direction[f] : 0;
    const int rank = !S->variance, clamp = !S->learn && !S->variance, missing = S->learn && nm > 0;
    double top = -INFINITY;
    *n_r = *n_l = 0;
    *s_a = -INFINITY;
    for (int64_t p = 0; p + 1 < len; p++) {
        if (!(v[p] < v[p + 1])) continue; /* between distinct known values only */
        const double *left = cum + p * k;
        double n_left = (double)(p + 1);
        if (n_left >= msl && (double)len - n_left >= msl) { /* the missing rows right */
            for (int64_t j = 0; d && j < k; j++) {
                double r = parent[j] - left[j];
                right[j] = clamp && r < 0.0 ? 0.0 : r;
            }
            if (monotone_ok(d, lower, upper, left, right, k, S->variance)) {
                double g = rank ? gini_rank(left, parent, k) : 0.0;
                if (g > top) top = g;
                if (admit_all || !rank || g >= top - reach) B->at_r[*n_r] = p, B->s_r[(*n_r)++] = g;
            }
        }
        if (missing && n_left + (double)nm >= msl && (double)nk - n_left >= msl) { /* left */
            for (int64_t j = 0; j < k; j++) {
                left_l[j] = left[j] + absent[j];
                right[j] = parent[j] - left_l[j];
            }
            if (monotone_ok(d, lower, upper, left_l, right, k, S->variance)) {
                double g = rank ? gini_rank(left_l, parent, k) : 0.0;
                if (g > top) top = g;
                if (admit_all || !rank || g >= top - reach) B->at_l[*n_l] = p, B->s_l[(*n_l)++] = g;
            }
        }
    }
    if (missing && nk > 0 && (double)nk >= msl && (double)nm >= msl && monotone_ok(d, lower, upper, B->alone, absent, k, S->variance)) { /* alone right */
        *s_a = rank ? gini_rank(B->alone, parent, k) : 0.0;
        if (*s_a > top) top = *s_a;
    }
    return top;
}

/* Node i on feature f: its first near-best candidate. The ranking's running best only grows, so
 * every candidate that ends within `screen` of the best was kept when it was passed (as
 * scan_node's snapshots); an empty side (+inf) has every candidate scored. */
static void bounded_node(const bounded_t *S, int64_t i, int64_t f, int64_t len, bscratch_t *B) {
    const int64_t k = S->k, cell = i * S->q + f;
    const double *parent = S->stats + i * k, *v = B->v, *cum = B->cum;
    double *left_l = B->side_l;
    int64_t nk = len;
    while (nk > 0 && isnan(v[nk - 1])) nk--;
    const int64_t nm = len - nk;
    for (int64_t j = 0; j < k; j++) {
        B->absent[j] = parent[j] - (nk > 0 ? cum[(nk - 1) * k + j] : 0.0);
        B->alone[j] = parent[j] - B->absent[j];
    }
    int64_t n_r, n_l;
    double s_a, top = bounded_candidates(S, i, f, len, nk, B, 0, &n_r, &n_l, &s_a);
    if (top == INFINITY) top = bounded_candidates(S, i, f, len, nk, B, 1, &n_r, &n_l, &s_a);
    if (top == -INFINITY) return;
    double bar = !S->variance && !isinf(top) ? top - S->screen * S->total[i] : -INFINITY;
    double best = -INFINITY; /* the reference's score of the candidates within reach */
    for (int64_t j = 0; j < n_r; j++) {
        B->s_r[j] = B->s_r[j] >= bar ? bounded_score(S, i, parent, cum + B->at_r[j] * k, B->right, B->tmp) : -INFINITY;
        if (B->s_r[j] > best) best = B->s_r[j];
    }
    for (int64_t j = 0; j < n_l; j++) {
        for (int64_t c = 0; c < k && B->s_l[j] >= bar; c++) left_l[c] = cum[B->at_l[j] * k + c] + B->absent[c];
        B->s_l[j] = B->s_l[j] >= bar ? bounded_score(S, i, parent, left_l, B->right, B->tmp) : -INFINITY;
        if (B->s_l[j] > best) best = B->s_l[j];
    }
    s_a = s_a > -INFINITY && s_a >= bar ? bounded_score(S, i, parent, B->alone, B->right, B->tmp) : -INFINITY;
    if (s_a > best) best = s_a;
    if (best == -INFINITY) return;
    double tied = best - S->tie * fmax(1.0, fabs(best));
    int64_t at = -1;
    int use = 0; /* 0: missing right, 1: left, 2: alone */
    for (int64_t j = 0; j < n_r && at < 0; j++)
        if (B->s_r[j] >= tied) at = B->at_r[j], S->best[cell] = B->s_r[j];
    for (int64_t j = 0; j < n_l && at < 0; j++)
        if (B->s_l[j] >= tied) at = B->at_l[j], S->best[cell] = B->s_l[j], use = 1;
    if (at < 0) use = 2, at = 0, S->best[cell] = s_a;
    S->lo[cell] = v[at];
    S->hi[cell] = use == 2 ? INFINITY : v[at + 1];
    S->side[cell] = nm > 0 ? (use == 1 ? 0 : 1) : (at + 1) > len - (at + 1) ? 0 : 1;
}

/* A feature's scratch for segments of up to `room` instances (NULL members: out of memory). */
static bscratch_t bscratch(int64_t room, int64_t k) {
    if (room < 1) room = 1;
    bscratch_t B = {malloc(sizeof(double) * (size_t)room), malloc(sizeof(double) * (size_t)(room * k)), malloc(sizeof(double) * (size_t)room),
                    malloc(sizeof(double) * (size_t)room), malloc(sizeof(double) * (size_t)k), malloc(sizeof(double) * (size_t)k),
                    malloc(sizeof(double) * (size_t)k), malloc(sizeof(double) * (size_t)k), malloc(sizeof(double) * (size_t)k),
                    malloc(sizeof(int64_t) * (size_t)room), malloc(sizeof(int64_t) * (size_t)room)};
    return B;
}

static int bscratch_ok(const bscratch_t *B) {
    return B->v && B->cum && B->s_r && B->s_l && B->tmp && B->right && B->absent && B->alone && B->side_l && B->at_r && B->at_l;
}

static void bscratch_free(bscratch_t *B) {
    free(B->v);
    free(B->cum);
    free(B->s_r);
    free(B->s_l);
    free(B->tmp);
    free(B->right);
    free(B->absent);
    free(B->alone);
    free(B->side_l);
    free(B->at_r);
    free(B->at_l);
}

/* Feature f's pass over the level's nodes, in scratch B (room for the longest segment). */
static void bounded_pass(const bounded_t *S, int64_t f, bscratch_t *B) {
    const int64_t k = S->k;
    const int32_t *order = S->orders + f * S->m;
    const double *x = S->X + f * S->n;
    for (int64_t i = 0; i < S->N; i++) {
        int64_t s = S->starts[i], len = S->lens[i];
        if (len < 2 || (S->allowed && !S->allowed[i * S->q + f])) continue;
        const int32_t *seg = order + s;
        double first = x[S->row[seg[0]]], last = x[S->row[seg[len - 1]]];
        if (!isnan(last) && !(first < last)) continue; /* one value, none missing: no threshold */
        /* running sums from the segment's first instance, in its order (the reference's); the
         * common shapes (the variance's three sums, two classes) carried in registers */
        if (S->inst && k == 3) {
            double a0 = 0.0, a1 = 0.0, a2 = 0.0;
            for (int64_t p = 0; p < len; p++) {
                int32_t e = seg[p];
                const double *st = S->inst + (int64_t)e * 3;
                double *c = B->cum + p * 3;
                B->v[p] = x[S->row[e]];
                if (p)
                    a0 += st[0], a1 += st[1], a2 += st[2];
                else
                    a0 = st[0], a1 = st[1], a2 = st[2];
                c[0] = a0, c[1] = a1, c[2] = a2;
            }
            bounded_node(S, i, f, len, B);
            continue;
        }
        if (!S->inst && k == 2) {
            double a0 = 0.0, a1 = 0.0;
            for (int64_t p = 0; p < len; p++) {
                int32_t e = seg[p];
                double wt = S->w ? S->w[e] : 1.0, *c = B->cum + p * 2;
                B->v[p] = x[S->row[e]];
                if (S->cls[e])
                    a1 += wt;
                else
                    a0 += wt;
                c[0] = a0, c[1] = a1;
            }
            bounded_node(S, i, f, len, B);
            continue;
        }
        if (!S->inst) { /* classes: the running sums kept where they are read, after the last of a run of
                         * equal values (a candidate, or the last known value): k numbers a distinct value, not a row */
            double *run = B->right; /* free until bounded_node */
            for (int64_t p = 0; p < len; p++) B->v[p] = x[S->row[seg[p]]];
            for (int64_t j = 0; j < k; j++) run[j] = 0.0;
            for (int64_t p = 0; p < len; p++) {
                int32_t e = seg[p];
                run[S->cls[e]] += S->w ? S->w[e] : 1.0;
                if (p + 1 == len || !(B->v[p + 1] <= B->v[p])) memcpy(B->cum + p * k, run, sizeof(double) * (size_t)k);
            }
            bounded_node(S, i, f, len, B);
            continue;
        }
        for (int64_t p = 0; p < len; p++) {
            int32_t e = seg[p];
            double *c = B->cum + p * k;
            const double *st = S->inst + (int64_t)e * k; /* the first instance's own statistics, then each added in turn */
            B->v[p] = x[S->row[e]];
            for (int64_t j = 0; j < k; j++) c[j] = p ? c[j - k] + st[j] : st[j];
        }
        bounded_node(S, i, f, len, B);
    }
}

static int bounded_feature(void *ctx, int64_t f) {
    const bounded_t *S = ctx;
    bscratch_t B = bscratch(S->longest, S->k);
    int rc = bscratch_ok(&B) ? PT_OK : PT_NO_MEMORY;
    if (rc == PT_OK) bounded_pass(S, f, &B);
    bscratch_free(&B);
    return rc;
}

/* Per node i of a frontier of N and numeric feature f of q, Bounded._scan's choice: best[i, f]
 * (-inf: none), the values either side lo/hi (hi = +inf: the missing rows alone go right) and
 * the missing side (0 left, 1 right). X: q x n (NaN: missing); orders, row, starts, lens as
 * pt_scan_level's; classes: cls[p] < k and w[p] (NULL: 1), with inst NULL; regression (variance
 * != 0): inst, m x 3. stats: N x k the nodes' sums, total: their weights; lower/upper: N bounds;
 * direction: q constraints (NULL: none); learn: the missing side is learned. */
PT_EXPORT int pt_scan_bounded(const double *X, int64_t n, int64_t q, const int32_t *orders, int64_t m, const int64_t *row, const int64_t *cls,
                              const double *w, const double *inst, int64_t k, int64_t N, const int64_t *starts, const int64_t *lens,
                              const double *stats, const double *total, const double *lower, const double *upper, const int64_t *direction,
                              int learn, int variance, double min_leaf, double tie, double screen, int threads, const int *cancel,
                              double *best, double *lo, double *hi, int64_t *side) {
    if (n < 1 || q < 0 || m < 0 || k < 1 || k > 1024 || N < 0 || !(tie >= 0.0) || !(screen >= 0.0)) return PT_BAD_INPUT;
    if ((variance && (k != 3 || !inst)) || (!variance && !cls)) return PT_BAD_INPUT;
    int64_t longest = 0, seen = 0;
    for (int64_t i = 0; i < N; i++) {
        if (starts[i] != seen || lens[i] < 0) return PT_BAD_INPUT;
        seen += lens[i];
        if (lens[i] > longest) longest = lens[i];
    }
    if (seen != m) return PT_BAD_INPUT;
    for (int64_t p = 0; p < m; p++)
        if (row[p] < 0 || row[p] >= n || (cls && (cls[p] < 0 || cls[p] >= k))) return PT_BAD_INPUT;
    for (int64_t x = 0; x < N * q; x++) best[x] = -INFINITY, lo[x] = hi[x] = 0.0, side[x] = 1;
    double *g_parent = malloc(sizeof(double) * (size_t)(N > 0 ? N : 1));
    if (!g_parent) return PT_NO_MEMORY;
    double tmp[1024], t;
    for (int64_t i = 0; i < N; i++) g_parent[i] = variance ? 0.0 : gini(stats + i * k, k, tmp, &t);
    bounded_t S = {X, n, q, m, k, N, orders, row, cls, w, inst, starts, lens, stats, total, lower, upper, direction, learn, variance,
                   g_parent, min_leaf, tie, screen, longest, best, lo, hi, side, NULL};
    int rc = run(bounded_feature, &S, q, threads, cancel);
    free(g_parent);
    return rc;
}

/* ---------------------------------------------------------------- feature subsampling's draws */

/* The features a node may split on (max_features) are numpy's own draw
 * (puretree.splits.node_features, the readable reference):
 * np.random.default_rng(SeedSequence(seed, spawn_key=(*member, 1, *path))).choice(q, size=m,
 * replace=False), as a set. Reproduced here operation for operation, so that the whole-tree
 * growth below, the frontier loop (puretree.growth.level, via pt_draw_frontier) and the recursive
 * builder split every node on the same features: SeedSequence's entropy mixing
 * (numpy/random/bit_generator.pyx), PCG64 seeded from its state (pcg64.h: XSL-RR 128/64, 32-bit
 * outputs handed out low half first), Lemire's bounded draws on 32 bits with numpy's rejection
 * (distributions.c) and Floyd's algorithm (Generator.choice, populations up to 10,000:
 * puretree.growth.kernels.MAX_DRAW). Every entropy word past the first four is mixed into the
 * pool one at a time, so a node's pool is its parent's with one more word (its branch): a node
 * carries its pool and the mixer's hash constant (RNG_WORDS words). */

#define RNG_WORDS 5
#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_L 0xca01f9ddu
#define SS_MIX_R 0x4973f715u

static uint32_t ss_hashmix(uint32_t value, uint32_t *h) {
    value ^= *h;
    *h *= SS_MULT_A;
    value *= *h;
    value ^= value >> 16;
    return value;
}

static uint32_t ss_mix(uint32_t x, uint32_t y) {
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

static u128 u128_add(u128 a, u128 b) {
    u128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

/* The high 64 bits of a 64 x 64-bit product, from 32-bit halves. */
static uint64_t mul_high(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* a * b modulo 2**128 */
static u128 u128_mul(u128 a, u128 b) {
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

static void pcg_step(pcg_t *g) { g->state = u128_add(u128_mul(g->state, PCG_MULT), g->inc); }

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

static uint64_t pcg_next64(pcg_t *g) {
    pcg_step(g);
    uint64_t hi = g->state.hi, lo = g->state.lo;
    uint64_t x = hi ^ lo;
    unsigned r = (unsigned)(hi >> 58);
    return (x >> r) | (x << ((64 - r) & 63));
}

static uint32_t pcg_next32(pcg_t *g) {
    if (g->has32) {
        g->has32 = 0;
        return g->half;
    }
    uint64_t next = pcg_next64(g);
    g->has32 = 1;
    g->half = (uint32_t)(next >> 32);
    return (uint32_t)next;
}

/* A uniform integer in [0, rng] (rng < 2**32 - 1): Lemire's method on 32-bit draws, a word
 * rejected below numpy's threshold drawn again. */
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

/* allowed[0..q): 1 for the m features drawn from the node's pool (Floyd's algorithm: draw j in
 * [0, j], or j itself when that was drawn already; 1 <= m <= q <= MAX_DRAW). */
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

/* The draws of a frontier of N nodes (puretree.growth.level.grow): node i's features into row
 * i of allowed (N x q), its pool the one of `entropy` (n >= 4 words: the root's, as
 * puretree.growth.kernels.seed_entropy assembles them) with its path's words
 * words[offsets[i] .. offsets[i + 1]) mixed in. max_draw: the most features numpy's choice
 * draws by Floyd's algorithm. */
PT_EXPORT int pt_draw_frontier(const uint32_t *entropy, int64_t n, const uint32_t *words, const int64_t *offsets, int64_t N, int64_t q, int64_t m,
                               int64_t max_draw, unsigned char *allowed) {
    if (n < 4 || q < 1 || q > max_draw || m < 1 || m > q || N < 0 || offsets[0] != 0) return PT_BAD_INPUT;
    for (int64_t i = 0; i < N; i++)
        if (offsets[i + 1] < offsets[i]) return PT_BAD_INPUT;
    uint32_t root[RNG_WORDS], s[RNG_WORDS];
    ss_start(root, entropy, n);
    for (int64_t i = 0; i < N; i++) {
        memcpy(s, root, sizeof(s));
        for (int64_t j = offsets[i]; j < offsets[i + 1]; j++) ss_add(s, words[j]);
        draw_features(s, q, m, allowed + i * q);
    }
    return PT_OK;
}

/* Feature subsampling (max_features) in pt_grow_bounded: a node's order of a feature it drew is
 * made when it is scanned, not kept partitioned level after level for every feature: the very
 * order partitioning would keep (its instances by their row's rank in the feature's presorted
 * order: by value, equal values in row order). The len instances s .. s + len - 1 of rows
 * row[], rank[r]: row r's place in the feature's order, into out. Their (rank, instance) pairs
 * are sorted by insertion when few; else, when their ranks span little more than their count,
 * marked (in mark, all 0 before and after) and swept, or sorted by radix (LSD) on digits of
 * about the count's bits (a digit's buckets cost as much as its pass over the pairs), in a and b. */
/* Made so when a node draws at most one feature in LAZY_SHARE (sorting the drawn features' rows
 * of every node costs less than partitioning every order then; measured on digits' forests). */
#define LAZY_SHARE 4
static void order_segment(const int32_t *rank, const int64_t *row, int64_t s, int64_t len, int32_t *mark, uint64_t *a, uint64_t *b, int32_t *out) {
    int64_t low = INT64_MAX, high = -1;
    for (int64_t j = 0; j < len; j++) {
        int64_t r = rank[row[s + j]];
        low = r < low ? r : low, high = r > high ? r : high;
        a[j] = (uint64_t)r << 32 | (uint64_t)(uint32_t)(s + j);
    }
    if (len <= 32) {
        for (int64_t j = 1; j < len; j++) {
            uint64_t x = a[j];
            int64_t i = j;
            for (; i > 0 && a[i - 1] > x; i--) a[i] = a[i - 1];
            a[i] = x;
        }
    } else if (high - low < 4 * len) {
        for (int64_t j = 0; j < len; j++) mark[(a[j] >> 32) - (uint64_t)low] = (int32_t)(uint32_t)a[j] + 1;
        int32_t *picked = (int32_t *)b; /* one spare entry: each mark written, kept when set (no branch) */
        int64_t j = 0;
        for (int64_t p = 0; p <= high - low; p++) {
            picked[j] = mark[p] - 1;
            j += mark[p] != 0;
            mark[p] = 0;
        }
        memcpy(out, picked, sizeof(int32_t) * (size_t)len);
        return;
    } else {
        int width = 4, bits = 1;
        while (width < 8 && ((int64_t)1 << width) < len) width++;
        while (bits < 32 && ((high - low) >> bits) > 0) bits++;
        const uint64_t base = (uint64_t)low << 32, digits = ((uint64_t)1 << width) - 1;
        for (int shift = 32; shift < 32 + bits; shift += width) {
            int64_t count[257] = {0};
            for (int64_t j = 0; j < len; j++) count[(((a[j] - base) >> shift) & digits) + 1]++;
            for (uint64_t c = 0; c < digits; c++) count[c + 1] += count[c];
            for (int64_t j = 0; j < len; j++) b[count[((a[j] - base) >> shift) & digits]++] = a[j];
            uint64_t *t = a;
            a = b, b = t;
        }
    }
    for (int64_t j = 0; j < len; j++) out[j] = (int32_t)(uint32_t)a[j];
}

/* pt_grow_bounded's feature draws (max_features: `drawn` features a node; 0: none): each open
 * node's pool (RNG_WORDS words; the next frontier's in the second half), its draw (allowed,
 * nodes x q) and, when few are drawn (lazy), each row's rank in every presorted order and
 * order_segment's scratch. Kept apart from the growth loop's own variables (which a chain of
 * thousands of levels wants in registers). */
typedef struct {
    int64_t drawn, q, n;
    int lazy;
    uint32_t *pool;
    unsigned char *allowed;
    int32_t *rank, *mark;
    uint64_t *keys, *keys2;
} draws_t;

/* The draws' memory, the ranks and the root's pool (from the n_entropy words of entropy). */
static int draws_start(draws_t *D, int64_t drawn, const uint32_t *entropy, int64_t n_entropy, const int32_t *orders0, int64_t n, int64_t q) {
    const size_t sn = (size_t)n, sq = (size_t)q;
    D->drawn = drawn, D->q = q, D->n = n, D->lazy = drawn > 0 && drawn * LAZY_SHARE <= q;
    D->pool = drawn ? malloc(sizeof(uint32_t) * RNG_WORDS * 2 * sn) : NULL;
    D->allowed = drawn ? malloc(sn * sq) : NULL;
    D->rank = D->lazy ? malloc(sizeof(int32_t) * sq * sn) : NULL, D->mark = D->lazy ? calloc(sn, sizeof(int32_t)) : NULL;
    D->keys = D->lazy ? malloc(sizeof(uint64_t) * sn) : NULL, D->keys2 = D->lazy ? malloc(sizeof(uint64_t) * sn) : NULL;
    if (drawn && !(D->pool && D->allowed && (!D->lazy || (D->rank && D->mark && D->keys && D->keys2)))) return PT_NO_MEMORY;
    for (int64_t f = 0; D->lazy && f < q; f++)
        for (int64_t p = 0; p < n; p++) {
            int32_t r = orders0[f * n + p];
            if (r < 0 || r >= n) return PT_BAD_INPUT;
            D->rank[f * n + r] = (int32_t)p;
        }
    if (drawn) ss_start(D->pool, entropy, n_entropy);
    return PT_OK;
}

/* A frontier's draws (N nodes, m instances of rows row[], node i's the segment starts[i],
 * lens[i]) and, when lazy, node i's order of each feature it drew into ord (q x m). */
static void draws_level(const draws_t *D, int64_t N, int64_t m, const int64_t *row, const int64_t *starts, const int64_t *lens, int32_t *ord) {
    const int64_t q = D->q, n = D->n;
    for (int64_t i = 0; i < N; i++) {
        draw_features(D->pool + i * RNG_WORDS, q, D->drawn, D->allowed + i * q);
        for (int64_t f = 0; f < q && D->lazy && lens[i] > 1; f++)
            if (D->allowed[i * q + f]) order_segment(D->rank + f * n, row, starts[i], lens[i], D->mark, D->keys, D->keys2, ord + f * m + starts[i]);
    }
}

/* The pool of the next frontier's node `to` (in the second half): node `from`'s, down `branch`. */
static void draws_child(const draws_t *D, int64_t from, int64_t to, uint32_t branch) {
    uint32_t *child = D->pool + ((size_t)D->n + (size_t)to) * RNG_WORDS;
    memcpy(child, D->pool + from * RNG_WORDS, sizeof(uint32_t) * RNG_WORDS);
    ss_add(child, branch);
}

static void draws_free(draws_t *D) {
    free(D->pool), free(D->allowed), free(D->rank), free(D->mark), free(D->keys), free(D->keys2);
}

/* ---------------------------------------------------------------- a bounded tree grown whole */

/* The frontier loop (puretree.growth.level.grow) over Bounded's source, every level here: a
 * small fit's levels each cost Python more than their scan (puretree.growth.bounds.grow_whole).
 * Level by level as the loop: each frontier node's split by bounded_feature's scan, the first
 * near-best feature (within `tie`), the threshold (the midpoint, the lower value when binned,
 * +inf for the missing rows alone), the rows routed (a missing value to the side learned), the
 * children's sums added in instance order (bincount's), their bounds (children_bounds: the
 * middle value of a constrained split) and the children that are leaves at once (one target
 * value, fewer rows than min_split, at max_depth); ids as the loop numbers them (each split's
 * two children next, in frontier order). Per node g out: feature[g] (-1: a leaf), threshold,
 * side, first_child, stats (k each, the sums before clipping), lower and upper, and (score_out not
 * NULL) a split's score as chosen (best-first growth ranks by it). Xs (q x n) is
 * scanned, Xr (q x n) routes (binned: the raw values). drawn > 0 (max_features): each node
 * splits on the `drawn` features its pool draws (draw_features), the root's pool that of the
 * n_entropy words of `entropy` (pt_draw_frontier's), a child's its parent's with its branch's
 * word (0 left, 1 right) mixed in; its orders of the features drawn made on demand
 * (order_segment). Returns PT_BAD_INPUT for an empty child or more than
 * `capacity` nodes (the caller grows the tree the other way). */
PT_EXPORT int pt_grow_bounded(const double *Xs, const double *Xr, int64_t n, int64_t q, const int32_t *orders0, const int64_t *cls0, const double *w0,
                              const double *inst0, const double *y, int64_t k, const double *root_stats, const int64_t *direction, int learn,
                              int variance, int binned, double min_leaf, double min_split, int64_t max_depth, int has_min_gain, double min_gain,
                              int64_t drawn, const uint32_t *entropy, int64_t n_entropy, int64_t max_draw, double tie, double screen, int64_t capacity, int64_t *feature, double *threshold, int64_t *side_out,
                              int64_t *first_child, double *stats_out, double *lower_out, double *upper_out, int64_t *n_nodes, double *score_out) {
    if (n < 1 || q < 1 || k < 1 || k > 1024 || capacity < 1 || (variance && (k != 3 || !inst0)) || (!variance && !cls0)) return PT_BAD_INPUT;
    if (drawn < 0 || (drawn > 0 && (drawn > q || q > max_draw || n_entropy < 4 || !entropy))) return PT_BAD_INPUT;
    for (int64_t r = 0; r < n; r++)
        if (cls0 && (cls0[r] < 0 || cls0[r] >= k)) return PT_BAD_INPUT;
    const size_t sn = (size_t)n, sq = (size_t)q, sk = (size_t)k;
    /* few features drawn a node (a forest's): each node's orders of its features made when scanned
     * (order_segment), else every order kept partitioned */
    draws_t D;
    int rc = draws_start(&D, drawn, entropy, n_entropy, orders0, n, q);
    const int lazy = D.lazy;
    int32_t *ord = malloc(sizeof(int32_t) * sq * sn), *ord2 = lazy ? NULL : malloc(sizeof(int32_t) * sq * sn), *new_id = malloc(sizeof(int32_t) * sn);
    int64_t *row = malloc(sizeof(int64_t) * sn), *row2 = malloc(sizeof(int64_t) * sn), *icls = malloc(sizeof(int64_t) * sn), *icls2 = malloc(sizeof(int64_t) * sn);
    double *iw = malloc(sizeof(double) * sn), *iw2 = malloc(sizeof(double) * sn), *iinst = malloc(sizeof(double) * sn * sk), *iinst2 = malloc(sizeof(double) * sn * sk);
    /* a frontier's nodes, the next one's in the second half of gid, starts, lens, nstats, lower and upper */
    int64_t *gid = malloc(sizeof(int64_t) * 2 * sn), *starts = malloc(sizeof(int64_t) * 2 * sn), *lens = malloc(sizeof(int64_t) * 2 * sn), *nnode = malloc(sizeof(int64_t) * sn);
    int64_t *at = malloc(sizeof(int64_t) * 2 * sn), *cnt = malloc(sizeof(int64_t) * 2 * sn), *chosen = malloc(sizeof(int64_t) * sn), *slot = malloc(sizeof(int64_t) * sn);
    double *nstats = malloc(sizeof(double) * 2 * sn * sk), *lower = malloc(sizeof(double) * 2 * sn), *upper = malloc(sizeof(double) * 2 * sn);
    double *total = malloc(sizeof(double) * sn), *g_parent = malloc(sizeof(double) * sn), *thr = malloc(sizeof(double) * sn);
    double *csum = malloc(sizeof(double) * 2 * sn * sk), *ymin = malloc(sizeof(double) * 2 * sn), *ymax = malloc(sizeof(double) * 2 * sn);
    double *clo = malloc(sizeof(double) * 2 * sn), *cup = malloc(sizeof(double) * 2 * sn);
    int64_t *sd = malloc(sizeof(int64_t) * sn), *opened = malloc(sizeof(int64_t) * 2 * sn);
    double *best = malloc(sizeof(double) * sn * sq), *lo = malloc(sizeof(double) * sn * sq), *hi = malloc(sizeof(double) * sn * sq);
    int64_t *side = malloc(sizeof(int64_t) * sn * sq);
    bscratch_t B = bscratch(n, k); /* room for the root's segment, the longest of the fit */
    if (rc == PT_OK && !(best && lo && hi && side && (lazy || ord2) && bscratch_ok(&B) && ord && new_id && row && row2 && icls && icls2 && iw && iw2 && iinst && iinst2 && gid && starts && lens && nnode && at && cnt && chosen &&
                     slot && nstats && lower && upper && total && g_parent && thr && csum && ymin && ymax && clo && cup && sd && opened))
        rc = PT_NO_MEMORY;
    int64_t m = n, N = 1, made = 1, depth = 0;
    if (rc == PT_OK && !lazy) memcpy(ord, orders0, sizeof(int32_t) * sq * sn);
    if (rc == PT_OK) {
        for (int64_t r = 0; r < n; r++) {
            row[r] = r;
            icls[r] = cls0 ? cls0[r] : 0;
            iw[r] = w0 ? w0[r] : 1.0;
            for (int64_t j = 0; variance && j < k; j++) iinst[r * k + j] = inst0[r * k + j];
        }
        gid[0] = 0, starts[0] = 0, lens[0] = n, lower[0] = -INFINITY, upper[0] = INFINITY;
        memcpy(nstats, root_stats, sizeof(double) * sk);
        feature[0] = -1, threshold[0] = 0.0, side_out[0] = 1, first_child[0] = -1, lower_out[0] = -INFINITY, upper_out[0] = INFINITY;
        memcpy(stats_out, root_stats, sizeof(double) * sk);
        double a = y[0], b = y[0];
        for (int64_t r = 1; r < n; r++) a = y[r] < a ? y[r] : a, b = y[r] > b ? y[r] : b;
        if (a == b || (double)n < min_split || (max_depth >= 0 && max_depth <= 0)) N = 0; /* the root is a leaf */
    }
    double tmp[1024], t;
    while (rc == PT_OK && N > 0) {
        int64_t longest = 0;
        for (int64_t i = 0; i < N; i++) {
            total[i] = variance ? nstats[i * k] : sum_last(nstats + i * k, k);
            g_parent[i] = variance ? 0.0 : gini(nstats + i * k, k, tmp, &t);
            if (lens[i] > longest) longest = lens[i];
        }
        for (int64_t x = 0; x < N * q; x++) best[x] = -INFINITY, lo[x] = hi[x] = 0.0, side[x] = 1;
        if (drawn) draws_level(&D, N, m, row, starts, lens, ord);
        bounded_t S = {Xs, n, q, m, k, N, ord, row, variance ? NULL : icls, variance || !w0 ? NULL : iw, variance ? iinst : NULL, starts, lens, nstats, total,
                       lower, upper, direction, learn, variance, g_parent, min_leaf, tie, screen, longest, best, lo, hi, side, D.allowed};
        for (int64_t f = 0; f < q; f++) bounded_pass(&S, f, &B);
        /* each node's choice: the first feature within the tie tolerance of its best */
        int64_t n_split = 0;
        for (int64_t i = 0; i < N; i++) {
            const double *fs = best + i * q;
            double top = -INFINITY;
            for (int64_t f = 0; f < q; f++) top = fs[f] > top ? fs[f] : top;
            chosen[i] = -1;
            if (top == -INFINITY) continue;
            double bar = top - tie * fmax(1.0, fabs(top));
            int64_t f = 0;
            while (!(fs[f] >= bar)) f++;
            if (has_min_gain && !(fs[f] > min_gain)) continue;
            double a = lo[i * q + f], b = hi[i * q + f], mid = a / 2.0 + b / 2.0;
            thr[i] = isinf(b) && b > 0 ? INFINITY : binned ? a : (a <= mid && mid < b) ? mid : a;
            sd[i] = side[i * q + f];
            chosen[i] = f;
            slot[i] = 2 * n_split++;
        }
        if (!n_split) break;
        if (made + 2 * n_split > capacity) {
            rc = PT_BAD_INPUT;
            break;
        }
        /* the rows routed, the children's sums added in instance order */
        for (int64_t c = 0; c < 2 * n_split; c++) {
            cnt[c] = 0, ymin[c] = INFINITY, ymax[c] = -INFINITY;
            for (int64_t j = 0; j < k; j++) csum[c * k + j] = 0.0;
        }
        for (int64_t i = 0; i < N; i++) {
            int64_t f = chosen[i];
            for (int64_t p = starts[i]; p < starts[i] + lens[i]; p++) {
                if (f < 0) {
                    new_id[p] = -1; /* a leaf's rows leave */
                    continue;
                }
                double x = Xr[f * n + row[p]];
                int64_t c = slot[i] + (isnan(x) ? sd[i] : x > thr[i]);
                double *s = csum + c * k;
                if (variance)
                    for (int64_t j = 0; j < k; j++) s[j] += iinst[p * k + j];
                else
                    s[icls[p]] += w0 ? iw[p] : 1.0;
                double v = y[row[p]];
                ymin[c] = v < ymin[c] ? v : ymin[c], ymax[c] = v > ymax[c] ? v : ymax[c];
                cnt[c]++;
                new_id[p] = (int32_t)c; /* its child, for now */
            }
        }
        /* the children's records, bounds, and the open ones: the next frontier */
        int64_t n_next = 0, m_next = 0;
        for (int64_t i = 0; i < N; i++) {
            int64_t f = chosen[i];
            if (f < 0) continue;
            int64_t g = gid[i], c = slot[i], first = made;
            made += 2;
            feature[g] = f, threshold[g] = thr[i], side_out[g] = sd[i], first_child[g] = first;
            if (score_out) score_out[g] = best[i * q + f];
            const double *L = csum + c * k, *R = csum + (c + 1) * k;
            double lw = variance ? L[0] : sum_last(L, k), rw = variance ? R[0] : sum_last(R, k);
            int64_t d = direction ? direction[f] : 0;
            clo[c] = clo[c + 1] = lower[i], cup[c] = cup[c + 1] = upper[i];
            if (d) {
                int at_ = variance ? 1 : 0;
                double middle = L[at_] / (2 * lw) + R[at_] / (2 * rw);
                if (d > 0) cup[c] = middle, clo[c + 1] = middle;
                else clo[c] = middle, cup[c + 1] = middle;
            }
            for (int64_t b = 0; b < 2; b++) {
                int64_t h = first + b, cc = c + b;
                if (!cnt[cc]) rc = PT_BAD_INPUT; /* never: a candidate leaves rows either side */
                feature[h] = -1, threshold[h] = 0.0, side_out[h] = 1, first_child[h] = -1, lower_out[h] = clo[cc], upper_out[h] = cup[cc];
                memcpy(stats_out + h * k, csum + cc * k, sizeof(double) * sk);
                int closed = ymin[cc] == ymax[cc] || (double)cnt[cc] < min_split || (max_depth >= 0 && depth + 1 >= max_depth);
                opened[cc] = closed ? -1 : n_next;
                if (!closed) { /* into the second half of each array: this frontier's are still read */
                    gid[sn + n_next] = h, lens[sn + n_next] = cnt[cc], starts[sn + n_next] = m_next, lower[sn + n_next] = clo[cc], upper[sn + n_next] = cup[cc];
                    memcpy(nstats + (sn + n_next) * k, csum + cc * k, sizeof(double) * sk);
                    if (drawn) draws_child(&D, i, n_next, (uint32_t)b);
                    m_next += cnt[cc];
                    n_next++;
                }
            }
        }
        if (rc != PT_OK || !n_next) break;
        memcpy(gid, gid + sn, sizeof(int64_t) * (size_t)n_next);
        memcpy(lens, lens + sn, sizeof(int64_t) * (size_t)n_next);
        memcpy(starts, starts + sn, sizeof(int64_t) * (size_t)n_next);
        memcpy(lower, lower + sn, sizeof(double) * (size_t)n_next);
        memcpy(upper, upper + sn, sizeof(double) * (size_t)n_next);
        memcpy(nstats, nstats + sn * k, sizeof(double) * (size_t)n_next * sk);
        if (drawn) memcpy(D.pool, D.pool + sn * RNG_WORDS, sizeof(uint32_t) * RNG_WORDS * (size_t)n_next);
        /* the instances of the open children, in their order (node, then the old order: rows) */
        for (int64_t j = 0; j < n_next; j++) at[j] = starts[j];
        for (int64_t p = 0; p < m; p++) {
            int64_t c = new_id[p], o = c >= 0 ? opened[c] : -1;
            if (o < 0) {
                new_id[p] = -1;
                continue;
            }
            int64_t e = at[o]++;
            new_id[p] = (int32_t)e;
            nnode[e] = o;
            row2[e] = row[p], icls2[e] = icls[p], iw2[e] = iw[p];
            for (int64_t j = 0; variance && j < k; j++) iinst2[e * k + j] = iinst[p * k + j];
        }
        for (int64_t f = 0; f < q && !lazy; f++) { /* each order stably partitioned (pt_partition_level's move) */
            for (int64_t j = 0; j < n_next; j++) at[j] = starts[j];
            const int32_t *o = ord + f * m;
            int32_t *out = ord2 + f * m_next;
            for (int64_t p = 0; p < m; p++) {
                int32_t e = new_id[o[p]];
                if (e >= 0) out[at[nnode[e]]++] = e;
            }
        }
        if (!lazy) {
            int32_t *to = ord;
            ord = ord2, ord2 = to;
        }
        int64_t *ti = row;
        row = row2, row2 = ti;
        ti = icls, icls = icls2, icls2 = ti;
        double *td = iw;
        iw = iw2, iw2 = td;
        td = iinst, iinst = iinst2, iinst2 = td;
        m = m_next, N = n_next;
        depth++;
    }
    *n_nodes = made;
    bscratch_free(&B);
    free(best), free(lo), free(hi), free(side);
    draws_free(&D);
    free(ord), free(ord2), free(new_id), free(row), free(row2), free(icls), free(icls2), free(iw), free(iw2), free(iinst), free(iinst2);
    free(gid), free(starts), free(lens), free(nnode), free(at), free(cnt), free(chosen), free(slot), free(nstats), free(lower), free(upper);
    free(total), free(g_parent), free(thr), free(csum), free(ymin), free(ymax), free(clo), free(cup), free(sd), free(opened);
    return rc;
}

/* ---------------------------------------------------------------- the absolute error of prefixes */

/* The last rank whose cumulative weight is below (strict) or at most target, its cumulative
 * weight and weighted sum (puretree.losses._descend). */
static int64_t descend(const double *tw, const double *twy, int64_t n, int64_t bit, double target, int strict, double *cw_out, double *cwy_out) {
    int64_t pos = 0;
    double cw = 0.0, cwy = 0.0;
    for (; bit; bit >>= 1) {
        int64_t nxt = pos + bit;
        if (nxt <= n && (strict ? cw + tw[nxt] < target : cw + tw[nxt] <= target)) pos = nxt, cw = cw + tw[nxt], cwy = cwy + twy[nxt];
    }
    *cw_out = cw, *cwy_out = cwy;
    return pos;
}

/* puretree.losses.prefix_absolute_errors, operation for operation: out[p] = sum w |y - median|
 * of the first p + 1 rows, row p of rank rank[p] (1-based: its place in sorted_y, the targets
 * sorted stably) and weight w[p], from Fenwick trees of the weights and weighted targets. */
PT_EXPORT int pt_prefix_absolute_errors(const int64_t *rank, const double *sorted_y, const double *w, int64_t n, double *out) {
    if (n < 1) return PT_OK;
    for (int64_t p = 0; p < n; p++)
        if (rank[p] < 1 || rank[p] > n) return PT_BAD_INPUT;
    double *tw = calloc((size_t)n + 1, sizeof(double)), *twy = calloc((size_t)n + 1, sizeof(double));
    if (!tw || !twy) {
        free(tw);
        free(twy);
        return PT_NO_MEMORY;
    }
    int64_t top = 1;
    while (top * 2 <= n) top *= 2;
    double total_w = 0.0, total_wy = 0.0, cw, cwy, w_left, wy_left;
    for (int64_t p = 0; p < n; p++) {
        int64_t r = rank[p];
        double wi = w[p], yi = sorted_y[r - 1];
        for (int64_t i = r; i <= n; i += i & -i) {
            tw[i] += wi;
            twy[i] += wi * yi;
        }
        total_w += wi;
        total_wy += wi * yi;
        double half = 0.5 * total_w;
        int64_t below = descend(tw, twy, n, top, half, 1, &cw, &cwy);
        int64_t at_most = descend(tw, twy, n, top, half, 0, &w_left, &wy_left);
        double median = at_most == below ? sorted_y[at_most] : (sorted_y[below] + sorted_y[at_most]) / 2;
        out[p] = (total_wy - wy_left - median * (total_w - w_left)) + (median * w_left - wy_left);
    }
    free(tw);
    free(twy);
    return PT_OK;
}

/* ---------------------------------------------------------------- C4.5's cut scan */

/* For each of f features (rows of order/values, n sorted positions each): its number of
 * admissible cuts, the best gain J48's scan finds and the sorted position of its cut (-1: none
 * above epsilon), the class counts of its known rows and those left of the cut. Row r holds
 * weight rows[r] >> shift of class rows[r] & (2**shift - 1). table[x] = x log2 x for
 * 0 <= x < table_len. Equal to puretree.growth.c45_cuts' numpy path, operation for operation. */
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
