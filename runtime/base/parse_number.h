/*
 * The one parser of numbers given as text by the user (environment variables; docs/env.md,
 * "Numbers"). Strict: the whole string is the number, with nothing before or after it, not
 * even white space, so that " 4", "4 " and "4 threads" are refused rather than read as 4.
 */
#ifndef APO_RUNTIME_BASE_PARSE_NUMBER_H
#define APO_RUNTIME_BASE_PARSE_NUMBER_H

/* Parses `text` as a decimal integer: an optional '+' or '-', then decimal digits only
 * ("0x10", "2.5", "1e3" are refused). Returns 0 and sets *out, or returns -1 (leaving *out
 * as it was) for any other text, including one that does not fit a long long. */
int apo__parse_integer(const char *text, long long *out);

/* Parses `text` as a decimal real number: an optional '+' or '-', digits with an optional
 * '.' and fraction (at least one digit in all), then an optional exponent 'e' or 'E' with an
 * optional sign and digits ("60", "0.25", ".5", "2.5e-1"). Hexadecimal forms, "inf" and
 * "nan" are refused. Returns 0 and sets *out, or returns -1 (leaving *out as it was), also
 * when the value overflows or underflows a double. */
int apo__parse_real(const char *text, double *out);

#endif
