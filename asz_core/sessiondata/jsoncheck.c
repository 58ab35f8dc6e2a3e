/* asz_core.sessiondata.jsoncheck: is a JSON text orjson's own encoding of its value, told from its bytes alone
 * (issue 22, docs/performance.md "Session 19, collect: the Claude Code line in C").
 *
 * An adapter that lands source JSON keeps each value's exact source bytes (seed 000, What data holds); when a line is
 * byte for byte orjson.dumps of the value orjson.loads gives for it, every value in it is orjson.dumps of that value,
 * so its spans need no scan (asz_adapters_claude/jsonspans.py, Obj). The adapter learned that by encoding the decoded
 * value again (orjson.dumps([value]), which also says the value nests no deeper than 253). canonical() tells the same
 * from one pass over the bytes, with no second encoding:
 *
 *     canonical(data, begin, end) -> True, or None ("not told this way")
 *
 * True only when data[begin:end] is exactly what orjson.dumps writes for its value and that value nests at most 253
 * objects and lists deep (the outermost counts 1, as asz_core.nesting_depth counts). It needs data[begin:end] to be a
 * text orjson.loads decoded without error (so: JSON, valid UTF-8); it does not check UTF-8 again. It is True when the
 * text is compact (no whitespace outside strings), every string and key escapes exactly what orjson escapes (\" \\ \b
 * \t \n \f \r, and \u00XX in lowercase hex for the other bytes below 0x20; every other character as its own UTF-8
 * bytes, U+2028 and DEL included), every number is an integer of at most 18 digits with no leading zero and is not
 * -0 (each fits i64, and orjson writes it back the same), and no object holds a key twice (orjson keeps one of them,
 * so its encoding is shorter). Anything else gives None, never False: a float (orjson writes its shortest form), a
 * wider integer, another escape (\/, \u00e9, a surrogate), an object of more than 256 keys or a line deeper than
 * 253, and the caller then asks orjson.dumps as before. So True is the only answer that decides anything, and a None
 * costs what the check cost before. The Python fallback (asz_core/sessiondata/canonical.py) always says None.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include "source_digest.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAX_DEPTH 253       /* orjson encodes [value] only when value nests at most this deep */
#define MAX_KEYS 256        /* keys of one object compared with each other; more: None */
#define KEY_SLOTS 4096      /* keys of the open objects together; more: None */

/* 1 for a byte a string holds as it is in orjson's encoding: not '"', not '\\', not below 0x20. */
static unsigned char plain[256];

typedef struct {
    Py_ssize_t at, len;
} span;

/* End of the string whose opening quote is at p (the byte after its closing quote), or NULL when orjson would write
 * it otherwise (an escape it does not write) or it is cut. */
static const unsigned char *string_end(const unsigned char *p, const unsigned char *end) {
    p++;
    for (;;) {
#ifdef __SSE2__
        /* 16 bytes at a time while none is '"', '\\' or below 0x20 (most of a line's bytes are in long strings) */
        const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), low = _mm_set1_epi8(0x1f);
        while (end - p >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)p);
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, slash)),
                                       _mm_cmpeq_epi8(_mm_max_epu8(x, low), low));
            int mask = _mm_movemask_epi8(hit);
            if (mask) {
                p += __builtin_ctz((unsigned)mask);
                break;
            }
            p += 16;
        }
#endif
        while (p < end && plain[*p])
            p++;
        if (p >= end)
            return NULL;
        if (*p == '"')
            return p + 1;
        if (*p != '\\' || p + 1 >= end)
            return NULL; /* a raw control byte: not JSON, orjson refused it */
        switch (p[1]) {
        case '"': case '\\': case 'b': case 't': case 'n': case 'f': case 'r':
            p += 2;
            continue;
        case 'u':
            if (end - p < 6 || p[2] != '0' || p[3] != '0' || (p[4] != '0' && p[4] != '1'))
                return NULL;
            {
                int lo = p[5] >= '0' && p[5] <= '9' ? p[5] - '0' : p[5] >= 'a' && p[5] <= 'f' ? p[5] - 'a' + 10 : -1;
                int c = (p[4] - '0') * 16 + lo;
                if (lo < 0 || c == 8 || c == 9 || c == 10 || c == 12 || c == 13)
                    return NULL; /* orjson writes those five short */
            }
            p += 6;
            continue;
        default:
            return NULL;
        }
    }
}

/* End of the integer at p as orjson writes it (at most 18 digits, no leading zero, not -0), or NULL. */
static const unsigned char *integer_end(const unsigned char *p, const unsigned char *end) {
    const unsigned char *q = p;
    if (*q == '-')
        q++;
    const unsigned char *digits = q;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    Py_ssize_t n = q - digits;
    if (n == 0 || n > 18 || (digits[0] == '0' && (n > 1 || digits != p)))
        return NULL; /* none, too wide to be sure of, a leading zero, or -0 */
    if (q < end && (*q == '.' || *q == 'e' || *q == 'E'))
        return NULL; /* a float: orjson writes its shortest form */
    return q;
}

