/*
 * talib_abstract.c: TA-Lib's abstract interface, loaded at run time (talib_abstract.h).
 */
#include "talib_abstract.h"

#include <stdio.h>
#include <string.h>

/* TA-Lib's structures as TA-Lib 0.8.1's library lays them out (TA_FuncInfo,
 * TA_InputParameterInfo, TA_OptInputParameterInfo, TA_OutputParameterInfo): read-only
 * constants of the library. Its TA_FuncInfo has no camelCaseName after the hint, which the
 * header of TA-Lib's development tree adds: read with that member, nbInput is the flags. */
typedef struct ta_func_info {
    const char *name, *group, *hint;
    int flags;
    unsigned int n_input, n_opt_input, n_output;
    const void *handle;
} ta_func_info;

typedef struct ta_input_info {
    int type; /* 0 a price (components in flags), 1 a real series, 2 an integer series */
    const char *name;
    int flags;
} ta_input_info;

typedef struct ta_opt_input_info {
    int type; /* 0 a real range, 1 a real list, 2 an integer range, 3 an integer list */
    const char *name;
    int flags;
    const char *display_name;
    const void *data_set;
    double default_value;
    const char *hint, *help_file;
} ta_opt_input_info;

typedef struct ta_output_info {
    int type; /* 0 real, 1 integer */
    const char *name;
    int flags;
} ta_output_info;

enum { TA_INPUT_PRICE = 0, TA_INPUT_REAL = 1 };
enum { TA_OPT_REAL_RANGE = 0, TA_OPT_REAL_LIST = 1 };
enum { TA_OUTPUT_INTEGER = 1 };
/* TA_IN_PRICE_OPEN .. TA_IN_PRICE_VOLUME, in the order of TA_SetInputParamPricePtr's
 * arguments (and of every C signature of TA-Lib's); open interest and timestamps are fed to
 * no function of the catalog. */
#define TA_PRICE_COMPONENTS 5
#define TA_PRICE_UNSUPPORTED (0x20 | 0x40)

int talib_abstract_load(talib_abstract *ta, void *(*lookup)(void *ctx, const char *name), void *ctx,
                        char *why, size_t why_size) {
    struct {
        const char *name;
        void *slot;
    } symbols[] = {
        {"TA_GetFuncHandle", &ta->get_func_handle},
        {"TA_GetFuncInfo", &ta->get_func_info},
        {"TA_GetInputParameterInfo", &ta->get_input_info},
        {"TA_GetOptInputParameterInfo", &ta->get_opt_input_info},
        {"TA_GetOutputParameterInfo", &ta->get_output_info},
        {"TA_ParamHolderAlloc", &ta->holder_alloc},
        {"TA_ParamHolderFree", &ta->holder_free},
        {"TA_SetInputParamRealPtr", &ta->set_input_real},
        {"TA_SetInputParamPricePtr", &ta->set_input_price},
        {"TA_SetOptInputParamInteger", &ta->set_opt_integer},
        {"TA_SetOptInputParamReal", &ta->set_opt_real},
        {"TA_SetOutputParamIntegerPtr", &ta->set_output_integer},
        {"TA_SetOutputParamRealPtr", &ta->set_output_real},
        {"TA_CallFunc", &ta->call},
    };
    memset(ta, 0, sizeof *ta);
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *sym = lookup(ctx, symbols[i].name);
        if (sym == NULL) {
            snprintf(why, why_size, "%s not found in TA-Lib", symbols[i].name);
            return -1;
        }
        /* A data pointer into a function pointer, as dlsym's users must. */
        memcpy(symbols[i].slot, &sym, sizeof sym);
    }
    return 0;
}

/* TA-Lib's optional input name as apportion (and the Python binding) spell it: without
 * "optIn", in lower case ("optInFastK_Period" is "fastk_period"). */
static void param_name(const char *ta_name, char *out, size_t size) {
    const char *from = strncmp(ta_name, "optIn", 5) == 0 ? ta_name + 5 : ta_name;
    size_t i = 0;
    for (; from[i] != '\0' && i + 1 < size; i++)
        out[i] = (char)(from[i] >= 'A' && from[i] <= 'Z' ? from[i] - 'A' + 'a' : from[i]);
    out[i] = '\0';
}

