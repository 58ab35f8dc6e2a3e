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

/* One record line's positions, as its prefix writes them; sha its 12 hex bytes (copied: a file read in chunks moves
 * its lines in the buffer). */
typedef struct {
    int64_t ord, off, size;
    char sha[12];
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
    memcpy(got->sha, p, 12);
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

/* One record line [p, nl) read into (*ps)[*k] (grown as needed, PyMem) and the run kept: 1, 0 when the Python loop
 * would not accept it, -1 with MemoryError set. */
static int take_line(const char *p, const char *nl, line_pos **ps, Py_ssize_t *cap, Py_ssize_t *k, int *run) {
    if (*k == *cap) {
        Py_ssize_t more = *cap ? *cap * 2 : 256;
        line_pos *grown = PyMem_Realloc(*ps, (size_t)more * sizeof(line_pos));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        *ps = grown;
        *cap = more;
    }
    if (!read_line(p, nl, &(*ps)[*k]))
        return 0;
    if (*k > 0 && *run) {
        const line_pos *a = &(*ps)[*k - 1], *b = &(*ps)[*k];
        *run = b->ord == a->ord + 1 && b->off == a->off + a->size + 1; /* below 2 * 10^18 + 1: no overflow */
    }
    (*k)++;
    return 1;
}

/* The record lines of data[start, cut) (the caller has checked the bounds) read into *ps, grown as needed (*cap its
 * room, PyMem): 0 when every line is one the Python loop accepts (then *k_out lines, *run_out), the 1-based row of the
 * first line that is not, or -1 with MemoryError set. */
static Py_ssize_t scan_c(const char *data, Py_ssize_t start, Py_ssize_t cut, line_pos **ps, Py_ssize_t *cap,
                         Py_ssize_t *k_out, int *run_out) {
    const char *p = data + start, *end = data + cut;
    Py_ssize_t k = 0;
    int run = 1;
    while (p < end) { /* one record line each turn */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        int took = nl == NULL ? 0 : take_line(p, nl, ps, cap, &k, &run);
        if (took <= 0)
            return took < 0 ? -1 : k + 1; /* the row the exact path must read */
        p = nl + 1;
    }
    *k_out = k;
    *run_out = run;
    return 0;
}

/* positions()'s answer for the record lines of data[start, cut) (the caller has checked the bounds). */
static PyObject *scan_lines(const char *data, Py_ssize_t start, Py_ssize_t cut, int ends) {
    line_pos *ps = NULL;
    Py_ssize_t cap = 0, k = 0;
    int run = 1;
    Py_ssize_t row = scan_c(data, start, cut, &ps, &cap, &k, &run);
    PyObject *out = NULL;
    if (row > 0) {
        out = PyLong_FromSsize_t(row);
    } else if (row == 0 && ends && run && k > 2) {
        Py_ssize_t idx[2] = {0, k - 1};
        out = result(ps, idx, 2, k, run);
    } else if (row == 0) {
        out = result(ps, NULL, k, k, run);
    }
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

/* What a landed file's check calls in Python: hashlib.sha256, codec.closing_pair, codec.decode_header. */
typedef struct {
    PyObject *sha256, *closing_pair, *decode_header;
} file_fns;

/* A whole file's check: its header (owned), its records' count and run, the whole file's SHA-256 hex (owned; NULL
 * when not asked). The positions are in the caller's line_pos buffer. */
typedef struct {
    PyObject *header, *whole;
    Py_ssize_t k;
    int run;
} file_got;

/* A read buffer kept from file to file (issue 22, session 38): a file is read in CHUNK-byte reads into it, and it
 * grows only while one line (the header, a record line, the closing line) and what follows it do not fit. */
typedef struct {
    char *p;
    Py_ssize_t room;
} rbuf;

/* Bytes asked of each read: each chunk is hashed, its lines read and searched while it is in the CPU's cache (L2). */
#define CHUNK ((Py_ssize_t)128 * 1024)

/* The module's own buffer, lent to one call at a time (the GIL is held when it is taken and given back: a second
 * thread meanwhile gets a buffer of its own); given back at most KEEP_ROOM bytes large. */
static rbuf kept = {NULL, 0};
static int kept_lent = 0;
#define KEEP_ROOM (8 * CHUNK)

static rbuf *rbuf_take(rbuf *own) {
    if (kept_lent) {
        own->p = NULL;
        own->room = 0;
        return own;
    }
    kept_lent = 1;
    return &kept;
}

static void rbuf_give(rbuf *b) {
    if (b->room > KEEP_ROOM) {
        free(b->p);
        b->p = NULL;
        b->room = 0;
    }
    if (b == &kept)
        kept_lent = 0;
}

/* h.update(data[0, n)): 0, -1 with an exception set. */
static int hash_update(PyObject *h, const char *data, Py_ssize_t n) {
    if (n <= 0)
        return 0;
    PyObject *view = PyMemoryView_FromMemory((char *)data, n, PyBUF_READ), *r = NULL;
    if (view != NULL)
        r = PyObject_CallMethod(h, "update", "O", view);
    Py_XDECREF(view);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* The first place needle[0, k) is in h[0, n), or NULL: memmem, with 16 bytes looked at a time where SSE2 is (every
 * x86-64): the places where the needle's first and last bytes both are, each then compared whole (W. Mula's
 * "SIMD-friendly algorithms for substring searching"; issue 22, session 38: glibc's memmem was a tenth of verify's
 * landed check, for the MCP call name each file is searched for). */
#if defined(__SSE2__)
#include <emmintrin.h>
static const char *find_bytes(const char *h, size_t n, const char *needle, size_t k) {
    size_t i = 0;
    if (k >= 2) {
        const __m128i first = _mm_set1_epi8(needle[0]), last = _mm_set1_epi8(needle[k - 1]);
        for (; i + k - 1 + 16 <= n; i += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(h + i)), b = _mm_loadu_si128((const __m128i *)(h + i + k - 1));
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
            while (m != 0) {
                unsigned j = (unsigned)__builtin_ctz(m);
                if (memcmp(h + i + j + 1, needle + 1, k - 2) == 0)
                    return h + i + j;
                m &= m - 1;
            }
        }
    }
    return memmem(h + i, n - i, needle, k); /* the last places (every place where k < 2) */
}
#else
static const char *find_bytes(const char *h, size_t n, const char *needle, size_t k) { return memmem(h, n, needle, k); }
#endif

/* How the file at path was opened and read (file_check's caller). */
typedef struct {
    Py_ssize_t most;      /* a file of most - 1 bytes or more goes to the Python (as one read of most could not) */
    const char *needle;   /* NULL, or bytes searched for in the whole file: *held then says whether they are */
    Py_ssize_t needle_len;
    long refused;         /* mode bits that send the file to the Python unread (s_files: any write bit) */
    long mode;            /* out: st_mode */
    int held;             /* out: the needle was found */
} file_read;

/* _whole's checks of the file at path, read once from start to end in CHUNK-byte reads into b: each chunk is hashed
 * (sha256 of everything before the closing line, then with want_whole that line too: the whole file's digest), its
 * complete record lines read (take_line, into *ps) and, with rd->needle, searched, while it is in the cache. At the end
 * the closing line's count and digest (closing_pair) are compared with the records and the digest, and the header
 * (the first line) decoded (decode_header), in _whole's order. 1 when _whole gives a result (*out filled); 0 when it
 * would not (no newline at the end, one line, a digest or count that differs, a line take_line does not vouch for, a
 * ValueError from closing_pair or decode_header); -2 when the file cannot be opened or read (a symbolic link is not
 * opened: O_NOFOLLOW, trial 42a F4), is too large for one read of rd->most, has a mode bit of rd->refused or grew while
 * read (the Python way reads it and says it); -1 with an exception set. */
static int file_check(const char *path, int want_whole, const file_fns *fn, rbuf *b, file_read *rd, line_pos **ps,
                      Py_ssize_t *cap, file_got *out) {
    out->header = out->whole = NULL;
    out->k = 0;
    out->run = 1;
    rd->held = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0)
        return -2;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || st.st_size + 1 > rd->most || (st.st_mode & rd->refused)) {
        close(fd);
        return -2;
    }
    rd->mode = (long)st.st_mode;
    int ret = -1, same, bad_line = 0;
    PyObject *h = NULL, *hex = NULL, *pair = NULL, *line = NULL, *count = NULL, *header_line = NULL;
    if ((h = PyObject_CallNoArgs(fn->sha256)) == NULL)
        goto done;
    /* The buffer holds the file's bytes [base, base + len). Lines before `scan` are found; [pend, scan) is the last
     * complete line found after the header (pend -1: none yet), held back since it may be the closing line; every
     * byte before `hashed` is hashed, before `searched` searched for the needle. */
    Py_ssize_t base = 0, len = 0, scan = 0, pend = -1, hashed = 0, searched = 0, total = 0;
    Py_ssize_t tail = rd->needle != NULL ? rd->needle_len - 1 : 0; /* bytes kept before the next search */
    for (;;) {
        if (b->room - len < CHUNK) { /* move what is still needed to the front, or grow */
            Py_ssize_t keep = pend >= 0 ? pend : scan;
            if (hashed < keep)
                keep = hashed;
            if (rd->needle != NULL && !rd->held && searched - tail < keep)
                keep = searched - tail > 0 ? searched - tail : 0;
            if (keep > 0) {
                memmove(b->p, b->p + keep, (size_t)(len - keep));
                base += keep;
                len -= keep;
                scan -= keep;
                hashed -= keep;
                searched -= keep;
                if (pend >= 0)
                    pend -= keep;
            }
            if (b->room - len < CHUNK) {
                Py_ssize_t more = b->room * 2 > len + CHUNK ? b->room * 2 : len + 2 * CHUNK;
                char *grown = realloc(b->p, (size_t)more);
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                b->p = grown;
                b->room = more;
            }
        }
        Py_ssize_t got;
        Py_BEGIN_ALLOW_THREADS
        got = read(fd, b->p + len, (size_t)CHUNK);
        Py_END_ALLOW_THREADS
        if (got < 0 || total + got > st.st_size) {
            ret = -2; /* unreadable, or grown since its fstat: the Python way reads it */
            goto done;
        }
        if (got == 0)
            break;
        len += got;
        total += got;
        if (rd->needle != NULL && !rd->held) {
            Py_ssize_t from = searched - tail > 0 ? searched - tail : 0;
            rd->held = find_bytes(b->p + from, (size_t)(len - from), rd->needle, (size_t)rd->needle_len) != NULL;
            searched = len;
        }
        const char *nl;
        while ((nl = memchr(b->p + scan, '\n', (size_t)(len - scan))) != NULL) {
            Py_ssize_t next = nl - b->p + 1;
            if (header_line == NULL) {
                if ((header_line = PyBytes_FromStringAndSize(b->p, next - 1)) == NULL)
                    goto done;
            } else {
                if (pend >= 0 && !bad_line) { /* the line held back is a record line: another follows it */
                    int took = take_line(b->p + pend, b->p + scan - 1, ps, cap, &out->k, &out->run);
                    if (took < 0)
                        goto done;
                    bad_line = !took; /* the Python way reads the file; its closing line is still read first */
                }
                pend = scan;
            }
            scan = next;
        }
        Py_ssize_t upto = pend >= 0 ? pend : scan; /* hash up to the line held back */
        if (hash_update(h, b->p + hashed, upto - hashed) < 0)
            goto done;
        hashed = upto;
    }
    if (total == 0 || scan != len || pend < 0) {
        ret = 0; /* no newline at the end, or one line */
        goto done;
    }
    if ((hex = hexdigest_of(h)) == NULL)
        goto done;
    if ((line = PyBytes_FromStringAndSize(b->p + pend, scan - 1 - pend)) == NULL)
        goto done;
    if ((pair = PyObject_CallOneArg(fn->closing_pair, line)) == NULL)
        goto refused;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "landed: closing_pair must return (records, digest)");
        goto done;
    }
    if ((same = PyObject_RichCompareBool(PyTuple_GET_ITEM(pair, 1), hex, Py_EQ)) <= 0) {
        ret = same;
        goto done;
    }
    if (bad_line) {
        ret = 0;
        goto done;
    }
    if ((count = PyLong_FromSsize_t(out->k)) == NULL)
        goto done;
    if ((same = PyObject_RichCompareBool(PyTuple_GET_ITEM(pair, 0), count, Py_EQ)) <= 0) {
        ret = same;
        goto done;
    }
    if ((out->header = PyObject_CallOneArg(fn->decode_header, header_line)) == NULL)
        goto refused;
    if (want_whole) {
        if (hash_update(h, b->p + pend, scan - pend) < 0 || (out->whole = hexdigest_of(h)) == NULL)
            goto done;
    }
    ret = 1;
    goto done;
