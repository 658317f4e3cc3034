/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fault injection for json-c: link the test with
 * -Wl,--wrap=json_object_new_uint64 (tests/unit/test_X.ldflags); then
 * json_object_new_uint64() called from lib/ returns NULL once
 * jsonfail_after counts down to 0 (-1: never), as it does out of memory.
 */
#ifndef BQLTOOL_TESTS_UNIT_JSONFAIL_H
#define BQLTOOL_TESTS_UNIT_JSONFAIL_H

#include <stdint.h>

#include <json-c/json.h>

static int jsonfail_after = -1;
struct json_object *__real_json_object_new_uint64(uint64_t v);
struct json_object *__wrap_json_object_new_uint64(uint64_t v);
struct json_object *__wrap_json_object_new_uint64(uint64_t v)
{
	if (jsonfail_after >= 0 && jsonfail_after-- == 0)
		return NULL;
	return __real_json_object_new_uint64(v);
}

#endif
