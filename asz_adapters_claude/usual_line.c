/* asz_adapters_claude.usual_line: the usual Claude Code transcript line into its record and parts, in C (issue 22,
 * docs/performance.md "Session 19, collect: the Claude Code line in C" and "Session 20, collect: the tool-result line
 * in C").
 *
 * The Python of asz_adapters_claude/transcript.py and blocks.py stays the definition and the fallback:
 *
 *     fill(rec, v, raw, begin, end) -> True when rec was filled, None when it was left untouched for the Python
 *
 * is asked by transcript_record for a line that is orjson's own encoding of its value (Obj.canonical) and whose type
 * is described, with rec fresh from convert_record. Like bytescan.call_keys it decides everything before it writes:
 * a line of another shape gets None and rec is not touched. It takes three shapes, the most common ones:
 *
 * - a runtime bookkeeping line (progress, file-history-snapshot, summary, ai-title, ...: DESCRIBED_TYPES less user,
 *   assistant, attachment, system): the line strings, the label of a summary or ai-title, the trigger, the flags
 *   reset_summary and injected, and one data part holding the line's bytes;
 * - an assistant line whose message is an object, whose content is a list of text, tool_use, server_tool_use and
 *   thinking blocks each of the shape blocks.py describes, and whose usage counts are integers of 64 bits (the 1-hour
 *   split from 0) at standard rates: the line strings, from agent, call, model, usage, trigger, the flags synthetic,
 *   finished, reset_summary and injected, a text, call or reasoning part a block and a "reasoning signature" entry
 *   under dropped for each signed thinking block;
 * - a user line whose message is an object with a string content (a prompt) or a list of text blocks, images of
 *   base64 data and tool_result blocks (their content a string, a list or anything else; an image in it of base64
 *   data), with no origin or an object, no promptSource and usage as above: from external, the toolUseResult's ids
 *   (tool, child, batch) when it is an object, call, model, usage, the trigger and the flags external_input,
 *   reset_summary, injected, launch_ack and child_result as transcript._trigger and _transcript_flags set them (a
 *   string content asks transcript.string_prompt), a text, media or result part a block (the first result part
 *   holding the toolUseResult object as data, as Parts._result does), a companion entry for a preview
 *   (companions.companion_dropped, asked only for a result text whose first character after white space is "<"),
 *   the "content list" entry of blocks.note_content_list, and a data part for a toolUseResult no result took. The
 *   derived changes/1 part of an editing tool's result stays in Python: transcript_record adds it after fill.
 *
 * None for anything else: a toolUseResult key on another type, a usage count that would be listed under dropped, a
 * rate field that is not standard, a block of another type or shape, an assistant content that is not a list, a
 * message that is not an object, a user string content opening with <task-notification> (its links are read by
 * regular expressions), a user content list of one text block opening with Claude Code's interrupt notice
 * (transcript.interrupt_notice), an origin that is not an object, a promptSource key.
 * setup() is called once by transcript.py with the classes and values the Python uses, so both make the same objects.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include "../asz_core/sessiondata/source_digest.h"

static PyObject *Part, *RawJSON, *Usage, *Dropped, *dumps, *mcp_split, *whole_types, *flag_names, *signature_why,
    *companion_dropped, *string_prompt, *content_list_what, *content_list_why;
static PyObject *s_type, *s_assistant, *s_tool_use_result, *s_origin, *s_kind, *s_is_meta, *s_is_compact, *s_message,
    *s_usage, *s_content, *s_text, *s_thinking, *s_signature, *s_tool_use, *s_server_tool_use, *s_input, *s_id, *s_name,
    *s_model, *s_stop_reason, *s_synthetic_model, *s_cache_creation, *s_1h, *s_speed, *s_service_tier,
    *s_inference_geo, *s_standard, *s_not_available, *s_global, *s_empty, *s_human, *s_task_notification, *s_external,
    *s_notification, *s_unknown, *s_k, *s_data, *s_bytes, *s_call, *s_reasoning, *s_state, *s_available,
    *s_unavailable, *s_server, *s_server_tool, *s_what, *s_why, *s_reasoning_signature, *s_mcp, *s_ai_title,
    *s_summary, *s_ai_title_key, *s_summary_key, *s_label, *s_from, *s_agent, *s_trigger, *s_flags, *s_parts,
    *s_dropped, *s_call_attr, *s_source, *s_base64, *s_media, *s_media_type, *s_image, *s_tool_result, *s_newline,
    *s_result, *s_of, *s_tool_use_id, *s_failed, *s_is_error, *s_prompt_source, *s_is_sidechain, *s_status,
    *s_async_launched, *s_completed, *s_user, *s_tool, *s_tool_use_id_key, *s_child, *s_agent_id, *s_batch, *s_run_id;
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

/* blocks.utf8_len: the UTF-8 size of a str, a lone surrogate counting 3; a loop of each width with no branch, which
 * the compiler vectorizes (a code point adds 1 from 0x80, 1 more from 0x800, 1 more from 0x10000). */