refused: /* a ValueError (FieldError included) from closing_pair or decode_header: _whole's None */
    if (PyErr_ExceptionMatches(PyExc_ValueError)) {
        PyErr_Clear();
        ret = 0;
    }
done:
    close(fd);
    if (ret != 1)
        Py_CLEAR(out->header);
    Py_XDECREF(h);
    Py_XDECREF(hex);
    Py_XDECREF(pair);
    Py_XDECREF(line);
    Py_XDECREF(count);
    Py_XDECREF(header_line);
    return ret;
}

/* landed()'s answer for the file at path. */
static PyObject *landed_path(const char *path, int ends, Py_ssize_t most, const file_fns *fn) {
    line_pos *ps = NULL;
    Py_ssize_t cap = 0;
    file_got got;
    file_read rd = {most, NULL, 0, 0, 0, 0};
    rbuf own, *b = rbuf_take(&own);
    int ok = file_check(path, 1, fn, b, &rd, &ps, &cap, &got);
    rbuf_give(b);
    PyObject *out = NULL, *positions = NULL;
    if (ok == 0 || ok == -2)
        out = Py_NewRef(Py_None);
    if (ok == 1) {
        if (ends && got.run && got.k > 2) {
            Py_ssize_t idx[2] = {0, got.k - 1};
            positions = result(ps, idx, 2, got.k, got.run);
        } else {
            positions = result(ps, NULL, got.k, got.k, got.run);
        }
        if (positions != NULL)
            out = Py_BuildValue("(OOlO)", got.header, positions, rd.mode, got.whole);
        Py_XDECREF(positions);
        Py_DECREF(got.header);
        Py_DECREF(got.whole);
    }
    PyMem_Free(ps);
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
    PyObject *path_bytes, *out;
    file_fns fn;
    int ends;
    Py_ssize_t most;
    if (!PyArg_ParseTuple(args, "O&pnOOO:landed", PyUnicode_FSConverter, &path_bytes, &ends, &most, &fn.sha256,
                          &fn.closing_pair, &fn.decode_header))
        return NULL;
    out = landed_path(PyBytes_AS_STRING(path_bytes), ends, most, &fn);
    Py_DECREF(path_bytes);
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
    int odd; /* its type was a symbolic link or not told (DT_LNK, DT_UNKNOWN): what it is depends on following it */
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

/* Is the entry a file (or, with want_dir, a directory); -1 when the Python must answer: a symbolic link (no listing
 * of a root follows one, asz_core/sessiondata/nolink.py: the Python names it) or an lstat error other than ENOENT. */
static int entry_is(const char *dir, const char *name, unsigned char type, int want_dir) {
    if (type == DT_LNK)
        return -1;
    if (type != DT_UNKNOWN)
        return want_dir ? type == DT_DIR : type == DT_REG;
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return -1;
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISLNK(st.st_mode))
        return -1;
    return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

static int plain_name(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

/* Read directory dir into es, sorted by name: every entry's is_file (or, with dirs_only, only the directories).
 * Returns 1 when read, 0 when it is missing or not a directory (taken as empty), -1 when the Python must answer
 * (dir or an entry a symbolic link: opened with O_NOFOLLOW, never entered; any other error). */
static int read_dir(const char *dir, int dirs_only, entries *es) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        struct stat lst;
        if (err == ENOTDIR && lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode))
            return -1;
        return (err == ENOENT || err == ENOTDIR) ? 0 : -1;
    }
    DIR *dp = fdopendir(fd);
    if (dp == NULL) {
        close(fd);
        return -1;
    }
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
        es->e[es->n].odd = de->d_type == DT_LNK || de->d_type == DT_UNKNOWN;
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

