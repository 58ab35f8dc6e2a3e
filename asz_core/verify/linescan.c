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
#include "../sessiondata/source_digest.h"

/* One record line's positions, as its prefix writes them; sha points into the caller's buffer (12 bytes). */
typedef struct {
    int64_t ord, off, size;
    const char *sha;
} line_pos;

/* A number as the prefix allows it: "0", or 1 to 18 digits not starting with '0'. Returns the byte after it, or
 * NULL when there is none such (no digit, a 19th digit, a leading zero: then the regular expression's next literal,
 * which never starts with a digit, cannot match either). The digits end before end at the latest: *end is the line's
 * newline, so the loop needs no bound of its own; a value is kept only for at most 18 digits (below 10^18). */
static const char *number(const char *p, const char *end, int64_t *out) {
    (void)end;
    const char *q = p;
    uint64_t v = 0;
    while ((unsigned)(*q - '0') < 10u) {
        v = v * 10 + (uint64_t)(*q - '0'); /* wraps harmlessly past 19 digits, which are refused below */
        q++;
    }
    Py_ssize_t n = q - p;
    if (n == 0 || n > 18 || (n > 1 && *p == '0'))
        return NULL;
    *out = (int64_t)v;
    return q;
}

/* 1 for the bytes of a lowercase hex digit (0-9, a-f). */
static const unsigned char HEX[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
};

static int is_hex(char c) { return HEX[(unsigned char)c]; }

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
    if (!(is_hex(p[0]) & is_hex(p[1]) & is_hex(p[2]) & is_hex(p[3]) & is_hex(p[4]) & is_hex(p[5]) & is_hex(p[6]) &
          is_hex(p[7]) & is_hex(p[8]) & is_hex(p[9]) & is_hex(p[10]) & is_hex(p[11])))
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

/* The positions of the record lines of data[start, cut) (the caller has checked the bounds): positions()'s answer. */
static PyObject *scan_lines(const char *data, Py_ssize_t start, Py_ssize_t cut, int ends) {
    PyObject *out = NULL;
    line_pos *ps = NULL;
    const char *p = data + start, *end = data + cut;
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
    return out;
}

static PyObject *positions(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer buf;
    Py_ssize_t start, cut;
    int ends;
    if (!PyArg_ParseTuple(args, "y*nnp:positions", &buf, &start, &cut, &ends))
        return NULL;
    PyObject *out = NULL;
    if (start < 0 || cut < start || cut > buf.len || (cut > start && ((const char *)buf.buf)[cut - 1] != '\n'))
        PyErr_SetString(PyExc_ValueError, "positions: need 0 <= start <= cut <= len(data), a newline before cut");
    else
        out = scan_lines(buf.buf, start, cut, ends);
    PyBuffer_Release(&buf);
    return out;
}

