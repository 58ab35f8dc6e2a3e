/* asz_core.verify.jsonscan: a session index's lines vouched for in one pass over their bytes (issue 22, asz verify's
 * state files check: docs/performance.md "Session 27, asz verify as a command").
 *
 * asz_core/verify/session_files.py warns of an index/entries.jsonl line that does not read: each line up to the
 * state's entries_bytes, not empty, must be what orjson.loads reads as an object whose "seq" is an int. Read by
 * orjson, a 25 MB index costs 0.08 s of CPU, most of it making the objects. index_lines tells the same of the lines
 * it can from their bytes alone, and makes nothing:
 *
 *     index_lines(data, end) -> None, or the number (from 1) of the first line it does not vouch for
 *
 * over data[:end] split at each b"\n" as bytes.split numbers the lines (an empty line is skipped, as the Python skips
 * it). It vouches for a line only when that line is compact JSON (no byte of whitespace outside strings: the writer's
 * orjson.dumps) that orjson.loads reads without error as an object whose "seq" is an int: the line begins
 * {"seq":N with N an integer (an optional '-', 1 to 18 digits, no leading zero, no fraction, no exponent), no other
 * key of the outer object is "seq" or holds a backslash (an escape could spell "seq"), and every value is JSON as
 * RFC 8259 writes it and orjson reads it: strings of valid UTF-8 (no overlong form, no surrogate, nothing above
 * U+10FFFF), no byte below 0x20, escapes only \" \\ \/ \b \f \n \r \t and \uXXXX with a high surrogate always
 * followed by a low one and no low one alone; numbers of at most 19 digits before any exponent (a time in ns has 19)
 * and an exponent of at most 2 digits (so always finite: orjson refuses one that is not); true, false, null; at most 512 objects and lists deep (orjson reads 1024).
 * Anything else is not vouched for: the caller then reads from that line on with orjson, which words what is wrong.
 * So a line is either vouched for by a rule orjson also keeps, or read by orjson: the findings are the Python's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "../sessiondata/source_digest.h"

#define MAX_DEPTH 512

/* 1 for a byte a string may hold as it is with nothing more to check: not '"', not '\\', below 0x80, not below 0x20. */
static unsigned char plain[256];

static int hex4(const unsigned char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return 0;
        v = v * 16 + d;
    }
    *out = v;
    return 1;
}

/* The byte after the closing quote of the string whose opening quote is at p; NULL when it is not vouched for (cut,
 * a byte below 0x20, an escape orjson refuses or one not listed, UTF-8 that is not valid). *escaped is set when the
 * string holds a backslash. */
static const unsigned char *string_end(const unsigned char *p, const unsigned char *end, int *escaped) {
    p++;
    for (;;) {
        while (p < end && plain[*p])
            p++;
        if (p >= end)
            return NULL;
        unsigned c = *p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            *escaped = 1;
            if (end - p < 2)
                return NULL;
            unsigned e = p[1];
            if (e == 'u') {
                unsigned u, low;
                if (end - p < 6 || !hex4(p + 2, &u))
                    return NULL;
                if (u >= 0xDC00 && u <= 0xDFFF)
                    return NULL; /* a low surrogate alone */
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || !hex4(p + 8, &low) || low < 0xDC00 || low > 0xDFFF)
                        return NULL; /* a high surrogate not followed by a low one */
                    p += 12;
                } else {
                    p += 6;
                }
                continue;
            }
            if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                p += 2;
                continue;
            }
            return NULL;
        }
        /* c >= 0x80: one UTF-8 sequence, checked whole */
        int n;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            cp = c & 0x07;
        } else {
            return NULL;
        }
        if (end - p <= n)
            return NULL;
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return NULL;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if (n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)))
            return NULL;
        if (n == 3 && (cp < 0x10000 || cp > 0x10FFFF))
            return NULL;
        p += n + 1;
    }
}

/* The byte after the number at p; NULL when it is not vouched for (more than ``most`` digits before any exponent, an
 * exponent of more than 2 digits). *integer is set when it has neither a fraction nor an exponent. */
