/* asz_adapters_claude.usual_line: the usual Claude Code transcript line into its record and parts, in C (issue 22,
 * docs/performance.md "Session 19, collect: the Claude Code line in C").
 *
 * The Python of asz_adapters_claude/transcript.py and blocks.py stays the definition and the fallback:
 *
 *     fill(rec, v, raw, begin, end) -> True when rec was filled, None when it was left untouched for the Python
 *
 * is asked by transcript_record for a line that is orjson's own encoding of its value (Obj.canonical) and whose type
 * is described, with rec fresh from convert_record. Like bytescan.call_keys it decides everything before it writes:
 * a line of another shape gets None and rec is not touched. It takes two shapes, the most common ones:
 *
 * - a runtime bookkeeping line (progress, file-history-snapshot, summary, ai-title, ...: DESCRIBED_TYPES less user,
 *   assistant, attachment, system): the line strings, the label of a summary or ai-title, the trigger, the flags
 *   reset_summary and injected, and one data part holding the line's bytes;
 * - an assistant line whose message is an object, whose content is a list of text, tool_use, server_tool_use and
 *   thinking blocks each of the shape blocks.py describes, and whose usage counts are integers of 64 bits (the 1-hour
 *   split from 0) at standard rates: the line strings, from agent, call, model, usage, trigger, the flags synthetic,
 *   finished, reset_summary and injected, a text, call or reasoning part a block and a "reasoning signature" entry
 *   under dropped for each signed thinking block.
 *
 * None for anything else: a toolUseResult key, a usage count that would be listed under dropped, a rate field that is
 * not standard, a block of another type or shape, content that is not a list, a message that is not an object.
 * setup() is called once by transcript.py with the classes and values the Python uses, so both make the same objects.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include "../asz_core/sessiondata/source_digest.h"

static PyObject *Part, *RawJSON, *Usage, *Dropped, *dumps, *mcp_split, *whole_types, *flag_names, *signature_why;
static PyObject *s_type, *s_assistant, *s_tool_use_result, *s_origin, *s_kind, *s_is_meta, *s_is_compact, *s_message,
    *s_usage, *s_content, *s_text, *s_thinking, *s_signature, *s_tool_use, *s_server_tool_use, *s_input, *s_id, *s_name,
    *s_model, *s_stop_reason, *s_synthetic_model, *s_cache_creation, *s_1h, *s_speed, *s_service_tier,
    *s_inference_geo, *s_standard, *s_not_available, *s_global, *s_empty, *s_human, *s_task_notification, *s_external,
    *s_notification, *s_unknown, *s_k, *s_data, *s_bytes, *s_call, *s_reasoning, *s_state, *s_available,
    *s_unavailable, *s_server, *s_server_tool, *s_what, *s_why, *s_reasoning_signature, *s_mcp, *s_ai_title,
    *s_summary, *s_ai_title_key, *s_summary_key, *s_label, *s_from, *s_agent, *s_trigger, *s_flags, *s_parts,
    *s_dropped, *s_call_attr;
static const char *count_keys[] = {"input_tokens", "output_tokens", "cache_read_input_tokens",
                                   "cache_creation_input_tokens"};
static PyObject *s_counts[4];
/* The line's string fields and the record fields they fill, in transcript._LINE_STRINGS' order. */
static const char *line_keys[] = {"uuid", "parentUuid", "promptId", "logicalParentUuid", "timestamp", "cwd",
                                  "gitBranch", "version", "requestId"};
static const char *line_fields[] = {"id", "parent", "run", "continues", "time", "cwd", "git_branch",
                                    "runtime_version", "request"};
static PyObject *s_line_keys[9], *s_line_fields[9];

/* d[key] borrowed, or NULL (no error) when absent. */
static PyObject *get(PyObject *d, PyObject *key) {
    PyObject *v = PyDict_GetItemWithError(d, key);
    return v;
}

/* blocks.str_of: d[key] when a str, else "" (borrowed). */
static PyObject *str_of(PyObject *d, PyObject *key) {
    PyObject *v = get(d, key);
    return v && PyUnicode_Check(v) ? v : s_empty;
}

static int is_true(PyObject *d, PyObject *key) {
    return get(d, key) == Py_True;
}

/* blocks.utf8_len: the UTF-8 size of a str, a lone surrogate counting 3. */
static Py_ssize_t utf8_len(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), size = n;
    if (PyUnicode_IS_ASCII(s))
        return n;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        size += c >= 0x80 ? (c >= 0x800 ? (c >= 0x10000 ? 3 : 2) : 1) : 0;
    }
    return size;
}

