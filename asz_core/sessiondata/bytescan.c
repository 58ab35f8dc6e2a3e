/* asz_core.sessiondata.bytescan: the whole-file byte scans of a landed file in one pass (issue 22, docs/performance.md
 * "asz.view build at session 15").
 *
 * The compiled half of asz_core/sessiondata/numberprobe.py: scan(data) returns, in one pass over the bytes,
 *
 *     (may_hold_wide_number(data), the most '{' and '[' bytes on one line, b"null" in data)
 *
 * exactly as the Python of numberprobe.scan_file computes them (a byte translation and substring searches, three
 * passes and two copies of the bytes). The wide-number probe is the automaton of the two patterns the Python looks
 * for in its translation t of the bytes (digits -> '0', '[' ':' ',' -> 'S', 'e' 'E' -> 'e', '.' stays, JSON
 * whitespace and '+' '-' dropped, any other byte -> 'x'):
 *
 *     S0{19}          an integer of 19 digits or more
 *     S0[0.]*e000     a number with an exponent of 3 digits or more
 *
 * Every match of either starts at an 'S' and holds no other 'S', so one candidate at a time is enough: an 'S'
 * starts a new one, an 'x' (or a byte out of place) ends it. Nothing here decides how a line is read; the caller
 * takes the exact decoder where the probe says so, as with the Python probe.
 *
 * Also cursor_values(data), a cursor's values in one call for asz_core/storage/cursor.py, and header_values(line) and
 * closing_values(line), a landed file's first and last line for asz_core/sessiondata/codec.py (below), slim_of(r, …),
 * the index line of a Record landing encoded for asz_core/sessiondata/slim.py, and record_line(r, …), that Record's
 * landed line for codec.encode_record.
 */
#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE /* memmem */
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>
#include "source_digest.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Byte classes of the probe's translation. */
enum { C_X = 0, C_SKIP, C_S, C_ZERO, C_E, C_DOT, N_CLASSES };
static unsigned char cls[256];
/* 1 for '{', '[', '\n' and 'n': the bytes the depth count and the null search look at. */
static unsigned char counted[256];
/* 1 for a byte that needs a look while no candidate is open: an opener ('S' class) or a counted byte. */
static unsigned char idle_look[256];

/* States of the probe: no candidate; after 'S'; after S and k zeros (k = 1..18, no '.'); in a mantissa holding a '.'
 * (after S0[0.]*); after 'e' with 0, 1, 2 zeros; a match found. */
enum { P_IDLE = 0, P_S = 1, P_M1 = 2, P_M18 = 19, P_MD = 20, P_E0, P_E1, P_E2, P_WIDE, N_STATES };
static unsigned char next_state[N_STATES][N_CLASSES];

static void init_tables(void) {
    for (int c = 0; c < 256; c++) {
        unsigned char k = C_X;
        if (c >= '0' && c <= '9')
            k = C_ZERO;
        else if (c == '[' || c == ':' || c == ',')
            k = C_S;
        else if (c == 'e' || c == 'E')
            k = C_E;
        else if (c == '.')
            k = C_DOT;
        else if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '+' || c == '-')
            k = C_SKIP;
        cls[c] = k;
        counted[c] = (c == '{' || c == '[' || c == '\n' || c == 'n');
        idle_look[c] = (k == C_S || counted[c]); /* ':' ',' '[' '{' '\n' 'n': the six skip_idle compares */
    }
    for (int st = 0; st < N_STATES; st++) {
        int mant = st >= P_M1 && st <= P_MD;
        next_state[st][C_SKIP] = st;   /* dropped by the translation */
        next_state[st][C_S] = P_S;     /* a new candidate */
        next_state[st][C_X] = P_IDLE;
        next_state[st][C_ZERO] = st == P_S ? P_M1 : st >= P_M1 && st < P_M18 ? st + 1 : st == P_M18 ? P_WIDE /* S0{19} */
                                 : st == P_MD ? P_MD : st == P_E0 ? P_E1 : st == P_E1 ? P_E2 : st == P_E2 ? P_WIDE /* e000 */
                                 : P_IDLE;
        next_state[st][C_DOT] = mant ? P_MD : P_IDLE;
        next_state[st][C_E] = mant ? P_E0 : P_IDLE;
    }
    for (int k = 0; k < N_CLASSES; k++)
        next_state[P_WIDE][k] = P_WIDE;
}

/* The depth count and the null search of one byte c at p - 1 (p: the byte after it). */
#define COUNT(c)                                                                                                       \
    do {                                                                                                               \
        if ((c) == '\n') {                                                                                             \
            if (openers > most)                                                                                        \
                most = openers;                                                                                        \
            openers = 0;                                                                                               \
        } else if ((c) != 'n') {                                                                                       \
            openers++;                                                                                                 \
        } else if (!null && end - p >= 3 && p[0] == 'u' && p[1] == 'l' && p[2] == 'l') {                               \
            null = 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

/* The first byte at or after p that idle_look marks, or end: 16 bytes a step where SSE2 is there (every x86-64). */
static const unsigned char *skip_idle(const unsigned char *p, const unsigned char *end) {
#ifdef __SSE2__
    const __m128i colon = _mm_set1_epi8(':'), comma = _mm_set1_epi8(','), bracket = _mm_set1_epi8('['),
                  brace = _mm_set1_epi8('{'), newline = _mm_set1_epi8('\n'), n = _mm_set1_epi8('n');
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, comma)),
                                                _mm_or_si128(_mm_cmpeq_epi8(v, bracket), _mm_cmpeq_epi8(v, brace))),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, newline), _mm_cmpeq_epi8(v, n)));
        int mask = _mm_movemask_epi8(hit);
        if (mask)
            return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (p < end && !idle_look[*p])
        p++;
    return p;
}

static PyObject *scan(PyObject *self, PyObject *arg) {
    Py_buffer buf;
    if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *p = (const unsigned char *)buf.buf, *end = p + buf.len;
    int null = 0, state = P_IDLE;
    Py_ssize_t openers = 0, most = 0;
    Py_BEGIN_ALLOW_THREADS
    while (p < end) {
        if (state == P_IDLE) { /* the usual case: skip what none of the three scans looks at */
            p = skip_idle(p, end);
            if (p == end)
                break;
        }
        unsigned char c = *p++;
        if (counted[c])
            COUNT(c);
        state = next_state[state][cls[c]];
        if (state == P_WIDE)
            break;
    }
    while (p < end) { /* a match found: only the depth count and the null search go on */
        unsigned char c = *p++;
        if (counted[c])
            COUNT(c);
    }
    if (openers > most) /* the last line, with or without a newline after it */
        most = openers;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    return Py_BuildValue("(OnO)", state == P_WIDE ? Py_True : Py_False, most, null ? Py_True : Py_False);
}

/* decode_lines(lines, start, loads, bad, clear, instant, cache, recs, times, ids, parents, ords) -> the index of the
 * first line it leaves to the caller (len(lines) when none).
 *
 * The usual line of a bound landed file, as asz_core/view/session_records.py's _decode_bound reads it when the file
 * holds no wide number and no line nests deeper than the guard: d = loads(line), a dict, with no "dropped" entry,
 * and, when the line holds b"null", one clear(line) (record_line_clear) clears (clear None: the file holds no null); then d, instant(d.get("time")) (kept
 * in cache by the time's text: instant is a pure function of it), d.get("id"), d.get("parent"), d.get("ord") appended
 * to the five lists. Any other line (loads raises bad, not a dict, a "dropped" key, a null line clear does not clear)
 * stops the loop at it, nothing appended for it: the caller reads that one line its own way and calls again after
 * it. An exception loads raises that is not bad, or any error, propagates.
 *
 * An optional thirteenth argument, deep (an int, or None), is the depth guard of a file some line of which holds more
 * than deep openers: a line longer than 2 * deep holding more than deep '{' and '[' is left to the caller too, which
 * measures its nesting (None: no line holds that many, nothing is counted). */
static PyObject *s_time, *s_id, *s_parent, *s_ord, *s_dropped;

/* How many '{' and '[' the len bytes at b hold (inside strings too: what the caller's body.count of both counts). */
static Py_ssize_t count_openers(const char *b, Py_ssize_t len) {
    Py_ssize_t n = 0;
    for (Py_ssize_t j = 0; j < len; j++)
        n += (b[j] == '{') | (b[j] == '[');
    return n;
}

static int append_or_none(PyObject *list, PyObject *v) { return PyList_Append(list, v ? v : Py_None); }

static PyObject *decode_lines(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 12 && nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "decode_lines takes 12 or 13 arguments");
        return NULL;
    }
    Py_ssize_t deep = -1; /* no guard */
    if (nargs == 13 && args[12] != Py_None) {
        deep = PyLong_AsSsize_t(args[12]);
        if (deep == -1 && PyErr_Occurred())
            return NULL;
        if (deep < 0) {
            PyErr_SetString(PyExc_ValueError, "decode_lines: deep must not be negative");
            return NULL;
        }
    }
    PyObject *lines = args[0], *loads = args[2], *bad = args[3], *clear = args[4], *instant = args[5], *cache = args[6];
    PyObject *recs = args[7], *times = args[8], *ids = args[9], *parents = args[10], *ords = args[11];
    if (!PyList_CheckExact(lines) || !PyDict_CheckExact(cache) || !PyList_CheckExact(recs) || !PyList_CheckExact(times) ||
        !PyList_CheckExact(ids) || !PyList_CheckExact(parents) || !PyList_CheckExact(ords)) {
        PyErr_SetString(PyExc_TypeError, "decode_lines: lines, cache and the five outputs must be a list, a dict and lists");
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(args[1]);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(lines);
    for (; i < n; i++) {
        PyObject *body = PyList_GET_ITEM(lines, i);
        if (!PyBytes_CheckExact(body))
            break;
        if (deep >= 0 && PyBytes_GET_SIZE(body) > 2 * deep &&
            count_openers(PyBytes_AS_STRING(body), PyBytes_GET_SIZE(body)) > deep)
            break;
        PyObject *d = PyObject_CallOneArg(loads, body);
        if (d == NULL) {
            if (PyErr_ExceptionMatches(bad)) {
                PyErr_Clear();
                break;
            }
            return NULL;
        }
        if (!PyDict_CheckExact(d)) {
            Py_DECREF(d);
            break;
        }
        const char *b = PyBytes_AS_STRING(body);
        Py_ssize_t len = PyBytes_GET_SIZE(body);
        if (clear != Py_None && memmem(b, (size_t)len, "null", 4) != NULL) {
            PyObject *ok = PyObject_CallOneArg(clear, body);
            if (ok == NULL) {
                Py_DECREF(d);
                return NULL;
            }
            int t = PyObject_IsTrue(ok);
            Py_DECREF(ok);
            if (t != 1) {
                Py_DECREF(d);
                if (t < 0)
                    return NULL;
                break;
            }
        }
        PyObject *dropped = PyDict_GetItemWithError(d, s_dropped);
        if (dropped != NULL || PyErr_Occurred()) {
            Py_DECREF(d);
            if (PyErr_Occurred())
                return NULL;
            break;
        }
        PyObject *t = PyDict_GetItemWithError(d, s_time), *at;
        if (t == NULL && PyErr_Occurred())
            goto fail;
        if (t != NULL && PyUnicode_CheckExact(t)) {
            at = PyDict_GetItemWithError(cache, t);
            if (at == NULL) {
                if (PyErr_Occurred())
                    goto fail;
                at = PyObject_CallOneArg(instant, t);
                if (at == NULL)
                    goto fail;
                if (PyDict_SetItem(cache, t, at) < 0) {
                    Py_DECREF(at);
                    goto fail;
                }
                Py_DECREF(at); /* the cache holds it */
            }
        } else {
            at = Py_None; /* instant(None) and instant(a non-string) are None */
        }
        PyObject *id = PyDict_GetItemWithError(d, s_id), *parent = NULL, *ord = NULL;
        if (id == NULL && PyErr_Occurred())
            goto fail;
        parent = PyDict_GetItemWithError(d, s_parent);
        if (parent == NULL && PyErr_Occurred())
            goto fail;
        ord = PyDict_GetItemWithError(d, s_ord);
        if (ord == NULL && PyErr_Occurred())
            goto fail;
        if (PyList_Append(recs, d) < 0 || PyList_Append(times, at) < 0 || append_or_none(ids, id) < 0 ||
            append_or_none(parents, parent) < 0 || append_or_none(ords, ord) < 0)
            goto fail;
        Py_DECREF(d);
        continue;
    fail:
        Py_DECREF(d);
        return NULL;
    }
    return PyLong_FromSsize_t(i);
}

/* split_lines(data, start, stop) -> the lines of data[start:stop], each without its newline, where data[stop - 1]
 * is a newline (or start == stop): data[start:stop].split(b"\n")[:-1], found with memchr and without the copy of the
 * slice. */
static PyObject *split_lines(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyBytes_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "split_lines(data: bytes, start, stop)");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]), stop = PyLong_AsSsize_t(args[2]);
    if (PyErr_Occurred())
        return NULL;
    const char *base = PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    if (start < 0 || stop > size || start > stop || (stop > start && base[stop - 1] != '\n')) {
        PyErr_SetString(PyExc_ValueError, "split_lines: start and stop must bound whole lines of data");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    const char *p = base + start, *end = base + stop;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)); /* never NULL: end[-1] is a newline */
        PyObject *line = PyBytes_FromStringAndSize(p, nl - p);
        if (line == NULL || PyList_Append(out, line) < 0) {
            Py_XDECREF(line);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(line);
        p = nl + 1;
    }
    return out;
}

/* cursor_values(data): the values of a cursor (asz_core/storage/cursor.py) whose bytes are printable ASCII, spaces and
 * newlines only, exactly as cursor._written_values_py returns them (a dict in line order, the whole-number keys as
 * int), or None where that returns None and for any other byte (a tab, a byte >= 0x80, a control byte), which the
 * caller then reads the Python way. Over such bytes the only white space str.strip removes is ' ', so a line is:
 * spaces, the key (up to the first space), spaces, the value, spaces. Returns None for: no newline at the end, a
 * blank line, a '#' in a key, a key twice, a whole-number key whose value is not ASCII digits ('-' first allowed for
 * mtime only), a state outside active / source_gone / conflict, a non-empty digest that is not 64 lowercase hex. */
static int key_is(const char *k, Py_ssize_t n, const char *s) {
    if (n == 0)
        return *s == '\0';
    return *k == *s && (size_t)n == strlen(s) && memcmp(k, s, (size_t)n) == 0; /* the first byte first: most differ there */
}

static const char *const int_keys[] = {"schema", "dev", "ino", "offset", "ord", "size", "mtime", "last_seq", "torn",
                                       "reread_seq", NULL};

static PyObject *whole_number(const char *v, Py_ssize_t n) {
    if (n <= 18) { /* below 10^18: no overflow */
        int neg = *v == '-';
        long long x = 0;
        for (Py_ssize_t i = neg; i < n; i++)
            x = x * 10 + (v[i] - '0');
        return PyLong_FromLongLong(neg ? -x : x);
    }
    char *z = PyMem_Malloc((size_t)n + 1);
    if (z == NULL)
        return PyErr_NoMemory();
    memcpy(z, v, (size_t)n);
    z[n] = '\0';
    PyObject *out = PyLong_FromString(z, NULL, 10);
    PyMem_Free(z);
    return out;
}

/* The keys write_cursor writes, interned once: a cursor's dict holds these very objects, so AppendCursor(**values)
 * finds each keyword by identity and no key is hashed again (an equal new string a line cost a hash and a compare
 * with each parameter name). Any other key is a new string, as before. */
static const char *const cursor_keys[] = {"schema", "kind", "source", "dev", "ino", "offset", "ord", "last_uuid",
                                          "tail_sha256", "size", "mtime", "last_seq", "updated_at", "state", "reason",
                                          "adapter", "torn", "reread_seq", "content_sha256", "mode", "check", NULL};
static PyObject *cursor_key_objs[sizeof(cursor_keys) / sizeof(cursor_keys[0])];

static PyObject *cursor_key(const char *k, Py_ssize_t n) {
    for (int i = 0; cursor_keys[i] != NULL; i++)
        if (key_is(k, n, cursor_keys[i])) {
            Py_INCREF(cursor_key_objs[i]);
            return cursor_key_objs[i];
        }
    return PyUnicode_FromStringAndSize(k, n);
}

static PyObject *cursor_values(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "cursor_values: bytes expected");
        return NULL;
    }
    const char *data = PyBytes_AS_STRING(arg), *end = data + PyBytes_GET_SIZE(arg);
    if (end > data && end[-1] != '\n')
        Py_RETURN_NONE;
    for (const char *q = data; q < end; q++)
        if (*q != '\n' && (*q < 0x20 || *q > 0x7e))
            Py_RETURN_NONE;
    PyObject *values = PyDict_New();
    if (values == NULL)
        return NULL;
    const char *p = data;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)); /* never NULL: end[-1] is a newline */
        const char *a = p, *b = nl;
        p = nl + 1;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        if (a == b)
            goto none; /* a blank line */
        const char *k = a;
        while (k < b && *k != ' ')
            k++;
        if (memchr(a, '#', (size_t)(k - a)) != NULL)
            goto none;
        const char *v = k;
        while (v < b && *v == ' ')
            v++;
        Py_ssize_t kn = k - a, vn = b - v;
        PyObject *value = NULL;
        int is_int = 0;
        for (int i = 0; int_keys[i] != NULL; i++)
            if (key_is(a, kn, int_keys[i])) {
                is_int = 1;
                break;
            }
        if (is_int) {
            const char *d = v;
            if (key_is(a, kn, "mtime") && vn > 0 && *v == '-')
                d++;
            if (d == b)
                goto none;
            for (const char *q = d; q < b; q++)
                if (*q < '0' || *q > '9')
                    goto none;
            value = whole_number(v, vn);
        } else {
            if (key_is(a, kn, "state") && !key_is(v, vn, "active") && !key_is(v, vn, "source_gone") &&
                !key_is(v, vn, "conflict"))
                goto none;
            if ((key_is(a, kn, "tail_sha256") || key_is(a, kn, "content_sha256")) && vn > 0) {
                if (vn != 64)
                    goto none;
                for (const char *q = v; q < b; q++)
                    if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')))
                        goto none;
            }
            value = PyUnicode_FromStringAndSize(v, vn);
        }
        PyObject *key = value == NULL ? NULL : cursor_key(a, kn);
        int had = key == NULL ? -1 : PyDict_Contains(values, key);
        if (had == 0 && PyDict_SetItem(values, key, value) < 0)
            had = -1;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (had < 0) {
            Py_DECREF(values);
            return NULL;
        }
        if (had)
            goto none; /* a key twice */
    }
    return values;
none:
    Py_DECREF(values);
    Py_RETURN_NONE;
}

/* header_values(line) and closing_values(line): a landed file's first and last line as the sd/1 writer writes them,
 * for asz_core/sessiondata/codec.py's decode_header and decode_closing (issue 22: asz verify decodes both lines of
 * every landed file). Each returns the values its Python decodes from such a line, or None for any other line, which
 * the caller then decodes the Python way (the same result or the same FieldError; tests/core/test_sd_lines_compiled.py
 * holds the two to each other). Accepted: no white space, no escape, no byte outside printable ASCII in a string, no
 * null, no key twice, no key the Python does not read, whole numbers of 1 to 18 digits without a leading zero. */

/* A whole number as the writer writes one: "0" or 1 to 18 digits, no leading zero; the byte after it, or NULL. */
static const char *plain_number(const char *p, const char *end, long long *out) {
    const char *q = p;
    long long v = 0;
    while (q < end && q - p < 18 && *q >= '0' && *q <= '9')
        v = v * 10 + (*q++ - '0');
    if (q == p || (q < end && *q >= '0' && *q <= '9') || (q - p > 1 && *p == '0'))
        return NULL;
    *out = v;
    return q;
}

/* A JSON string of printable ASCII without escapes, p at its opening quote: the byte after its closing quote (its
 * text in [*a, *b)), or NULL. */
static const char *plain_string(const char *p, const char *end, const char **a, const char **b) {
    if (p >= end || *p != '"')
        return NULL;
    const char *q = ++p;
    while (q < end && *q != '"') {
        if (*q < 0x20 || *q > 0x7e || *q == '\\')
            return NULL;
        q++;
    }
    if (q >= end)
        return NULL;
    *a = p;
    *b = q;
    return q + 1;
}

/* Header's fields in its order (asz_core/sessiondata/model.py): kind, session, src, dialect, adapter, seq, at,
 * stream, batch, h, schema. seq and h are whole numbers, the others strings. */
static const char *const header_keys[] = {"kind", "session", "src", "dialect", "adapter", "seq", "at", "stream",
                                          "batch", "h", "schema"};
enum { H_FIELDS = 11, H_SEQ = 5, H_H = 9 };

static PyObject *header_values(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyBytes_Check(arg))
        Py_RETURN_NONE;
    const char *p = PyBytes_AS_STRING(arg), *end = p + PyBytes_GET_SIZE(arg);
    const char *sa[H_FIELDS], *sb[H_FIELDS];
    long long num[H_FIELDS];
    int seen = 0;
    if (p >= end || *p++ != '{')
        Py_RETURN_NONE;
    for (;;) {
        const char *ka, *kb;
        if ((p = plain_string(p, end, &ka, &kb)) == NULL || p >= end || *p++ != ':')
            Py_RETURN_NONE;
        int i = 0;
        while (i < H_FIELDS && !key_is(ka, kb - ka, header_keys[i]))
            i++;
        if (i == H_FIELDS || (seen & (1 << i)))
            Py_RETURN_NONE; /* a key the Python does not read (or "t"), or a key twice */
        seen |= 1 << i;
        if (i == H_SEQ || i == H_H)
            p = plain_number(p, end, &num[i]);
        else
            p = plain_string(p, end, &sa[i], &sb[i]);
        if (p == NULL || p >= end)
            Py_RETURN_NONE;
        if (*p == '}' && p + 1 == end)
            break;
        if (*p++ != ',')
            Py_RETURN_NONE;
    }
    if (!(seen & (1 << H_H)))
        Py_RETURN_NONE; /* h missing: the Python says so */
    PyObject *out = PyTuple_New(H_FIELDS);
    if (out == NULL)
        return NULL;
    for (int i = 0; i < H_FIELDS; i++) {
        PyObject *v;
        if (i == H_SEQ || i == H_H)
            v = PyLong_FromLongLong((seen & (1 << i)) ? num[i] : 0);
        else
            v = (seen & (1 << i)) ? PyUnicode_FromStringAndSize(sa[i], sb[i] - sa[i]) : PyUnicode_FromStringAndSize("", 0);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, v);
    }
    return out;
}

/* {"t":"end","records":N,"digest":"<64 printable ASCII>"} -> (records, digest); None for any other line. */
static PyObject *closing_values(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyBytes_Check(arg))
        Py_RETURN_NONE;
    static const char head[] = "{\"t\":\"end\",\"records\":", mid[] = ",\"digest\":";
    const char *p = PyBytes_AS_STRING(arg), *end = p + PyBytes_GET_SIZE(arg), *a, *b;
    long long records;
    if (end - p < (Py_ssize_t)sizeof(head) - 1 || memcmp(p, head, sizeof(head) - 1) != 0)
        Py_RETURN_NONE;
    if ((p = plain_number(p + sizeof(head) - 1, end, &records)) == NULL || end - p < (Py_ssize_t)sizeof(mid) - 1 ||
        memcmp(p, mid, sizeof(mid) - 1) != 0)
        Py_RETURN_NONE;
    if ((p = plain_string(p + sizeof(mid) - 1, end, &a, &b)) == NULL || b - a != 64 || p + 1 != end || *p != '}')
        Py_RETURN_NONE;
    return Py_BuildValue("(Ls#)", records, a, (Py_ssize_t)64);
}

