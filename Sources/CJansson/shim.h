#ifndef PHONEAUTH_CJANSSON_SHIM_H
#define PHONEAUTH_CJANSSON_SHIM_H
#include <jansson.h>

/* jansson's type tests and reference counting are macros Swift cannot import. */
static inline int pa_json_typeof(const json_t *j) { return j ? (int)json_typeof(j) : -1; }
static inline int pa_json_is_object(const json_t *j) { return json_is_object(j); }
static inline int pa_json_is_array(const json_t *j) { return json_is_array(j); }
static inline int pa_json_is_string(const json_t *j) { return json_is_string(j); }
static inline int pa_json_is_integer(const json_t *j) { return json_is_integer(j); }
static inline int pa_json_is_real(const json_t *j) { return json_is_real(j); }
static inline int pa_json_is_boolean(const json_t *j) { return json_is_boolean(j); }
static inline int pa_json_is_true(const json_t *j) { return json_is_true(j); }
static inline int pa_json_is_null(const json_t *j) { return json_is_null(j); }
static inline void pa_json_decref(json_t *j) { json_decref(j); }
static inline json_t *pa_json_incref(json_t *j) { return json_incref(j); }
static inline json_t *pa_json_true(void) { return json_true(); }
static inline json_t *pa_json_false(void) { return json_false(); }
static inline json_t *pa_json_null(void) { return json_null(); }
#endif