/* ------------------------------------------------------------------------------------------------------------------
 * landed(path, ends, most, sha256, closing_pair, decode_header) -> (header, positions, mode, digest) | None
 *
 * asz_core.verify.landed._whole of a file read in one read, in one call (issue 22, session 18): the file opened,
 * its mode taken by fstat, read whole (at most `most` bytes, the file then shorter), the closing line's count and
 * digest read by closing_pair(line) and compared with sha256(everything before it).hexdigest(), the records' positions
 * read as positions() reads them, the header decoded by decode_header(line), the whole file's digest. It answers only
 * where _whole's answer is a result; None for anything else (a file that cannot be opened or read, is larger than
 * `most`, or that _whole would hand on: no newline at its end, one line, a digest or count that differs, a line
 * positions() does not vouch for, a ValueError from closing_pair or decode_header); the caller then does the same
 * work the Python way, which gives its own answer. Any other exception is raised, as _whole raises it. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static PyObject *hexdigest_of(PyObject *h) { return PyObject_CallMethod(h, "hexdigest", NULL); }

/* The part of landed() after the read: data[0, n) is the whole file. */
static PyObject *landed_bytes(PyObject *data_obj, Py_ssize_t n, int ends, long mode, PyObject *sha256, PyObject *closing_pair,
                              PyObject *decode_header) {
    const char *data = PyBytes_AS_STRING(data_obj);
    if (n == 0 || data[n - 1] != '\n')
        Py_RETURN_NONE;
    const char *first = memchr(data, '\n', (size_t)n);
    Py_ssize_t start = first - data + 1, cut = 0;
    for (Py_ssize_t i = n - 2; i >= 0; i--)
        if (data[i] == '\n') {
            cut = i + 1;
            break;
        }
    if (cut < start)
        Py_RETURN_NONE;
    PyObject *out = NULL, *view = NULL, *h = NULL, *hex = NULL, *pair = NULL, *got = NULL, *header = NULL, *line = NULL,
             *whole = NULL;
    view = PyMemoryView_FromMemory((char *)data, cut, PyBUF_READ);
    if (view == NULL || (h = PyObject_CallOneArg(sha256, view)) == NULL || (hex = hexdigest_of(h)) == NULL)
        goto done;
    if ((line = PyBytes_FromStringAndSize(data + cut, n - 1 - cut)) == NULL)
        goto done;
    pair = PyObject_CallOneArg(closing_pair, line);
    if (pair == NULL)
        goto refused;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "landed: closing_pair must return (records, digest)");
        goto done;
    }
    int same = PyObject_RichCompareBool(PyTuple_GET_ITEM(pair, 1), hex, Py_EQ);
    if (same <= 0) {
        if (same == 0)
            out = Py_NewRef(Py_None);
        goto done;
    }
    got = scan_lines(data, start, cut, ends);
    if (got == NULL)
        goto done;
    if (PyLong_Check(got)) { /* a line positions() does not vouch for: the Python way reads the file */
        out = Py_NewRef(Py_None);
        goto done;
    }
    same = PyObject_RichCompareBool(PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(got, 0), Py_EQ);
    if (same <= 0) {
        if (same == 0)
            out = Py_NewRef(Py_None);
        goto done;
    }
    Py_DECREF(line);
    if ((line = PyBytes_FromStringAndSize(data, start - 1)) == NULL)
        goto done;
    header = PyObject_CallOneArg(decode_header, line);
    if (header == NULL)
        goto refused;
    Py_DECREF(view);
    view = PyMemoryView_FromMemory((char *)data + cut, n - cut, PyBUF_READ);
    PyObject *r;
    if (view == NULL || (r = PyObject_CallMethod(h, "update", "O", view)) == NULL)
        goto done;
    Py_DECREF(r);
    if ((whole = hexdigest_of(h)) == NULL)
        goto done;
    out = Py_BuildValue("(OOlO)", header, got, mode, whole);
    goto done;
refused: /* a ValueError (FieldError included) from closing_pair or decode_header: _whole's None */
    if (PyErr_ExceptionMatches(PyExc_ValueError)) {
        PyErr_Clear();
        out = Py_NewRef(Py_None);
    }
done:
    Py_XDECREF(view);
    Py_XDECREF(h);
    Py_XDECREF(hex);
    Py_XDECREF(pair);
    Py_XDECREF(got);
    Py_XDECREF(header);
    Py_XDECREF(line);
    Py_XDECREF(whole);
    return out;
}

PyDoc_STRVAR(landed_doc,
"landed(path, ends, most, sha256, closing_pair, decode_header) -> (header, positions, mode, digest) | None\n\n"
"asz_core.verify.landed._whole of the file at ``path`` read in one read of at most ``most`` bytes, in one call:\n"
"``header`` what decode_header(first line) returns, ``positions`` what positions(data, start, cut, ends) returns,\n"
"``mode`` st_mode, ``digest`` the SHA-256 hex of the whole file (sha256 is hashlib.sha256, closing_pair\n"
"codec.closing_pair). None where _whole would not give a result, or the file cannot be opened, read or is larger:\n"
"the caller then does the same the Python way. Raises what closing_pair or decode_header raise other than ValueError.");