/* scan_parts(files, content_kinds) -> (listed, media, content), or None.
 *
 * asz_core/view/session_records.py's LandedSession._scan_parts over its records in one compiled loop (issue 22): files
 * is a list of (seq, records) in seq order, each record a dict. For each record whose "parts" is a non-empty list, each
 * part p (block from 0) with kind k = p["k"]: (seq, row) goes into content when k is in content_kinds (a frozenset of
 * str), and (seq, row, block, p) into media when k is "media", else into listed when k is "data" or "unknown". None
 * (the caller then runs its Python, which gives the same or raises) for anything else: a record that is not a dict,
 * "parts" neither absent, None nor a list, a part that is not a dict or has no str "k", or a part whose "state" is
 * not absent, None or a str, or is "truncated" or "too_large" (the Python counts those). */
static PyObject *s_parts, *s_k, *s_state, *s_media, *s_data, *s_unknown, *s_truncated, *s_too_large;

static PyObject *scan_parts(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyFrozenSet_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "scan_parts(files, content_kinds): a list and a frozenset");
        return NULL;
    }
    PyObject *files = args[0], *kinds = args[1];
    PyObject *listed = PyList_New(0), *media = PyList_New(0), *content = PySet_New(NULL);
    PyObject *seq_row = NULL, *row_obj = NULL, *item = NULL;
    if (listed == NULL || media == NULL || content == NULL)
        goto fail;
    for (Py_ssize_t f = 0; f < PyList_GET_SIZE(files); f++) {
        PyObject *pair = PyList_GET_ITEM(files, f);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyList_CheckExact(PyTuple_GET_ITEM(pair, 1)))
            goto none;
        PyObject *seq = PyTuple_GET_ITEM(pair, 0), *recs = PyTuple_GET_ITEM(pair, 1);
        for (Py_ssize_t r = 0; r < PyList_GET_SIZE(recs); r++) {
            PyObject *rec = PyList_GET_ITEM(recs, r);
            if (!PyDict_CheckExact(rec))
                goto none;
            PyObject *parts = PyDict_GetItemWithError(rec, s_parts);
            if (parts == NULL) {
                if (PyErr_Occurred())
                    goto fail;
                continue;
            }
            if (parts == Py_None)
                continue;
            if (!PyList_CheckExact(parts))
                goto none;
            Py_ssize_t np = PyList_GET_SIZE(parts);
            if (np == 0)
                continue;
            if ((row_obj = PyLong_FromSsize_t(r + 1)) == NULL || (seq_row = PyTuple_Pack(2, seq, row_obj)) == NULL)
                goto fail;
            for (Py_ssize_t b = 0; b < np; b++) {
                PyObject *p = PyList_GET_ITEM(parts, b);
                if (!PyDict_CheckExact(p))
                    goto none;
                PyObject *k = PyDict_GetItemWithError(p, s_k), *state = PyDict_GetItemWithError(p, s_state);
                if (PyErr_Occurred())
                    goto fail;
                if (k == NULL || !PyUnicode_CheckExact(k))
                    goto none;
                if (state != NULL && state != Py_None) {
                    if (!PyUnicode_CheckExact(state))
                        goto none;
                    int cut = PyUnicode_Compare(state, s_truncated) == 0 || PyUnicode_Compare(state, s_too_large) == 0;
                    if (cut || PyErr_Occurred())
                        goto none;
                }
                int is_content = PySet_Contains(kinds, k);
                if (is_content < 0)
                    goto fail;
                PyObject *into = NULL;
                if (is_content) {
                    if (PySet_Add(content, seq_row) < 0)
                        goto fail;
                    if (PyUnicode_Compare(k, s_media) == 0)
                        into = media;
                } else if (PyUnicode_Compare(k, s_data) == 0 || PyUnicode_Compare(k, s_unknown) == 0) {
                    into = listed;
                }
                if (PyErr_Occurred())
                    goto fail;
                if (into != NULL) {
                    PyObject *block = PyLong_FromSsize_t(b);
                    if (block == NULL)
                        goto fail;
                    item = PyTuple_Pack(4, seq, row_obj, block, p);
                    Py_DECREF(block);
                    if (item == NULL || PyList_Append(into, item) < 0)
                        goto fail;
                    Py_CLEAR(item);
                }
            }
            Py_CLEAR(seq_row);
            Py_CLEAR(row_obj);
        }
    }
    return Py_BuildValue("(NNN)", listed, media, content);
none:
    Py_XDECREF(seq_row);
    Py_XDECREF(row_obj);
    Py_XDECREF(listed);
    Py_XDECREF(media);
    Py_XDECREF(content);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
fail:
    Py_XDECREF(item);
    Py_XDECREF(seq_row);
    Py_XDECREF(row_obj);
    Py_XDECREF(listed);
    Py_XDECREF(media);
    Py_XDECREF(content);
    return NULL;
}

/* call_usages(nodes, records, times, streams, lanes, unverified, call_usage, slow, node_type, ref_type) -> {id: usage}
 *
 * asz_core/view/view_base.py's ViewBase call usage in one compiled loop (issue 22, docs/performance.md "Session 17"):
 * for each node of nodes (a dict, in its order) whose kind is "llm.call", the CallUsage ViewBase._read_call gives,
 * keyed by the node's id. Done here for the usual call only: 1 to 32 refs (exact Ref; read in landed order), each
 * naming a dict record of records[seq] (a list) with its instant in times[seq], on the node's own stream
 * (streams[seq], the view's cache, equal to the node's stream), none in unverified, the node's lane in lanes
 * (stream -> lane, the view's cache), no record holding "sidechain" (a sub-agent's line in its parent's file: its lane
 * is the record's, not the stream's), every record naming the same request (a str, else ""), no record whose
 * "dropped" (a list, when there) has an entry whose "what" starts with usage_count_dropped (dropped_counts: ()), and the usage read (the last dict "usage" in landed order) holding only counts that are ints >= 0:
 * then read_call's one provider call, made by calling call_usage (the CallUsage type) as _read_one does. Any other
 * call node is passed to slow (ViewBase._read_call) and its answer kept. None when node_type or ref_type is not a
 * type whose fields are plain members (the caller then runs its Python loop). */
static PyObject *s_llm_call, *s_usage, *s_observed, *s_request, *s_model, *s_flags, *s_synthetic, *s_final,
    *s_last_seen, *s_empty, *s_count_keys[4], *s_cache_write_1h, *s_zero, *s_what, *s_sidechain;

#define FIELD(o, off) (*(PyObject **)((char *)(o) + (off)))

static int member_offsets(PyObject *type, const char *const *names, Py_ssize_t *out) {
    if (!PyType_Check(type))
        return -1;
    PyObject *dict = ((PyTypeObject *)type)->tp_dict;
    for (int i = 0; names[i] != NULL; i++) {
        PyObject *d = dict ? PyDict_GetItemString(dict, names[i]) : NULL;
        if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type))
            return -1;
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX && m->type != T_OBJECT)
            return -1;
        out[i] = m->offset;
    }
    return 0;
}

enum { N_ID, N_KIND, N_STREAM, N_REFS, N_ATTRS, N_FIELDS };
static const char *const node_fields[] = {"id", "kind", "stream", "refs", "attrs", NULL};
enum { R_SEQ, R_ROW, R_BLOCK, R_FIELDS };
static const char *const ref_fields[] = {"seq", "row", "block", NULL};
#define MAX_REFS 32

typedef struct {
    PyObject *records, *times, *streams, *lanes, *unverified, *call_usage, *ref_type, *count_dropped;
    Py_ssize_t node_off[N_FIELDS], ref_off[R_FIELDS];
} call_ctx;

/* 1 when v is an exact int >= 0 (*keep = v), 0 when not (the caller gives the call to slow), -1 on error. */
static int plain_count(PyObject *v) {
    if (!PyLong_CheckExact(v))
        return 0;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    return overflow > 0 || (overflow == 0 && x >= 0);
}

/* The usual call's CallUsage (a new reference), Py_None (borrowed, not increfed) to leave it to slow, NULL on error. */
static PyObject *usual_call(PyObject *n, const call_ctx *c) {
    PyObject *refs = FIELD(n, c->node_off[N_REFS]), *stream = FIELD(n, c->node_off[N_STREAM]);
    PyObject *attrs = FIELD(n, c->node_off[N_ATTRS]);
    if (refs == NULL || !PyList_CheckExact(refs) || stream == NULL || !PyUnicode_CheckExact(stream) || attrs == NULL ||
        !PyDict_CheckExact(attrs))
        return Py_None;
    Py_ssize_t nr = PyList_GET_SIZE(refs);
    if (nr < 1 || nr > MAX_REFS)
        return Py_None;
    PyObject *lane = PyDict_GetItemWithError(c->lanes, stream);
    if (lane == NULL)
        return PyErr_Occurred() ? NULL : Py_None;
    PyObject *seqs[MAX_REFS], *recs[MAX_REFS], *ts[MAX_REFS];
    Py_ssize_t seq[MAX_REFS], row[MAX_REFS], block[MAX_REFS];
    for (Py_ssize_t i = 0; i < nr; i++) {
        PyObject *r = PyList_GET_ITEM(refs, i);
        if ((PyObject *)Py_TYPE(r) != c->ref_type)
            return Py_None;
        PyObject *s = FIELD(r, c->ref_off[R_SEQ]), *w = FIELD(r, c->ref_off[R_ROW]), *b = FIELD(r, c->ref_off[R_BLOCK]);
        if (s == NULL || w == NULL || b == NULL || !PyLong_CheckExact(s) || !PyLong_CheckExact(w) ||
            (b != Py_None && !PyLong_CheckExact(b)))
            return Py_None;
        Py_ssize_t q = PyLong_AsSsize_t(s), o = PyLong_AsSsize_t(w), k = b == Py_None ? -1 : PyLong_AsSsize_t(b);
        if ((q == -1 || o == -1 || k == -1) && PyErr_Occurred()) {
            PyErr_Clear();
            return Py_None;
        }
        /* landed order, (seq, row, block) with -1 for a whole record, stable as sorted(refs, key=position) */
        Py_ssize_t j = i;
        while (j > 0 && (seq[j - 1] > q || (seq[j - 1] == q && (row[j - 1] > o || (row[j - 1] == o && block[j - 1] > k))))) {
            seqs[j] = seqs[j - 1], seq[j] = seq[j - 1], row[j] = row[j - 1], block[j] = block[j - 1];
            j--;
        }
        seqs[j] = s, seq[j] = q, row[j] = o, block[j] = k;
    }
    for (Py_ssize_t i = 0; i < nr; i++) {
        if (PyDict_GET_SIZE(c->unverified)) {
            int bad = PyDict_Contains(c->unverified, seqs[i]);
            if (bad != 0)
                return bad < 0 ? NULL : Py_None;
        }
        PyObject *list = PyDict_GetItemWithError(c->records, seqs[i]);
        PyObject *tl = list ? PyDict_GetItemWithError(c->times, seqs[i]) : NULL;
        PyObject *name = tl ? PyDict_GetItemWithError(c->streams, seqs[i]) : NULL;
        if (name == NULL)
            return PyErr_Occurred() ? NULL : Py_None;
        if (!PyList_CheckExact(list) || !PyList_CheckExact(tl) || row[i] < 1 || row[i] > PyList_GET_SIZE(list) ||
            row[i] > PyList_GET_SIZE(tl))
            return Py_None;
        int same = PyObject_RichCompareBool(name, stream, Py_EQ);
        if (same != 1)
            return same < 0 ? NULL : Py_None;
        recs[i] = PyList_GET_ITEM(list, row[i] - 1);
        ts[i] = PyList_GET_ITEM(tl, row[i] - 1);
        if (!PyDict_CheckExact(recs[i]))
            return Py_None;
        int side = PyDict_Contains(recs[i], s_sidechain); /* the record's lane: ViewBase._read_call's */
        if (side != 0)
            return side < 0 ? NULL : Py_None;
    }
    PyObject *request = s_empty;
    for (Py_ssize_t i = 0; i < nr; i++) {
        PyObject *q = PyDict_GetItemWithError(recs[i], s_request);
        if (q == NULL && PyErr_Occurred())
            return NULL;
        q = q != NULL && PyUnicode_Check(q) ? q : s_empty;
        if (i == 0) {
            request = q;
        } else {
            int same = PyObject_RichCompareBool(request, q, Py_EQ);
            if (same != 1)
                return same < 0 ? NULL : Py_None;
        }
    }
    PyObject *v = PyDict_GetItemWithError(attrs, s_usage);
    if (v == NULL && PyErr_Occurred())
        return NULL;
    int finished = v == NULL ? 0 : PyObject_RichCompareBool(v, s_observed, Py_EQ);
    if (finished < 0)
        return NULL;
    /* _read_one */
    PyObject *last = NULL, *model = s_empty, *usage_model = s_empty, *first_time = Py_None, *usage_time = Py_None;
    int synthetic = 0;
    for (Py_ssize_t i = 0; i < nr; i++) {
        PyObject *rec = recs[i];
        if (first_time == Py_None)
            first_time = ts[i];
        PyObject *dropped = PyDict_GetItemWithError(rec, s_dropped);
        if (dropped != NULL) { /* dropped_counts(rec) must be (): no entry names a usage count */
            if (!PyList_CheckExact(dropped))
                return Py_None;
            for (Py_ssize_t e = 0; e < PyList_GET_SIZE(dropped); e++) {
                PyObject *entry = PyList_GET_ITEM(dropped, e), *what;
                if (!PyDict_Check(entry))
                    continue;
                if ((what = PyDict_GetItemWithError(entry, s_what)) == NULL) {
                    if (PyErr_Occurred())
                        return NULL;
                    continue;
                }
                if (!PyUnicode_Check(what))
                    continue;
                Py_ssize_t hit = PyUnicode_Tailmatch(what, c->count_dropped, 0, PY_SSIZE_T_MAX, -1);
                if (hit != 0)
                    return hit < 0 ? NULL : Py_None;
            }
        } else if (PyErr_Occurred()) {
            return NULL;
        }
        PyObject *m = PyDict_GetItemWithError(rec, s_model), *flags = NULL, *u = NULL;
        if (m == NULL && PyErr_Occurred())
            return NULL;
        if (m != NULL && PyUnicode_Check(m) && PyUnicode_GET_LENGTH(m) > 0)
            model = m;
        if ((flags = PyDict_GetItemWithError(rec, s_flags)) == NULL && PyErr_Occurred())
            return NULL;
        if (flags != NULL) {
            int t = PyObject_IsTrue(flags);
            if (t > 0)
                t = PySequence_Contains(flags, s_synthetic);
            if (t < 0) { /* the Python raises the same: let it */
                PyErr_Clear();
                return Py_None;
            }
            synthetic |= t;
        }
        if ((u = PyDict_GetItemWithError(rec, s_usage)) == NULL && PyErr_Occurred())
            return NULL;
        if (u != NULL && PyDict_Check(u)) {
            last = u;
            usage_model = m != NULL && PyUnicode_Check(m) ? m : s_empty;
            usage_time = ts[i];
        }
    }
    PyObject *args[9], *out;
    args[3] = lane;
    args[4] = synthetic ? Py_True : Py_False;
    args[6] = request;
    if (last == NULL) {
        args[0] = Py_None, args[1] = s_empty, args[2] = model, args[5] = first_time;
        return PyObject_Vectorcall(c->call_usage, args, 7, NULL);
    }
    PyObject *usage = PyDict_New();
    if (usage == NULL)
        return NULL;
    for (int k = 0; k < 5; k++) {
        PyObject *key = k < 4 ? s_count_keys[k] : s_cache_write_1h;
        PyObject *x = PyDict_GetItemWithError(last, key);
        if (x == NULL) {
            if (PyErr_Occurred())
                goto fail;
            if (k < 4 && PyDict_SetItem(usage, key, s_zero) < 0)
                goto fail;
            continue;
        }
        int ok = plain_count(x);
        if (ok < 0)
            goto fail;
        if (k < 4 && !ok) { /* a count _counts makes 0 (maybe a negative one: negative_counts): the Python's */
            Py_DECREF(usage);
            return Py_None;
        }
        if (ok && (k < 4 || PyObject_IsTrue(x)) && PyDict_SetItem(usage, key, x) < 0)
            goto fail;
    }
    PyObject *hour = PyDict_GetItemWithError(usage, s_cache_write_1h);
    if (hour == NULL && PyErr_Occurred())
        goto fail;
    if (hour != NULL) { /* a 1-hour part above its whole: _counts caps it and counts the call (trial 44d F1): the Python's */
        PyObject *whole = PyDict_GetItemWithError(usage, s_count_keys[3]);
        int above = whole == NULL ? (PyErr_Occurred() ? -1 : 1) : PyObject_RichCompareBool(hour, whole, Py_GT);
        if (above < 0)
            goto fail;
        if (above) {
            Py_DECREF(usage);
            return Py_None;
        }
    }
    args[0] = usage, args[1] = finished ? s_final : s_last_seen;
    args[2] = PyUnicode_GET_LENGTH(usage_model) > 0 ? usage_model : model;
    args[5] = usage_time != Py_None ? usage_time : first_time;
    args[7] = args[8] = PyTuple_New(0);
    if (args[7] == NULL)
        goto fail;
    out = PyObject_Vectorcall(c->call_usage, args, 9, NULL);
    Py_DECREF(args[7]);
    Py_DECREF(usage);
    return out;
fail:
    Py_DECREF(usage);
    return NULL;
}