static int told(const unsigned char *base, Py_ssize_t begin, Py_ssize_t end_at) {
    const unsigned char *p = base + begin, *end = base + end_at;
    char open[MAX_DEPTH + 1];       /* '{' or '[' of each open container */
    Py_ssize_t keys_from[MAX_DEPTH + 1];
    static span keys[KEY_SLOTS];    /* the open objects' keys, each object's from keys_from[depth] */
    Py_ssize_t nkeys = 0;
    int depth = 0;
    /* expect a value */
value:
    if (p >= end)
        return 0;
    switch (*p) {
    case '{':
    case '[':
        if (depth == MAX_DEPTH)
            return 0;
        open[++depth] = (char)*p;
        keys_from[depth] = nkeys;
        p++;
        if (p < end && *p == (open[depth] == '{' ? '}' : ']')) {
            p++;
            depth--;
            goto after;
        }
        if (open[depth] == '{')
            goto key;
        goto value;
    case '"':
        if (!(p = string_end(p, end)))
            return 0;
        goto after;
    case 't':
        if (end - p < 4 || memcmp(p, "true", 4))
            return 0;
        p += 4;
        goto after;
    case 'f':
        if (end - p < 5 || memcmp(p, "false", 5))
            return 0;
        p += 5;
        goto after;
    case 'n':
        if (end - p < 4 || memcmp(p, "null", 4))
            return 0;
        p += 4;
        goto after;
    default:
        if (*p != '-' && (*p < '0' || *p > '9'))
            return 0;
        if (!(p = integer_end(p, end)))
            return 0;
        goto after;
    }
key: {
    if (p >= end || *p != '"')
        return 0;
    const unsigned char *k = p;
    if (!(p = string_end(p, end)))
        return 0;
    Py_ssize_t at = k - base, len = p - k;
    if (nkeys - keys_from[depth] >= MAX_KEYS || nkeys >= KEY_SLOTS)
        return 0;
    for (Py_ssize_t i = keys_from[depth]; i < nkeys; i++) /* escapes are orjson's: equal keys are equal bytes */
        if (keys[i].len == len && memcmp(base + keys[i].at, k, (size_t)len) == 0)
            return 0;
    keys[nkeys].at = at;
    keys[nkeys].len = len;
    nkeys++;
    if (p >= end || *p != ':')
        return 0;
    p++;
    goto value;
}
after:
    if (depth == 0)
        return p == end;
    if (p >= end)
        return 0;
    if (*p == ',') {
        p++;
        if (open[depth] == '{')
            goto key;
        goto value;
    }
    if (*p != (open[depth] == '{' ? '}' : ']'))
        return 0;
    p++;
    if (open[depth] == '{')
        nkeys = keys_from[depth];
    depth--;
    goto after;
}

/* The (data, begin, end) arguments of canonical and keys_twice: 1 with *base, *begin, *end set; 0 when the span is
 * not inside data or is empty (the answer is None); -1 with TypeError set (``usage`` its message). */
static int text_args(PyObject *const *args, Py_ssize_t nargs, const char *usage, const unsigned char **base,
                     Py_ssize_t *begin, Py_ssize_t *end) {
    if (nargs != 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    *begin = PyLong_AsSsize_t(args[1]);
    *end = PyLong_AsSsize_t(args[2]);
    if ((*begin == -1 || *end == -1) && PyErr_Occurred())
        return -1;
    if (*begin < 0 || *end > PyBytes_GET_SIZE(args[0]) || *begin >= *end)
        return 0;
    *base = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    return 1;
}

static PyObject *canonical(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    const unsigned char *base;
    Py_ssize_t begin, end;
    int ok = text_args(args, nargs, "canonical(data: bytes, begin: int, end: int)", &base, &begin, &end);
    if (ok < 0)
        return NULL;
    if (ok && told(base, begin, end))
        Py_RETURN_TRUE;
    Py_RETURN_NONE;
}

/* keys_twice(data, begin, end): does some object of the JSON text data[begin:end] give one key twice (27c F9)?
 *
 * True when two members of one object have the same key, told by their bytes: equal bytes are the same string, and
 * a key with no backslash can be written only one way in UTF-8. False when no object does. None when that is not told
 * this way, and the caller decodes the text (asz_core.sessiondata.keystwice): a key holding an escape (\u0061 is a),
 * more than TWICE_KEYS keys in one object, more than TWICE_SLOTS in the open objects together, nesting deeper than
 * TWICE_DEPTH, or bytes that are not a JSON text. Whitespace between tokens is read past. Safe on any bytes: every read
 * is bounded by end, and anything unexpected is None; a text orjson decoded gets True or False in one pass. */

#define TWICE_DEPTH 1024
#define TWICE_KEYS 256
#define TWICE_SLOTS 4096

static span twice_keys[TWICE_SLOTS];

/* The byte after the string whose opening quote is at p, any escape read past; NULL when it is cut. *escaped is set
 * when it holds a backslash. */
static const unsigned char *any_string_end(const unsigned char *p, const unsigned char *end, int *escaped) {
    p++;
    for (;;) {
#ifdef __SSE2__
        const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
        while (end - p >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)p);
            int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, slash)));
            if (mask) {
                p += __builtin_ctz((unsigned)mask);
                break;
            }
            p += 16;
        }