static Py_ssize_t utf8_len(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), size = n;
    if (PyUnicode_IS_ASCII(s))
        return n;
    if (PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = PyUnicode_1BYTE_DATA(s);
        for (Py_ssize_t i = 0; i < n; i++)
            size += p[i] >> 7;
    } else if (PyUnicode_KIND(s) == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = PyUnicode_2BYTE_DATA(s);
        for (Py_ssize_t i = 0; i < n; i++)
            size += (p[i] >= 0x80) + (p[i] >= 0x800);
    } else {
        const Py_UCS4 *p = PyUnicode_4BYTE_DATA(s);
        for (Py_ssize_t i = 0; i < n; i++)
            size += (p[i] >= 0x80) + (p[i] >= 0x800) + (p[i] >= 0x10000);
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

/* The flags this module sets, as bits; setup() names them in FLAGS' order (flag_names) and flag_bits[i] is the bit of
 * flag_names[i]. */
enum { F_SYNTHETIC = 1, F_FINISHED = 2, F_RESET_SUMMARY = 4, F_INJECTED = 8, F_EXTERNAL_INPUT = 16, F_LAUNCH_ACK = 32,
       F_CHILD_RESULT = 64 };
static const char *flag_words[] = {"synthetic", "finished", "reset_summary", "injected", "external_input", "launch_ack",
                                   "child_result"};
#define N_FLAGS 7
static int flag_bits[N_FLAGS];

/* The flags of mask, in FLAGS' order. */
static PyObject *flags_of(int mask) {
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out && i < PyTuple_GET_SIZE(flag_names); i++)
        if ((mask & flag_bits[i]) && PyList_Append(out, PyTuple_GET_ITEM(flag_names, i)) < 0)
            Py_CLEAR(out);
    return out;
}

static int set_all(PyObject *rec, PyObject *const *pairs, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyObject_SetAttr(rec, pairs[2 * i], pairs[2 * i + 1]) < 0)
            return -1;
    return 0;
}

/* The line's string fields into rec (transcript._LINE_STRINGS): True, or NULL on error. */
static PyObject *line_strings(PyObject *rec, PyObject *v) {
    for (int i = 0; i < 9; i++)
        if (PyObject_SetAttr(rec, s_line_fields[i], str_of(v, s_line_keys[i])) < 0)
            return NULL;
    Py_RETURN_TRUE;
}

/* ---- the user line (transcript.py and blocks.py: a prompt, or tool results with their toolUseResult) ---- */

enum { U_TEXT, U_IMAGE, U_RESULT };