static PyObject *call_usages(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 11 || !PyUnicode_CheckExact(args[10]) || !PyDict_CheckExact(args[0]) || !PyDict_CheckExact(args[1]) || !PyDict_CheckExact(args[2]) ||
        !PyDict_CheckExact(args[3]) || !PyDict_CheckExact(args[4]) || !PyDict_CheckExact(args[5])) {
        PyErr_SetString(PyExc_TypeError, "call_usages(nodes, records, times, streams, lanes, unverified, call_usage, slow, "
                                         "node_type, ref_type, usage_count_dropped): six dicts, callables, two types and a str");
        return NULL;
    }
    call_ctx c = {args[1], args[2], args[3], args[4], args[5], args[6], args[9], args[10], {0}, {0}};
    PyObject *nodes = args[0], *slow = args[7], *node_type = args[8];
    if (member_offsets(node_type, node_fields, c.node_off) < 0 || member_offsets(c.ref_type, ref_fields, c.ref_off) < 0)
        Py_RETURN_NONE;
    PyObject *out = PyDict_New(), *key, *n;
    Py_ssize_t pos = 0;
    if (out == NULL)
        return NULL;
    while (PyDict_Next(nodes, &pos, &key, &n)) {
        if ((PyObject *)Py_TYPE(n) != node_type) {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
        PyObject *kind = FIELD(n, c.node_off[N_KIND]), *id = FIELD(n, c.node_off[N_ID]);
        if (kind == NULL || id == NULL) {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
        int is_call = PyObject_RichCompareBool(kind, s_llm_call, Py_EQ);
        if (is_call <= 0) {
            if (is_call < 0)
                goto fail;
            continue;
        }
        Py_INCREF(n); /* slow may run any Python */
        PyObject *got = usual_call(n, &c);
        if (got == Py_None)
            got = PyObject_CallOneArg(slow, n);
        if (got == NULL || PyDict_SetItem(out, FIELD(n, c.node_off[N_ID]), got) < 0) {
            Py_XDECREF(got);
            Py_DECREF(n);
            goto fail;
        }
        Py_DECREF(got);
        Py_DECREF(n);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* node_lines(lines, start, decode, not_read, loads, null, line_type, node_type, revision, through, nodes, node_ids)
 *     -> (stop, used)
 *
 * asz_core/flow/round_read.py's decode_round over a run of node frames in one compiled loop (issue 22): from lines[start],
 * each line that begins {"t":"node", and that _Reader.node_line reads to a node is made that node, as node_line makes
 * it: f = decode(line) (an exact line_type, the _NodeLine Struct), t "node", revision the header's round, no
 * tombstone, every ref's seq at most through, attrs (msgspec.Raw; null, the default object, for none) read by
 * loads(memoryview) into a dict (null: {}) without a "provider_bodies" key, an id not in node_ids; then
 * node_type(id, kind, parent, stream, ref, refs or [], attrs, revision) is appended to nodes and its id added to
 * node_ids. Stops at the first other line (one decode raises an error of not_read for, or one node_line leaves to
 * _Reader.node or refuses, or any error: the Python reads that line its own way) and returns its index and the bytes
 * of the lines read, their newlines counted. */
enum { L_T, L_ID, L_REVISION, L_KIND, L_PARENT, L_STREAM, L_REF, L_REFS, L_ATTRS, L_TOMBSTONE, L_FIELDS };
static const char *const line_fields[] = {"t", "id", "revision", "kind", "parent", "stream", "ref", "refs", "attrs",
                                          "tombstone", NULL};
static PyObject *s_node, *s_provider_bodies;

/* 1 when ref (None, or an exact Ref) points at most at through, 0 when not (or another shape), -1 on error. */
static int ref_within(PyObject *ref, PyObject *ref_type, const Py_ssize_t *ref_off, Py_ssize_t through) {
    if (ref == Py_None)
        return 1;
    if ((PyObject *)Py_TYPE(ref) != ref_type)
        return 0;
    PyObject *s = FIELD(ref, ref_off[R_SEQ]);
    if (s == NULL || !PyLong_CheckExact(s))
        return 0;
    Py_ssize_t q = PyLong_AsSsize_t(s);
    if (q == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return q <= through;
}

/* The node frame as asz's writer writes it, read without msgspec (session 27): the keys in the writer's order, each at
 * most once, no white space, and every value of the plain form,
 *
 *     {"t":"node","id":S,"revision":N[,"kind":S][,"parent":S][,"stream":S][,"ref":R][,"refs":[R,...]][,"attrs":A]}
 *
 * S a string of bytes 0x20..0x7f but '"' and '\\' (no escape, ASCII), N digits without a leading zero, R
 * {"seq":N,"row":N[,"block":N]} with 1 <= seq <= through, row >= 1, A the rest of the line but its last '}' read
 * by loads as one value, a dict without "provider_bodies" or null (the dict {}). Anything else (another key, order,
 * spelling or value; a non-ASCII or escaped string; an id seen before) is no fast node: NULL without an error, and
 * node_lines reads the line the msgspec way as before; NULL with an error only for a failed allocation. A fast node
 * is the node _Reader.node makes of orjson's dict of the line: what the dict path reads of these keys is exactly
 * these values. The kind, parent and stream strings of the lines before are reused when the bytes are the same, and
 * a ref of refs equal to ref is the same (frozen) Ref. */
typedef struct {
    PyObject *kind[8], *parent[4], *stream[2];
    int kind_next, parent_next, stream_next;
} fn_reuse;

static void fn_reuse_clear(fn_reuse *u) {
    for (int k = 0; k < 8; k++)
        Py_CLEAR(u->kind[k]);
    for (int k = 0; k < 4; k++)
        Py_CLEAR(u->parent[k]);
    for (int k = 0; k < 2; k++)
        Py_CLEAR(u->stream[k]);
}

/* At *pp, just past an opening quote: the string's bytes up to its closing quote, all 0x20..0x7f but '"' and '\\'.
 * 1 with [*a, *a + *n) and *pp past the closing quote, 0 when not so. */
static int fn_str(const char **pp, const char *end, const char **a, Py_ssize_t *n) {
    const char *p = *pp, *s = p;
    for (; p < end; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"') {
            *a = s;
            *n = p - s;
            *pp = p + 1;
            return 1;
        }
        if (ch < 0x20 || ch >= 0x80 || ch == '\\')
            return 0;
    }
    return 0;
}

/* At *pp: a whole number without sign or leading zero, at most 18 digits. 1 with *out and *pp past it, 0 when not. */
static int fn_int(const char **pp, const char *end, long long *out) {
    const char *p = *pp;
    long long v = 0;
    int k = 0;
    if (p < end && *p == '0') {
        p++;
    } else {
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (++k > 18)
                return 0;
            v = v * 10 + (*p - '0');
        }
        if (k == 0)
            return 0;
    }
    if (p < end && *p >= '0' && *p <= '9') /* a leading zero */
        return 0;
    *out = v;
    *pp = p;
    return 1;
}

static int fn_lit(const char **pp, const char *end, const char *s, size_t n) {
    if ((size_t)(end - *pp) < n || memcmp(*pp, s, n) != 0)
        return 0;
    *pp += n;
    return 1;
}
#define FN_LIT(s) fn_lit(&p, end, s, sizeof(s) - 1)

/* A string of n ASCII bytes at a, one of the slots' strings when it holds the same bytes (else made and put in slot
 * *next of the ring). New reference, NULL on error. */
static PyObject *fn_reused(PyObject **slots, int count, int *next, const char *a, Py_ssize_t n) {
    for (int k = 0; k < count; k++) {
        PyObject *o = slots[k];
        if (o != NULL && PyUnicode_GET_LENGTH(o) == n && memcmp(PyUnicode_1BYTE_DATA(o), a, (size_t)n) == 0)
            return Py_NewRef(o);
    }
    PyObject *o = PyUnicode_New(n, 127);
    if (o == NULL)
        return NULL;
    memcpy(PyUnicode_1BYTE_DATA(o), a, (size_t)n);
    Py_XSETREF(slots[*next], Py_NewRef(o));
    *next = (*next + 1) % count;
    return o;
}

/* At *pp, a ref R: 1 with its values (block -1: none), 0 when not of the plain form or out of range. */
static int fn_ref(const char **pp, const char *end, Py_ssize_t through, long long *seq, long long *row, long long *block) {
    const char *p = *pp;
    if (!FN_LIT("{\"seq\":") || !fn_int(&p, end, seq) || !FN_LIT(",\"row\":") || !fn_int(&p, end, row))
        return 0;
    *block = -1;
    if (FN_LIT(",\"block\":") && !fn_int(&p, end, block))
        return 0;
    if (!FN_LIT("}") || *seq < 1 || *seq > through || *row < 1)
        return 0;
    *pp = p;
    return 1;
}

static PyObject *fn_make_ref(PyObject *ref_type, long long seq, long long row, long long block) {
    PyObject *a[3] = {PyLong_FromLongLong(seq), PyLong_FromLongLong(row), block < 0 ? NULL : PyLong_FromLongLong(block)};
    PyObject *r = NULL;
    if (a[0] != NULL && a[1] != NULL && (block < 0 || a[2] != NULL))
        r = PyObject_Vectorcall(ref_type, a, block < 0 ? 2 : 3, NULL);
    Py_XDECREF(a[0]);
    Py_XDECREF(a[1]);
    Py_XDECREF(a[2]);
    return r;
}

static PyObject *fast_node(PyObject *raw, PyObject *loads, PyObject *node_type, PyObject *ref_type, PyObject *revision,
                           long long round, Py_ssize_t through, PyObject *node_ids, fn_reuse *u) {
    const char *p = PyBytes_AS_STRING(raw), *end = p + PyBytes_GET_SIZE(raw), *a;
    Py_ssize_t n;
    long long rev, seq, row, block, rseq = 0, rrow = 0, rblock = 0;
    PyObject *id = NULL, *kind = NULL, *parent = NULL, *stream = NULL, *ref = NULL, *refs = NULL, *attrs = NULL,
             *node = NULL;
    if (end - p < 2 || end[-1] != '}' || !FN_LIT("{\"t\":\"node\",\"id\":\"") || !fn_str(&p, end, &a, &n) || n == 0 ||
        !FN_LIT(",\"revision\":") || !fn_int(&p, end, &rev) || rev != round)
        return NULL;
    if ((id = PyUnicode_New(n, 127)) == NULL)
        return NULL;
    memcpy(PyUnicode_1BYTE_DATA(id), a, (size_t)n);
    if (FN_LIT(",\"kind\":\"")) {
        if (!fn_str(&p, end, &a, &n) || (kind = fn_reused(u->kind, 8, &u->kind_next, a, n)) == NULL)
            goto done;
    }
    if (FN_LIT(",\"parent\":\"")) {
        if (!fn_str(&p, end, &a, &n) || (parent = fn_reused(u->parent, 4, &u->parent_next, a, n)) == NULL)
            goto done;
    }
    if (FN_LIT(",\"stream\":\"")) {
        if (!fn_str(&p, end, &a, &n) || (stream = fn_reused(u->stream, 2, &u->stream_next, a, n)) == NULL)
            goto done;
    }
    if (FN_LIT(",\"ref\":")) {
        if (!fn_ref(&p, end, through, &rseq, &rrow, &rblock) ||
            (ref = fn_make_ref(ref_type, rseq, rrow, rblock)) == NULL)
            goto done;
    }
    if ((refs = PyList_New(0)) == NULL)
        goto done;
    if (FN_LIT(",\"refs\":[") && !FN_LIT("]")) {
        for (;;) {
            if (!fn_ref(&p, end, through, &seq, &row, &block))
                goto done;
            PyObject *r = ref != NULL && seq == rseq && row == rrow && block == rblock ? Py_NewRef(ref)
                                                                                       : fn_make_ref(ref_type, seq, row, block);
            if (r == NULL || PyList_Append(refs, r) < 0) {
                Py_XDECREF(r);
                goto done;
            }
            Py_DECREF(r);
            if (FN_LIT("]"))
                break;
            if (!FN_LIT(","))
                goto done;
        }
    }
    if (FN_LIT(",\"attrs\":")) {
        if (end - 1 <= p)
            goto done;
        /* A view of raw's own bytes that holds raw (a slice of memoryview(raw)): the view owns what it shows, so a
         * loads that kept it, or code it ran that dropped the caller's list holding raw, cannot leave it pointing at
         * freed memory (PyMemoryView_FromMemory over p held nothing). */
        Py_ssize_t from = p - PyBytes_AS_STRING(raw);
        PyObject *whole = PyMemoryView_FromObject(raw);
        if (whole == NULL)
            goto done;
        PyObject *mv = PySequence_GetSlice(whole, from, from + (end - 1 - p));
        Py_DECREF(whole);
        if (mv == NULL)
            goto done;
        attrs = PyObject_CallOneArg(loads, mv);
        Py_DECREF(mv);
        if (attrs == NULL) {
            PyErr_Clear(); /* not one value: the msgspec way reads it, and says why */
            goto done;
        }
        if (attrs == Py_None)
            Py_SETREF(attrs, PyDict_New());
        if (attrs == NULL || !PyDict_CheckExact(attrs))
            goto done;
        int has = PyDict_Contains(attrs, s_provider_bodies);
        if (has != 0)
            goto done;
    } else if (p != end - 1) {
        goto done;
    } else if ((attrs = PyDict_New()) == NULL) {
        goto done;
    }
    int seen = PySet_Contains(node_ids, id);
    if (seen != 0)
        goto done;
    PyObject *empty = NULL;
    if ((kind == NULL || parent == NULL || stream == NULL) && (empty = PyUnicode_New(0, 127)) == NULL)
        goto done;
    PyObject *args[8] = {id, kind ? kind : empty, parent ? parent : empty, stream ? stream : empty,
                         ref ? ref : Py_None, refs, attrs, revision};
    node = PyObject_Vectorcall(node_type, args, 8, NULL);
    Py_XDECREF(empty);
done:
    Py_XDECREF(id);
    Py_XDECREF(kind);
    Py_XDECREF(parent);
    Py_XDECREF(stream);
    Py_XDECREF(ref);
    Py_XDECREF(refs);
    Py_XDECREF(attrs);
    return node;
}

static PyObject *node_lines(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 13 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[11]) || !PyAnySet_CheckExact(args[12])) {
        PyErr_SetString(PyExc_TypeError, "node_lines(lines, start, decode, not_read, loads, null, line_type, node_type, "
                                         "ref_type, revision, through, nodes, node_ids)");
        return NULL;
    }
    PyObject *lines = args[0], *decode = args[2], *not_read = args[3], *loads = args[4], *null = args[5];
    PyObject *line_type = args[6], *node_type = args[7], *ref_type = args[8], *revision = args[9];
    PyObject *nodes = args[11], *node_ids = args[12];
    Py_ssize_t lo[L_FIELDS], ro[R_FIELDS];
    Py_ssize_t i = PyLong_AsSsize_t(args[1]), through = PyLong_AsSsize_t(args[10]), used = 0;
    if ((i == -1 || through == -1) && PyErr_Occurred())
        return NULL;
    if (member_offsets(line_type, line_fields, lo) < 0 || member_offsets(ref_type, ref_fields, ro) < 0)
        return Py_BuildValue("(nn)", i, used);
    Py_ssize_t nid_off = 0;
    static const char *const nid_field[] = {"id", NULL};
    int fast_ok = member_offsets(node_type, nid_field, &nid_off) == 0;
    long long round = PyLong_AsLongLong(revision);
    if (round == -1 && PyErr_Occurred())
        PyErr_Clear(); /* no fast node: its revision is compared to -1 only when it reads as -1, never */
    PyObject *result = NULL;
    fn_reuse reuse = {0};
    for (; i < PyList_GET_SIZE(lines); i++) {
        PyObject *raw = PyList_GET_ITEM(lines, i);
        if (!PyBytes_CheckExact(raw) || PyBytes_GET_SIZE(raw) < 12 || memcmp(PyBytes_AS_STRING(raw), "{\"t\":\"node\",", 12))
            break;
        PyObject *fast = !fast_ok ? NULL : fast_node(raw, loads, node_type, ref_type, revision, round, through, node_ids, &reuse);
        if (fast != NULL) {
            int bad = PySet_Add(node_ids, FIELD(fast, nid_off)) < 0 || PyList_Append(nodes, fast) < 0;
            Py_DECREF(fast);
            if (bad)
                goto out;
            used += PyBytes_GET_SIZE(raw) + 1;
            continue;
        }
        PyErr_Clear(); /* not the plain form (or no room to make it): the msgspec way */
        PyObject *f = PyObject_CallOneArg(decode, raw), *a = NULL, *node = NULL;
        if (f == NULL) {
            if (!PyErr_ExceptionMatches(not_read))
                goto out;
            PyErr_Clear();
            break;
        }
        if ((PyObject *)Py_TYPE(f) != line_type)
            goto stop;
        PyObject *v[L_FIELDS];
        for (int k = 0; k < L_FIELDS; k++)
            if ((v[k] = FIELD(f, lo[k])) == NULL)
                goto stop;
        int ok = PyObject_RichCompareBool(v[L_T], s_node, Py_EQ);
        if (ok == 1)
            ok = PyObject_RichCompareBool(v[L_REVISION], revision, Py_EQ);
        if (ok == 1)
            ok = v[L_TOMBSTONE] == Py_False;
        if (ok == 1)
            ok = ref_within(v[L_REF], ref_type, ro, through);
        if (ok == 1 && v[L_REFS] != Py_None) {
            if (!PyList_CheckExact(v[L_REFS]))
                goto stop;
            for (Py_ssize_t r = 0; ok == 1 && r < PyList_GET_SIZE(v[L_REFS]); r++)
                ok = ref_within(PyList_GET_ITEM(v[L_REFS], r), ref_type, ro, through);
        }
        if (ok != 1)
            goto stop;
        if (v[L_ATTRS] == null) {
            a = PyDict_New();
        } else {
            PyObject *mv = PyMemoryView_FromObject(v[L_ATTRS]);
            if (mv == NULL)
                goto stop;
            a = PyObject_CallOneArg(loads, mv);
            Py_DECREF(mv);
            if (a == Py_None) {
                Py_DECREF(a);
                a = PyDict_New();
            }
        }
        if (a == NULL || !PyDict_CheckExact(a))
            goto stop;
        ok = PyDict_Contains(a, s_provider_bodies);
        if (ok == 0)
            ok = PySet_Contains(node_ids, v[L_ID]);
        if (ok != 0)
            goto stop;
        PyObject *refs = v[L_REFS] == Py_None ? PyList_New(0) : Py_NewRef(v[L_REFS]);
        if (refs == NULL)
            goto stop;
        PyObject *nargs_[8] = {v[L_ID], v[L_KIND], v[L_PARENT], v[L_STREAM], v[L_REF], refs, a, revision};
        node = PyObject_Vectorcall(node_type, nargs_, 8, NULL);
        Py_DECREF(refs);
        if (node == NULL || PySet_Add(node_ids, v[L_ID]) < 0 || PyList_Append(nodes, node) < 0) {
            Py_XDECREF(node);
            Py_DECREF(a);
            Py_DECREF(f);
            goto out;
        }
        Py_DECREF(node);
        Py_DECREF(a);
        Py_DECREF(f);
        used += PyBytes_GET_SIZE(raw) + 1;
        continue;
    stop: /* the Python reads this line (and says why, if it refuses it) */
        Py_XDECREF(a);
        Py_DECREF(f);
        PyErr_Clear();
        break;
    }
    result = Py_BuildValue("(nn)", i, used);
out:
    fn_reuse_clear(&reuse);
    return result;
}

/* cited_by(nodes, containers, node_type, ref_type) -> {(seq, row): id} or None
 *
 * asz_core/view/coverage.py's cited_by in one compiled loop (issue 22): for each node of the iterable nodes whose kind
 * is not in containers (a frozenset), each (seq, row) its ref and its refs name maps to the least id of the nodes
 * citing it. None (the caller runs its Python) for a node that is not an exact node_type, a ref that is not an exact
 * ref_type or None, or refs that are not a list. */
enum { C_KIND, C_ID, C_REF, C_REFS, C_FIELDS };
static const char *const cite_fields[] = {"kind", "id", "ref", "refs", NULL};

/* 0 when done, 1 when the ref is of another shape (the caller gives up), -1 on error. */
static int cite(PyObject *cited, PyObject *ref, PyObject *nid, PyObject *ref_type, const Py_ssize_t *ro) {
    if ((PyObject *)Py_TYPE(ref) != ref_type)
        return 1;
    PyObject *s = FIELD(ref, ro[R_SEQ]), *w = FIELD(ref, ro[R_ROW]);
    if (s == NULL || w == NULL)
        return 1;
    PyObject *pos = PyTuple_Pack(2, s, w);
    if (pos == NULL)
        return -1;
    PyObject *cur = PyDict_GetItemWithError(cited, pos);
    int set = cur == NULL ? (PyErr_Occurred() ? -1 : 1) : PyObject_RichCompareBool(nid, cur, Py_LT);
    int rc = set < 0 ? -1 : set ? PyDict_SetItem(cited, pos, nid) : 0;
    Py_DECREF(pos);
    return rc < 0 ? -1 : 0;
}

static PyObject *cited_by(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyFrozenSet_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "cited_by(nodes, containers, node_type, ref_type)");
        return NULL;
    }
    PyObject *containers = args[1], *node_type = args[2], *ref_type = args[3];
    Py_ssize_t no[C_FIELDS], ro[R_FIELDS];
    if (member_offsets(node_type, cite_fields, no) < 0 || member_offsets(ref_type, ref_fields, ro) < 0)
        Py_RETURN_NONE;
    PyObject *it = PyObject_GetIter(args[0]), *cited = PyDict_New(), *n;
    if (it == NULL || cited == NULL)
        goto fail;
    while ((n = PyIter_Next(it)) != NULL) {
        int rc = (PyObject *)Py_TYPE(n) != node_type;
        PyObject *kind = rc ? NULL : FIELD(n, no[C_KIND]), *nid = rc ? NULL : FIELD(n, no[C_ID]);
        PyObject *ref = rc ? NULL : FIELD(n, no[C_REF]), *refs = rc ? NULL : FIELD(n, no[C_REFS]);
        if (!rc && (kind == NULL || nid == NULL || ref == NULL || refs == NULL || !PyList_CheckExact(refs)))
            rc = 1;
        if (!rc) {
            int skip = PySet_Contains(containers, kind);
            if (skip < 0)
                rc = -1;
            else if (!skip) {
                if (ref != Py_None)
                    rc = cite(cited, ref, nid, ref_type, ro);
                for (Py_ssize_t r = 0; rc == 0 && r < PyList_GET_SIZE(refs); r++)
                    rc = cite(cited, PyList_GET_ITEM(refs, r), nid, ref_type, ro);
            }
        }
        Py_DECREF(n);
        if (rc < 0)
            goto fail;
        if (rc > 0) {
            Py_DECREF(it);
            Py_DECREF(cited);
            Py_RETURN_NONE;
        }
    }
    if (PyErr_Occurred())
        goto fail;
    Py_DECREF(it);
    return cited;
fail:
    Py_XDECREF(it);
    Py_XDECREF(cited);
    return NULL;
}

/* order_nodes(nodes, times, at, node_type, ref_type) -> (in_order, rank, children) or None
 *
 * asz_core/view/view_base.py's ViewBase index of the fold's nodes (a dict) in one compiled loop (issue 22): each node
 * keyed (seq, row, block or -1, id, node) by its ref, else its first ref, else (1 << 62, 0, 0, id, node); its time
 * at[id] (a dict filled here, in the nodes' order) the ms of times[seq][row - 1] (0 when none); the keys sorted;
 * rank {id: place in that order}, children {parent: [nodes]} in that order. None (the caller runs
 * its Python) for a node or ref of another type, or refs that are not a list. */
enum { O_ID, O_PARENT, O_REF, O_REFS, O_FIELDS };
static const char *const order_fields[] = {"id", "parent", "ref", "refs", NULL};
static PyObject *s_last_place, *s_minus_one, *s_million;

/* The sort key of node n (a new tuple), Py_None (borrowed) for another shape, NULL on error; sets *time. */
static PyObject *order_key(PyObject *n, PyObject *times, PyObject *ref_type, const Py_ssize_t *no, const Py_ssize_t *ro,
                           PyObject **time) {
    PyObject *nid = FIELD(n, no[O_ID]), *ref = FIELD(n, no[O_REF]), *refs = FIELD(n, no[O_REFS]);
    if (nid == NULL || ref == NULL || refs == NULL || !PyList_CheckExact(refs))
        return Py_None;
    if (ref == Py_None && PyList_GET_SIZE(refs))
        ref = PyList_GET_ITEM(refs, 0);
    if (ref == Py_None) {
        *time = Py_NewRef(s_zero);
        return PyTuple_Pack(5, s_last_place, s_zero, s_zero, nid, n);
    }
    if ((PyObject *)Py_TYPE(ref) != ref_type)
        return Py_None;
    PyObject *seq = FIELD(ref, ro[R_SEQ]), *row = FIELD(ref, ro[R_ROW]), *block = FIELD(ref, ro[R_BLOCK]);
    if (seq == NULL || row == NULL || block == NULL || !PyLong_CheckExact(row))
        return Py_None;
    Py_ssize_t w = PyLong_AsSsize_t(row);
    if (w == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return Py_None;
    }
    /* nid and ref (so its seq, row and block) held: seq's hash or comparison in times and a time's division may run
     * any code, setting n.id or n.ref (the caller holds n) */
    PyObject *key = NULL, *ts;
    Py_INCREF(nid);
    Py_INCREF(ref);
    if ((ts = PyDict_GetItemWithError(times, seq)) == NULL && PyErr_Occurred())
        goto out;
    if (ts != NULL && !PyList_CheckExact(ts)) {
        key = Py_None;
        goto out;
    }
    PyObject *t = ts != NULL && w >= 1 && w <= PyList_GET_SIZE(ts) ? PyList_GET_ITEM(ts, w - 1) : Py_None;
    Py_INCREF(t);
    *time = t == Py_None ? Py_NewRef(s_zero) : PyNumber_FloorDivide(t, s_million);
    Py_DECREF(t);
    if (*time != NULL)
        key = PyTuple_Pack(5, seq, row, block == Py_None ? s_minus_one : block, nid, n);
out:
    Py_DECREF(nid);
    Py_DECREF(ref);
    return key;
}

/* Node n (id nid, parent parent) put at place i: rank[nid] = i, n appended to children[parent]. 0, or -1 on error.
 * The caller holds n; parent is held here, as its hash and comparisons may run any code (which may set n.parent). */
static int on_place(PyObject *rank, PyObject *children, Py_ssize_t i, PyObject *nid, PyObject *n, PyObject *parent) {
    PyObject *place = PyLong_FromSsize_t(i), *kids;
    if (place == NULL || parent == NULL || PyDict_SetItem(rank, nid, place) < 0) {
        Py_XDECREF(place);
        return -1;
    }
    Py_DECREF(place);
    Py_INCREF(parent);
    if ((kids = PyDict_GetItemWithError(children, parent)) != NULL)
        Py_INCREF(kids);
    else if (!PyErr_Occurred() && (kids = PyList_New(0)) != NULL && PyDict_SetItem(children, parent, kids) < 0)
        Py_CLEAR(kids);
    Py_DECREF(parent);
    if (kids == NULL)
        return -1;
    int rc = PyList_Append(kids, n);
    Py_DECREF(kids);
    return rc;
}

/* order_nodes' sort without a tuple a node (session 27): each node's key (seq, row, block or -1, id) as machine
 * integers and the id, compared in that order (ids by code point, as str compares them). Taken only when every key's
 * numbers are exact ints that fit a long long and every id is an exact str, so the order is the tuples' order; two
 * equal keys (an id twice) leave the sort to the tuples, which say what they say of it. */
typedef struct {
    long long seq, row, block;
    PyObject *id, *n;
} on_key;

static int on_tie; /* two keys compared equal in the last sort */

static int on_cmp(const void *pa, const void *pb) {
    const on_key *a = pa, *b = pb;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    int c = a->id == b->id ? 0 : PyUnicode_Compare(a->id, b->id); /* two exact str: no error */
    if (c == 0)
        on_tie = 1;
    return c;
}