/* A list of C strings (malloc'd). */
typedef struct {
    char **s;
    Py_ssize_t n, cap;
} strings;

static void strings_free(strings *l) {
    for (Py_ssize_t i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    l->s = NULL;
    l->n = l->cap = 0;
}

/* Append a copy of a then b (b may be ""); 0, or -1 when out of memory. */
static int strings_add(strings *l, const char *a, const char *b) {
    if (l->n == l->cap) {
        Py_ssize_t more = l->cap ? l->cap * 2 : 16;
        char **grown = realloc(l->s, (size_t)more * sizeof(char *));
        if (grown == NULL)
            return -1;
        l->s = grown;
        l->cap = more;
    }
    size_t an = strlen(a), bn = strlen(b);
    char *c = malloc(an + bn + 1);
    if (c == NULL)
        return -1;
    memcpy(c, a, an);
    memcpy(c + an, b, bn + 1);
    l->s[l->n++] = c;
    return 0;
}

/* The holding directories in session_listing's order (streams/<d> and runs/<d>, each sorted by name, then
 * provider_body) into out, *streams how many of them are under streams/; 1, or 0 when the Python must answer.
 * *odd is set when one of them is a symbolic link or of a type readdir did not tell (leftover_temporaries, which
 * does not follow links, may then look in other directories). */
static int holding(const char *base, Py_ssize_t bn, strings *out, Py_ssize_t *streams, int *odd) {
    static const char *subs[] = {"streams", "runs"};
    char d[4096];
    const char *sep = (bn > 0 && base[bn - 1] == '/') ? "" : "/";
    for (int s = 0; s < 2; s++) {
        if ((size_t)snprintf(d, sizeof d, "%s%s%s/", base, sep, subs[s]) >= sizeof d - 256)
            return 0;
        entries es = {NULL, 0, 0};
        size_t dl = strlen(d);
        d[dl - 1] = '\0';
        int got = read_dir(d, 1, &es);
        d[dl - 1] = '/';
        for (Py_ssize_t i = 0; got >= 0 && i < es.n; i++) {
            *odd |= es.e[i].odd;
            if (strings_add(out, d, es.e[i].name) < 0)
                got = -1;
        }
        entries_free(&es);
        if (got < 0)
            return 0;
        if (s == 0)
            *streams = out->n;
    }
    snprintf(d, sizeof d, "%s%sprovider_body", base, sep);
    return strings_add(out, d, "") == 0;
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
    strings held = {NULL, 0, 0};
    Py_ssize_t streams;
    int odd = 0;
    int h = holding(base, bn, &held, &streams, &odd);
    for (Py_ssize_t i = 0; h == 1 && i < held.n; i++) {
        PyObject *d = PyUnicode_FromString(held.s[i]);
        if (d == NULL || PyList_Append(dirs, d) < 0)
            h = -1;
        Py_XDECREF(d);
    }
    strings_free(&held);
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

/* ------------------------------------------------------------------------------------------------------------------
 * session(session_dir, name, digests, consts) -> (streams, records, uncursored, files) | None
 *
 * One session of asz verify checked in one call where it is clean (issue 22, session 19): what
 * asz_core.verify.walk._verify_session finds over verify_listing(session_dir) and check_for_walk of each file, when
 * that is no problem and no warning at all. The session is listed as listing() lists it (without its Python objects),
 * each landed file checked as landed() checks it, its name and directory compared with its header as names_agree
 * does, its mode read-only, the seqs unique, each stream's files a run continuing the one before, each one-document
 * file at ord 1 and off 0, each cursor read (cursor_values) and reached, not behind. Anything else returns None: a
 * stray, a skeleton, a file landed() hands back, a name names_agree does not vouch for, a writable file, a seq twice, a
 * file that does not continue its stream (a gap, or records landed again), a cursor that does not read as the Python
 * reads it cleanly, in conflict, torn, read again (reread_seq), ahead or behind; and the caller checks the session the
 * Python way, which says what it says. Nothing is kept from a session handed back: with digests (a dict), each file's
 * whole-file SHA-256 hex is put in it by path only when the session is answered. */

/* A landed file of the session: its seq, holding directory (an index), kind (borrowed from prefix_kind), name, and
 * what its check found: records, run, the first record's ord and off, the last's ord and the byte after it, and
 * whether every record is at ord 1 and off 0 (a one-document kind's rule). */
typedef struct {
    long long seq;
    Py_ssize_t dir;
    PyObject *kind;
    char *name;
    Py_ssize_t k;
    int run, docs;
    int64_t first_ord, first_off, last_ord, last_end;
} s_file;

/* A cursor of the session: its holding directory (an index), kind (borrowed) and name. */
typedef struct {
    Py_ssize_t dir;
    PyObject *kind;
    char *name;
} s_cursor;

typedef struct {
    s_file *f;
    Py_ssize_t nf, capf;
    s_cursor *c;
    Py_ssize_t nc, capc;
} s_listed;

static void s_listed_free(s_listed *l) {
    for (Py_ssize_t i = 0; i < l->nf; i++)
        free(l->f[i].name);
    for (Py_ssize_t i = 0; i < l->nc; i++)
        free(l->c[i].name);
    free(l->f);
    free(l->c);
}

static int by_seq(const void *a, const void *b) {
    long long x = ((const s_file *)a)->seq, y = ((const s_file *)b)->seq;
    return x < y ? -1 : x > y;
}

/* The kind of the prefix name[0, n) (borrowed), NULL when none (or with an exception set: *err). */
static PyObject *kind_of(PyObject *prefix_kind, const char *name, Py_ssize_t n, int *err) {
    PyObject *prefix = PyUnicode_FromStringAndSize(name, n);
    if (prefix == NULL) {
        *err = 1;
        return NULL;
    }
    PyObject *kind = PyDict_GetItemWithError(prefix_kind, prefix);
    Py_DECREF(prefix);
    if (kind == NULL && PyErr_Occurred())
        *err = 1;
    return kind;
}

/* Take the entries of holding directory number dir as take_dir does: 1; 0 when the session goes to the Python (a
 * stray, a skeleton, a seq of more than 18 digits); -1 with an exception set. */
static int s_take(s_listed *l, Py_ssize_t dir, const entries *es, PyObject *prefix_kind) {
    for (Py_ssize_t i = 0; i < es->n; i++) {
        const char *name = es->e[i].name, *seq, *ext;
        if (name[0] == '.')
            continue;
        Py_ssize_t seq_len, plen = landed_parts(name, &seq, &seq_len, &ext), n = (Py_ssize_t)strlen(name);
        int err = 0;
        PyObject *kind = plen > 0 ? kind_of(prefix_kind, name, plen, &err) : NULL;
        if (kind == NULL && !err && n > 7 && strcmp(name + n - 7, ".cursor") == 0) {
            PyObject *ck = kind_of(prefix_kind, name, n - 7, &err);
            if (ck != NULL) {
                if (l->nc == l->capc) {
                    Py_ssize_t more = l->capc ? l->capc * 2 : 16;
                    s_cursor *grown = realloc(l->c, (size_t)more * sizeof(s_cursor));
                    if (grown == NULL)
                        return PyErr_NoMemory(), -1;
                    l->c = grown;
                    l->capc = more;
                }
                if ((l->c[l->nc].name = strdup(name)) == NULL)
                    return PyErr_NoMemory(), -1;
                l->c[l->nc].dir = dir;
                l->c[l->nc++].kind = ck;
                continue;
            }
        }
        if (err)
            return -1;
        if (kind == NULL) { /* a stray is a problem; anything else is nothing asz reads */
            if (n > 3 && (strcmp(name + n - 3, ".sd") == 0 || strcmp(name + n - 3, ".sk") == 0))
                return 0;
            continue;
        }
        if (!es->e[i].is_file)
            continue;
        if (ext[1] == 'k' || seq_len > 18)
            return 0; /* a skeleton's removed header, or an int of any size: the Python reads them */
        if (l->nf == l->capf) {
            Py_ssize_t more = l->capf ? l->capf * 2 : 16;
            s_file *grown = realloc(l->f, (size_t)more * sizeof(s_file));
            if (grown == NULL)
                return PyErr_NoMemory(), -1;
            l->f = grown;
            l->capf = more;
        }
        s_file *f = &l->f[l->nf];
        memset(f, 0, sizeof *f);
        if ((f->name = strdup(name)) == NULL)
            return PyErr_NoMemory(), -1;
        for (Py_ssize_t k = 0; k < seq_len; k++)
            f->seq = f->seq * 10 + (seq[k] - '0');
        f->dir = dir;
        f->kind = kind;
        l->nf++;
    }
    return 1;
}

/* The int value of o as int64 into *v: 1, 0 when it is not an int or does not fit, -1 with an exception set. */
static int int64_of(PyObject *o, int64_t *v) {
    if (o == NULL || !PyLong_CheckExact(o))
        return 0;
    int over;
    long long x = PyLong_AsLongLongAndOverflow(o, &over);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *v = x;
    return !over;
}

/* str o equal to the C string s. */
static int str_is(PyObject *o, const char *s) {
    return o != NULL && PyUnicode_CheckExact(o) && PyUnicode_IS_ASCII(o) && strcmp((const char *)PyUnicode_1BYTE_DATA(o), s) == 0;
}

/* A cursor as read_cursor reads it cleanly (an append cursor's ord, offset and last_seq): 1 (*append 1 for an append
 * cursor), 0 when the session goes to the Python (a file that does not read, values cursor_values does not give, a
 * kind or key missing, state conflict, torn, reread_seq), -1 with an exception set. */
static int s_cursor_read(const char *path, PyObject *cursor_values, int *append, int64_t *ord, int64_t *offset,
                         int64_t *last_seq) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW); /* a cursor that is a link: the Python names it */
    if (fd < 0)
        return 0;
    char buf[8192];
    Py_ssize_t n = read(fd, buf, sizeof buf); /* a shorter read of a regular file is its end, as read_cursor takes it */
    close(fd);
    if (n < 0 || n >= (Py_ssize_t)sizeof buf)
        return 0;
    PyObject *data = PyBytes_FromStringAndSize(buf, n);
    if (data == NULL)
        return -1;
    PyObject *values = PyObject_CallOneArg(cursor_values, data);
    Py_DECREF(data);
    if (values == NULL)
        return -1;
    int ret = 0;
    if (!PyDict_CheckExact(values))
        goto done;
    static const char *append_keys[] = {"schema", "kind", "source", "offset", "ord", "size", "last_seq", "state", NULL};
    static const char *snap_keys[] = {"schema", "kind", "source", "size", "last_seq", "state", NULL};
    PyObject *kind = PyDict_GetItemString(values, "kind"), *state = PyDict_GetItemString(values, "state");
    *append = str_is(kind, "append");
    if (!*append && !str_is(kind, "snapshot"))
        goto done;
    for (const char **k = *append ? append_keys : snap_keys; *k != NULL; k++)
        if (PyDict_GetItemString(values, *k) == NULL)
            goto done;
    if (!PyUnicode_CheckExact(state) || str_is(state, "conflict"))
        goto done;
    if (*append) {
        int64_t torn = 0, reread = 0;
        PyObject *t = PyDict_GetItemString(values, "torn"), *r = PyDict_GetItemString(values, "reread_seq");
        if ((t != NULL && (ret = int64_of(t, &torn)) <= 0) || (r != NULL && (ret = int64_of(r, &reread)) <= 0))
            goto done;
        ret = 0;
        if (torn != 0 || reread != 0)
            goto done;
        if ((ret = int64_of(PyDict_GetItemString(values, "ord"), ord)) <= 0 ||
            (ret = int64_of(PyDict_GetItemString(values, "offset"), offset)) <= 0 ||
            (ret = int64_of(PyDict_GetItemString(values, "last_seq"), last_seq)) <= 0)
            goto done;
    }
    ret = 1;
done:
    Py_DECREF(values);
    return ret;
}

