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
    int given[APO_MAX_DEVICES] = {0};
    for (size_t i = 0; i < n; i++)
        ratios[i] = 0.0;
    char ids[1024];
    list_ids(ids, sizeof ids, devs, n);
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char item[256];
        if (len == 0)
            return cli_usage_error("run", "--ratios '%s': empty item", text);
        if (len >= sizeof item)
            return cli_usage_error("run", "--ratios: item '%.40s...' is too long", p);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strrchr(item, '=');
        if (eq == NULL || eq == item)
            return cli_usage_error("run", "--ratios: item '%s': expected ID=RATIO", item);
        *eq = '\0';
        double v;
        if (cli_parse_double(eq + 1, &v) != 0 || v < 0)
            return cli_usage_error(
                "run", "--ratios: '%s' for device %s is not a finite number >= 0", eq + 1, item);
        const size_t d = match_device(devs, n, item);
        if (d == n)
            return cli_usage_error("run", "--ratios: no device '%s' in this run (devices: %s)",
                                   item, ids);
        if (given[d])
            return cli_usage_error("run", "--ratios: device %s is given twice", devs[d].id);
        given[d] = 1;
        ratios[d] = v;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *n_out = n;
    return CLI_EXIT_OK;
}