static PyObject *landed(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *path_bytes, *sha256, *closing_pair, *decode_header;
    int ends;
    Py_ssize_t most;
    if (!PyArg_ParseTuple(args, "O&pnOOO:landed", PyUnicode_FSConverter, &path_bytes, &ends, &most, &sha256, &closing_pair,
                          &decode_header))
        return NULL;
    int fd = open(PyBytes_AS_STRING(path_bytes), O_RDONLY | O_CLOEXEC);
    Py_DECREF(path_bytes);
    if (fd < 0)
        Py_RETURN_NONE;
    struct stat st;
    PyObject *data = NULL, *out = NULL;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || st.st_size + 1 > most) {
        close(fd);
        Py_RETURN_NONE;
    }
    Py_ssize_t want = (Py_ssize_t)st.st_size + 1, got;
    data = PyBytes_FromStringAndSize(NULL, want);
    if (data == NULL) {
        close(fd);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    got = read(fd, PyBytes_AS_STRING(data), (size_t)want);
    Py_END_ALLOW_THREADS
    close(fd);
    if (got < 0 || got >= want) /* unreadable, or the file grew: the Python way */
        out = Py_NewRef(Py_None);
    else
        out = landed_bytes(data, got, ends, (long)st.st_mode, sha256, closing_pair, decode_header);
    Py_DECREF(data);
    return out;
}

/* ------------------------------------------------------------------------------------------------------------------
 * listing(session_dir, skeletons, prefix_kind, landed_name) -> (files, dirs, cursors, strays) | None
 *
 * One session's listing as asz_core.storage.layout.session_listing(session_dir, skeletons=skeletons, strings=True)
 * makes it, for asz verify (issue 22): the same directories (streams/<stream>, runs/<run>, each sorted by name, then
 * provider_body), the same entries, types and names, the same order, the same str paths. It answers only where the
 * answer is sure to be the Python's: every name ASCII without control bytes (sorted by bytes, as str sorts them; the
 * name expression's `$` and `\d` mean here what they mean there), every seq of at most 18 digits, and no error but a
 * directory that is missing or not a directory (which the Python takes as empty). Anything else returns None, and
 * the caller lists the session the Python way, which raises what it raises. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

typedef struct {
    char *name;
    int is_file;
} dir_entry;

typedef struct {
    dir_entry *e;
    Py_ssize_t n, cap;
} entries;

static void entries_free(entries *es) {
    for (Py_ssize_t i = 0; i < es->n; i++)
        free(es->e[i].name);
    free(es->e);
    es->e = NULL;
    es->n = es->cap = 0;
}

static int by_name(const void *a, const void *b) { return strcmp(((const dir_entry *)a)->name, ((const dir_entry *)b)->name); }

/* Is the entry a file (or, with want_dir, a directory), following a symlink as DirEntry.is_file / is_dir do; -1
 * when DirEntry would raise (a stat error other than ENOENT). */