static const unsigned char *number_end(const unsigned char *p, const unsigned char *end, int *integer, int most) {
    const unsigned char *q = p;
    int digits = 0;
    if (q < end && *q == '-')
        q++;
    if (q >= end)
        return NULL;
    if (*q == '0') {
        q++;
        digits = 1;
    } else if (*q >= '1' && *q <= '9') {
        while (q < end && *q >= '0' && *q <= '9') {
            q++;
            digits++;
        }
    } else {
        return NULL;
    }
    *integer = 1;
    if (q < end && *q == '.') {
        *integer = 0;
        q++;
        const unsigned char *f = q;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q == f)
            return NULL;
        digits += (int)(q - f);
    }
    if (digits > most)
        return NULL;
    if (q < end && (*q == 'e' || *q == 'E')) {
        *integer = 0;
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        const unsigned char *x = q;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q == x || q - x > 2)
            return NULL;
    }
    return q;
}

/* 1 when the line [p, end) is vouched for (see the head of this file), else 0. */
static int line_ok(const unsigned char *p, const unsigned char *end) {
    char stack[MAX_DEPTH];
    int depth, integer = 0, escaped;
    if (end - p < 8 || memcmp(p, "{\"seq\":", 7) != 0)
        return 0;
    const unsigned char *q = number_end(p + 7, end, &integer, 18); /* an int for orjson, whatever its sign */
    if (q == NULL || !integer)
        return 0;
    stack[0] = '{';
    depth = 1;
    /* after a value: ',' then a key (in an object) or a value (in a list), or the container's end */
    for (;;) {
        if (q >= end)
            return 0;
        unsigned c = *q;
        if (c == ',') {
            q++;
            if (stack[depth - 1] == '{') {
            key:
                if (q >= end || *q != '"')
                    return 0;
                escaped = 0;
                const unsigned char *k = q;
                q = string_end(q, end, &escaped);
                if (q == NULL)
                    return 0;
                if (depth == 1 && (escaped || (q - k == 5 && memcmp(k, "\"seq\"", 5) == 0)))
                    return 0; /* a second "seq", or a key that might spell it */
                if (q >= end || *q != ':')
                    return 0;
                q++;
            }
        value:
            if (q >= end)
                return 0;
            c = *q;
            if (c == '"') {
                escaped = 0;
                q = string_end(q, end, &escaped);
            } else if (c == '{' || c == '[') {
                if (depth >= MAX_DEPTH)
                    return 0;
                stack[depth++] = (char)c;
                q++;
                if (q < end && *q == (c == '{' ? '}' : ']')) {
                    depth--;
                    q++;
                } else if (c == '{') {
                    goto key;
                } else {
                    goto value;
                }
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                q = number_end(q, end, &integer, 19); /* finite for orjson (an int, or a float below 10^118) */
            } else if (c == 't' && end - q >= 4 && memcmp(q, "true", 4) == 0) {
                q += 4;
            } else if (c == 'f' && end - q >= 5 && memcmp(q, "false", 5) == 0) {
                q += 5;
            } else if (c == 'n' && end - q >= 4 && memcmp(q, "null", 4) == 0) {
                q += 4;
            } else {
                return 0;
            }
            if (q == NULL)
                return 0;
        } else if ((c == '}' && stack[depth - 1] == '{') || (c == ']' && stack[depth - 1] == '[')) {
            q++;
            if (--depth == 0)
                return q == end;
        } else {
            return 0;
        }
    }
}

PyDoc_STRVAR(index_lines_doc,
             "index_lines(data, end) -> None, or the number (from 1) of the first line of data[:end] not vouched for.\n\n"
             "Lines as data[:end].split(b'\\n') numbers them, an empty one skipped; a line is vouched for only when\n"
             "orjson.loads reads it as an object whose \"seq\" is an int (the rules are in jsonscan.c's head).");

static PyObject *index_lines(PyObject *self, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t end;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*n", &buf, &end))
        return NULL;
    if (end < 0 || end > buf.len) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "end is outside the data");
        return NULL;
    }
    const unsigned char *data = buf.buf, *p = data, *stop = data + end;
    Py_ssize_t line = 1, bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (;;) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(stop - p));
        const unsigned char *e = nl != NULL ? nl : stop;
        if (e > p && !line_ok(p, e)) {
            bad = line;
            break;
        }
        if (nl == NULL)
            break;
        p = nl + 1;
        line++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    if (bad)
        return PyLong_FromSsize_t(bad);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"index_lines", index_lines, METH_VARARGS, index_lines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "jsonscan",
    "A session index's lines vouched for from their bytes: the compiled half of asz verify's state files check "
    "(asz_core.verify.session_files).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_jsonscan(void) {
    for (int c = 0x20; c < 0x80; c++)
        plain[c] = 1;
    plain['"'] = plain['\\'] = 0;
    return with_source_digest(PyModule_Create(&module));
}