/* The configuration session() is called with, once for every session (asz_core.verify.clean). */
typedef struct {
    Py_ssize_t most;
    file_fns fn;
    PyObject *prefix_kind, *cursor_values, *snapshot_kinds, *unchecked_kinds, *not_streams;
    const char *state_name;
    const char *needle; /* the bytes searched for in each file of a session holding a file of kind needle_kind */
    Py_ssize_t needle_len;
    PyObject *needle_kind; /* NULL: no search */
    PyObject *landed_name; /* layout.LandedName: the session's listing handed back too; NULL: not */
} s_consts;

/* The names_agree test of file f (header h) in holding directory dir of held (streams of them under streams/): 1
 * when its kind, seq, session and stream directory surely agree, 0 when the Python must say, -1 on an exception. */
static int s_names_agree(const s_file *f, PyObject *h, PyObject *sname, const strings *held, Py_ssize_t streams,
                         const s_consts *cs) {
    PyObject *kind = PyObject_GetAttrString(h, "kind"), *seq = PyObject_GetAttrString(h, "seq"),
             *session = PyObject_GetAttrString(h, "session"), *stream = PyObject_GetAttrString(h, "stream");
    int ret = -1;
    if (kind == NULL || seq == NULL || session == NULL || stream == NULL)
        goto done;
    int64_t v;
    ret = 0;
    if (f->dir >= streams || PyUnicode_GET_LENGTH(sname) == 0 || !PyUnicode_CheckExact(kind) || !PyUnicode_CheckExact(stream))
        goto done;
    int same = PyUnicode_Compare(kind, f->kind) == 0 && int64_of(seq, &v) == 1 && v == f->seq &&
               PyUnicode_CheckExact(session) && PyUnicode_Compare(session, sname) == 0;
    if (PyErr_Occurred() || !same) {
        ret = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    int other = PySequence_Contains(cs->not_streams, kind);
    if (other != 0) {
        ret = other < 0 ? -1 : 0;
        goto done;
    }
    const char *dir = held->s[f->dir], *base = strrchr(dir, '/') + 1; /* streams/<base> */
    const char *want = PyUnicode_GET_LENGTH(stream) ? PyUnicode_AsUTF8(stream) : "main";
    if (want == NULL) {
        ret = -1;
        goto done;
    }
    ret = strcmp(base, want) == 0 && strchr(base, '\\') == NULL;
done:
    Py_XDECREF(kind);
    Py_XDECREF(seq);
    Py_XDECREF(session);
    Py_XDECREF(stream);
    return ret;
}

/* Check every file of l (sorted by seq) as landed() does, into its s_file: 1, 0 when the session goes to the
 * Python, -1 with an exception set. With found (a list), (path, whole-file digest) of each file is appended to it
 * (the digest None unless want_whole). With unheld (a list), the path (str) of each file whose bytes, read whole here,
 * do not hold cs->needle is appended to it. */
static int s_files(s_listed *l, const strings *held, Py_ssize_t streams, PyObject *sname, const s_consts *cs,
                   PyObject *found, int want_whole, PyObject *unheld, Py_ssize_t *records) {
    char path[4096];
    Py_ssize_t cap = 0;
    rbuf own, *b = rbuf_take(&own);
    line_pos *ps = NULL;
    int ret = 1;
    for (Py_ssize_t i = 0; ret == 1 && i < l->nf; i++) {
        s_file *f = &l->f[i];
        if ((i > 0 && f->seq == l->f[i - 1].seq) ||
            (size_t)snprintf(path, sizeof path, "%s/%s", held->s[f->dir], f->name) >= sizeof path) {
            ret = 0; /* a seq twice: a problem */
            break;
        }
        file_read rd = {cs->most, unheld != NULL ? cs->needle : NULL, cs->needle_len, 0222, 0, 0};
        file_got fg;
        if ((ret = file_check(path, want_whole, &cs->fn, b, &rd, &ps, &cap, &fg)) != 1) {
            ret = ret == -1 ? -1 : 0; /* not readable here, larger than one read, writable, not whole: the Python says */
            break;
        }
        ret = s_names_agree(f, fg.header, sname, held, streams, cs);
        if (ret == 1 && found != NULL) {
            PyObject *pair = Py_BuildValue("(sO)", path, fg.whole ? fg.whole : Py_None);
            if (pair == NULL || PyList_Append(found, pair) < 0)
                ret = -1;
            Py_XDECREF(pair);
        }
        if (ret == 1 && unheld != NULL && !rd.held) {
            PyObject *p = PyUnicode_DecodeFSDefault(path);
            if (p == NULL || PyList_Append(unheld, p) < 0)
                ret = -1;
            Py_XDECREF(p);
        }
        Py_DECREF(fg.header);
        Py_XDECREF(fg.whole);
        f->k = fg.k;
        f->run = fg.run;
        f->docs = 1;
        for (Py_ssize_t j = 0; j < fg.k; j++)
            f->docs &= ps[j].ord == 1 && ps[j].off == 0;
        if (fg.k > 0) {
            f->first_ord = ps[0].ord;
            f->first_off = ps[0].off;
            f->last_ord = ps[fg.k - 1].ord;
            f->last_end = ps[fg.k - 1].off + ps[fg.k - 1].size + 1;
        }
        *records += fg.k;
    }
    rbuf_give(b);
    PyMem_Free(ps);
    return ret;
}

/* The walk of one stream or run directory and kind (dir, kind) as _Walk.feed and _Walk.end find it clean, and its
 * cursor (cursor: an index into l->c, -1 for none): 1, 0 when the session goes to the Python, -1 on an exception.
 * *bare is set when the key has files, no cursor and a kind that is checked (a stream without a cursor). */
static int s_walk(const s_listed *l, Py_ssize_t dir, PyObject *kind, Py_ssize_t cursor, const strings *held,
                  const s_consts *cs, int *bare) {
    int unchecked = PySequence_Contains(cs->unchecked_kinds, kind), snap = PySequence_Contains(cs->snapshot_kinds, kind);
    if (unchecked < 0 || snap < 0)
        return -1;
    int64_t exp_ord = 1, exp_off = 0, reached_ord = 0, reached_off = 0;
    int files = 0;
    for (Py_ssize_t i = 0; i < l->nf; i++) {
        const s_file *f = &l->f[i];
        if (f->dir != dir || f->kind != kind)
            continue;
        files = 1;
        if (unchecked || f->k == 0)
            continue;
        if (snap) {
            if (!f->docs)
                return 0; /* a one-document file holds ord 1 at off 0 only */
            continue;
        }
        if (!f->run || f->first_ord != exp_ord || f->first_off != exp_off)
            return 0; /* a gap, or records landed again: the Python walks it */
        exp_ord = f->last_ord + 1;
        exp_off = f->last_end;
        if (exp_ord - 1 > reached_ord || (exp_ord - 1 == reached_ord && exp_off > reached_off)) {
            reached_ord = exp_ord - 1;
            reached_off = exp_off;
        }
    }
    *bare = 0;
    if (cursor < 0) {
        *bare = files && !unchecked;
        return 1;
    }
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", held->s[dir], l->c[cursor].name) >= sizeof path)
        return 0;
    int append = 0;
    int64_t c_ord = 0, c_off = 0, c_last = 0;
    int got = s_cursor_read(path, cs->cursor_values, &append, &c_ord, &c_off, &c_last);
    if (got != 1 || !append || snap || unchecked)
        return got;
    for (Py_ssize_t i = 0; i < l->nf; i++) { /* _Walk.end: no file the cursor names is past it */
        const s_file *f = &l->f[i];
        if (f->dir == dir && f->kind == kind && f->k > 0 && f->seq && f->seq <= c_last &&
            (f->last_ord > c_ord || f->last_end > c_off))
            return 0;
    }
    return reached_ord >= c_ord && reached_off >= c_off; /* short of the cursor: the Python looks again */
}

/* 1 for a writer's temporary file name (.<name>.<pid>.tmp as asz_core.verify.leftover looks for it: a leading '.'
 * and a trailing .tmp). */
static int temporary_name(const char *name) {
    size_t n = strlen(name);
    return name[0] == '.' && n >= 4 && strcmp(name + n - 4, ".tmp") == 0;
}

/* Add to out the path dir/name of each temporary file name of es (dir as given, no separator doubled): 0, -1 when
 * out of memory. */
static int temporaries_of(const char *dir, const entries *es, strings *out) {
    size_t dn = strlen(dir);
    const char *sep = (dn > 0 && dir[dn - 1] == '/') ? "" : "/";
    char path[4096];
    for (Py_ssize_t i = 0; i < es->n; i++) {
        if (!temporary_name(es->e[i].name))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s%s%s", dir, sep, es->e[i].name) >= sizeof path || strings_add(out, path, "") < 0)
            return -1;
    }
    return 0;
}

/* The temporaries of directory dir (read whole, every entry) added to out: 1, 0 when the Python must look (dir does
 * not read here: a name not printable ASCII, a failing stat), -1 when out of memory. */
static int temporaries_in(const char *dir, strings *out) {
    entries es = {NULL, 0, 0};
    int got = read_dir(dir, 0, &es);
    int ret = got < 0 ? 0 : temporaries_of(dir, &es, out) < 0 ? -1 : 1;
    entries_free(&es);
    return ret;
}

/* A list of str of the paths in l; NULL with an exception set. */
static PyObject *str_list(const strings *l) {
    PyObject *out = PyList_New(l->n);
    for (Py_ssize_t i = 0; out != NULL && i < l->n; i++) {
        PyObject *s = PyUnicode_DecodeFSDefault(l->s[i]);
        if (s == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, s);
    }
    return out;
}

PyDoc_STRVAR(session_doc,
"session(session_dir, name, digests, consts) -> (streams, records, uncursored, files, back, temporaries,\n"
"index_temporaries, unheld, listed) | None\n\n"
"One session of asz verify in one call where it is clean: what asz_core.verify.walk._verify_session returns for it\n"
"(duplicates 0) when it finds no problem and no warning, and how many landed files it holds; None where the Python\n"
"must check it. ``name`` is the session's name as _verify_session tests headers against it ('' for none), ``digests``\n"
"a dict that receives each file's whole-file SHA-256 hex by path when the session is answered, or None; ``consts`` is\n"
"(most, sha256, closing_pair, decode_header, prefix_kind, cursor_values, snapshot_kinds, unchecked_kinds,\n"
"not_streams, session_state): see asz_core.verify.clean. What the same listing tells besides (issue 22, session 32):\n"
"``back`` True when the landing stamps of its files, taken in seq order, go back somewhere (asz_core.verify.stamps);\n"
"``temporaries`` the paths (str) of the writers' temporaries (.<name>.<pid>.tmp) in the session directory, its\n"
"provider_body/ and each streams/<d> and runs/<d> (asz_core.verify.leftover.leftover_temporaries), None where one of\n"
"those is a link or of an untold type, or a directory does not read here; ``index_temporaries`` those of its index/\n"
"(leftover.parse_temporaries), None where it does not read here. ``consts`` may end with ``needle`` (bytes) and\n"
"``needle_kind`` (str): when the session holds a landed file of that kind, ``unheld`` is the list of the paths (str)\n"
"of its landed files whose whole bytes do not hold ``needle`` (asz_core.verify.clean.CALL_NAME: the arguments check\n"
"then reads none of them for MCP calls, issue 22, session 34); else None. ``consts`` may end with ``landed_name``\n"
"(layout.LandedName): ``listed`` is then the files of the session's listing as listing() gives them, [(LandedName,\n"
"path)] (the chain check of the session's conversation then does not list it again, issue 22, session 40); else None.");

/* The files of an answered session as listing() gives them (its first field: [(LandedName, path)] in seq order; the
 * session holds no skeleton and no seq twice, so seq order is listing()'s order), from what session() listed. */
static PyObject *s_listing(const s_listed *l, const strings *held, PyObject *landed_name) {
    PyObject *out = PyList_New(l->nf);
    for (Py_ssize_t i = 0; out != NULL && i < l->nf; i++) {
        const s_file *f = &l->f[i];
        const char *seq, *ext, *d = held->s[f->dir];
        Py_ssize_t seq_len, plen = landed_parts(f->name, &seq, &seq_len, &ext), dn = (Py_ssize_t)strlen(d);
        char here[4096];
        PyObject *ln = NULL, *path = NULL, *pair = NULL;
        if (plen > 0 && dn + 1 < (Py_ssize_t)sizeof here) {
            memcpy(here, d, (size_t)dn);
            here[dn] = '/';
            PyObject *stamp = PyUnicode_FromStringAndSize(f->name + plen + 1, 26);
            PyObject *seq_obj = PyLong_FromLongLong(f->seq);
            PyObject *ext_obj = PyUnicode_FromStringAndSize(ext, 2);
            ln = (stamp && seq_obj && ext_obj) ? PyObject_CallFunctionObjArgs(landed_name, f->kind, stamp, seq_obj, ext_obj, NULL) : NULL;
            Py_XDECREF(stamp);
            Py_XDECREF(seq_obj);
            Py_XDECREF(ext_obj);
            path = ln != NULL ? joined(here, dn + 1, f->name) : NULL;
            pair = path != NULL ? PyTuple_Pack(2, ln, path) : NULL;
        } else {
            PyErr_SetString(PyExc_ValueError, "session: a listed name that is not a landed file's");
        }
        Py_XDECREF(ln);
        Py_XDECREF(path);
        if (pair == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, pair);
    }
    return out;
}

static PyObject *session(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *base_obj, *sname, *digests, *consts;
    s_consts cs;
    cs.needle = NULL;
    cs.needle_len = 0;
    cs.needle_kind = NULL;
    cs.landed_name = NULL;
    if (!PyArg_ParseTuple(args, "UUOO!:session", &base_obj, &sname, &digests, &PyTuple_Type, &consts) ||
        !PyArg_ParseTuple(consts, "nOOOO!OOOOs|y#UO:session", &cs.most, &cs.fn.sha256, &cs.fn.closing_pair,
                          &cs.fn.decode_header, &PyDict_Type, &cs.prefix_kind, &cs.cursor_values, &cs.snapshot_kinds,
                          &cs.unchecked_kinds, &cs.not_streams, &cs.state_name, &cs.needle, &cs.needle_len,
                          &cs.needle_kind, &cs.landed_name))
        return NULL;
    if (cs.needle_len == 0)
        cs.needle_kind = NULL;
    Py_ssize_t bn;
    const char *base = PyUnicode_AsUTF8AndSize(base_obj, &bn);
    if (base == NULL)
        return NULL;
    if (!PyUnicode_IS_ASCII(base_obj) || bn == 0 || bn > 3000 || !plain_name(base))
        Py_RETURN_NONE;
    strings held = {NULL, 0, 0};
    s_listed l = {NULL, 0, 0, NULL, 0, 0};
    Py_ssize_t streams = 0, records = 0, keys = 0, bare_keys = 0;
    PyObject *found = digests != Py_None ? PyList_New(0) : NULL, *out = NULL;
    int odd = 0;
    int ok = (digests == Py_None || found != NULL) ? holding(base, bn, &held, &streams, &odd) : -1;
    strings tmps = {NULL, 0, 0}, itmps = {NULL, 0, 0};
    int tmps_known = !odd, itmps_known = 1, back = 0;
    for (Py_ssize_t i = 0; ok == 1 && i < held.n; i++) {
        entries es = {NULL, 0, 0};
        int got = read_dir(held.s[i], 0, &es);
        ok = got < 0 ? 0 : s_take(&l, i, &es, cs.prefix_kind);
        if (ok == 1 && tmps_known && temporaries_of(held.s[i], &es, &tmps) < 0)
            ok = -1;
        entries_free(&es);
    }
    if (ok == 1 && tmps_known) { /* the session directory itself, then its index/ (a parse's temporaries) */
        int got = temporaries_in(base, &tmps);
        ok = got < 0 ? -1 : ok;
        tmps_known = got == 1;
    }
    if (ok == 1) {
        char idx[4096];
        snprintf(idx, sizeof idx, "%s%sindex", base, base[bn - 1] == '/' ? "" : "/");
        int got = temporaries_in(idx, &itmps);
        ok = got < 0 ? -1 : ok;
        itmps_known = got == 1;
    }
    if (ok == 1 && l.nf > 1)
        qsort(l.f, (size_t)l.nf, sizeof(s_file), by_seq);
    for (Py_ssize_t i = 1; ok == 1 && i < l.nf && !back; i++) { /* the stamp: 26 bytes after the prefix's '-' */
        const char *a = strchr(l.f[i - 1].name, '-') + 1, *b = strchr(l.f[i].name, '-') + 1;
        back = memcmp(b, a, 26) < 0;
    }
    PyObject *unheld = NULL; /* the files holding no needle, when the session holds a file of needle_kind */
    for (Py_ssize_t i = 0; ok == 1 && cs.needle_kind != NULL && unheld == NULL && i < l.nf; i++) {
        int same = PyUnicode_Compare(l.f[i].kind, cs.needle_kind);
        if (same == -1 && PyErr_Occurred())
            ok = -1;
        else if (same == 0 && (unheld = PyList_New(0)) == NULL)
            ok = -1;
    }
    if (ok == 1)
        ok = s_files(&l, &held, streams, sname, &cs, found, digests != Py_None, unheld, &records);
    /* every key (dir, kind) once: a file's whose no earlier file holds it, then a cursor's no file holds */
    for (Py_ssize_t i = 0; ok == 1 && i < l.nf + l.nc; i++) {
        Py_ssize_t dir = i < l.nf ? l.f[i].dir : l.c[i - l.nf].dir, cursor = -1;
        PyObject *kind = i < l.nf ? l.f[i].kind : l.c[i - l.nf].kind;
        int seen = 0, bare = 0;
        for (Py_ssize_t j = 0; j < i && j < l.nf && !seen; j++)
            seen = l.f[j].dir == dir && l.f[j].kind == kind;
        for (Py_ssize_t j = 0; j < l.nc && !seen; j++)
            if (l.c[j].dir == dir && l.c[j].kind == kind) {
                if (i >= l.nf && j < i - l.nf)
                    seen = 1;
                else
                    cursor = j;
            }
        if (seen)
            continue;
        keys++;
        ok = s_walk(&l, dir, kind, cursor, &held, &cs, &bare);
        bare_keys += bare;
    }
    if (ok == 1 && found != NULL)
        for (Py_ssize_t i = 0; ok == 1 && i < PyList_GET_SIZE(found); i++) {
            PyObject *pair = PyList_GET_ITEM(found, i);
            if (PyDict_SetItem(digests, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)) < 0)
                ok = -1;
        }
    if (ok == 1) {
        Py_ssize_t uncursored = 0;
        if (bare_keys) { /* a collect pass landed the session here (its state file): os.path.exists */
            char path[4096];
            struct stat st;
            snprintf(path, sizeof path, "%s%s%s", base, base[bn - 1] == '/' ? "" : "/", cs.state_name);
            uncursored = stat(path, &st) == 0 ? bare_keys : 0;
        }
        PyObject *t = tmps_known ? str_list(&tmps) : Py_NewRef(Py_None);
        PyObject *it = itmps_known ? str_list(&itmps) : Py_NewRef(Py_None);
        PyObject *files = cs.landed_name != NULL ? s_listing(&l, &held, cs.landed_name) : Py_NewRef(Py_None);
        if (t != NULL && it != NULL && files != NULL)
            out = Py_BuildValue("(nnnnOOOOO)", keys, records, uncursored, l.nf, back ? Py_True : Py_False, t, it,
                                unheld != NULL ? unheld : Py_None, files);
        Py_XDECREF(t);
        Py_XDECREF(it);
        Py_XDECREF(files);
    } else if (ok == 0) {
        out = Py_NewRef(Py_None);
    }
    strings_free(&tmps);
    strings_free(&itmps);
    strings_free(&held);
    s_listed_free(&l);
    Py_XDECREF(found);
    Py_XDECREF(unheld);
    return out;
}

