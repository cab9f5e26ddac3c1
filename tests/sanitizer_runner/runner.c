/*
 * The runner behind tests/sanitizer_runner/criterion/criterion.h, for the sanitizer builds
 * (see that header for why Criterion itself is not used there). Each case runs in a forked
 * child, as Criterion runs it, so a crash, a timeout or a sanitizer report ends that case
 * alone. The child leaves through exit(), never _exit(), so that the sanitizers' exit-time
 * work still happens in it: LeakSanitizer's leak check, and TSan's turning of a report into
 * its exit status when halt_on_error is off.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A case's timeout is stretched by this much: the sanitizers make programs 2 to 15 times
 * slower, and a timeout is there to stop a hang, not to time anything. */
#define TIMEOUT_SCALE 10.0
/* The child's exit status for a skipped case (any other non-zero status is a failure). */
#define SKIP_EXIT 75
#define FAIL_EXIT 1

static crl_test *all_tests;
static crl_suite *all_suites;

void crl_register_test(crl_test *t) {
    t->next = all_tests;
    all_tests = t;
}

void crl_register_suite(crl_suite *s) {
    s->next = all_suites;
    all_suites = s;
}

/* ---- inside a case's child ---------------------------------------------------------------- */

static void (*case_fini)(void);
static int in_fini;
static int expect_failed;

/* Ends the case: runs its .fini once (unless the failure came from it), then exits. */
static void finish_case(int status) {
    if (case_fini != NULL && !in_fini) {
        in_fini = 1;
        case_fini();
    }
    fflush(stdout);
    fflush(stderr);
    exit(status);
}

static void report(const char *kind, const char *file, int line, const char *what, const char *fmt,
                   va_list ap) {
    char message[2048];
    vsnprintf(message, sizeof message, fmt, ap);
    fprintf(stderr, "%s:%d: %s failed: %s%s%s\n", file, line, kind, what,
            message[0] != '\0' ? ": " : "", message);
}

void crl_abort(const char *file, int line, const char *what, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report("assertion", file, line, what, fmt, ap);
    va_end(ap);
    finish_case(FAIL_EXIT);
    abort(); /* finish_case() exits; this tells the compiler so */
}

void crl_expect_failed(const char *file, int line, const char *what, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report("expectation", file, line, what, fmt, ap);
    va_end(ap);
    expect_failed = 1;
}

void crl_skip(const char *fmt, ...) {
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fprintf(stderr, "skipped: %s\n", message);
    finish_case(SKIP_EXIT);
    abort(); /* not reached */
}

void crl_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("[info] ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void crl_show_signed(char *buf, size_t size, long long v) { snprintf(buf, size, "%lld", v); }
void crl_show_unsigned(char *buf, size_t size, unsigned long long v) {
    snprintf(buf, size, "%llu", v);
}
void crl_show_real(char *buf, size_t size, long double v) { snprintf(buf, size, "%.17Lg", v); }
void crl_show_pointer(char *buf, size_t size, const void *v) { snprintf(buf, size, "%p", v); }

static void run_case(const crl_test *t, const crl_suite *s) {
    double timeout = t->timeout > 0 ? t->timeout : s != NULL ? s->timeout : 0;
    if (timeout > 0)
        alarm((unsigned)ceil(timeout * TIMEOUT_SCALE)); /* SIGALRM ends the child */
    void (*init)(void) = t->init != NULL ? t->init : s != NULL ? s->init : NULL;
    case_fini = t->fini != NULL ? t->fini : s != NULL ? s->fini : NULL;
    if (init != NULL)
        init();
    t->body();
    finish_case(expect_failed ? FAIL_EXIT : 0);
}

/* ---- the parent ----------------------------------------------------------------------------- */

static const crl_suite *find_suite(const char *name) {
    for (const crl_suite *s = all_suites; s != NULL; s = s->next)
        if (strcmp(s->name, name) == 0)
            return s;
    return NULL;
}

static int case_cmp(const void *a, const void *b) {
    const crl_test *x = *(const crl_test *const *)a, *y = *(const crl_test *const *)b;
    int c = strcmp(x->suite_name, y->suite_name);
    return c != 0 ? c : strcmp(x->name, y->name);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The set is the registered cases; nothing needs building, so it is a token. */
struct criterion_test_set {
    int unused;
};
static struct criterion_test_set the_set;

struct criterion_test_set *criterion_initialize(void) {
    return &the_set;
}

int criterion_handle_args(int argc, char *argv[], _Bool handle_unknown_arg) {
    (void)argc, (void)argv, (void)handle_unknown_arg;
    return 1; /* go on and run the cases */
}

void criterion_finalize(struct criterion_test_set *set) { (void)set; }

/* Runs every case; returns 1 when all passed or were skipped, as Criterion does. */
int criterion_run_all_tests(struct criterion_test_set *set) {
    (void)set;
    size_t n = 0;
    for (crl_test *t = all_tests; t != NULL; t = t->next)
        n++;
    crl_test **order = malloc((n > 0 ? n : 1) * sizeof *order);
    if (order == NULL)
        return 0;
    n = 0;
    for (crl_test *t = all_tests; t != NULL; t = t->next)
        order[n++] = t;
    /* Criterion's order is its own; a sorted one makes two logs comparable. */
    qsort(order, n, sizeof *order, case_cmp);

    unsigned tested = 0, passing = 0, failing = 0, crashing = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        const crl_test *t = order[i];
        const crl_suite *s = find_suite(t->suite_name);
        if (t->disabled || (s != NULL && s->disabled)) {
            skipped++;
            continue;
        }
        fflush(stdout);
        fflush(stderr);
        double t0 = now_s();
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            free(order);
            return 0;
        }
        if (pid == 0)
            run_case(t, s);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0) {
        }
        double took = now_s() - t0;
        const char *verdict;
        char why[64] = "";
        if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_EXIT) {
            skipped++;
            verdict = "SKIP";
        } else {
            tested++;
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
                passing++;
                verdict = "PASS";
            } else if (WIFEXITED(status) && WEXITSTATUS(status) == FAIL_EXIT) {
                failing++;
                verdict = "FAIL";
            } else {
                crashing++;
                verdict = "CRASH";
                if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
                    snprintf(why, sizeof why, " (timed out)");
                else if (WIFSIGNALED(status))
                    snprintf(why, sizeof why, " (signal %d)", WTERMSIG(status));
                else
                    snprintf(why, sizeof why, " (exit status %d; see the report above)",
                             WEXITSTATUS(status));
            }
        }
        printf("[%s] %s::%s: %.2f s%s\n", verdict, t->suite_name, t->name, took, why);
    }
    free(order);
    printf("[====] Synthesis: Tested: %u | Passing: %u | Failing: %u | Crashing: %u "
           "| Skipped: %u\n",
           tested, passing, failing, crashing, skipped);
    fflush(stdout);
    return failing + crashing == 0;
}

/* Weak, so that a test program with its own main (the gpu suite's, gpu/gpu_fixtures.c) keeps it. */
__attribute__((weak)) int main(int argc, char *argv[]) {
    struct criterion_test_set *set = criterion_initialize();
    int ok = criterion_handle_args(argc, argv, 1) ? criterion_run_all_tests(set) : 1;
    criterion_finalize(set);
    return ok ? 0 : 1;
}
