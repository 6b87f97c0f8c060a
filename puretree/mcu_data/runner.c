/*
 * Runs the generated code on rows sent by the host, through semihosting files (newlib's
 * librdimon): so one firmware checks any number of rows, of any of the models it holds.
 *
 * pt-in.bin, little-endian: jobs, each a header of four uint32 (magic 0x4a4f4250, model,
 * number of rows, flags) and its rows (n_features values of the feature type each; missing:
 * NaN, or the integer types' minimum). Model 0xffffffff is a calibration job: a loop of
 * `rows` iterations of two instructions, timed.
 * pt-out.bin: per row, an int32 class (predict_proba's and predict's when there is
 * predict_proba, each followed by n_classes doubles), or a double (regression); with flag 1
 * then two uint32: SysTick ticks spent in predict over all rows, and in an empty function
 * of the same type over all rows, each chunk of rows run (flags >> 8) times (a tick is
 * many instructions: repeating makes its rounding small); with flag 2 then one uint32: the
 * most stack any of the job's calls used (painted_call; 0xffffffff: more than PT_PAINT_BYTES).
 * At the end "PTOK".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "runner.h"

#define PT_MAGIC 0x4a4f4250u
#define PT_CHUNK_BYTES 2048u
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

static int fail(const char *what)
{
    printf("puretree runner: %s\n", what);
    return 2;
}

static int empty_predict(const pt_feature *x)
{
    (void)x;
    return 0;
}

static double empty_value(const pt_feature *x)
{
    (void)x;
    return 0.0;
}

/* The compiler cannot see through these: the empty function is called, not inlined. */
static int (*volatile empty_predict_ptr)(const pt_feature *) = empty_predict;
static double (*volatile empty_value_ptr)(const pt_feature *) = empty_value;
volatile int pt_sink;
volatile double pt_value_sink;

static uint32_t ticks_since(uint32_t start)
{
    return (start - SYST_CVR) & 0xFFFFFFu;
}

/* Ticks spent in `repeats` times `n` calls of the model's predict (or of the empty function). */
static uint32_t timed(const struct pt_model *m, const pt_feature *rows, uint32_t n, uint32_t repeats, int empty)
{
    uint32_t i;
    uint32_t r;
    uint32_t t0;
    int acc = 0;
    double vacc = 0.0;
    if (m->n_classes) {
        int (*f)(const pt_feature *) = empty ? empty_predict_ptr : m->predict;
        t0 = SYST_CVR;
        for (r = 0u; r < repeats; r++) {
            for (i = 0u; i < n; i++) {
                acc += f(rows + i * m->n_features);
            }
        }
    } else {
        double (*g)(const pt_feature *) = empty ? empty_value_ptr : m->predict_value;
        t0 = SYST_CVR;
        for (r = 0u; r < repeats; r++) {
            for (i = 0u; i < n; i++) {
                vacc += g(rows + i * m->n_features);
            }
        }
    }
    t0 = ticks_since(t0);
    pt_sink = acc + (vacc != vacc);
    return t0;
}

/*
 * Stack a call uses, measured: paint PT_PAINT_BYTES below the stack pointer, make the call,
 * find the deepest word it overwrote. Counts every frame below the caller: the generated
 * functions' and the compiler helpers' (soft-float routines, memcpy) they call. The same
 * call of an empty function (which uses none) measures what this function's own frame
 * adds (the compiler may set it up after the stack pointer is read): it is subtracted.
 */
#define PT_PAINT_BYTES 4096u
#define PT_PAINT 0xDEADBEEFu

static int empty_proba(const pt_feature *x, double *proba)
{
    (void)x;
    (void)proba;
    return 0;
}

static int (*volatile empty_proba_ptr)(const pt_feature *, double *) = empty_proba;

static uint32_t painted_call(const struct pt_model *m, const pt_feature *x, double *proba, int which, int empty)
{
    volatile uint32_t *sp;
    volatile uint32_t *p;
    uint32_t i;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (i = 1u; i <= PT_PAINT_BYTES / 4u; i++) {
        sp[-(int32_t)i] = PT_PAINT;
    }
    if (which == 0 && m->n_classes == 0u) {
        pt_value_sink = (empty ? empty_value_ptr : m->predict_value)(x); /* a store: no helper runs */
    } else if (which == 0) {
        pt_sink = (empty ? empty_predict_ptr : m->predict)(x);
    } else {
        pt_sink = (empty ? empty_proba_ptr : m->predict_proba)(x, proba);
    }
    for (p = sp - PT_PAINT_BYTES / 4u; p < sp && *p == PT_PAINT; p++) {
    }
    /* The whole painted area overwritten: the call may have used more; say so. */
    return p == sp - PT_PAINT_BYTES / 4u ? 0xFFFFFFFFu : (uint32_t)((uintptr_t)sp - (uintptr_t)p);
}

