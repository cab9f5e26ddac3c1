/* The heatmap of a scored grid; see scores_plot.h. */
#include "scores_plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "scores_rank.h"

extern char **environ;

/* Whether an executable named `name` is on PATH. */
static int on_path(const char *name) {
    const char *path = getenv("PATH");
    if (path == NULL)
        return 0;
    char file[4096];
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len > 0 &&
            snprintf(file, sizeof file, "%.*s/%s", (int)len, p, name) < (int)sizeof file &&
            access(file, X_OK) == 0)
            return 1;
        if (end == NULL)
            return 0;
        p = end + 1;
    }
}

/* Whether the picture can be put at `plot`: its folder exists, is a folder, and takes new
 * files (gnuplot writes a temporary beside it), and `plot` itself is not a folder. Found
 * before the work, as --output's folder is, rather than by gnuplot after it. Returns 0, or
 * -1 with the reason in err. */
static int check_picture_folder(const char *plot, char *err, size_t err_size) {
    char dir[4096];
    const char *slash = strrchr(plot, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == plot)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - plot), plot);
    struct stat st;
    if (stat(dir, &st) != 0)
        snprintf(err, err_size, "--plot '%s': its folder %s %s", plot, dir,
                 errno == ENOENT ? "does not exist (make it first)" : strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        snprintf(err, err_size, "--plot '%s': %s is not a folder", plot, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        snprintf(err, err_size, "--plot '%s': cannot write in its folder %s: %s", plot, dir,
                 strerror(errno));
    else if (stat(plot, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(err, err_size, "--plot '%s' is a folder, not a picture file", plot);
    else
        return 0;
    return -1;
}

int cli_scores_plot_check(const cli_run_options *o) {
    if (o->plot == NULL)
        return CLI_EXIT_OK;
    if (o->score == NULL)
        return cli_usage_error("run", "--plot needs --score RULE");
    if (o->given.n_sweep != 2)
        return cli_usage_error("run",
                               "--plot draws a score over two swept parameters; this run sweeps "
                               "%zu (sweep two with --param, or leave --plot out)",
                               o->given.n_sweep);
    const size_t len = strlen(o->plot);
    if (len < 5 || strcmp(o->plot + len - 4, ".png") != 0)
        return cli_usage_error("run", "--plot '%s': the picture is a PNG file, FILE.png", o->plot);
    char err[4400];
    if (check_picture_folder(o->plot, err, sizeof err) != 0) {
        cli_error("%s; nothing was computed", err);
        return CLI_EXIT_FAILURE;
    }
    if (!on_path("gnuplot")) {
        cli_error("--plot needs gnuplot, which is not on PATH (scripts/deps.sh installs "
                  "gnuplot-nox; on Debian: apt-get install gnuplot-nox)");
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

/* The data: one line a cell, "column row value" (indices of the second and first swept
 * parameter), a blank line after each row, as gnuplot's image style reads a grid. */
static int write_data(const char *path, const cli_scores *sc, const double *means) {
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    const size_t n1 = sc->o->given.sweep[1].n_values, n0 = sc->o->given.sweep[0].n_values;
    for (size_t i0 = 0; i0 < n0; i0++) {
        for (size_t i1 = 0; i1 < n1; i1++) {
            const double m = means[i0 * n1 + i1];
            if (isfinite(m))
                fprintf(f, "%zu %zu %.17g\n", i1, i0, m);
            else
                fprintf(f, "%zu %zu NaN\n", i1, i0);
        }
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* Tic labels "(\"10\" 0, \"15\" 1, ...)" of a swept parameter, at most about 12 shown. */
static void write_tics(FILE *f, const char *axis, const apo_sweep_param *p) {
    const size_t step = p->n_values > 12 ? (p->n_values + 11) / 12 : 1;
    fprintf(f, "set %stics (", axis);
    for (size_t i = 0; i < p->n_values; i += step)
        fprintf(f, "%s\"%g\" %zu", i > 0 ? ", " : "", p->values[i], i);
    fprintf(f, ")\n");
}

static int write_script(const char *path, const char *data, const char *picture,
                        const cli_scores *sc, long best) {
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    const apo_sweep_param *p0 = &sc->o->given.sweep[0], *p1 = &sc->o->given.sweep[1];
    const char *score = cli_score_name(sc->o, sc->o->by);
    fprintf(f, "set terminal pngcairo noenhanced size 900,650 font \"sans,10\"\n");
    fprintf(f, "set output \"%s\"\n", picture);
    char agg[48], kept[64] = "";
    cli_scores_agg_name(sc->o, agg, sizeof agg);
    if (sc->o->min_trades_set)
        snprintf(kept, sizeof kept, ", %zu trades or more", sc->o->min_trades);
    fprintf(f, "set title \"%s:%s, %s (%s over %zu series%s)%s\"\n", sc->o->kernel, sc->o->score,
            score, agg, sc->rows, kept, best >= 0 ? "; the best set is circled" : "");
    fprintf(f, "set xlabel \"%s\"\nset ylabel \"%s\"\n", p1->name, p0->name);
    write_tics(f, "x", p1);
    write_tics(f, "y", p0);
    fprintf(f, "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n", p1->n_values - 1,
            p0->n_values - 1);
    fprintf(f, "set cblabel \"%s\"\nset palette rgb 33,13,10\nunset key\n", score);
    if (best >= 0)
        fprintf(f,
                "plot \"%s\" using 1:2:3 with image, \"-\" using 1:2 with points pt 6 ps 3 lw 2 "
                "lc rgb \"black\"\n%zu %zu\ne\n",
                data, (size_t)best % p1->n_values, (size_t)best / p1->n_values);
    else
        fprintf(f, "plot \"%s\" using 1:2:3 with image\n", data);
    return fclose(f) == 0 ? 0 : -1;
}

/* Runs gnuplot on `script`; its own messages go to stderr. Returns its exit status, or -1. */
static int run_gnuplot(const char *script) {
    char *argv[] = {"gnuplot", (char *)script, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int cli_scores_plot(const cli_scores *sc, char *err, size_t err_size) {
    long best;
    double *means = cli_scores_set_aggregates(sc, NULL, &best);
    if (means == NULL) {
        snprintf(err, err_size, "--plot: out of memory");
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[4096], data[4200], script[4200], picture[4200];
    snprintf(dir, sizeof dir, "%s/apportion-plot-XXXXXX", tmp != NULL && tmp[0] ? tmp : "/tmp");
    int rc = -1;
    if (mkdtemp(dir) == NULL) {
        snprintf(err, err_size, "--plot: cannot make a folder for gnuplot's files: %s",
                 strerror(errno));
        free(means);
        return -1;
    }
    snprintf(data, sizeof data, "%s/grid.dat", dir);
    snprintf(script, sizeof script, "%s/grid.gp", dir);
    /* gnuplot writes into the picture's own folder under a temporary name, renamed into place
     * only once it is whole. */
    snprintf(picture, sizeof picture, "%s.%ld.tmp", sc->o->plot, (long)getpid());
    if (strchr(sc->o->plot, '"') != NULL || strchr(dir, '"') != NULL)
        snprintf(err, err_size,
                 "--plot '%s': a name with a double quote cannot be given to gnuplot", sc->o->plot);
    else if (write_data(data, sc, means) != 0 || write_script(script, data, picture, sc, best) != 0)
        snprintf(err, err_size, "--plot: cannot write gnuplot's files in %s: %s", dir,
                 strerror(errno));
    else {
        const int status = run_gnuplot(script);
        struct stat st;
        if (status != 0)
            snprintf(err, err_size, "--plot: gnuplot failed (exit status %d)", status);
        else if (stat(picture, &st) != 0 || st.st_size == 0)
            snprintf(err, err_size, "--plot: gnuplot wrote no picture");
        else if (rename(picture, sc->o->plot) != 0)
            snprintf(err, err_size, "--plot: cannot put the picture at %s: %s", sc->o->plot,
                     strerror(errno));
        else
            rc = 0;
    }
    unlink(picture);
    unlink(data);
    unlink(script);
    rmdir(dir);
    free(means);
    return rc;
}
