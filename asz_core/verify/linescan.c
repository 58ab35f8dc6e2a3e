/* asz_core.verify.linescan: every record line's positions read in one call (issue 22, docs/verify.md "How fast").
 *
 * The compiled half of the scan of asz_core/verify/landed.py (_whole). It accepts exactly the lines that scan's
 * per-line loop accepts, and nothing else: a record line begins with the prefix the sd/1 writer puts first
 * (seed 000, Record), as the regular expression landed._PREFIX matches it with the line's end as its end,
 *
 *     {"ord":N,"off":N,"sha":"<12 lowercase hex>","bytes":N  then ',' or '}'
 *
 * where each N is 0 or 1 to 18 digits without a leading zero, and the line's last byte is '}'. On the first line
 * that is not so, it stops and says which; the caller then reads the whole file the exact Python way, so every
 * odd line gets the reader's own result and wording. Nothing here decides that a file is whole: the caller
 * checks the digest and the closing count as before.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* One record line's positions, as its prefix writes them; sha points into the caller's buffer (12 bytes). */
typedef struct {
    int64_t ord, off, size;
    const char *sha;
} line_pos;

/* A number as the prefix allows it: "0", or 1 to 18 digits not starting with '0'. Returns the byte after it, or
 * NULL when there is none such before end (no digit, a 19th digit, a leading zero: then the regular expression's
 * next literal, which never starts with a digit, cannot match either). */
static const char *number(const char *p, const char *end, int64_t *out) {
    const char *q = p;
    int64_t v = 0;
    while (q < end && q - p < 18 && *q >= '0' && *q <= '9') {
        v = v * 10 + (*q - '0'); /* at most 18 digits: below 10^18, no overflow */
        q++;
    }
    Py_ssize_t n = q - p;
    if (n == 0 || (q < end && *q >= '0' && *q <= '9') || (n > 1 && *p == '0'))
        return NULL;
    *out = v;
    return q;
}

static int is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

#define LIT(p, end, s) ((end) - (p) >= (Py_ssize_t)(sizeof(s) - 1) && memcmp((p), (s), sizeof(s) - 1) == 0)

/* The line [p, nl) read into *got; 0 when it is not a line the Python loop accepts. */
static int read_line(const char *p, const char *nl, line_pos *got) {
    const char *line = p;
    if (!LIT(p, nl, "{\"ord\":"))
        return 0;
    p += 7;
    if ((p = number(p, nl, &got->ord)) == NULL || !LIT(p, nl, ",\"off\":"))
        return 0;
    p += 7;
    if ((p = number(p, nl, &got->off)) == NULL || !LIT(p, nl, ",\"sha\":\""))
        return 0;
    p += 8;
    if (nl - p < 12)
        return 0;
    for (int i = 0; i < 12; i++)
        if (!is_hex(p[i]))
            return 0;
    got->sha = p;
    p += 12;
    if (!LIT(p, nl, "\",\"bytes\":"))
        return 0;
    p += 10;
    if ((p = number(p, nl, &got->size)) == NULL || p >= nl || (*p != ',' && *p != '}'))
        return 0;
    return nl > line && nl[-1] == '}'; /* the object ends on the line's last byte */
}

static PyObject *sha_str(const char *sha) {
    PyObject *s = PyUnicode_New(12, 127);
    if (s != NULL)
        memcpy(PyUnicode_1BYTE_DATA(s), sha, 12);
    return s;
}