/* A usage count as usage_of takes it in its common pass: 1 with *out set (a new reference) for an exact int in range
 * (from 0 when from_zero) or 0 for absent or null; 0 for anything else (the Python lists it under dropped). */
static int count(PyObject *u, PyObject *key, int from_zero, PyObject **out) {
    PyObject *v = get(u, key);
    if (v == NULL || v == Py_None) {
        *out = PyLong_FromLong(0);
        return *out != NULL;
    }
    if (!PyLong_CheckExact(v))
        return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred()) || (from_zero && x < 0)) {
        PyErr_Clear();
        return 0;
    }
    Py_INCREF(v);
    *out = v;
    return 1;
}

/* A rate field at a standard rate (usage_of's test before rate_dropped): absent, or one of the values given. */
static int standard_rate(PyObject *u, PyObject *key, PyObject *a, PyObject *b, PyObject *c, int none_ok) {
    PyObject *v = get(u, key);
    if (v == NULL || (none_ok && v == Py_None))
        return 1;
    if (!PyUnicode_CheckExact(v))
        return 0;
    return PyUnicode_Compare(v, a) == 0 || (b && PyUnicode_Compare(v, b) == 0) || (c && PyUnicode_Compare(v, c) == 0);
}

/* usage_of(message) in its common shape: 1 with *out the Usage or None (new reference); 0 when the Python must. */
static int usage_of(PyObject *message, PyObject **out) {
    PyObject *u = get(message, s_usage);
    if (u == NULL || !PyDict_Check(u)) {
        Py_INCREF(Py_None);
        *out = Py_None;
        return 1;
    }
    /* speed and service_tier: u.get(k, "standard") != "standard" (None is not "standard": rate_dropped then lists
     * nothing, but the Python is asked); inference_geo: u.get(k, "") in ("", "not_available", "global", None) */
    if (!standard_rate(u, s_speed, s_standard, NULL, NULL, 0) || !standard_rate(u, s_service_tier, s_standard, NULL, NULL, 0) ||
        !standard_rate(u, s_inference_geo, s_empty, s_not_available, s_global, 1))
        return 0;
    PyObject *counts[5] = {NULL, NULL, NULL, NULL, NULL};
    Py_ssize_t n = 4;
    int ok = 1, any = 0;
    for (int i = 0; i < 4 && ok; i++)
        ok = count(u, s_counts[i], 0, &counts[i]);
    PyObject *split = ok ? get(u, s_cache_creation) : NULL;
    if (ok && split && PyDict_CheckExact(split)) {
        ok = count(split, s_1h, 1, &counts[4]);
        n = 5;
    }
    for (Py_ssize_t i = 0; i < n && ok; i++)
        any |= PyObject_IsTrue(counts[i]);
    if (ok)
        *out = any ? PyObject_Vectorcall(Usage, counts, n, NULL) : (Py_INCREF(Py_None), Py_None);
    for (int i = 0; i < 5; i++)
        Py_XDECREF(counts[i]);
    if (!ok)
        return 0;
    return *out ? 1 : -1;
}

/* transcript._trigger for a line that is not a user line and has no attachment: by origin.kind, else "". */
static PyObject *trigger_of(PyObject *v) {
    PyObject *origin = get(v, s_origin);
    if (origin == NULL || !PyDict_Check(origin))
        return s_empty;
    PyObject *kind = get(origin, s_kind);
    if (kind == NULL || !PyUnicode_Check(kind))
        return s_unknown;
    if (PyUnicode_Compare(kind, s_human) == 0)
        return s_external;
    if (PyUnicode_Compare(kind, s_task_notification) == 0)
        return s_notification;
    return s_unknown;
}

/* A Part (or Dropped, Usage) made from keyword values: names and values in pairs. */
static PyObject *make(PyObject *cls, PyObject *const *pairs, Py_ssize_t n) {
    PyObject *kw = PyDict_New();
    if (!kw)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyDict_SetItem(kw, pairs[2 * i], pairs[2 * i + 1]) < 0) {
            Py_DECREF(kw);
            return NULL;
        }
    PyObject *empty = PyTuple_New(0), *out = empty ? PyObject_Call(cls, empty, kw) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(kw);
    return out;
}

enum { B_TEXT, B_CALL, B_THINKING };