/* 1 with *out the long long of v (an exact int), 0 when v is another type or does not fit. */
static int on_ll(PyObject *v, long long *out) {
    if (!PyLong_CheckExact(v))
        return 0;
    int over = 0;
    *out = PyLong_AsLongLongAndOverflow(v, &over);
    if (over || (*out == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* order_nodes' (rank, children) with at filled, by the sort above; Py_None (a new reference, nothing written to at)
 * when some node is of a shape it does not take, or two keys are equal: the tuples' way then; NULL on error. Each
 * node's time is made in the nodes' order and put in at in that order, as the tuples' loop does. */
static PyObject *on_order(PyObject *nodes, PyObject *times, PyObject *at, PyObject *node_type, PyObject *ref_type,
                          const Py_ssize_t *no, const Py_ssize_t *ro) {
    Py_ssize_t size = PyDict_GET_SIZE(nodes), pos = 0, made = 0, timed = 0; /* keys held, times made */
    size_t room = (size_t)(size ? size : 1);
    on_key *keys = PyMem_Malloc(sizeof(on_key) * room);
    PyObject **when = PyMem_Malloc(sizeof(PyObject *) * room), **ids = PyMem_Malloc(sizeof(PyObject *) * room);
    PyObject *key, *n, *rank = NULL, *children = NULL, *result = NULL;
    if (keys == NULL || when == NULL || ids == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    while (PyDict_Next(nodes, &pos, &key, &n)) {
        if ((PyObject *)Py_TYPE(n) != node_type || made >= size)
            goto other;
        PyObject *nid = FIELD(n, no[O_ID]), *ref = FIELD(n, no[O_REF]), *refs = FIELD(n, no[O_REFS]), *t = Py_None;
        if (nid == NULL || ref == NULL || refs == NULL || !PyList_CheckExact(refs) || !PyUnicode_CheckExact(nid))
            goto other;
        if (ref == Py_None && PyList_GET_SIZE(refs))
            ref = PyList_GET_ITEM(refs, 0);
        on_key *k = &keys[made++];
        k->id = Py_NewRef(nid); /* held: a time's floor division or a lookup in times may run any code */
        k->n = Py_NewRef(n);
        if (ref == Py_None) {
            k->seq = 1LL << 62;
            k->row = k->block = 0;
        } else {
            if ((PyObject *)Py_TYPE(ref) != ref_type)
                goto other;
            PyObject *seq = FIELD(ref, ro[R_SEQ]), *row = FIELD(ref, ro[R_ROW]), *block = FIELD(ref, ro[R_BLOCK]);
            if (seq == NULL || row == NULL || block == NULL || !on_ll(seq, &k->seq) || !on_ll(row, &k->row))
                goto other;
            if (block == Py_None)
                k->block = -1;
            else if (!on_ll(block, &k->block))
                goto other;
            Py_INCREF(seq); /* a key of times' comparison may run any code, setting n.ref */
            PyObject *ts = PyDict_GetItemWithError(times, seq);
            Py_DECREF(seq);
            if (ts == NULL && PyErr_Occurred())
                goto done;
            if (ts != NULL && !PyList_CheckExact(ts))
                goto other;
            if (ts != NULL && k->row >= 1 && k->row <= PyList_GET_SIZE(ts))
                t = PyList_GET_ITEM(ts, k->row - 1);
        }
        if (t == Py_None)
            when[timed] = Py_NewRef(s_zero);
        else {
            Py_INCREF(t); /* its floor division may run any code, emptying its list */
            when[timed] = PyNumber_FloorDivide(t, s_million);
            Py_DECREF(t);
        }
        if (when[timed] == NULL)
            goto done;
        ids[timed++] = nid;
    }
    if (made != size || timed != size)
        goto other;
    on_tie = 0;
    qsort(keys, (size_t)size, sizeof(on_key), on_cmp);
    if (on_tie)
        goto other;
    for (Py_ssize_t j = 0; j < size; j++)
        if (PyDict_SetItem(at, ids[j], when[j]) < 0)
            goto done;
    if ((rank = PyDict_New()) == NULL || (children = PyDict_New()) == NULL)
        goto done;
    for (Py_ssize_t j = 0; j < size; j++)
        if (on_place(rank, children, j, keys[j].id, keys[j].n, FIELD(keys[j].n, no[O_PARENT])) < 0)
            goto done;
    result = Py_BuildValue("(OO)", rank, children);
    goto done;
other:
    result = Py_NewRef(Py_None);
done:
    for (Py_ssize_t j = 0; j < timed; j++)
        Py_DECREF(when[j]);
    for (Py_ssize_t j = 0; j < made; j++) {
        Py_DECREF(keys[j].id);
        Py_DECREF(keys[j].n);
    }
    PyMem_Free(when);
    PyMem_Free(ids);
    PyMem_Free(keys);
    Py_XDECREF(rank);
    Py_XDECREF(children);
    return result;
}

static PyObject *order_nodes(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyDict_CheckExact(args[0]) || !PyDict_CheckExact(args[1]) || !PyDict_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "order_nodes(nodes, times, at, node_type, ref_type): three dicts, two types");
        return NULL;
    }
    PyObject *nodes = args[0], *times = args[1], *at = args[2], *node_type = args[3], *ref_type = args[4];
    Py_ssize_t no[O_FIELDS], ro[R_FIELDS], pos = 0;
    if (member_offsets(node_type, order_fields, no) < 0 || member_offsets(ref_type, ref_fields, ro) < 0)
        Py_RETURN_NONE;
    PyObject *keyed = NULL, *rank = NULL, *children = NULL, *key, *n;
    PyObject *fast = on_order(nodes, times, at, node_type, ref_type, no, ro);
    if (fast != Py_None)
        return fast; /* (rank, children), or NULL on error */
    Py_DECREF(fast);
    if ((keyed = PyList_New(0)) == NULL)
        return NULL;
    while (PyDict_Next(nodes, &pos, &key, &n)) {
        Py_INCREF(n); /* held: order_key may run any code */
        PyObject *time = NULL, *k = (PyObject *)Py_TYPE(n) == node_type ? order_key(n, times, ref_type, no, ro, &time) : Py_None;
        Py_DECREF(n);
        if (k == Py_None) {
            Py_XDECREF(time);
            Py_DECREF(keyed);
            Py_RETURN_NONE;
        }
        /* the id the key holds: n's may be another by now */
        int rc = k == NULL || PyList_Append(keyed, k) < 0 || PyDict_SetItem(at, PyTuple_GET_ITEM(k, 3), time) < 0;
        Py_XDECREF(k);
        Py_XDECREF(time);
        if (rc)
            goto fail;
    }
    Py_ssize_t size = PyList_GET_SIZE(keyed);
    if (PyList_Sort(keyed) < 0 || (rank = PyDict_New()) == NULL || (children = PyDict_New()) == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < size; i++) {
        n = PyTuple_GET_ITEM(PyList_GET_ITEM(keyed, i), 4);
        if (on_place(rank, children, i, FIELD(n, no[O_ID]), n, FIELD(n, no[O_PARENT])) < 0)
            goto fail;
    }
    Py_DECREF(keyed);
    return Py_BuildValue("(NN)", rank, children);
fail:
    Py_DECREF(keyed);
    Py_XDECREF(rank);
    Py_XDECREF(children);
    return NULL;
}

/* by_kind(nodes, node_type) -> {kind: [node, ...]} or None
 *
 * asz_core/view/view_base.py's ViewBase.of_kind index in one compiled loop (session 27): the values of the dict nodes
 * grouped by their kind, the kinds in the order they first appear, each list in the nodes' order. None (the caller
 * runs its Python) when a value is not an exact node_type; a kind that cannot be a key raises as the Python's does. */
static PyObject *bk_type;
static Py_ssize_t bk_off[1];
static const char *const bk_fields[] = {"kind", NULL};

static PyObject *by_kind(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyDict_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "by_kind(nodes: dict, node_type)");
        return NULL;
    }
    PyObject *nodes = args[0], *node_type = args[1], *key, *n;
    if (bk_type != node_type) {
        if (member_offsets(node_type, bk_fields, bk_off) < 0)
            Py_RETURN_NONE;
        Py_XSETREF(bk_type, Py_NewRef(node_type));
    }
    Py_ssize_t pos = 0;
    /* last_kind held (a kind's hash or comparison may run any code, dropping nodes' own); last borrowed from by,
     * which no other code reaches */
    PyObject *by = PyDict_New(), *last_kind = NULL, *last = NULL;
    if (by == NULL)
        return NULL;
    while (PyDict_Next(nodes, &pos, &key, &n)) {
        PyObject *kind = (PyObject *)Py_TYPE(n) == node_type ? FIELD(n, bk_off[0]) : NULL;
        if (kind == NULL) {
            Py_XDECREF(last_kind);
            Py_DECREF(by);
            Py_RETURN_NONE;
        }
        Py_INCREF(n); /* held while kind's code may run */
        if (kind != last_kind) {
            Py_INCREF(kind);
            PyObject *got = PyDict_GetItemWithError(by, kind);
            if (got == NULL) {
                int rc = PyErr_Occurred() || (got = PyList_New(0)) == NULL ? -1 : PyDict_SetItem(by, kind, got);
                Py_XDECREF(got); /* by holds it */
                if (rc < 0) {
                    Py_DECREF(kind);
                    Py_DECREF(n);
                    goto fail;
                }
            }
            Py_XSETREF(last_kind, kind);
            last = got;
        }
        int rc = PyList_Append(last, n);
        Py_DECREF(n);
        if (rc < 0)
            goto fail;
    }
    Py_XDECREF(last_kind);
    return by;
fail:
    Py_XDECREF(last_kind);
    Py_DECREF(by);
    return NULL;
}

/* talk_counts(n, runs, steps, at, tool_kinds, node_type) -> (tools, first, last, tail) or None
 *
 * The counts asz_core/view/nodes.py's NodeView._compute_talk_keys makes of a talk's steps in one compiled loop (session
 * 27): tools, how many of steps have a kind in tool_kinds; first and last, the least and the greatest of the times
 * at[id] that are true, over n, runs and steps in that order (the first of equal ones, as min and max keep it; None and
 * None when none is); tail, how many steps after the last one whose time is true (len(steps) when none). None (the
 * Python counts) when n, a run or a step is not an exact node_type or runs or steps not a list; at[id] missing raises
 * KeyError, a comparison's error is raised, as the Python's. */
static PyObject *tc_type;
static Py_ssize_t tc_off[2];
static const char *const tc_fields[] = {"id", "kind", NULL};

static PyObject *talk_counts(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 || !PyDict_CheckExact(args[3]) || !PyAnySet_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "talk_counts(n, runs, steps, at: dict, tool_kinds: set, node_type)");
        return NULL;
    }
    PyObject *n = args[0], *runs = args[1], *steps = args[2], *at = args[3], *tool_kinds = args[4], *node_type = args[5];
    if (!PyList_CheckExact(runs) || !PyList_CheckExact(steps) || (PyObject *)Py_TYPE(n) != node_type)
        Py_RETURN_NONE;
    if (tc_type != node_type) {
        if (member_offsets(node_type, tc_fields, tc_off) < 0)
            Py_RETURN_NONE;
        Py_XSETREF(tc_type, Py_NewRef(node_type));
    }
    Py_ssize_t nr = PyList_GET_SIZE(runs), ns = PyList_GET_SIZE(steps), tools = 0, tail = ns;
    for (Py_ssize_t i = 0; i < nr; i++)
        if ((PyObject *)Py_TYPE(PyList_GET_ITEM(runs, i)) != node_type)
            Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < ns; i++)
        if ((PyObject *)Py_TYPE(PyList_GET_ITEM(steps, i)) != node_type)
            Py_RETURN_NONE;
    /* n, runs and steps held as they are now, as the Python's (n, *runs, *steps) holds them: a kind's hash, a lookup
     * in at or a comparison may run any code (emptying runs or steps, setting a node's id or kind) */
    PyObject *all = PyTuple_New(1 + nr + ns), *lo = NULL, *hi = NULL, *result = NULL;
    if (all == NULL)
        return NULL;
    PyTuple_SET_ITEM(all, 0, Py_NewRef(n));
    for (Py_ssize_t i = 0; i < nr; i++)
        PyTuple_SET_ITEM(all, 1 + i, Py_NewRef(PyList_GET_ITEM(runs, i)));
    for (Py_ssize_t i = 0; i < ns; i++)
        PyTuple_SET_ITEM(all, 1 + nr + i, Py_NewRef(PyList_GET_ITEM(steps, i)));
    for (Py_ssize_t i = 0; i < ns; i++) {
        PyObject *kind = FIELD(PyTuple_GET_ITEM(all, 1 + nr + i), tc_off[1]);
        if (kind == NULL)
            continue;
        Py_INCREF(kind);
        int in = PySet_Contains(tool_kinds, kind);
        Py_DECREF(kind);
        if (in < 0)
            goto done;
        tools += in;
    }
    for (Py_ssize_t i = -1; i < nr + ns; i++) {
        PyObject *s = PyTuple_GET_ITEM(all, 1 + i);
        PyObject *id = FIELD(s, tc_off[0]), *t;
        if (id == NULL) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        Py_INCREF(id);
        t = PyDict_GetItemWithError(at, id);
        if (t == NULL) {
            if (!PyErr_Occurred()) { /* KeyError(id), as at[id] raises it */
                PyObject *key = PyTuple_Pack(1, id);
                if (key != NULL) {
                    PyErr_SetObject(PyExc_KeyError, key);
                    Py_DECREF(key);
                }
            }
            Py_DECREF(id);
            goto done;
        }
        Py_INCREF(t); /* before id goes: dropping it may run code */
        Py_DECREF(id);
        int yes = PyObject_IsTrue(t), less = 0, more = 0;
        if (yes > 0 && lo != NULL) {
            less = PyObject_RichCompareBool(t, lo, Py_LT);
            more = less < 0 ? -1 : PyObject_RichCompareBool(t, hi, Py_GT);
        }
        if (yes < 0 || less < 0 || more < 0) {
            Py_DECREF(t);
            goto done;
        }
        if (yes && i >= nr)
            tail = ns - 1 - (i - nr); /* steps after this one: the last true one's count wins */
        if (yes && (lo == NULL || less))
            Py_XSETREF(lo, Py_NewRef(t));
        if (yes && (hi == NULL || more))
            Py_XSETREF(hi, Py_NewRef(t));
        Py_DECREF(t);
    }
    result = Py_BuildValue("(nOOn)", tools, lo ? lo : Py_None, hi ? hi : Py_None, tail);
done:
    Py_DECREF(all);
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    return result;
}

/* usage_pairs(calls, call_usage_type, no_model, long_above) -> (n, with_usage, short, models, pairs) or None
 *
 * asz_core/view/usage.py's usage_totals loop over provider_calls(calls) (session 27), for calls (a list) every one of
 * which is the usual one: an exact call_usage_type with no requests, synthetic a bool, incomplete a tuple, model and
 * lane str, usage None or a dict of no other keys than in, out, cache_read and cache_write, each an exact int, whose
 * in + cache_read + cache_write is at most long_above (an int), and whose sums fit a long long. n counts the calls that
 * are not synthetic, short those with incomplete, models (a set) their non-empty models, with_usage those with usage;
 * pairs maps (model or no_model, "main" or "subagent": the lane, any other lane "subagent") to the sums of its
 * calls' four counts ({"in", "out", "cache_read", "cache_write"}, in that order), in the order the pairs first
 * appear. None for any other call (nothing is counted: the Python's loop counts them all). */
#define UP_SLOTS 64
static Py_ssize_t up_co[6];
static PyObject *up_type, *s_main, *s_subagent;
enum { UP_USAGE, UP_MODEL, UP_LANE, UP_SYNTHETIC, UP_REQUESTS, UP_INCOMPLETE };
static const char *const up_fields[] = {"usage", "model", "lane", "synthetic", "requests", "incomplete", NULL};

static PyObject *usage_pairs(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyList_CheckExact(args[0]) || !PyUnicode_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "usage_pairs(calls: list, call_usage_type, no_model: str, long_above)");
        return NULL;
    }
    PyObject *calls = args[0], *cu_type = args[1], *no_model = args[2];
    long long long_above;
    if (!on_ll(args[3], &long_above))
        Py_RETURN_NONE;
    if (up_type != cu_type) {
        if (member_offsets(cu_type, up_fields, up_co) < 0)
            Py_RETURN_NONE;
        Py_XSETREF(up_type, Py_NewRef(cu_type));
    }
    struct {
        PyObject *model, *lane; /* borrowed: the calls hold them */
        long long sum[4];
    } slot[UP_SLOTS];
    int slots = 0;
    long long n = 0, with_usage = 0, short_ = 0;
    PyObject *models = PySet_New(NULL), *pairs = NULL, *result = NULL;
    if (models == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(calls); i++) {
        PyObject *c = PyList_GET_ITEM(calls, i);
        if ((PyObject *)Py_TYPE(c) != cu_type)
            goto other;
        PyObject *u = FIELD(c, up_co[UP_USAGE]), *model = FIELD(c, up_co[UP_MODEL]), *lane = FIELD(c, up_co[UP_LANE]),
                 *syn = FIELD(c, up_co[UP_SYNTHETIC]), *req = FIELD(c, up_co[UP_REQUESTS]),
                 *inc = FIELD(c, up_co[UP_INCOMPLETE]);
        if (u == NULL || model == NULL || lane == NULL || syn == NULL || req == NULL || inc == NULL ||
            !PyTuple_CheckExact(req) || PyTuple_GET_SIZE(req) != 0 || (syn != Py_True && syn != Py_False) ||
            !PyTuple_CheckExact(inc) || !PyUnicode_CheckExact(model) || !PyUnicode_CheckExact(lane))
            goto other;
        if (syn == Py_True) /* no provider call */
            continue;
        long long v[4] = {0, 0, 0, 0};
        if (u != Py_None) {
            if (!PyDict_CheckExact(u))
                goto other;
            Py_ssize_t pos = 0;
            PyObject *k, *x;
            while (PyDict_Next(u, &pos, &k, &x)) {
                int which = -1;
                for (int j = 0; j < 4 && which < 0; j++) {
                    int eq = k == s_count_keys[j] ? 1 : PyUnicode_CheckExact(k) ? PyUnicode_Compare(k, s_count_keys[j]) == 0 : 0;
                    if (eq)
                        which = j;
                }
                if (which < 0 || !on_ll(x, &v[which]))
                    goto other;
            }
            long long in_all;
            if (__builtin_add_overflow(v[0], v[2], &in_all) || __builtin_add_overflow(in_all, v[3], &in_all) ||
                in_all > long_above)
                goto other;
        }
        n++;
        if (PyTuple_GET_SIZE(inc))
            short_++;
        if (PyUnicode_GET_LENGTH(model) && PySet_Add(models, model) < 0)
            goto done;
        if (u == Py_None)
            continue;
        with_usage++;
        PyObject *key_model = PyUnicode_GET_LENGTH(model) ? model : no_model;
        int main_ = PyUnicode_Compare(lane, s_main) == 0;
        PyObject *key_lane = main_ ? s_main : s_subagent;
        int s = 0;
        for (; s < slots; s++)
            if (slot[s].lane == key_lane && (slot[s].model == key_model || PyUnicode_Compare(slot[s].model, key_model) == 0))
                break;
        if (s == slots) {
            if (slots == UP_SLOTS)
                goto other;
            slot[s].model = key_model;
            slot[s].lane = key_lane;
            memset(slot[s].sum, 0, sizeof(slot[s].sum));
            slots++;
        }
        for (int j = 0; j < 4; j++)
            if (__builtin_add_overflow(slot[s].sum[j], v[j], &slot[s].sum[j]))
                goto other;
    }
    if ((pairs = PyDict_New()) == NULL)
        goto done;
    for (int s = 0; s < slots; s++) {
        PyObject *key = PyTuple_Pack(2, slot[s].model, slot[s].lane), *sums = PyDict_New();
        int bad = key == NULL || sums == NULL;
        for (int j = 0; j < 4 && !bad; j++) {
            PyObject *x = PyLong_FromLongLong(slot[s].sum[j]);
            bad = x == NULL || PyDict_SetItem(sums, s_count_keys[j], x) < 0;
            Py_XDECREF(x);
        }
        bad = bad || PyDict_SetItem(pairs, key, sums) < 0;
        Py_XDECREF(key);
        Py_XDECREF(sums);
        if (bad)
            goto done;
    }
    result = Py_BuildValue("(LLLOO)", n, with_usage, short_, models, pairs);
    goto done;
other:
    result = Py_NewRef(Py_None);
done:
    Py_DECREF(models);
    Py_XDECREF(pairs);
    return result;
}

/* call_keys(n, d, cu, records, unverified, withholdable, hide, long_above, call_usage_type, node_type, ref_type)
 *     -> True or None
 *
 * asz_core/view/step_keys.py's StepKeys._call_keys for the usual call (issue 22): the keys it adds to the drawn node
 * d (model, usage, long_context, usage_state, usage_incomplete, flags, provider_bodies, in that order) from the call's
 * CallUsage cu and the records its refs name, when cu is an exact call_usage_type holding one provider call
 * (no requests) that is not synthetic, no landed file is unverified, its usage (when any) is a dict of plain int
 * counts, and each record's flags (when any) are a list of hashable values. None, with d untouched, for any other
 * call: the caller runs its Python. */
static PyObject *ck_types[3];
static Py_ssize_t ck_no[R_FIELDS + 1], ck_ro[R_FIELDS], ck_co[9];
enum { K_REF, K_REFS, K_ATTRS };
static const char *const ck_node_fields[] = {"ref", "refs", "attrs", NULL};
enum { U_USAGE, U_STATE, U_MODEL, U_SYNTHETIC, U_INCOMPLETE, U_REQUESTS };
static const char *const ck_cu_fields[] = {"usage", "state", "model", "synthetic", "incomplete", "requests", NULL};
static PyObject *s_long_context, *s_usage_state, *s_usage_incomplete;

static int ck_offsets(PyObject *cu_type, PyObject *node_type, PyObject *ref_type) {
    if (ck_types[0] == cu_type && ck_types[1] == node_type && ck_types[2] == ref_type)
        return 0;
    if (member_offsets(cu_type, ck_cu_fields, ck_co) < 0 || member_offsets(node_type, ck_node_fields, ck_no) < 0 ||
        member_offsets(ref_type, ref_fields, ck_ro) < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        Py_XSETREF(ck_types[i], Py_NewRef(i == 0 ? cu_type : i == 1 ? node_type : ref_type));
    return 0;
}

/* 1 (sum in *total) when u's in, cache_read and cache_write are absent or exact ints, 0 when not, -1 on error. */
static int prompt_total(PyObject *u, long long *total) {
    static PyObject **keys[3] = {&s_count_keys[0], &s_count_keys[2], &s_count_keys[3]};
    *total = 0;
    for (int i = 0; i < 3; i++) {
        PyObject *x = PyDict_GetItemWithError(u, *keys[i]);
        if (x == NULL) {
            if (PyErr_Occurred())
                return -1;
            continue;
        }
        if (!PyLong_CheckExact(x))
            return 0;
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred()) || v > (1LL << 60) || v < -(1LL << 60)) {
            PyErr_Clear();
            return 0;
        }
        *total += v;
    }
    return 1;
}

