/*
 * Proof that the sanitizers of a sanitizer build are awake: given a fault's name, this
 * program commits that fault on purpose (a leak for LeakSanitizer, a signed overflow for
 * UndefinedBehaviorSanitizer, a data race for ThreadSanitizer), and tests/meson.build
 * registers it as a test that must fail. Should a change of flags, options or test runner
 * ever silence a sanitizer, its canary would exit 0 and the suite would fail.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* volatile, so that the compiler can neither drop the leaked block nor fold the overflow. */
static void *volatile leaked;
static volatile int counter = INT_MAX;
static int raced; /* written by two threads with nothing ordering the writes */

static void *race_partner(void *arg) {
    raced++;
    return arg;
}

int main(int argc, char *argv[]) {
    const char *fault = argc > 1 ? argv[1] : "";
    if (strcmp(fault, "leak") == 0) {
        leaked = malloc(100);
        leaked = NULL;
    } else if (strcmp(fault, "overflow") == 0) {
        counter = counter + 1;
    } else if (strcmp(fault, "race") == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, race_partner, NULL) != 0)
            return 2;
        raced++;
        pthread_join(t, NULL);
    } else {
        fprintf(stderr, "usage: sanitizer_canary leak|overflow|race\n");
        return 2;
    }
    printf("committed: %s\n", fault);
    return 0;
}