/* The kind of an assistant content block of the usual shape, or -1. */
static int block_kind(PyObject *item) {
    if (!PyDict_CheckExact(item))
        return -1;
    PyObject *t = get(item, s_type);
    if (t == NULL || !PyUnicode_CheckExact(t))
        return -1;
    if (PyUnicode_Compare(t, s_text) == 0) {
        PyObject *text = get(item, s_text);
        return text && PyUnicode_Check(text) ? B_TEXT : -1;
    }
    if (PyUnicode_Compare(t, s_tool_use) == 0 || PyUnicode_Compare(t, s_server_tool_use) == 0)
        return B_CALL;
    if (PyUnicode_Compare(t, s_thinking) == 0) {
        PyObject *text = get(item, s_thinking);
        return text == NULL || text == Py_None || PyUnicode_Check(text) ? B_THINKING : -1;
    }
    return -1;
}

/* The part of a block whose kind block_kind gave; a signature entry appended to dropped. */
static PyObject *block_part(PyObject *item, int kind, PyObject *dropped) {
    if (kind == B_TEXT) {
        PyObject *text = get(item, s_text), *size = PyLong_FromSsize_t(utf8_len(text));
        PyObject *pairs[] = {s_k, s_text, s_text, text, s_bytes, size};
        PyObject *out = size ? make(Part, pairs, 3) : NULL;
        Py_XDECREF(size);
        return out;
    }
    if (kind == B_THINKING) {
        PyObject *text = get(item, s_thinking);
        if (text == NULL || text == Py_None)
            text = s_empty;
        Py_ssize_t len = PyUnicode_GET_LENGTH(text);
        PyObject *size = PyLong_FromSsize_t(utf8_len(text));
        PyObject *pairs[] = {s_k, s_reasoning, s_text, text, s_state, len ? s_available : s_unavailable, s_bytes, size};
        PyObject *out = size ? make(Part, pairs, 4) : NULL;
        Py_XDECREF(size);
        PyObject *sig = get(item, s_signature);
        if (out && sig && PyUnicode_Check(sig) && PyUnicode_GET_LENGTH(sig)) {
            PyObject *sig_size = PyLong_FromSsize_t(utf8_len(sig));
            PyObject *dp[] = {s_what, s_reasoning_signature, s_bytes, sig_size, s_why, signature_why};
            PyObject *d = sig_size ? make(Dropped, dp, 3) : NULL;
            Py_XDECREF(sig_size);
            if (!d || PyList_Append(dropped, d) < 0) {
                Py_XDECREF(d);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(d);
        }
        return out;
    }
    /* a call: id, name, the input's encoding as data, the MCP server and tool when the name splits */
    PyObject *name = str_of(item, s_name), *input = get(item, s_input);
    PyObject *pairs[14] = {s_k, s_call_attr, s_id, str_of(item, s_id), s_name, name};
    Py_ssize_t n = 3;
    PyObject *data = NULL, *size = NULL, *split = NULL, *out = NULL;
    if (input) {
        PyObject *raw = PyObject_CallOneArg(dumps, input);
        if (!raw)
            return NULL;
        size = PyLong_FromSsize_t(PyBytes_GET_SIZE(raw));
        data = size ? PyObject_CallOneArg(RawJSON, raw) : NULL;
        Py_DECREF(raw);
        if (!data)
            goto done;
        pairs[2 * n] = s_data, pairs[2 * n + 1] = data, n++;
        pairs[2 * n] = s_bytes, pairs[2 * n + 1] = size, n++;
    }
    if (PyUnicode_Tailmatch(name, s_mcp, 0, PY_SSIZE_T_MAX, -1) == 1) {
        if (!(split = PyObject_CallOneArg(mcp_split, name)))
            goto done;
        if (PyTuple_Check(split) && PyTuple_GET_SIZE(split) == 2) {
            pairs[2 * n] = s_server, pairs[2 * n + 1] = PyTuple_GET_ITEM(split, 0), n++;
            pairs[2 * n] = s_server_tool, pairs[2 * n + 1] = PyTuple_GET_ITEM(split, 1), n++;
        }
    }
    out = make(Part, pairs, n);
done:
    Py_XDECREF(data);
    Py_XDECREF(size);
    Py_XDECREF(split);
    return out;
}

/* The flags in FLAGS' order (flag_names: synthetic, finished, reset_summary, injected as setup ordered them). */
static PyObject *flags_of(int synthetic, int finished, int reset_summary, int injected) {
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out && i < PyTuple_GET_SIZE(flag_names); i++) {
        PyObject *f = PyTuple_GET_ITEM(flag_names, i);
        const char *name = PyUnicode_AsUTF8(f);
        int on = !strcmp(name, "synthetic") ? synthetic : !strcmp(name, "finished") ? finished
                 : !strcmp(name, "reset_summary") ? reset_summary : injected;
        if (on && PyList_Append(out, f) < 0)
            Py_CLEAR(out);
    }
    return out;
}