/* open_below(path, bits): asz_core.storage.modes.open_below in C (issue 22, session 49): how many entries under
 * directory path (not path itself; a symbolic link not followed and not counted) have a permission bit in bits, and
 * the first of them met, in the Python walk's order: a stack of folders, the last pushed read next, each folder's
 * entries in readdir's order (what os.scandir gives), each entry's path its folder's joined to its name as
 * os.path.join does; a folder named in the dict parts is not read, its (n, first) there counted in its place. Each entry is looked at by fstatat on its folder's descriptor, not by its whole path (the
 * kernel walks no path again). A folder that does not open and an entry whose stat fails are passed over, as the
 * Python passes over an OSError. */
typedef struct {
    char **p;
    Py_ssize_t n, cap;
} path_stack;

static int stack_push(path_stack *s, char *path) {
    if (s->n == s->cap) {
        Py_ssize_t more = s->cap ? s->cap * 2 : 64;
        char **grown = realloc(s->p, (size_t)more * sizeof(char *));
        if (grown == NULL)
            return -1;
        s->p = grown;
        s->cap = more;
    }
    s->p[s->n++] = path;
    return 0;
}

static char *path_join(const char *dir, const char *name) {
    size_t dn = strlen(dir), nn = strlen(name);
    int sep = dn > 0 && dir[dn - 1] != '/';
    char *out = malloc(dn + sep + nn + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, dir, dn);
    if (sep)
        out[dn] = '/';
    memcpy(out + dn + sep, name, nn + 1);
    return out;
}