/* blocks.Parts._image's test: a source object of type base64 whose data is a str. */
static int image_ok(PyObject *item) {
    PyObject *src = get(item, s_source), *t = src && PyDict_CheckExact(src) ? get(src, s_type) : NULL;
    PyObject *data = t ? get(src, s_data) : NULL;
    return t && PyUnicode_CheckExact(t) && PyUnicode_Compare(t, s_base64) == 0 && data && PyUnicode_Check(data);
}

/* A media part of an image image_ok took. */
static PyObject *media_part(PyObject *item) {
    PyObject *src = get(item, s_source), *data = get(src, s_data), *size = PyLong_FromSsize_t(utf8_len(data));
    PyObject *pairs[] = {s_k, s_media, s_media, str_of(src, s_media_type), s_data, data, s_bytes, size};
    PyObject *out = size ? make(Part, pairs, 4) : NULL;
    Py_XDECREF(size);
    return out;
}

/* The kind of an item of a result's content list: U_TEXT, U_IMAGE (any shape) or -1 (raw). */
static int result_item_kind(PyObject *item) {
    PyObject *t = PyDict_CheckExact(item) ? get(item, s_type) : NULL;
    if (t == NULL || !PyUnicode_CheckExact(t))
        return -1;
    if (PyUnicode_Compare(t, s_text) == 0) {
        PyObject *text = get(item, s_text);
        return text && PyUnicode_Check(text) ? U_TEXT : -1;
    }
    return PyUnicode_Compare(t, s_image) == 0 ? U_IMAGE : -1;
}

/* The kind of a user content block this module takes, or -1: a text block, an image of base64 data, a tool_result
 * whose images (if any) are of base64 data (an image of another shape lands as an unknown part: the Python's). */
static int user_block_kind(PyObject *item) {
    int kind = result_item_kind(item);
    if (kind >= 0)
        return kind == U_TEXT || image_ok(item) ? kind : -1;
    PyObject *t = PyDict_CheckExact(item) ? get(item, s_type) : NULL;
    if (t == NULL || !PyUnicode_CheckExact(t) || PyUnicode_Compare(t, s_tool_result) != 0)
        return -1;
    PyObject *content = get(item, s_content);
    if (content && PyList_CheckExact(content))
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); i++) {
            PyObject *x = PyList_GET_ITEM(content, i);
            if (result_item_kind(x) == U_IMAGE && !image_ok(x))
                return -1;
        }
    return U_RESULT;
}

static PyObject *text_part(PyObject *text) {
    PyObject *size = PyLong_FromSsize_t(utf8_len(text));
    PyObject *pairs[] = {s_k, s_text, s_text, text, s_bytes, size};
    PyObject *out = size ? make(Part, pairs, 3) : NULL;
    Py_XDECREF(size);
    return out;
}

/* Append part (a new reference, or NULL on error) to list: 0, or -1. */
static int add(PyObject *list, PyObject *part) {
    int r = part ? PyList_Append(list, part) : -1;
    Py_XDECREF(part);
    return r;
}

/* RawJSON(orjson.dumps(value)) with *size its length: a canonical line's member is its value's encoding (Obj.raw). */
static PyObject *raw_of(PyObject *value, Py_ssize_t *size) {
    PyObject *raw = PyObject_CallOneArg(dumps, value);
    if (!raw)
        return NULL;
    *size = PyBytes_GET_SIZE(raw);
    PyObject *out = PyObject_CallOneArg(RawJSON, raw);
    Py_DECREF(raw);
    return out;
}

/* The text of a result's content: the str, the list's text items joined by newlines, or NULL (no text: *raw set
 * when the content is other than absent or null, or a list holding an item that is neither text nor image). */
