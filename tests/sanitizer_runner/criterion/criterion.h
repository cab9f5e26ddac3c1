/*
 * The subset of Criterion's API that apportion's tests use, for the sanitizer builds only
 * (scripts/test.sh --sanitize and --tsan), where it stands in for <criterion/criterion.h>:
 *
 * - ThreadSanitizer: Criterion cannot start under GCC's TSan. Its sandbox library maps a
 *   shared arena with MAP_FIXED at a random address, which TSan's mmap interceptor refuses
 *   outside the memory it gives the program, and Criterion aborts ("Could not initialize
 *   inheritable arena", Criterion issue #274).
 * - AddressSanitizer: Criterion's runner leaks a 48-byte calloc in every test program, and
 *   the only way to suppress it (its library has no symbols) is by module, `leak:
 *   libcriterion.so`, which LeakSanitizer matches against every frame of an allocation's
 *   stack: every test runs under Criterion's frames, so that rule hid every leak of the
 *   library and the tests too.
 *
 * Without Criterion in the process neither problem exists, no suppression is needed, and
 * the same test sources run. The other builds use the real Criterion.
 *
 * What it keeps of Criterion's behaviour (tests/sanitizer_runner/runner.c): every case in
 * its own forked process, suite and case .init/.fini/.timeout/.disabled, fatal cr_assert_*
 * and non-fatal cr_expect_*, cr_skip_test, and the closing "Synthesis: Tested: N | Passing:
 * N | Failing: N | Crashing: N" line that scripts/count-results.py reads. A child that a
 * sanitizer reports on exits with the sanitizer's status and counts as crashing.
 *
 * The folder is on the include path as a system folder, like the real header, so that the
 * comparisons the macros expand to draw the same (absent) warnings as Criterion's do.
 */
#ifndef APO_SANITIZER_CRITERION_H
#define APO_SANITIZER_CRITERION_H

/* Criterion's own header brings in <stdlib.h> and <string.h>, and a test that uses qsort or
 * malloc compiles against it without including them: the stand-in brings them in too, so that
 * such a test fails in no build (a qsort of test_model.c stopped the sanitizer stages of a
 * clean-clone CI on 2026-12-07). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct crl_test {
    const char *suite_name;
    const char *name;
    void (*body)(void);
    void (*init)(void);
    void (*fini)(void);
    double timeout; /* seconds; 0: the suite's, else none */
    int disabled;
    int crl_end; /* lets the registration macros always pass one designated field */
    struct crl_test *next;
} crl_test;

typedef struct crl_suite {
    const char *name;
    void (*init)(void);
    void (*fini)(void);
    double timeout;
    int disabled;
    int crl_end;
    struct crl_suite *next;
} crl_suite;

/* Criterion's entry points, for a test program with a main of its own (the gpu suite's,
 * tests/gpu/gpu_fixtures.c). */
struct criterion_test_set;
struct criterion_test_set *criterion_initialize(void);
int criterion_handle_args(int argc, char *argv[], _Bool handle_unknown_arg);
int criterion_run_all_tests(struct criterion_test_set *set);
void criterion_finalize(struct criterion_test_set *set);

void crl_register_test(crl_test *t);
void crl_register_suite(crl_suite *s);

/* A failed check: prints where and why. crl_abort ends the case (its .fini runs), and
 * says so to the compiler, which then knows that a pointer checked not to be NULL is not;
 * crl_expect_failed marks the case failed and returns. */
__attribute__((noreturn)) void crl_abort(const char *file, int line, const char *what,
                                         const char *fmt, ...);
void crl_expect_failed(const char *file, int line, const char *what, const char *fmt, ...);
__attribute__((noreturn)) void crl_skip(const char *fmt, ...);
void crl_log(const char *fmt, ...);

