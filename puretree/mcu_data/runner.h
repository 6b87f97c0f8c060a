/* The models a firmware holds (the table is generated: models.c); PT_FEATURE is the feature
 * type, given on the command line (-DPT_FEATURE=float). */
#ifndef PT_RUNNER_H_INCLUDED
#define PT_RUNNER_H_INCLUDED
#include <stdint.h>

typedef PT_FEATURE pt_feature;

struct pt_model {
    uint32_t n_features;
    uint32_t n_classes;                                 /* 0: a regression tree */
    int (*predict)(const pt_feature *);                 /* classification */
    int (*predict_proba)(const pt_feature *, double *); /* classification with probabilities, or 0 */
    double (*predict_value)(const pt_feature *);        /* regression */
};

extern const struct pt_model pt_models[];
extern const uint32_t pt_n_models;
#endif