static uint32_t calibrate(uint32_t n)
{
    uint32_t t0 = SYST_CVR;
    __asm__ volatile(".syntax unified\n1:\n\tsubs %0, %0, #1\n\tbne 1b" : "+l"(n) : : "cc");
    return ticks_since(t0);
}

int main(void)
{
    FILE *in = fopen("pt-in.bin", "rb");
    FILE *out = fopen("pt-out.bin", "wb");
    uint32_t head[4];
    if (in == NULL || out == NULL) {
        return fail("cannot open pt-in.bin or pt-out.bin through semihosting");
    }
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0u;
    SYST_CSR = 5u; /* enabled, processor clock, no interrupt */
    while (fread(head, sizeof head, 1, in) == 1) {
        const struct pt_model *m;
        uint32_t chunk;
        uint32_t done = 0u;
        uint32_t ticks[2] = {0u, 0u};
        uint32_t stack = 0u;
        pt_feature *rows;
        double *proba;
        if (head[0] != PT_MAGIC) {
            return fail("bad job header");
        }
        if (head[1] == 0xFFFFFFFFu) {
            ticks[0] = calibrate(head[2]);
            fwrite(ticks, sizeof ticks[0], 1, out);
            continue;
        }
        if (head[1] >= pt_n_models) {
            return fail("no such model");
        }
        m = &pt_models[head[1]];
        chunk = PT_CHUNK_BYTES / (m->n_features * (uint32_t)sizeof(pt_feature));
        chunk = chunk ? chunk : 1u;
        rows = malloc(chunk * m->n_features * sizeof(pt_feature));
        proba = malloc((m->n_classes ? m->n_classes : 1u) * sizeof(double));
        if (rows == NULL || proba == NULL) {
            return fail("out of memory for a chunk of rows");
        }
        while (done < head[2]) {
            uint32_t n = head[2] - done < chunk ? head[2] - done : chunk;
            uint32_t i;
            if (fread(rows, sizeof(pt_feature) * m->n_features, n, in) != n) {
                return fail("short read of rows");
            }
            for (i = 0u; i < n; i++) {
                const pt_feature *x = rows + i * m->n_features;
                if (m->n_classes == 0u) {
                    double v = m->predict_value(x);
                    fwrite(&v, sizeof v, 1, out);
                } else if (m->predict_proba != 0) {
                    int32_t c[2];
                    c[0] = (int32_t)m->predict_proba(x, proba);
                    c[1] = (int32_t)m->predict(x);
                    fwrite(c, sizeof c[0], 2, out);
                    fwrite(proba, sizeof(double), m->n_classes, out);
                } else {
                    int32_t c = (int32_t)m->predict(x);
                    fwrite(&c, sizeof c, 1, out);
                }
            }
            if (head[3] & 2u) {
                for (i = 0u; i < n; i++) {
                    int which;
                    for (which = 0; which <= (m->predict_proba != 0); which++) {
                        uint32_t base = painted_call(m, rows + i * m->n_features, proba, which, 1);
                        uint32_t used = painted_call(m, rows + i * m->n_features, proba, which, 0);
                        used = used == 0xFFFFFFFFu ? used : used - base;
                        stack = used > stack ? used : stack;
                    }
                }
            }
            if (head[3] & 1u) {
                ticks[0] += timed(m, rows, n, head[3] >> 8, 0);
                ticks[1] += timed(m, rows, n, head[3] >> 8, 1);
            }
            done += n;
        }
        if (head[3] & 1u) {
            fwrite(ticks, sizeof ticks[0], 2, out);
        }
        if (head[3] & 2u) {
            fwrite(&stack, sizeof stack, 1, out);
        }
        free(rows);
        free(proba);
    }
    fwrite("PTOK", 1, 4, out);
    if (fclose(out) != 0) {
        return fail("cannot write pt-out.bin");
    }
    fclose(in);
    return 0;
}