/* Renders a compared value for a failure message (see CRL_SHOW). */
void crl_show_signed(char *buf, size_t size, long long v);
void crl_show_unsigned(char *buf, size_t size, unsigned long long v);
void crl_show_real(char *buf, size_t size, long double v);
void crl_show_pointer(char *buf, size_t size, const void *v);

#define CRL_SHOW(buf, x)                                                                           \
    _Generic((x), _Bool                                                                            \
             : crl_show_unsigned, char                                                             \
             : crl_show_signed, signed char                                                        \
             : crl_show_signed, short                                                              \
             : crl_show_signed, int                                                                \
             : crl_show_signed, long                                                               \
             : crl_show_signed, long long                                                          \
             : crl_show_signed, unsigned char                                                      \
             : crl_show_unsigned, unsigned short                                                   \
             : crl_show_unsigned, unsigned                                                         \
             : crl_show_unsigned, unsigned long                                                    \
             : crl_show_unsigned, unsigned long long                                               \
             : crl_show_unsigned, float                                                            \
             : crl_show_real, double                                                               \
             : crl_show_real, long double                                                          \
             : crl_show_real, default                                                              \
             : crl_show_pointer)(buf, sizeof buf, x)

/* ---- cases and suites ----------------------------------------------------------------------- */

#define Test(...) CRL_TEST_(__VA_ARGS__, .crl_end = 0)
#define CRL_TEST_(suite_id, case_id, ...)                                                          \
    static void crl_body_##suite_id##_##case_id(void);                                             \
    static crl_test crl_case_##suite_id##_##case_id = {.suite_name = #suite_id,                    \
                                                       .name = #case_id,                           \
                                                       .body = crl_body_##suite_id##_##case_id,    \
                                                       __VA_ARGS__};                               \
    __attribute__((constructor)) static void crl_add_##suite_id##_##case_id(void) {                \
        crl_register_test(&crl_case_##suite_id##_##case_id);                                       \
    }                                                                                              \
    static void crl_body_##suite_id##_##case_id(void)

#define TestSuite(...) CRL_SUITE_(__VA_ARGS__, .crl_end = 0)
#define CRL_SUITE_(suite_id, ...)                                                                  \
    static crl_suite crl_suite_##suite_id = {.name = #suite_id, __VA_ARGS__};                      \
    __attribute__((constructor)) static void crl_add_suite_##suite_id(void) {                      \
        crl_register_suite(&crl_suite_##suite_id);                                                 \
    }                                                                                              \
    extern int crl_suite_end_##suite_id /* takes the ';' after TestSuite(...) */

/* ---- checks ---------------------------------------------------------------------------------- */

/* Every check takes an optional printf-style message after its operands; the trailing ""
 * gives the format when there is none (a surplus argument is harmless to vsnprintf). */
#define CRL_CHECK_(fail, cond, ...)                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                          \
    } while (0)