static int entry_is(const char *dir, const char *name, unsigned char type, int want_dir) {
    if (type != DT_UNKNOWN && type != DT_LNK)
        return want_dir ? type == DT_DIR : type == DT_REG;
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return -1;
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

static int plain_name(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

/* Read directory dir into es, sorted by name: every entry's is_file (or, with dirs_only, only the directories).
 * Returns 1 when read, 0 when it is missing or not a directory (taken as empty), -1 when the Python must answer. */
static int read_dir(const char *dir, int dirs_only, entries *es) {
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return (errno == ENOENT || errno == ENOTDIR) ? 0 : -1;
    struct dirent *de;
    int ok = 1;
    errno = 0;
    while ((de = readdir(dp)) != NULL) {
        const char *name = de->d_name;
        if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
            continue;
        if (!plain_name(name)) {
            ok = -1;
            break;
        }
        int is = entry_is(dir, name, de->d_type, dirs_only);
        if (is < 0) {
            ok = -1;
            break;
        }
        if (dirs_only && !is)
            continue;
        if (es->n == es->cap) {
            Py_ssize_t more = es->cap ? es->cap * 2 : 16;
            dir_entry *grown = realloc(es->e, (size_t)more * sizeof(dir_entry));
            if (grown == NULL) {
                ok = -1;
                break;
            }
            es->e = grown;
            es->cap = more;
        }
        char *copy = strdup(name);
        if (copy == NULL) {
            ok = -1;
            break;
        }
        es->e[es->n].name = copy;
        es->e[es->n].is_file = is;
        es->n++;
        errno = 0;
    }
    if (ok == 1 && errno != 0)
        ok = -1;
    closedir(dp);
    if (ok == 1 && es->n > 1)
        qsort(es->e, (size_t)es->n, sizeof(dir_entry), by_name);
    return ok;
}

static int digits(const char *p, int n) {
    for (int i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    return 1;
}

/* <prefix>-<8 digits>T<6 digits>.<9 digits>Z-<6 or more digits>.<sd|sk>, the prefix [a-z_]+ (layout._NAME_RE):
 * the prefix's length, the stamp at name + plen + 1, the seq's digits and the ext at *ext; 0 when not so. */
static Py_ssize_t landed_parts(const char *name, const char **seq, Py_ssize_t *seq_len, const char **ext) {
    Py_ssize_t n = (Py_ssize_t)strlen(name), p = 0;
    while (p < n && ((name[p] >= 'a' && name[p] <= 'z') || name[p] == '_'))
        p++;
    const char *s = name + p;
    if (p == 0 || n - p < 1 + 26 + 1 + 6 + 3 || s[0] != '-' || !digits(s + 1, 8) || s[9] != 'T' || !digits(s + 10, 6) ||
        s[16] != '.' || !digits(s + 17, 9) || s[26] != 'Z' || s[27] != '-')
        return 0;
    const char *q = s + 28, *end = name + n;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    if (q - (s + 28) < 6 || end - q != 3 || q[0] != '.' || q[1] != 's' || (q[2] != 'd' && q[2] != 'k'))
        return 0;
    *seq = s + 28;
    *seq_len = q - (s + 28);
    *ext = q + 1;
    return p;
}

typedef struct {
    long long seq;
    PyObject *ln, *path, *dir; /* owned */
    const char *stem;         /* path's str data without its 3 last characters */
    Py_ssize_t stem_len;
    int sk;
} found_file;

static int by_key(const void *a, const void *b) {
    const found_file *x = a, *y = b;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    Py_ssize_t n = x->stem_len < y->stem_len ? x->stem_len : y->stem_len;
    int c = memcmp(x->stem, y->stem, (size_t)n);
    if (c != 0)
        return c;
    if (x->stem_len != y->stem_len)
        return x->stem_len < y->stem_len ? -1 : 1;
    return x->sk - y->sk; /* the landed file before its skeleton: the first of a key is the one kept */
}

typedef struct {
    found_file *f;
    Py_ssize_t n, cap;
    PyObject *cursors, *strays;
    PyObject *prefix_kind, *landed_name;
    int skeletons;
} listing_state;

static PyObject *joined(const char *a, Py_ssize_t an, const char *b) {
    Py_ssize_t bn = (Py_ssize_t)strlen(b);
    PyObject *s = PyUnicode_New(an + bn, 127);
    if (s != NULL) {
        memcpy(PyUnicode_1BYTE_DATA(s), a, (size_t)an);
        memcpy(PyUnicode_1BYTE_DATA(s) + an, b, (size_t)bn);
    }
    return s;
}

/* Take the entries of holding directory d (its str object dir_obj): landed files, cursors, strays. 0; -1 with an
 * exception set; -2 when the Python must answer. */
static int take_dir(listing_state *st, PyObject *dir_obj, const entries *es) {
    const char *d = PyUnicode_AsUTF8(dir_obj);
    Py_ssize_t dn = PyUnicode_GET_LENGTH(dir_obj);
    char here[4096];
    if (dn + 1 >= (Py_ssize_t)sizeof here) {
        PyErr_SetString(PyExc_ValueError, "listing: path too long");
        return -1;
    }
    memcpy(here, d, (size_t)dn);
    here[dn] = '/';
    for (Py_ssize_t i = 0; i < es->n; i++) {
        const char *name = es->e[i].name;
        if (name[0] == '.')
            continue;
        const char *seq, *ext;
        Py_ssize_t seq_len, plen = landed_parts(name, &seq, &seq_len, &ext);
        PyObject *kind = NULL;
        if (plen > 0) {
            PyObject *prefix = PyUnicode_FromStringAndSize(name, plen);
            if (prefix == NULL)
                return -1;
            kind = PyDict_GetItemWithError(st->prefix_kind, prefix);
            Py_DECREF(prefix);
            if (kind == NULL && PyErr_Occurred())
                return -1;
        }
        Py_ssize_t n = (Py_ssize_t)strlen(name);
        if (kind == NULL) { /* not a landed name: a cursor, a stray, or nothing asz reads */
            if (n > 7 && strcmp(name + n - 7, ".cursor") == 0) {
                PyObject *prefix = PyUnicode_FromStringAndSize(name, n - 7);
                if (prefix == NULL)
                    return -1;
                PyObject *ck = PyDict_GetItemWithError(st->prefix_kind, prefix);
                Py_DECREF(prefix);
                if (ck == NULL && PyErr_Occurred())
                    return -1;
                if (ck != NULL) {
                    PyObject *key = PyTuple_Pack(2, dir_obj, ck), *path = joined(here, dn + 1, name);
                    int bad = key == NULL || path == NULL || PyDict_SetItem(st->cursors, key, path) < 0;
                    Py_XDECREF(key);
                    Py_XDECREF(path);
                    if (bad)
                        return -1;
                    continue;
                }
            }
            if (n > 3 && (strcmp(name + n - 3, ".sd") == 0 || strcmp(name + n - 3, ".sk") == 0)) {
                PyObject *path = joined(here, dn + 1, name);
                int bad = path == NULL || PyList_Append(st->strays, path) < 0;
                Py_XDECREF(path);
                if (bad)
                    return -1;
            }
            continue;
        }
        int sk = ext[1] == 'k';
        if (!es->e[i].is_file || (sk && !st->skeletons))
            continue;
        if (seq_len > 18)
            return -2; /* the Python reads it (an int of any size) */
        long long v = 0;
        for (Py_ssize_t k = 0; k < seq_len; k++)
            v = v * 10 + (seq[k] - '0');
        if (st->n == st->cap) {
            Py_ssize_t more = st->cap ? st->cap * 2 : 16;
            found_file *grown = PyMem_Realloc(st->f, (size_t)more * sizeof(found_file));
            if (grown == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            st->f = grown;
            st->cap = more;
        }
        PyObject *stamp = PyUnicode_FromStringAndSize(name + plen + 1, 26);
        PyObject *seq_obj = PyLong_FromLongLong(v);
        PyObject *ext_obj = PyUnicode_FromStringAndSize(ext, 2);
        PyObject *ln = (stamp && seq_obj && ext_obj) ? PyObject_CallFunctionObjArgs(st->landed_name, kind, stamp, seq_obj, ext_obj, NULL) : NULL;
        Py_XDECREF(stamp);
        Py_XDECREF(seq_obj);
        Py_XDECREF(ext_obj);
        PyObject *path = ln != NULL ? joined(here, dn + 1, name) : NULL;
        if (path == NULL) {
            Py_XDECREF(ln);
            return -1;
        }
        found_file *f = &st->f[st->n++];
        f->seq = v;
        f->ln = ln;
        f->path = path;
        Py_INCREF(dir_obj);
        f->dir = dir_obj;
        f->stem = (const char *)PyUnicode_1BYTE_DATA(path);
        f->stem_len = PyUnicode_GET_LENGTH(path) - 3;
        f->sk = sk;
    }
    return 0;
}

/* The holding directories' str objects, in session_listing's order, into the list out; 1, 0 (the Python must
 * answer) or -1 (an exception). */
static int holding(const char *base, Py_ssize_t bn, PyObject *out) {
    static const char *subs[] = {"streams", "runs"};
    char d[4096];
    const char *sep = (bn > 0 && base[bn - 1] == '/') ? "" : "/";
    for (int s = 0; s < 2; s++) {
        if ((size_t)snprintf(d, sizeof d, "%s%s%s", base, sep, subs[s]) >= sizeof d - 256)
            return 0;
        entries es = {NULL, 0, 0};
        int got = read_dir(d, 1, &es);
        if (got < 0) {
            entries_free(&es);
            return 0;
        }
        size_t dl = strlen(d);
        d[dl] = '/';
        for (Py_ssize_t i = 0; i < es.n; i++) {
            PyObject *child = joined(d, (Py_ssize_t)dl + 1, es.e[i].name);
            if (child == NULL || PyList_Append(out, child) < 0) {
                Py_XDECREF(child);
                entries_free(&es);
                return -1;
            }
            Py_DECREF(child);
        }
        entries_free(&es);
    }
    snprintf(d, sizeof d, "%s%sprovider_body", base, sep);
    PyObject *pb = PyUnicode_FromString(d);
    if (pb == NULL || PyList_Append(out, pb) < 0) {
        Py_XDECREF(pb);
        return -1;
    }
    Py_DECREF(pb);
    return 1;
}

PyDoc_STRVAR(listing_doc,
"listing(session_dir, skeletons, prefix_kind, landed_name) -> (files, dirs, cursors, strays) | None\n\n"
"One session's listing as asz_core.storage.layout.session_listing(session_dir, skeletons=skeletons, strings=True)\n"
"gives its four fields: files [(LandedName, path)], dirs [dir], cursors {(dir, kind): path}, strays [path], every\n"
"path a str; ``prefix_kind`` is layout.PREFIX_KIND, ``landed_name`` the LandedName class. None where the Python\n"
"must answer: a name that is not printable ASCII, a seq of more than 18 digits, a directory or a stat that fails\n"
"other than missing (or not a directory), a path over 3,800 bytes.");

static PyObject *listing(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *base_obj, *prefix_kind, *landed_name;
    int skeletons;
    if (!PyArg_ParseTuple(args, "UpO!O:listing", &base_obj, &skeletons, &PyDict_Type, &prefix_kind, &landed_name))
        return NULL;
    Py_ssize_t bn;
    const char *base = PyUnicode_AsUTF8AndSize(base_obj, &bn);
    if (base == NULL)
        return NULL;
    if (!PyUnicode_IS_ASCII(base_obj) || bn == 0 || bn > 3000 || !plain_name(base))
        Py_RETURN_NONE;
    listing_state st = {NULL, 0, 0, PyDict_New(), PyList_New(0), prefix_kind, landed_name, skeletons};
    PyObject *dirs = PyList_New(0), *out = NULL, *files = NULL, *file_dirs = NULL;
    if (st.cursors == NULL || st.strays == NULL || dirs == NULL)
        goto done;
    int h = holding(base, bn, dirs);
    if (h <= 0) {
        if (h == 0)
            out = Py_NewRef(Py_None);
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(dirs); i++) {
        PyObject *dir_obj = PyList_GET_ITEM(dirs, i);
        entries es = {NULL, 0, 0};
        int got = read_dir(PyUnicode_AsUTF8(dir_obj), 0, &es);
        if (got < 0) {
            entries_free(&es);
            out = Py_NewRef(Py_None);
            goto done;
        }
        int taken = take_dir(&st, dir_obj, &es);
        entries_free(&es);
        if (taken < 0) {
            if (taken == -2)
                out = Py_NewRef(Py_None);
            goto done;
        }
    }
    if (st.n > 1)
        qsort(st.f, (size_t)st.n, sizeof(found_file), by_key);
    files = PyList_New(0);
    file_dirs = PyList_New(0);
    if (files == NULL || file_dirs == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < st.n; i++) {
        const found_file *f = &st.f[i];
        const found_file *prev = i > 0 ? &st.f[i - 1] : NULL;
        if (prev != NULL && f->sk && !prev->sk && prev->seq == f->seq && prev->stem_len == f->stem_len &&
            memcmp(prev->stem, f->stem, (size_t)f->stem_len) == 0)
            continue; /* the skeleton of a landed file listed just before it: the landed file wins */
        PyObject *pair = PyTuple_Pack(2, f->ln, f->path);
        if (pair == NULL || PyList_Append(files, pair) < 0 || PyList_Append(file_dirs, f->dir) < 0) {
            Py_XDECREF(pair);
            goto done;
        }
        Py_DECREF(pair);
    }
    out = PyTuple_Pack(4, files, file_dirs, st.cursors, st.strays);
done:
    for (Py_ssize_t i = 0; i < st.n; i++) {
        Py_DECREF(st.f[i].ln);
        Py_DECREF(st.f[i].path);
        Py_DECREF(st.f[i].dir);
    }
    PyMem_Free(st.f);
    Py_XDECREF(st.cursors);
    Py_XDECREF(st.strays);
    Py_XDECREF(dirs);
    Py_XDECREF(files);
    Py_XDECREF(file_dirs);
    return out;
}

static PyMethodDef methods[] = {
    {"positions", positions, METH_VARARGS, positions_doc},
    {"listing", listing, METH_VARARGS, listing_doc},
    {"landed", landed, METH_VARARGS, landed_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "linescan",
    "Every record line's positions read in one call: the compiled half of asz verify's scan (asz_core.verify.landed).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_linescan(void) { return with_source_digest(PyModule_Create(&module)); }
