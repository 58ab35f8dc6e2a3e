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
 *
 *     index_lines_marked(data, end) -> (first, marked)
 *
 * is index_lines and, in the same pass, whether a line it vouched for holds the bytes "untimed (the mark of records
 * whose time does not read, asz_core.verify.untimed.MARK): the state files' check then does not search the bytes a
 * second time (issue 22: 58 ms of a 1 GB root's 127 MB of index). In a vouched line every '"' byte is a string's
 * opening quote, its closing one (always followed by ':', ',', '}' or ']') or an escaped one, and the strings are read
 * here, so looking after each opening and each escaped quote finds every place the bytes can be.
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

/* The first byte from p (at most end) that is not plain: not 0x20-0x7F, or '"' or '\\'. Where SSE2 is (every x86-64),
 * 16 bytes are looked at a time, never one at or past end (issue 22, session 48: the byte-at-a-time loop was most of
 * a session index's check, 135 MB at 1 GB landed, whose strings are mostly row digests of 16 plain bytes). */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
static inline const unsigned char *plain_run(const unsigned char *p, const unsigned char *end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        /* compared as signed bytes, one below 0x20 and one of 0x80 or more are both less than 0x20 */
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                    _mm_cmplt_epi8(v, space));
        unsigned m = (unsigned)_mm_movemask_epi8(stop);
        if (m != 0)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (p < end && plain[*p])
        p++;
    return p;
}

/* The byte after the closing quote of the string whose opening quote is at p; NULL when it is not vouched for (cut,
 * a byte below 0x20, an escape orjson refuses or one not listed, UTF-8 that is not valid). *escaped is set when the
 * string holds a backslash. */
