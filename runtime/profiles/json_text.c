/*
 * A profile's whole JSON text (see json_text.h). Parsing and counting protect the reader
 * from hostile files; dumping makes what apportion writes stable and readable, so that a
 * profile can be diffed and a value written is the value read back.
 */
#include "profiles/json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiles/text.h"

size_t apo__json_count_values(const char *text, size_t len) {
    size_t n = 1;
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == ':' || c == ',') {
            n++;
        }
    }
    return n;
}

json_t *apo__json_parse(const char *name, const char *text, size_t len, char *err,
                        size_t err_size) {
    json_error_t jerr;
    /* Duplicate keys are refused: which of two ratios for one device would be meant? */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        /* jansson quotes the bytes near the error as they are; control bytes are shown as
         * \xNN, so that the message stays one line and a hostile file cannot put escape
         * sequences on a terminal. */
        char why[4 * sizeof jerr.text];
        size_t o = 0;
        for (const unsigned char *c = (const unsigned char *)jerr.text; *c != '\0'; c++) {
            if (*c < 0x20 || *c == 0x7f)
                o += (size_t)snprintf(why + o, sizeof why - o, "\\x%02x", *c);
            else
                why[o++] = (char)*c;
        }
        why[o] = '\0';
        apo__errf(err, err_size, "%s: not valid JSON (line %d, column %d): %s", name, jerr.line,
                  jerr.column, why);
    }
    return root;
}

/* jansson writes every real with the 17 significant digits of JSON_REAL_PRECISION(17): that
 * reads back exactly, but shows 0.91 as 0.91000000000000003. This copies the dumped text with
 * each real (a number token with '.' or 'e') rewritten to its shortest exact form, still
 * written as a real ("1.0", not "1"); strings are copied untouched. */
static char *shorten_reals(const char *in, size_t *len) {
    size_t in_len = strlen(in), cap = in_len + in_len / 2 + 64, o = 0;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    int in_string = 0;
    for (size_t i = 0; i < in_len;) {
        /* Room for the longest rewritten number, with margin. */
        if (o + 64 > cap) {
            char *grown = realloc(out, cap *= 2);
            if (grown == NULL) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        char c = in[i];
        if (in_string) {
            out[o++] = in[i++];
            if (c == '\\' && i < in_len)
                out[o++] = in[i++];
            else if (c == '"')
                in_string = 0;
            continue;
        }
        if (c == '"')
            in_string = 1;
        if (c != '-' && (c < '0' || c > '9')) {
            out[o++] = in[i++];
            continue;
        }
        size_t end = i;
        int real = 0;
        while (end < in_len && strchr("0123456789+-.eE", in[end]) != NULL) {
            real |= in[end] == '.' || in[end] == 'e' || in[end] == 'E';
            end++;
        }
        double v;
        char num[48];
        if (real && end - i < 40 && apo__parse_c_double(in + i, end - i, &v) == 0) {
            apo__format_shortest(num, sizeof num - 2, v);
            if (strpbrk(num, ".e") == NULL)
                strcat(num, ".0");
            size_t n = strlen(num);
            memcpy(out + o, num, n);
            o += n;
        } else {
            /* Integers, and anything unexpected, are copied as they are. */
            if (o + (end - i) + 64 > cap) {
                char *grown = realloc(out, cap = o + (end - i) + 128);
                if (grown == NULL) {
                    free(out);
                    return NULL;
                }
                out = grown;
            }
            memcpy(out + o, in + i, end - i);
            o += end - i;
        }
        i = end;
    }
    out[o] = '\0';
    *len = o;
    return out;
}

char *apo__json_dump(const json_t *root, size_t *len) {
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    if (text == NULL)
        return NULL;
    char *out = shorten_reals(text, len);
    free(text);
    if (out == NULL)
        return NULL;
    char *with_newline = realloc(out, *len + 2);
    if (with_newline == NULL) {
        free(out);
        return NULL;
    }
    with_newline[(*len)++] = '\n';
    with_newline[*len] = '\0';
    return with_newline;
}
