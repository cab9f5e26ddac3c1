/*
 * Numbers as text with '.' as the decimal point, whatever LC_NUMERIC says: profile files,
 * threshold keys, device configuration keys and messages must read the same in every
 * process, but printf and strtod follow the locale, which a program using the library may
 * have set. The conversions here undo that.
 */
#ifndef APO_RUNTIME_BASE_C_NUMBER_H
#define APO_RUNTIME_BASE_C_NUMBER_H

#include <stddef.h>

/* Reads a number written as -?D+(.D+)?(e[+-]?D+)? (what %g writes), and nothing else, with
 * '.' as the decimal point. Returns 0, or -1 (*out untouched) for anything else or a
 * number out of range. */
int apo__parse_c_double(const char *s, size_t len, double *out);

/* The shortest of %.15g, %.16g and %.17g that reads back to `v` exactly, with '.' as the
 * decimal point: a bound of 1e300 is written 1e+300, not 1.0000000000000001e+300. */
void apo__format_shortest(char *buf, size_t size, double v);

#endif