static PyObject *result_text(PyObject *content, int *raw) {
    if (content == NULL || content == Py_None)
        return NULL;
    if (PyUnicode_Check(content))
        return Py_NewRef(content);
    if (!PyList_CheckExact(content)) {
        *raw = 1;
        return NULL;
    }
    PyObject *texts = PyList_New(0), *out = NULL;
    for (Py_ssize_t i = 0; texts && i < PyList_GET_SIZE(content); i++) {
        PyObject *x = PyList_GET_ITEM(content, i);
        int kind = result_item_kind(x);
        if (kind == U_TEXT && PyList_Append(texts, get(x, s_text)) < 0)
            Py_CLEAR(texts);
        *raw |= kind < 0;
    }
    out = texts ? PyUnicode_Join(s_newline, texts) : NULL;
    Py_XDECREF(texts);
    return out ? out : (*raw = -1, NULL);
}

/* blocks.Parts._result: the result part (taking *tur, the line's toolUseResult, when not yet taken), the companion
 * entry of a preview, then a media part for each image of its content. 0, or -1 on error. */
static int result_parts(PyObject *blk, PyObject **tur, PyObject *parts, PyObject *dropped) {
    PyObject *content = get(blk, s_content), *failed = get(blk, s_is_error), *data = NULL, *size = NULL;
    int raw = 0, r = -1;
    PyObject *text = result_text(content, &raw);
    if (raw < 0)
        return -1;
    Py_ssize_t data_size = 0;
    if (*tur || raw) {
        data = raw_of(*tur ? *tur : content, &data_size);
        *tur = NULL;
        if (!data)
            goto done;
    }
    Py_ssize_t text_len = text ? PyUnicode_GET_LENGTH(text) : 0;
    if (!(size = PyLong_FromSsize_t(text_len ? utf8_len(text) : data_size)))
        goto done;
    PyObject *pairs[12] = {s_k, s_result, s_of, str_of(blk, s_tool_use_id), s_bytes, size};
    Py_ssize_t n = 3;
    if (failed && PyBool_Check(failed))
        pairs[2 * n] = s_failed, pairs[2 * n + 1] = failed, n++;
    if (text)
        pairs[2 * n] = s_text, pairs[2 * n + 1] = text, n++;
    if (data)
        pairs[2 * n] = s_data, pairs[2 * n + 1] = data, n++;
    if (add(parts, make(Part, pairs, n)) < 0)
        goto done;
    /* companions.note_companion: a preview opens with "<persisted-output>" after white space; only a text whose first
     * other character is "<" is asked */
    Py_ssize_t h = 0;
    while (h < text_len && Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(text, h)))
        h++;
    if (h < text_len && PyUnicode_READ_CHAR(text, h) == '<') {
        PyObject *entry = PyObject_CallOneArg(companion_dropped, text);
        if (!entry || (entry != Py_None && PyList_Append(dropped, entry) < 0)) {
            Py_XDECREF(entry);
            goto done;
        }
        Py_DECREF(entry);
    }
    if (content && PyList_CheckExact(content))
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); i++) {
            PyObject *x = PyList_GET_ITEM(content, i);
            if (result_item_kind(x) == U_IMAGE && add(parts, media_part(x)) < 0)
                goto done;
        }
    r = 0;
done:
    Py_XDECREF(text);
    Py_XDECREF(data);
    Py_XDECREF(size);
    return r;
}

/* What fill_user decided of a user line before it writes. */
typedef struct {
    PyObject *message, *content, *origin, *tur; /* borrowed; tur NULL unless the toolUseResult is an object */
    PyObject *usage;                            /* a new reference: the Usage or None */
    int flags;
} user_decided;

/* transcript._typed_prompt(v) == "external" for a line with no origin, isMeta, isCompactSummary, isSidechain or
 * toolUseResult (open), whose content is str (prompt: string_prompt's answer) or a list of user_block_kind kinds. */
static int typed_external(int open, PyObject *content, PyObject *prompt) {
    if (!open)
        return 0;
    if (prompt)
        return PyUnicode_Compare(prompt, s_external) == 0;
    Py_ssize_t n = PyList_GET_SIZE(content);
    for (Py_ssize_t i = 0; i < n; i++)
        if (user_block_kind(PyList_GET_ITEM(content, i)) == U_RESULT)
            return 0;
    return n > 0;
}

