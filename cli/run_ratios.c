/*
 * `apportion run --ratios ID=R,...`: the ratios given on the command line, checked against
 * the devices of the run's runtime (ids, or cuda:N for a GPU) and put in device order.
 */
#include "run_ratios.h"

#include "cli.h"

#include <stdio.h>
#include <string.h>

static size_t match_device(const apo_device_info *devs, size_t n, const char *id) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(devs[i].id, id) == 0)
            return i;
    if (strncmp(id, "cuda:", 5) == 0) {
        const size_t len = strlen(id);
        for (size_t i = 0; i < n; i++)
            if (devs[i].kind == APO_DEVICE_CUDA && strncmp(devs[i].label, id, len) == 0 &&
                (devs[i].label[len] == ' ' || devs[i].label[len] == '\0'))
                return i;
    }
    return n;
}

static void list_ids(char *dst, size_t size, const apo_device_info *devs, size_t n) {
    size_t o = 0;
    dst[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(dst + o, size - o, "%s%s", i ? ", " : "", devs[i].id);
        if (w < 0 || (size_t)w >= size - o)
            return;
        o += (size_t)w;
    }
}

/* What the items fill: the devices, and each one's ratio once given. */
typedef struct ratio_fill {
    const apo_device_info *devs;
    size_t n;
    const char *ids; /* the devices' ids, for the message naming an unknown one */
    double *ratios;
    int given[APO_MAX_DEVICES];
} ratio_fill;

static int fill_item(void *ctx, const char *id, double ratio) {
    ratio_fill *f = ctx;
    const size_t d = match_device(f->devs, f->n, id);
    if (d == f->n)
        return cli_usage_error("run", "--ratios: no device '%s' in this run (devices: %s)", id,
                               f->ids);
    if (f->given[d])
        return cli_usage_error("run", "--ratios: device %s is given twice", f->devs[d].id);
    f->given[d] = 1;
    f->ratios[d] = ratio;
    return CLI_EXIT_OK;
}

/* Parses "ID=R,ID=R,..." into ratios[n] in device order (unlisted devices get 0). */
int cli_parse_ratios(const apo_runtime *rt, const char *text, double *ratios, size_t *n_out) {
    apo_device_info devs[APO_MAX_DEVICES];
    size_t n = 0;
    apo_status st = apo_device_count(rt, &n);
    if (st != APO_OK)
        return cli_status_error(st, "cannot query the devices");
    if (n > APO_MAX_DEVICES)
        n = APO_MAX_DEVICES;
    for (size_t i = 0; i < n; i++) {
        apo_device_info init = {.size = sizeof(apo_device_info)};
        devs[i] = init;
        st = apo_device_get(rt, i, &devs[i]);
        if (st != APO_OK)
            return cli_status_error(st, "cannot describe a device");
    }
    for (size_t i = 0; i < n; i++)
        ratios[i] = 0.0;
    char ids[1024];
    list_ids(ids, sizeof ids, devs, n);
    ratio_fill fill = {.devs = devs, .n = n, .ids = ids, .ratios = ratios};
    int rc = cli_parse_ratio_items("run", "--ratios", text, fill_item, &fill);
    if (rc != CLI_EXIT_OK)
        return rc;
    *n_out = n;
    return CLI_EXIT_OK;
}