static PyObject *call_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 11 || !PyDict_CheckExact(args[1]) || !PyDict_CheckExact(args[3]) || !PyDict_CheckExact(args[4]) ||
        !PyFrozenSet_CheckExact(args[5]) || !PyLong_CheckExact(args[7])) {
        PyErr_SetString(PyExc_TypeError, "call_keys(n, d, cu, records, unverified, withholdable, hide, long_above, "
                                         "call_usage_type, node_type, ref_type)");
        return NULL;
    }
    PyObject *n = args[0], *d = args[1], *cu = args[2], *records = args[3], *withholdable = args[5], *hide = args[6];
    long long long_above = PyLong_AsLongLong(args[7]);
    if ((long_above == -1 && PyErr_Occurred()) || PyDict_GET_SIZE(args[4]) ||
        ck_offsets(args[8], args[9], args[10]) < 0 || (PyObject *)Py_TYPE(cu) != args[8] ||
        (PyObject *)Py_TYPE(n) != args[9]) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *v[6];
    for (int i = 0; i < 6; i++)
        if ((v[i] = FIELD(cu, ck_co[i])) == NULL)
            Py_RETURN_NONE;
    PyObject *ref = FIELD(n, ck_no[K_REF]), *refs = FIELD(n, ck_no[K_REFS]), *attrs = FIELD(n, ck_no[K_ATTRS]);
    if (v[U_SYNTHETIC] != Py_False || !PyTuple_CheckExact(v[U_REQUESTS]) || PyTuple_GET_SIZE(v[U_REQUESTS]) ||
        !PyTuple_CheckExact(v[U_INCOMPLETE]) || ref == NULL || refs == NULL || attrs == NULL || !PyList_CheckExact(refs) ||
        !PyDict_CheckExact(attrs) || (v[U_USAGE] != Py_None && !PyDict_CheckExact(v[U_USAGE])))
        Py_RETURN_NONE;
    int is_long = 0;
    if (v[U_USAGE] != Py_None) {
        long long total;
        int ok = prompt_total(v[U_USAGE], &total);
        if (ok <= 0) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        is_long = total > long_above;
    }
    PyObject *hits = NULL, *sorted = NULL;
    Py_ssize_t nr = PyList_GET_SIZE(refs);
    if (nr == 0 && ref != Py_None)
        nr = -1; /* refs or [ref] */
    for (Py_ssize_t i = 0; nr != 0 && i < (nr < 0 ? 1 : nr); i++) {
        PyObject *r = nr < 0 ? ref : PyList_GET_ITEM(refs, i);
        if ((PyObject *)Py_TYPE(r) != ck_types[2])
            goto none;
        PyObject *seq = FIELD(r, ck_ro[R_SEQ]), *row = FIELD(r, ck_ro[R_ROW]);
        if (seq == NULL || row == NULL || !PyLong_CheckExact(row))
            goto none;
        PyObject *recs = PyDict_GetItemWithError(records, seq);
        if (recs == NULL) {
            if (PyErr_Occurred())
                goto none;
            continue;
        }
        if (!PyList_CheckExact(recs))
            goto none;
        Py_ssize_t w = PyLong_AsSsize_t(row);
        if (w == -1 && PyErr_Occurred())
            goto none;
        if (w < 1 || w > PyList_GET_SIZE(recs))
            continue;
        PyObject *rec = PyList_GET_ITEM(recs, w - 1), *got;
        if (!PyDict_CheckExact(rec))
            goto none;
        if ((got = PyDict_GetItemWithError(rec, s_flags)) == NULL) {
            if (PyErr_Occurred())
                goto none;
            continue;
        }
        if (got == Py_None || (PyList_CheckExact(got) && PyList_GET_SIZE(got) == 0))
            continue;
        if (!PyList_CheckExact(got))
            goto none;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(got); k++) {
            PyObject *flag = PyList_GET_ITEM(got, k);
            int in = PySet_Contains(withholdable, flag);
            if (in < 0)
                goto none;
            if (in && ((hits == NULL && (hits = PySet_New(NULL)) == NULL) || PySet_Add(hits, flag) < 0))
                goto none;
        }
    }
    if (hits != NULL && PySet_GET_SIZE(hits)) {
        if ((sorted = PySequence_List(hits)) == NULL || PyList_Sort(sorted) < 0)
            goto none;
    }
    int hidden = PyObject_IsTrue(hide);
    PyObject *pb = hidden ? NULL : PyDict_GetItemWithError(attrs, s_provider_bodies);
    if (hidden < 0 || (pb == NULL && PyErr_Occurred()))
        goto none;
    /* decided: the keys in _call_keys' order */
    int t = PyObject_IsTrue(v[U_MODEL]);
    if (t < 0 || (t && PyDict_SetItem(d, s_model, v[U_MODEL]) < 0))
        goto fail;
    if (v[U_USAGE] != Py_None) {
        if (PyDict_SetItem(d, s_usage, v[U_USAGE]) < 0 || (is_long && PyDict_SetItem(d, s_long_context, Py_True) < 0) ||
            PyDict_SetItem(d, s_usage_state, v[U_STATE]) < 0)
            goto fail;
    }
    if (PyTuple_GET_SIZE(v[U_INCOMPLETE])) {
        PyObject *inc = PySequence_List(v[U_INCOMPLETE]);
        int rc = inc == NULL ? -1 : PyDict_SetItem(d, s_usage_incomplete, inc);
        Py_XDECREF(inc);
        if (rc < 0)
            goto fail;
    }
    if (sorted != NULL && PyDict_SetItem(d, s_flags, sorted) < 0)
        goto fail;
    if (pb != NULL && PyList_Check(pb) && PyList_GET_SIZE(pb) && PyDict_SetItem(d, s_provider_bodies, pb) < 0)
        goto fail;
    Py_XDECREF(hits);
    Py_XDECREF(sorted);
    Py_RETURN_TRUE;
none: /* d untouched: the Python reads this call */
    PyErr_Clear();
    Py_XDECREF(hits);
    Py_XDECREF(sorted);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(hits);
    Py_XDECREF(sorted);
    return NULL;
}

/* asz_core/view/step_keys.py's StepKeys._tool_keys for the usual tool node (issue 22, session 18): the keys it adds to
 * the drawn node d (name, failed, result, result_state, result_bytes, request_to_result_ms, request_to_result_join,
 * changes, executions, in that order) from the node's attrs, the part its first ref names and the result part of its
 * second, when n is an exact node_type with at most two refs of ref_type, every record and part it reads is a dict,
 * a record's parts a list, the result's text a str (a result read from its data, which adds result_from, is the
 * Python's: trial 31b F4), the result's record has
 * nothing dropped and is not withheld, the times it compares are ints, and d holds none of those keys yet. It decides
 * everything before it writes: None, with d untouched, for any other node (the caller runs its Python). */
static PyObject *tk_types[2];
static Py_ssize_t tk_no[4], tk_ro[R_FIELDS];
enum { T_ID, T_REF, T_REFS, T_ATTRS };
static const char *const tk_node_fields[] = {"id", "ref", "refs", "attrs", NULL};
static PyObject *s_name, *s_failed, *s_result, *s_result_state, *s_result_bytes, *s_rtr_ms, *s_rtr_join,
    *s_exact_unique, *s_result_join, *s_changes, *s_executions, *s_available, *s_bytes, *s_text;
#define TK_KEYS 9

/* 1 with records[r.seq][r.row - 1] in *rec (borrowed) or *rec NULL where the Python finds none; 0 for a ref or record
 * of another shape; -1 on error. */
static int tk_record(PyObject *records, PyObject *r, PyObject **rec) {
    *rec = NULL;
    if ((PyObject *)Py_TYPE(r) != tk_types[1])
        return 0;
    PyObject *seq = FIELD(r, tk_ro[R_SEQ]), *row = FIELD(r, tk_ro[R_ROW]);
    if (seq == NULL || row == NULL || !PyLong_CheckExact(row))
        return 0;
    PyObject *recs = PyDict_GetItemWithError(records, seq);
    if (recs == NULL)
        return PyErr_Occurred() ? -1 : 1;
    if (!PyList_CheckExact(recs))
        return 0;
    Py_ssize_t w = PyLong_AsSsize_t(row);
    if (w == -1 && PyErr_Occurred())
        return -1;
    if (w < 1 || w > PyList_GET_SIZE(recs))
        return 1;
    *rec = PyList_GET_ITEM(recs, w - 1);
    return PyDict_CheckExact(*rec) ? 1 : 0;
}

/* rec.get("parts", ()) when a list (*parts borrowed, NULL when absent): 1, 0 for another shape, -1 on error. */
static int tk_parts(PyObject *rec, PyObject **parts) {
    *parts = PyDict_GetItemWithError(rec, s_parts);
    if (*parts == NULL)
        return PyErr_Occurred() ? -1 : 1;
    return PyList_CheckExact(*parts) ? 1 : 0;
}

/* The part r.block names in parts (borrowed; NULL when out of range or block None), 1, 0 for another shape. */
static int tk_block(PyObject *r, PyObject *parts, PyObject **p) {
    PyObject *block = FIELD(r, tk_ro[R_BLOCK]);
    *p = NULL;
    if (block == NULL)
        return 0;
    if (block == Py_None)
        return 1;
    if (!PyLong_CheckExact(block))
        return 0;
    Py_ssize_t b = PyLong_AsSsize_t(block);
    if (b == -1 && PyErr_Occurred())
        return 0;
    if (parts != NULL && b >= 0 && b < PyList_GET_SIZE(parts)) {
        *p = PyList_GET_ITEM(parts, b);
        return PyDict_CheckExact(*p) ? 1 : 0;
    }
    return 1;
}

/* times[r.seq][r.row - 1] (borrowed, NULL when none): 1, 0 for another shape. */
static int tk_time(PyObject *times, PyObject *r, PyObject **t) {
    PyObject *seq = FIELD(r, tk_ro[R_SEQ]), *row = FIELD(r, tk_ro[R_ROW]), *ts;
    *t = NULL;
    if ((ts = PyDict_GetItemWithError(times, seq)) == NULL)
        return PyErr_Occurred() ? 0 : 1;
    if (!PyList_CheckExact(ts))
        return 0;
    Py_ssize_t w = PyLong_AsSsize_t(row);
    if (w == -1 && PyErr_Occurred())
        return 0;
    if (w >= 1 && w <= PyList_GET_SIZE(ts)) {
        *t = PyList_GET_ITEM(ts, w - 1);
        if (*t == Py_None)
            *t = NULL;
        else if (!PyLong_CheckExact(*t))
            return 0;
    }
    return 1;
}

/* 1 when rec is withheld by hide (a set: a flag of rec's list of flags in it), 0 when not, -1 for another shape. */
static int tk_withheld(PyObject *hide, PyObject *rec) {
    if (PySet_GET_SIZE(hide) == 0)
        return 0;
    PyObject *flags = PyDict_GetItemWithError(rec, s_flags);
    if (flags == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyList_CheckExact(flags))
        return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(flags); i++) {
        int in = PySet_Contains(hide, PyList_GET_ITEM(flags, i));
        if (in != 0)
            return in < 0 ? -1 : 1;
    }
    return 0;
}

static int tk_offsets(PyObject *node_type, PyObject *ref_type) {
    if (tk_types[0] == node_type && tk_types[1] == ref_type)
        return 0;
    if (member_offsets(node_type, tk_node_fields, tk_no) < 0 || member_offsets(ref_type, ref_fields, tk_ro) < 0)
        return -1;
    Py_XSETREF(tk_types[0], Py_NewRef(node_type));
    Py_XSETREF(tk_types[1], Py_NewRef(ref_type));
    return 0;
}

/* The result part of rec's parts: the one r's block names, else the first whose "k" is "result" (*p borrowed, NULL
 * when none): 1, 0 for another shape. */
static int tk_result_part(PyObject *r, PyObject *parts, PyObject **p) {
    if (!tk_block(r, parts, p))
        return 0;
    if (*p != NULL || parts == NULL)
        return 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parts); i++) {
        PyObject *q = PyList_GET_ITEM(parts, i), *k;
        if (!PyDict_CheckExact(q) || (k = PyDict_GetItemWithError(q, s_k)) == NULL)
            return 0;
        int eq = PyObject_RichCompareBool(k, s_result, Py_EQ);
        if (eq < 0)
            return 0;
        if (eq) {
            *p = q;
            return 1;
        }
    }
    return 1;
}

/* The result's shown text (a new reference, "" when none) of part p as _tool_keys writes it, NULL with no error for
 * another shape or a part with data and no text (the Python writes that one, with result_from), NULL with an error on
 * error. */
static PyObject *tk_text(PyObject *p, Py_ssize_t short_text, PyObject *clip, PyObject *data_text) {
    (void)data_text;
    PyObject *text = PyDict_GetItemWithError(p, s_text), *out;
    if (text == NULL && PyErr_Occurred())
        return NULL;
    if (text != NULL && text != Py_None && !PyUnicode_CheckExact(text))
        return NULL;
    if (text != NULL && text != Py_None && PyUnicode_GET_LENGTH(text))
        out = Py_NewRef(text);
    else {
        PyObject *data = PyDict_GetItemWithError(p, s_data);
        if (data == NULL && PyErr_Occurred())
            return NULL;
        if (data != NULL && data != Py_None) /* a result from its data: the Python adds result_from (trial 31b F4) */
            return NULL;
        out = Py_NewRef(s_empty);
        if (out == NULL || !PyUnicode_CheckExact(out)) {
            Py_XDECREF(out);
            return NULL;
        }
    }
    if (PyUnicode_GET_LENGTH(out) > short_text)
        Py_SETREF(out, PyObject_CallOneArg(clip, out));
    return out;
}

static PyObject *tool_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 12 || !PyDict_CheckExact(args[1]) || !PyDict_CheckExact(args[2]) || !PyDict_CheckExact(args[3]) ||
        !PyLong_CheckExact(args[7])) {
        PyErr_SetString(PyExc_TypeError, "tool_keys(n, d, records, times, hide, step_changes, step_executions, "
                                         "short_text, clip_text, data_text, node_type, ref_type)");
        return NULL;
    }
    PyObject *n = args[0], *d = args[1], *records = args[2], *times = args[3], *hide = args[4];
    PyObject *changes = args[5], *executions = args[6], *clip = args[8], *data_text = args[9];
    Py_ssize_t short_text = PyLong_AsSsize_t(args[7]);
    if (short_text < 0 || !PyAnySet_Check(hide) || !PyDict_CheckExact(changes) || !PyDict_CheckExact(executions) ||
        tk_offsets(args[10], args[11]) < 0 || (PyObject *)Py_TYPE(n) != args[10]) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *nid = FIELD(n, tk_no[T_ID]), *ref = FIELD(n, tk_no[T_REF]), *refs = FIELD(n, tk_no[T_REFS]);
    PyObject *attrs = FIELD(n, tk_no[T_ATTRS]);
    if (nid == NULL || !PyUnicode_CheckExact(nid) || ref == NULL || refs == NULL || !PyList_CheckExact(refs) ||
        PyList_GET_SIZE(refs) > 2 || attrs == NULL || !PyDict_CheckExact(attrs))
        Py_RETURN_NONE;
    static PyObject **keys[TK_KEYS] = {&s_name, &s_failed, &s_result, &s_result_state, &s_result_bytes, &s_rtr_ms,
                                       &s_rtr_join, &s_changes, &s_executions};
    PyObject *val[TK_KEYS] = {NULL}; /* new references, the keys' values in order (NULL: not written) */
    for (int i = 0; i < TK_KEYS; i++) {
        int in = PyDict_Contains(d, *keys[i]);
        if (in != 0)
            goto none;
    }
    Py_ssize_t nr = PyList_GET_SIZE(refs);
    PyObject *first = nr ? PyList_GET_ITEM(refs, 0) : ref, *req = NULL, *rec, *parts;
    if (first != Py_None && (PyObject *)Py_TYPE(first) != tk_types[1])
        goto none;
    if (first != Py_None && FIELD(first, tk_ro[R_BLOCK]) != Py_None) { /* the part the first ref names */
        if (tk_record(records, first, &rec) != 1 || (rec != NULL && (tk_parts(rec, &parts) != 1 ||
                                                                     tk_block(first, parts, &req) != 1)))
            goto none;
    }
    PyObject *name = PyDict_GetItemWithError(attrs, s_name), *failed = NULL;
    int t = name == NULL ? (PyErr_Occurred() ? -1 : 0) : PyObject_IsTrue(name);
    if (t < 0)
        goto none;
    if (!t && req != NULL) {
        name = PyDict_GetItemWithError(req, s_name);
        if ((t = name == NULL ? (PyErr_Occurred() ? -1 : 0) : PyObject_IsTrue(name)) < 0)
            goto none;
    }
    if (t)
        val[0] = Py_NewRef(name);
    if (req != NULL && (failed = PyDict_GetItemWithError(req, s_failed)) == NULL && PyErr_Occurred())
        goto none;
    if (failed == Py_None)
        failed = NULL;
    PyObject *second = nr == 2 ? PyList_GET_ITEM(refs, 1) : NULL, *p = NULL;
    if (second != NULL) { /* the result */
        if (tk_record(records, second, &rec) != 1 || (rec != NULL && (tk_parts(rec, &parts) != 1 ||
                                                                      tk_result_part(second, parts, &p) != 1)))
            goto none;
    }
    if (p != NULL) {
        PyObject *f = failed == NULL ? PyDict_GetItemWithError(p, s_failed) : NULL, *x;
        if (f == NULL && PyErr_Occurred())
            goto none;
        if (f != NULL && f != Py_None)
            failed = f;
        if (tk_withheld(hide, rec) != 0)
            goto none;
        if ((x = PyDict_GetItemWithError(rec, s_dropped)) == NULL && PyErr_Occurred())
            goto none;
        if (x != NULL && PyObject_IsTrue(x) != 0) /* dropped: its companion keys are the Python's */
            goto none;
        PyObject *text = tk_text(p, short_text, clip, data_text);
        if (text == NULL)
            goto none;
        if (PyUnicode_GET_LENGTH(text))
            val[2] = text;
        else
            Py_DECREF(text);
        x = PyDict_GetItemWithError(p, s_state);
        val[3] = Py_NewRef(x ? x : s_available);
        x = x == NULL && PyErr_Occurred() ? NULL : PyDict_GetItemWithError(p, s_bytes);
        if (PyErr_Occurred())
            goto none;
        val[4] = Py_NewRef(x ? x : s_zero);
    }
    if (failed != NULL)
        val[1] = Py_NewRef(failed);
    PyObject *join = second == NULL ? NULL : PyDict_GetItemWithError(attrs, s_result_join);
    if (join == NULL && PyErr_Occurred())
        goto none;
    if (join != NULL && (t = PyObject_RichCompareBool(join, s_exact_unique, Py_EQ)) != 0) {
        PyObject *t0, *t1;
        if (t < 0 || !tk_time(times, first, &t0) || !tk_time(times, second, &t1))
            goto none;
        if (t0 != NULL && t1 != NULL && (t = PyObject_RichCompareBool(t1, t0, Py_GE)) != 0) {
            PyObject *diff = t < 0 ? NULL : PyNumber_Subtract(t1, t0);
            PyObject *ms = diff == NULL ? NULL : PyNumber_FloorDivide(diff, s_million);
            Py_XDECREF(diff);
            if (ms == NULL || (t = PyObject_IsTrue(ms)) < 0) {
                Py_XDECREF(ms);
                goto none;
            }
            if (t)
                val[5] = ms;
            else
                Py_DECREF(ms);
            val[6] = Py_NewRef(s_exact_unique);
        }
    }
    if (PyDict_GET_SIZE(changes) || PyDict_GET_SIZE(executions)) {
        Py_ssize_t slash = PyUnicode_FindChar(nid, '/', 0, PyUnicode_GET_LENGTH(nid), 1);
        PyObject *tool_id = slash == -2 ? NULL : slash < 0 ? Py_NewRef(s_empty) :
                            PyUnicode_Substring(nid, slash + 1, PyUnicode_GET_LENGTH(nid));
        for (int i = 0; tool_id != NULL && i < 2; i++) {
            PyObject *got = PyDict_GetItemWithError(i ? executions : changes, tool_id);
            if (got == NULL && PyErr_Occurred())
                Py_CLEAR(tool_id);
            else if (got != NULL && (t = PyObject_IsTrue(got)) != 0) {
                if (t < 0)
                    Py_CLEAR(tool_id);
                else
                    val[7 + i] = Py_NewRef(got);
            }
        }
        if (tool_id == NULL)
            goto none;
        Py_DECREF(tool_id);
    }
    /* decided: the keys in _tool_keys' order */
    int rc = 0;
    for (int i = 0; i < TK_KEYS; i++) {
        if (val[i] != NULL && rc == 0)
            rc = PyDict_SetItem(d, *keys[i], val[i]);
        Py_XDECREF(val[i]);
    }
    if (rc < 0)
        return NULL;
    Py_RETURN_TRUE;
none: /* d untouched: the Python draws this tool */
    PyErr_Clear();
    for (int i = 0; i < TK_KEYS; i++)
        Py_XDECREF(val[i]);
    Py_RETURN_NONE;
}

/* asz_core/view/nodes.py's NodeView._steps_in_order (issue 22, session 18): the step nodes under nid (a node whose kind is
 * in step_kinds, found down children: {id: [node_type, ...]}, as _steps_under walks it) in the order of their rank
 * ({id: int}), those of equal rank in the order the walk met them (sorted's stability). None when a node is not an
 * exact node_type, a children entry not a list, or a rank not an int the size of a long long (the caller runs its
 * Python, which gives the same or raises the same). */
static PyObject *ts_type;
static Py_ssize_t ts_no[2];
static const char *const ts_fields[] = {"id", "kind", NULL};

typedef struct {
    long long rank;
    Py_ssize_t at;
} ts_key;

static int ts_cmp(const void *a, const void *b) {
    const ts_key *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank ? 1 : (x->at > y->at) - (x->at < y->at);
}

/* Push list kids's items on the stack (grown as needed): 0, -1 on error. */
static int ts_push(PyObject ***stack, Py_ssize_t *n, Py_ssize_t *cap, PyObject *kids) {
    Py_ssize_t k = PyList_GET_SIZE(kids);
    if (*n + k > *cap) {
        Py_ssize_t want = (*n + k) * 2 + 16;
        PyObject **grown = PyMem_Realloc(*stack, want * sizeof(PyObject *));
        if (grown == NULL)
            return -1;
        *stack = grown;
        *cap = want;
    }
    for (Py_ssize_t i = 0; i < k; i++)
        (*stack)[(*n)++] = PyList_GET_ITEM(kids, i);
    return 0;
}

static PyObject *talk_steps(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyDict_CheckExact(args[1]) || !PyDict_CheckExact(args[2]) || !PyAnySet_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "talk_steps(nid, children, rank, step_kinds, node_type)");
        return NULL;
    }
    PyObject *children = args[1], *rank = args[2], *kinds = args[3];
    if (ts_type != args[4]) {
        if (member_offsets(args[4], ts_fields, ts_no) < 0) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        Py_XSETREF(ts_type, Py_NewRef(args[4]));
    }
    PyObject **stack = NULL, *out = NULL, *kids;
    Py_ssize_t n = 0, cap = 0, kept = 0, kept_cap = 0;
    ts_key *keys = NULL;
    PyObject **steps = NULL;
    if ((kids = PyDict_GetItemWithError(children, args[0])) == NULL && PyErr_Occurred())
        goto none;
    if (kids != NULL && (!PyList_CheckExact(kids) || ts_push(&stack, &n, &cap, kids) < 0))
        goto none;
    while (n) {
        PyObject *c = stack[--n];
        if ((PyObject *)Py_TYPE(c) != ts_type)
            goto none;
        PyObject *id = FIELD(c, ts_no[0]), *kind = FIELD(c, ts_no[1]);
        if (id == NULL || kind == NULL)
            goto none;
        int step = PySet_Contains(kinds, kind);
        if (step < 0)
            goto none;
        if (step) {
            PyObject *r = PyDict_GetItemWithError(rank, id);
            if (r == NULL || !PyLong_CheckExact(r))
                goto none;
            int overflow;
            long long v = PyLong_AsLongLongAndOverflow(r, &overflow);
            if (overflow || (v == -1 && PyErr_Occurred()))
                goto none;
            if (kept == kept_cap) {
                kept_cap = kept_cap * 2 + 64;
                ts_key *k2 = PyMem_Realloc(keys, kept_cap * sizeof(ts_key));
                if (k2 == NULL)
                    goto none;
                keys = k2;
                PyObject **s2 = PyMem_Realloc(steps, kept_cap * sizeof(PyObject *));
                if (s2 == NULL)
                    goto none;
                steps = s2;
            }
            keys[kept].rank = v;
            keys[kept].at = kept;
            steps[kept++] = c;
        }
        if ((kids = PyDict_GetItemWithError(children, id)) == NULL && PyErr_Occurred())
            goto none;
        if (kids != NULL && (!PyList_CheckExact(kids) || ts_push(&stack, &n, &cap, kids) < 0))
            goto none;
    }
    if (kept > 1)
        qsort(keys, kept, sizeof(ts_key), ts_cmp);
    if ((out = PyList_New(kept)) != NULL)
        for (Py_ssize_t i = 0; i < kept; i++)
            PyList_SET_ITEM(out, i, Py_NewRef(steps[keys[i].at]));
    PyMem_Free(stack);
    PyMem_Free(keys);
    PyMem_Free(steps);
    return out;