/* A content list of one text block opening with Claude Code's interrupt notice (blocks.INTERRUPT_NOTICES): the
 * Python decides it (transcript.interrupt_notice: flagged notice, no typed prompt). */
static int interrupt_words(PyObject *content) {
    if (PyList_GET_SIZE(content) != 1 || user_block_kind(PyList_GET_ITEM(content, 0)) != U_TEXT)
        return 0;
    PyObject *text = get(PyList_GET_ITEM(content, 0), s_text);
    const char *utf8 = text && PyUnicode_Check(text) ? PyUnicode_AsUTF8(text) : NULL;
    if (!utf8)
        PyErr_Clear();
    return utf8 && strncmp(utf8, "[Request interrupted by user", 28) == 0;
}

/* Decide a user line: 1 (u filled), 0 (the Python must convert it), -1 (an error). A string content opening with
 * <task-notification> (its links are read by regular expressions), an origin that is not an object, a promptSource,
 * a block of another type or shape, odd usage: 0. */
static int decide_user(PyObject *v, user_decided *u) {
    u->message = get(v, s_message);
    if (!u->message || !PyDict_CheckExact(u->message))
        return 0;
    u->content = get(u->message, s_content);
    u->origin = get(v, s_origin);
    if (!u->content || (!PyUnicode_CheckExact(u->content) && !PyList_CheckExact(u->content)) ||
        (u->origin && !PyDict_CheckExact(u->origin)) || get(v, s_prompt_source))
        return 0;
    PyObject *tur = get(v, s_tool_use_result), *prompt = NULL;
    u->tur = tur && PyDict_CheckExact(tur) ? tur : NULL;
    int meta = is_true(v, s_is_meta), compact = is_true(v, s_is_compact);
    if (PyUnicode_CheckExact(u->content)) {
        if (!(prompt = PyObject_CallOneArg(string_prompt, u->content)))
            return -1;
        if (!PyUnicode_Check(prompt) || PyUnicode_Compare(prompt, s_notification) == 0) {
            Py_DECREF(prompt);
            return 0;
        }
    } else {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(u->content); i++)
            if (user_block_kind(PyList_GET_ITEM(u->content, i)) < 0)
                return 0;
        if (interrupt_words(u->content))
            return 0;
    }
    int open = !u->origin && !meta && !compact && !is_true(v, s_is_sidechain) && !tur;
    int typed = typed_external(open, u->content, prompt), external;
    Py_XDECREF(prompt);
    if (u->origin) {
        PyObject *kind = get(u->origin, s_kind);
        external = !meta && !compact && kind && PyUnicode_Check(kind) && PyUnicode_Compare(kind, s_human) == 0;
    } else
        external = typed;
    PyObject *status = u->tur ? get(u->tur, s_status) : NULL;
    int launch = status && PyUnicode_Check(status) && PyUnicode_Compare(status, s_async_launched) == 0;
    int child = status && PyUnicode_Check(status) && PyUnicode_Compare(status, s_completed) == 0;
    u->flags = (external ? F_EXTERNAL_INPUT : 0) | (compact ? F_RESET_SUMMARY : 0) | (meta ? F_INJECTED : 0) |
               (launch ? F_LAUNCH_ACK : 0) | (child ? F_CHILD_RESULT : 0);
    int got = usage_of(u->message, &u->usage);
    return got;
}