/* The flattened inputs of input `index`: a price's components, or one real series. */
static int add_input(talib_call *c, int index, const ta_input_info *in, char *why,
                     size_t why_size) {
    if (in->type == TA_INPUT_REAL) {
        if (c->n_in == TALIB_MAX_IN)
            goto too_many;
        c->price_input[c->n_in] = index;
        c->component[c->n_in++] = -1;
        return 0;
    }
    if (in->type != TA_INPUT_PRICE || (in->flags & TA_PRICE_UNSUPPORTED) != 0) {
        snprintf(why, why_size, "%s: input %s is of a kind this caller does not feed", c->name,
                 in->name);
        return -1;
    }
    for (int k = 0; k < TA_PRICE_COMPONENTS; k++)
        if (in->flags & (1 << k)) {
            if (c->n_in == TALIB_MAX_IN)
                goto too_many;
            c->price_input[c->n_in] = index;
            c->component[c->n_in++] = k;
        }
    return 0;
too_many:
    snprintf(why, why_size, "%s: more than %d inputs", c->name, TALIB_MAX_IN);
    return -1;
}

int talib_call_open(const talib_abstract *ta, const char *name, talib_call *c, char *why,
                    size_t why_size) {
    memset(c, 0, sizeof *c);
    c->ta = ta;
    c->name = name;
    const void *handle = NULL, *p = NULL;
    if (ta->get_func_handle(name, &handle) != 0 || handle == NULL)
        return 1;
    if (ta->get_func_info(handle, &p) != 0)
        goto fail;
    const ta_func_info *info = p;
    if (info->n_opt_input > TALIB_MAX_PARAMS || info->n_output > TALIB_MAX_OUT) {
        snprintf(why, why_size, "%s: more parameters or outputs than this caller holds", name);
        return -1;
    }
    for (unsigned int i = 0; i < info->n_input; i++) {
        if (ta->get_input_info(handle, i, &p) != 0)
            goto fail;
        if (add_input(c, (int)i, p, why, why_size) != 0)
            return -1;
    }
    c->n_params = (int)info->n_opt_input;
    for (unsigned int i = 0; i < info->n_opt_input; i++) {
        if (ta->get_opt_input_info(handle, i, &p) != 0)
            goto fail;
        const ta_opt_input_info *opt = p;
        param_name(opt->name, c->param_names[i], sizeof c->param_names[i]);
        c->param_integer[i] = opt->type != TA_OPT_REAL_RANGE && opt->type != TA_OPT_REAL_LIST;
        c->param_defaults[i] = opt->default_value;
    }
    c->n_out = (int)info->n_output;
    for (unsigned int i = 0; i < info->n_output; i++) {
        if (ta->get_output_info(handle, i, &p) != 0)
            goto fail;
        c->out_integer[i] = ((const ta_output_info *)p)->type == TA_OUTPUT_INTEGER;
    }
    if (ta->holder_alloc(handle, &c->params) != 0)
        goto fail;
    return 0;
fail:
    snprintf(why, why_size, "%s: TA-Lib's abstract interface refused a query", name);
    return -1;
}

int talib_call_set(talib_call *c, const char *name, double value) {
    for (int i = 0; i < c->n_params; i++) {
        if (strcmp(c->param_names[i], name) != 0)
            continue;
        const int rc = c->param_integer[i]
                           ? c->ta->set_opt_integer(c->params, (unsigned int)i, (int)value)
                           : c->ta->set_opt_real(c->params, (unsigned int)i, value);
        return rc == 0 ? 0 : -1;
    }
    return -1;
}

int talib_call_run(const talib_call *c, int n, const double *const *in, double *const *out,
                   int *const *ints, int *begin) {
    const talib_abstract *ta = c->ta;
    int rc = 0;
    for (int i = 0; i < c->n_in && rc == 0; i++) {
        if (c->component[i] < 0) {
            rc = ta->set_input_real(c->params, (unsigned int)c->price_input[i], in[i]);
            continue;
        }
        /* The components of one price input are consecutive: set them all at its first. */
        if (i > 0 && c->price_input[i - 1] == c->price_input[i])
            continue;
        const double *parts[TA_PRICE_COMPONENTS] = {NULL};
        for (int j = i; j < c->n_in && c->price_input[j] == c->price_input[i]; j++)
            parts[c->component[j]] = in[j];
        rc = ta->set_input_price(c->params, (unsigned int)c->price_input[i], parts[0], parts[1],
                                 parts[2], parts[3], parts[4], NULL);
    }
    for (int k = 0; k < c->n_out && rc == 0; k++)
        rc = c->out_integer[k] ? ta->set_output_integer(c->params, (unsigned int)k, ints[k])
                               : ta->set_output_real(c->params, (unsigned int)k, out[k]);
    if (rc != 0)
        return rc;
    int count = 0;
    rc = ta->call(c->params, 0, n - 1, begin, &count);
    return rc != 0 ? rc : count == n - *begin ? 0 : -1;
}

void talib_call_close(talib_call *c) {
    if (c->params != NULL)
        c->ta->holder_free(c->params);
    c->params = NULL;
}