static const unsigned char *string_end_marked(const unsigned char *p, const unsigned char *end, int *escaped, int *mark) {
    p++;
    if (mark != NULL && end - p >= 7 && memcmp(p, "untimed", 7) == 0)
        *mark = 1; /* the opening quote and untimed: MARK */
    for (;;) {
        p = plain_run(p, end);
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
                if (e == '"' && mark != NULL && end - p >= 9 && memcmp(p + 2, "untimed", 7) == 0)
                    *mark = 1; /* an escaped quote and untimed: MARK too */
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

static const unsigned char *string_end(const unsigned char *p, const unsigned char *end, int *escaped) {
    return string_end_marked(p, end, escaped, NULL);
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

/* The byte after the number, true, false or null at q; NULL when none is there or it is not vouched for (a number
 * of more than 19 digits before any exponent, an exponent of more than 2 digits: always finite for orjson, an int
 * or a float below 10^118). */
static const unsigned char *scalar_end(const unsigned char *q, const unsigned char *end) {
    int integer;
    unsigned c = *q;
    if (c == '-' || (c >= '0' && c <= '9'))
        return number_end(q, end, &integer, 19);
    if (c == 't' && end - q >= 4 && memcmp(q, "true", 4) == 0)
        return q + 4;
    if (c == 'f' && end - q >= 5 && memcmp(q, "false", 5) == 0)
        return q + 5;
    if (c == 'n' && end - q >= 4 && memcmp(q, "null", 4) == 0)
        return q + 4;
    return NULL;
}

/* 1 when the line [p, end) is vouched for (see the head of this file), else 0. With mark not NULL, *mark is set to 1
 * when a string of the line holds MARK's bytes ("untimed: its opening quote or an escaped quote, then untimed); in a
 * line it vouches for every '"' byte is a string's opening quote, its closing one (followed by ':', ',', '}' or ']')
 * or an escaped one, so no other place can hold them. */
static int line_ok(const unsigned char *p, const unsigned char *end, int *mark) {
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
                q = string_end_marked(q, end, &escaped, mark);
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
                q = string_end_marked(q, end, &escaped, mark);
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
            } else {
                q = scalar_end(q, end);
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

/* ---------------------------------------------------------------------------------------------------------------
 * round_frames: a round file's node and relation frames vouched for without building them (issue 22, asz verify's
 * chain checks: docs/performance.md "Session 28"). asz_core.flow.round_read.check_round applies every other rule.
 *
 *     round_frames(data, start, round, through) -> None, or (stop, nodes, relations)
 *
 * From offset start (the byte after the header line), each line that begins {"t":"node", or {"t":"relation", is a
 * frame; the first line that begins otherwise (or the end of data) is stop, the offset where the caller goes on.
 * None as soon as one frame is not vouched for: the caller then reads the whole round the full way (decode_round),
 * which names what is wrong, so the findings are always the Python's. A frame is vouched for only in the writer's
 * own form (asz_core.flow.round: its keys in that order, each once, no whitespace), which decode_round reads as that
 * entity with no rule broken:
 *
 *     {"t":"node","id":ID,"revision":N,"tombstone":true}
 *     {"t":"node","id":ID,"revision":N,"kind":S[,"parent":S][,"stream":S][,"ref":REF][,"refs":[REF,...]][,"attrs":{...}]}
 *     {"t":"relation","id":ID,"revision":N,"tombstone":true}
 *     {"t":"relation","id":ID,"revision":N,"type":S1,"from":S1,"to":S1,"quality":S[,"via":S][,"evidence":[REF,...]]}
 *
 * N is round's own digits; ID a string with no backslash, not empty, each one after the one before in its group
 * (node or relation) in byte order (the writer sorts ids in code point order, which UTF-8's byte order keeps), so
 * no id is seen twice; S a string and S1 one that is not empty, each as index_lines vouches for strings; REF
 * {"seq":N,"row":N} or {"seq":N,"row":N,"block":N} with 1 <= seq <= through, row >= 1, block >= 0, each of 1 to 18
 * digits with no sign and no leading zero; attrs an object of values as index_lines vouches for them (at most 512
 * deep), none of whose own keys holds a backslash or is "provider_bodies" (a node holding provider bodies has their
 * rules checked by the Python). */

/* The byte after the JSON value at q (any value as line_ok vouches for it, at most MAX_DEPTH deep); NULL when it is
 * not vouched for. With keys set, q must be an object and none of its own keys may hold a backslash or be
 * "provider_bodies". */
static const unsigned char *value_end(const unsigned char *q, const unsigned char *end, int keys) {
    char stack[MAX_DEPTH];
    int depth = 0, escaped;
    if (keys && (q >= end || *q != '{'))
        return NULL;
    for (;;) {
        /* a value at q */
        if (q >= end)
            return NULL;
        unsigned c = *q;
        int opened = 0;
        if (c == '"') {
            escaped = 0;
            q = string_end(q, end, &escaped);
        } else if (c == '{' || c == '[') {
            if (depth >= MAX_DEPTH)
                return NULL;
            stack[depth++] = (char)c;
            q++;
            if (q < end && *q == (c == '{' ? '}' : ']')) {
                depth--;
                q++;
            } else {
                opened = 1;
            }
        } else {
            q = scalar_end(q, end);
        }
        if (q == NULL)
            return NULL;
        if (!opened) {
            /* after a value: close what ends here, then ',' and the next member, or the end of the outer value */
            for (;;) {
                if (depth == 0)
                    return q;
                if (q >= end)
                    return NULL;
                c = *q;
                if ((c == '}' && stack[depth - 1] == '{') || (c == ']' && stack[depth - 1] == '[')) {
                    q++;
                    depth--;
                    continue;
                }
                if (c != ',')
                    return NULL;
                q++;
                break;
            }
            if (stack[depth - 1] == '[')
                continue; /* the next element */
        } else if (stack[depth - 1] == '[') {
            continue; /* the first element */
        }
        /* a key of the object stack[depth - 1], then ':' */
        if (q >= end || *q != '"')
            return NULL;
        escaped = 0;
        const unsigned char *k = q;
        q = string_end(q, end, &escaped);
        if (q == NULL)
            return NULL;
        if (keys && depth == 1 && (escaped || (q - k == 17 && memcmp(k, "\"provider_bodies\"", 17) == 0)))
            return NULL;
        if (q >= end || *q != ':')
            return NULL;
        q++;
    }
}

/* The byte after the string ID at q (a key's value: no backslash, not empty), its bytes in *id and *len; NULL when
 * not vouched for. With nonempty 0, an empty string is vouched for too. */
static const unsigned char *plain_string(const unsigned char *q, const unsigned char *end, int nonempty, int noescape,
                                         const unsigned char **id, Py_ssize_t *len) {
    int escaped = 0;
    if (q >= end || *q != '"')
        return NULL;
    const unsigned char *e = string_end(q, end, &escaped);
    if (e == NULL || (noescape && escaped) || (nonempty && e - q == 2))
        return NULL;
    if (id != NULL) {
        *id = q + 1;
        *len = (e - q) - 2;
    }
    return e;
}

/* The byte after a count at q (1 to 18 digits, no sign, no leading zero), its value in *v; NULL when not one. */
static const unsigned char *count_end(const unsigned char *q, const unsigned char *end, long long *v) {
    const unsigned char *s = q;
    long long n = 0;
    while (q < end && *q >= '0' && *q <= '9' && q - s < 18) { /* 18 digits: below 2^63, no overflow */
        n = n * 10 + (*q - '0');
        q++;
    }
    if (q == s || (*s == '0' && q - s > 1) || (q < end && *q >= '0' && *q <= '9'))
        return NULL;
    *v = n;
    return q;
}

/* 1 when [q, end) begins with the len bytes of lit (then *at is moved past them), else 0. */
static int lit(const unsigned char **at, const unsigned char *end, const char *text, size_t len) {
    if ((size_t)(end - *at) < len || memcmp(*at, text, len) != 0)
        return 0;
    *at += len;
    return 1;
}
#define LIT(at, end, s) lit(&(at), (end), (s), sizeof(s) - 1)

/* The byte after a ref at q ({"seq":N,"row":N[,"block":N]}, 1 <= seq <= through, row >= 1); NULL when not vouched. */
static const unsigned char *ref_end(const unsigned char *q, const unsigned char *end, long long through) {
    long long seq, row, block;
    if (!LIT(q, end, "{\"seq\":") || (q = count_end(q, end, &seq)) == NULL || seq < 1 || seq > through)
        return NULL;
    if (!LIT(q, end, ",\"row\":") || (q = count_end(q, end, &row)) == NULL || row < 1)
        return NULL;
    if (LIT(q, end, ",\"block\":") && (q = count_end(q, end, &block)) == NULL)
        return NULL;
    return LIT(q, end, "}") ? q : NULL;
}

/* The byte after a list of refs at q ([] or [REF,...]); NULL when not vouched for. */
static const unsigned char *refs_end(const unsigned char *q, const unsigned char *end, long long through) {
    if (!LIT(q, end, "["))
        return NULL;
    if (LIT(q, end, "]"))
        return q;
    for (;;) {
        if ((q = ref_end(q, end, through)) == NULL)
            return NULL;
        if (LIT(q, end, "]"))
            return q;
        if (!LIT(q, end, ","))
            return NULL;
    }
}

/* The last id vouched for in a group (node or relation): each next one must come after it in byte order. */
typedef struct {
    const unsigned char *id;
    Py_ssize_t len;
} last_id;

static int after(last_id *last, const unsigned char *id, Py_ssize_t len) {
    if (last->id != NULL) {
        Py_ssize_t n = len < last->len ? len : last->len;
        int c = memcmp(last->id, id, (size_t)n);
        if (c > 0 || (c == 0 && last->len >= len))
            return 0;
    }
    last->id = id;
    last->len = len;
    return 1;
}

/* 1 when the frame [p, e), which begins with its {"t":"node", or {"t":"relation", (node says which), is vouched for
 * (see above), else 0. */
static int frame_ok(const unsigned char *p, const unsigned char *e, int node, const char *revision, size_t rlen,
                    long long through, last_id *last) {
    const unsigned char *q = p + (node ? 12 : 16), *id;
    Py_ssize_t len;
    if (!LIT(q, e, "\"id\":") || (q = plain_string(q, e, 1, 1, &id, &len)) == NULL || !after(last, id, len))
        return 0;
    if (!LIT(q, e, ",\"revision\":") || !lit(&q, e, revision, rlen) || (q < e && *q >= '0' && *q <= '9'))
        return 0;
    if (LIT(q, e, ",\"tombstone\":true}"))
        return q == e;
    if (node) {
        if (!LIT(q, e, ",\"kind\":") || (q = plain_string(q, e, 0, 0, NULL, NULL)) == NULL)
            return 0;
        if (LIT(q, e, ",\"parent\":") && (q = plain_string(q, e, 0, 0, NULL, NULL)) == NULL)
            return 0;
        if (LIT(q, e, ",\"stream\":") && (q = plain_string(q, e, 0, 0, NULL, NULL)) == NULL)
            return 0;
        if (LIT(q, e, ",\"ref\":") && (q = ref_end(q, e, through)) == NULL)
            return 0;
        if (LIT(q, e, ",\"refs\":") && (q = refs_end(q, e, through)) == NULL)
            return 0;
        if (LIT(q, e, ",\"attrs\":") && (q = value_end(q, e, 1)) == NULL)
            return 0;
    } else {
        if (!LIT(q, e, ",\"type\":") || (q = plain_string(q, e, 1, 0, NULL, NULL)) == NULL)
            return 0;
        if (!LIT(q, e, ",\"from\":") || (q = plain_string(q, e, 1, 0, NULL, NULL)) == NULL)
            return 0;
        if (!LIT(q, e, ",\"to\":") || (q = plain_string(q, e, 1, 0, NULL, NULL)) == NULL)
            return 0;
        if (!LIT(q, e, ",\"quality\":") || (q = plain_string(q, e, 0, 0, NULL, NULL)) == NULL)
            return 0;
        if (LIT(q, e, ",\"via\":") && (q = plain_string(q, e, 0, 0, NULL, NULL)) == NULL)
            return 0;
        if (LIT(q, e, ",\"evidence\":") && (q = refs_end(q, e, through)) == NULL)
            return 0;
    }
    return LIT(q, e, "}") && q == e;
}

PyDoc_STRVAR(round_frames_doc,
             "round_frames(data, start, round, through) -> None, or (stop, nodes, relations).\n\n"
             "A round file's node and relation frames from offset start vouched for without building them: stop is\n"
             "the offset of the first line that is not one, nodes and relations how many there were; None when one\n"
             "frame is not vouched for (the rules are in jsonscan.c, above round_frames). data: a bytes-like object\n"
             "(a round file's bytes), start: a byte offset into it, round and through: the header's round and\n"
             "through_seq; stop, nodes and relations are ints.\n\n"
             "Raises TypeError when data is not bytes-like or an offset or number not an int, BufferError when data is\n"
             "not C-contiguous, OverflowError when start does not fit a Py_ssize_t or round or through a long long,\n"
             "ValueError (naming the argument) when start is below 0 or past len(data), round below 1 or through below 0.");

static PyObject *round_frames(PyObject *self, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t start;
    long long round, through;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nLL", &buf, &start, &round, &through))
        return NULL;
    if (start < 0 || start > buf.len || round < 1 || through < 0) {
        if (start < 0 || start > buf.len)
            PyErr_Format(PyExc_ValueError, "start %zd is outside the data (0 to %zd)", start, buf.len);
        else if (round < 1)
            PyErr_Format(PyExc_ValueError, "round %lld is below 1 (rounds count from 1)", round);
        else
            PyErr_Format(PyExc_ValueError, "through %lld is below 0", through);
        PyBuffer_Release(&buf);
        return NULL;
    }
    char revision[24];
    size_t rlen = (size_t)snprintf(revision, sizeof revision, "%lld", round);
    const unsigned char *data = buf.buf, *p = data + start, *stop = data + buf.len;
    Py_ssize_t nodes = 0, relations = 0;
    int ok = 1;
    last_id last_node = {NULL, 0}, last_relation = {NULL, 0};
    Py_BEGIN_ALLOW_THREADS
    while (p < stop) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(stop - p));
        const unsigned char *e = nl != NULL ? nl : stop;
        int node;
        if (e - p >= 12 && memcmp(p, "{\"t\":\"node\",", 12) == 0)
            node = 1;
        else if (e - p >= 16 && memcmp(p, "{\"t\":\"relation\",", 16) == 0)
            node = 0;
        else
            break;
        if (nl == NULL || !frame_ok(p, e, node, revision, rlen, through, node ? &last_node : &last_relation)) {
            ok = 0;
            break;
        }
        if (node)
            nodes++;
        else
            relations++;
        p = nl + 1;
    }
    Py_END_ALLOW_THREADS
    Py_ssize_t at = p - data;
    PyBuffer_Release(&buf);
    if (!ok)
        Py_RETURN_NONE;
    return Py_BuildValue("(nnn)", at, nodes, relations);
}

PyDoc_STRVAR(index_lines_doc,
             "index_lines(data, end) -> None, or the number (from 1) of the first line of data[:end] not vouched for.\n\n"
             "Lines as data[:end].split(b'\\n') numbers them, an empty one skipped; a line is vouched for only when\n"
             "orjson.loads reads it as an object whose \"seq\" is an int (the rules are in jsonscan.c's head).\n\n"
             "Raises TypeError when data is not bytes-like or end not an int, BufferError when data is not C-contiguous,\n"
             "OverflowError when end does not fit a Py_ssize_t, ValueError when end is below 0 or past len(data).");

/* index_lines and index_lines_marked: the first line of data[:end] not vouched for (0: none) in *bad_out; with mark not
 * NULL, *mark set to 1 when a line before it holds MARK. -1 with an exception set when the arguments do not do. */
static int scan_index(PyObject *args, Py_ssize_t *bad_out, int *mark) {
    Py_buffer buf;
    Py_ssize_t end;
    if (!PyArg_ParseTuple(args, "y*n", &buf, &end))
        return -1;
    if (end < 0 || end > buf.len) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "end is outside the data");
        return -1;
    }
    const unsigned char *data = buf.buf, *p = data, *stop = data + end;
    Py_ssize_t line = 1, bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (;;) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(stop - p));
        const unsigned char *e = nl != NULL ? nl : stop;
        int here = 0; /* MARK in this line: counted only once the line is vouched for */
        if (e > p && !line_ok(p, e, mark != NULL ? &here : NULL)) {
            bad = line;
            break;
        }
        if (here)
            *mark = 1;
        if (nl == NULL)
            break;
        p = nl + 1;
        line++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    *bad_out = bad;
    return 0;
}