/* The parts and dropped entries of a decided user line, in source order (transcript_record). 0, or -1. */
static int user_parts(user_decided *u, PyObject *parts, PyObject *dropped) {
    PyObject *content = u->content, *tur = u->tur;
    int text = PyUnicode_CheckExact(content);
    if (text && add(parts, text_part(content)) < 0)
        return -1;
    Py_ssize_t n = text ? 0 : PyList_GET_SIZE(content);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(content, i);
        int kind = user_block_kind(item);
        if ((kind == U_TEXT && add(parts, text_part(get(item, s_text))) < 0) ||
            (kind == U_IMAGE && add(parts, media_part(item)) < 0) ||
            (kind == U_RESULT && result_parts(item, &tur, parts, dropped) < 0))
            return -1;
    }
    if (!text && n == 1 && user_block_kind(PyList_GET_ITEM(content, 0)) == U_TEXT) { /* blocks.note_content_list */
        Py_ssize_t list_size = 0, text_size = 0;
        PyObject *a = raw_of(content, &list_size), *b = a ? raw_of(get(PyList_GET_ITEM(content, 0), s_text), &text_size)
                                                          : NULL;
        PyObject *size = b ? PyLong_FromSsize_t(list_size - text_size) : NULL;
        Py_XDECREF(a);
        Py_XDECREF(b);
        PyObject *pairs[] = {s_what, content_list_what, s_bytes, size, s_why, content_list_why};
        int r = size ? add(dropped, make(Dropped, pairs, 3)) : -1;
        Py_XDECREF(size);
        if (r < 0)
            return -1;
    }
    if (tur) { /* a toolUseResult with no result block to sit beside */
        Py_ssize_t size = 0;
        PyObject *data = raw_of(tur, &size), *bytes = data ? PyLong_FromSsize_t(size) : NULL;
        PyObject *pairs[] = {s_k, s_data, s_data, data, s_bytes, bytes};
        int r = bytes ? add(parts, make(Part, pairs, 3)) : -1;
        Py_XDECREF(data);
        Py_XDECREF(bytes);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* fill for a user line: 1 filled, 0 untouched, -1 an error (rec untouched but for a failure of setattr). */
static int fill_user(PyObject *rec, PyObject *v) {
    user_decided u = {0};
    int got = decide_user(v, &u);
    if (got <= 0)
        return got;
    PyObject *parts = PyList_New(0), *dropped = PyList_New(0), *flags = flags_of(u.flags);
    int r = -1;
    if (!parts || !dropped || !flags || user_parts(&u, parts, dropped) < 0)
        goto done;
    PyObject *trigger = u.origin ? trigger_of(v) : u.flags & F_EXTERNAL_INPUT ? s_external : s_empty;
    PyObject *pairs[] = {s_from, s_external, s_call, str_of(u.message, s_id), s_model, str_of(u.message, s_model),
                         s_usage, u.usage, s_trigger, trigger, s_flags, flags, s_parts, parts, s_dropped, dropped};
    if (set_all(rec, pairs, 8) < 0)
        goto done;
    if (u.tur) {
        PyObject *ids[] = {s_tool, str_of(u.tur, s_tool_use_id_key), s_child, str_of(u.tur, s_agent_id), s_batch,
                           str_of(u.tur, s_run_id)};
        if (set_all(rec, ids, 3) < 0)
            goto done;
    }
    r = 1;
done:
    Py_XDECREF(parts);
    Py_XDECREF(dropped);
    Py_XDECREF(flags);
    Py_XDECREF(u.usage);
    return r;
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
    if (t == NULL || !PyUnicode_CheckExact(t))
        Py_RETURN_NONE;
    if (PyUnicode_Compare(t, s_user) == 0) {
        int got = fill_user(rec, v);
        if (got < 0)
            return NULL;
        if (got == 0)
            Py_RETURN_NONE;
        return line_strings(rec, v);
    }
    if (get(v, s_tool_use_result) != NULL)
        Py_RETURN_NONE;
    int assistant = PyUnicode_Compare(t, s_assistant) == 0;
    int whole = !assistant && PySet_Contains(whole_types, t) == 1;
    if (!assistant && !whole)
        Py_RETURN_NONE;
    int common_flags = (is_true(v, s_is_compact) ? F_RESET_SUMMARY : 0) | (is_true(v, s_is_meta) ? F_INJECTED : 0);
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
        if (!(flags = flags_of((synthetic ? F_SYNTHETIC : 0) | (finished ? F_FINISHED : 0) | common_flags)))
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
        if (!(flags = flags_of(common_flags)))
            goto done;
        PyObject *label = PyUnicode_Compare(t, s_ai_title) == 0 ? str_of(v, s_ai_title_key)
                          : PyUnicode_Compare(t, s_summary) == 0 ? str_of(v, s_summary_key) : NULL;
        if (label && PyObject_SetAttr(rec, s_label, label) < 0)
            goto done;
    }
    PyObject *common[] = {s_trigger, trigger_of(v), s_flags, flags, s_parts, parts, s_dropped, dropped};
    if (set_all(rec, common, 4) < 0)
        goto done;
    result = line_strings(rec, v);
done:
    Py_XDECREF(parts);
    Py_XDECREF(dropped);
    Py_XDECREF(flags);
    Py_XDECREF(usage);
    return result;
}

