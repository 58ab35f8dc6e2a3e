/* The SHA-256 of a compiled module's C source, given by setup.py as ASZ_SOURCE_SHA256 and kept as the module's
 * SOURCE_SHA256: asz_core/sessiondata/compiled.py uses the module only when it matches the .c beside it. Included by
 * asz_core/sessiondata/bytescan.c, asz_core/sessiondata/jsoncheck.c and asz_core/verify/linescan.c. */
#ifndef ASZ_SOURCE_DIGEST_H
#define ASZ_SOURCE_DIGEST_H
#include <Python.h>
#ifndef ASZ_SOURCE_SHA256
#define ASZ_SOURCE_SHA256 ""
#endif
static PyObject *with_source_digest(PyObject *m) {
    if (m && PyModule_AddStringConstant(m, "SOURCE_SHA256", ASZ_SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
#endif