none:
    PyErr_Clear();
    PyMem_Free(stack);
    PyMem_Free(keys);
    PyMem_Free(steps);
    Py_RETURN_NONE;
}

/* slim_of(r, record_type, part_type, usage_type, raw_type, dropped_type, record_ts) -> asz_core/sessiondata/slim.py's slim_of_record(r)
 * for the usual record (issue 22, session 19: the index line landing carries, made without a Python call a field):
 * r an exact record_type whose 15 role fields, cwd, git_branch, runtime_version and request are str, ord, off, bytes
 * and replaced ints in 0..2**63-1, flags a list of str, dropped a list of exact dropped_type (what and why str, bytes
 * an int in 0..2**63-1), usage None or an exact usage_type of
 * ints in the signed 64-bit range, parts a list of exact part_type whose k is a non-empty str, every other string
 * field a str, failed None, True or False, bytes an int in 0..2**63-1, and no data part the Python would decode (a
 * raw_type whose bytes start with '{' and hold "schema" or a \u escape, or a dict naming "schema"). The dict, in
 * slim_of_record's key order (the role fields that are not empty, ts when record_ts(time) is not None, o, flags,
 * usage, parts, sc when sidechain is True); None for any other record (the caller runs its Python, which decides). */
enum { SR_ID, SR_PARENT, SR_CALL, SR_RUN, SR_CONTINUES, SR_TOOL, SR_CHILD, SR_BATCH, SR_LABEL, SR_STARTED_BY, SR_FROM,
       SR_TIME, SR_TRIGGER, SR_MODEL, SR_SHA, SR_ROLES, SR_CWD = SR_ROLES, SR_GIT_BRANCH, SR_RUNTIME_VERSION,
       SR_REQUEST, SR_STRS, SR_ORD = SR_STRS, SR_OFF, SR_BYTES, SR_REPLACED, SR_FLAGS, SR_USAGE, SR_PARTS, SR_DROPPED,
       SR_SIDECHAIN, SR_FIELDS };
static const char *const sr_record_fields[] = {"id", "parent", "call", "run", "continues", "tool", "child", "batch",
    "label", "started_by", "from_", "time", "trigger", "model", "sha", "cwd", "git_branch", "runtime_version",
    "request", "ord", "off", "bytes", "replaced", "flags", "usage", "parts", "dropped", "sidechain", NULL};
static const char *const sr_role_keys[] = {"id", "parent", "call", "run", "continues", "tool", "child", "batch",
    "label", "started_by", "from", "time", "trigger", "model", "sha", NULL};
enum { SP_K, SP_ID, SP_OF, SP_NAME, SP_SERVER, SP_SERVER_TOOL, SP_NAMES, SP_TEXT = SP_NAMES, SP_MEDIA, SP_ENCODING,
       SP_STATE, SP_SHA256, SP_STRS, SP_FAILED = SP_STRS, SP_BYTES, SP_DATA, SP_FIELDS };
static const char *const sr_part_fields[] = {"k", "id", "of", "name", "server", "server_tool", "text", "media",
    "encoding", "state", "sha256", "failed", "bytes", "data", NULL};
static const char *const sr_usage_fields[] = {"in_", "out", "cache_read", "cache_write", "cache_write_1h", NULL};
static const char *const sr_usage_keys[] = {"in", "out", "cache_read", "cache_write", "cache_write_1h", NULL};
static const char *const sr_raw_fields[] = {"raw", NULL};
static const char *const sr_dropped_fields[] = {"what", "why", "bytes", NULL};
static PyObject *sr_types[5];
static Py_ssize_t sr_ro[SR_FIELDS], sr_po[SP_FIELDS], sr_uo[5], sr_rawo[1], sr_do[3];
static PyObject *sr_role_objs[SR_ROLES], *sr_usage_objs[5], *sr_part_objs[SP_NAMES], *s_ts, *s_o, *s_schema, *s_sc;

/* 1 when v is an exact int in the signed 64-bit range (and >= 0 when unsigned_), 0 when not, -1 on error. */
static int sr_int(PyObject *v, int unsigned_) {
    if (v == NULL || !PyLong_CheckExact(v))
        return 0;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    return overflow == 0 && (!unsigned_ || x >= 0);
}
#define sr_u64(v) sr_int((v), 1)
#define sr_i64(v) sr_int((v), 0)

/* 1 when a data part's value is one the Python reads (decodes) for its manifest keys, 0 when it adds nothing, -1 on
 * error. */
static int sr_data_read(PyObject *data) {
    if ((PyObject *)Py_TYPE(data) == sr_types[3]) {
        PyObject *raw = FIELD(data, sr_rawo[0]);
        if (raw == NULL || !PyBytes_CheckExact(raw))
            return 1;
        const char *b = PyBytes_AS_STRING(raw);
        Py_ssize_t n = PyBytes_GET_SIZE(raw);
        return n > 0 && b[0] == '{' && (memmem(b, n, "\"schema\"", 8) != NULL || memmem(b, n, "\\u", 2) != NULL);
    }
    if (PyDict_Check(data))
        return PyDict_CheckExact(data) ? PyDict_Contains(data, s_schema) : 1;
    return 0;
}

/* The slim dict of part p (new reference), Py_None (borrowed) for a part of another shape, NULL on error. */
static PyObject *sr_part(PyObject *p) {
    if ((PyObject *)Py_TYPE(p) != sr_types[1])
        return Py_None;
    PyObject *v[SP_FIELDS];
    for (int i = 0; i < SP_FIELDS; i++)
        if ((v[i] = FIELD(p, sr_po[i])) == NULL)
            return Py_None;
    for (int i = 0; i < SP_STRS; i++)
        if (!PyUnicode_CheckExact(v[i]))
            return Py_None;
    if (PyUnicode_GET_LENGTH(v[SP_K]) == 0 || (v[SP_FAILED] != Py_None && v[SP_FAILED] != Py_True &&
                                               v[SP_FAILED] != Py_False))
        return Py_None;
    int ok = sr_u64(v[SP_BYTES]);
    if (ok <= 0)
        return ok < 0 ? NULL : Py_None;
    if (v[SP_DATA] != Py_None && PyUnicode_CompareWithASCIIString(v[SP_K], "data") == 0) {
        int read = sr_data_read(v[SP_DATA]);
        if (read != 0)
            return read < 0 ? NULL : Py_None;
    }
    PyObject *sp = PyDict_New();
    if (sp == NULL)
        return NULL;
    for (int i = 0; i < SP_NAMES; i++)
        if (PyUnicode_GET_LENGTH(v[i]) > 0 && PyDict_SetItem(sp, sr_part_objs[i], v[i]) < 0)
            goto fail;
    if (v[SP_FAILED] != Py_None && PyDict_SetItem(sp, s_failed, v[SP_FAILED]) < 0)
        goto fail;
    if (PyDict_SetItem(sp, s_bytes, v[SP_BYTES]) < 0)
        goto fail;
    return sp;
fail:
    Py_DECREF(sp);
    return NULL;
}

static int sr_setup(PyObject *const *types) {
    for (int i = 0; i < 5; i++)
        if (sr_types[i] != types[i])
            goto again;
    return 0;
again:
    for (int i = 0; i < 5; i++)
        sr_types[i] = NULL;
    if (member_offsets(types[0], sr_record_fields, sr_ro) < 0 || member_offsets(types[1], sr_part_fields, sr_po) < 0 ||
        member_offsets(types[2], sr_usage_fields, sr_uo) < 0 || member_offsets(types[3], sr_raw_fields, sr_rawo) < 0 ||
        member_offsets(types[4], sr_dropped_fields, sr_do) < 0)
        return -1;
    for (int i = 0; i < 5; i++)
        sr_types[i] = types[i]; /* borrowed: the model's classes live as long as the process */
    return 0;
}

static PyObject *slim_of(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "slim_of(r, record_type, part_type, usage_type, raw_type, dropped_type, record_ts)");
        return NULL;
    }
    PyObject *r = args[0], *record_ts = args[6];
    if (sr_setup(args + 1) < 0 || (PyObject *)Py_TYPE(r) != sr_types[0])
        Py_RETURN_NONE;
    PyObject *v[SR_FIELDS];
    for (int i = 0; i < SR_FIELDS; i++)
        if ((v[i] = FIELD(r, sr_ro[i])) == NULL)
            Py_RETURN_NONE;
    for (int i = 0; i < SR_STRS; i++)
        if (!PyUnicode_CheckExact(v[i]))
            Py_RETURN_NONE;
    for (int i = SR_ORD; i <= SR_REPLACED; i++) {
        int ok = sr_u64(v[i]);
        if (ok <= 0) {
            if (ok < 0)
                return NULL;
            Py_RETURN_NONE;
        }
    }
    PyObject *flags = v[SR_FLAGS], *usage = v[SR_USAGE], *parts = v[SR_PARTS], *dropped = v[SR_DROPPED];
    if (!PyList_CheckExact(flags) || !PyList_CheckExact(parts) || !PyList_CheckExact(dropped) ||
        (usage != Py_None && (PyObject *)Py_TYPE(usage) != sr_types[2]))
        Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(dropped); i++) {
        PyObject *x = PyList_GET_ITEM(dropped, i), *what, *why;
        if ((PyObject *)Py_TYPE(x) != sr_types[4] || (what = FIELD(x, sr_do[0])) == NULL || !PyUnicode_CheckExact(what) ||
            (why = FIELD(x, sr_do[1])) == NULL || !PyUnicode_CheckExact(why))
            Py_RETURN_NONE;
        int ok = sr_u64(FIELD(x, sr_do[2]));
        if (ok <= 0) {
            if (ok < 0)
                return NULL;
            Py_RETURN_NONE;
        }
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(flags); i++)
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(flags, i)))
            Py_RETURN_NONE;
    PyObject *counts[5] = {NULL};
    int any_count = 0;
    if (usage != Py_None)
        for (int i = 0; i < 5; i++) {
            int ok = sr_i64(counts[i] = FIELD(usage, sr_uo[i]));
            if (ok <= 0) {
                if (ok < 0)
                    return NULL;
                Py_RETURN_NONE;
            }
            int truth = PyObject_IsTrue(counts[i]);
            if (truth < 0)
                return NULL;
            any_count |= truth;
        }
    Py_ssize_t np = PyList_GET_SIZE(parts);
    PyObject *out = NULL, *slim = np ? PyList_New(np) : NULL;
    if (np && slim == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *sp = sr_part(PyList_GET_ITEM(parts, i));
        if (sp == NULL)
            goto fail;
        if (sp == Py_None) {
            Py_DECREF(slim);
            Py_RETURN_NONE;
        }
        PyList_SET_ITEM(slim, i, sp);
    }
    if ((out = PyDict_New()) == NULL)
        goto fail;
    for (int i = 0; i < SR_ROLES; i++)
        if (PyUnicode_GET_LENGTH(v[i]) > 0 && PyDict_SetItem(out, sr_role_objs[i], v[i]) < 0)
            goto fail;
    if (PyUnicode_GET_LENGTH(v[SR_TIME]) > 0) {
        PyObject *ts = PyObject_CallOneArg(record_ts, v[SR_TIME]);
        if (ts == NULL)
            goto fail;
        int bad = ts != Py_None && PyDict_SetItem(out, s_ts, ts) < 0;
        Py_DECREF(ts);
        if (bad)
            goto fail;
    }
    if (PyDict_SetItem(out, s_o, v[SR_ORD]) < 0)
        goto fail;
    if (PyList_GET_SIZE(flags) > 0) {
        PyObject *copy = PyList_GetSlice(flags, 0, PyList_GET_SIZE(flags));
        int bad = copy == NULL || PyDict_SetItem(out, s_flags, copy) < 0;
        Py_XDECREF(copy);
        if (bad)
            goto fail;
    }
    if (any_count) {
        PyObject *u = PyDict_New();
        if (u == NULL)
            goto fail;
        for (int i = 0; i < 5; i++) {
            int truth = PyObject_IsTrue(counts[i]);
            if (truth < 0 || (truth && PyDict_SetItem(u, sr_usage_objs[i], counts[i]) < 0)) {
                Py_DECREF(u);
                goto fail;
            }
        }
        int bad = PyDict_SetItem(out, s_usage, u) < 0;
        Py_DECREF(u);
        if (bad)
            goto fail;
    }
    if (np && PyDict_SetItem(out, s_parts, slim) < 0)
        goto fail;
    /* sc last, when the record says sidechain (slim.SIDECHAIN_KEY, index schema 7) */
    if (v[SR_SIDECHAIN] == Py_True && PyDict_SetItem(out, s_sc, Py_True) < 0)
        goto fail;
    Py_XDECREF(slim);
    return out;
fail:
    Py_XDECREF(slim);
    Py_XDECREF(out);
    return NULL;
}

/* record_line(r, record_type, part_type, usage_type, raw_type, dropped_type): codec.encode_record_py(r) in one call
 * (origin-digest §3.3 key order, empty fields left out; strings as orjson writes them, with U+2028 and U+2029 escaped,
 * a raw_type's bytes verbatim), the bytes of the line without its newline. None for anything the Python writes in a
 * way this does not (it then decides, raising where it raises): a record, part, usage or dropped entry not of the
 * exact type given, a string field that is not a str or None, an integer that is not an exact int in the signed 64-bit
 * range, a string holding a lone surrogate, and in a part's data a float, a tuple, a subclass, a dict key that is not
 * a str, a raw_type whose raw is not bytes, or nesting deeper than RL_DEPTH, a sidechain that is neither True nor
 * False. */
#define RL_DEPTH 200
typedef struct {
    PyObject *out; /* a bytes object written into and resized; NULL once failed */
    Py_ssize_t len, cap;
    int refused; /* 1: the Python writes this record (None), 0: written, -1: a Python error is set */
} rl_buf;

static unsigned char rl_attn[256]; /* 1 for a byte a JSON string escapes (or the lead byte of U+2028/U+2029) */

static char *rl_room(rl_buf *b, Py_ssize_t n) {
    if (b->len + n > b->cap) {
        Py_ssize_t cap = b->cap * 2 > b->len + n ? b->cap * 2 : b->len + n + 256;
        if (_PyBytes_Resize(&b->out, cap) < 0) {
            b->refused = -1;
            return NULL;
        }
        b->cap = cap;
    }
    return PyBytes_AS_STRING(b->out) + b->len;
}

static int rl_put(rl_buf *b, const char *s, Py_ssize_t n) {
    char *p = rl_room(b, n);
    if (p == NULL)
        return -1;
    memcpy(p, s, n);
    b->len += n;
    return 0;
}
#define RL_LIT(b, s) rl_put((b), (s), (Py_ssize_t)sizeof(s) - 1)

static int rl_refuse(rl_buf *b) {
    if (b->refused == 0)
        b->refused = 1;
    return -1;
}

/* 1 when one of the 16 bytes at u needs a look: below 0x20, '"', '\\' or 0xE2 (the lead byte of U+2028/U+2029). */
#ifdef __SSE2__
static int rl_attn16(const char *u) {
    __m128i x = _mm_loadu_si128((const __m128i *)u);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                             _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xE2)),
                                          _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1F)), x)));
    return _mm_movemask_epi8(m) != 0;
}
#endif

/* A str as orjson writes it ("\b\t\n\f\r\"\\" by name, other bytes below 0x20 as \u00xx, everything else as its UTF-8)
 * with U+2028 and U+2029 as \u2028 and \u2029 (encode_value); a string holding a lone surrogate is refused (orjson
 * raises on it). */
static int rl_str(rl_buf *b, PyObject *s) {
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) {
        PyErr_Clear();
        return rl_refuse(b);
    }
    if (RL_LIT(b, "\"") < 0)
        return -1;
    Py_ssize_t i = 0, run = 0;
    while (i < n) {
#ifdef __SSE2__
        while (i + 16 <= n && !rl_attn16(u + i))
            i += 16;
#endif
        while (i < n && !rl_attn[(unsigned char)u[i]])
            i++;
        if (i >= n)
            break;
        unsigned char c = (unsigned char)u[i];
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        Py_ssize_t k = 2;
        if (c == 0xE2) {
            if (!(i + 2 < n && (unsigned char)u[i + 1] == 0x80 && ((unsigned char)u[i + 2] & 0xFE) == 0xA8)) {
                i++;
                continue;
            }
            k = 6, memcpy(esc, (unsigned char)u[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
        } else if (c == '"' || c == '\\')
            esc[1] = (char)c;
        else if (c == '\b')
            esc[1] = 'b';
        else if (c == '\t')
            esc[1] = 't';
        else if (c == '\n')
            esc[1] = 'n';
        else if (c == '\f')
            esc[1] = 'f';
        else if (c == '\r')
            esc[1] = 'r';
        else
            k = 6, memcpy(esc, "\\u00", 4), esc[4] = "0123456789abcdef"[c >> 4], esc[5] = "0123456789abcdef"[c & 15];
        if (rl_put(b, u + run, i - run) < 0 || rl_put(b, esc, k) < 0)
            return -1;
        i += c == 0xE2 ? 3 : 1;
        run = i;
    }
    return rl_put(b, u + run, n - run) < 0 || RL_LIT(b, "\"") < 0 ? -1 : 0;
}

/* An exact int in the signed 64-bit range in decimal; anything else refused. */
static int rl_int(rl_buf *b, PyObject *v) {
    if (v == NULL || !PyLong_CheckExact(v))
        return rl_refuse(b);
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) {
        b->refused = -1;
        return -1;
    }
    if (overflow)
        return rl_refuse(b);
    char num[24];
    int k = snprintf(num, sizeof num, "%lld", x);
    return rl_put(b, num, k);
}

/* 1 when v is written (a str that is not empty), 0 when left out (None or ""), -1 refused (another type). */
static int rl_present(rl_buf *b, PyObject *v) {
    if (v == Py_None)
        return 0;
    if (v == NULL || !PyUnicode_CheckExact(v))
        return rl_refuse(b);
    return PyUnicode_GET_LENGTH(v) > 0;
}

/* ,"key":"value" when the str field v is not empty (None and "" left out). */
static int rl_key_str(rl_buf *b, const char *key, Py_ssize_t klen, PyObject *v) {
    int there = rl_present(b, v);
    if (there <= 0)
        return there;
    return rl_put(b, key, klen) < 0 || rl_str(b, v) < 0 ? -1 : 0;
}
#define RL_KEY_STR(b, key, v) rl_key_str((b), (key), (Py_ssize_t)sizeof(key) - 1, (v))

/* A part's data: any JSON value (raw_type verbatim), as orjson.dumps with raw_fragment writes it. */
static int rl_value(rl_buf *b, PyObject *v, int depth) {
    if (depth > RL_DEPTH)
        return rl_refuse(b);
    if (PyUnicode_CheckExact(v))
        return rl_str(b, v);
    if ((PyObject *)Py_TYPE(v) == sr_types[3]) {
        PyObject *raw = FIELD(v, sr_rawo[0]);
        if (raw == NULL || !PyBytes_CheckExact(raw))
            return rl_refuse(b);
        return rl_put(b, PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw));
    }
    if (v == Py_None)
        return RL_LIT(b, "null");
    if (v == Py_True)
        return RL_LIT(b, "true");
    if (v == Py_False)
        return RL_LIT(b, "false");
    if (PyLong_CheckExact(v))
        return rl_int(b, v);
    if (PyList_CheckExact(v)) {
        if (RL_LIT(b, "[") < 0)
            return -1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++)
            if ((i && RL_LIT(b, ",") < 0) || rl_value(b, PyList_GET_ITEM(v, i), depth + 1) < 0)
                return -1;
        return RL_LIT(b, "]");
    }
    if (PyDict_CheckExact(v)) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        int first = 1;
        if (RL_LIT(b, "{") < 0)
            return -1;
        while (PyDict_Next(v, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key))
                return rl_refuse(b);
            if ((!first && RL_LIT(b, ",") < 0) || rl_str(b, key) < 0 || RL_LIT(b, ":") < 0 ||
                rl_value(b, value, depth + 1) < 0)
                return -1;
            first = 0;
        }
        return RL_LIT(b, "}");
    }
    return rl_refuse(b); /* a float, a tuple, a subclass, …: the Python's */
}

/* codec._part_dict(p) written: k, text, data, id, of, name, server, server_tool, failed, media, encoding, state,
 * bytes, sha256. */
static int rl_part(rl_buf *b, PyObject *p) {
    if ((PyObject *)Py_TYPE(p) != sr_types[1])
        return rl_refuse(b);
    PyObject *v[SP_FIELDS];
    for (int i = 0; i < SP_FIELDS; i++)
        if ((v[i] = FIELD(p, sr_po[i])) == NULL)
            return rl_refuse(b);
    if (!PyUnicode_CheckExact(v[SP_K]))
        return rl_refuse(b);
    if (RL_LIT(b, "{\"k\":") < 0 || rl_str(b, v[SP_K]) < 0 || RL_KEY_STR(b, ",\"text\":", v[SP_TEXT]) < 0)
        return -1;
    if (v[SP_DATA] != Py_None && (RL_LIT(b, ",\"data\":") < 0 || rl_value(b, v[SP_DATA], 4) < 0))
        return -1;
    if (RL_KEY_STR(b, ",\"id\":", v[SP_ID]) < 0 || RL_KEY_STR(b, ",\"of\":", v[SP_OF]) < 0 ||
        RL_KEY_STR(b, ",\"name\":", v[SP_NAME]) < 0 || RL_KEY_STR(b, ",\"server\":", v[SP_SERVER]) < 0 ||
        RL_KEY_STR(b, ",\"server_tool\":", v[SP_SERVER_TOOL]) < 0)
        return -1;
    PyObject *failed = v[SP_FAILED];
    if (failed != Py_None && failed != Py_True && failed != Py_False)
        return rl_refuse(b);
    if ((failed == Py_True && RL_LIT(b, ",\"failed\":true") < 0) ||
        (failed == Py_False && RL_LIT(b, ",\"failed\":false") < 0))
        return -1;
    if (RL_KEY_STR(b, ",\"media\":", v[SP_MEDIA]) < 0 || RL_KEY_STR(b, ",\"encoding\":", v[SP_ENCODING]) < 0 ||
        RL_KEY_STR(b, ",\"state\":", v[SP_STATE]) < 0 || RL_LIT(b, ",\"bytes\":") < 0 || rl_int(b, v[SP_BYTES]) < 0 ||
        RL_KEY_STR(b, ",\"sha256\":", v[SP_SHA256]) < 0)
        return -1;
    return RL_LIT(b, "}");
}

static const char *const rl_usage_keys[] = {"\"in\":", "\"out\":", "\"cache_read\":", "\"cache_write\":",
                                            "\"cache_write_1h\":"};