static PyObject *setup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 13 || !PyAnySet_Check(args[6]) || !PyTuple_Check(args[7]) || PyTuple_GET_SIZE(args[7]) != N_FLAGS ||
        !PyUnicode_Check(args[8]) || !PyUnicode_Check(args[11]) || !PyUnicode_Check(args[12])) {
        PyErr_SetString(PyExc_TypeError, "setup(Part, RawJSON, Usage, Dropped, dumps, mcp_split, whole_types, flag_names, "
                                         "signature_why, companion_dropped, string_prompt, content_list_what, "
                                         "content_list_why)");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < N_FLAGS; i++) { /* flag_names: the seven flag_words in FLAGS' order */
        const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(args[7], i));
        flag_bits[i] = 0;
        for (int j = 0; name && j < N_FLAGS; j++)
            if (!strcmp(name, flag_words[j]))
                flag_bits[i] = 1 << j;
        if (!flag_bits[i]) {
            PyErr_SetString(PyExc_ValueError, "setup: flag_names must be the flags this module sets");
            return NULL;
        }
    }
    PyObject **slots[] = {&Part, &RawJSON, &Usage, &Dropped, &dumps, &mcp_split, &whole_types, &flag_names,
                          &signature_why, &companion_dropped, &string_prompt, &content_list_what, &content_list_why};
    for (int i = 0; i < 13; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*slots[i], args[i]);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", (PyCFunction)(void (*)(void))setup, METH_FASTCALL,
     "setup(Part, RawJSON, Usage, Dropped, dumps, mcp_split, whole_types, flag_names, signature_why, companion_dropped, "
     "string_prompt, content_list_what, content_list_why): once."},
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
    INTERN(s_source, "source") INTERN(s_base64, "base64") INTERN(s_media, "media") INTERN(s_media_type, "media_type")
    INTERN(s_image, "image") INTERN(s_tool_result, "tool_result") INTERN(s_newline, "\n") INTERN(s_result, "result")
    INTERN(s_of, "of") INTERN(s_tool_use_id, "tool_use_id") INTERN(s_failed, "failed") INTERN(s_is_error, "is_error")
    INTERN(s_prompt_source, "promptSource") INTERN(s_is_sidechain, "isSidechain") INTERN(s_status, "status")
    INTERN(s_async_launched, "async_launched") INTERN(s_completed, "completed") INTERN(s_user, "user")
    INTERN(s_tool, "tool") INTERN(s_tool_use_id_key, "toolUseId") INTERN(s_child, "child") INTERN(s_agent_id, "agentId")
    INTERN(s_batch, "batch") INTERN(s_run_id, "runId")
    for (int i = 0; i < 4; i++)
        INTERN(s_counts[i], count_keys[i])
    for (int i = 0; i < 9; i++) {
        INTERN(s_line_keys[i], line_keys[i])
        INTERN(s_line_fields[i], line_fields[i])
    }
    return with_source_digest(PyModule_Create(&module));
}