/* The tuple (records, run, ords, offs, sizes, shas) of the lines at idx[0..n) (all k of them when idx is NULL). */
static PyObject *result(const line_pos *ps, const Py_ssize_t *idx, Py_ssize_t n, Py_ssize_t k, int run) {
    PyObject *o = PyList_New(n), *f = PyList_New(n), *b = PyList_New(n), *s = PyList_New(n);
    if (o == NULL || f == NULL || b == NULL || s == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        const line_pos *q = &ps[idx != NULL ? idx[i] : i];
        PyObject *a = PyLong_FromLongLong(q->ord), *c = PyLong_FromLongLong(q->off), *d = PyLong_FromLongLong(q->size);
        PyObject *e = sha_str(q->sha);
        if (a == NULL || c == NULL || d == NULL || e == NULL) {
            Py_XDECREF(a);
            Py_XDECREF(c);
            Py_XDECREF(d);
            Py_XDECREF(e);
            goto fail;
        }
        PyList_SET_ITEM(o, i, a);
        PyList_SET_ITEM(f, i, c);
        PyList_SET_ITEM(b, i, d);
        PyList_SET_ITEM(s, i, e);
    }
    return Py_BuildValue("(nONNNN)", k, run ? Py_True : Py_False, o, f, b, s);
fail:
    Py_XDECREF(o);
    Py_XDECREF(f);
    Py_XDECREF(b);
    Py_XDECREF(s);
    return NULL;
}

PyDoc_STRVAR(positions_doc,
"positions(data, start, cut, ends) -> int | (records, run, ords, offs, sizes, shas)\n\n"
"Read the positions of every record line of ``data`` (any buffer) from byte ``start`` (the first record line)\n"
"to byte ``cut`` (where the closing line starts; ``data[cut - 1]`` is a newline). Accepts exactly the lines\n"
"asz_core.verify.landed's per-line loop accepts. Returns the record row (1-based) of the first line it does\n"
"not vouch for, as an int; or a tuple: ``records`` (lines read), ``run`` (True when each record's ord is the\n"
"one before plus 1 and its off the one before's off + bytes + 1; True for none), and four lists of the\n"
"lines' ord, off and bytes (int) and sha (str of 12 hex): every line's, or only the first and the last\n"
"when ``ends`` is true, the records a run and more than 2. Raises ValueError unless\n"
"0 <= start <= cut <= len(data) and, when start < cut, data[cut - 1] is a newline.");

static PyObject *positions(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer buf;
    Py_ssize_t start, cut;
    int ends;
    if (!PyArg_ParseTuple(args, "y*nnp:positions", &buf, &start, &cut, &ends))
        return NULL;
    PyObject *out = NULL;
    line_pos *ps = NULL;
    if (start < 0 || cut < start || cut > buf.len || (cut > start && ((const char *)buf.buf)[cut - 1] != '\n')) {
        PyErr_SetString(PyExc_ValueError, "positions: need 0 <= start <= cut <= len(data), a newline before cut");
        goto done;
    }
    const char *data = buf.buf, *p = data + start, *end = data + cut;
    Py_ssize_t cap = 0, k = 0;
    int run = 1;
    while (p < end) { /* one record line each turn */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (k == cap) {
            Py_ssize_t more = cap ? cap * 2 : 256;
            line_pos *grown = PyMem_Realloc(ps, (size_t)more * sizeof(line_pos));
            if (grown == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            ps = grown;
            cap = more;
        }
        if (nl == NULL || !read_line(p, nl, &ps[k])) {
            out = PyLong_FromSsize_t(k + 1); /* the row the exact path must read */
            goto done;
        }
        if (k > 0 && run) {
            const line_pos *a = &ps[k - 1], *b = &ps[k];
            run = b->ord == a->ord + 1 && b->off == a->off + a->size + 1; /* below 2 * 10^18 + 1: no overflow */
        }
        k++;
        p = nl + 1;
    }
    if (ends && run && k > 2) {
        Py_ssize_t idx[2] = {0, k - 1};
        out = result(ps, idx, 2, k, run);
    } else {
        out = result(ps, NULL, k, k, run);
    }
done:
    PyMem_Free(ps);
    PyBuffer_Release(&buf);
    return out;
}

static PyMethodDef methods[] = {
    {"positions", positions, METH_VARARGS, positions_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "linescan",
    "Every record line's positions read in one call: the compiled half of asz verify's scan (asz_core.verify.landed).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_linescan(void) { return PyModule_Create(&module); }