static int set_all(PyObject *rec, PyObject *const *pairs, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyObject_SetAttr(rec, pairs[2 * i], pairs[2 * i + 1]) < 0)
            return -1;
    return 0;
}

static PyObject *fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5 || !PyDict_CheckExact(args[1]) || !PyBytes_CheckExact(args[2]) || Part == NULL) {
        PyErr_SetString(PyExc_TypeError, "fill(rec, v: dict, raw: bytes, begin, end) after setup()");
        return NULL;
    }
    PyObject *rec = args[0], *v = args[1];
    Py_ssize_t begin = PyLong_AsSsize_t(args[3]), end = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred())
        return NULL;
    if (begin < 0 || end > PyBytes_GET_SIZE(args[2]) || begin >= end)
        Py_RETURN_NONE;
    PyObject *t = get(v, s_type);
    if (t == NULL || !PyUnicode_CheckExact(t) || get(v, s_tool_use_result) != NULL)
        Py_RETURN_NONE;
    int assistant = PyUnicode_Compare(t, s_assistant) == 0;
    int whole = !assistant && PySet_Contains(whole_types, t) == 1;
    if (!assistant && !whole)
        Py_RETURN_NONE;
    int reset_summary = is_true(v, s_is_compact), injected = is_true(v, s_is_meta);
    PyObject *message = NULL, *content = NULL, *usage = NULL;
    if (assistant) { /* decide: message, content's blocks, usage */
        message = get(v, s_message);
        if (message == NULL || !PyDict_CheckExact(message))
            Py_RETURN_NONE;
        content = get(message, s_content);
        if (content == NULL || !PyList_CheckExact(content))
            Py_RETURN_NONE;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); i++)
            if (block_kind(PyList_GET_ITEM(content, i)) < 0)
                Py_RETURN_NONE;
        int got = usage_of(message, &usage);
        if (got < 0)
            return NULL;
        if (got == 0)
            Py_RETURN_NONE;
    }
    /* write: everything below is decided */
    PyObject *parts = PyList_New(0), *dropped = PyList_New(0), *flags = NULL, *result = NULL;
    if (!parts || !dropped)
        goto done;
    if (assistant) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); i++) {
            PyObject *item = PyList_GET_ITEM(content, i), *part = block_part(item, block_kind(item), dropped);
            if (!part || PyList_Append(parts, part) < 0) {
                Py_XDECREF(part);
                goto done;
            }
            Py_DECREF(part);
        }
        PyObject *model = get(message, s_model), *stop = get(message, s_stop_reason);
        int synthetic = model && PyUnicode_Check(model) && PyUnicode_Compare(model, s_synthetic_model) == 0;
        int finished = stop && PyUnicode_Check(stop) && PyUnicode_GET_LENGTH(stop) > 0;
        if (!(flags = flags_of(synthetic, finished, reset_summary, injected)))
            goto done;
        PyObject *pairs[] = {s_from, s_agent, s_call, str_of(message, s_id), s_model, str_of(message, s_model),
                             s_usage, usage};
        if (set_all(rec, pairs, 4) < 0)
            goto done;
    } else {
        PyObject *bytes = PyBytes_FromStringAndSize(PyBytes_AS_STRING(args[2]) + begin, end - begin);
        PyObject *data = bytes ? PyObject_CallOneArg(RawJSON, bytes) : NULL, *size = PyLong_FromSsize_t(end - begin);
        Py_XDECREF(bytes);
        PyObject *pp[] = {s_k, s_data, s_data, data, s_bytes, size};
        PyObject *part = data && size ? make(Part, pp, 3) : NULL;
        Py_XDECREF(data);
        Py_XDECREF(size);
        if (!part || PyList_Append(parts, part) < 0) {
            Py_XDECREF(part);
            goto done;
        }
        Py_DECREF(part);
        if (!(flags = flags_of(0, 0, reset_summary, injected)))
            goto done;
        PyObject *label = PyUnicode_Compare(t, s_ai_title) == 0 ? str_of(v, s_ai_title_key)
                          : PyUnicode_Compare(t, s_summary) == 0 ? str_of(v, s_summary_key) : NULL;
        if (label && PyObject_SetAttr(rec, s_label, label) < 0)
            goto done;
    }
    PyObject *common[] = {s_trigger, trigger_of(v), s_flags, flags, s_parts, parts, s_dropped, dropped};
    if (set_all(rec, common, 4) < 0)
        goto done;
    for (int i = 0; i < 9; i++)
        if (PyObject_SetAttr(rec, s_line_fields[i], str_of(v, s_line_keys[i])) < 0)
            goto done;
    result = Py_True;
    Py_INCREF(result);