/* ,"usage":{…} of the counts that are not zero, left out when every count is zero. */
static int rl_usage(rl_buf *b, PyObject *u) {
    if (u == Py_None)
        return 0;
    if ((PyObject *)Py_TYPE(u) != sr_types[2])
        return rl_refuse(b);
    PyObject *c[5];
    int any = 0;
    for (int i = 0; i < 5; i++) {
        c[i] = FIELD(u, sr_uo[i]);
        if (c[i] == NULL || !PyLong_CheckExact(c[i]))
            return rl_refuse(b);
        any |= _PyLong_Sign(c[i]) != 0;
    }
    if (!any)
        return 0;
    if (RL_LIT(b, ",\"usage\":{") < 0)
        return -1;
    int first = 1;
    for (int i = 0; i < 5; i++) {
        if (_PyLong_Sign(c[i]) == 0)
            continue;
        if ((!first && RL_LIT(b, ",") < 0) || rl_put(b, rl_usage_keys[i], strlen(rl_usage_keys[i])) < 0 ||
            rl_int(b, c[i]) < 0)
            return -1;
        first = 0;
    }
    return RL_LIT(b, "}");
}

/* ,"dropped":[{"what":…,"bytes":N[,"why":…]},…] when the list is not empty. */
static int rl_dropped(rl_buf *b, PyObject *dropped) {
    if (!PyList_CheckExact(dropped))
        return rl_refuse(b);
    Py_ssize_t n = PyList_GET_SIZE(dropped);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyList_GET_ITEM(dropped, i), *what;
        if ((PyObject *)Py_TYPE(x) != sr_types[4] || (what = FIELD(x, sr_do[0])) == NULL || !PyUnicode_CheckExact(what))
            return rl_refuse(b);
        if ((i ? RL_LIT(b, ",{\"what\":") : RL_LIT(b, ",\"dropped\":[{\"what\":")) < 0 || rl_str(b, what) < 0 ||
            RL_LIT(b, ",\"bytes\":") < 0 || rl_int(b, FIELD(x, sr_do[2])) < 0 ||
            RL_KEY_STR(b, ",\"why\":", FIELD(x, sr_do[1])) < 0 || RL_LIT(b, "}") < 0)
            return -1;
    }
    return n ? RL_LIT(b, "]") : 0;
}

/* ,"sidechain":true for a record whose sidechain is True, nothing for False; any other value is the Python's. */
static int rl_sidechain(rl_buf *b, PyObject *v) {
    if (v == Py_False)
        return 0;
    return v == Py_True ? RL_LIT(b, ",\"sidechain\":true") : rl_refuse(b);
}

/* Everything of the record but its parts, dropped entries and replaced count, in key order. */
static int rl_head(rl_buf *b, PyObject *const *v) {
    static const char *const role_keys[] = {",\"id\":", ",\"parent\":", ",\"call\":", ",\"run\":", ",\"continues\":",
        ",\"tool\":", ",\"child\":", ",\"batch\":", ",\"label\":", ",\"started_by\":", ",\"from\":", ",\"time\":",
        ",\"trigger\":"};
    if (RL_LIT(b, "{\"ord\":") < 0 || rl_int(b, v[SR_ORD]) < 0 || RL_LIT(b, ",\"off\":") < 0 ||
        rl_int(b, v[SR_OFF]) < 0 || RL_KEY_STR(b, ",\"sha\":", v[SR_SHA]) < 0 || RL_LIT(b, ",\"bytes\":") < 0 ||
        rl_int(b, v[SR_BYTES]) < 0)
        return -1;
    for (int i = SR_ID; i <= SR_TRIGGER; i++)
        if (rl_key_str(b, role_keys[i], strlen(role_keys[i]), v[i]) < 0)
            return -1;
    PyObject *flags = v[SR_FLAGS];
    if (!PyList_CheckExact(flags))
        return rl_refuse(b);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(flags); i++) {
        PyObject *f = PyList_GET_ITEM(flags, i);
        if (!PyUnicode_CheckExact(f))
            return rl_refuse(b);
        if ((i ? RL_LIT(b, ",") : RL_LIT(b, ",\"flags\":[")) < 0 || rl_str(b, f) < 0)
            return -1;
    }
    if ((PyList_GET_SIZE(flags) && RL_LIT(b, "]") < 0) || rl_usage(b, v[SR_USAGE]) < 0)
        return -1;
    return RL_KEY_STR(b, ",\"model\":", v[SR_MODEL]) < 0 || RL_KEY_STR(b, ",\"cwd\":", v[SR_CWD]) < 0 ||
                   RL_KEY_STR(b, ",\"git_branch\":", v[SR_GIT_BRANCH]) < 0 ||
                   RL_KEY_STR(b, ",\"runtime_version\":", v[SR_RUNTIME_VERSION]) < 0 ||
                   RL_KEY_STR(b, ",\"request\":", v[SR_REQUEST]) < 0
               ? -1
               : rl_sidechain(b, v[SR_SIDECHAIN]);
}

static int rl_record(rl_buf *b, PyObject *r) {
    PyObject *v[SR_FIELDS];
    for (int i = 0; i < SR_FIELDS; i++)
        if ((v[i] = FIELD(r, sr_ro[i])) == NULL)
            return rl_refuse(b);
    if (rl_head(b, v) < 0)
        return -1;
    PyObject *parts = v[SR_PARTS];
    if (!PyList_CheckExact(parts))
        return rl_refuse(b);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parts); i++)
        if ((i ? RL_LIT(b, ",") : RL_LIT(b, ",\"parts\":[")) < 0 || rl_part(b, PyList_GET_ITEM(parts, i)) < 0)
            return -1;
    if ((PyList_GET_SIZE(parts) && RL_LIT(b, "]") < 0) || rl_dropped(b, v[SR_DROPPED]) < 0)
        return -1;
    PyObject *replaced = v[SR_REPLACED];
    if (replaced == NULL || !PyLong_CheckExact(replaced))
        return rl_refuse(b);
    if (_PyLong_Sign(replaced) != 0 && (RL_LIT(b, ",\"replaced\":") < 0 || rl_int(b, replaced) < 0))
        return -1;
    return RL_LIT(b, "}");
}

/* With record_ts as a seventh argument (slim_of's arguments): (line, slim_of(…)) in one call, the batch loop's two
 * calls a record landed, or None when the line is the Python's. */
static PyObject *record_line(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 && nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "record_line(r, record_type, part_type, usage_type, raw_type, dropped_type[, record_ts])");
        return NULL;
    }
    PyObject *types[5] = {args[1], args[2], args[3], args[4], args[5]};
    if (sr_setup(types) < 0 || (PyObject *)Py_TYPE(args[0]) != sr_types[0])
        Py_RETURN_NONE;
    rl_buf b = {PyBytes_FromStringAndSize(NULL, 1024), 0, 1024, 0};
    if (b.out == NULL)
        return NULL;
    if (rl_record(&b, args[0]) < 0) {
        Py_XDECREF(b.out);
        if (b.refused < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    if (_PyBytes_Resize(&b.out, b.len) < 0)
        return NULL;
    if (nargs == 6)
        return b.out;
    PyObject *slim = slim_of(self, args, nargs);
    if (slim == NULL) {
        Py_DECREF(b.out);
        return NULL;
    }
    PyObject *both = PyTuple_Pack(2, b.out, slim);
    Py_DECREF(b.out);
    Py_DECREF(slim);
    return both;
}

/* draw_node(ctx, n, depth) -> dict: asz_core/view/nodes.py's NodeView.node for the usual node (issue 22, session 26:
 * the node drawing was the build's largest Python left, 17,136 nodes of the bench session), and for its children
 * down to depth 12. ctx is the tuple NodeView._drawing makes (the view's maps, kind sets, types and bound methods,
 * in dn_ctx's order). The envelope, ref(s), attrs, a step's text from the part its block names, a record's flags, a
 * call's and a tool's keys (call_keys, tool_keys above) and the edges are written here, in node()'s key order; each
 * piece of another shape is handed to the Python method that defines it (_talk_keys, _content, _record_keys,
 * _call_keys_py, _tool_keys_py, _node_extras: media and later copies), and a node whose own fields are of another
 * shape (a node, ref, attrs, record list or record that is not the exact type) is drawn by _node_py from the start.
 * An error a Python method raises is raised as it raised it. None when ctx is not that tuple (the caller draws it). */
enum { DC_AT, DC_AT_FN, DC_RECORDS, DC_HIDE, DC_NO_TEXT, DC_STRUCTURAL, DC_TOOL_KINDS, DC_NOT_CHILDREN, DC_CHILDREN,
       DC_EXTRAS_ON, DC_EDGES, DC_NODE_PY, DC_TALK_KEYS, DC_CONTENT, DC_CALL_KEYS_PY, DC_RECORD_KEYS, DC_TOOL_KEYS_PY,
       DC_EXTRAS, DC_PLACED, DC_CALL_USAGE, DC_UNVERIFIED, DC_WITHHOLDABLE, DC_LONG_ABOVE, DC_CU_TYPE, DC_NODE_TYPE,
       DC_REF_TYPE, DC_TIMES, DC_STEP_CHANGES, DC_STEP_EXECUTIONS, DC_SHORT_TEXT, DC_CLIP, DC_DATA_TEXT, DC_CUT_STATES,
       DC_WIDE, DC_DUMPS, DC_N };
static PyObject *dn_types[2];
static Py_ssize_t dn_no[7], dn_ro[R_FIELDS];
enum { D_ID, D_KIND, D_PARENT, D_STREAM, D_REF, D_REFS, D_ATTRS };
static const char *const dn_node_fields[] = {"id", "kind", "parent", "stream", "ref", "refs", "attrs", NULL};
static PyObject *s_kind, *s_at, *s_stream, *s_ref, *s_refs, *s_seq, *s_row, *s_block, *s_attrs, *s_talk,
    *s_children, *s_edges, *s_turn_duration, *s_placed_at;
#define DN_DEPTH 12

/* A node's dict, made with room for the usual step's keys (no resize while they are added). */
static PyObject *dn_new_dict(void) {
#if PY_VERSION_HEX < 0x030D0000
    return _PyDict_NewPresized(10);
#else
    return PyDict_New();
#endif
}

static int dn_offsets(PyObject *node_type, PyObject *ref_type) {
    if (dn_types[0] == node_type && dn_types[1] == ref_type)
        return 0;
    if (member_offsets(node_type, dn_node_fields, dn_no) < 0 || member_offsets(ref_type, ref_fields, dn_ro) < 0)
        return -1;
    Py_XSETREF(dn_types[0], Py_NewRef(node_type));
    Py_XSETREF(dn_types[1], Py_NewRef(ref_type));
    return 0;
}

/* {"seq": r.seq, "row": r.row[, "block": r.block]} (a new reference), NULL with no error when r is not an exact Ref
 * with its fields set, NULL with an error on error. */
static PyObject *dn_ref(PyObject *r) {
    if ((PyObject *)Py_TYPE(r) != dn_types[1])
        return NULL;
    PyObject *seq = FIELD(r, dn_ro[R_SEQ]), *row = FIELD(r, dn_ro[R_ROW]), *block = FIELD(r, dn_ro[R_BLOCK]);
    if (seq == NULL || row == NULL || block == NULL)
        return NULL;
    PyObject *d = PyDict_New();
    if (d == NULL || PyDict_SetItem(d, s_seq, seq) < 0 || PyDict_SetItem(d, s_row, row) < 0 ||
        (block != Py_None && PyDict_SetItem(d, s_block, block) < 0)) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

/* The attrs node() shows (a new reference; NULL with no error: none shown) in *out: 1, 0 for attrs of another shape
 * (not a dict, a key not a str), -1 on error. The fold's own dict when its keys are sorted already (nothing writes
 * to it), a copy in key order when not, without provider_bodies. */
static int dn_attrs(PyObject *attrs, PyObject **out) {
    *out = NULL;
    if (!PyDict_CheckExact(attrs))
        return 0;
    if (PyDict_GET_SIZE(attrs) == 0)
        return 1;
    PyObject *own = Py_NewRef(attrs), *key, *value, *prev = NULL;
    int in = PyDict_Contains(attrs, s_provider_bodies);
    if (in < 0)
        goto fail;
    if (in) {
        Py_SETREF(own, PyDict_Copy(attrs));
        if (own == NULL || PyDict_DelItem(own, s_provider_bodies) < 0)
            goto fail;
        if (PyDict_GET_SIZE(own) == 0) {
            Py_DECREF(own);
            return 1;
        }
    }
    Py_ssize_t pos = 0;
    int ordered = 1;
    while (PyDict_Next(own, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            Py_DECREF(own);
            return 0;
        }
        if (prev != NULL && ordered && PyUnicode_Compare(prev, key) > 0)
            ordered = 0;
        prev = key;
    }
    if (!ordered) {
        PyObject *keys = PyDict_Keys(own), *sorted = NULL;
        if (keys == NULL || PyList_Sort(keys) < 0 || (sorted = PyDict_New()) == NULL) {
            Py_XDECREF(keys);
            goto fail;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
            PyObject *k = PyList_GET_ITEM(keys, i), *v = PyDict_GetItemWithError(own, k);
            if (v == NULL || PyDict_SetItem(sorted, k, v) < 0) {
                Py_DECREF(keys);
                Py_DECREF(sorted);
                goto fail;
            }
        }
        Py_DECREF(keys);
        Py_SETREF(own, sorted);
    }
    *out = own;
    return 1;
fail:
    Py_XDECREF(own);
    return -1;
}

/* 1 when n's record is withheld (hide, a set, holds a flag of rec's list of flags), 0 when not, -1 for flags of
 * another shape or on error (the caller gives the node to the Python). */
static int dn_withheld(PyObject *hide, PyObject *rec) {
    if (PySet_GET_SIZE(hide) == 0 || rec == NULL)
        return 0;
    return tk_withheld(hide, rec);
}

/* data_text(data) of a dict or list: DATA_DUMPS' orjson.dumps(data, default=..., option=...) decoded as UTF-8 (a new
 * reference), NULL on error. */
static PyObject *dn_kwnames;
static PyObject *dn_dumps(PyObject *const *ctx, PyObject *data) {
    PyObject *dumps = ctx[DC_DUMPS];
    if (!PyTuple_CheckExact(dumps) || PyTuple_GET_SIZE(dumps) != 3)
        return PyObject_CallOneArg(ctx[DC_DATA_TEXT], data);
    if (dn_kwnames == NULL) { /* interned, as orjson compares the names by identity */
        PyObject *k0 = PyUnicode_InternFromString("default"), *k1 = PyUnicode_InternFromString("option");
        dn_kwnames = k0 == NULL || k1 == NULL ? NULL : PyTuple_Pack(2, k0, k1);
        Py_XDECREF(k0);
        Py_XDECREF(k1);
        if (dn_kwnames == NULL)
            return NULL;
    }
    PyObject *a[3] = {data, PyTuple_GET_ITEM(dumps, 1), PyTuple_GET_ITEM(dumps, 2)};
    PyObject *raw = PyObject_Vectorcall(PyTuple_GET_ITEM(dumps, 0), a, 1, dn_kwnames), *out;
    if (raw == NULL)
        return NULL;
    if (!PyBytes_CheckExact(raw)) {
        Py_DECREF(raw);
        PyErr_SetString(PyExc_TypeError, "orjson.dumps gave no bytes");
        return NULL;
    }
    out = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw), "strict");
    Py_DECREF(raw);
    return out;
}

/* node()'s step text from the part its block names (_content's first two branches, not withheld) written into d: 1
 * when written, 0 when the part is of another shape or one _content reads further (a part made smaller to land, a
 * session whose landed files may hold a wide number: its notes; the caller calls _content), -1 on error. The text is
 * the part's own, else its data written by data_text ("" for none), clipped by clip_text past short_text. */