/* Each operand is evaluated once, as Criterion does, and shown on failure. */
#define CRL_OP_(fail, op, a, b, ...)                                                               \
    do {                                                                                           \
        __typeof__(a) crl_a_ = (a);                                                                \
        __typeof__(b) crl_b_ = (b);                                                                \
        if (!(crl_a_ op crl_b_)) {                                                                 \
            char crl_sa_[64], crl_sb_[64], crl_what_[512];                                         \
            CRL_SHOW(crl_sa_, crl_a_);                                                             \
            CRL_SHOW(crl_sb_, crl_b_);                                                             \
            crl_what_[0] = '\0';                                                                   \
            strncat(crl_what_, #a " " #op " " #b " (", sizeof crl_what_ - 1);                      \
            strncat(crl_what_, crl_sa_, sizeof crl_what_ - strlen(crl_what_) - 1);                 \
            strncat(crl_what_, " vs ", sizeof crl_what_ - strlen(crl_what_) - 1);                  \
            strncat(crl_what_, crl_sb_, sizeof crl_what_ - strlen(crl_what_) - 1);                 \
            strncat(crl_what_, ")", sizeof crl_what_ - strlen(crl_what_) - 1);                     \
            fail(__FILE__, __LINE__, crl_what_, __VA_ARGS__);                                      \
        }                                                                                          \
    } while (0)

#define CRL_STR_(fail, op, a, b, ...)                                                              \
    do {                                                                                           \
        const char *crl_a_ = (a), *crl_b_ = (b);                                                   \
        if (!(strcmp(crl_a_, crl_b_) op 0))                                                        \
            fail(__FILE__, __LINE__, #a " " #op " " #b " as strings", __VA_ARGS__);                \
    } while (0)

#define CRL_FLOAT_(fail, a, b, eps, ...)                                                           \
    do {                                                                                           \
        long double crl_a_ = (a), crl_b_ = (b), crl_e_ = (eps);                                    \
        if (!(fabsl(crl_a_ - crl_b_) <= crl_e_))                                                   \
            fail(__FILE__, __LINE__, #a " within " #eps " of " #b, __VA_ARGS__);                   \
    } while (0)

#define cr_assert(...) CRL_CHECK_(crl_abort, __VA_ARGS__, "")
#define cr_expect(...) CRL_CHECK_(crl_expect_failed, __VA_ARGS__, "")
#define cr_assert_null(...) CRL_NULL_(crl_abort, ==, __VA_ARGS__, "")
#define cr_assert_not_null(...) CRL_NULL_(crl_abort, !=, __VA_ARGS__, "")
#define CRL_NULL_(fail, op, p, ...) CRL_CHECK_(fail, (p)op NULL, __VA_ARGS__)
/* These three always get a literal message first in apportion's tests. */
#define cr_assert_fail(...) crl_abort(__FILE__, __LINE__, "cr_assert_fail", "" __VA_ARGS__)

#define cr_assert_eq(...) CRL_OP_(crl_abort, ==, __VA_ARGS__, "")
#define cr_assert_neq(...) CRL_OP_(crl_abort, !=, __VA_ARGS__, "")
#define cr_assert_lt(...) CRL_OP_(crl_abort, <, __VA_ARGS__, "")
#define cr_assert_leq(...) CRL_OP_(crl_abort, <=, __VA_ARGS__, "")
#define cr_assert_gt(...) CRL_OP_(crl_abort, >, __VA_ARGS__, "")
#define cr_assert_geq(...) CRL_OP_(crl_abort, >=, __VA_ARGS__, "")
#define cr_expect_eq(...) CRL_OP_(crl_expect_failed, ==, __VA_ARGS__, "")
#define cr_expect_neq(...) CRL_OP_(crl_expect_failed, !=, __VA_ARGS__, "")

#define cr_assert_str_eq(...) CRL_STR_(crl_abort, ==, __VA_ARGS__, "")
#define cr_assert_str_neq(...) CRL_STR_(crl_abort, !=, __VA_ARGS__, "")
#define cr_assert_str_empty(...) CRL_STR_EMPTY_(crl_abort, __VA_ARGS__, "")
#define CRL_STR_EMPTY_(fail, s, ...) CRL_STR_(fail, ==, s, "", __VA_ARGS__)
#define cr_expect_str_eq(...) CRL_STR_(crl_expect_failed, ==, __VA_ARGS__, "")
#define cr_assert_float_eq(...) CRL_FLOAT_(crl_abort, __VA_ARGS__, "")
#define cr_assert_arr_eq(...) CRL_ARR_(crl_abort, ==, __VA_ARGS__, "")

#define CRL_ARR_(fail, op, a, b, size, ...)                                                        \
    do {                                                                                           \
        if (!(memcmp((a), (b), (size)) op 0))                                                      \
            fail(__FILE__, __LINE__, #a " " #op " " #b " as " #size " bytes", __VA_ARGS__);        \
    } while (0)

#define cr_skip_test(...) crl_skip("" __VA_ARGS__)
#define cr_log_info(...) crl_log("" __VA_ARGS__)

#endif