#endif
        while (p < end && *p != '"' && *p != '\\')
            p++;
        if (p >= end)
            return NULL;
        if (*p == '"')
            return p + 1;
        *escaped = 1;
        if (end - p < 2)
            return NULL;
        p += 2;
    }
}

static const unsigned char *skip_ws(const unsigned char *p, const unsigned char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* 1 when a key is given twice, 0 when none is, -1 when not told (see keys_twice). */
static int twice(const unsigned char *base, Py_ssize_t begin, Py_ssize_t end_at) {
    const unsigned char *p = base + begin, *end = base + end_at;
    char open[TWICE_DEPTH + 1];
    Py_ssize_t keys_from[TWICE_DEPTH + 1];
    Py_ssize_t nkeys = 0;
    int depth = 0, escaped_key = 0;
value:
    p = skip_ws(p, end);
    if (p >= end)
        return -1;
    switch (*p) {
    case '{':
    case '[':
        if (depth == TWICE_DEPTH)
            return -1;
        open[++depth] = (char)*p;
        keys_from[depth] = nkeys;
        p = skip_ws(p + 1, end);
        if (p < end && *p == (open[depth] == '{' ? '}' : ']')) {
            p++;
            depth--;
            goto after;
        }
        if (open[depth] == '{')
            goto key;
        goto value;
    case '"': {
        int escaped = 0;
        if (!(p = any_string_end(p, end, &escaped)))
            return -1;
        goto after;
    }
    default:
        /* a number, true, false or null: the bytes up to the next delimiter (orjson read them already) */
        if (*p == ',' || *p == ':' || *p == '}' || *p == ']')
            return -1;
        while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\n' &&
               *p != '\r' && *p != '"' && *p != ':' && *p != '{' && *p != '[')
            p++;
        goto after;
    }
key: {
    p = skip_ws(p, end);
    if (p >= end || *p != '"')
        return -1;
    const unsigned char *k = p;
    int escaped = 0;
    if (!(p = any_string_end(p, end, &escaped)))
        return -1;
    Py_ssize_t at = k - base, len = p - k;
    if (escaped)
        escaped_key = 1;
    if (nkeys - keys_from[depth] >= TWICE_KEYS || nkeys >= TWICE_SLOTS)
        return -1;
    for (Py_ssize_t i = keys_from[depth]; i < nkeys; i++)
        if (twice_keys[i].len == len && memcmp(base + twice_keys[i].at, k, (size_t)len) == 0)
            return 1; /* the same bytes: the same key */
    twice_keys[nkeys].at = at;
    twice_keys[nkeys].len = len;
    nkeys++;
    p = skip_ws(p, end);
    if (p >= end || *p != ':')
        return -1;
    p++;
    goto value;
}
after:
    p = skip_ws(p, end);
    if (depth == 0)
        return p == end ? (escaped_key ? -1 : 0) : -1;
    if (p >= end)
        return -1;
    if (*p == ',') {
        p++;
        if (open[depth] == '{')
            goto key;
        goto value;
    }
    if (*p != (open[depth] == '{' ? '}' : ']'))
        return -1;
    p++;
    if (open[depth] == '{')
        nkeys = keys_from[depth];
    depth--;
    goto after;
}

static PyObject *keys_twice(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    const unsigned char *base;
    Py_ssize_t begin, end;
    int ok = text_args(args, nargs, "keys_twice(data: bytes, begin: int, end: int)", &base, &begin, &end);
    if (ok < 0)
        return NULL;
    if (!ok)
        Py_RETURN_NONE;
    int got = twice(base, begin, end);
    if (got == 1)
        Py_RETURN_TRUE;
    if (got == 0)
        Py_RETURN_FALSE;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"canonical", (PyCFunction)(void (*)(void))canonical, METH_FASTCALL,
     "canonical(data, begin, end) -> True when data[begin:end] (a text orjson.loads decoded) is orjson.dumps of its "
     "value nesting at most 253 deep; None when that is not told from the bytes."},
    {"keys_twice", (PyCFunction)(void (*)(void))keys_twice, METH_FASTCALL,
     "keys_twice(data, begin, end) -> True when some object of the JSON text data[begin:end] gives a key twice, False "
     "when none does; None when that is not told from the bytes (an escaped key, a wide object, deep nesting)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "jsoncheck",
                                    "Is a JSON text orjson's own encoding of its value, told from its bytes.", -1,
                                    methods};

PyMODINIT_FUNC PyInit_jsoncheck(void) {
    for (int c = 0; c < 256; c++)
        plain[c] = c >= 0x20 && c != '"' && c != '\\';
    return with_source_digest(PyModule_Create(&module));
}