static int dn_content(PyObject *const *ctx, PyObject *first, PyObject *rec, int withheld, PyObject *d) {
    PyObject *block = FIELD(first, dn_ro[R_BLOCK]);
    if (withheld || block == NULL || block == Py_None || !PyLong_CheckExact(block))
        return 0;
    PyObject *parts = PyDict_GetItemWithError(rec, s_parts);
    if (parts == NULL || !PyList_CheckExact(parts))
        return PyErr_Occurred() ? -1 : 0;
    Py_ssize_t b = PyLong_AsSsize_t(block);
    if (b == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (b < 0 || b >= PyList_GET_SIZE(parts))
        return 0;
    PyObject *p = PyList_GET_ITEM(parts, b), *text, *k, *state, *bytes, *shown = NULL;
    if (!PyDict_CheckExact(p))
        return 0;
    if ((text = PyDict_GetItemWithError(p, s_text)) == NULL && PyErr_Occurred())
        return -1;
    if (text == Py_None)
        text = NULL;
    if (text != NULL && !PyUnicode_CheckExact(text))
        return 0;
    if (text != NULL && PyUnicode_GET_LENGTH(text) == 0)
        text = NULL;
    if (text != NULL) { /* its own text, unless the part is of a kind the runtime's words did not name */
        if ((k = PyDict_GetItemWithError(p, s_k)) == NULL || !PyUnicode_CheckExact(k))
            return PyErr_Occurred() ? -1 : 0;
        if (PyUnicode_Compare(k, s_unknown) == 0)
            text = NULL;
    }
    if ((state = PyDict_GetItemWithError(p, s_state)) == NULL && PyErr_Occurred())
        return -1;
    if (state == NULL)
        state = s_available;
    if (!PyUnicode_CheckExact(state)) /* a state of another type (its hash or truth may run Python): _content */
        return 0;
    int cut = PySet_Contains(ctx[DC_CUT_STATES], state);
    if (cut != 0) { /* made smaller to land: _content adds its sha256 */
        PyErr_Clear();
        return 0;
    }
    if ((bytes = PyDict_GetItemWithError(p, s_bytes)) == NULL && PyErr_Occurred())
        return -1;
    if (bytes != NULL && bytes != Py_None && !PyLong_CheckExact(bytes))
        return 0;
    int has_bytes = bytes == NULL ? 0 : PyObject_IsTrue(bytes);
    if (has_bytes < 0)
        return -1;
    Py_ssize_t short_text = PyLong_AsSsize_t(ctx[DC_SHORT_TEXT]);
    if (short_text == -1 && PyErr_Occurred())
        return -1;
    int rc = -1;
    Py_INCREF(state); /* held: data_text and clip_text are Python, and may change the part */
    Py_XINCREF(bytes);
    if (text != NULL)
        shown = Py_NewRef(text);
    else { /* its data written out */
        PyObject *data = PyDict_GetItemWithError(p, s_data);
        if (data == NULL && PyErr_Occurred())
            goto done;
        if (data != NULL && data != Py_None) {
            int wide = PyObject_IsTrue(ctx[DC_WIDE]);
            if (wide != 0) { /* a number past 64 bits may be in it: _content writes its notes */
                rc = wide < 0 ? -1 : 0;
                goto done;
            }
            Py_INCREF(data);
            shown = PyUnicode_CheckExact(data) ? Py_NewRef(data) :
                    PyDict_CheckExact(data) || PyList_CheckExact(data) ? dn_dumps(ctx, data) :
                    PyObject_CallOneArg(ctx[DC_DATA_TEXT], data);
            Py_DECREF(data);
            if (shown == NULL)
                goto done;
            if (!PyUnicode_CheckExact(shown)) {
                Py_CLEAR(shown);
                rc = 0;
                goto done;
            }
        }
    }
    if (shown != NULL && PyUnicode_GET_LENGTH(shown) > short_text)
        Py_SETREF(shown, PyObject_CallOneArg(ctx[DC_CLIP], shown));
    else if (shown != NULL && PyUnicode_GET_LENGTH(shown) == 0)
        Py_CLEAR(shown);
    if ((shown == NULL && PyErr_Occurred()) || (shown != NULL && PyDict_SetItem(d, s_text, shown) < 0) ||
        PyDict_SetItem(d, s_state, state) < 0 || (has_bytes && PyDict_SetItem(d, s_bytes, bytes) < 0))
        goto done;
    rc = 1;
done:
    Py_XDECREF(shown);
    Py_DECREF(state);
    Py_XDECREF(bytes);
    return rc;
}

/* Call the bound method m with nargs arguments; 0, -1 on error (its result is dropped: the methods write into d). */
static int dn_call(PyObject *m, PyObject *const *args, size_t nargs) {
    PyObject *r = PyObject_Vectorcall(m, args, nargs, NULL);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* An llm.call's keys (_call_keys): 0, -1 on error. */
static int dn_call_keys(PyObject *const *ctx, PyObject *n, PyObject *nid, PyObject *d) {
    PyObject *cu = PyDict_GetItemWithError(ctx[DC_CALL_USAGE], nid), *placed;
    if (cu == NULL) { /* self.call_usage[n.id]'s KeyError, as _call_keys raises it */
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, nid);
        return -1;
    }
    Py_INCREF(cu);
    int rc = -1;
    if ((placed = PyDict_GetItemWithError(ctx[DC_PLACED], nid)) == NULL && PyErr_Occurred())
        goto done;
    if (placed != NULL && placed != Py_None && PyDict_SetItem(d, s_placed_at, placed) < 0)
        goto done;
    PyObject *a[11] = {n, d, cu, ctx[DC_RECORDS], ctx[DC_UNVERIFIED], ctx[DC_WITHHOLDABLE], ctx[DC_HIDE],
                       ctx[DC_LONG_ABOVE], ctx[DC_CU_TYPE], ctx[DC_NODE_TYPE], ctx[DC_REF_TYPE]};
    PyObject *got = call_keys(NULL, a, 11);
    if (got == NULL)
        goto done;
    Py_DECREF(got);
    if (got == Py_None) {
        PyObject *b[3] = {n, d, cu};
        if (dn_call(ctx[DC_CALL_KEYS_PY], b, 3) < 0)
            goto done;
    }
    rc = 0;
done:
    Py_DECREF(cu);
    return rc;
}

/* A tool node's keys (_tool_keys): 0, -1 on error. */
static int dn_tool_keys(PyObject *const *ctx, PyObject *n, PyObject *d) {
    Py_ssize_t had = PyDict_GET_SIZE(d);
    PyObject *a[12] = {n, d, ctx[DC_RECORDS], ctx[DC_TIMES], ctx[DC_HIDE], ctx[DC_STEP_CHANGES],
                       ctx[DC_STEP_EXECUTIONS], ctx[DC_SHORT_TEXT], ctx[DC_CLIP], ctx[DC_DATA_TEXT], ctx[DC_NODE_TYPE],
                       ctx[DC_REF_TYPE]};
    PyObject *got = tool_keys(NULL, a, 12);
    if (got == NULL)
        return -1;
    Py_DECREF(got);
    if (got != Py_None) {
        PyObject *state = PyDict_GetItemWithError(d, s_result_state);
        if (state == NULL && PyErr_Occurred())
            return -1;
        int cut = state == NULL ? 0 : PySet_Contains(ctx[DC_CUT_STATES], state);
        if (cut < 0)
            return -1;
        if (!cut && state != NULL && PyUnicode_CheckExact(state) && PyUnicode_CompareWithASCIIString(state, "removed") == 0) {
            cut = PyDict_GetItemWithError(d, s_result) != NULL; /* a skeleton's result keeping its runtime's fixed */
            if (!cut && PyErr_Occurred())                        /* wording: the Python draws it (kept_text) */
                return -1;
        }
        if (!cut)
            return 0;
        PyObject *keys = PyDict_Keys(d); /* the keys it added, taken back: the Python adds the result's sha256 */
        if (keys == NULL)
            return -1;
        for (Py_ssize_t i = had; i < PyList_GET_SIZE(keys); i++)
            if (PyDict_DelItem(d, PyList_GET_ITEM(keys, i)) < 0) {
                Py_DECREF(keys);
                return -1;
            }
        Py_DECREF(keys);
    }
    PyObject *b[2] = {n, d};
    return dn_call(ctx[DC_TOOL_KEYS_PY], b, 2);
}

static PyObject *dn_draw(PyObject *const *ctx, PyObject *n, long depth);

/* node()'s children of nid drawn into d (depth: nid's): 0, -1 on error. As the Python reads them: `if kids and
 * depth < 12: for c in kids` (kids' truth first, then an iterator: a list's size read again on every pass, as Python
 * it calls may change it; kids of no iterable type raise the TypeError the Python's loop raises). */
static int dn_children(PyObject *const *ctx, PyObject *nid, long depth, PyObject *d) {
    PyObject *kids = PyDict_GetItemWithError(ctx[DC_CHILDREN], nid);
    if (kids == NULL)
        return PyErr_Occurred() ? -1 : 0;
    Py_INCREF(kids);
    int any = PyObject_IsTrue(kids);
    if (any <= 0 || depth >= DN_DEPTH) {
        Py_DECREF(kids);
        return any < 0 ? -1 : 0;
    }
    PyObject *it = PyObject_GetIter(kids), *shown = NULL, *c;
    Py_DECREF(kids);
    if (it == NULL)
        return -1;
    while ((c = PyIter_Next(it)) != NULL) { /* a new reference: held while it is drawn */
        PyObject *kind, *one;
        if ((PyObject *)Py_TYPE(c) == dn_types[0] && (kind = FIELD(c, dn_no[D_KIND])) != NULL)
            Py_INCREF(kind);
        else if ((kind = PyObject_GetAttr(c, s_kind)) == NULL) {
            Py_DECREF(c);
            goto fail;
        }
        int skip = PySet_Contains(ctx[DC_NOT_CHILDREN], kind);
        Py_DECREF(kind);
        one = skip ? NULL : dn_draw(ctx, c, depth + 1);
        Py_DECREF(c);
        if (skip < 0 || (!skip && one == NULL))
            goto fail;
        if (skip)
            continue;
        int rc = (shown == NULL && (shown = PyList_New(0)) == NULL) ? -1 : PyList_Append(shown, one);
        Py_DECREF(one);
        if (rc < 0)
            goto fail;
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        Py_XDECREF(shown);
        return -1;
    }
    if (shown == NULL)
        return 0;
    int rc = PyDict_SetItem(d, s_children, shown);
    Py_DECREF(shown);
    return rc;
fail:
    Py_DECREF(it);
    Py_XDECREF(shown);
    return -1;
}

/* _node_py(n, depth): the Python's drawing of a node this file does not draw. */
static PyObject *dn_python(PyObject *const *ctx, PyObject *n, long depth) {
    PyObject *dep = PyLong_FromLong(depth);
    if (dep == NULL)
        return NULL;
    PyObject *a[2] = {n, dep}, *got = PyObject_Vectorcall(ctx[DC_NODE_PY], a, 2, NULL);
    Py_DECREF(dep);
    return got;
}

static PyObject *dn_draw(PyObject *const *ctx, PyObject *n, long depth) {
    if ((PyObject *)Py_TYPE(n) != dn_types[0])
        return dn_python(ctx, n, depth);
    PyObject *v[7];
    for (int i = 0; i < 7; i++)
        if ((v[i] = FIELD(n, dn_no[i])) == NULL)
            return dn_python(ctx, n, depth);
    PyObject *nid = v[D_ID], *kind = v[D_KIND], *ref = v[D_REF], *refs = v[D_REFS];
    if (!PyUnicode_CheckExact(nid) || !PyUnicode_CheckExact(kind) || !PyList_CheckExact(refs) ||
        (ref != Py_None && (PyObject *)Py_TYPE(ref) != dn_types[1]))
        return dn_python(ctx, n, depth);
    /* What is read from here on is held: the lookups below may run Python (a key's __hash__ or __eq__), and the
     * Python called further on (at, _talk_keys, _content, …) may change the node, its record or the maps */
    PyObject *first = ref != Py_None ? ref : PyList_GET_SIZE(refs) ? PyList_GET_ITEM(refs, 0) : NULL, *rec = NULL;
    for (int i = 0; i < 7; i++)
        Py_INCREF(v[i]);
    Py_XINCREF(first);
    PyObject *attrs = NULL, *d = NULL, *ms = NULL, *ref_d = NULL, *refs_d = NULL;
    /* the node's own fields and record, decided before anything is written */
    if (first != NULL) {
        int got = tk_record(ctx[DC_RECORDS], first, &rec); /* a ref of another type, a record list or record */
        Py_XINCREF(rec);
        if (got <= 0)
            goto shape;
    }
    int withheld = dn_withheld(ctx[DC_HIDE], rec);
    if (withheld < 0)
        goto shape;
    int got = dn_attrs(v[D_ATTRS], &attrs);
    if (got < 0)
        goto fail;
    if (got == 0)
        goto shape;
    if (ref != Py_None && (ref_d = dn_ref(ref)) == NULL)
        goto shape;
    /* refs read again: the lookups above may have run Python */
    Py_ssize_t nr = PyList_GET_SIZE(refs);
    if (nr && (refs_d = PyList_New(nr)) == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < nr; i++) {
        PyObject *one = dn_ref(PyList_GET_ITEM(refs, i));
        if (one == NULL)
            goto shape;
        PyList_SET_ITEM(refs_d, i, one);
    }
    /* the envelope */
    if ((ms = PyDict_GetItemWithError(ctx[DC_AT], nid)) != NULL && ms != Py_None)
        Py_INCREF(ms);
    else if (PyErr_Occurred() || (ms = PyObject_CallOneArg(ctx[DC_AT_FN], n)) == NULL)
        goto fail;
    int has_parent = PyObject_IsTrue(v[D_PARENT]), has_stream = has_parent < 0 ? -1 : PyObject_IsTrue(v[D_STREAM]);
    if (has_stream < 0 || (d = dn_new_dict()) == NULL || PyDict_SetItem(d, s_id, nid) < 0 ||
        PyDict_SetItem(d, s_kind, kind) < 0 || (has_parent && PyDict_SetItem(d, s_parent, v[D_PARENT]) < 0) ||
        (has_stream && PyDict_SetItem(d, s_stream, v[D_STREAM]) < 0) || PyDict_SetItem(d, s_at, ms) < 0 ||
        (ref_d != NULL && PyDict_SetItem(d, s_ref, ref_d) < 0) || (refs_d != NULL && PyDict_SetItem(d, s_refs, refs_d) < 0) ||
        (attrs != NULL && PyDict_SetItem(d, s_attrs, attrs) < 0))
        goto fail;
    int t = PyUnicode_Compare(kind, s_talk) == 0;
    if (t) {
        PyObject *a[2] = {n, d};
        if (dn_call(ctx[DC_TALK_KEYS], a, 2) < 0)
            goto fail;
    }
    PyObject *wobj = withheld ? Py_True : Py_False;
    if (rec != NULL && (t = PySet_Contains(ctx[DC_NO_TEXT], kind)) == 0) { /* a step's text */
        got = dn_content(ctx, first, rec, withheld, d);
        if (got == 0) {
            PyObject *a[5] = {n, first, rec, wobj, d};
            got = dn_call(ctx[DC_CONTENT], a, 5) < 0 ? -1 : 1;
        }
        if (got < 0)
            goto fail;
    }
    if (t < 0)
        goto fail;
    t = 0;
    if (PyUnicode_Compare(kind, s_llm_call) == 0) {
        if (dn_call_keys(ctx, n, nid, d) < 0)
            goto fail;
    } else if (rec != NULL && (t = PySet_Contains(ctx[DC_STRUCTURAL], kind)) == 0) { /* _record_keys */
        PyObject *flags, *dropped;
        if ((flags = PyDict_GetItemWithError(rec, s_flags)) == NULL && PyErr_Occurred())
            goto fail;
        if ((dropped = PyDict_GetItemWithError(rec, s_dropped)) == NULL && PyErr_Occurred())
            goto fail;
        /* a list's truth runs no Python (flags stays read); dropped of another type: _record_keys reads it */
        int has_dropped = dropped == NULL || dropped == Py_None ? 0 : !PyList_CheckExact(dropped) ? 1 :
                          PyList_GET_SIZE(dropped) > 0, tool;
        /* a record that says sidechain (a sub-agent's line in its parent's file): _record_keys marks an orphan one */
        int side = PyDict_Contains(rec, s_sidechain);
        if (side < 0)
            goto fail;
        if (has_dropped || side || (flags != NULL && flags != Py_None && !PyList_CheckExact(flags)) ||
            (!withheld && PyUnicode_Compare(kind, s_turn_duration) == 0)) {
            PyObject *a[5] = {n, kind, rec, wobj, d};
            if (dn_call(ctx[DC_RECORD_KEYS], a, 5) < 0)
                goto fail;
        } else {
            if (flags != NULL && flags != Py_None && PyList_GET_SIZE(flags)) {
                PyObject *copy = PyList_GetSlice(flags, 0, PyList_GET_SIZE(flags));
                int rc = copy == NULL ? -1 : PyDict_SetItem(d, s_flags, copy);
                Py_XDECREF(copy);
                if (rc < 0)
                    goto fail;
            }
            if ((tool = PySet_Contains(ctx[DC_TOOL_KINDS], kind)) < 0 || (tool && dn_tool_keys(ctx, n, d) < 0))
                goto fail;
        }
    } else if (t < 0) {
        goto fail;
    } else if ((t = PySet_Contains(ctx[DC_TOOL_KINDS], kind)) != 0) {
        if (t < 0 || dn_tool_keys(ctx, n, d) < 0)
            goto fail;
    }
    if (dn_children(ctx, nid, depth, d) < 0)
        goto fail;
    if (ctx[DC_EXTRAS_ON] == Py_True) { /* media, later copies and conflicts */
        PyObject *a[2] = {nid, d};
        if (dn_call(ctx[DC_EXTRAS], a, 2) < 0)
            goto fail;
    }
    PyObject *edges = PyDict_GetItemWithError(ctx[DC_EDGES], nid);
    if (edges == NULL && PyErr_Occurred())
        goto fail;
    Py_XINCREF(edges); /* held: its truth may run Python */
    t = edges == NULL ? 0 : PyObject_IsTrue(edges);
    t = t <= 0 ? t : PyDict_SetItem(d, s_edges, edges);
    Py_XDECREF(edges);
    if (t < 0)
        goto fail;
    goto done;
shape: /* a field, ref, record or attrs of another shape: the Python draws the node (nothing is written yet) */
    PyErr_Clear();
    d = dn_python(ctx, n, depth);
    goto done;
fail:
    Py_CLEAR(d);
done:
    Py_XDECREF(ms);
    Py_XDECREF(attrs);
    Py_XDECREF(ref_d);
    Py_XDECREF(refs_d);
    for (int i = 0; i < 7; i++)
        Py_DECREF(v[i]);
    Py_XDECREF(first);
    Py_XDECREF(rec);
    return d;
}

static PyObject *draw_node(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyTuple_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "draw_node(ctx, n, depth)");
        return NULL;
    }
    if (!PyLong_CheckExact(args[2])) /* a depth of another type (a bool, a float): the caller's Python draws it */
        Py_RETURN_NONE;
    PyObject *const *ctx = &PyTuple_GET_ITEM(args[0], 0);
    long depth = PyLong_AsLong(args[2]);
    if (PyTuple_GET_SIZE(args[0]) != DC_N || (depth == -1 && PyErr_Occurred()) || depth < 0 ||
        !PyDict_CheckExact(ctx[DC_AT]) || !PyDict_CheckExact(ctx[DC_RECORDS]) || !PyAnySet_CheckExact(ctx[DC_HIDE]) ||
        !PyFrozenSet_CheckExact(ctx[DC_NO_TEXT]) || !PyFrozenSet_CheckExact(ctx[DC_STRUCTURAL]) ||
        !PyFrozenSet_CheckExact(ctx[DC_TOOL_KINDS]) || !PyFrozenSet_CheckExact(ctx[DC_NOT_CHILDREN]) ||
        !PyFrozenSet_CheckExact(ctx[DC_CUT_STATES]) || !PyDict_CheckExact(ctx[DC_CHILDREN]) ||
        !PyDict_CheckExact(ctx[DC_EDGES]) || !PyDict_CheckExact(ctx[DC_PLACED]) ||
        !PyDict_CheckExact(ctx[DC_CALL_USAGE]) || !PyLong_CheckExact(ctx[DC_SHORT_TEXT]) ||
        dn_offsets(ctx[DC_NODE_TYPE], ctx[DC_REF_TYPE]) < 0 || tk_offsets(ctx[DC_NODE_TYPE], ctx[DC_REF_TYPE]) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return dn_draw(ctx, args[1], depth);
}

static PyMethodDef methods[] = {
    {"draw_node", (PyCFunction)(void (*)(void))draw_node, METH_FASTCALL,
     "draw_node(ctx, n, depth) -> NodeView.node's dict of n (ctx: NodeView._drawing's tuple), or None."},
    {"record_line", (PyCFunction)(void (*)(void))record_line, METH_FASTCALL,
     "record_line(r, record_type, part_type, usage_type, raw_type, dropped_type[, record_ts]) -> "
     "codec.encode_record_py(r) (bytes) for a record of the model's own classes holding what the codec writes this "
     "way, or None (the caller runs its Python); with record_ts, (that line, slim_of(r, …)) or None."},
    {"slim_of", (PyCFunction)(void (*)(void))slim_of, METH_FASTCALL,
     "slim_of(r, record_type, part_type, usage_type, raw_type, dropped_type, record_ts) -> slim.slim_of_record(r) for the usual "
     "record, or None (the caller runs its Python)."},
    {"talk_steps", (PyCFunction)(void (*)(void))talk_steps, METH_FASTCALL,
     "talk_steps(nid, children, rank, step_kinds, node_type) -> NodeView._steps_in_order' list (the steps under nid "
     "in rank order), or None."},
    {"tool_keys", (PyCFunction)(void (*)(void))tool_keys, METH_FASTCALL,
     "tool_keys(n, d, records, times, hide, step_changes, step_executions, short_text, clip_text, data_text, "
     "node_type, ref_type) -> True when StepKeys._tool_keys' keys were added to d, else None (d untouched)."},
    {"call_keys", (PyCFunction)(void (*)(void))call_keys, METH_FASTCALL,
     "call_keys(n, d, cu, records, unverified, withholdable, hide, long_above, call_usage_type, node_type, ref_type) "
     "-> True when StepKeys._call_keys' keys were added to d, else None (d untouched)."},
    {"by_kind", (PyCFunction)(void (*)(void))by_kind, METH_FASTCALL,
     "by_kind(nodes, node_type) -> ViewBase.of_kind's {kind: [node, ...]}, or None."},
    {"talk_counts", (PyCFunction)(void (*)(void))talk_counts, METH_FASTCALL,
     "talk_counts(n, runs, steps, at, tool_kinds, node_type) -> a talk's (tools, first, last, tail), or None."},
    {"usage_pairs", (PyCFunction)(void (*)(void))usage_pairs, METH_FASTCALL,
     "usage_pairs(calls, call_usage_type, no_model, long_above) -> usage_totals' loop over usual calls, or None."},
    {"order_nodes", (PyCFunction)(void (*)(void))order_nodes, METH_FASTCALL,
     "order_nodes(nodes, times, at, node_type, ref_type) -> (rank, children) of ViewBase's index, or None."},
    {"cited_by", (PyCFunction)(void (*)(void))cited_by, METH_FASTCALL,
     "cited_by(nodes, containers, node_type, ref_type) -> coverage.cited_by's {(seq, row): least id}, or None."},
    {"node_lines", (PyCFunction)(void (*)(void))node_lines, METH_FASTCALL,
     "node_lines(lines, start, decode, not_read, loads, null, line_type, node_type, ref_type, revision, through, nodes, "
     "node_ids) -> (stop, bytes read): a run of node frames read as round_read's node_line reads them."},
    {"call_usages", (PyCFunction)(void (*)(void))call_usages, METH_FASTCALL,
     "call_usages(nodes, records, times, streams, lanes, unverified, call_usage, slow, node_type, ref_type, "
     "usage_count_dropped) -> "
     "{id: CallUsage} of ViewBase's call usage, or None."},
    {"header_values", header_values, METH_O,
     "header_values(line) -> Header's 11 field values (tuple, in its order) of a header line as the sd/1 writer "
     "writes it, or None: what codec.decode_header decodes before its check_header."},
    {"closing_values", closing_values, METH_O,
     "closing_values(line) -> (records, digest) of a closing line as the sd/1 writer writes it, or None: what "
     "codec.decode_closing returns."},
    {"cursor_values", cursor_values, METH_O,
     "cursor_values(data) -> the values of a cursor written as write_cursor writes it (dict), or None: "
     "asz_core.storage.cursor._written_values_py's, over bytes that are printable ASCII, spaces and newlines."},
    {"split_lines", (PyCFunction)(void (*)(void))split_lines, METH_FASTCALL,
     "split_lines(data, start, stop) -> data[start:stop].split(b'\\n')[:-1] (data[stop - 1] a newline)."},
    {"decode_lines", (PyCFunction)(void (*)(void))decode_lines, METH_FASTCALL,
     "decode_lines(lines, start, loads, bad, clear, instant, cache, recs, times, ids, parents, ords[, deep]) -> where it stopped."},
    {"scan_parts", (PyCFunction)(void (*)(void))scan_parts, METH_FASTCALL,
     "scan_parts(files, content_kinds) -> (listed, media, content) of LandedSession._scan_parts, or None."},
    {"scan", scan, METH_O,
     "scan(data) -> (may hold a wide number, most '{' and '[' on one line, holds b'null'): one pass over a buffer."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "bytescan",
                                    "The whole-file byte scans of a landed file in one pass (numberprobe.scan_file).",
                                    -1, methods};

PyMODINIT_FUNC PyInit_bytescan(void) {
    init_tables();
    if (!(s_time = PyUnicode_InternFromString("time")) || !(s_id = PyUnicode_InternFromString("id")) ||
        !(s_parent = PyUnicode_InternFromString("parent")) || !(s_ord = PyUnicode_InternFromString("ord")) ||
        !(s_dropped = PyUnicode_InternFromString("dropped")) || !(s_parts = PyUnicode_InternFromString("parts")) ||
        !(s_k = PyUnicode_InternFromString("k")) || !(s_state = PyUnicode_InternFromString("state")) ||
        !(s_media = PyUnicode_InternFromString("media")) || !(s_data = PyUnicode_InternFromString("data")) ||
        !(s_unknown = PyUnicode_InternFromString("unknown")) || !(s_truncated = PyUnicode_InternFromString("truncated")) ||
        !(s_too_large = PyUnicode_InternFromString("too_large")) ||
        !(s_llm_call = PyUnicode_InternFromString("llm.call")) || !(s_usage = PyUnicode_InternFromString("usage")) ||
        !(s_observed = PyUnicode_InternFromString("observed_replayable")) ||
        !(s_request = PyUnicode_InternFromString("request")) ||
        !(s_sidechain = PyUnicode_InternFromString("sidechain")) || !(s_model = PyUnicode_InternFromString("model")) ||
        !(s_flags = PyUnicode_InternFromString("flags")) || !(s_synthetic = PyUnicode_InternFromString("synthetic")) ||
        !(s_final = PyUnicode_InternFromString("final")) || !(s_last_seen = PyUnicode_InternFromString("last_seen")) ||
        !(s_empty = PyUnicode_InternFromString("")) || !(s_count_keys[0] = PyUnicode_InternFromString("in")) ||
        !(s_count_keys[1] = PyUnicode_InternFromString("out")) ||
        !(s_count_keys[2] = PyUnicode_InternFromString("cache_read")) ||
        !(s_count_keys[3] = PyUnicode_InternFromString("cache_write")) ||
        !(s_cache_write_1h = PyUnicode_InternFromString("cache_write_1h")) || !(s_zero = PyLong_FromLong(0)) ||
        !(s_what = PyUnicode_InternFromString("what")) || !(s_node = PyUnicode_InternFromString("node")) ||
        !(s_provider_bodies = PyUnicode_InternFromString("provider_bodies")) ||
        !(s_last_place = PyLong_FromLongLong(1LL << 62)) || !(s_minus_one = PyLong_FromLong(-1)) ||
        !(s_million = PyLong_FromLong(1000000)) || !(s_main = PyUnicode_InternFromString("main")) ||
        !(s_subagent = PyUnicode_InternFromString("subagent")) || !(s_long_context = PyUnicode_InternFromString("long_context")) ||
        !(s_usage_state = PyUnicode_InternFromString("usage_state")) ||
        !(s_usage_incomplete = PyUnicode_InternFromString("usage_incomplete")) ||
        !(s_name = PyUnicode_InternFromString("name")) || !(s_failed = PyUnicode_InternFromString("failed")) ||
        !(s_result = PyUnicode_InternFromString("result")) ||
        !(s_result_state = PyUnicode_InternFromString("result_state")) ||
        !(s_result_bytes = PyUnicode_InternFromString("result_bytes")) ||
        !(s_rtr_ms = PyUnicode_InternFromString("request_to_result_ms")) ||
        !(s_rtr_join = PyUnicode_InternFromString("request_to_result_join")) ||
        !(s_exact_unique = PyUnicode_InternFromString("exact_unique")) ||
        !(s_result_join = PyUnicode_InternFromString("result_join")) ||
        !(s_changes = PyUnicode_InternFromString("changes")) ||
        !(s_executions = PyUnicode_InternFromString("executions")) ||
        !(s_available = PyUnicode_InternFromString("available")) || !(s_bytes = PyUnicode_InternFromString("bytes")) ||
        !(s_text = PyUnicode_InternFromString("text")) || !(s_kind = PyUnicode_InternFromString("kind")) ||
        !(s_at = PyUnicode_InternFromString("at")) || !(s_stream = PyUnicode_InternFromString("stream")) ||
        !(s_ref = PyUnicode_InternFromString("ref")) || !(s_refs = PyUnicode_InternFromString("refs")) ||
        !(s_seq = PyUnicode_InternFromString("seq")) || !(s_row = PyUnicode_InternFromString("row")) ||
        !(s_block = PyUnicode_InternFromString("block")) || !(s_attrs = PyUnicode_InternFromString("attrs")) ||
        !(s_talk = PyUnicode_InternFromString("talk")) || !(s_children = PyUnicode_InternFromString("children")) ||
        !(s_edges = PyUnicode_InternFromString("edges")) ||
        !(s_turn_duration = PyUnicode_InternFromString("turn.duration")) ||
        !(s_placed_at = PyUnicode_InternFromString("placed_at")))
        return NULL;
    for (int i = 0; cursor_keys[i] != NULL; i++)
        if (!(cursor_key_objs[i] = PyUnicode_InternFromString(cursor_keys[i])))
            return NULL;
    for (int i = 0; i < SR_ROLES; i++)
        if (!(sr_role_objs[i] = PyUnicode_InternFromString(sr_role_keys[i])))
            return NULL;
    for (int i = 0; i < 5; i++)
        if (!(sr_usage_objs[i] = PyUnicode_InternFromString(sr_usage_keys[i])))
            return NULL;
    for (int i = 0; i < SP_NAMES; i++)
        if (!(sr_part_objs[i] = PyUnicode_InternFromString(sr_part_fields[i])))
            return NULL;
    if (!(s_ts = PyUnicode_InternFromString("ts")) || !(s_o = PyUnicode_InternFromString("o")) ||
        !(s_schema = PyUnicode_InternFromString("schema")) || !(s_sc = PyUnicode_InternFromString("sc")))
        return NULL;
    for (int c = 0; c < 0x20; c++)
        rl_attn[c] = 1;
    rl_attn['"'] = rl_attn['\\'] = rl_attn[0xE2] = 1;
    return with_source_digest(PyModule_Create(&module));
}