/* The (n, first) parts holds for folder dir (a new reference), NULL when it holds none or on an error (then *bad). */
static PyObject *part_of(PyObject *parts, const char *dir, int *bad) {
    PyObject *key = PyUnicode_DecodeFSDefault(dir), *got = NULL;
    if (key == NULL) {
        *bad = 1;
        return NULL;
    }
    got = PyDict_GetItemWithError(parts, key);
    Py_DECREF(key);
    if (got == NULL) {
        *bad = PyErr_Occurred() != NULL;
        return NULL;
    }
    if (!PyTuple_Check(got) || PyTuple_GET_SIZE(got) != 2) {
        PyErr_SetString(PyExc_TypeError, "parts: each value is a pair (n, first)");
        *bad = 1;
        return NULL;
    }
    return Py_NewRef(got);
}

static PyObject *open_below(PyObject *self, PyObject *args) {
    PyObject *top_obj, *parts = Py_None, *first_part = NULL;
    unsigned int bits;
    if (!PyArg_ParseTuple(args, "O&I|O", PyUnicode_FSConverter, &top_obj, &bits, &parts))
        return NULL;
    if (parts != Py_None && !PyDict_Check(parts)) {
        Py_DECREF(top_obj);
        PyErr_SetString(PyExc_TypeError, "parts must be a dict or None");
        return NULL;
    }
    path_stack s = {NULL, 0, 0};
    char *first = NULL, *top = strdup(PyBytes_AS_STRING(top_obj));
    Py_DECREF(top_obj);
    Py_ssize_t n = 0;
    int ok = top != NULL && stack_push(&s, top) == 0;
    int bad = 0; /* an error raised by a look in parts */
    if (!ok)
        free(top);
    while (ok && s.n > 0) {
        char *dir = s.p[--s.n];
        if (parts != Py_None) { /* a folder another walk told of: its count and first taken, not read */
            PyObject *part = part_of(parts, dir, &bad);
            if (part != NULL) {
                Py_ssize_t k = PyLong_AsSsize_t(PyTuple_GET_ITEM(part, 0));
                if (k == -1 && PyErr_Occurred())
                    bad = 1;
                n += k;
                if (first == NULL && first_part == NULL && PyObject_IsTrue(PyTuple_GET_ITEM(part, 1)) == 1)
                    first_part = Py_NewRef(PyTuple_GET_ITEM(part, 1));
                Py_DECREF(part);
            }
            if (bad) {
                free(dir);
                ok = 0;
                break;
            }
            if (part != NULL) {
                free(dir);
                continue;
            }
        }
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *dp = fd < 0 ? NULL : fdopendir(fd);
        if (dp == NULL) {
            if (fd >= 0)
                close(fd);
            free(dir);
            continue;
        }
        struct dirent *de;
        while (ok && (de = readdir(dp)) != NULL) {
            const char *name = de->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
                continue;
            struct stat st;
            if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISLNK(st.st_mode))
                continue;
            int open_one = (st.st_mode & 07777 & bits) != 0, is_dir = S_ISDIR(st.st_mode);
            if (!open_one && !is_dir)
                continue;
            char *path = path_join(dir, name);
            if (path == NULL) {
                ok = 0;
                break;
            }
            if (open_one) {
                n++;
                if (first == NULL && first_part == NULL && (first = strdup(path)) == NULL)
                    ok = 0;
            }
            if (!ok || !is_dir || stack_push(&s, path) != 0) {
                ok = ok && !is_dir; /* a folder not pushed: out of memory */
                free(path);
            }
        }
        closedir(dp);
        free(dir);
    }
    for (Py_ssize_t i = 0; i < s.n; i++)
        free(s.p[i]);
    free(s.p);
    PyObject *out = NULL;
    if (!ok && !bad)
        PyErr_NoMemory();
    else if (ok && first_part != NULL)
        out = Py_BuildValue("(nO)", n, first_part);
    else if (ok)
        out = Py_BuildValue("(nN)", n, PyUnicode_DecodeFSDefault(first != NULL ? first : ""));
    Py_XDECREF(first_part);
    free(first);
    return out;
}

PyDoc_STRVAR(open_below_doc,
"open_below(path, bits, parts=None) -> (n, first): how many entries under folder path (links neither followed nor\n"
"counted) have a mode bit in bits, and the first met, as asz_core.storage.modes.open_below(path, bits, parts) gives\n"
"them: a folder whose path (as the walk spells it) is a key of the dict parts is not read, its (n, first) counted.");

static PyMethodDef methods[] = {
    {"open_below", open_below, METH_VARARGS, open_below_doc},
    {"positions", positions, METH_VARARGS, positions_doc},
    {"listing", listing, METH_VARARGS, listing_doc},
    {"landed", landed, METH_VARARGS, landed_doc},
    {"session", session, METH_VARARGS, session_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "linescan",
    "Every record line's positions read in one call: the compiled half of asz verify's scan (asz_core.verify.landed).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_linescan(void) { return with_source_digest(PyModule_Create(&module)); }