done:
    Py_XDECREF(parts);
    Py_XDECREF(dropped);
    Py_XDECREF(flags);
    Py_XDECREF(usage);
    return result;
}

static PyObject *setup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 9 || !PyAnySet_Check(args[6]) || !PyTuple_Check(args[7]) || !PyUnicode_Check(args[8])) {
        PyErr_SetString(PyExc_TypeError,
                        "setup(Part, RawJSON, Usage, Dropped, dumps, mcp_split, whole_types, flag_names, signature_why)");
        return NULL;
    }
    PyObject **slots[] = {&Part, &RawJSON, &Usage, &Dropped, &dumps, &mcp_split, &whole_types, &flag_names,
                          &signature_why};
    for (int i = 0; i < 9; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*slots[i], args[i]);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", (PyCFunction)(void (*)(void))setup, METH_FASTCALL,
     "setup(Part, RawJSON, Usage, Dropped, dumps, mcp_split, whole_types, flag_names, signature_why): once."},
    {"fill", (PyCFunction)(void (*)(void))fill, METH_FASTCALL,
     "fill(rec, v, raw, begin, end) -> True when rec was filled as transcript_record fills it, None when untouched."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "usual_line",
                                    "The usual Claude Code transcript line into its record and parts, in C.", -1,
                                    methods};

#define INTERN(var, text) if (!((var) = PyUnicode_InternFromString(text))) return NULL;

PyMODINIT_FUNC PyInit_usual_line(void) {
    INTERN(s_type, "type") INTERN(s_assistant, "assistant") INTERN(s_tool_use_result, "toolUseResult")
    INTERN(s_origin, "origin") INTERN(s_kind, "kind") INTERN(s_is_meta, "isMeta")
    INTERN(s_is_compact, "isCompactSummary") INTERN(s_message, "message") INTERN(s_usage, "usage")
    INTERN(s_content, "content") INTERN(s_text, "text") INTERN(s_thinking, "thinking")
    INTERN(s_signature, "signature") INTERN(s_tool_use, "tool_use") INTERN(s_server_tool_use, "server_tool_use")
    INTERN(s_input, "input") INTERN(s_id, "id") INTERN(s_name, "name") INTERN(s_model, "model")
    INTERN(s_stop_reason, "stop_reason") INTERN(s_synthetic_model, "<synthetic>")
    INTERN(s_cache_creation, "cache_creation") INTERN(s_1h, "ephemeral_1h_input_tokens") INTERN(s_speed, "speed")
    INTERN(s_service_tier, "service_tier") INTERN(s_inference_geo, "inference_geo") INTERN(s_standard, "standard")
    INTERN(s_not_available, "not_available") INTERN(s_global, "global") INTERN(s_empty, "")
    INTERN(s_human, "human") INTERN(s_task_notification, "task-notification") INTERN(s_external, "external")
    INTERN(s_notification, "notification") INTERN(s_unknown, "unknown") INTERN(s_k, "k") INTERN(s_data, "data")
    INTERN(s_bytes, "bytes") INTERN(s_call, "call") INTERN(s_call_attr, "call") INTERN(s_reasoning, "reasoning")
    INTERN(s_state, "state") INTERN(s_available, "available") INTERN(s_unavailable, "unavailable")
    INTERN(s_server, "server") INTERN(s_server_tool, "server_tool") INTERN(s_what, "what") INTERN(s_why, "why")
    INTERN(s_reasoning_signature, "reasoning signature") INTERN(s_mcp, "mcp__") INTERN(s_ai_title, "ai-title")
    INTERN(s_summary, "summary") INTERN(s_ai_title_key, "aiTitle") INTERN(s_summary_key, "summary")
    INTERN(s_label, "label") INTERN(s_from, "from_") INTERN(s_agent, "agent") INTERN(s_trigger, "trigger")
    INTERN(s_flags, "flags") INTERN(s_parts, "parts") INTERN(s_dropped, "dropped")
    for (int i = 0; i < 4; i++)
        INTERN(s_counts[i], count_keys[i])
    for (int i = 0; i < 9; i++) {
        INTERN(s_line_keys[i], line_keys[i])
        INTERN(s_line_fields[i], line_fields[i])
    }
    return with_source_digest(PyModule_Create(&module));
}