static PyObject *index_lines(PyObject *self, PyObject *args) {
    Py_ssize_t bad;
    (void)self;
    if (scan_index(args, &bad, NULL) < 0)
        return NULL;
    if (bad)
        return PyLong_FromSsize_t(bad);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(index_lines_marked_doc,
             "index_lines_marked(data, end) -> (first, marked): first as index_lines(data, end) gives it; marked True\n"
             "when a line before first (every line when first is None) holds b'\"untimed' (asz_core.verify.untimed.MARK),\n"
             "read in the same pass. What lies from line first on and past end is not looked at: the caller searches it.\n\n"
             "Raises as index_lines does.");

static PyObject *index_lines_marked(PyObject *self, PyObject *args) {
    Py_ssize_t bad;
    int mark = 0;
    (void)self;
    if (scan_index(args, &bad, &mark) < 0)
        return NULL;
    if (bad)
        return Py_BuildValue("(nO)", bad, mark ? Py_True : Py_False);
    return Py_BuildValue("(OO)", Py_None, mark ? Py_True : Py_False);
}

static PyMethodDef methods[] = {
    {"index_lines", index_lines, METH_VARARGS, index_lines_doc},
    {"index_lines_marked", index_lines_marked, METH_VARARGS, index_lines_marked_doc},
    {"round_frames", round_frames, METH_VARARGS, round_frames_doc},
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
